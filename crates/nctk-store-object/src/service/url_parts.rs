//! The parts of a URL that `object_store`'s rules read (scheme, host,
//! path), as the WHATWG URL parser (the `url` crate `object_store` parses
//! with) reads them, for `http`/`https` and for the schemes without
//! special rules (`gs`, `az`, ...): without the `url` crate, whose
//! internationalised host names bring in the ICU tables.
//!
//! Read as `url` reads them: leading and trailing control characters and
//! spaces are ignored, tabs and newlines anywhere; the scheme is case-
//! insensitive; `http(s):` takes any run of `/` and `\` before the host,
//! other schemes need `//`; user information before the last `@` is
//! skipped; a port is digits up to 65535; `.` and `..` path segments
//! (also written `%2e`) are resolved; the query and fragment are dropped.
//! An `http(s)` host is percent-decoded, lower-cased, checked against the
//! forbidden domain characters and read as an IPv4 address when it ends in
//! a number; an IPv6 address is checked in brackets.
//!
//! Not done: the IDNA mapping of an internationalised host name (or an
//! `xn--` label), which is taken as written (lower-cased); such a name that
//! `url` would refuse, or map onto another name, is read here by its text.

use std::net::{Ipv4Addr, Ipv6Addr};

/// What a URL with a host says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Parts {
    /// The scheme, lower case.
    pub(super) scheme: String,
    /// The host (never empty): an `http(s)` domain lower case, an IPv4
    /// address dotted; other hosts as written.
    pub(super) host: String,
    /// The path (`/`-separated, from `/` unless empty), dot segments
    /// resolved, percent escapes kept.
    pub(super) path: String,
}

/// `url`'s parts, or `None` when `url` reads it as no URL, or as one with
/// no host, or when its scheme is `file`, `ftp`, `ws` or `wss` (special
/// schemes other than `http(s)`, not read here).
pub(super) fn parse(url: &str) -> Option<Parts> {
    let url: String = url
        .trim_matches(|c: char| c <= ' ')
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
        .collect();
    let (scheme, rest) = url.split_once(':')?;
    let mut chars = scheme.chars();
    let valid_scheme = chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    if !valid_scheme {
        return None;
    }
    let scheme = scheme.to_ascii_lowercase();
    let special = match scheme.as_str() {
        "http" | "https" => true,
        "file" | "ftp" | "ws" | "wss" => return None,
        _ => false,
    };
    let ends_authority = |c: char| matches!(c, '/' | '?' | '#') || (special && c == '\\');
    let rest = if special {
        rest.trim_start_matches(['/', '\\'])
    } else {
        rest.strip_prefix("//")?
    };
    let authority_end = rest.find(ends_authority).unwrap_or(rest.len());
    let rest = match rest[..authority_end].rfind('@') {
        Some(at) => &rest[at + 1..],
        None => rest,
    };
    let (host, rest) = split_host(rest, ends_authority);
    if host.is_empty() {
        return None;
    }
    let host = if special {
        special_host(host)?
    } else {
        opaque_host(host)?
    };
    let rest = match rest.strip_prefix(':') {
        Some(port) => skip_port(port)?,
        None => rest,
    };
    let path_end = rest.find(['?', '#']).unwrap_or(rest.len());
    Some(Parts {
        scheme,
        host,
        path: resolve_path(&rest[..path_end], special),
    })
}

/// The host at the start of `rest` (up to a `:` outside brackets or the
/// end of the authority) and what follows it.
fn split_host(rest: &str, ends_authority: impl Fn(char) -> bool) -> (&str, &str) {
    let mut in_brackets = false;
    for (i, c) in rest.char_indices() {
        match c {
            ':' if !in_brackets => return rest.split_at(i),
            '[' => in_brackets = true,
            ']' => in_brackets = false,
            c if ends_authority(c) => return rest.split_at(i),
            _ => {}
        }
    }
    (rest, "")
}

/// What follows a port (`None` when it is not one: a character other than
/// a digit before the path, or above 65535).
fn skip_port(port: &str) -> Option<&str> {
    let end = port
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(port.len());
    let (digits, rest) = port.split_at(end);
    let valid_end = rest.is_empty() || rest.starts_with(['/', '\\', '?', '#']);
    let value = digits.trim_start_matches('0');
    let in_range = value.len() <= 5 && value.parse::<u32>().map_or(true, |p| p <= 65535);
    (valid_end && in_range).then_some(rest)
}

/// An `http(s)` host as `url` normalises it (`None`: not a host).
fn special_host(host: &str) -> Option<String> {
    if host.starts_with('[') {
        return ipv6(host);
    }
    let decoded = String::from_utf8(percent_decode(host)).ok()?;
    let forbidden = |c: char| {
        c <= ' '
            || c == '\u{7f}'
            || matches!(
                c,
                '%' | '#' | '/' | ':' | '<' | '>' | '?' | '@' | '[' | '\\' | ']' | '^' | '|'
            )
    };
    if decoded.is_empty() || decoded.contains(forbidden) {
        return None;
    }
    let domain = decoded.to_ascii_lowercase();
    if ends_in_a_number(&domain) {
        return ipv4(&domain).map(|a| a.to_string());
    }
    Some(domain)
}

/// A host of a scheme without special rules (`None`: not a host).
fn opaque_host(host: &str) -> Option<String> {
    if host.starts_with('[') {
        return ipv6(host);
    }
    let forbidden = |c: char| {
        matches!(
            c,
            '\0' | ' ' | '#' | '/' | ':' | '<' | '>' | '?' | '@' | '[' | '\\' | ']' | '^' | '|'
        )
    };
    (!host.contains(forbidden)).then(|| host.to_string())
}

/// A bracketed IPv6 address, lower case (`None`: not one).
fn ipv6(host: &str) -> Option<String> {
    let inner = host.strip_prefix('[')?.strip_suffix(']')?;
    inner.parse::<Ipv6Addr>().ok()?;
    Some(host.to_ascii_lowercase())
}

/// Whether the last label of `domain` (a trailing dot aside) is a number,
/// so that the host must be an IPv4 address.
fn ends_in_a_number(domain: &str) -> bool {
    let domain = domain.strip_suffix('.').unwrap_or(domain);
    let last = domain.rsplit('.').next().unwrap_or("");
    (!last.is_empty() && last.bytes().all(|b| b.is_ascii_digit())) || ipv4_number(last).is_some()
}

/// A WHATWG IPv4 address: one to four numbers (decimal, `0x` hex or
/// `0`-led octal), the last filling the remaining bytes.
fn ipv4(domain: &str) -> Option<Ipv4Addr> {
    let domain = domain.strip_suffix('.').unwrap_or(domain);
    let parts: Vec<&str> = domain.split('.').collect();
    if parts.len() > 4 {
        return None;
    }
    let numbers = parts
        .iter()
        .map(|p| ipv4_number(p)?)
        .collect::<Option<Vec<u32>>>()?;
    let (last, leading) = numbers.split_last()?;
    if leading.iter().any(|&n| n > 255) || *last > u32::MAX >> (8 * leading.len()) {
        return None;
    }
    let address = leading
        .iter()
        .enumerate()
        .fold(*last, |a, (i, &n)| a + (n << (8 * (3 - i))));
    Some(Ipv4Addr::from(address))
}

/// One number of an IPv4 address: `None` when it is not a number,
/// `Some(None)` when it is one beyond `u32`.
fn ipv4_number(text: &str) -> Option<Option<u32>> {
    if text.is_empty() {
        return None;
    }
    let (digits, radix) =
        if let Some(hex) = text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
            (hex, 16)
        } else if text.len() >= 2 && text.starts_with('0') {
            (&text[1..], 8)
        } else {
            (text, 10)
        };
    if digits.is_empty() {
        return Some(Some(0));
    }
    if !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    Some(u32::from_str_radix(digits, radix).ok())
}

/// The path `url` keeps from `path` (the text between the authority and
/// the query): segments split at `/` (and `\` in `http(s)`), `.` dropped,
/// `..` dropping the segment before it.
fn resolve_path(path: &str, special: bool) -> String {
    if path.is_empty() && !special {
        return String::new();
    }
    let separator = |c: char| c == '/' || (special && c == '\\');
    let path = match path.chars().next() {
        Some(c) if separator(c) => &path[1..],
        _ => path,
    };
    let is = |segment: &str, dots: &[&str]| dots.iter().any(|d| segment.eq_ignore_ascii_case(d));
    let segments: Vec<&str> = path.split(separator).collect();
    let mut kept: Vec<&str> = Vec::with_capacity(segments.len());
    for (i, segment) in segments.iter().enumerate() {
        let last = i + 1 == segments.len();
        if is(segment, &["..", ".%2e", "%2e.", "%2e%2e"]) {
            kept.pop();
            if last {
                kept.push("");
            }
        } else if is(segment, &[".", "%2e"]) {
            if last {
                kept.push("");
            }
        } else {
            kept.push(segment);
        }
    }
    kept.iter().map(|s| format!("/{s}")).collect()
}

/// `text` with its `%XX` escapes decoded (a `%` not followed by two hex
/// digits stays as it is).
pub(super) fn percent_decode(text: &str) -> Vec<u8> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let escape = match bytes.get(i..i + 3) {
            Some([b'%', hi, lo]) => hex_digit(*hi).zip(hex_digit(*lo)).map(|(h, l)| h << 4 | l),
            _ => None,
        };
        match escape {
            Some(b) => {
                out.push(b);
                i += 3;
            }
            None => {
                out.push(bytes[i]);
                i += 1;
            }
        }
    }
    out
}

/// The value of a hex digit.
fn hex_digit(b: u8) -> Option<u8> {
    char::from(b).to_digit(16).map(|d| d as u8)
}
