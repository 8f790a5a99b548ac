//! The superblock: versions 0 and 1 (root group symbol table entry, B-tree
//! K values) and 2 and 3 (checksummed, root object header address,
//! superblock extension), found at offset 0, 512, 1024, 2048, ...

use std::sync::Arc;

use nctk_store::bytes::ByteSource;

use crate::checksum;
use crate::error::{Hdf5Error, Result};
use crate::io::FileCtx;
use crate::object_header::{kind, ObjectHeader};

const WHAT: &str = "superblock";

/// The HDF5 format signature.
pub const SIGNATURE: [u8; 8] = *b"\x89HDF\r\n\x1a\n";

/// The superblock's facts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Superblock {
    /// Superblock version (0 to 3).
    pub version: u8,
    /// Size of addresses in bytes.
    pub sizeof_addr: u8,
    /// Size of lengths in bytes.
    pub sizeof_size: u8,
    /// Absolute file offset of the superblock, the base of every address.
    pub base_addr: u64,
    /// Object header address of the root group.
    pub root_addr: u64,
    /// Versions 0 and 1: the root entry's cached B-tree and local heap
    /// addresses (scratch pad of cache type 1).
    pub root_symbol_table: Option<(u64, u64)>,
    /// Group leaf node K (versions 0 and 1, or the extension's B-tree K message).
    pub group_leaf_k: Option<u16>,
    /// Group internal node K.
    pub group_internal_k: Option<u16>,
    /// Indexed storage internal node K (version 1, or the extension).
    pub indexed_storage_k: Option<u16>,
    /// The end-of-file address: the file's length as HDF5 last wrote it
    /// (user block included).
    pub eof_addr: u64,
    /// Versions 2 and 3: the superblock extension's object header address.
    pub extension_addr: Option<u64>,
    /// The shared object header message table's address, from the extension.
    pub shared_message_table: Option<(u64, u8)>,
}

impl Superblock {
    /// Finds and reads the superblock of `source`: the signature is searched
    /// at 0, 512, 1024, 2048, ... up to the end of the file.
    pub fn find(source: &Arc<dyn ByteSource>) -> Result<(Superblock, FileCtx)> {
        let len = source.len().map_err(|e| Hdf5Error::Io {
            file: source.name(),
            what: WHAT.into(),
            source: e,
        })?;
        let probe = FileCtx::new(source.clone(), len, 0, 8, 8);
        let mut at = 0u64;
        while at.saturating_add(8) <= len {
            if probe.read(at, 8, WHAT)? == SIGNATURE {
                return read_at(source, len, at);
            }
            at = if at == 0 { 512 } else { at.saturating_mul(2) };
        }
        Err(probe.corrupt(
            WHAT,
            0,
            "no HDF5 signature at 0, 512, 1024, ...: not an HDF5 file",
        ))
    }
}

fn read_at(source: &Arc<dyn ByteSource>, len: u64, at: u64) -> Result<(Superblock, FileCtx)> {
    let probe = FileCtx::new(source.clone(), len, 0, 8, 8);
    let buf = probe.read_upto(at, 8 + 16 + 4 * 8 + 4 * 8 + 40, WHAT)?;
    let mut cur = probe.cursor(&buf, at, WHAT);
    cur.skip(8)?;
    let version = cur.u8()?;
    let sizes_at = match version {
        0 | 1 => 13,
        2 | 3 => 9,
        v => return Err(cur.corrupt(format!("superblock version {v}"))),
    };
    cur.seek(sizes_at)?;
    let sizeof_addr = cur.u8()?;
    let sizeof_size = cur.u8()?;
    for (name, size) in [("address", sizeof_addr), ("length", sizeof_size)] {
        if ![2, 4, 8].contains(&size) {
            return Err(cur.corrupt(format!("size of {name} fields is {size} (2, 4 or 8)")));
        }
    }
    // Addresses are relative to the superblock, wherever the stored base
    // address says it was written (HDF5 does the same for a moved file).
    let ctx = FileCtx::new(source.clone(), len, at, sizeof_addr, sizeof_size);
    let mut cur = ctx.cursor(&buf, 0, WHAT);
    let sb = if version <= 1 {
        cur.seek(16)?;
        let group_leaf_k = cur.u16()?;
        let group_internal_k = cur.u16()?;
        cur.skip(4)?; // consistency flags
        let indexed_storage_k = if version == 1 {
            let k = cur.u16()?;
            cur.skip(2)?;
            Some(k)
        } else {
            None
        };
        cur.skip(2 * usize::from(sizeof_addr))?; // base, free space
        let eof_addr = cur.uint(usize::from(sizeof_addr))?;
        cur.skip(usize::from(sizeof_addr))?; // driver information
        cur.skip(usize::from(sizeof_addr))?; // root entry: link name offset
        let root_addr = cur
            .address()?
            .ok_or_else(|| cur.corrupt("root group at the undefined address"))?;
        let cache_type = cur.u32()?;
        cur.skip(4)?;
        let btree = cur.address()?;
        let heap = cur.address()?;
        Superblock {
            version,
            sizeof_addr,
            sizeof_size,
            base_addr: at,
            root_addr,
            root_symbol_table: match (cache_type, btree, heap) {
                (1, Some(b), Some(h)) => Some((b, h)),
                _ => None,
            },
            group_leaf_k: Some(group_leaf_k),
            group_internal_k: Some(group_internal_k),
            indexed_storage_k,
            eof_addr,
            extension_addr: None,
            shared_message_table: None,
        }
    } else {
        cur.seek(12)?;
        cur.skip(usize::from(sizeof_addr))?; // base address
        let extension_addr = cur.address()?;
        let eof_addr = cur.uint(usize::from(sizeof_addr))?;
        let root_addr = cur
            .address()?
            .ok_or_else(|| cur.corrupt("root group at the undefined address"))?;
        let end = cur.pos() + 4;
        if buf.len() < end || !checksum::verify(&buf[..end]) {
            return Err(ctx.corrupt(WHAT, 0, "checksum mismatch"));
        }
        let mut sb = Superblock {
            version,
            sizeof_addr,
            sizeof_size,
            base_addr: at,
            root_addr,
            root_symbol_table: None,
            group_leaf_k: None,
            group_internal_k: None,
            indexed_storage_k: None,
            eof_addr,
            extension_addr,
            shared_message_table: None,
        };
        if let Some(ext) = extension_addr {
            read_extension(&ctx, ext, &mut sb)?;
        }
        sb
    };
    // HDF5 compares the stored end of file with the whole file's length,
    // user block included (H5F__super_read).
    if sb.eof_addr > len {
        return Err(ctx.corrupt(
            WHAT,
            0,
            format!(
                "file truncated: the superblock says it ends at byte {}, it has {len}",
                sb.eof_addr
            ),
        ));
    }
    Ok((sb, ctx))
}

/// Reads the messages of the superblock extension that matter for reading:
/// the shared message table and the B-tree K values.
fn read_extension(ctx: &FileCtx, addr: u64, sb: &mut Superblock) -> Result<()> {
    let header = ObjectHeader::read(ctx, addr)?;
    if let Some(msg) = header.first(kind::SHARED_TABLE) {
        let mut cur = ctx.cursor(&msg.body, msg.addr, "shared message table message");
        cur.skip(1)?; // version
        let table = cur.address()?;
        let count = cur.u8()?;
        sb.shared_message_table = table.map(|t| (t, count));
    }
    if let Some(msg) = header.first(kind::BTREE_K) {
        let mut cur = ctx.cursor(&msg.body, msg.addr, "B-tree K message");
        cur.skip(1)?; // version
        sb.indexed_storage_k = Some(cur.u16()?);
        sb.group_internal_k = Some(cur.u16()?);
        sb.group_leaf_k = Some(cur.u16()?);
    }
    Ok(())
}
