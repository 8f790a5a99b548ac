//! The dataspace message (type 1), versions 1 and 2: scalar, simple (with
//! current and maximum dimensions) or null.

use crate::error::Result;
use crate::io::Cursor;

/// The most dimensions HDF5 allows.
const MAX_RANK: usize = 32;

/// The shape class of a dataspace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DataspaceKind {
    /// One element, no dimensions.
    Scalar,
    /// An array of `dims`.
    Simple,
    /// No elements at all.
    Null,
}

/// A dataspace: the shape of a dataset or attribute.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dataspace {
    /// Scalar, simple or null.
    pub kind: DataspaceKind,
    /// Current dimension sizes (empty unless simple).
    pub dims: Vec<u64>,
    /// Maximum sizes when stored; `u64::MAX` is unlimited.
    pub max_dims: Option<Vec<u64>>,
}

impl Dataspace {
    /// The number of elements (0 for null, 1 for scalar), `None` on overflow.
    pub fn element_count(&self) -> Option<u64> {
        match self.kind {
            DataspaceKind::Null => Some(0),
            DataspaceKind::Scalar => Some(1),
            DataspaceKind::Simple => self
                .dims
                .iter()
                .try_fold(1u64, |acc, &d| acc.checked_mul(d)),
        }
    }

    /// Decodes a dataspace message body at the cursor; `sizeof_size` is
    /// the file's length width (a maximum of all bits set is unlimited).
    pub fn parse(cur: &mut Cursor<'_>, sizeof_size: u8) -> Result<Dataspace> {
        let version = cur.u8()?;
        let rank = usize::from(cur.u8()?);
        let flags = cur.u8()?;
        if rank > MAX_RANK {
            return Err(cur.corrupt(format!("dataspace of rank {rank} (at most {MAX_RANK})")));
        }
        let kind = match version {
            1 => {
                cur.skip(5)?; // reserved
                if rank == 0 {
                    DataspaceKind::Scalar
                } else {
                    DataspaceKind::Simple
                }
            }
            2 => match cur.u8()? {
                0 => DataspaceKind::Scalar,
                1 => DataspaceKind::Simple,
                2 => DataspaceKind::Null,
                t => return Err(cur.corrupt(format!("dataspace type {t}"))),
            },
            v => return Err(cur.corrupt(format!("dataspace version {v}"))),
        };
        let mut dims = Vec::with_capacity(rank);
        for _ in 0..rank {
            dims.push(cur.length()?);
        }
        let max_dims = if flags & 1 != 0 {
            let all_ones = u64::MAX >> (64 - 8 * u32::from(sizeof_size.clamp(1, 8)));
            let mut max = Vec::with_capacity(rank);
            for _ in 0..rank {
                let m = cur.length()?;
                max.push(if m == all_ones { u64::MAX } else { m });
            }
            Some(max)
        } else {
            None
        };
        Ok(Dataspace {
            kind,
            dims,
            max_dims,
        })
    }
}
