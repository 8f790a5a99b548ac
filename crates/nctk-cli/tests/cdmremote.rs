//! The cdmremote client (`cdmremote:http://host/path`) against a real
//! server: `nctk serve`'s, on loopback, behind `nctk_test_servers`'s
//! `FaultProxy`, which counts the requests and puts faults in their place.
//!
//! The truth: netCDF-C's `ncdump` of the served file (the data of each
//! variable dumped through cdmremote equals ncdump's), nctk's local read
//! of the same file (every variable and strided sections, value for
//! value), and the requests the proxy saw (one header request at open,
//! one request per read asking for exactly the section read).
//!
//! `NCTK_CORPUS` locates the corpus; the tests need it, `ncdump` and
//! `ncgen` as `nctk_test_support::require` rules.

mod common;

use std::path::PathBuf;

use nctk::model::Selection;
use nctk_test_servers::{Fault, FaultProxy};
use nctk_test_support::{peer, require};

/// A netCDF-4 file of every kind of type ncgen writes (compound, vlen,
/// enum, opaque, string, char, a record variable, a scalar, a group).
const ENHANCED_CDL: &str = r#"netcdf enhanced {
types:
  compound pt_t { int x ; double y ; } ;
  int(*) vl_t ;
  byte enum color_t { red = 0, green = 1 } ;
  opaque(3) blob_t ;
dimensions:
  t = UNLIMITED ; n = 5 ;
variables:
  int rec(t, n) ;
  string s(n) ;
  pt_t pts(n) ;
  vl_t vl(n) ;
  color_t c(n) ;
  blob_t b(n) ;
  float scalar ;
  char txt(n) ;
data:
  rec = 1,2,3,4,5, 6,7,8,9,10, 11,12,13,14,15 ;
  s = "a", "bb", "", "dddd", "e" ;
  pts = {1, 1.5}, {2, 2.5}, {3, 3.5}, {4, 4.5}, {5, 5.5} ;
  vl = {1}, {2,3}, {}, {4,5,6}, {7} ;
  c = red, green, red, green, red ;
  b = 0X010203, 0X040506, 0X070809, 0X0A0B0C, 0X0D0E0F ;
  scalar = 3.25 ;
  txt = "hello" ;
group: g {
  dimensions: m = 3 ;
  variables: double w(m) ;
  data: w = 1.5, 2.5, 3.5 ;
}
}
"#;

/// Corpus files served beside the enhanced one: CDF-2, CDF-5 (the
/// unsigned and 64-bit types), netCDF-4 with compounds.
const CORPUS_FILES: &[&str] = &[
    "generated/from-cdl/netcdf-c/examples/CDL/pres_temp_4D.nc6.nc",
    "generated/from-cdl/netcdf-c/ncgen/c5.nc5.nc",
    "netcdf-c/ncdump/ref_tst_compounds2.nc",
];

/// A served directory, `nctk serve`'s server on it and a counting proxy
/// in front of the server.
struct Served {
    dir: tempfile::TempDir,
    proxy: FaultProxy,
    /// The files served, by name.
    files: Vec<String>,
}

impl Served {
    /// The `cdmremote:` URL of `file` (through the proxy).
    fn url(&self, file: &str) -> String {
        format!("cdmremote:{}/cdmremote/{file}", self.proxy.endpoint())
    }

    /// The local path of `file`.
    fn path(&self, file: &str) -> PathBuf {
        self.dir.path().join(file)
    }
}

/// Serves copies of the corpus files and the enhanced file; `None` (after
/// the skip rule) without the corpus, `ncdump` or `ncgen`.
fn serve() -> Option<Served> {
    let corpus = require::corpus()?;
    if !require::tools(&["ncdump", "ncgen"]) {
        return None;
    }
    let dir = tempfile::tempdir().unwrap();
    let mut files = vec![];
    for relative in CORPUS_FILES {
        let from = corpus.join(relative);
        let name = from.file_name().unwrap().to_str().unwrap().to_string();
        std::fs::copy(&from, dir.path().join(&name)).unwrap();
        files.push(name);
    }
    let cdl = dir.path().join("enhanced.cdl");
    std::fs::write(&cdl, ENHANCED_CDL).unwrap();
    let enhanced = dir.path().join("enhanced.nc");
    peer::run(
        "ncgen",
        [
            "-k".as_ref(),
            "nc4".as_ref(),
            "-o".as_ref(),
            enhanced.as_os_str(),
            cdl.as_os_str(),
        ],
    )
    .expect("ncgen");
    files.push("enhanced.nc".into());
    let catalog = nctk_server::catalog(dir.path(), &[]).unwrap();
    let server = nctk_server::Server::bind("127.0.0.1:0", catalog).unwrap();
    let addr = server.local_addr().unwrap();
    std::thread::spawn(move || server.run());
    let proxy = FaultProxy::start(&format!("http://{addr}")).unwrap();
    Some(Served { dir, proxy, files })
}

/// Every root variable of every served file, dumped through cdmremote
/// with `nctk dump -v`, prints the data `ncdump -v` prints of the file;
/// `nctk dump -k` says netCDF-4.
#[test]
fn dumps_through_cdmremote_print_ncdumps_data() {
    let Some(served) = serve() else {
        return;
    };
    for file in &served.files {
        let url = served.url(file);
        let local = served.path(file);
        let ds = nctk::open(&local).unwrap();
        for v in ds.root().variables() {
            let name = v.name();
            let ours = common::nctk_ok(&["dump", "-v", name, &url]);
            let theirs = peer::run("ncdump", ["-v".as_ref(), name.as_ref(), local.as_os_str()])
                .expect("ncdump -v");
            assert_eq!(
                common::root_data(&ours),
                common::root_data(&theirs),
                "{file}: {name}"
            );
        }
        assert_eq!(common::nctk_ok(&["dump", "-k", &url]), "netCDF-4\n");
    }
}

/// Sections of `shape` to read: all, a strided interior one, a point, the
/// last index of each dimension.
fn sections(shape: &[u64]) -> Vec<Selection> {
    let mut out = vec![Selection::all(shape)];
    if shape.iter().all(|&n| n > 0) && !shape.is_empty() {
        out.push(Selection {
            start: shape.iter().map(|&n| (n > 1) as u64).collect(),
            count: shape
                .iter()
                .map(|&n| (n - (n > 1) as u64).div_ceil(2))
                .collect(),
            stride: vec![2; shape.len()],
        });
        out.push(Selection::block(
            &vec![0; shape.len()],
            &vec![1; shape.len()],
        ));
        let last: Vec<u64> = shape.iter().map(|&n| n - 1).collect();
        out.push(Selection::block(&last, &vec![1; shape.len()]));
    }
    out
}

/// The percent-decoded text of a query.
fn decode(query: &str) -> String {
    let bytes = query.as_bytes();
    let mut out = vec![];
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            out.push(u8::from_str_radix(&query[i + 1..i + 3], 16).unwrap());
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).unwrap()
}

/// What a read of `sel` of the variable at `path` asks: netCDF-Java's
/// full name (the group path without the root, each name with `.` and `\`
/// backslash-escaped, as `NetcdfFiles.makeFullName` makes it) and section
/// syntax (inclusive ends).
fn expected_query(path: &str, sel: &Selection) -> String {
    let name = path
        .trim_start_matches('/')
        .split('/')
        .map(|part| part.replace('\\', "\\\\").replace('.', "\\."))
        .collect::<Vec<_>>()
        .join("/");
    let ranges: Vec<String> = (0..sel.rank())
        .map(|d| {
            let last = sel.start[d] + (sel.count[d] - 1) * sel.stride[d];
            format!("{}:{last}:{}", sel.start[d], sel.stride[d])
        })
        .collect();
    if ranges.is_empty() {
        format!("req=data&var={name}")
    } else {
        format!("req=data&var={name}({})", ranges.join(","))
    }
}

/// Every variable of every served file reads through cdmremote, whole and
/// in sections, the values nctk reads from the file; opening asks for the
/// header only (and the first value of each opaque variable, which sizes
/// its type); each read asks once, for exactly its section.
#[test]
fn reads_equal_local_reads_and_ask_only_for_their_section() {
    let Some(served) = serve() else {
        return;
    };
    for file in &served.files {
        served.proxy.reset_stats();
        let remote = nctk::open(served.url(file)).unwrap();
        let local = nctk::open(served.path(file)).unwrap();
        let seen = served.proxy.stats().seen;
        assert_eq!(seen[0].query.as_deref(), Some("req=header"), "{file}");
        let opaque = ["b(0:0:1)"];
        for extra in &seen[1..] {
            let q = decode(extra.query.as_deref().unwrap());
            assert!(
                file == "enhanced.nc" && opaque.iter().any(|o| q == format!("req=data&var={o}")),
                "{file}: open asked {q}"
            );
        }
        let schema = local.schema();
        assert_eq!(remote.schema().num_vars(), schema.num_vars(), "{file}");
        for id in schema.var_ids() {
            let path = schema.var_path(id);
            let v = local.variable(&path).unwrap();
            let r = remote
                .variable(&path)
                .unwrap_or_else(|| panic!("{file}: no {path}"));
            assert_eq!(r.shape(), v.shape(), "{file}: {path}");
            for sel in sections(&v.shape()) {
                served.proxy.reset_stats();
                let got = r.read_values(&sel).unwrap();
                assert_eq!(got, v.read_values(&sel).unwrap(), "{file}: {path} {sel:?}");
                let seen = served.proxy.stats().seen;
                assert_eq!(seen.len(), 1, "{file}: {path} {sel:?}: {seen:?}");
                assert_eq!(
                    decode(seen[0].query.as_deref().unwrap()),
                    expected_query(&path, &sel),
                    "{file}"
                );
            }
        }
    }
}

/// Failures name the URL, the HTTP status and what the server said; an
/// answer cut short or a server that is not there is an error, never a
/// panic or a wrong value.
#[test]
fn errors_name_the_url_the_status_and_the_servers_text() {
    let Some(served) = serve() else {
        return;
    };
    let missing = served.url("no/such.nc");
    let e = nctk::open(&missing).unwrap_err().to_string();
    assert!(
        e.contains("/cdmremote/no/such.nc") && e.contains("404") && e.contains("FileNotFound"),
        "{e}"
    );

    let file = &served.files[0];
    let ds = nctk::open(served.url(file)).unwrap();
    let v = ds.variables().find(|v| !v.shape().is_empty()).unwrap();
    let all = Selection::all(&v.shape());
    served.proxy.fail_next(1, Fault::Status(503));
    let e = v.read_values(&all).unwrap_err().to_string();
    assert!(
        e.contains("503") && e.contains(file) && e.contains("req=data"),
        "{e}"
    );
    served.proxy.fail_next(
        1,
        Fault::Respond {
            status: 400,
            content_type: "text/plain",
            body: "IllegalArgumentException: no such variable",
        },
    );
    let e = v.read_values(&all).unwrap_err().to_string();
    assert!(e.contains("400") && e.contains("no such variable"), "{e}");
    served.proxy.fail_next(1, Fault::TruncatedBody);
    let e = v.read_values(&all).unwrap_err().to_string();
    assert!(e.contains(file), "{e}");
    // An answer declaring more than the client accepts (2 GiB) is refused
    // before its body is read.
    served
        .proxy
        .fail_next(1, Fault::Endless { declared: 1 << 40 });
    let e = v.read_values(&all).unwrap_err().to_string();
    assert!(e.contains("larger than") && e.contains(file), "{e}");
    // The server is still there: the next read is whole.
    let local = nctk::open(served.path(file)).unwrap();
    let expected = local.variable(v.name()).unwrap().read_values(&all).unwrap();
    assert_eq!(v.read_values(&all).unwrap(), expected);

    let out = common::nctk(&["dump", "cdmremote:http://127.0.0.1:1/cdmremote/x.nc"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("127.0.0.1:1/cdmremote/x.nc"),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
}

/// `nctk copy cdmremote:URL out.nc` (an ncstream input, a plain path, no
/// `-k`) writes the first classic kind the definitions fit, as `ncdump -k`
/// reads it, with the data `ncdump` prints of the served file; a dataset
/// no classic kind holds is refused with nccopy's reason.
#[test]
fn copies_from_a_server_get_the_first_classic_kind_that_fits() {
    let Some(served) = serve() else {
        return;
    };
    let cases = [
        ("ints", "x = 3 ; variables: int v(x) ; double w(x) ; data: v = 1, 2, 3 ; w = 0.5, 1.5, 2.5 ;", Some("classic")),
        ("unsigned", "x = 3 ; variables: ubyte v(x) ; uint64 w(x) ; data: v = 1, 2, 255 ; w = 1, 2, 18446744073709551615 ;", Some("cdf5")),
        ("grouped", "x = 3 ; variables: int v(x) ; data: v = 1, 2, 3 ; group: g { variables: int w ; data: w = 7 ; }", None),
    ];
    for (name, body, kind) in cases {
        let cdl = served.path(&format!("{name}.cdl"));
        std::fs::write(&cdl, format!("netcdf {name} {{ dimensions: {body} }}")).unwrap();
        let file = served.path(&format!("{name}.nc"));
        peer::run(
            "ncgen",
            [
                "-k".as_ref(),
                "nc4".as_ref(),
                "-o".as_ref(),
                file.as_os_str(),
                cdl.as_os_str(),
            ],
        )
        .expect("ncgen");
        let out = served.path(&format!("{name}.copy.nc"));
        let run = common::nctk(&[
            "copy",
            &served.url(&format!("{name}.nc")),
            out.to_str().unwrap(),
        ]);
        let err = String::from_utf8_lossy(&run.stderr);
        match kind {
            Some(kind) => {
                assert!(run.status.success(), "{name}: {err}");
                let got = peer::run("ncdump", ["-k".as_ref(), out.as_os_str()]).expect("ncdump -k");
                assert_eq!(got.trim(), kind, "{name}");
                let copy = peer::run("ncdump", [&out]).expect("ncdump of the copy");
                let served_dump = peer::run("ncdump", [&file]).expect("ncdump of the file");
                assert_eq!(
                    common::root_data(&copy),
                    common::root_data(&served_dump),
                    "{name}"
                );
            }
            None => {
                assert!(!run.status.success(), "{name}: copied");
                assert!(
                    err.contains("classic formats have no groups"),
                    "{name}: {err}"
                );
                assert!(!out.exists(), "{name}: output left behind");
            }
        }
    }
}
