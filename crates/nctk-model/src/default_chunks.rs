//! Default chunk sizes, computed as netCDF-C computes them
//! (`ncz_find_default_chunksizes2` in `libnczarr/zvar.c`, 16 MiB target):
//! part of the storage vocabulary, what a writer chooses for a variable
//! whose [`crate::Layout`] is unset.

/// netCDF-C's `DEFAULT_CHUNK_SIZE` (4.9.3 and later).
const DEFAULT_CHUNK_SIZE: f64 = 16_777_216.0;
/// netCDF-C's `DEFAULT_1D_UNLIM_SIZE`.
const DEFAULT_1D_UNLIM_SIZE: u64 = 4096;

/// The default chunk lengths of a variable with dimensions `dims`
/// (`(length, unlimited)`, outermost first) and `type_size` bytes per
/// element (8 for `string`, as netCDF-C counts a pointer). Unlimited
/// dimensions count as empty, as when netCDF-C defines the variable.
pub fn default_chunks(dims: &[(u64, bool)], type_size: u64) -> Vec<u64> {
    let n = dims.len();
    let ts = type_size.max(1);
    let mut chunks = vec![0u64; n];
    // netCDF-C accumulates in a C float.
    let mut num_values: f32 = 1.0;
    let mut num_unlim = 0usize;
    for (d, &(len, unlim)) in dims.iter().enumerate() {
        if unlim {
            num_unlim += 1;
            chunks[d] = 1;
        } else {
            num_values *= len as f32;
        }
    }
    if n == 1 && num_unlim == 1 {
        let per = (DEFAULT_CHUNK_SIZE as u64) / ts;
        let suggested = if per == 0 {
            1
        } else {
            per.min(DEFAULT_1D_UNLIM_SIZE)
        };
        // netCDF-C divides by the type size a second time.
        chunks[0] = suggested / ts;
    }
    if n > 1 && n == num_unlim {
        let s = (DEFAULT_CHUNK_SIZE / ts as f64).powf(1.0 / n as f64) as u64;
        chunks.iter_mut().for_each(|c| *c = s.max(1));
    }
    for (d, &(len, unlim)) in dims.iter().enumerate() {
        if chunks[d] != 0 {
            continue;
        }
        let len = if unlim { 0 } else { len };
        let ratio = DEFAULT_CHUNK_SIZE / (num_values as f64 * ts as f64);
        let s = ratio.powf(1.0 / (n - num_unlim) as f64) * len as f64 - 0.5;
        let s = if s.is_finite() && s > 0.0 {
            s as u64
        } else {
            0
        };
        chunks[d] = s.min(len).max(1);
    }
    // Chunks larger than 4 GiB are halved (check_chunksizes).
    while chunks.iter().fold(ts as f64, |p, &c| p * c as f64) > u32::MAX as f64 {
        chunks.iter_mut().for_each(|c| *c = (*c / 2).max(1));
    }
    // Trim overhangs.
    for (d, &(len, unlim)) in dims.iter().enumerate() {
        let len = if unlim { 0 } else { len };
        let nchunks = len.div_ceil(chunks[d]);
        if nchunks > 0 {
            let overhang = nchunks * chunks[d] - len;
            chunks[d] -= overhang / nchunks;
        }
    }
    chunks
}

#[cfg(test)]
mod tests {
    use super::default_chunks;

    #[test]
    fn matches_netcdf_c_4_10() {
        // Observed with netCDF4-python over libnetcdf 4.10.1.
        assert_eq!(default_chunks(&[(0, true)], 4), [1024]);
        assert_eq!(default_chunks(&[(0, true)], 8), [512]);
        assert_eq!(default_chunks(&[(0, true)], 1), [4096]);
        assert_eq!(
            default_chunks(&[(1000, false), (2000, false)], 4),
            [1000, 2000]
        );
        assert_eq!(
            default_chunks(&[(5, true), (1000, false), (2000, false)], 8),
            [1, 1000, 2000]
        );
        assert_eq!(default_chunks(&[(0, true), (0, true)], 2), [2896, 2896]);
        assert_eq!(default_chunks(&[(1000, false), (7, false)], 8), [1000, 7]);
        assert_eq!(default_chunks(&[(2, true), (3, false)], 4), [1, 3]);
    }
}
