//! Data payloads <-> values: [`decode`] and [`encode`].

pub mod decode;
pub mod encode;
