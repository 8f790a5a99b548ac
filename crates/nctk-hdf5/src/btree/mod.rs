//! HDF5's B-trees: version 1 (old-style group indexes and the chunk index
//! of layout messages before version 4) and version 2.

pub mod v1;
pub mod v2;
