//! HDF5's heaps: the local heap of old-style group names, global heap
//! collections of variable-length data and fractal heaps of dense links
//! and attributes.

pub mod fractal;
pub mod global;
pub mod local;
