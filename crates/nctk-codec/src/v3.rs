//! Codecs in Zarr v3's spelling: `{"name": "zstd", "configuration":
//! {"level": 0, "checksum": false}}` for the codecs the core and its
//! extensions define (`gzip`, `zstd`, `blosc`, `crc32c`), and
//! `numcodecs.<id>` with numcodecs' own configuration for the others, as
//! zarr-python 3 writes them.
//!
//! Only codecs that act on bytes (or, like `delta`, on the flat elements
//! of one chunk) are here; `bytes`, `transpose`, `sharding_indexed` and
//! the vlen codecs shape a chunk and are the Zarr reader's.

use serde_json::{Map, Value};

use crate::blosc::BloscShuffle;
use crate::codec::{Codec, CodecContext};
use crate::error::{CodecError, Result};

/// The prefix zarr-python gives the numcodecs codecs it wraps.
const NUMCODECS: &str = "numcodecs.";

impl Codec {
    /// Whether zarr-python 3 wraps this numcodecs codec as an
    /// array-to-array codec (it acts on an array's elements, so it comes
    /// before the array-to-bytes codec in a chain).
    pub fn is_array_to_array(&self) -> bool {
        matches!(
            self,
            Codec::Delta(_) | Codec::FixedScaleOffset(_) | Codec::BitRound(_) | Codec::Quantize(_)
        )
    }
}

/// Builds a codec from its Zarr v3 name and configuration.
///
/// An unknown name gives [`CodecError::UnknownCodec`] with that name.
pub fn from_v3(name: &str, config: &Map<String, Value>, ctx: &CodecContext<'_>) -> Result<Codec> {
    let mut v2 = config.clone();
    let id = match name {
        "gzip" | "zstd" | "crc32c" => name,
        "blosc" => {
            if let Some(Value::String(s)) = config.get("shuffle") {
                let n = match s.as_str() {
                    "noshuffle" => 0,
                    "shuffle" => 1,
                    "bitshuffle" => 2,
                    other => {
                        return Err(CodecError::invalid_config(
                            "blosc",
                            format!("shuffle {other:?} is not noshuffle, shuffle or bitshuffle"),
                        ))
                    }
                };
                v2.insert("shuffle".into(), n.into());
            }
            "blosc"
        }
        n if n.starts_with(NUMCODECS) => &n[NUMCODECS.len()..],
        other => {
            return Err(CodecError::UnknownCodec {
                id: other.to_string(),
            })
        }
    };
    v2.insert("id".into(), id.into());
    Codec::from_json_with(&Value::Object(v2), ctx)
}

/// The Zarr v3 name and configuration of `codec`, as zarr-python 3 writes
/// it.
pub fn to_v3(codec: &Codec) -> (String, Map<String, Value>) {
    let Value::Object(mut config) = codec.to_json() else {
        unreachable!("a codec's JSON is an object")
    };
    config.remove("id");
    let name = match codec {
        Codec::Gzip { .. } | Codec::Zstd { .. } | Codec::Crc32c => codec.id().to_string(),
        Codec::Blosc(b) => {
            let shuffle = match b.shuffle.resolve(b.typesize.unwrap_or(1)) {
                BloscShuffle::NoShuffle => "noshuffle",
                BloscShuffle::Byte => "shuffle",
                _ => "bitshuffle",
            };
            config.insert("shuffle".into(), shuffle.into());
            config.insert("typesize".into(), b.typesize.unwrap_or(1).into());
            "blosc".to_string()
        }
        other => format!("{NUMCODECS}{}", other.id()),
    };
    (name, config)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn map(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap()
    }

    #[test]
    fn names_and_configurations_both_ways() {
        let ctx = CodecContext::from_dtype("<f4");
        for (name, config) in [
            ("zstd", json!({"level": 3, "checksum": false})),
            ("gzip", json!({"level": 5})),
            ("crc32c", json!({})),
            ("numcodecs.zlib", json!({"level": 1})),
            ("numcodecs.shuffle", json!({"elementsize": 4})),
            ("numcodecs.delta", json!({"dtype": "<f4", "astype": "<f4"})),
        ] {
            let c = from_v3(name, &map(config), &ctx).unwrap();
            let (n, _) = to_v3(&c);
            assert_eq!(n, name);
            assert_eq!(from_v3(&n, &to_v3(&c).1, &ctx).unwrap(), c);
        }
        let b = from_v3(
            "blosc",
            &map(json!({"cname": "zstd", "clevel": 5, "shuffle": "bitshuffle", "typesize": 4, "blocksize": 0})),
            &ctx,
        )
        .unwrap();
        assert_eq!(to_v3(&b).1["shuffle"], "bitshuffle");
        assert!(matches!(
            from_v3("sz3", &Map::new(), &ctx),
            Err(CodecError::UnknownCodec { id }) if id == "sz3"
        ));
    }
}
