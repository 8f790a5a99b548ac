//! Where an S3 URL's bucket, key and region are: netCDF-C's URL forms
//! (`NC_s3urlrebuild` in `libdispatch/ds3util.c`).
//!
//! * Virtual: `https://<bucket>.s3.<region>.amazonaws.com/<key>` and
//!   `https://<bucket>.s3.amazonaws.com/<key>` (region from elsewhere);
//! * Path: `https://s3.<region>.amazonaws.com/<bucket>/<key>` and
//!   `https://s3.amazonaws.com/<bucket>/<key>`;
//! * S3: `s3://<bucket>/<key>` (and `gs3://<bucket>/<key>`: Google Cloud
//!   Storage through its S3-compatible API at `storage.googleapis.com`);
//!   an `s3://` URL whose host is an AWS host is read as that host's form
//!   (`s3://s3.us-west-1.amazonaws.com/bucket`), as netCDF-C does; unlike
//!   netCDF-C, which reads any dotted `s3://` host as another server, a
//!   dotted bucket (`s3://my.bucket/key`) stays a bucket;
//! * Other: `https://<host>/<bucket>/<key>`, an S3-compatible server; a
//!   host `s3.<region>.<domain>` names the region, as netCDF-C reads it.
//!
//! Beyond netCDF-C, which rejects them, dotted bucket names in a virtual
//! host (`my.bucket.s3.<region>.amazonaws.com`) and the legacy
//! `s3-<region>` host segment are read too.

/// The host AWS's S3 endpoints end with.
pub const AWS_HOST_SUFFIX: &str = ".amazonaws.com";

/// The suffix of AWS's hosts in its China regions (`*.amazonaws.com.cn`).
pub const AWS_CN_HOST_SUFFIX: &str = ".amazonaws.com.cn";

/// The host of Google Cloud Storage's S3-compatible API.
pub const GOOGLE_HOST: &str = "storage.googleapis.com";

/// How an S3 URL names its bucket.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum S3Style {
    /// `https://<bucket>.s3.<region>.amazonaws.com/<key>`.
    Virtual,
    /// `https://s3.<region>.amazonaws.com/<bucket>/<key>`.
    Path,
    /// `s3://<bucket>/<key>` (or `gs3://`).
    S3,
    /// Another host, path style: `https://<host>/<bucket>/<key>`.
    Other,
}

/// What an S3 URL's host and path say.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct S3Address {
    /// The addressing style.
    pub style: S3Style,
    /// The host as written, with its port (`None` for `s3://`, `gs3://`).
    pub host: Option<String>,
    /// The bucket.
    pub bucket: String,
    /// The key within the bucket (no leading or trailing `/`; may be empty).
    pub key: String,
    /// The region the host names.
    pub region: Option<String>,
}

impl S3Address {
    /// The endpoint requests go to for a URL with `scheme`: `None` for
    /// AWS, `https://storage.googleapis.com` for `gs3://`, and
    /// `scheme://host[:port]` for another host.
    pub fn endpoint(&self, scheme: &str) -> Option<String> {
        match (self.style, &self.host) {
            (S3Style::S3, _) if scheme.eq_ignore_ascii_case("gs3") => {
                Some(format!("https://{GOOGLE_HOST}"))
            }
            (S3Style::Other, Some(host)) => Some(format!(
                "{}://{}",
                scheme.to_ascii_lowercase(),
                host.to_ascii_lowercase()
            )),
            _ => None,
        }
    }
}

/// Reads an S3 URL from its scheme (`s3`, `gs3`, `http`, `https`), its
/// authority (`host[:port]`, user info allowed and dropped) and its path
/// (decoded, without the leading `/`). The error says what is missing.
pub fn parse_address(scheme: &str, authority: &str, path: &str) -> Result<S3Address, String> {
    let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let host_noport = host_name(authority);
    if host_noport.is_empty() {
        return Err("no host or bucket".into());
    }
    let path = path.trim_matches('/');
    let aws_host = host_noport.ends_with(AWS_HOST_SUFFIX);
    if (scheme.eq_ignore_ascii_case("s3") && !aws_host) || scheme.eq_ignore_ascii_case("gs3") {
        return Ok(S3Address {
            style: S3Style::S3,
            host: None,
            bucket: host.to_string(),
            key: path.to_string(),
            region: None,
        });
    }
    let split_bucket = |path: &str| -> Result<(String, String), String> {
        let (b, k) = path.split_once('/').unwrap_or((path, ""));
        if b.is_empty() {
            return Err("no bucket in the URL's path".into());
        }
        Ok((b.to_string(), k.to_string()))
    };
    let address = |style, bucket: String, key: String, region: Option<String>| S3Address {
        style,
        host: Some(host.to_string()),
        bucket,
        key,
        region,
    };
    // The region after an `s3` segment (`s3.<region>` or legacy `s3-<region>`).
    let region_at = |parts: &[&str], i: usize| {
        parts
            .get(i + 1)
            .map(|r| r.to_string())
            .or_else(|| parts[i].strip_prefix("s3-").map(str::to_string))
    };
    let is_s3 = |p: &str| p == "s3" || p.starts_with("s3-");
    if let Some(aws) = host_noport.strip_suffix(AWS_HOST_SUFFIX) {
        // Also `s3://s3.<region>.amazonaws.com/<bucket>` (the seed's ncgen
        // example): an s3:// URL whose host is an AWS host.
        let parts: Vec<&str> = aws.split('.').collect();
        if is_s3(parts[0]) {
            let (bucket, key) = split_bucket(path)?;
            return Ok(address(S3Style::Path, bucket, key, region_at(&parts, 0)));
        }
        if let Some(i) = parts.iter().position(|p| is_s3(p)) {
            let bucket = parts[..i].join(".");
            return Ok(address(
                S3Style::Virtual,
                bucket,
                path.to_string(),
                region_at(&parts, i),
            ));
        }
    }
    let (bucket, key) = split_bucket(path)?;
    // netCDF-C's format (10): `s3.<region>.<domain>` names the region.
    let parts: Vec<&str> = host_noport.split('.').collect();
    let region = (parts.len() > 2 && parts[0] == "s3").then(|| parts[1].to_string());
    Ok(address(S3Style::Other, bucket, key, region))
}

/// The host name of an authority (`user@host:port`), in lower case.
fn host_name(authority: &str) -> String {
    let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    host.split_once(':')
        .map_or(host, |(h, _)| h)
        .to_ascii_lowercase()
}

/// Whether an authority (`user@host:port`) is AWS's S3 (`*.amazonaws.com`)
/// or Google's S3-compatible API (`storage.googleapis.com`): netCDF-C
/// reads such a URL as S3 whatever its mode (`NC_iss3`).
pub fn is_s3_host(authority: &str) -> bool {
    let host = host_name(authority);
    host.ends_with(AWS_HOST_SUFFIX) || host == GOOGLE_HOST
}

/// Whether an authority is AWS's (`*.amazonaws.com`).
pub fn is_aws_host(authority: &str) -> bool {
    host_name(authority).ends_with(AWS_HOST_SUFFIX)
}

/// Whether the endpoint URL `endpoint` (`scheme://authority/...`) is on an
/// AWS host, in any partition (`*.amazonaws.com`, `*.amazonaws.com.cn`):
/// one whose clients may be EC2 instances with credentials from the
/// instance metadata service.
pub fn is_aws_endpoint(endpoint: &str) -> bool {
    let rest = endpoint.split_once("://").map_or(endpoint, |(_, r)| r);
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let host = host_name(authority);
    host.ends_with(AWS_HOST_SUFFIX) || host.ends_with(AWS_CN_HOST_SUFFIX)
}
