//! A Zarr v3 array's codec chain read into what decoding a chunk needs:
//! the element order (`transpose`), the byte order and representation
//! (`bytes`, `vlen-utf8`, `vlen-bytes`, `sharding_indexed`), and the
//! [`Pipeline`] of codecs on flat bytes (numcodecs' array filters such as
//! `delta`, then `gzip`, `zstd`, `blosc`, `crc32c`, `numcodecs.*`).

use nctk_codec::{CodecContext, CodecError, Pipeline};
use serde_json::Value;

use crate::layout::ChunkOrder;
use crate::shard::ShardLevel;
use crate::v3::meta::Named;

/// How a chunk's elements become bytes.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Repr {
    /// Fixed-size elements (`bytes`).
    Fixed,
    /// Variable-length items (`vlen-utf8`, `vlen-bytes`).
    Vlen,
    /// A shard of inner chunks (`sharding_indexed`), with the inner chunks'
    /// codecs.
    Sharded(ShardLevel, Box<ChunkCodecs>),
}

/// What decoding one chunk needs.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ChunkCodecs {
    /// Element order inside the chunk (`transpose`), `None` for C order.
    pub order: Option<ChunkOrder>,
    /// Numbers are stored big-endian.
    pub big_endian: bool,
    /// How elements become bytes.
    pub repr: Repr,
    /// Codecs on flat bytes, first applied first when encoding.
    pub pipeline: Pipeline,
}

/// Why a codec chain cannot be read: a codec nctk does not know (the
/// reader reports it when the array is read), or a chain that is not valid.
#[derive(Debug, Clone)]
pub(crate) enum ChainError {
    /// A codec nctk does not implement, or refuses where it is.
    Codec(CodecError),
    /// The chain itself is wrong (no array-to-bytes codec, two of them, ...).
    Invalid(String),
}

/// Reads the codec chain of an array of `rank` dimensions whose chunks
/// are `chunk_shape`, with elements of `ctx`'s dtype.
///
/// Codecs after `sharding_indexed` act on whole shards (the pipeline of the
/// result): allowed at the top level only (`top`).
pub(crate) fn parse(
    codecs: &[Named],
    rank: usize,
    chunk_shape: &[u64],
    ctx: &CodecContext<'_>,
    top: bool,
) -> Result<ChunkCodecs, ChainError> {
    let invalid = |m: String| ChainError::Invalid(m);
    let mut order: Option<ChunkOrder> = None;
    let mut filters = vec![];
    let mut repr: Option<(Repr, bool)> = None;
    let mut after = vec![];
    for c in codecs {
        match (c.name.as_str(), &repr) {
            ("transpose", None) => {
                if !filters.is_empty() {
                    return Err(ChainError::Codec(CodecError::Unsupported {
                        codec: "transpose",
                        what: "transpose after an array filter".into(),
                    }));
                }
                let axes = transpose_order(c, rank).ok_or_else(|| {
                    invalid(format!(
                        "transpose order {:?} is not a permutation of {rank} axes",
                        c.get("order")
                    ))
                })?;
                order = Some(match order {
                    None => axes,
                    Some(o) => o.then(&axes),
                });
            }

            ("bytes", None) => {
                let big = match c.get("endian").and_then(Value::as_str) {
                    None | Some("little") => false,
                    Some("big") => true,
                    Some(other) => return Err(invalid(format!("bytes: endian {other:?}"))),
                };
                repr = Some((Repr::Fixed, big));
            }
            ("vlen-utf8" | "vlen-bytes", None) => repr = Some((Repr::Vlen, false)),
            ("sharding_indexed", None) => {
                if !filters.is_empty() || order.is_some() {
                    return Err(ChainError::Codec(CodecError::Unsupported {
                        codec: "sharding_indexed",
                        what: "array codecs before sharding".into(),
                    }));
                }
                repr = Some(sharding(c, rank, chunk_shape, ctx)?);
            }
            ("transpose" | "bytes" | "vlen-utf8" | "vlen-bytes" | "sharding_indexed", Some(_)) => {
                return Err(invalid(format!(
                    "{} after the array-to-bytes codec",
                    c.name
                )))
            }
            // numcodecs' array filters (delta, ...) act on the elements,
            // before the array-to-bytes codec.
            (name, None) => match nctk_codec::v3::from_v3(name, &c.configuration, ctx) {
                Ok(codec) if codec.is_array_to_array() => filters.push(codec),
                Ok(_) => return Err(invalid(format!("{name} before the array-to-bytes codec"))),
                Err(e) => return Err(ChainError::Codec(e)),
            },
            (name, Some((Repr::Sharded(..), _))) if !top => {
                return Err(ChainError::Codec(CodecError::Unsupported {
                    codec: "sharding_indexed",
                    what: format!("{name} on whole inner shards"),
                }))
            }
            (name, Some(_)) => after.push(
                nctk_codec::v3::from_v3(name, &c.configuration, ctx).map_err(ChainError::Codec)?,
            ),
        }
    }
    let Some((repr, big_endian)) = repr else {
        return Err(invalid(
            "no array-to-bytes codec (bytes, vlen-utf8, sharding_indexed)".into(),
        ));
    };
    filters.extend(after);
    Ok(ChunkCodecs {
        order,
        big_endian,
        repr,
        pipeline: Pipeline {
            filters,
            compressor: None,
        },
    })
}

/// The permutation of a `transpose` codec (`order` as a list of axes; the
/// old `"C"` / `"F"` spellings too).
fn transpose_order(c: &Named, rank: usize) -> Option<ChunkOrder> {
    match c.get("order")? {
        Value::String(s) if s == "C" => Some(ChunkOrder::c(rank)),
        Value::String(s) if s == "F" => Some(ChunkOrder::fortran(rank)),
        Value::Array(a) if a.len() == rank => ChunkOrder::permutation(
            a.iter()
                .map(|v| v.as_u64().map(|u| u as usize))
                .collect::<Option<Vec<_>>>()?,
        ),
        _ => None,
    }
}

/// A `sharding_indexed` codec: the shard level, and the inner chunks'
/// codecs.
fn sharding(
    c: &Named,
    rank: usize,
    shard_shape: &[u64],
    ctx: &CodecContext<'_>,
) -> Result<(Repr, bool), ChainError> {
    let invalid = |m: String| ChainError::Invalid(format!("sharding_indexed: {m}"));
    let inner: Vec<u64> = c
        .get("chunk_shape")
        .and_then(Value::as_array)
        .and_then(|a| a.iter().map(Value::as_u64).collect::<Option<Vec<_>>>())
        .filter(|s| s.len() == rank)
        .ok_or_else(|| invalid("chunk_shape is not a list of one length per axis".into()))?;
    let list = |field: &str| -> Result<Vec<Named>, ChainError> {
        serde_json::from_value(c.get(field).cloned().unwrap_or(Value::Array(vec![])))
            .map_err(|e| invalid(format!("{field}: {e}")))
    };
    let codecs = parse(&list("codecs")?, rank, &inner, ctx, false)?;
    let index = list("index_codecs")?;
    let (index_big, index_crc) = match index.as_slice() {
        [b] if b.name == "bytes" => (
            b.get("endian").and_then(Value::as_str) == Some("big"),
            false,
        ),
        [b, k] if b.name == "bytes" && k.name == "crc32c" => {
            (b.get("endian").and_then(Value::as_str) == Some("big"), true)
        }
        _ => {
            return Err(ChainError::Codec(CodecError::Unsupported {
                codec: "sharding_indexed",
                what: format!(
                    "index codecs {:?} (only bytes, optionally with crc32c)",
                    index.iter().map(|n| n.name.as_str()).collect::<Vec<_>>()
                ),
            }))
        }
    };
    let index_at_start = match c.get("index_location").and_then(Value::as_str) {
        None | Some("end") => false,
        Some("start") => true,
        Some(other) => return Err(invalid(format!("index_location {other:?}"))),
    };
    let level = ShardLevel {
        shape: shard_shape.to_vec(),
        inner,
        index_big,
        index_crc,
        index_at_start,
    };
    Ok((Repr::Sharded(level, Box::new(codecs)), false))
}
