//! Version-1 B-tree nodes (`TREE`): the index of old-style groups (node
//! type 0, keys are local-heap offsets of names) and of chunked datasets
//! before layout message version 4 (node type 1, keys give a chunk's
//! stored size, filter mask and offsets).
//!
//! A node is `TREE`, node type, level, entries used, left and right sibling
//! addresses, then `entries + 1` keys interleaved with `entries` child
//! addresses: `key 0, child 0, key 1, child 1, .., key N`. Child `i` holds
//! the entries between key `i` and key `i + 1`. The key size is the
//! caller's (it depends on the node type and, for chunks, the rank).

use std::collections::HashSet;

use crate::error::Result;
use crate::io::FileCtx;

/// What a B-tree v1 indexes (the node type byte).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeType {
    /// Type 0: group nodes; leaves point at symbol table nodes (`SNOD`).
    Group,
    /// Type 1: raw data chunk nodes; leaves point at chunks.
    Chunk,
}

impl NodeType {
    fn code(self) -> u8 {
        match self {
            NodeType::Group => 0,
            NodeType::Chunk => 1,
        }
    }
}

/// One node as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Node {
    /// Relative address of the node.
    pub addr: u64,
    /// 0 for a leaf, whose children are the indexed objects.
    pub level: u8,
    /// The left sibling, `None` when undefined.
    pub left: Option<u64>,
    /// The right sibling, `None` when undefined.
    pub right: Option<u64>,
    /// `children.len() + 1` keys, each of the caller's key size.
    pub keys: Vec<Vec<u8>>,
    /// Child addresses (nodes one level down, or the indexed objects).
    pub children: Vec<u64>,
}

/// Bytes read at first for a node: enough for 64 entries with 40-byte keys
/// (the defaults of HDF5 and netCDF-C); a larger node is read again whole.
const FIRST_READ: u64 = 8 + 16 + 65 * 40 + 64 * 8;

/// Reads the node at relative address `addr`, checking its signature, that
/// its type is `node_type`, and that every key and child lies inside it.
pub fn read_node(ctx: &FileCtx, addr: u64, node_type: NodeType, key_size: usize) -> Result<Node> {
    const WHAT: &str = "B-tree v1 node";
    let sa = usize::from(ctx.sizeof_addr());
    let mut buf = ctx.read_upto(addr, FIRST_READ, WHAT)?;
    let mut cur = ctx.cursor(&buf, addr, WHAT);
    cur.signature(b"TREE")?;
    let kind = cur.u8()?;
    if kind != node_type.code() {
        return Err(cur.corrupt(format!(
            "node type {kind} where type {} was expected",
            node_type.code()
        )));
    }
    let level = cur.u8()?;
    let entries = usize::from(cur.u16()?);
    let need =
        (8 + 2 * sa) as u64 + (entries as u64 + 1) * key_size as u64 + entries as u64 * sa as u64;
    if need > buf.len() as u64 {
        buf = ctx.read(addr, need, WHAT)?;
    }
    let mut cur = ctx.cursor(&buf, addr, WHAT);
    cur.skip(8)?;
    let left = cur.address()?;
    let right = cur.address()?;
    let mut keys = Vec::with_capacity(entries + 1);
    let mut children = Vec::with_capacity(entries);
    for i in 0..=entries {
        keys.push(cur.bytes(key_size)?.to_vec());
        if i < entries {
            let child = cur
                .address()?
                .ok_or_else(|| cur.corrupt(format!("child {i} has the undefined address")))?;
            children.push(child);
        }
    }
    Ok(Node {
        addr,
        level,
        left,
        right,
        keys,
        children,
    })
}

/// One leaf entry met by [`walk`]: the child of a level-0 node with the
/// keys on either side of it.
#[derive(Debug, Clone, Copy)]
pub struct LeafEntry<'a> {
    /// Relative address of the leaf node holding the entry.
    pub node: u64,
    /// The key before the child (for chunks: the chunk's own key).
    pub left_key: &'a [u8],
    /// The key after the child.
    pub right_key: &'a [u8],
    /// The indexed object's relative address.
    pub child: u64,
}

/// Walks the tree rooted at `root` depth first, in key order, calling
/// `visit` for every leaf entry. `descend(left_key, right_key)` says
/// whether an inner node's child subtree can hold wanted entries (return
/// `true` to walk everything). Each child must sit exactly one level below
/// its parent, so a cycle cannot recur; a node met twice is an error.
pub fn walk(
    ctx: &FileCtx,
    root: u64,
    node_type: NodeType,
    key_size: usize,
    descend: &mut dyn FnMut(&[u8], &[u8]) -> bool,
    visit: &mut dyn FnMut(LeafEntry<'_>) -> Result<()>,
) -> Result<()> {
    let mut seen = HashSet::new();
    walk_node(
        ctx, root, None, node_type, key_size, &mut seen, descend, visit,
    )
}

#[allow(clippy::too_many_arguments)]
fn walk_node(
    ctx: &FileCtx,
    addr: u64,
    expected_level: Option<u8>,
    node_type: NodeType,
    key_size: usize,
    seen: &mut HashSet<u64>,
    descend: &mut dyn FnMut(&[u8], &[u8]) -> bool,
    visit: &mut dyn FnMut(LeafEntry<'_>) -> Result<()>,
) -> Result<()> {
    const WHAT: &str = "B-tree v1 node";
    if !seen.insert(addr) {
        return Err(ctx.corrupt(WHAT, addr, "node reached twice: the B-tree has a cycle"));
    }
    let node = read_node(ctx, addr, node_type, key_size)?;
    if let Some(level) = expected_level {
        if node.level != level {
            return Err(ctx.corrupt(
                WHAT,
                addr,
                format!("level {} where its parent expects {level}", node.level),
            ));
        }
    }
    for (i, &child) in node.children.iter().enumerate() {
        let (left_key, right_key) = (&node.keys[i][..], &node.keys[i + 1][..]);
        if node.level == 0 {
            visit(LeafEntry {
                node: addr,
                left_key,
                right_key,
                child,
            })?;
        } else if descend(left_key, right_key) {
            walk_node(
                ctx,
                child,
                Some(node.level - 1),
                node_type,
                key_size,
                seen,
                descend,
                visit,
            )?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Hdf5Error;
    use nctk_store::bytes::{ByteSource, MemSource};
    use std::sync::Arc;

    /// A node with 8-byte addresses and one-byte keys.
    fn node(level: u8, keys: &[u8], children: &[u64]) -> Vec<u8> {
        let mut b = b"TREE".to_vec();
        b.push(0);
        b.push(level);
        b.extend_from_slice(&(children.len() as u16).to_le_bytes());
        b.extend_from_slice(&[0xff; 16]);
        for (i, k) in keys.iter().enumerate() {
            b.push(*k);
            if let Some(c) = children.get(i) {
                b.extend_from_slice(&c.to_le_bytes());
            }
        }
        b
    }

    fn file(nodes: &[(u64, Vec<u8>)]) -> FileCtx {
        let mut bytes = vec![0u8; 512];
        for (at, n) in nodes {
            bytes[*at as usize..*at as usize + n.len()].copy_from_slice(n);
        }
        let len = bytes.len() as u64;
        let source: Arc<dyn ByteSource> = Arc::new(MemSource::new(bytes));
        FileCtx::new(source, len, 0, 8, 8)
    }

    fn leaves(ctx: &FileCtx) -> Result<Vec<(u8, u64)>> {
        let mut out = vec![];
        walk(ctx, 0, NodeType::Group, 1, &mut |_, _| true, &mut |e| {
            out.push((e.left_key[0], e.child));
            Ok(())
        })?;
        Ok(out)
    }

    #[test]
    fn walks_leaves_in_key_order() {
        let ctx = file(&[
            (0, node(1, &[0, 5, 9], &[100, 200])),
            (100, node(0, &[0, 2, 5], &[1000, 2000])),
            (200, node(0, &[5, 9], &[3000])),
        ]);
        assert_eq!(leaves(&ctx).unwrap(), vec![(0, 1000), (2, 2000), (5, 3000)]);
    }

    #[test]
    fn a_cycle_or_a_wrong_level_is_an_error() {
        // the root's child points back at the root (level 1 != 0)
        let ctx = file(&[(0, node(1, &[0, 5], &[0]))]);
        assert!(matches!(leaves(&ctx), Err(Hdf5Error::Corrupt { .. })));
        // two children share one leaf
        let ctx = file(&[
            (0, node(1, &[0, 5, 9], &[100, 100])),
            (100, node(0, &[0, 2], &[1000])),
        ]);
        let err = leaves(&ctx).unwrap_err().to_string();
        assert!(err.contains("cycle"), "{err}");
    }

    #[test]
    fn counts_past_the_file_and_wrong_signatures_are_errors() {
        let mut n = node(0, &[0, 2], &[1000]);
        n[6..8].copy_from_slice(&u16::MAX.to_le_bytes());
        let ctx = file(&[(0, n)]);
        assert!(matches!(leaves(&ctx), Err(Hdf5Error::OutOfBounds { .. })));
        let mut n = node(0, &[0, 2], &[1000]);
        n[0] = b'X';
        let ctx = file(&[(0, n)]);
        assert!(matches!(leaves(&ctx), Err(Hdf5Error::Corrupt { .. })));
        let mut n = node(0, &[0, 2], &[1000]);
        n[4] = 1;
        let ctx = file(&[(0, n)]);
        assert!(matches!(leaves(&ctx), Err(Hdf5Error::Corrupt { .. })));
    }
}
