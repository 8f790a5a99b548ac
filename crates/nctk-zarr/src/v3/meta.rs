//! Zarr v3 metadata as passive serde types: the `zarr.json` of a group or
//! an array, the named extension objects (`{"name": .., "configuration":
//! ..}`, or a bare name) of data types, chunk grids, chunk key encodings
//! and codecs, and zarr-python's inline consolidated metadata.
//!
//! Unknown top-level keys are kept in `extra`; the reader refuses those not
//! marked `"must_understand": false`, as the core specification asks.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

/// The contents of a `zarr.json` object: a group or an array.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ZarrJson {
    /// Always 3.
    pub zarr_format: u64,
    /// `"group"` or `"array"`.
    pub node_type: String,
    /// User attributes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attributes: Option<Map<String, Value>>,
    /// Array only: the shape.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shape: Option<Vec<u64>>,
    /// Array only: the data type, a name or a named object.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data_type: Option<Named>,
    /// Array only: the chunk grid.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chunk_grid: Option<Named>,
    /// Array only: how chunk coordinates become keys.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chunk_key_encoding: Option<Named>,
    /// Array only: the fill value, in the data type's JSON form.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fill_value: Option<Value>,
    /// Array only: the codec chain, first applied first when encoding.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub codecs: Option<Vec<Named>>,
    /// Array only: a name per dimension (`null` entries allowed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dimension_names: Option<Vec<Option<String>>>,
    /// Array only: storage transformers (none are supported).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub storage_transformers: Option<Vec<Named>>,
    /// Group only: zarr-python's inline consolidated metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub consolidated_metadata: Option<Consolidated>,
    /// Every other key (extensions).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// zarr-python's inline consolidated metadata: every node below the group
/// by its path relative to the group (`"a"`, `"g/b"`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Consolidated {
    /// Always `"inline"`.
    #[serde(default)]
    pub kind: String,
    /// Always false (readers may ignore it).
    #[serde(default)]
    pub must_understand: bool,
    /// Path -> that node's `zarr.json` (`null` when absent).
    #[serde(default)]
    pub metadata: Option<Map<String, Value>>,
}

/// An extension object: a name and an optional configuration, written as
/// `{"name": .., "configuration": {..}}` or as the bare name.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Named {
    /// The extension's name (`"bytes"`, `"regular"`, `"float32"`, ...).
    pub name: String,
    /// Its configuration (an empty object when absent).
    pub configuration: Map<String, Value>,
    /// `false` when a reader that does not know it may ignore it.
    pub must_understand: bool,
}

impl Named {
    /// An extension with a configuration.
    pub fn new(name: &str, configuration: Map<String, Value>) -> Named {
        Named {
            name: name.to_string(),
            configuration,
            must_understand: true,
        }
    }

    /// An extension without configuration.
    pub fn bare(name: &str) -> Named {
        Named::new(name, Map::new())
    }

    /// The configuration field `key`.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.configuration.get(key)
    }
}

impl Serialize for Named {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = Map::new();
        m.insert("name".into(), Value::String(self.name.clone()));
        if !self.configuration.is_empty() {
            m.insert(
                "configuration".into(),
                Value::Object(self.configuration.clone()),
            );
        }
        if !self.must_understand {
            m.insert("must_understand".into(), Value::Bool(false));
        }
        Value::Object(m).serialize(s)
    }
}

impl<'de> Deserialize<'de> for Named {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Named, D::Error> {
        use serde::de::Error;
        match Value::deserialize(d)? {
            Value::String(name) => Ok(Named::bare(&name)),
            Value::Object(mut m) => {
                let name = match m.remove("name") {
                    Some(Value::String(s)) => s,
                    _ => return Err(D::Error::custom("an extension object without a \"name\"")),
                };
                let configuration = match m.remove("configuration") {
                    None | Some(Value::Null) => Map::new(),
                    Some(Value::Object(c)) => c,
                    Some(_) => {
                        return Err(D::Error::custom(format!(
                            "the configuration of {name:?} is not an object"
                        )))
                    }
                };
                let must_understand = match m.remove("must_understand") {
                    None => true,
                    Some(Value::Bool(b)) => b,
                    Some(_) => {
                        return Err(D::Error::custom(format!(
                            "must_understand of {name:?} is not a boolean"
                        )))
                    }
                };
                Ok(Named {
                    name,
                    configuration,
                    must_understand,
                })
            }
            other => Err(D::Error::custom(format!(
                "an extension must be a name or an object, not {other}"
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn named_reads_both_forms_and_writes_the_long_one() {
        let n: Named = serde_json::from_str(r#""crc32c""#).unwrap();
        assert_eq!(n, Named::bare("crc32c"));
        let n: Named =
            serde_json::from_str(r#"{"name": "bytes", "configuration": {"endian": "little"}}"#)
                .unwrap();
        assert_eq!(n.get("endian"), Some(&Value::from("little")));
        assert_eq!(
            serde_json::to_string(&n).unwrap(),
            r#"{"name":"bytes","configuration":{"endian":"little"}}"#
        );
        assert!(serde_json::from_str::<Named>("3").is_err());
        assert!(serde_json::from_str::<Named>(r#"{"configuration": {}}"#).is_err());
    }

    #[test]
    fn zarr_json_of_an_array() {
        let z: ZarrJson = serde_json::from_str(
            r#"{"zarr_format": 3, "node_type": "array", "shape": [4], "data_type": "int32",
                "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [2]}},
                "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
                "fill_value": 0, "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}],
                "attributes": {"a": 1}, "dimension_names": ["x"], "other": {"must_understand": false}}"#,
        )
        .unwrap();
        assert_eq!(z.shape, Some(vec![4]));
        assert_eq!(z.dimension_names, Some(vec![Some("x".into())]));
        assert!(z.extra.contains_key("other"));
    }
}
