//! The LZ4 block decoder (numcodecs `lz4` framing) two ways:
//! * even first byte: the rest is data, compressed by lz4_flex (an
//!   independent encoder) and decoded by nctk: must give the data back;
//! * odd first byte: bytes 1-2 are the declared size, the rest an arbitrary
//!   block: nctk must not panic, and where both nctk and lz4_flex's decoder
//!   accept the block they must agree on the output.
#![no_main]

use libfuzzer_sys::fuzz_target;
use nctk_codec::Codec;
use serde_json::json;

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let codec = Codec::from_json(&json!({"id": "lz4"})).unwrap();
    if mode & 1 == 0 {
        let mut src = rest.to_vec();
        // Stretch the input with runs so long overlapping matches occur.
        if mode & 2 != 0 && !rest.is_empty() {
            let period = usize::from(mode >> 2) % 20 + 1;
            let tail: Vec<u8> = (0..usize::from(mode) * 8)
                .map(|i| rest[i % period.min(rest.len())])
                .collect();
            src.extend_from_slice(&tail);
            src.extend_from_slice(rest);
        }
        let enc = codec.encode(&src).unwrap();
        let mut out = vec![0u8; src.len()];
        codec.decode_into(&enc, &mut out).unwrap();
        assert_eq!(out, src);
        return;
    }
    if rest.len() < 2 {
        return;
    }
    let size = usize::from(u16::from_le_bytes([rest[0], rest[1]]));
    let block = &rest[2..];
    let mut frame = (size as u32).to_le_bytes().to_vec();
    frame.extend_from_slice(block);
    let mut ours = vec![0u8; size];
    let r = codec.decode_into(&frame, &mut ours);
    let mut theirs = vec![0u8; size];
    let t = lz4_flex::block::decompress_into(block, &mut theirs);
    if let (Ok(()), Ok(n)) = (r, t) {
        assert_eq!(n, size);
        assert_eq!(ours, theirs);
    }
});
