//! The messages of a new-style compact group: link info (type 2, link
//! creation order tracked and indexed, as netCDF-C asks), group info
//! (type 10, defaults) and one hard link (type 6) per member.

use super::encode::{width_code, Enc, UNDEFINED};

/// The link info message body of a compact group whose links were given
/// creation orders `0..links`.
pub fn encode_link_info(links: usize) -> Vec<u8> {
    let mut e = Enc::new();
    // Version 0; flags: creation order tracked (bit 0) and indexed (bit 1).
    e.u8(0).u8(3);
    // The largest creation order given (HDF5 stores the next one to give).
    e.u64(links as u64);
    e.u64(UNDEFINED) // fractal heap (dense links): none
        .u64(UNDEFINED) // name index v2 B-tree: none
        .u64(UNDEFINED); // creation order index v2 B-tree: none
    e.into_bytes()
}

/// The group info message body with HDF5's default values.
pub fn encode_group_info() -> Vec<u8> {
    vec![0, 0]
}

/// The link message body of a hard link `name` to the object header at
/// `target`, the `order`th link created in its group.
pub fn encode_hard_link(name: &str, order: u64, target: u64) -> Vec<u8> {
    let code = width_code(name.len() as u64);
    let mut e = Enc::new();
    // Version 1; flags: name length width, creation order present (bit 2),
    // character set present (bit 4: UTF-8, as netCDF-C sets).
    e.u8(1).u8(code | 0x04 | 0x10);
    e.u64(order).u8(1);
    e.uint(name.len() as u64, 1 << code)
        .bytes(name.as_bytes())
        .u64(target);
    e.into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::link::parse;

    #[test]
    fn a_hard_link_reads_back_as_written() {
        let body = encode_hard_link("temperature", 3, 4096);
        let ctx = super::super::test_ctx(&body);
        let link = parse(&ctx, &body, 0).unwrap();
        assert_eq!(link.name, "temperature");
        assert_eq!(link.creation_order, Some(3));
        assert_eq!(link.target, crate::LinkTarget::Hard(4096));
    }
}
