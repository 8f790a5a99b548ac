//! Extents: how callers say which part of a variable they want, with Rust
//! ranges and tuples, e.g. `(0, .., 10..20)` or `..` for everything.

use std::ops::{Range, RangeFrom, RangeFull, RangeInclusive, RangeTo};

use nctk_model::Selection;

use crate::Error;

/// The part of one dimension to read or write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Extent {
    /// One index; the dimension is dropped from the result's shape.
    Index(u64),
    /// `start..end` (end `None` = to the dimension's length) every `step`.
    Slice {
        /// First index.
        start: u64,
        /// One past the last index; `None` for the dimension's length.
        end: Option<u64>,
        /// Step between indices (at least 1).
        step: u64,
    },
}

impl Extent {
    /// Every index of the dimension.
    pub const ALL: Extent = Extent::Slice {
        start: 0,
        end: None,
        step: 1,
    };

    /// `range` taking every `step`-th index.
    pub fn stepped(range: Range<u64>, step: u64) -> Extent {
        Extent::Slice {
            start: range.start,
            end: Some(range.end),
            step,
        }
    }
}

/// Something that names the part of one dimension: an index or a range.
pub trait IntoExtent {
    /// The extent.
    fn into_extent(self) -> Extent;
}

impl IntoExtent for Extent {
    fn into_extent(self) -> Extent {
        self
    }
}
impl IntoExtent for usize {
    fn into_extent(self) -> Extent {
        Extent::Index(self as u64)
    }
}
impl IntoExtent for Range<usize> {
    fn into_extent(self) -> Extent {
        Extent::Slice {
            start: self.start as u64,
            end: Some(self.end as u64),
            step: 1,
        }
    }
}
impl IntoExtent for RangeInclusive<usize> {
    fn into_extent(self) -> Extent {
        Extent::Slice {
            start: *self.start() as u64,
            end: Some(*self.end() as u64 + 1),
            step: 1,
        }
    }
}
impl IntoExtent for RangeFrom<usize> {
    fn into_extent(self) -> Extent {
        Extent::Slice {
            start: self.start as u64,
            end: None,
            step: 1,
        }
    }
}
impl IntoExtent for RangeTo<usize> {
    fn into_extent(self) -> Extent {
        Extent::Slice {
            start: 0,
            end: Some(self.end as u64),
            step: 1,
        }
    }
}
impl IntoExtent for RangeFull {
    fn into_extent(self) -> Extent {
        Extent::ALL
    }
}

/// The part of a whole variable: one [`Extent`] per dimension, or everything.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Extents {
    /// The whole variable, whatever its rank.
    All,
    /// One extent per dimension.
    Dims(Vec<Extent>),
}

/// Something that names a part of a variable: `..`, a tuple of indices and
/// ranges, or a `Vec<Extent>`.
pub trait IntoExtents {
    /// The extents.
    fn into_extents(self) -> Extents;
}

impl IntoExtents for Extents {
    fn into_extents(self) -> Extents {
        self
    }
}
impl IntoExtents for RangeFull {
    fn into_extents(self) -> Extents {
        Extents::All
    }
}
impl IntoExtents for Vec<Extent> {
    fn into_extents(self) -> Extents {
        Extents::Dims(self)
    }
}
impl IntoExtents for () {
    fn into_extents(self) -> Extents {
        Extents::Dims(vec![])
    }
}

macro_rules! tuple_extents {
    ($($name:ident),+) => {
        impl<$($name: IntoExtent),+> IntoExtents for ($($name,)+) {
            #[allow(non_snake_case)]
            fn into_extents(self) -> Extents {
                let ($($name,)+) = self;
                Extents::Dims(vec![$($name.into_extent()),+])
            }
        }
    };
}
tuple_extents!(A);
tuple_extents!(A, B);
tuple_extents!(A, B, C);
tuple_extents!(A, B, C, D);
tuple_extents!(A, B, C, D, E);
tuple_extents!(A, B, C, D, E, F);

impl Extents {
    /// The selection these extents name in a variable of `shape`, and the
    /// shape of the result (dimensions given by an index are dropped).
    pub fn resolve(&self, shape: &[u64]) -> Result<(Selection, Vec<usize>), Error> {
        let dims = match self {
            Extents::All => vec![Extent::ALL; shape.len()],
            Extents::Dims(d) => d.clone(),
        };
        if dims.len() != shape.len() {
            return Err(Error::Extent(format!(
                "{} extents given for a variable of rank {}",
                dims.len(),
                shape.len()
            )));
        }
        let mut sel = Selection::all(shape);
        let mut out_shape = vec![];
        for (d, (extent, &len)) in dims.iter().zip(shape).enumerate() {
            match *extent {
                Extent::Index(i) => {
                    sel.start[d] = i;
                    sel.count[d] = 1;
                }
                Extent::Slice { start, end, step } => {
                    let end = end.unwrap_or(len);
                    if step == 0 {
                        return Err(Error::Extent(format!("step 0 in dimension {d}")));
                    }
                    if start > end {
                        return Err(Error::Extent(format!(
                            "dimension {d}: start {start} > end {end}"
                        )));
                    }
                    sel.start[d] = start;
                    sel.count[d] = (end - start).div_ceil(step);
                    sel.stride[d] = step;
                    out_shape.push(sel.count[d] as usize);
                }
            }
        }
        sel.check(shape, false)?;
        Ok((sel, out_shape))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tuples_and_ranges_resolve_to_selections() {
        let (sel, shape) = (1, .., 2..8).into_extents().resolve(&[3, 4, 10]).unwrap();
        assert_eq!(sel, Selection::block(&[1, 0, 2], &[1, 4, 6]));
        assert_eq!(shape, vec![4, 6]);
        let (sel, shape) = vec![Extent::stepped(1..8, 3)]
            .into_extents()
            .resolve(&[10])
            .unwrap();
        assert_eq!((sel.start[0], sel.count[0], sel.stride[0]), (1, 3, 3));
        assert_eq!(shape, vec![3]);
        assert!((..5,).into_extents().resolve(&[4]).is_err());
        assert!((0, 0).into_extents().resolve(&[4]).is_err());
        assert_eq!(Extents::All.resolve(&[]).unwrap().1, Vec::<usize>::new());
    }
}
