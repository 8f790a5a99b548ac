//! What the moto-backed tests share.

use nctk_store_object::{S3Credentials, S3Settings};

/// The settings for `bucket` on the S3 server at `endpoint` (moto takes
/// any key pair).
pub fn settings(endpoint: String, bucket: &str) -> S3Settings {
    S3Settings {
        bucket: bucket.into(),
        region: "us-east-1".into(),
        endpoint: Some(endpoint),
        virtual_hosted: false,
        credentials: S3Credentials::Static {
            access_key_id: "test".into(),
            secret_access_key: "test".into(),
            session_token: None,
        },
    }
}
