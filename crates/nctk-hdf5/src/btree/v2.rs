//! Version-2 B-trees: a header (`BTHD`), internal nodes (`BTIN`) and leaves
//! (`BTLF`), all checksummed. [`walk`] hands every record's bytes to the
//! caller in key order; what a record means (type 1 huge heap objects, 5/6
//! links, 8/9 attributes, 10/11 chunks, ...) is the caller's business.
//!
//! An internal node holds `n` records and `n + 1` child pointers; a child
//! pointer is an address, the child's record count and, below depth 1, the
//! total record count of its subtree, each count in the fewest bytes that
//! hold the most a node at that depth can have.

use std::collections::HashSet;

use crate::checksum;
use crate::error::Result;
use crate::io::FileCtx;

/// Signature, version, type and checksum: the bytes of a node besides its
/// records and child pointers.
const NODE_OVERHEAD: u64 = 10;

/// The deepest tree accepted (HDF5 trees are a handful of levels deep).
const MAX_DEPTH: u16 = 32;

/// A B-tree v2 header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    /// Relative address of the header.
    pub addr: u64,
    /// The record type.
    pub record_type: u8,
    /// Size of every node in bytes.
    pub node_size: u32,
    /// Size of one record in bytes.
    pub record_size: u16,
    /// Depth of the tree (0: the root is a leaf).
    pub depth: u16,
    /// The root node, `None` for an empty tree.
    pub root: Option<u64>,
    /// Records in the root node.
    pub root_records: u16,
    /// Records in the whole tree.
    pub total_records: u64,
}

/// Per depth: the most records a node holds, and the byte widths of a
/// child pointer's two counts.
#[derive(Debug, Clone, Copy)]
struct Level {
    max_records: u64,
    count_width: usize,
    total_width: usize,
}

impl Header {
    /// Reads the header at relative address `addr`, checking its signature,
    /// checksum and that its record type is `record_type`.
    pub fn read(ctx: &FileCtx, addr: u64, record_type: u8) -> Result<Header> {
        const WHAT: &str = "B-tree v2 header";
        let sa = u64::from(ctx.sizeof_addr());
        let ss = u64::from(ctx.sizeof_size());
        let len = 4 + 1 + 1 + 4 + 2 + 2 + 1 + 1 + sa + 2 + ss + 4;
        let buf = ctx.read(addr, len, WHAT)?;
        if !checksum::verify(&buf) {
            return Err(ctx.corrupt(WHAT, addr, "checksum mismatch"));
        }
        let mut cur = ctx.cursor(&buf, addr, WHAT);
        cur.signature(b"BTHD")?;
        let version = cur.u8()?;
        if version != 0 {
            return Err(cur.corrupt(format!("version {version}")));
        }
        let found = cur.u8()?;
        if found != record_type {
            return Err(cur.corrupt(format!(
                "record type {found} where type {record_type} was expected"
            )));
        }
        let node_size = cur.u32()?;
        let record_size = cur.u16()?;
        let depth = cur.u16()?;
        cur.skip(2)?; // split and merge percentages
        let root = cur.address()?;
        let root_records = cur.u16()?;
        let total_records = cur.length()?;
        if record_size == 0 || u64::from(node_size) < NODE_OVERHEAD + u64::from(record_size) {
            return Err(ctx.corrupt(
                WHAT,
                addr,
                format!("records of {record_size} bytes in nodes of {node_size} bytes"),
            ));
        }
        if depth > MAX_DEPTH {
            return Err(ctx.corrupt(WHAT, addr, format!("depth {depth}")));
        }
        Ok(Header {
            addr,
            record_type,
            node_size,
            record_size,
            depth,
            root,
            root_records,
            total_records,
        })
    }

    /// The node capacities by depth, as HDF5 derives them from the node
    /// and record sizes.
    fn levels(&self, sizeof_addr: u8) -> Vec<Level> {
        let node = u64::from(self.node_size);
        let rec = u64::from(self.record_size);
        let leaf_max = (node - NODE_OVERHEAD) / rec;
        let count_width = width(leaf_max);
        let mut levels = vec![Level {
            max_records: leaf_max,
            count_width,
            total_width: 0,
        }];
        let mut cumulative = leaf_max;
        for d in 1..=usize::from(self.depth) {
            let below_total = if d > 1 { levels[d - 1].total_width } else { 0 };
            let pointer = u64::from(sizeof_addr) + count_width as u64 + below_total as u64;
            let max = node.saturating_sub(NODE_OVERHEAD + pointer) / (rec + pointer);
            cumulative = max
                .saturating_add(1)
                .saturating_mul(cumulative)
                .saturating_add(max);
            levels.push(Level {
                max_records: max,
                count_width,
                total_width: width(cumulative),
            });
        }
        levels
    }
}

/// The fewest bytes that hold `n` (at least one).
fn width(n: u64) -> usize {
    (n.max(1).ilog2() / 8 + 1) as usize
}

/// Walks every record of the tree whose header is at `addr` (of type
/// `record_type`) in key order, calling `visit` with each record's bytes.
/// Node records counts are checked against the node size, every node is
/// visited once and no more records than the header declares are visited.
pub fn walk(
    ctx: &FileCtx,
    addr: u64,
    record_type: u8,
    visit: &mut dyn FnMut(&[u8]) -> Result<()>,
) -> Result<Header> {
    let header = Header::read(ctx, addr, record_type)?;
    if let Some(root) = header.root {
        let mut walker = Walker {
            ctx,
            header: &header,
            levels: header.levels(ctx.sizeof_addr()),
            seen: HashSet::new(),
            visited: 0,
        };
        walker.node(root, header.depth, u64::from(header.root_records), visit)?;
    }
    Ok(header)
}

struct Walker<'a> {
    ctx: &'a FileCtx,
    header: &'a Header,
    levels: Vec<Level>,
    seen: HashSet<u64>,
    visited: u64,
}

impl Walker<'_> {
    fn node(
        &mut self,
        addr: u64,
        depth: u16,
        records: u64,
        visit: &mut dyn FnMut(&[u8]) -> Result<()>,
    ) -> Result<()> {
        let (what, signature) = if depth == 0 {
            ("B-tree v2 leaf", b"BTLF")
        } else {
            ("B-tree v2 internal node", b"BTIN")
        };
        let level = self.levels[usize::from(depth)];
        if !self.seen.insert(addr) {
            return Err(self
                .ctx
                .corrupt(what, addr, "node reached twice (a loop in the tree)"));
        }
        if records > level.max_records {
            return Err(self.ctx.corrupt(
                what,
                addr,
                format!(
                    "{records} records, at most {} fit in a node",
                    level.max_records
                ),
            ));
        }
        let buf = self
            .ctx
            .read(addr, u64::from(self.header.node_size), what)?;
        let mut cur = self.ctx.cursor(&buf, addr, what);
        cur.signature(signature)?;
        let version = cur.u8()?;
        let found = cur.u8()?;
        if version != 0 || found != self.header.record_type {
            return Err(cur.corrupt(format!("version {version}, record type {found}")));
        }
        let rec = usize::from(self.header.record_size);
        let records_at = cur.pos();
        cur.skip(rec * records as usize)?;
        let mut children = Vec::new();
        if depth > 0 {
            let below = self.levels[usize::from(depth) - 1];
            for _ in 0..=records {
                let child = cur
                    .address()?
                    .ok_or_else(|| cur.corrupt("child at the undefined address"))?;
                let count = cur.uint(level.count_width)?;
                if depth > 1 {
                    cur.skip(below.total_width)?;
                }
                children.push((child, count));
            }
        }
        let end = cur.pos() + 4;
        if buf.len() < end || !checksum::verify(&buf[..end]) {
            return Err(self.ctx.corrupt(what, addr, "checksum mismatch"));
        }
        let record = |i: usize| &buf[records_at + i * rec..records_at + (i + 1) * rec];
        for i in 0..records as usize {
            if let Some(&(child, count)) = children.get(i) {
                self.node(child, depth - 1, count, visit)?;
            }
            self.visited += 1;
            if self.visited > self.header.total_records {
                return Err(self.ctx.corrupt(
                    what,
                    addr,
                    format!(
                        "more records than the {} the header declares",
                        self.header.total_records
                    ),
                ));
            }
            visit(record(i))?;
        }
        if let Some(&(child, count)) = children.get(records as usize) {
            self.node(child, depth - 1, count, visit)?;
        }
        Ok(())
    }
}
