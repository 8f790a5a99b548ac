//! Header messages <-> schemas: [`decode`] (a header to a `Schema`) and
//! [`encode`] (a `Schema` to a header).

pub mod decode;
pub mod encode;
