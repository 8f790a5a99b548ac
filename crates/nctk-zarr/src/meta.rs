//! Zarr v2 metadata as passive serde types (`.zarray`, `.zgroup`,
//! `.zattrs`, consolidated `.zmetadata`), and the dtype grammar.
//!
//! Unknown keys are kept in `extra`, so NCZarr's keys inside `.zgroup` /
//! `.zarray` (netCDF-C 4.8 to 4.9.2) survive a read.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::ZarrError;

/// The contents of a `.zarray` object.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ZArray {
    /// Always 2.
    pub zarr_format: u64,
    /// The array's shape (empty for a zarr scalar).
    pub shape: Vec<u64>,
    /// The chunk shape, one entry per dimension.
    pub chunks: Vec<u64>,
    /// The NumPy dtype: a string such as `"<f4"`; structured dtypes (lists)
    /// are kept as JSON and refused by the reader.
    pub dtype: Value,
    /// The primary compressor's numcodecs JSON, or null.
    #[serde(default)]
    pub compressor: Value,
    /// The fill value (null, a number, `"NaN"`, `"Infinity"`, base64 for
    /// byte strings, ...).
    #[serde(default)]
    pub fill_value: Value,
    /// `"C"` (row-major) or `"F"` (column-major) order within chunks.
    #[serde(default = "default_order")]
    pub order: String,
    /// Filters applied before the compressor, or null.
    #[serde(default)]
    pub filters: Value,
    /// `"."` (default) or `"/"` between chunk indices in chunk keys.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dimension_separator: Option<String>,
    /// Every other key (NCZarr's `_nczarr_array` / `_NCZARR_ARRAY`, ...).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

fn default_order() -> String {
    "C".into()
}

/// The contents of a `.zgroup` object.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ZGroup {
    /// Always 2.
    pub zarr_format: u64,
    /// Every other key (NCZarr's `_nczarr_superblock`, `_nczarr_group`, ...).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The contents of a consolidated `.zmetadata` object.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ZMetadata {
    /// Key (`.zgroup`, `v/.zarray`, ...) -> that object's JSON.
    pub metadata: Map<String, Value>,
    /// Always 1.
    #[serde(default)]
    pub zarr_consolidated_format: u64,
}

/// Decodes a JSON value as `T`, naming `key` in the error.
pub fn from_value<T: serde::de::DeserializeOwned>(key: &str, v: Value) -> Result<T, ZarrError> {
    serde_json::from_value(v).map_err(|e| ZarrError::meta(key, e.to_string()))
}

/// The base kind of a NumPy dtype.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DtypeKind {
    /// `b`: boolean, one byte.
    Bool,
    /// `i`: signed integer.
    Int,
    /// `u`: unsigned integer.
    UInt,
    /// `f`: IEEE float (2, 4 or 8 bytes).
    Float,
    /// `S`: fixed-length byte string, NUL-padded.
    Bytes,
    /// `U`: fixed-length UTF-32 string (NumPy's `str_`).
    Unicode,
}

/// A parsed NumPy dtype string such as `<f4`, `|S5` or `>U1`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dtype {
    /// The byte-order character: `<`, `>`, `|` (or `=` read as `<`).
    pub order: char,
    /// The base kind.
    pub kind: DtypeKind,
    /// The number after the kind: bytes for numbers and `S`, characters for `U`.
    pub n: u64,
}

impl Dtype {
    /// Parses a dtype string.
    pub fn parse(s: &str) -> Option<Dtype> {
        let mut chars = s.chars();
        let first = chars.next()?;
        let (order, rest) = match first {
            '<' | '>' | '|' => (first, &s[1..]),
            '=' => ('<', &s[1..]),
            _ => ('|', s),
        };
        let mut rc = rest.chars();
        let kind = match rc.next()? {
            'b' => DtypeKind::Bool,
            'i' => DtypeKind::Int,
            'u' => DtypeKind::UInt,
            'f' => DtypeKind::Float,
            'S' => DtypeKind::Bytes,
            'U' => DtypeKind::Unicode,
            _ => return None,
        };
        let digits = rc.as_str();
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let n: u64 = digits.parse().ok()?;
        let ok = match kind {
            DtypeKind::Bool => n == 1,
            DtypeKind::Int | DtypeKind::UInt => matches!(n, 1 | 2 | 4 | 8),
            DtypeKind::Float => matches!(n, 2 | 4 | 8),
            DtypeKind::Bytes | DtypeKind::Unicode => (1..=1 << 20).contains(&n),
        };
        ok.then_some(Dtype { order, kind, n })
    }

    /// Bytes per element.
    pub fn itemsize(&self) -> u64 {
        match self.kind {
            DtypeKind::Unicode => self.n * 4,
            _ => self.n,
        }
    }

    /// True when multi-byte values are stored big-endian.
    pub fn big_endian(&self) -> bool {
        self.order == '>'
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dtypes() {
        let d = Dtype::parse("<f4").unwrap();
        assert_eq!((d.kind, d.n, d.itemsize()), (DtypeKind::Float, 4, 4));
        assert_eq!(Dtype::parse(">U3").unwrap().itemsize(), 12);
        assert_eq!(Dtype::parse("|S1").unwrap().kind, DtypeKind::Bytes);
        assert!(Dtype::parse("|b1").is_some());
        for bad in [
            "",
            "<",
            "<f",
            "<f3",
            "<i16",
            "<c8",
            "<M8",
            "|S0",
            "<i4x",
            "|S99999999999",
        ] {
            assert!(Dtype::parse(bad).is_none(), "{bad}");
        }
    }

    #[test]
    fn zarray_keeps_extra_keys() {
        let v: ZArray = serde_json::from_str(
            r#"{"zarr_format": 2, "shape": [2], "chunks": [2], "dtype": "<i4",
                "fill_value": null, "order": "C", "compressor": null, "filters": null,
                "_NCZARR_ARRAY": {"dimrefs": ["/d"]}}"#,
        )
        .unwrap();
        assert!(v.extra.contains_key("_NCZARR_ARRAY"));
        assert!(serde_json::from_str::<ZArray>(
            r#"{"zarr_format":2,"shape":[-1],"chunks":[1],"dtype":"<i4"}"#
        )
        .is_err());
    }
}
