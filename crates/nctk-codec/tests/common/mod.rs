//! Helpers shared by the integration tests: test data (the corpus and the
//! peer checks are in `nctk_test_support`).
#![allow(dead_code)]

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
