//! The printer's flags against the installed netCDF-C `ncdump` (skipped
//! when `ncdump` or the corpus is absent): `-c -v -b -f -l -p -t -i -x -s
//! -k -n` on a sample of classic corpus files and on files made here with
//! `ncgen` from CDL written to exercise the corner cases.

use std::path::{Path, PathBuf};
use std::process::Command;

use nctk_cdl::print::{dump, IndexLang, Options, TimeStrings};
use nctk_classic::ClassicReader;
use nctk_model::DataSource;
use nctk_test_support::{corpus::files_under, require};

/// ncdump's flags as [`Options`] (a test-only parser; the CLI has its own).
fn options(args: &[&str]) -> Options {
    let mut o = Options::default();
    let mut i = 0;
    while i < args.len() {
        let a = args[i];
        let mut val = || {
            i += 1;
            args[i].to_string()
        };
        match a {
            "-h" => o.header_only = true,
            "-c" => o.coords_only = true,
            "-k" => o.kind_only = true,
            "-s" => o.special = true,
            "-x" => o.ncml = true,
            "-t" => o.times = TimeStrings::Blank,
            "-i" => o.times = TimeStrings::IsoT,
            "-v" => o.vars = val().split(',').map(String::from).collect(),
            "-g" => o.groups = val().split(',').map(String::from).collect(),
            "-n" => o.name = Some(val()),
            "-l" => o.max_line_len = val().parse().unwrap(),
            "-b" | "-f" => {
                let v = val();
                o.index_lang = if v.starts_with('f') {
                    IndexLang::Fortran
                } else {
                    IndexLang::C
                };
                if a == "-b" {
                    o.brief_comments = true;
                } else {
                    o.full_comments = true;
                }
            }
            "-p" => {
                let v = val();
                // ncdump ignores "-p ,N" entirely.
                if v.starts_with(',') {
                    i += 1;
                    continue;
                }
                let (f, d) = v.split_once(',').unwrap_or((&v, ""));
                if !f.is_empty() {
                    o.float_digits = Some(f.parse().unwrap());
                }
                if !d.is_empty() {
                    o.double_digits = Some(d.parse().unwrap());
                }
            }
            other => panic!("unknown flag {other}"),
        }
        i += 1;
    }
    o
}

/// Compares `ncdump args file` with the printer; returns a description of
/// the first difference.
fn compare(file: &Path, args: &[&str]) -> Result<(), String> {
    let out = Command::new("ncdump")
        .args(args)
        .arg(file)
        .output()
        .unwrap();
    let reader = nctk_store::bytes::FileSource::open(file)
        .map_err(nctk_classic::ClassicError::from)
        .and_then(|s| ClassicReader::from_source(std::sync::Arc::new(s)))
        .map_err(|e| format!("open: {e}"))?;
    let mut got = vec![];
    let res = dump(&reader, &file.to_string_lossy(), &options(args), &mut got);
    if !out.status.success() {
        return if res.is_err() {
            Ok(())
        } else {
            Err("ncdump failed but we did not".into())
        };
    }
    res.map_err(|e| format!("dump error: {e}"))?;
    if got == out.stdout {
        return Ok(());
    }
    let g = String::from_utf8_lossy(&got);
    let e = String::from_utf8_lossy(&out.stdout);
    for (i, (a, b)) in g.lines().zip(e.lines()).enumerate() {
        if a != b {
            return Err(format!("line {}: got {a:?}, expected {b:?}", i + 1));
        }
    }
    Err(format!(
        "got {} lines, expected {}",
        g.lines().count(),
        e.lines().count()
    ))
}

/// CDL written to hit the printer's corner cases.
const CASES: &[(&str, &str)] = &[
    (
        "t1",
        r#"netcdf t1 {
dimensions:
	time = UNLIMITED ;
	x = 3 ;
	y = 2 ;
	n = 12 ;
	wid = 40 ;
variables:
	double time(time) ;
		time:units = "days since 2000-01-01 00:00:00" ;
		time:calendar = "standard" ;
		time:actual_range = 0., 31., 59.5 ;
		time:bounds = "time_bnds" ;
	double time_bnds(time, y) ;
	float t(time, y, x) ;
		t:_FillValue = -999.f ;
	int sc ;
	char name(y, n) ;
	short s(n) ;
	double d(n) ;
	float f(n) ;
	int x(x) ;
	float wide(wid) ;
	byte b(n) ;
	int hours(x) ;
		hours:units = "hours since 1990-1-1" ;
	float noleap(x) ;
		noleap:units = "days since 0001-01-01" ;
		noleap:calendar = "noleap" ;
	double d360(x) ;
		d360:units = "seconds since 1970-01-01T00:00:00Z" ;
		d360:calendar = "360_day" ;
	char txt(n) ;
		txt:note = "line1\nline2\ttab \"q\" 'a' \\" ;
	double fmt(x) ;
		fmt:C_format = "%.3f" ;

// global attributes:
		:title = "corner cases" ;
		:b = 1b, -2b ;
		:f = 1.5f, 1e36f ;
data:
 time = 0, 31.25, 59.5 ;
 time_bnds = 0, 31, 31, 59, 59, 90 ;
 t = 1, 2, 3, 4, 5, 6, 7, 8, _, 10, 11, 12, 13, 14, 15, 16, 17, 18 ;
 sc = 42 ;
 name = "hello", "world" ;
 s = 1,2,3,4,5,6,7,8,9,10,11,_ ;
 d = 1.123456789012345678, 2e300, -3.5e-300, 0.1, 0.2, 0.3, 123456789012, 1e15, 1e16, 99999999999999999, 0, -0. ;
 f = 1.1, 2.2, 3.3, 4.4, 5.5, 6.6, 7.7, 8.8, 9.9, 1e-5, 1e7, 3.4e38 ;
 x = 10, 20, 30 ;
 wide = 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6, 1.7, 1.8, 1.9, 2.0,
        123456.7, 1234567, 12345678, 0.000123, 1e-10, _, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 ;
 b = -128, -1, 0, 1, 127, 2, 3, 4, 5, 6, 7, 8 ;
 hours = 0, 25, 8760 ;
 noleap = 0, 365, 730000 ;
 d360 = 0, 86400, 31104000 ;
 txt = "a\tb\"c'\\" ;
 fmt = 1, 2.5, 3.14159 ;
}
"#,
    ),
    (
        "names",
        r#"netcdf names {
dimensions:
	\1dim = 2 ;
	data = 1 ;
variables:
	int variable(\1dim) ;
		variable:a\ b = "x" ;
	float data(data) ;
		data :units = "m" ;
	double \2nd ;
data:
 variable = 1, 2 ;
 data = NaN ;
 \2nd = -Infinity ;
}
"#,
    ),
];

#[test]
fn flags_match_live_ncdump() {
    if !require::tools(&["ncdump", "ncgen"]) {
        return;
    }
    let tmp = std::env::temp_dir().join(format!("nctk-print-live-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let mut files = vec![];
    for (name, cdl) in CASES {
        let cdl_path = tmp.join(format!("{name}.cdl"));
        std::fs::write(&cdl_path, cdl).unwrap();
        let nc = tmp.join(format!("{name}.nc"));
        let st = Command::new("ncgen")
            .arg("-o")
            .arg(&nc)
            .arg(&cdl_path)
            .status()
            .unwrap();
        assert!(st.success(), "ncgen {name}");
        files.push(nc);
    }
    if let Some(c) = require::corpus() {
        let mut all: Vec<PathBuf> = ["netcdf-c", "netcdf-java", "scipy", "xarray"]
            .iter()
            .flat_map(|d| files_under(&c.join(d), |_| true))
            .filter(|p| is_classic(p))
            .collect();
        all.sort();
        let step = (all.len() / 20).max(1);
        files.extend(all.into_iter().step_by(step));
    }
    let flag_sets: &[&[&str]] = &[
        &[],
        &["-h"],
        &["-c"],
        &["-b", "c"],
        &["-b", "f"],
        &["-f", "c"],
        &["-f", "f"],
        &["-l", "40"],
        &["-l", "10"],
        &["-p", "3,5"],
        &["-p", "4"],
        &["-p", ",9"],
        &["-t"],
        &["-i"],
        &["-x"],
        &["-x", "-h"],
        &["-s"],
        &["-k"],
        &["-n", "other"],
    ];
    let mut failures = vec![];
    let mut n = 0;
    for f in &files {
        let mut sets: Vec<Vec<&str>> = flag_sets.iter().map(|s| s.to_vec()).collect();
        let reader = nctk_store::bytes::FileSource::open(f)
            .map_err(nctk_classic::ClassicError::from)
            .and_then(|s| ClassicReader::from_source(std::sync::Arc::new(s)))
            .unwrap();
        let schema = reader.schema();
        let first = schema.var_ids().next().map(|v| schema.var(v).name.clone());
        let v_arg;
        if let Some(name) = first {
            v_arg = name;
            sets.push(vec!["-v", &v_arg]);
            sets.push(vec!["-x", "-v", &v_arg]);
        }
        for args in &sets {
            n += 1;
            if let Err(e) = compare(f, args) {
                failures.push(format!("ncdump {} {}: {e}", args.join(" "), f.display()));
            }
        }
    }
    let _ = std::fs::remove_dir_all(&tmp);
    eprintln!("live: {}/{n} identical", n - failures.len());
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Whether `p` is a classic file nctk opens.
fn is_classic(p: &Path) -> bool {
    std::fs::read(p).is_ok_and(|b| {
        b.len() >= 4
            && &b[..3] == b"CDF"
            && matches!(b[3], 1 | 2 | 5)
            && nctk_store::bytes::FileSource::open(p)
                .map_err(nctk_classic::ClassicError::from)
                .and_then(|s| ClassicReader::from_source(std::sync::Arc::new(s)))
                .is_ok()
    })
}
