//! Building streams by hand for the decoding tests.

use nctk_ncstream::wire::{put_varint, Magic};
use prost::Message;

/// `m` framed as the grammar says: its mark, a varint length, its bytes.
pub fn framed(magic: Magic, m: &impl Message) -> Vec<u8> {
    let mut out = magic.bytes().to_vec();
    let body = m.encode_to_vec();
    put_varint(&mut out, body.len() as u64);
    out.extend_from_slice(&body);
    out
}
