//! `-F` filter specifications, in netCDF-C's syntax: `vars,filters`, where
//! `vars` is one variable, several joined by `&`, or `*` (every variable),
//! and `filters` is `id,p1,p2,...` with filters separated by `|`
//! (`"temp,32001,0,0,4,0,5,1,1"`, `"a&b,307,9|1,5"`), or `none`. A bare
//! `none` (or `*,none`) suppresses every filter. An id may be a filter name:
//! netCDF-C's (`deflate`, `zip`, `shuffle`, `fletcher32`, `szip`, `bzip2`,
//! `zstd`, `blosc`) or a numcodecs id (`zlib`, `bz2`, `lz4`, ...) without
//! parameters; `filters` may also be numcodecs JSON, one codec or a list
//! (`'temp,{"id":"blosc","cname":"lz4","clevel":5,"shuffle":1}'`).

use nctk::codec::{Codec, CodecContext, FilterSpec};
use serde_json::Value;

use nctk_model::{ErrorKind, SourceError};

use super::error::BadFilter;
use super::CopyError;

/// One filter of a specification.
#[derive(Debug, Clone, PartialEq)]
pub enum Filter {
    /// An HDF5 filter id and its parameters, mapped to a codec as netCDF-C
    /// maps them.
    Hdf5(FilterSpec),
    /// A numcodecs codec, as JSON.
    Numcodecs(Value),
}

/// One `-F` argument.
#[derive(Debug, Clone, PartialEq)]
pub struct FilterOption {
    /// Fully qualified variable names (`/temp`, `/g/v`), or `*`.
    pub vars: Vec<String>,
    /// The filters, in order; `None` for `none` (no filters at all).
    pub filters: Option<Vec<Filter>>,
}

/// netCDF-C's filter names (its `known_filters` table, with deflate's id
/// corrected to 1) and numcodecs ids that have an HDF5 filter.
const NAMES: &[(&str, u32)] = &[
    ("deflate", 1),
    ("zip", 1),
    ("zlib", 1),
    ("shuffle", 2),
    ("fletcher32", 3),
    ("szip", 4),
    ("bzip2", 307),
    ("bz2", 307),
    ("zstd", 32015),
    ("zstandard", 32015),
    ("blosc", 32001),
];

fn bad(spec: &str, reason: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> CopyError {
    CopyError::FilterSpec {
        spec: spec.to_string(),
        source: SourceError::new(ErrorKind::InvalidInput, reason),
    }
}

/// Splits `s` at its first comma not escaped by a backslash.
fn split_first_comma(s: &str) -> (&str, &str) {
    let bytes = s.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b',' => return (&s[..i], &s[i + 1..]),
            _ => i += 1,
        }
    }
    (s, "")
}

/// Parses `id,p1,p2` (one filter of a `|` chain).
fn parse_one(spec: &str, text: &str) -> Result<Filter, CopyError> {
    let mut parts = text.split(',').map(str::trim);
    let id = parts.next().unwrap_or_default();
    let params: Vec<&str> = parts.collect();
    let numbers = || -> Result<Vec<u32>, CopyError> {
        params
            .iter()
            .map(|p| {
                p.parse::<u32>()
                    .or_else(|_| p.parse::<i32>().map(|v| v as u32))
                    .map_err(|_| bad(spec, format!("parameter {p:?} is not a 32-bit integer")))
            })
            .collect()
    };
    if let Ok(n) = id.parse::<u32>() {
        return Ok(Filter::Hdf5(FilterSpec {
            id: n,
            params: numbers()?,
        }));
    }
    if id.is_empty() {
        return Err(bad(spec, "a filter has no id"));
    }
    if let Some(&(_, n)) = NAMES.iter().find(|(name, _)| name.eq_ignore_ascii_case(id)) {
        return Ok(Filter::Hdf5(FilterSpec {
            id: n,
            params: numbers()?,
        }));
    }
    if !params.is_empty() {
        return Err(bad(
            spec,
            format!("filter {id:?} has no HDF5 id; give its parameters as numcodecs JSON"),
        ));
    }
    let json = serde_json::json!({ "id": id });
    Codec::from_json(&json).map_err(|e| bad(spec, e))?;
    Ok(Filter::Numcodecs(json))
}

/// Parses a numcodecs JSON codec or list of codecs.
fn parse_json(spec: &str, text: &str) -> Result<Vec<Filter>, CopyError> {
    let v: Value = serde_json::from_str(text).map_err(|e| bad(spec, e))?;
    let list = match v {
        Value::Array(list) => list,
        one => vec![one],
    };
    for c in &list {
        Codec::from_json(c).map_err(|e| bad(spec, e))?;
    }
    Ok(list.into_iter().map(Filter::Numcodecs).collect())
}

impl FilterOption {
    /// Parses one `-F` argument.
    pub fn parse(spec: &str) -> Result<FilterOption, CopyError> {
        let spec_t = spec.trim();
        if spec_t.eq_ignore_ascii_case("none") {
            return Ok(FilterOption {
                vars: vec!["*".into()],
                filters: None,
            });
        }
        let (vars, rest) = split_first_comma(spec_t);
        if vars.is_empty() {
            return Err(bad(spec, "no variable"));
        }
        let vars: Vec<String> = vars
            .split('&')
            .filter(|v| !v.is_empty())
            .map(|v| {
                let v = v.replace("\\", "");
                if v == "*" || v.starts_with('/') {
                    v
                } else {
                    format!("/{v}")
                }
            })
            .collect();
        let rest = rest.trim();
        if rest.is_empty() {
            return Err(bad(spec, "no filter after the variable"));
        }
        let filters = if rest.eq_ignore_ascii_case("none") {
            None
        } else if rest.starts_with('{') || rest.starts_with('[') {
            Some(parse_json(spec, rest)?)
        } else {
            Some(
                rest.split('|')
                    .map(|f| parse_one(spec, f))
                    .collect::<Result<Vec<_>, _>>()?,
            )
        };
        Ok(FilterOption { vars, filters })
    }

    /// True when this option is about the variable at `path` (`/temp`).
    pub fn names(&self, path: &str) -> bool {
        self.vars.iter().any(|v| v == "*" || v == path)
    }
}

impl Filter {
    /// The filter as numcodecs JSON for a variable of `element_size`-byte
    /// values.
    pub fn to_json(&self, element_size: usize) -> Result<Value, BadFilter> {
        match self {
            Filter::Numcodecs(v) => Ok(v.clone()),
            Filter::Hdf5(s) => Codec::from_hdf5(s.id, &s.params, &CodecContext::new(element_size))
                .map(|c| c.to_json())
                .map_err(|source| BadFilter {
                    filter: s.to_string(),
                    source,
                }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hdf5(id: u32, params: &[u32]) -> Filter {
        Filter::Hdf5(FilterSpec {
            id,
            params: params.to_vec(),
        })
    }

    #[test]
    fn netcdf_c_syntax() {
        let f = FilterOption::parse("temp,32001,0,0,4,0,5,1,1").unwrap();
        assert_eq!(f.vars, vec!["/temp"]);
        assert_eq!(f.filters, Some(vec![hdf5(32001, &[0, 0, 4, 0, 5, 1, 1])]));
        let f = FilterOption::parse("a&/g/b,307,9|1,5").unwrap();
        assert_eq!(f.vars, vec!["/a", "/g/b"]);
        assert_eq!(f.filters, Some(vec![hdf5(307, &[9]), hdf5(1, &[5])]));
        assert!(f.names("/g/b") && !f.names("/b"));
        let all = FilterOption::parse("*,none").unwrap();
        assert_eq!((all.vars, all.filters), (vec!["*".to_string()], None));
        assert_eq!(FilterOption::parse("none").unwrap().filters, None);
        assert_eq!(FilterOption::parse("x\\,y,1,1").unwrap().vars, vec!["/x,y"]);
    }

    #[test]
    fn names_and_json() {
        let f = FilterOption::parse("t,zstd,3|shuffle").unwrap();
        assert_eq!(f.filters, Some(vec![hdf5(32015, &[3]), hdf5(2, &[])]));
        let f = FilterOption::parse("t,lz4").unwrap();
        assert_eq!(
            f.filters,
            Some(vec![Filter::Numcodecs(serde_json::json!({"id": "lz4"}))])
        );
        let f =
            FilterOption::parse(r#"t,[{"id":"shuffle","elementsize":4},{"id":"zlib","level":1}]"#)
                .unwrap();
        let json: Vec<Value> = f
            .filters
            .unwrap()
            .iter()
            .map(|x| x.to_json(4).unwrap())
            .collect();
        assert_eq!(json[1], serde_json::json!({"id": "zlib", "level": 1}));
        assert_eq!(
            hdf5(1, &[5]).to_json(4).unwrap(),
            serde_json::json!({"id": "zlib", "level": 5})
        );
        assert!(hdf5(4, &[32, 32])
            .to_json(4)
            .unwrap_err()
            .to_string()
            .contains("szip"));
    }

    #[test]
    fn bad_specifications_say_why() {
        for (spec, why) in [
            ("t", "no filter"),
            ("t,1,x", "not a 32-bit integer"),
            ("t,nosuch", "nosuch"),
            ("t,lz4,1", "numcodecs JSON"),
            ("t,{bad json", "bad filter specification"),
            (",1", "no variable"),
        ] {
            let msg = FilterOption::parse(spec).unwrap_err().to_string();
            assert!(msg.contains(why), "{spec}: {msg}");
        }
    }
}
