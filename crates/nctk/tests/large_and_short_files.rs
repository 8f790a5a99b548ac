//! Files past 4 GiB (CDF-2's vsize overflow value, CDF-5 offsets past 2^32)
//! and files shorter than their header implies, through nctk and, where
//! installed, netCDF-C. The large files are written in no-fill mode, so
//! they are sparse and cost almost no disk.

use std::path::Path;

use nctk::Format;
use nctk_test_support::{peer, require};

/// Elements in the big variable: 4.8 GB of float.
const BIG: u64 = 1_200_000_000;

/// `ncdump -v var path` from `data:` on, one space between words; `None`
/// (after `nctk_test_support::require`) when ncdump is absent.
fn ncdump_values(path: &Path, var: &str) -> Option<String> {
    if !require::tools(&["ncdump"]) {
        return None;
    }
    let text = peer::run("ncdump", ["-v".as_ref(), var.as_ref(), path.as_os_str()])
        .unwrap_or_else(|e| panic!("{e}"));
    let data = text.split("data:").nth(1).unwrap();
    Some(data.split_whitespace().collect::<Vec<_>>().join(" "))
}

#[test]
fn cdf2_last_variable_over_4_gib_uses_the_vsize_overflow_value() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big2.nc");
    let mut def = nctk::create_with_fill(&path, Format::Offset64, false).unwrap();
    let n = def.add_dimension("n", 3).unwrap();
    let b = def.add_dimension("b", BIG).unwrap();
    def.add_variable::<i32>("small", &[n]).unwrap();
    def.add_variable::<f32>("big", &[b]).unwrap();
    let mut ds = def.end_define().unwrap();
    ds.put_values("small", .., &[1, 2, 3]).unwrap();
    let last = BIG as usize - 2;
    ds.put_values("big", (last..,), &[42.5f32, -1.0]).unwrap();
    ds.close().unwrap();

    // The header stores vsize = 2^32 - 1 for the oversized last variable
    // (its first 200 bytes read, not the 4.8 GB file: reading the holes
    // took half a minute).
    let mut bytes = vec![0u8; 200];
    std::io::Read::read_exact(&mut std::fs::File::open(&path).unwrap(), &mut bytes).unwrap();
    assert!(
        bytes.windows(4).any(|w| w == [0xff; 4]),
        "no vsize overflow value in the header"
    );
    let ds = nctk::open(&path).unwrap();
    let big = ds.variable("big").unwrap();
    assert_eq!(big.get_values::<f32>((last..,)).unwrap(), vec![42.5, -1.0]);
    assert_eq!(
        ds.variable("small").unwrap().get_values::<i32>(..).unwrap(),
        vec![1, 2, 3]
    );
    if require::python(&["netCDF4"]) {
        let script = format!(
            "import netCDF4; d = netCDF4.Dataset('{}'); print(d['big'][{last}:].tolist(), d['small'][:].tolist())",
            path.display()
        );
        let out = peer::python(&script, [""; 0]).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(out.trim(), "[42.5, -1.0] [1, 2, 3]");
    }
}

#[test]
fn cdf5_variable_beginning_past_4_gib() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big5.nc");
    let mut def = nctk::create_with_fill(&path, Format::Cdf5, false).unwrap();
    let b = def.add_dimension("b", BIG).unwrap();
    let n = def.add_dimension("n", 3).unwrap();
    def.add_variable::<f32>("big", &[b]).unwrap();
    def.add_variable::<i64>("after", &[n]).unwrap();
    let mut ds = def.end_define().unwrap();
    ds.put_values("after", .., &[i64::MIN + 5, 0, i64::MAX])
        .unwrap();
    ds.close().unwrap();
    assert!(std::fs::metadata(&path).unwrap().len() > 1 << 32);

    let ds = nctk::open(&path).unwrap();
    assert_eq!(
        ds.variable("after").unwrap().get_values::<i64>(..).unwrap(),
        vec![i64::MIN + 5, 0, i64::MAX]
    );
    if let Some(values) = ncdump_values(&path, "after") {
        assert_eq!(
            values,
            "after = -9223372036854775803, 0, 9223372036854775807 ; }"
        );
    }
}

/// Values a file is too short to hold read as the fill value: they were never
/// written (a no-fill writer such as PnetCDF stopped early), and fill is how
/// netCDF marks unwritten data. netCDF-C 4.9.0 and 4.10.1 return zeros there
/// instead (their page reader zero-pads a short read), which is
/// indistinguishable from real data; the test records that difference.
#[test]
fn a_file_shorter_than_its_header_implies_reads_fill_values() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("short.nc");
    let mut def = nctk::create(&path, Format::Classic).unwrap();
    let x = def.add_dimension("x", 6).unwrap();
    def.add_variable::<i16>("v", &[x]).unwrap();
    let mut ds = def.end_define().unwrap();
    ds.put_values("v", .., &[1i16, 2, 3, 4, 5, 6]).unwrap();
    ds.close().unwrap();
    // Cut the file in the middle of the data (as a no-fill writer such as
    // PnetCDF may leave it): values 4..6 are gone.
    let len = std::fs::metadata(&path).unwrap().len();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(len - 6)
        .unwrap();

    let ds = nctk::open(&path).unwrap();
    let fill = -32767i16; // NC_FILL_SHORT
    assert_eq!(
        ds.variable("v").unwrap().get_values::<i16>(..).unwrap(),
        vec![1, 2, 3, fill, fill, fill]
    );
    if let Some(values) = ncdump_values(&path, "v") {
        assert_eq!(
            values, "v = 1, 2, 3, 0, 0, 0 ; }",
            "netCDF-C's reading changed: revisit this difference"
        );
    }
}
