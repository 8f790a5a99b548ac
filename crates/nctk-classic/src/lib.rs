//! The classic netCDF formats: CDF-1 (classic), CDF-2 (64-bit offset) and
//! CDF-5 (64-bit data).
//!
//! Which API to use:
//!
//! * reading: [`ClassicReader::from_source`] over any
//!   [`nctk_store::bytes::ByteSource`] (a file, memory, ...), or
//!   [`ClassicReader::from_bytes`]; it implements
//!   [`nctk_model::DataSource`], and [`ClassicReader::read_into`] is the fast
//!   typed path;
//! * writing: [`ClassicWriter`] over any [`nctk_store::bytes::ByteSink`] —
//!   either [`ClassicWriter::create_in_with_schema`] with a whole
//!   [`nctk_model::Schema`] and then `write` calls, or
//!   [`ClassicWriter::create_in`] and define-mode calls
//!   (`add_dimension`, `add_variable`, `put_attribute`, `end_define`);
//!   [`ClassicWriter::open_in`] reopens a file to append or redefine; it
//!   implements [`nctk_model::DataSink`];
//! * checking: [`validate_source`] lists every problem with its byte offset.
//!
//! The crate never names a file: paths and URLs are the facade's (`nctk`).
//!
//! The low-level pieces are public too: [`header`] (a symmetric codec for
//! every header element, with no I/O) and [`layout`] (begin/vsize/recsize
//! math and netCDF-C's placement rules).

pub mod compressed;
mod error;
pub mod header;
pub mod layout;
mod native;
mod reader;
mod refs;
mod sink;
mod validate;
mod version;
mod writer;

pub use error::{ClassicError, Result};
pub use reader::ClassicReader;
pub use validate::{validate_source, Finding, Severity};
pub use version::Version;
pub use writer::{ClassicWriter, FillMode};
