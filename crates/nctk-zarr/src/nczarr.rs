//! NCZarr's netCDF metadata, in every layout netCDF-C has written:
//!
//! * V1 objects beside the Zarr ones (4.8.0): `.nczarr`, `.nczgroup`,
//!   `.nczarray`, `.nczattr` (or `.nczattrs`);
//! * keys inside `.zgroup` / `.zarray` / `.zattrs` (4.8.1 to 4.9.2):
//!   `_NCZARR_SUPERBLOCK`, `_NCZARR_GROUP`, `_NCZARR_ARRAY`, `_NCZARR_ATTR`,
//!   lower case from 4.9.0;
//! * attributes in `.zattrs` (4.9.3 on): `_nczarr_superblock`,
//!   `_nczarr_group` (`dimensions` / `arrays` / `groups`, or `dims` /
//!   `vars`), `_nczarr_array` (`dimension_references` or `dimrefs`),
//!   `_nczarr_attr` (`types`).
//!
//! Each function looks in every place, newest first.

use std::collections::HashMap;

use serde_json::{Map, Value};

use crate::ZarrError;

/// A shared dimension declared by a group.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DimInfo {
    /// The dimension's name.
    pub name: String,
    /// Its length (current length for an unlimited dimension).
    pub size: u64,
    /// True when declared UNLIMITED.
    pub unlimited: bool,
}

/// A group's NCZarr description.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct GroupInfo {
    /// Dimensions defined in the group, in order.
    pub dims: Vec<DimInfo>,
    /// Names of the group's variables, in order.
    pub arrays: Vec<String>,
    /// Names of the subgroups, in order.
    pub groups: Vec<String>,
}

/// An array's NCZarr description.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ArrayInfo {
    /// Fully qualified names of the shared dimensions (`/g/x`).
    pub dimrefs: Vec<String>,
    /// True for a netCDF scalar (stored with Zarr shape `[1]`).
    pub scalar: bool,
}

/// The value of `name` in the first map holding it, matching case-insensitively.
pub fn lookup<'a>(maps: &[&'a Map<String, Value>], name: &str) -> Option<&'a Value> {
    maps.iter().find_map(|m| {
        m.get(name).or_else(|| {
            m.iter()
                .find(|(k, _)| k.eq_ignore_ascii_case(name))
                .map(|(_, v)| v)
        })
    })
}

fn field<'a>(obj: &'a Map<String, Value>, names: &[&str]) -> Option<&'a Value> {
    names.iter().find_map(|n| obj.get(*n))
}

fn strings(key: &str, what: &str, v: Option<&Value>) -> Result<Vec<String>, ZarrError> {
    match v {
        None | Some(Value::Null) => Ok(vec![]),
        Some(Value::Array(a)) => a
            .iter()
            .map(|x| {
                x.as_str().map(str::to_string).ok_or_else(|| {
                    ZarrError::meta(key, format!("{what}: expected a list of names, found {x}"))
                })
            })
            .collect(),
        Some(other) => Err(ZarrError::meta(
            key,
            format!("{what}: expected a list, found {other}"),
        )),
    }
}

fn unsigned(v: &Value) -> Option<u64> {
    v.as_u64()
        .or_else(|| v.as_str().and_then(|s| s.trim().parse().ok()))
}

/// Parses an `_nczarr_group` / `_NCZARR_GROUP` / `.nczgroup` object.
pub fn parse_group(key: &str, v: &Value) -> Result<GroupInfo, ZarrError> {
    let Value::Object(obj) = v else {
        return Err(ZarrError::meta(
            key,
            "NCZarr group metadata is not an object",
        ));
    };
    let mut dims = vec![];
    match field(obj, &["dimensions", "dims"]) {
        None | Some(Value::Null) => {}
        Some(Value::Object(d)) => {
            for (name, spec) in d {
                let (size, unlimited) = match spec {
                    Value::Object(s) => (
                        s.get("size").and_then(unsigned),
                        s.get("unlimited")
                            .is_some_and(|u| u.as_u64() == Some(1) || u.as_bool() == Some(true)),
                    ),
                    other => (unsigned(other), false),
                };
                let size = size.ok_or_else(|| {
                    ZarrError::meta(
                        key,
                        format!("dimension {name:?}: size is not a non-negative integer: {spec}"),
                    )
                })?;
                dims.push(DimInfo {
                    name: name.clone(),
                    size,
                    unlimited,
                });
            }
        }
        // NCZarr on Zarr v3 (netCDF-C's draft appendix): a list of
        // `{"name": .., "size": .., "unlimited": 0|1}`.
        Some(Value::Array(list)) => {
            for spec in list {
                let name = spec.get("name").and_then(Value::as_str);
                let size = spec.get("size").and_then(unsigned);
                let (Some(name), Some(size)) = (name, size) else {
                    return Err(ZarrError::meta(
                        key,
                        format!("dimension {spec}: needs a name and a non-negative integer size"),
                    ));
                };
                dims.push(DimInfo {
                    name: name.to_string(),
                    size,
                    unlimited: spec
                        .get("unlimited")
                        .is_some_and(|u| u.as_u64() == Some(1) || u.as_bool() == Some(true)),
                });
            }
        }
        Some(other) => {
            return Err(ZarrError::meta(
                key,
                format!("dimensions: expected an object or a list, found {other}"),
            ))
        }
    }
    Ok(GroupInfo {
        dims,
        arrays: strings(key, "arrays", field(obj, &["arrays", "vars"]))?,
        groups: strings(key, "groups", field(obj, &["groups", "subgroups"]))?,
    })
}

/// Parses an `_nczarr_array` / `_NCZARR_ARRAY` / `.nczarray` object.
pub fn parse_array(key: &str, v: &Value) -> Result<ArrayInfo, ZarrError> {
    let Value::Object(obj) = v else {
        return Err(ZarrError::meta(
            key,
            "NCZarr array metadata is not an object",
        ));
    };
    let scalar = obj
        .get("scalar")
        .is_some_and(|s| s.as_u64() == Some(1) || s.as_bool() == Some(true))
        || obj.get("storage").and_then(Value::as_str) == Some("scalar");
    Ok(ArrayInfo {
        dimrefs: strings(
            key,
            "dimension_references",
            field(obj, &["dimension_references", "dimrefs"]),
        )?,
        scalar,
    })
}

/// Parses attribute types from an `_nczarr_attr` / `_NCZARR_ATTR` /
/// `.nczattr` object: attribute name -> dtype text.
pub fn parse_attr_types(v: &Value) -> HashMap<String, String> {
    v.get("types")
        .and_then(Value::as_object)
        .map(|t| {
            t.iter()
                .filter_map(|(k, v)| v.as_str().map(|s| (k.clone(), s.to_string())))
                .collect()
        })
        .unwrap_or_default()
}

/// Resolves a dimension reference (`/g/x`, or a bare `x`) into a group
/// path and a name.
pub fn split_dimref(r: &str) -> (&str, &str) {
    match r.rsplit_once('/') {
        Some((g, n)) => (g, n),
        None => ("", r),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn v3_group_dimensions_as_a_list() {
        let g = parse_group(
            "zarr.json",
            &serde_json::json!({"dimensions": [{"name": "t", "size": 3, "unlimited": 1},
                                               {"name": "x", "size": 4, "unlimited": 0}],
                                "arrays": ["v"], "subgroups": ["g"]}),
        )
        .unwrap();
        assert_eq!(g.dims.len(), 2);
        assert!(g.dims[0].unlimited && !g.dims[1].unlimited);
        assert_eq!(
            (g.arrays, g.groups),
            (vec!["v".to_string()], vec!["g".to_string()])
        );
        assert!(parse_group("k", &serde_json::json!({"dimensions": [{"size": 3}]})).is_err());
    }
    use serde_json::json;

    #[test]
    fn all_group_spellings() {
        let new = parse_group("k", &json!({"dimensions": {"t": {"size": 2, "unlimited": 1}, "x": 3}, "arrays": ["v"], "groups": ["g"]})).unwrap();
        assert_eq!(
            new.dims[0],
            DimInfo {
                name: "t".into(),
                size: 2,
                unlimited: true
            }
        );
        assert_eq!(new.dims[1].size, 3);
        let old =
            parse_group("k", &json!({"dims": {"x": 3}, "vars": ["v"], "groups": []})).unwrap();
        assert_eq!(old.arrays, ["v"]);
        assert!(parse_group("k", &json!({"dims": {"x": -1}})).is_err());
        assert!(parse_group("k", &json!([1])).is_err());
    }

    #[test]
    fn array_spellings() {
        let a = parse_array("k", &json!({"dimension_references": [], "scalar": 1})).unwrap();
        assert!(a.scalar);
        let b = parse_array("k", &json!({"dimrefs": ["/a"], "storage": "scalar"})).unwrap();
        assert!(b.scalar);
        assert_eq!(b.dimrefs, ["/a"]);
        assert_eq!(split_dimref("/g/h/x"), ("/g/h", "x"));
        assert_eq!(split_dimref("/x"), ("", "x"));
    }
}
