//! Icechunk on S3: the region, endpoint and credentials nctk's S3 rules
//! find for a URL ([`nctk::s3_target`], `nctk_store_object::aws`) as
//! icechunk's S3 options and credentials (for a repository written to
//! S3, and for the virtual chunk containers of inputs on S3), and an
//! output prefix that must hold nothing before and holds nothing after a
//! failure.

use icechunk::config::{S3Credentials, S3Options, S3StaticCredentials};
use nctk_store_object::aws::S3Target;
use nctk_store_object::{connect, ObjectKvStore, Remote, RemoteOptions, S3Settings};

/// The settings of the S3 location `target` (the caller names it in
/// errors).
pub fn settings(target: &S3Target) -> std::io::Result<S3Settings> {
    nctk_store_object::aws::resolve(target).map_err(std::io::Error::other)
}

/// icechunk's options for reaching the bucket of `settings`: its region,
/// its endpoint (plain HTTP allowed when the endpoint is, path-style
/// addresses unless the URL named the bucket as a host), unsigned when
/// nctk's rules say so.
pub fn options(settings: &S3Settings) -> S3Options {
    let endpoint = settings.endpoint.clone();
    let mut options = S3Options::default();
    options.region = Some(settings.region.clone());
    options.allow_http = endpoint
        .as_deref()
        .is_some_and(|e| e.starts_with("http://"));
    options.force_path_style = endpoint.is_some() && !settings.virtual_hosted;
    options.endpoint_url = endpoint;
    options.anonymous = settings.credentials == nctk_store_object::S3Credentials::Unsigned;
    options
}

/// icechunk's credentials for `settings`: nctk's key pair, none for
/// unsigned requests, else icechunk's own chain (the environment,
/// instance metadata).
pub fn credentials(settings: &S3Settings) -> S3Credentials {
    match &settings.credentials {
        nctk_store_object::S3Credentials::Unsigned => S3Credentials::Anonymous,
        nctk_store_object::S3Credentials::Static {
            access_key_id,
            secret_access_key,
            session_token,
        } => S3Credentials::Static(S3StaticCredentials {
            access_key_id: access_key_id.clone(),
            secret_access_key: secret_access_key.clone(),
            session_token: session_token.clone(),
            expires_after: None,
        }),
        nctk_store_object::S3Credentials::Chain
        | nctk_store_object::S3Credentials::InstanceMetadata { .. } => S3Credentials::FromEnv,
    }
}

/// The objects under an output's prefix, listed and deleted with nctk's
/// own S3 client (the caller names the prefix in errors).
pub struct Prefix {
    kv: ObjectKvStore,
}

impl Prefix {
    /// The prefix of `target` in the bucket of `settings`, at `url`.
    pub fn new(target: &S3Target, settings: &S3Settings, url: &str) -> std::io::Result<Prefix> {
        let options = RemoteOptions::from_env().map_err(std::io::Error::other)?;
        let store = connect::s3(settings, &options, url).map_err(std::io::Error::other)?;
        let kv = ObjectKvStore::new(Remote::new(store, url, &target.key, options));
        Ok(Prefix { kv })
    }

    /// Nothing is under the prefix, else an error saying how much is
    /// (nothing there is ever replaced).
    pub fn refuse_existing(&self) -> std::io::Result<()> {
        let keys = self.kv.keys().map_err(std::io::Error::other)?;
        if keys.is_empty() {
            return Ok(());
        }
        Err(std::io::Error::new(
            std::io::ErrorKind::AlreadyExists,
            format!(
                "not writing a repository there: {} objects already are (an Icechunk \
                 repository or anything else); delete them or name another prefix",
                keys.len()
            ),
        ))
    }

    /// Deletes everything under the prefix (what a failed write left).
    pub fn remove_all(&self) -> std::io::Result<()> {
        let failed = |e| std::io::Error::other(format!("removing what was written: {e}"));
        let keys = self.kv.keys().map_err(failed)?;
        self.kv.delete_all(&keys).map_err(failed)
    }
}
