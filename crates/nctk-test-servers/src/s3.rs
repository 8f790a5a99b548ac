//! The little S3 a test needs to see: percent-encoding for keys, paths
//! and queries, and the keys of a `ListObjectsV2` answer (also what
//! fake-gcs-server's XML API answers).

use bytes::Bytes;
use hyper::Method;

use crate::error::{Error, Result};
use crate::process::Driver;

/// `text` percent-encoded, keeping RFC 3986's unreserved characters and
/// the bytes of `keep` (`"/"` for a key in a path).
pub(crate) fn encode(text: &str, keep: &[u8]) -> String {
    let mut out = String::with_capacity(text.len());
    for &b in text.as_bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) || keep.contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// `text` with its `%XX` escapes decoded; `None` when an escape is
/// broken or the bytes are not UTF-8.
pub(crate) fn decode(text: &str) -> Option<String> {
    let mut out = Vec::with_capacity(text.len());
    let mut bytes = text.bytes();
    while let Some(b) = bytes.next() {
        if b == b'%' {
            let hex = [bytes.next()?, bytes.next()?];
            out.push(u8::from_str_radix(std::str::from_utf8(&hex).ok()?, 16).ok()?);
        } else {
            out.push(b);
        }
    }
    String::from_utf8(out).ok()
}

/// One page of a `ListObjectsV2` answer.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Page {
    /// The keys listed, in order.
    pub(crate) keys: Vec<String>,
    /// The token for the next page, when the listing is truncated.
    pub(crate) next: Option<String>,
}

/// The text of each `<tag ...>...</tag>` element in `xml`, in order (an
/// empty `<tag/>` gives ""; the elements a listing has are never nested
/// in themselves).
fn elements<'a>(xml: &'a str, tag: &str) -> Result<Vec<&'a str>, String> {
    let (open, close) = (format!("<{tag}"), format!("</{tag}>"));
    let mut out = vec![];
    let mut rest = xml;
    while let Some(at) = rest.find(&open) {
        let after = &rest[at + open.len()..];
        // `<tag` must be the whole name: `<Key` is not `<KeyCount`.
        if !after.starts_with(['>', '/', ' ', '\t', '\r', '\n']) {
            rest = after;
            continue;
        }
        let gt = after
            .find('>')
            .ok_or_else(|| format!("<{tag} is not closed"))?;
        if after[..gt].ends_with('/') {
            out.push("");
            rest = &after[gt + 1..];
            continue;
        }
        let body = &after[gt + 1..];
        let end = body
            .find(&close)
            .ok_or_else(|| format!("<{tag}> is not closed"))?;
        out.push(&body[..end]);
        rest = &body[end + close.len()..];
    }
    Ok(out)
}

/// The one `<tag>` element's text, if there is one.
fn element<'a>(xml: &'a str, tag: &str) -> Result<Option<&'a str>, String> {
    match elements(xml, tag)?.as_slice() {
        [] => Ok(None),
        [one] => Ok(Some(one)),
        _ => Err(format!("more than one <{tag}>")),
    }
}

/// XML character data with its five entities and character references
/// replaced.
fn unescape(text: &str) -> Result<String, String> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        let end = rest[at..]
            .find(';')
            .ok_or_else(|| format!("unterminated entity in {text:?}"))?;
        let name = &rest[at + 1..at + end];
        let c = match name {
            "amp" => '&',
            "lt" => '<',
            "gt" => '>',
            "quot" => '"',
            "apos" => '\'',
            _ => name
                .strip_prefix("#x")
                .map(|h| u32::from_str_radix(h, 16))
                .or_else(|| name.strip_prefix('#').map(str::parse))
                .and_then(|n| n.ok())
                .and_then(char::from_u32)
                .ok_or_else(|| format!("unknown entity &{name}; in {text:?}"))?,
        };
        out.push(c);
        rest = &rest[at + end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// Parses a `ListObjectsV2` answer (`<ListBucketResult>`).
pub(crate) fn parse_list_page(xml: &str) -> Result<Page, String> {
    let result = element(xml, "ListBucketResult")?
        .ok_or("no <ListBucketResult> (not a ListObjectsV2 answer)")?;
    let keys = elements(result, "Contents")?
        .into_iter()
        .map(|contents| {
            element(contents, "Key")?
                .ok_or_else(|| "a <Contents> without <Key>".to_owned())
                .and_then(unescape)
        })
        .collect::<Result<_, _>>()?;
    let truncated = match element(result, "IsTruncated")? {
        None | Some("false") => false,
        Some("true") => true,
        Some(other) => return Err(format!("<IsTruncated>{other}</IsTruncated>")),
    };
    let next = match (truncated, element(result, "NextContinuationToken")?) {
        (false, _) => None,
        (true, Some(token)) if !token.is_empty() => Some(unescape(token)?),
        (true, _) => return Err("truncated without <NextContinuationToken>".into()),
    };
    Ok(Page { keys, next })
}

/// Every key under `bucket_url` (an S3-style bucket URL, `ListObjectsV2`)
/// that starts with `prefix`, following continuation tokens.
pub(crate) fn list_keys(driver: &Driver, bucket_url: &str, prefix: &str) -> Result<Vec<String>> {
    let mut keys = vec![];
    let mut token: Option<String> = None;
    loop {
        let mut url = format!("{bucket_url}?list-type=2&prefix={}", encode(prefix, b""));
        if let Some(token) = &token {
            url.push_str(&format!("&continuation-token={}", encode(token, b"")));
        }
        let body = driver.expect_ok(Method::GET, url.clone(), &[], Bytes::new())?;
        let page = std::str::from_utf8(&body)
            .map_err(|e| e.to_string())
            .and_then(parse_list_page)
            .map_err(|reason| Error::Malformed {
                url: url.clone(),
                reason,
            })?;
        keys.extend(page.keys);
        match page.next {
            Some(next) if token.as_ref() == Some(&next) => {
                return Err(Error::Malformed {
                    url,
                    reason: format!("the continuation token {next:?} repeats"),
                })
            }
            Some(next) => token = Some(next),
            None => return Ok(keys),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The example response of the `ListObjectsV2` API reference (the S3
    /// API documentation's "Example 1" with a continuation), keys with
    /// entities.
    #[test]
    fn reads_a_list_objects_v2_page() {
        let xml = r#"<?xml version="1.0" encoding="UTF-8"?>
<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">
  <Name>bucket</Name>
  <Prefix/>
  <KeyCount>2</KeyCount>
  <MaxKeys>2</MaxKeys>
  <IsTruncated>true</IsTruncated>
  <NextContinuationToken>1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=</NextContinuationToken>
  <Contents>
    <Key>happy face.jpg</Key>
    <LastModified>2014-11-21T19:40:05.000Z</LastModified>
    <ETag>&quot;70ee1738b6b21e2c8a43f3a5ab0eee71&quot;</ETag>
    <Size>11</Size>
    <StorageClass>STANDARD</StorageClass>
  </Contents>
  <Contents>
    <Key>a&amp;b/&#x3C;c&#62;.zarr/.zarray</Key>
    <Size>142863</Size>
  </Contents>
</ListBucketResult>"#;
        let page = parse_list_page(xml).unwrap();
        assert_eq!(page.keys, ["happy face.jpg", "a&b/<c>.zarr/.zarray"]);
        assert_eq!(
            page.next.as_deref(),
            Some("1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=")
        );
        let last = xml.replace("<IsTruncated>true", "<IsTruncated>false");
        assert_eq!(parse_list_page(&last).unwrap().next, None);
    }

    /// Answers that are not a listing, or a broken one, are errors.
    #[test]
    fn malformed_listings_are_errors() {
        for (xml, reason) in [
            (
                "<Error><Code>NoSuchBucket</Code></Error>",
                "no <ListBucketResult>",
            ),
            (
                "<ListBucketResult><Contents><Key>a</Contents></ListBucketResult>",
                "<Key> is not closed",
            ),
            (
                "<ListBucketResult><IsTruncated>true</IsTruncated></ListBucketResult>",
                "without <NextContinuationToken>",
            ),
            (
                "<ListBucketResult><Contents><Key>a&bogus;</Key></Contents></ListBucketResult>",
                "unknown entity &bogus;",
            ),
        ] {
            let e = parse_list_page(xml).unwrap_err();
            assert!(e.contains(reason), "{xml}: {e}");
        }
    }

    /// RFC 3986's unreserved characters pass; everything else is `%XX`
    /// of its UTF-8 bytes, as the RFC's section 2.5 example (`\u{C0}`, A with grave, is `%C3%80`).
    #[test]
    fn percent_encoding_as_rfc_3986() {
        assert_eq!(encode("a-b_c.d~e", b""), "a-b_c.d~e");
        assert_eq!(encode("a b/c+d", b"/"), "a%20b/c%2Bd");
        assert_eq!(encode("a/b", b""), "a%2Fb");
        assert_eq!(encode("\u{C0}", b""), "%C3%80");
    }

    /// Decoding undoes encoding, whatever is kept; broken escapes and
    /// bytes that are not UTF-8 are refused.
    #[test]
    fn percent_decoding_undoes_encoding() {
        for text in ["", "a b/c+d", "%", "\u{C0}/\u{1F600}?&=#", "a%2Fb"] {
            for keep in [&b""[..], b"/"] {
                assert_eq!(decode(&encode(text, keep)).as_deref(), Some(text));
            }
        }
        for bad in ["%", "%4", "%zz", "%C3"] {
            assert_eq!(decode(bad), None, "{bad}");
        }
    }
}
