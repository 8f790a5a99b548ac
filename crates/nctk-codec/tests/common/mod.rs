//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// The conformance corpus: `$NCTK_CORPUS`, else `../../../shared/corpus`
/// from this crate. `None` (with a note) when absent.
pub fn corpus() -> Option<PathBuf> {
    let p = std::env::var_os("NCTK_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus"));
    if p.is_dir() {
        Some(p)
    } else {
        eprintln!(
            "note: corpus not found at {} (set NCTK_CORPUS); skipping",
            p.display()
        );
        None
    }
}

/// Whether `python3 -c 'import numcodecs, numpy'` works; prints a note if not.
pub fn have_numcodecs() -> bool {
    let ok = Command::new("python3")
        .args(["-c", "import numcodecs, numpy"])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    if !ok {
        eprintln!("note: python3 with numcodecs not available; skipping interop test");
    }
    ok
}

/// Deterministic pseudo-random bytes (splitmix64).
pub fn noise(len: usize, seed: u64) -> Vec<u8> {
    let mut s = seed;
    let mut out = Vec::with_capacity(len + 8);
    while out.len() < len {
        s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = s;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        out.extend_from_slice(&(z ^ (z >> 31)).to_le_bytes());
    }
    out.truncate(len);
    out
}

/// A smooth float32 field with a little noise, as little-endian bytes.
pub fn climate_f32(n: usize, seed: u64) -> Vec<u8> {
    let nz = noise(n * 2, seed);
    let mut out = Vec::with_capacity(n * 4);
    for i in 0..n {
        let x = i as f32;
        let v = 273.15
            + 20.0 * (x * 0.001).sin()
            + 5.0 * (x * 0.0173).cos()
            + f32::from(nz[2 * i]) / 255.0 * 0.1;
        out.extend_from_slice(&v.to_le_bytes());
    }
    out
}
