//! `nctk validate` on block-compressed files (made with `nctk copy -k
//! compressed`): an intact file conforms and the report counts the blocks
//! it checked, as many as the specification's rule gives for the
//! variables' sizes that Python's `netCDF4` (libnetcdf) reads from the
//! original; a damaged file (`compressed_cases`) fails with a line at the
//! damage's offset naming the variable and the block, and `nctk dump`
//! fails naming them too.

#[path = "../../nctk-classic/tests/compressed_cases/mod.rs"]
mod cases;
mod common;

use std::path::Path;

use cases::{all_cases, sample_classic};
use common::nctk;
use nctk_test_support::{blocks, require};

/// The element size and shape of every variable of the classic file
/// `path` as libnetcdf reads it: `itemsize len len ...` per line.
const SIZES: &str = r#"
import sys, netCDF4
with netCDF4.Dataset(sys.argv[1]) as ds:
    for v in ds.variables.values():
        print(v.dtype.itemsize, *v.shape)
"#;

/// The blocks of a variable of `shape` and `xsz`-byte elements cut into
/// blocks of at most `block` bytes, by the specification: whole rows
/// within the size (at least one element, at most the variable);
/// `ceil(data / block)` blocks.
fn blocks_of(shape: &[u64], xsz: u64, block: u64) -> u64 {
    let data = shape.iter().product::<u64>() * xsz;
    if data == 0 {
        return 0;
    }
    data.div_ceil(blocks::row_aligned_block_bytes(shape, xsz, block))
}

#[test]
fn an_intact_file_conforms_and_every_block_is_counted() {
    let Some(corpus) = require::corpus() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    for (n, file) in [
        "generated/from-cdl/netcdf-c/ncgen/c0.nc3.nc",
        "generated/from-cdl/netcdf-c/ncgen/c0.nc5.nc",
        "netcdf-java/cdm/core/src/test/data/trajectory/aircraft/WMI_Lear-2003-05-28-212817.nc",
    ]
    .iter()
    .enumerate()
    {
        let input = corpus.join(file);
        let Some(sizes) = require::python_output(&["netCDF4"], SIZES, [&input]) else {
            return;
        };
        let block = [100u64, 512, 4096][n];
        let want: u64 = sizes
            .lines()
            .map(|l| {
                let mut numbers = l.split_whitespace().map(|n| n.parse::<u64>().unwrap());
                let xsz = numbers.next().unwrap();
                blocks_of(&numbers.collect::<Vec<_>>(), xsz, block)
            })
            .sum();
        let out = dir.path().join(format!("{n}.ncb"));
        let (in_s, out_s) = (input.to_str().unwrap(), out.to_str().unwrap());
        let copy = nctk(&[
            "copy",
            "-k",
            "compressed",
            "--block-size",
            &block.to_string(),
            in_s,
            out_s,
        ]);
        assert!(
            copy.status.success(),
            "{}",
            String::from_utf8_lossy(&copy.stderr)
        );
        let v = nctk(&["validate", out_s]);
        let stdout = String::from_utf8_lossy(&v.stdout);
        assert!(v.status.success(), "{file}: {stdout}");
        assert!(stdout.contains(&format!("{out_s}: conforms")), "{stdout}");
        assert!(
            stdout.contains(&format!(" {want} blocks checked")),
            "{file}: want {want} blocks: {stdout}"
        );
    }
}

#[test]
fn damaged_files_fail_naming_variable_block_and_offset() {
    let dir = tempfile::tempdir().unwrap();
    let original = dir.path().join("sample.nc");
    std::fs::write(&original, sample_classic()).unwrap();
    let mut failures = vec![];
    let mut count = 0;
    for (codec, cases) in all_cases() {
        for (k, case) in cases.iter().enumerate() {
            count += 1;
            let path = dir.path().join(format!("{}-{k}.ncb", codec.name()));
            std::fs::write(&path, &case.bytes).unwrap();
            let label = format!("{}: {}", codec.name(), case.label);
            if let Err(e) = check_case(&path, &case.expect) {
                failures.push(format!("{label}: {e}"));
            }
        }
    }
    assert!(count >= 100, "{count} cases");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `nctk validate` fails with an error line at the damage's offset that
/// names what `expect` says, after saying what it checked; `nctk dump`
/// fails naming it too.
fn check_case(path: &Path, expect: &cases::Expect) -> Result<(), String> {
    let p = path.to_str().unwrap();
    let v = nctk(&["validate", p]);
    let stdout = String::from_utf8_lossy(&v.stdout);
    if v.status.success() {
        return Err(format!("validate succeeded: {stdout}"));
    }
    let at = format!("{p}: offset {}: error: ", expect.offset);
    let line = stdout
        .lines()
        .find(|l| l.starts_with(&at) && expect.check(l).is_ok())
        .ok_or_else(|| format!("no error line at offset {}: {stdout}", expect.offset))?;
    if !stdout.contains(&format!("{p}: checked: ")) {
        return Err(format!("no checked line: {stdout}"));
    }
    let dump = nctk(&["dump", p]);
    let stderr = String::from_utf8_lossy(&dump.stderr);
    if dump.status.success() {
        return Err(format!("dump succeeded ({line})"));
    }
    expect.check(&stderr).map_err(|e| format!("dump: {e}"))
}
