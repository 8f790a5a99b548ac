//! Building the object store a URL names: S3 from [`S3Settings`] (see
//! [`crate::aws`]), GCS, Azure and plain HTTP(S) from their URL and the
//! environment (`cloud`).
//!
//! Which service a URL names ([`cloud_service`]) and the settings of an S3
//! bucket ([`S3Settings`]) need no network and are here in every build;
//! building a store (`s3`, `http`, `cloud`) needs the `connect` feature.

#[cfg(feature = "connect")]
mod build;
#[cfg(feature = "connect")]
pub mod gcs;
#[cfg(feature = "connect")]
pub mod imds;

pub use crate::service::{cloud_service, Access, CloudService, HTTP_READ_ONLY};
pub use crate::settings::{S3Credentials, S3Settings};
#[cfg(feature = "connect")]
pub use build::{cloud, http, s3};
