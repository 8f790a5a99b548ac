//! The version-2 superblock (as HDF5 1.8+ writes it when creation order is
//! tracked, which netCDF-4 files always ask for): 48 bytes at offset 0.

use super::encode::{Enc, UNDEFINED};

/// The superblock's size with 8-byte offsets and lengths.
pub const SIZE: u64 = 48;

/// The HDF5 format signature.
const SIGNATURE: &[u8; 8] = b"\x89HDF\r\n\x1a\n";

/// A version-2 superblock for a file of `eof` bytes whose root group's
/// object header is at `root`.
pub fn encode(eof: u64, root: u64) -> Vec<u8> {
    let mut e = Enc::new();
    e.bytes(SIGNATURE)
        .u8(2) // version
        .u8(8) // size of offsets
        .u8(8) // size of lengths
        .u8(0) // file consistency flags
        .u64(0) // base address
        .u64(UNDEFINED) // superblock extension
        .u64(eof)
        .u64(root)
        .checksum();
    e.into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_superblock_is_48_checksummed_bytes() {
        let b = encode(1000, 48);
        assert_eq!(b.len() as u64, SIZE);
        assert!(crate::checksum::verify(&b));
    }
}
