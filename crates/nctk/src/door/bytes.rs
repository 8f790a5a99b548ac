//! `#mode=bytes`: a single file read by range requests from an HTTP(S)
//! server or from S3 ([`RemoteSource`]).
//!
//! * `http://host/path/x.nc#mode=bytes`, `https://...`: the file at that
//!   URL on a plain HTTP server (any host that is not an AWS S3 host);
//! * `s3://bucket/key#mode=bytes`, `https://s3.<region>.amazonaws.com/bucket/key#mode=bytes`,
//!   `https://bucket.s3.<region>.amazonaws.com/key#mode=bytes`: the object
//!   through the S3 API, with the region, profile and credentials
//!   [`aws::resolve`] finds (fragment keys `aws.region`, `aws.profile`);
//! * `http://127.0.0.1:9000/bucket/key#mode=bytes,s3`: the object through
//!   the S3 API of an S3-compatible server (the `s3` mode flag asks for it,
//!   as it does for a store).

use nctk_store_object::aws::{self, S3Target};
use nctk_store_object::{connect, Remote, RemoteOptions, RemoteSource};

use super::url::{self, S3Location, StoreLocation, Target};
use super::{open_error, unsupported};
use crate::{Error, OpenOptions};

/// The byte source `url` names (the URL without its fragment; `fragment`
/// the fragment's parsed pairs); `name` is the text as given, for errors.
pub(super) fn source(
    url: &str,
    fragment: &[(String, String)],
    name: &str,
    open_options: &OpenOptions,
) -> Result<RemoteSource, Error> {
    let options = super::remote_options(open_options, name)?;
    let (scheme, rest) = url.split_once("://").unwrap_or(("", url));
    let scheme = scheme.to_ascii_lowercase();
    let host = rest.split('/').next().unwrap_or("").to_ascii_lowercase();
    let host = host.split(':').next().unwrap_or("");
    let s3_mode = fragment_value(fragment, "mode")
        .is_some_and(|m| m.split(',').any(|f| f.eq_ignore_ascii_case("s3")));
    let s3 = scheme == "s3" || host.ends_with(".amazonaws.com") || s3_mode;
    match scheme.as_str() {
        _ if s3 => s3_source(url, fragment, name, options),
        "http" | "https" => {
            let (authority, path) = rest.split_once('/').unwrap_or((rest, ""));
            let path = path.split(['?', '#']).next().unwrap_or("");
            if path.is_empty() {
                return Err(unsupported(name, "mode=bytes needs the path of a file"));
            }
            let base = format!("{scheme}://{authority}");
            let store = connect::http(&base, &options).map_err(|e| open_error(name, e))?;
            Ok(RemoteSource::new(
                &Remote::new(store, base, "", options),
                path,
            ))
        }
        other => Err(unsupported(
            name,
            format!("mode=bytes reads http, https and s3 URLs, not {other:?}"),
        )),
    }
}

/// The value of fragment key `key` (case-insensitive), when not empty.
fn fragment_value(fragment: &[(String, String)], key: &str) -> Option<String> {
    fragment
        .iter()
        .find(|(k, v)| k.eq_ignore_ascii_case(key) && !v.is_empty())
        .map(|(_, v)| v.clone())
}

/// The S3 location an `s3://` or AWS `https://` URL names, read by the
/// door's URL parser (as it reads an S3 store's URL).
fn s3_location(url: &str, name: &str) -> Result<S3Location, Error> {
    let parsed = url::parse(&format!("{url}#mode=nczarr,s3")).map_err(|e| open_error(name, e))?;
    match parsed.target {
        Target::Zarr(z) => match z.location {
            StoreLocation::S3(loc) => Ok(loc),
            _ => Err(unsupported(name, "not an S3 URL")),
        },
        _ => Err(unsupported(name, "not an S3 URL")),
    }
}

/// An object an S3 URL names: the bucket's target, the key, and the URL
/// of the bucket as written (errors name the object by it).
#[derive(Debug, PartialEq)]
struct S3Object {
    target: S3Target,
    key: String,
    base: String,
}

/// What an S3 URL (`s3://`, or an AWS `https://` host) names.
fn s3_object(url: &str, fragment: &[(String, String)], name: &str) -> Result<S3Object, Error> {
    let loc = s3_location(url, name)?;
    if loc.key.is_empty() {
        return Err(unsupported(name, "mode=bytes needs the key of an object"));
    }
    let base = url
        .strip_suffix(loc.key.as_str())
        .map(|b| b.trim_end_matches('/').to_string())
        .unwrap_or_else(|| format!("s3://{}", loc.bucket));
    let mut target = loc.target();
    target.region = fragment_value(fragment, "aws.region").or(target.region);
    target.profile = fragment_value(fragment, "aws.profile");
    Ok(S3Object {
        target,
        key: loc.key,
        base,
    })
}

/// The object an S3 URL names, through the S3 API.
fn s3_source(
    url: &str,
    fragment: &[(String, String)],
    name: &str,
    options: RemoteOptions,
) -> Result<RemoteSource, Error> {
    let object = s3_object(url, fragment, name)?;
    let settings = aws::resolve(&object.target).map_err(|e| open_error(name, e))?;
    let store = connect::s3(&settings, &options, url).map_err(|e| open_error(name, e))?;
    let remote = Remote::new(store, object.base, "", options);
    Ok(RemoteSource::new(&remote, &object.key))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn object(url: &str) -> S3Object {
        let parsed = url::parse(url).unwrap();
        let Target::Bytes(bare) = parsed.target else {
            panic!("{url}: not a bytes target");
        };
        s3_object(&bare, &parsed.fragment, url).unwrap()
    }

    /// The URL forms of netCDF-C's S3 documentation (`nczarr.md`, "Amazon
    /// S3 URLs"), with `#mode=bytes`.
    #[test]
    fn s3_url_forms() {
        let o = object("s3://bkt/dir/x.nc#mode=bytes");
        assert_eq!(
            (o.target.bucket.as_str(), o.key.as_str()),
            ("bkt", "dir/x.nc")
        );
        assert_eq!(
            (o.target.endpoint.as_ref(), o.target.virtual_hosted),
            (None, false)
        );
        assert_eq!(o.base, "s3://bkt");
        let o = object("https://s3.us-west-2.amazonaws.com/bkt/x.nc#mode=bytes");
        assert_eq!((o.target.bucket.as_str(), o.key.as_str()), ("bkt", "x.nc"));
        assert_eq!(o.target.region.as_deref(), Some("us-west-2"));
        assert!(!o.target.virtual_hosted && o.target.endpoint.is_none());
        let o = object(
            "https://bkt.s3.eu-west-1.amazonaws.com/a/x.nc#mode=bytes&aws.profile=none&aws.region=eu-north-1",
        );
        assert_eq!(
            (o.target.bucket.as_str(), o.key.as_str()),
            ("bkt", "a/x.nc")
        );
        assert!(o.target.virtual_hosted);
        assert_eq!(o.target.region.as_deref(), Some("eu-north-1"));
        assert_eq!(o.target.profile.as_deref(), Some("none"));
        assert_eq!(o.base, "https://bkt.s3.eu-west-1.amazonaws.com");
    }

    #[test]
    fn other_hosts_are_s3_endpoints_with_mode_s3() {
        let o = object("http://127.0.0.1:9000/bkt/d/x.nc#mode=bytes,s3");
        assert_eq!(
            (o.target.bucket.as_str(), o.key.as_str()),
            ("bkt", "d/x.nc")
        );
        assert_eq!(o.target.endpoint.as_deref(), Some("http://127.0.0.1:9000"));
        assert_eq!(o.base, "http://127.0.0.1:9000/bkt");
    }

    #[test]
    fn bad_byte_urls_are_refused() {
        for url in [
            "s3://bkt#mode=bytes",
            "https://host#mode=bytes",
            "ftp://h/x.nc#mode=bytes",
        ] {
            let e = match url::parse(url) {
                Ok(parsed) => match parsed.target {
                    Target::Bytes(bare) => {
                        source(&bare, &parsed.fragment, url, &OpenOptions::default()).unwrap_err()
                    }
                    other => panic!("{url}: {other:?}"),
                },
                Err(e) => open_error(url, e),
            };
            assert!(
                e.to_string().contains(url.split('#').next().unwrap()),
                "{url}: {e}"
            );
        }
    }
}
