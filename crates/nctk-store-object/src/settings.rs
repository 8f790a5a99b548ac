//! The plain settings of one S3 bucket: what [`crate::aws::resolve`]
//! finds and what the S3 store is built from.

/// How S3 requests are signed.
#[derive(Clone, PartialEq, Eq)]
pub enum S3Credentials {
    /// Unsigned requests (netCDF-C's profile `none`/`no`): public objects.
    Unsigned,
    /// A key pair (and session token) from a profile or the environment.
    Static {
        /// `aws_access_key_id`.
        access_key_id: String,
        /// `aws_secret_access_key`.
        secret_access_key: String,
        /// `aws_session_token`, when the credentials are temporary.
        session_token: Option<String>,
    },
    /// `object_store`'s own chain, for when neither a profile nor the
    /// environment holds a key pair but the environment names a web
    /// identity token or a container's credentials endpoint
    /// (`AWS_WEB_IDENTITY_TOKEN_FILE`, `AWS_CONTAINER_CREDENTIALS_*`).
    Chain,
    /// The EC2 instance metadata service (IMDSv2), for an AWS host when
    /// nothing else gives credentials: asked once, with a short timeout,
    /// and its credentials kept until shortly before they expire.
    InstanceMetadata {
        /// The service's address (`AWS_EC2_METADATA_SERVICE_ENDPOINT`, else
        /// [`crate::aws::METADATA_ENDPOINT`]), without a trailing `/`.
        endpoint: String,
        /// The profile looked in before it (named when it gives none).
        profile: String,
        /// The configuration and credentials files looked in before it.
        files: Vec<String>,
    },
}

impl std::fmt::Debug for S3Credentials {
    /// Never prints a secret.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            S3Credentials::Unsigned => f.write_str("Unsigned"),
            S3Credentials::Static { access_key_id, .. } => f
                .debug_struct("Static")
                .field("access_key_id", access_key_id)
                .finish_non_exhaustive(),
            S3Credentials::Chain => f.write_str("Chain"),
            S3Credentials::InstanceMetadata { endpoint, .. } => f
                .debug_struct("InstanceMetadata")
                .field("endpoint", endpoint)
                .finish_non_exhaustive(),
        }
    }
}

/// Everything needed to reach one S3 bucket.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct S3Settings {
    /// The bucket.
    pub bucket: String,
    /// The region requests are signed for.
    pub region: String,
    /// An S3-compatible endpoint (`http://127.0.0.1:9000`); `None` for AWS.
    pub endpoint: Option<String>,
    /// Address the bucket as `https://<bucket>.<endpoint>` rather than
    /// `https://<endpoint>/<bucket>`.
    pub virtual_hosted: bool,
    /// How requests are signed.
    pub credentials: S3Credentials,
}
