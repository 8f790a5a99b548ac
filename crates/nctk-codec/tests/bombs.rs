//! Hostile input: truncated, oversized and lying streams give errors, never
//! panics or allocations beyond the declared size.

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use nctk_codec::{Codec, CodecContext, CodecError};
use serde_json::json;

/// Tracks the largest single allocation, to prove decoders never allocate
/// from sizes a stream claims.
struct Tracking;
thread_local! {
    // Per thread: tests run in parallel and allocate on their own.
    static LARGEST: Cell<usize> = const { Cell::new(0) };
}

fn record(size: usize) {
    let _ = LARGEST.try_with(|l| l.set(l.get().max(size)));
}

// SAFETY: forwards to the system allocator unchanged; only records sizes.
unsafe impl GlobalAlloc for Tracking {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        record(layout.size());
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        record(new_size);
        // SAFETY: same contract as the caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Tracking = Tracking;

fn all_codecs() -> Vec<Codec> {
    let ctx = CodecContext::from_dtype("<f4");
    [
        json!({"id": "zlib"}),
        json!({"id": "gzip"}),
        json!({"id": "bz2"}),
        json!({"id": "zstd"}),
        json!({"id": "lz4"}),
        json!({"id": "blosc", "cname": "lz4", "shuffle": 1}),
        json!({"id": "blosc", "cname": "zstd", "shuffle": 2}),
        json!({"id": "blosc", "cname": "zlib", "shuffle": 0}),
        json!({"id": "blosc", "cname": "blosclz", "shuffle": 1}),
        json!({"id": "shuffle", "elementsize": 4}),
        json!({"id": "fletcher32"}),
        json!({"id": "delta", "dtype": "<i4"}),
        json!({"id": "fixedscaleoffset", "offset": 0, "scale": 10, "dtype": "<f4", "astype": "<i2"}),
        json!({"id": "bitround", "keepbits": 5}),
        json!({"id": "quantize", "digits": 2, "dtype": "<f4"}),
    ]
    .iter()
    .map(|c| Codec::from_json_with(c, &ctx).unwrap())
    .collect()
}

/// Decoding must not panic, and must not allocate much beyond `expected`.
fn decode_bounded(codec: &Codec, input: &[u8], expected: usize) -> Result<Vec<u8>, CodecError> {
    LARGEST.with(|l| l.set(0));
    let r = codec.decode(input, expected);
    let largest = LARGEST.with(Cell::get);
    // 4 MiB covers fixed library state (zstd/bzip2 contexts, zlib windows).
    assert!(
        largest <= 2 * expected + 4 * input.len() + (4 << 20),
        "{}: allocated {largest} bytes decoding {} bytes into {expected}",
        codec.id(),
        input.len()
    );
    r
}

#[test]
fn truncations_and_bit_flips_never_panic() {
    let data = common::climate_f32(20_000, 9);
    for codec in all_codecs() {
        let enc = codec.encode(&data).unwrap();
        for cut in [
            0,
            1,
            3,
            4,
            15,
            16,
            17,
            enc.len() / 3,
            enc.len() / 2,
            enc.len() - 1,
        ] {
            let cut = cut.min(enc.len());
            let r = decode_bounded(&codec, &enc[..cut], data.len());
            if codec.id() != "bitround" && codec.id() != "shuffle" {
                assert!(
                    r.is_err(),
                    "{}: truncated to {cut} bytes but decoded",
                    codec.id()
                );
            }
        }
        let mut s: u64 = 12345;
        for _ in 0..300 {
            s = s.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            let mut bad = enc.clone();
            let pos = (s >> 33) as usize % bad.len();
            bad[pos] ^= 1 << ((s >> 20) % 8);
            let _ = decode_bounded(&codec, &bad, data.len());
        }
        // wrong expected sizes
        for expected in [0, 1, data.len() - 1, data.len() + 1, data.len() * 2] {
            assert!(
                decode_bounded(&codec, &enc, expected).is_err(),
                "{} accepted size {expected}",
                codec.id()
            );
        }
    }
}

#[test]
fn random_garbage_never_panics() {
    for codec in all_codecs() {
        for seed in 0..200u64 {
            let g = common::noise((seed as usize * 37) % 3000, seed);
            let _ = decode_bounded(&codec, &g, 4000);
        }
    }
}

fn blosc_header(flags: u8, typesize: u8, nbytes: i32, blocksize: i32, cbytes: i32) -> Vec<u8> {
    let mut h = vec![2, 1, flags, typesize];
    h.extend_from_slice(&nbytes.to_le_bytes());
    h.extend_from_slice(&blocksize.to_le_bytes());
    h.extend_from_slice(&cbytes.to_le_bytes());
    h
}

#[test]
fn blosc_lying_headers() {
    let blosc = Codec::from_json(&json!({"id": "blosc"})).unwrap();
    // A header claiming 2 GiB: refused against the expected size, nothing allocated.
    let mut h = blosc_header(0x20, 4, i32::MAX - 16, 1 << 20, 32);
    h.extend_from_slice(&[0; 16]);
    assert!(matches!(
        decode_bounded(&blosc, &h, 1000),
        Err(CodecError::SizeMismatch { expected: 1000, .. })
    ));
    // memcpy'd but the compressed size does not add up
    let mut h = blosc_header(0x02, 1, 1000, 1000, 1016);
    h.extend_from_slice(&[7; 500]);
    assert!(decode_bounded(&blosc, &h, 1000).is_err());
    // compressed size larger than the input
    let h = blosc_header(0x20, 1, 1000, 1000, 5000);
    assert!(matches!(
        decode_bounded(&blosc, &h, 1000),
        Err(CodecError::Truncated { .. })
    ));
    // negative and zero fields
    for (n, b, c) in [
        (-1, 100, 100),
        (1000, 0, 100),
        (1000, 2000, 100),
        (1000, -5, 100),
        (1000, 100, -1),
    ] {
        let mut h = blosc_header(0x20, 1, n, b, c);
        h.extend_from_slice(&[0; 100]);
        assert!(decode_bounded(&blosc, &h, 1000).is_err(), "{n} {b} {c}");
    }
    // block offsets point outside; stream lengths lie
    let mut h = blosc_header(0x30, 1, 256, 256, 16 + 4 + 4 + 10);
    h.extend_from_slice(&9999i32.to_le_bytes());
    h.extend_from_slice(&10i32.to_le_bytes());
    h.extend_from_slice(&[0; 10]);
    assert!(decode_bounded(&blosc, &h, 256).is_err());
    let mut h = blosc_header(0x30, 1, 256, 256, 16 + 4 + 4 + 10);
    h.extend_from_slice(&20i32.to_le_bytes());
    h.extend_from_slice(&1000i32.to_le_bytes());
    h.extend_from_slice(&[0; 10]);
    assert!(matches!(
        decode_bounded(&blosc, &h, 256),
        Err(CodecError::Truncated { .. })
    ));
    // a Blosc2 chunk and a future flag
    let mut h = blosc_header(0x20, 1, 256, 256, 300);
    h[0] = 5;
    h.resize(300, 0);
    assert!(matches!(
        decode_bounded(&blosc, &h, 256),
        Err(CodecError::Unsupported { .. })
    ));
    let mut h = blosc_header(0x28, 1, 256, 256, 300);
    h.resize(300, 0);
    assert!(decode_bounded(&blosc, &h, 256).is_err());
}

#[test]
fn stream_bombs_are_refused() {
    // 16 MiB of zeros compresses to a few KiB; asking for 1 KiB must fail fast
    // without allocating the 16 MiB the stream would produce.
    let zeros = vec![0u8; 16 << 20];
    for config in [
        json!({"id": "zlib"}),
        json!({"id": "gzip"}),
        json!({"id": "bz2"}),
        json!({"id": "zstd"}),
        json!({"id": "lz4"}),
        json!({"id": "blosc", "cname": "zstd"}),
        json!({"id": "blosc", "cname": "lz4"}),
    ] {
        let codec = Codec::from_json(&config).unwrap();
        let enc = codec.encode(&zeros).unwrap();
        assert!(enc.len() < zeros.len() / 100, "{config}");
        let r = decode_bounded(&codec, &enc, 1024);
        assert!(
            matches!(r, Err(CodecError::SizeMismatch { expected: 1024, .. })),
            "{config}: {r:?}"
        );
    }
    // numcodecs lz4 frame declaring 4 GiB
    let lz4 = Codec::from_json(&json!({"id": "lz4"})).unwrap();
    let mut bomb = u32::MAX.to_le_bytes().to_vec();
    bomb.extend_from_slice(&[0x1f, 0, 1, 0]);
    assert!(matches!(
        decode_bounded(&lz4, &bomb, 100),
        Err(CodecError::SizeMismatch { .. })
    ));
}

/// szip (HDF5 filter 4) with garbage after a right size header, and with
/// stored parameters at their limits: errors or values, bounded memory.
#[test]
fn szip_garbage_and_zero_streams_are_bounded() {
    let ctx = CodecContext::default();
    // mask (NN 32, MSB 16), pixels per block, bits per pixel, pixels per scanline
    for params in [
        [32u32, 8, 8, 20],
        [48, 32, 16, 50],
        [0, 64, 1, 64],
        [32, 2, 64, 8190],
        [16, 64, 32, 64 * 4096],
        [32, 16, 12, 17],
    ] {
        let codec = Codec::from_hdf5(nctk_codec::H5Z_FILTER_SZIP, &params, &ctx).unwrap();
        for seed in 0..200u64 {
            let mut g = 4000u32.to_le_bytes().to_vec();
            g.extend(common::noise((seed as usize * 37) % 3000, seed));
            let _ = decode_bounded(&codec, &g, 4000);
        }
        // 16 MiB of zero bits: one endless fundamental sequence, an error
        let mut zeros = vec![0u8; 16 << 20];
        zeros[..4].copy_from_slice(&1024u32.to_le_bytes());
        assert!(decode_bounded(&codec, &zeros, 1024).is_err(), "{params:?}");
    }
}
