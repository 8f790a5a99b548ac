//! netCDF-C 4.9.0 (Debian's libnetcdf over HDF5 1.10) opens the
//! netCDF-4 files `nctk copy -k nc4` writes for writing and appends to
//! them: records to every record variable, attributes, a new variable.
//! The truth is nccopy's file of the same input and flags given the same
//! appends: `ncdump` prints the same for both afterwards.

mod copy_support;

use std::path::Path;

use copy_support::peer_dump_body;
use nctk::Format;
use nctk_test_support::{peer, require};
use nctk_tools::copy::{copy, CopyOptions, NoProgress};

/// Record variables of every classic type and rank 1 to 3 (one with a
/// fill value, one never written), a coordinate variable of the record
/// dimension and fixed variables around them.
const RECORDS: &str = r#"netcdf records {
dimensions: time = UNLIMITED ; y = 3 ; x = 4 ; n = 5 ;
variables:
  double time(time) ; time:units = "days since 2000-01-01" ;
  float field(time, y, x) ; field:_FillValue = -1.f ;
  short counts(time, n) ;
  byte flags(time) ;
  char label(time, n) ;
  int fixed(y, x) ;
  double never(time, y) ;
  :title = "records" ;
data:
  time = 0, 1, 2 ;
  field = 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,
          13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24,
          25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36 ;
  counts = 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 ;
  flags = 1, -1, 0 ;
  label = "abcde", "fghij", "klmno" ;
  fixed = 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 ;
}
"#;

#[test]
fn netcdf_c_appends_to_nctks_file_as_to_nccopys() {
    if !require::tools(&["ncgen", "nccopy", "ncdump", "nc-config", "cc"]) {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/peer/append_records.c");
    let appender = peer::build_c_peer(&src, &tmp.path().join("append_records"))
        .expect("compile append_records.c against libnetcdf");
    let cdl = tmp.path().join("records.cdl");
    std::fs::write(&cdl, RECORDS).unwrap();
    let input = tmp.path().join("records.nc");
    let args = ["-k", "nc3", "-o"].map(String::from);
    let paths = [input.display().to_string(), cdl.display().to_string()];
    peer::run("ncgen", args.into_iter().chain(paths)).unwrap();
    for (tag, flags, deflate, shuffle) in [
        ("plain", &[][..], None, false),
        ("d1s", &["-d", "1", "-s"][..], Some(1), true),
    ] {
        let theirs = tmp.path().join(format!("{tag}.c.nc"));
        let ours = tmp.path().join(format!("{tag}.n.nc"));
        let args = ["-k", "nc4"].iter().chain(flags).map(|s| s.to_string());
        let paths = [input.display().to_string(), theirs.display().to_string()];
        peer::run("nccopy", args.chain(paths)).unwrap();
        let opts = CopyOptions {
            kind: Some(Format::Netcdf4),
            deflate,
            shuffle,
            ..CopyOptions::default()
        };
        copy(&input, &ours, &opts, &mut NoProgress).unwrap();
        for file in [&theirs, &ours] {
            peer::run(appender.to_str().unwrap(), [file])
                .unwrap_or_else(|e| panic!("{tag}: netCDF-C appending: {e}"));
        }
        for args in [&[][..], &["-s"][..]] {
            let (a, b) = (peer_dump_body(args, &ours), peer_dump_body(args, &theirs));
            assert_eq!(
                a, b,
                "{tag}: ncdump {args:?} after the appends: nctk's, then nccopy's"
            );
        }
        assert!(
            peer_dump_body(&[], &ours).contains("appended_var"),
            "{tag}: the appends are in the file"
        );
    }
}
