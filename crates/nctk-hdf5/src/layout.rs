//! The data layout message (message type 8), versions 1 to 5: where a
//! dataset's raw data lives (inline, one contiguous block, or chunks found
//! through a chunk index).

use crate::error::Result;
use crate::io::FileCtx;

/// How a chunked dataset's chunks are found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChunkIndexKind {
    /// A version-1 B-tree of chunk nodes (layout messages 1 to 3, and
    /// version 4 index type 6 is never written; this is the old default).
    BTreeV1,
    /// Index type 1: the dataset is one chunk, stored at the index address.
    Single {
        /// `(stored size, filter mask)` when the chunk went through filters.
        filtered: Option<(u64, u32)>,
    },
    /// Index type 2: every chunk allocated, in order, from the index address.
    Implicit,
    /// Index type 3: a fixed array (`FAHD`).
    FixedArray {
        /// log2 of the entries in one data block page.
        page_bits: u8,
    },
    /// Index type 4: an extensible array (`EAHD`), one unlimited dimension.
    ExtensibleArray {
        /// The creation parameters as the message records them.
        max_bits: u8,
        /// Elements stored in the index block.
        index_elements: u8,
        /// Minimum data block pointers of a super block.
        min_pointers: u8,
        /// Minimum elements of a data block.
        min_elements: u8,
        /// log2 of the elements in one data block page.
        page_bits: u8,
    },
    /// Index type 5: a version-2 B-tree (`BTHD`, records 10 or 11).
    BTreeV2 {
        /// Node size in bytes.
        node_size: u32,
        /// Split percent.
        split_percent: u8,
        /// Merge percent.
        merge_percent: u8,
    },
}

/// Where a dataset's raw data is stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Layout {
    /// Stored in the layout message itself.
    Compact {
        /// The raw data.
        data: Vec<u8>,
    },
    /// One block of `size` bytes at `addr` (`None`: never written).
    Contiguous {
        /// Relative address, `None` for the undefined address.
        addr: Option<u64>,
        /// Size in bytes (for layout versions 1 and 2, the product of the
        /// stored dimensions).
        size: u64,
    },
    /// Chunks of `chunk` elements found through `index`.
    Chunked {
        /// Chunk dimensions in elements, one per dataset dimension.
        chunk: Vec<u64>,
        /// The element size the layout message records (its last chunk
        /// dimension).
        element_size: u64,
        /// The chunk index.
        index: ChunkIndexKind,
        /// Relative address of the index (`None`: no chunk written yet).
        index_addr: Option<u64>,
        /// Layout version 4 flag 0: partial edge chunks are stored unfiltered.
        unfiltered_edges: bool,
    },
}

const WHAT: &str = "data layout message";

impl Layout {
    /// Parses the body of a layout message read at relative address `addr`
    /// for a dataset of `rank` dimensions. Virtual datasets and unknown
    /// versions or classes are errors naming the message's offset.
    pub fn parse(ctx: &FileCtx, addr: u64, body: &[u8], rank: usize) -> Result<Layout> {
        let mut cur = ctx.cursor(body, addr, WHAT);
        let version = cur.u8()?;
        let layout = match version {
            1 | 2 => {
                let ndims = usize::from(cur.u8()?);
                let class = cur.u8()?;
                cur.skip(5)?;
                let data_addr = if class == 0 { None } else { cur.address()? };
                let mut dims = Vec::with_capacity(ndims);
                for _ in 0..ndims {
                    dims.push(u64::from(cur.u32()?));
                }
                match class {
                    0 => {
                        let size = cur.u32()? as usize;
                        Layout::Compact {
                            data: cur.bytes(size)?.to_vec(),
                        }
                    }
                    1 => Layout::Contiguous {
                        addr: data_addr,
                        size: dims
                            .iter()
                            .try_fold(1u64, |a, &d| a.checked_mul(d))
                            .ok_or_else(|| cur.corrupt("contiguous dimensions overflow 64 bits"))?,
                    },
                    2 => chunked(&cur, dims, rank, ChunkIndexKind::BTreeV1, data_addr, false)?,
                    other => return Err(cur.corrupt(format!("layout class {other}"))),
                }
            }
            3..=5 => {
                let class = cur.u8()?;
                match class {
                    0 => {
                        let size = usize::from(cur.u16()?);
                        Layout::Compact {
                            data: cur.bytes(size)?.to_vec(),
                        }
                    }
                    1 => Layout::Contiguous {
                        addr: cur.address()?,
                        size: cur.length()?,
                    },
                    2 if version == 3 => {
                        let ndims = usize::from(cur.u8()?);
                        let index_addr = cur.address()?;
                        let mut dims = Vec::with_capacity(ndims);
                        for _ in 0..ndims {
                            dims.push(u64::from(cur.u32()?));
                        }
                        chunked(&cur, dims, rank, ChunkIndexKind::BTreeV1, index_addr, false)?
                    }
                    2 => {
                        let flags = cur.u8()?;
                        let ndims = usize::from(cur.u8()?);
                        let width = usize::from(cur.u8()?);
                        if !(1..=8).contains(&width) {
                            return Err(cur.corrupt(format!(
                                "chunk dimensions encoded in {width} bytes (1 to 8 allowed)"
                            )));
                        }
                        let mut dims = Vec::with_capacity(ndims);
                        for _ in 0..ndims {
                            dims.push(cur.uint(width)?);
                        }
                        let index = match cur.u8()? {
                            1 => ChunkIndexKind::Single {
                                filtered: if flags & 2 != 0 {
                                    Some((cur.length()?, cur.u32()?))
                                } else {
                                    None
                                },
                            },
                            2 => ChunkIndexKind::Implicit,
                            3 => ChunkIndexKind::FixedArray {
                                page_bits: cur.u8()?,
                            },
                            4 => ChunkIndexKind::ExtensibleArray {
                                max_bits: cur.u8()?,
                                index_elements: cur.u8()?,
                                min_pointers: cur.u8()?,
                                min_elements: cur.u8()?,
                                page_bits: cur.u8()?,
                            },
                            5 => ChunkIndexKind::BTreeV2 {
                                node_size: cur.u32()?,
                                split_percent: cur.u8()?,
                                merge_percent: cur.u8()?,
                            },
                            other => return Err(cur.corrupt(format!("chunk index type {other}"))),
                        };
                        let index_addr = cur.address()?;
                        chunked(&cur, dims, rank, index, index_addr, flags & 1 != 0)?
                    }
                    3 => return Err(cur.unsupported("virtual dataset (layout class 3)")),
                    other => return Err(cur.corrupt(format!("layout class {other}"))),
                }
            }
            other => return Err(cur.corrupt(format!("layout message version {other}"))),
        };
        Ok(layout)
    }

    /// The storage as `ncdump -s` names it in `_Storage`: `compact`,
    /// `contiguous` or `chunked`.
    pub fn storage_name(&self) -> &'static str {
        match self {
            Layout::Compact { .. } => "compact",
            Layout::Contiguous { .. } => "contiguous",
            Layout::Chunked { .. } => "chunked",
        }
    }
}

/// A chunked layout from stored dimensions (the dataset's rank plus the
/// trailing element size).
fn chunked(
    cur: &crate::io::Cursor<'_>,
    mut dims: Vec<u64>,
    rank: usize,
    index: ChunkIndexKind,
    index_addr: Option<u64>,
    unfiltered_edges: bool,
) -> Result<Layout> {
    if dims.len() != rank + 1 {
        return Err(cur.corrupt(format!(
            "{} chunk dimensions for a dataset of rank {rank} (rank + 1 expected)",
            dims.len()
        )));
    }
    let element_size = dims.pop().unwrap_or(0);
    if dims.contains(&0) || element_size == 0 {
        return Err(cur.corrupt(format!(
            "chunk dimensions {dims:?} x {element_size} bytes: none may be 0"
        )));
    }
    Ok(Layout::Chunked {
        chunk: dims,
        element_size,
        index,
        index_addr,
        unfiltered_edges,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Hdf5Error;
    use nctk_store::bytes::{ByteSource, MemSource};
    use std::sync::Arc;

    fn ctx() -> FileCtx {
        let source: Arc<dyn ByteSource> = Arc::new(MemSource::new(vec![0; 64]));
        FileCtx::new(source, 64, 0, 8, 8)
    }

    /// Versions 1 and 2 as the specification lays them out (HDF5 1.4 and
    /// earlier wrote them; no current library does): version, rank, class,
    /// 5 reserved bytes, an address unless compact, u32 dimensions.
    #[test]
    fn versions_1_and_2() {
        let mut chunked = vec![1, 3, 2, 0, 0, 0, 0, 0];
        chunked.extend_from_slice(&40u64.to_le_bytes());
        for d in [4u32, 5, 8] {
            chunked.extend_from_slice(&d.to_le_bytes());
        }
        assert_eq!(
            Layout::parse(&ctx(), 0, &chunked, 2).unwrap(),
            Layout::Chunked {
                chunk: vec![4, 5],
                element_size: 8,
                index: ChunkIndexKind::BTreeV1,
                index_addr: Some(40),
                unfiltered_edges: false,
            }
        );
        let mut contiguous = vec![2, 2, 1, 0, 0, 0, 0, 0];
        contiguous.extend_from_slice(&[0xff; 8]);
        for d in [6u32, 4] {
            contiguous.extend_from_slice(&d.to_le_bytes());
        }
        assert_eq!(
            Layout::parse(&ctx(), 0, &contiguous, 1).unwrap(),
            Layout::Contiguous {
                addr: None,
                size: 24
            }
        );
        let mut compact = vec![1, 1, 0, 0, 0, 0, 0, 0];
        compact.extend_from_slice(&3u32.to_le_bytes());
        compact.extend_from_slice(&3u32.to_le_bytes());
        compact.extend_from_slice(b"abc");
        assert_eq!(
            Layout::parse(&ctx(), 0, &compact, 1).unwrap(),
            Layout::Compact {
                data: b"abc".to_vec()
            }
        );
    }

    #[test]
    fn virtual_datasets_and_bad_messages_are_errors() {
        assert!(matches!(
            Layout::parse(&ctx(), 0, &[4, 3, 0, 0], 1),
            Err(Hdf5Error::Unsupported { .. })
        ));
        for bad in [
            &[9u8, 1][..],                                     // version 9
            &[3, 7],                                           // class 7
            &[4, 2, 0, 3, 9, 1],                               // 9-byte dimension encoding
            &[4, 2, 0, 2, 1, 4, 8, 7],                         // index type 7
            &[4, 2, 0, 2, 1, 0, 8, 2, 0, 0, 0, 0, 0, 0, 0, 0], // a chunk dimension of 0
        ] {
            assert!(
                matches!(
                    Layout::parse(&ctx(), 0, bad, 1),
                    Err(Hdf5Error::Corrupt { .. })
                ),
                "{bad:?}"
            );
        }
        // the rank disagrees with the dataspace's
        assert!(Layout::parse(&ctx(), 0, &[4, 2, 0, 3, 1, 4, 4, 8, 2, 0], 1).is_err());
        // cut short anywhere: an error, never a panic
        let mut v4 = vec![4, 2, 2, 3, 1, 4, 4, 8, 1];
        v4.extend_from_slice(&100u64.to_le_bytes());
        v4.extend_from_slice(&3u32.to_le_bytes());
        v4.extend_from_slice(&40u64.to_le_bytes());
        assert!(Layout::parse(&ctx(), 0, &v4, 2).is_ok());
        for cut in 0..v4.len() {
            assert!(Layout::parse(&ctx(), 0, &v4[..cut], 2).is_err(), "{cut}");
        }
    }
}
