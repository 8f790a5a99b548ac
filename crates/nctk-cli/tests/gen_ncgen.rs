//! `nctk gen` against netCDF-C 4.9.0's `ncgen` on CDL written to probe
//! ncgen's reading rules (skipped when `ncgen` or `ncdump` is absent): type
//! names used as names, `string` attributes in the classic kinds, CDL that
//! is not UTF-8, and dimension and variable sizes. Each case is run through
//! both; when both write a file, `ncdump` of the two must be byte-identical;
//! otherwise both must refuse.

use std::path::Path;
use std::process::Command;

use nctk_test_support::require;
use nctk_tools::gen::{gen, GenArgs};

/// Whether `ncgen` and `ncdump` are there (the skip rule otherwise).
fn peers() -> bool {
    require::tools(&["ncgen", "ncdump"])
}

/// `ncdump FILE`'s output, bytes as printed.
fn ncdump(file: &Path) -> Vec<u8> {
    let out = Command::new("ncdump").arg(file).output().unwrap();
    assert!(out.status.success(), "ncdump {}: {:?}", file.display(), out);
    out.stdout
}

/// What ncgen and nctk made of one CDL text for one kind.
struct Outcome {
    /// `ncdump` of ncgen's file, or ncgen's message when it refused.
    ncgen: Result<Vec<u8>, String>,
    /// `ncdump` of nctk's file, or nctk's message when it refused.
    nctk: Result<Vec<u8>, String>,
}

impl Outcome {
    /// Both wrote files that dump alike, or both refused; the reason otherwise.
    fn disagreement(&self) -> Option<String> {
        match (&self.ncgen, &self.nctk) {
            (Ok(a), Ok(b)) if a == b => None,
            (Err(_), Err(_)) => None,
            (Ok(a), Ok(b)) => Some(format!(
                "dumps differ:\n--- ncgen\n{}\n--- nctk\n{}",
                String::from_utf8_lossy(a),
                String::from_utf8_lossy(b)
            )),
            (Ok(_), Err(e)) => Some(format!("ncgen accepts, nctk refuses: {e}")),
            (Err(e), Ok(_)) => Some(format!("ncgen refuses ({e}), nctk accepts")),
        }
    }
}

/// Runs `ncgen -k KIND -o x.nc` and `nctk gen -k KIND -o x.nc` (in separate
/// directories, so both dumps are headed `netcdf x`).
fn run(kind: &str, cdl: &[u8]) -> Outcome {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("in.cdl");
    std::fs::write(&src, cdl).unwrap();
    for d in ["ncgen", "nctk"] {
        std::fs::create_dir(tmp.path().join(d)).unwrap();
    }
    let theirs = tmp.path().join("ncgen/x.nc");
    let out = Command::new("ncgen")
        .args(["-k", kind, "-o"])
        .arg(&theirs)
        .arg(&src)
        .output()
        .unwrap();
    let ncgen = if out.status.success() {
        Ok(ncdump(&theirs))
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    };
    let ours = tmp.path().join("nctk/x.nc");
    let args = GenArgs {
        kind: Some(kind.into()),
        output: Some(ours.clone()),
        binary: false,
        no_fill: false,
        name: None,
    };
    let nctk = gen(&args, cdl, tmp.path())
        .map(|_| ncdump(&ours))
        .map_err(|e| e.to_string());
    Outcome { ncgen, nctk }
}

/// Cases where nctk differs from ncgen 4.9.0 on purpose: kind, CDL, why.
const DIFFERENT_ON_PURPOSE: &[(&str, &str, &str)] = &[(
    "nc5",
    "netcdf x { variables: int64 v ; }",
    "ncgen 4.9.0 writes CDF-5 int64 variables as int; nctk keeps int64 (as gen_corpus.rs)",
)];

/// Runs every case for every kind and fails with the list of disagreements.
fn check_all(kinds: &[&str], cases: &[Vec<u8>]) -> (usize, usize) {
    let mut problems = Vec::new();
    let (mut written, mut refused) = (0, 0);
    for kind in kinds {
        for cdl in cases {
            if DIFFERENT_ON_PURPOSE
                .iter()
                .any(|(k, c, _)| k == kind && c.as_bytes() == cdl.as_slice())
            {
                continue;
            }
            let o = run(kind, cdl);
            match o.disagreement() {
                Some(why) => problems.push(format!(
                    "-k {kind}: {}\n  {why}",
                    String::from_utf8_lossy(cdl)
                )),
                None if o.ncgen.is_ok() => written += 1,
                None => refused += 1,
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    (written, refused)
}

/// ncgen 4.9.0 reads the names of types the kind lacks (`string` outside
/// netCDF-4; `int64`, `ubyte`, `ushort`, `uint`, `uint64` and the aliases
/// `ulong`, `uinteger` outside netCDF-4 and CDF-5), upper-case spellings and
/// the section words without their colon as names, and still takes such a
/// name as a type where a type is expected. Every keyword in every place a
/// name goes, in the three classic kinds.
#[test]
fn type_names_as_names_follow_ncgen() {
    if !peers() {
        return;
    }
    let words = [
        "string",
        "STRING",
        "int64",
        "INT64",
        "ubyte",
        "ushort",
        "uint",
        "uint64",
        "ulong",
        "uinteger",
        "byte",
        "BYTE",
        "char",
        "short",
        "int",
        "long",
        "float",
        "real",
        "double",
        "data",
        "dimensions",
        "variables",
        "group",
        "types",
        "unlimited",
        "inf",
        "NaN",
    ];
    let mut cases = Vec::new();
    for w in words {
        for cdl in [
            format!("netcdf x {{ dimensions: {w} = 3 ; variables: int v({w}) ; }}"),
            format!("netcdf x {{ variables: int {w} ; data: {w} = 7 ; }}"),
            format!("netcdf x {{ variables: int v ; v:{w} = 1 ; }}"),
            format!("netcdf x {{ :{w} = 1 ; }}"),
            format!("netcdf x {{ variables: int {w} ; {w}:a = 1 ; }}"),
            format!("netcdf x {{ variables: int {w} ; short {w}:a = 1 ; }}"),
            // No data: ncgen refuses numbers for `char` (nctk converts them).
            format!("netcdf x {{ variables: {w} v ; }}"),
            format!("netcdf x {{ variables: int v ; {w} v:a = 5 ; }}"),
            format!("netcdf x {{ {w} :a = 5 ; }}"),
        ] {
            cases.push(cdl.into_bytes());
        }
    }
    cases.push(
        b"netcdf x { dimensions: string = 3 ; variables: int int64(string) ; int64:ubyte = 1 ; }"
            .to_vec(),
    );
    // `-k`, not `_Format`, decides which type names are keywords.
    cases.push(
        b"netcdf x { dimensions: string = 3 ; variables: int v(string) ; :_Format = \"cdf5\" ; }"
            .to_vec(),
    );
    let (written, refused) = check_all(&["nc3", "nc6", "nc5"], &cases);
    assert!(
        written > 100 && refused > 100,
        "{written} written, {refused} refused"
    );
}

/// ncgen 4.9.0 leaves `string` attributes out of the kinds without strings,
/// whichever way the type is spelled, and concatenates the strings of a
/// `char` attribute.
#[test]
fn string_attributes_and_concatenation_follow_ncgen() {
    if !peers() {
        return;
    }
    let cases: Vec<Vec<u8>> = [
        "netcdf x { string :b = \"x\", \"yz\" ; :c = 1 ; }",
        "netcdf x { :c = 1 ; string :c = \"x\" ; }",
        "netcdf x { string :c = \"x\" ; :c = 1 ; }",
        "netcdf x { variables: int v ; string v:c = \"x\" ; v:d = \"a\", \"bc\", \"\" ; }",
        "netcdf x { string :c = 1 ; string :d = NIL ; }",
        "netcdf x { :a = \"x\", \"yz\" ; char :b = \"x\", \"yz\", \"\" ; :c = \"\", \"q\" ; }",
        "netcdf x { :d = \"\" ; :e = \"a\", \"\" ; :f = \"a\\000b\", \"c\" ; :g = 'a', 'b' ; }",
        "netcdf x { char :a = \"x\", 'y', \"z\" ; }",
        "netcdf x { :a = \"x\", 120b ; }",
        "netcdf x { :a = string \"x\" ; }",
        "netcdf x { string :c = \"x\", _ ; }",
        "netcdf x { dimensions: d = 5 ; variables: char c(d) ; data: c = \"ab\", \"c\", 'd' ; }",
    ]
    .iter()
    .map(|s| s.as_bytes().to_vec())
    .collect();
    check_all(&["nc3", "nc6", "nc5"], &cases);
}

/// Bytes that are not UTF-8 (Latin-1) in string values go to the file as
/// they are, as ncgen writes them; in names both refuse, nctk naming the
/// line.
#[test]
fn latin1_cdl_follows_ncgen() {
    if !peers() {
        return;
    }
    let values: Vec<Vec<u8>> = vec![
        b"netcdf x {\n:a = \"caf\xe9\" ;\n:b = \"x\xff\", \"\xc3\" ;\n}\n".to_vec(),
        b"netcdf x {\ndimensions: d = 4 ;\nvariables: char c(d) ;\n c:u = \"\xb5m\" ;\ndata: c = \"\xe9t\xe9\" ;\n}\n".to_vec(),
        b"netcdf x {\nvariables: char c ;\ndata: c = \"\xe9\" ;\n}\n".to_vec(),
    ];
    let (written, _) = check_all(&["nc3", "nc5"], &values);
    assert_eq!(written, 6);
    let names: [(&[u8], u32); 4] = [
        (b"netcdf x {\ndimensions:\n d\xe9 = 2 ;\n}\n", 3),
        (b"netcdf x {\nvariables:\n int v\xe9 ;\n}\n", 3),
        (b"netcdf x {\n:\xe9 = 1 ;\n}\n", 2),
        (
            b"netcdf x {\nvariables:\n int v ;\n v:caf\xe9 = 1 ;\n}\n",
            4,
        ),
    ];
    for (cdl, line) in names {
        let o = run("nc3", cdl);
        assert!(o.ncgen.is_err(), "ncgen accepts {cdl:?}");
        let e = o.nctk.expect_err("nctk accepts a Latin-1 name");
        assert!(
            e.contains(&format!("line {line},")) && e.contains("UTF-8"),
            "{e}"
        );
    }
}

/// Dimension sizes against each kind's limits and ncgen's reading of the
/// constant, and variable sizes against the format's limits: refused before
/// anything is written, where ncgen refuses them.
#[test]
fn sizes_follow_ncgen() {
    if !peers() {
        return;
    }
    let mut cases = Vec::new();
    for n in [
        "2147483644",
        "2147483645",
        "2147483647",
        "2147483648",
        "4294967292",
        "4294967295",
        "4294967296",
        "99999999999999",
        "9223372036854775807",
        "18446744073709551615",
    ] {
        cases.push(format!("netcdf x {{ dimensions: d = {n} ; }}").into_bytes());
        // Sizes every kind refuses with a variable too (where one kind
        // accepts the size, ncgen would write the variable's gigabytes of
        // fill, so those are left to the dimension-only case).
        if n.parse::<u128>().unwrap() > u128::from(u32::MAX) {
            cases.push(
                format!("netcdf x {{ dimensions: d = {n} ; variables: double v(d) ; }}")
                    .into_bytes(),
            );
        }
    }
    cases.push(
        b"netcdf x { dimensions: d = 4294967295 ; e = 4294967295 ; variables: byte v(d, e) ; }"
            .to_vec(),
    );
    let (written, refused) = check_all(&["nc3", "nc6", "nc5"], &cases);
    assert!(
        written >= 6 && refused >= 20,
        "{written} written, {refused} refused"
    );
    // A large variable that is not the last one (CDF-5 accepts it: not run).
    let large =
        b"netcdf x { dimensions: d = 1000 ; e = 2000000 ; variables: double v(d, e), w(d) ; }";
    assert_eq!(check_all(&["nc3", "nc6"], &[large.to_vec()]), (0, 2));
    // The typo of the brief is refused at its line, before any file exists.
    let tmp = tempfile::tempdir().unwrap();
    for kind in ["nc3", "nc5"] {
        let out = tmp.path().join("typo.nc");
        let args = GenArgs {
            kind: Some(kind.into()),
            output: Some(out.clone()),
            binary: false,
            no_fill: false,
            name: None,
        };
        let cdl = "netcdf x {\ndimensions:\n d = 99999999999999 ;\nvariables:\n double v(d) ;\n}\n";
        let e = gen(&args, cdl, tmp.path()).unwrap_err().to_string();
        assert!(e.contains("line 3,"), "{e}");
        assert!(!out.exists());
    }
}
