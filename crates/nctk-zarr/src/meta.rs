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
    serde_json::from_value(v).map_err(|source| ZarrError::Decode {
        key: key.to_string(),
        source,
    })
}

pub use nctk_codec::dtype::{DtypeKind, NumpyDtype as Dtype};

#[cfg(test)]
mod tests {
    use super::*;

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
