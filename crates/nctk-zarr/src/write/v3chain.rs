//! A variable's Zarr v3 data type and codec chain: array-to-array codecs,
//! the array-to-bytes codec (`bytes` in the stored byte order, or
//! `vlen-utf8` for strings), bytes-to-bytes codecs, all inside
//! `sharding_indexed` when the variable is sharded. With no codec asked
//! for, zarr-python 3's default: `bytes` (or `vlen-utf8`) then `zstd` at
//! level 0 without checksum.
//!
//! netCDF's filters become the codecs every Zarr v3 reader knows
//! (zarr-python, tensorstore and zarrs alike; numcodecs' `zlib`, `shuffle`
//! and `fletcher32` are zarr-python's alone): deflate is `gzip` at its
//! level, shuffle then deflate is `blosc` (zlib inside, byte shuffle),
//! fletcher32 is `crc32c`. Other codecs keep their `numcodecs.*` names.

use nctk_codec::blosc::{Blosc, BloscCompressor, BloscShuffle};
use nctk_codec::v3::to_v3;
use nctk_codec::{Codec, Pipeline};
use nctk_model::DataType;
use serde_json::{json, Map, Value};

use super::chain::{ChunkChain, Sharding};
use crate::v3::meta::Named;

/// What an array's `zarr.json` says of its elements and codecs.
#[derive(Debug, Clone)]
pub struct V3Array {
    /// The Zarr v3 data type name.
    pub data_type: &'static str,
    /// The codec chain.
    pub codecs: Vec<Named>,
    /// NCZarr's `type_alias` (`char`, `string`) for netCDF types Zarr v3
    /// lacks.
    pub type_alias: Option<&'static str>,
}

/// The chunking of a variable.
pub struct Shape<'a> {
    /// Chunk lengths (inner chunks when sharded; empty for a scalar).
    pub chunks: &'a [u64],
    /// Shard lengths, when sharded.
    pub shards: Option<&'a [u64]>,
    /// Bytes per element.
    pub width: usize,
    /// Elements stored big-endian.
    pub big: bool,
}

/// Which inner chunks of a shard are left out.
pub struct Empty<'a> {
    /// One element of the fill value.
    pub fill: &'a [u8],
    /// Leave out inner chunks holding only it.
    pub skip: bool,
}

/// The Zarr v3 name of a netCDF type, and NCZarr's alias for it.
fn data_type(t: DataType) -> Result<(&'static str, Option<&'static str>), String> {
    Ok(match t {
        DataType::Byte => ("int8", None),
        DataType::UByte => ("uint8", None),
        DataType::Char => ("uint8", Some("char")),
        DataType::Short => ("int16", None),
        DataType::UShort => ("uint16", None),
        DataType::Int => ("int32", None),
        DataType::UInt => ("uint32", None),
        DataType::Int64 => ("int64", None),
        DataType::UInt64 => ("uint64", None),
        DataType::Float => ("float32", None),
        DataType::Double => ("float64", None),
        DataType::String => ("string", Some("string")),
        t => return Err(format!("type {t} is not supported by the Zarr v3 writer")),
    })
}

/// `codecs` with netCDF's filters as the core Zarr v3 codecs (see the
/// [module docs](self)); `width` is the element size.
fn core_codecs(codecs: Vec<Codec>, width: usize) -> Vec<Codec> {
    let mut out: Vec<Codec> = Vec::with_capacity(codecs.len());
    for c in codecs {
        let shuffled = matches!(out.last(), Some(Codec::Shuffle(_)));
        match c {
            Codec::Zlib { level } if shuffled => {
                out.pop();
                out.push(Codec::Blosc(Blosc {
                    cname: BloscCompressor::Zlib,
                    clevel: level.min(9) as u8,
                    shuffle: BloscShuffle::Byte,
                    blocksize: 0,
                    typesize: Some(width),
                }));
            }
            Codec::Zlib { level } => out.push(Codec::Gzip { level }),
            Codec::Fletcher32 => out.push(Codec::Crc32c),
            c => out.push(c),
        }
    }
    out
}

fn named(codec: &Codec) -> Named {
    let (name, config) = to_v3(codec);
    Named::new(&name, config)
}

/// The chain and `zarr.json` facts of a variable of type `dtype` stored
/// with `codecs` (the storage's, in order; none: zarr-python's default).
pub fn build(
    dtype: DataType,
    shape: &Shape<'_>,
    codecs: Vec<Codec>,
    empty: Empty<'_>,
) -> Result<(ChunkChain, V3Array), String> {
    let (data_type, type_alias) = data_type(dtype)?;
    let mut codecs = core_codecs(codecs, shape.width);
    if codecs.is_empty() {
        codecs.push(Codec::Zstd {
            level: 0,
            checksum: false,
        });
    }
    let (pre, post): (Vec<&Codec>, Vec<&Codec>) =
        codecs.iter().partition(|c| c.is_array_to_array());
    let string = dtype == DataType::String;
    if let (true, Some(c)) = (string, pre.first()) {
        return Err(format!("codec {} does not apply to strings", c.id()));
    }
    let to_bytes = if string {
        Named::bare("vlen-utf8")
    } else if shape.width > 1 {
        let endian = if shape.big { "big" } else { "little" };
        Named::new("bytes", json_map(json!({ "endian": endian })))
    } else {
        Named::bare("bytes")
    };
    let mut list: Vec<Named> = pre.iter().map(|c| named(c)).collect();
    list.push(to_bytes);
    list.extend(post.iter().map(|c| named(c)));
    let pipeline = Pipeline {
        filters: pre.into_iter().chain(post).cloned().collect(),
        compressor: None,
    };
    let chain = if string {
        ChunkChain::VlenUtf8 {
            width: shape.width,
            then: pipeline,
        }
    } else {
        ChunkChain::Bytes(pipeline)
    };
    let array = |codecs| V3Array {
        data_type,
        codecs,
        type_alias,
    };
    let Some(shards) = shape.shards else {
        return Ok((chain, array(list)));
    };
    let chunks = shape.chunks;
    let tiles = shards.len() == chunks.len()
        && shards
            .iter()
            .zip(chunks)
            .all(|(&s, &c)| s > 0 && s % c == 0);
    if !tiles {
        return Err(format!(
            "shard shape {shards:?} is not a multiple of the chunk shape {chunks:?}"
        ));
    }
    let bytes = shards
        .iter()
        .try_fold(shape.width as u64, |a, &s| a.checked_mul(s));
    if bytes.is_none_or(|b| b > u32::MAX as u64) {
        return Err(format!("shards {shards:?} exceed 4 GiB"));
    }
    let index = [
        json!({"name": "bytes", "configuration": {"endian": "little"}}),
        json!({"name": "crc32c"}),
    ];
    let config = json_map(json!({
        "chunk_shape": chunks,
        "codecs": list,
        "index_codecs": index,
        "index_location": "end",
    }));
    let sharding = Sharding {
        shard: shards.to_vec(),
        inner: chunks.to_vec(),
        width: shape.width,
        chain,
        fill: empty.fill.to_vec(),
        skip_empty: empty.skip,
    };
    Ok((
        ChunkChain::Sharded(Box::new(sharding)),
        array(vec![Named::new("sharding_indexed", config)]),
    ))
}

/// The object of a `json!` object literal.
pub(super) fn json_map(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => Map::new(),
    }
}
