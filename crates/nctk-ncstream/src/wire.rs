//! The framing below the protobuf messages: the magic numbers that start
//! each message and the varint lengths and counts.

use std::io::{Read, Write};

use crate::error::{NcStreamError, Result};

/// The four-byte marks that say what follows in a stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Magic {
    /// `CDFS`: the start of a stream (a cdmremote response has none).
    Start,
    /// A header message follows.
    Header,
    /// A row-oriented data message follows.
    Data,
    /// A column-oriented data message (`DataCol`, netCDF-Java 5) follows.
    Data2,
    /// One `StructureData` of a sequence follows.
    VData,
    /// The end of a sequence.
    VEnd,
    /// An error message follows.
    Error,
    /// The end of the stream.
    End,
}

impl Magic {
    /// Every mark, for lookups.
    pub const ALL: [Magic; 8] = [
        Magic::Start,
        Magic::Header,
        Magic::Data,
        Magic::Data2,
        Magic::VData,
        Magic::VEnd,
        Magic::Error,
        Magic::End,
    ];

    /// The mark's bytes as they appear in a stream.
    pub const fn bytes(self) -> [u8; 4] {
        match self {
            Magic::Start => [0x43, 0x44, 0x46, 0x53],
            Magic::Header => [0xad, 0xec, 0xce, 0xda],
            Magic::Data => [0xab, 0xec, 0xce, 0xba],
            Magic::Data2 => [0xab, 0xeb, 0xbe, 0xba],
            Magic::VData => [0xab, 0xef, 0xfe, 0xba],
            Magic::VEnd => [0xed, 0xef, 0xfe, 0xda],
            Magic::Error => [0xab, 0xad, 0xba, 0xda],
            Magic::End => [0xed, 0xed, 0xde, 0xde],
        }
    }

    /// The mark these four bytes are, if any.
    pub fn from_bytes(bytes: [u8; 4]) -> Option<Magic> {
        Magic::ALL.into_iter().find(|m| m.bytes() == bytes)
    }

    /// The mark's name as the grammar writes it (`MAGIC_HEADER`, ...).
    pub const fn name(self) -> &'static str {
        match self {
            Magic::Start => "MAGIC_START",
            Magic::Header => "MAGIC_HEADER",
            Magic::Data => "MAGIC_DATA",
            Magic::Data2 => "MAGIC_DATA2",
            Magic::VData => "MAGIC_VDATA",
            Magic::VEnd => "MAGIC_VEND",
            Magic::Error => "MAGIC_ERR",
            Magic::End => "MAGIC_END",
        }
    }
}

/// The most bytes a varint of a 64-bit value takes.
pub const MAX_VARINT_LEN: usize = 10;

/// Appends `value` as a protobuf varint.
pub fn put_varint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push((value as u8) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// Writes `value` as a protobuf varint.
pub fn write_varint(out: &mut impl Write, value: u64) -> std::io::Result<()> {
    let mut buf = Vec::with_capacity(MAX_VARINT_LEN);
    put_varint(&mut buf, value);
    out.write_all(&buf)
}

/// Reads a varint from the front of `bytes`: the value and the bytes it took.
///
/// `at` is the offset of `bytes[0]` in the stream, for the error.
pub fn get_varint(bytes: &[u8], at: u64) -> Result<(u64, usize)> {
    let mut value = 0u64;
    for (i, &b) in bytes.iter().enumerate().take(MAX_VARINT_LEN) {
        let bits = u64::from(b & 0x7f);
        if i == MAX_VARINT_LEN - 1 && b > 1 {
            return Err(NcStreamError::corrupt(at, "varint overflows 64 bits"));
        }
        value |= bits << (7 * i);
        if b & 0x80 == 0 {
            return Ok((value, i + 1));
        }
    }
    if bytes.len() >= MAX_VARINT_LEN {
        Err(NcStreamError::corrupt(at, "varint longer than 10 bytes"))
    } else {
        Err(NcStreamError::truncated(at, "a varint"))
    }
}

/// Reads a varint from a reader; `at` is the stream offset it starts at,
/// advanced past it.
pub fn read_varint(input: &mut impl Read, at: &mut u64) -> Result<u64> {
    let start = *at;
    let mut value = 0u64;
    for i in 0..MAX_VARINT_LEN {
        let mut b = [0u8; 1];
        match input.read_exact(&mut b) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => {
                return Err(NcStreamError::truncated(start, "a varint"))
            }
            Err(e) => return Err(NcStreamError::io(start, e)),
        }
        *at += 1;
        let b = b[0];
        if i == MAX_VARINT_LEN - 1 && b > 1 {
            return Err(NcStreamError::corrupt(start, "varint overflows 64 bits"));
        }
        value |= u64::from(b & 0x7f) << (7 * i);
        if b & 0x80 == 0 {
            return Ok(value);
        }
    }
    Err(NcStreamError::corrupt(start, "varint longer than 10 bytes"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_round_trip_and_match_prost() {
        for v in [
            0u64,
            1,
            127,
            128,
            300,
            16_383,
            16_384,
            u32::MAX as u64,
            u64::MAX,
        ] {
            let mut ours = Vec::new();
            put_varint(&mut ours, v);
            let mut theirs = Vec::new();
            prost::encoding::encode_varint(v, &mut theirs);
            assert_eq!(ours, theirs, "{v}");
            assert_eq!(get_varint(&ours, 0).unwrap(), (v, ours.len()));
            let mut at = 0;
            assert_eq!(read_varint(&mut ours.as_slice(), &mut at).unwrap(), v);
            assert_eq!(at, ours.len() as u64);
            assert!(get_varint(&ours[..ours.len() - 1], 0).is_err());
        }
        assert!(get_varint(&[0xff; 11], 0).is_err());
        assert!(get_varint(
            &[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02],
            0
        )
        .is_err());
    }

    #[test]
    fn magics_are_distinct_and_found_again() {
        for m in Magic::ALL {
            assert_eq!(Magic::from_bytes(m.bytes()), Some(m));
        }
        assert_eq!(Magic::from_bytes(*b"CDF\x01"), None);
    }
}
