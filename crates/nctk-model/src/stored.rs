//! Chunks moved as they are stored: the vocabulary a [`crate::DataSource`]
//! and a [`crate::DataSink`] share to tell whether one's stored chunk bytes
//! are the other's, so a copy can move them without decoding.

/// One stage of a chunk's encoding, in the terms HDF5 filters and
/// numcodecs share. A chain lists the stages in the order they were
/// applied when writing; two chains that are equal decode each other's
/// bytes to the same elements.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ChunkCodec {
    /// The byte shuffle of elements of `element_size` bytes (HDF5 filter
    /// 2, numcodecs `shuffle` with that `elementsize`).
    Shuffle {
        /// Bytes per element shuffled.
        element_size: usize,
    },
    /// A zlib stream (RFC 1950), whatever the level that made it (HDF5
    /// deflate, filter 1; numcodecs `zlib`).
    Zlib,
}

/// True when `bytes` begins with a zlib stream header (RFC 1950: method 8,
/// a window of at most 32 KiB, the check bits, no preset dictionary).
pub fn is_zlib_stream(bytes: &[u8]) -> bool {
    match bytes {
        [cmf, flg, ..] => {
            cmf & 0x0f == 8
                && cmf >> 4 <= 7
                && flg & 0x20 == 0
                && (u16::from(*cmf) * 256 + u16::from(*flg)) % 31 == 0
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zlib_headers_are_recognised_and_others_not() {
        // 0x78 0x01 / 0x9c / 0xda: the headers zlib writes at levels 1, 6, 9
        for h in [[0x78, 0x01], [0x78, 0x9c], [0x78, 0xda], [0x58, 0x85]] {
            assert!(is_zlib_stream(&h), "{h:?}");
        }
        // gzip, raw deflate-looking bytes, a preset dictionary, too short
        for h in [&[0x1f, 0x8b][..], &[0x78, 0x00], &[0x78, 0xbb], &[0x78]] {
            assert!(!is_zlib_stream(h), "{h:?}");
        }
    }
}
