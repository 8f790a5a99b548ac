//! What the writer decides once per variable: dtype, chunks, fill bytes,
//! codec pipeline.

use std::borrow::Cow;

use nctk_codec::{parse_filter_attr, Codec, CodecContext, Pipeline};

use super::chain::ChunkChain;
use super::shards::ShardLayout;
use super::v3chain::{self, V3Array};
use nctk_model::{
    ChunkCodec, DataType, Endianness, Layout, NativeRef, Schema, Values, VarId, VarStorage,
};
use serde_json::Value;

use super::image::{number_bytes, slice_bytes};
use super::metadata::numeric_dtype;
use super::options::WriteLayout;
use super::WriteError;
use nctk_model::default_chunks;
use nctk_model::string_width::{self as strlen, DEFAULT_MAX_STRLEN};

/// One variable's storage plan.
#[derive(Debug, Clone)]
pub struct ArrayPlan {
    /// The array's key prefix in the store (`v`, `g/w`).
    pub prefix: String,
    /// The NumPy dtype text.
    pub dtype: String,
    /// Chunk lengths (empty for a scalar): the inner chunks' when the
    /// array is sharded, the writer's unit either way.
    pub chunks: Vec<u64>,
    /// Zarr v3 sharding: the shards, the grid's chunks (`None`: unsharded).
    pub shards: Option<ShardLayout>,
    /// Bytes per element in a chunk.
    pub width: usize,
    /// Multi-byte values stored big-endian.
    pub big: bool,
    /// The fill value (one element).
    pub fill: Values,
    /// The fill value's bytes (one element).
    pub fill_bytes: Vec<u8>,
    /// The codecs (of the inner chunks when sharded).
    pub chain: ChunkChain,
    /// Zarr v3: the data type and codecs of the `zarr.json` (`None` in the
    /// v2 layouts).
    pub v3: Option<V3Array>,
    /// The `.zarray` `compressor`.
    pub compressor: Value,
    /// The `.zarray` `filters`.
    pub filters: Value,
    /// `_nczarr_maxstrlen` to write (a non-default string length).
    pub max_strlen_attr: Option<usize>,
    /// Longer strings are cut to `width` bytes (the width came from
    /// netCDF-C's width attributes, which mean that) rather than refused.
    pub truncate_strings: bool,
}

impl ArrayPlan {
    /// The codec chain of the stored chunks in the model's terms
    /// ([`ChunkCodec`]), when every codec has one (numcodecs `shuffle` of
    /// the element's width, `zlib`) and elements are little-endian (or one
    /// byte wide); `None` otherwise, and for a scalar or a sharded array.
    pub fn stored_codecs(&self) -> Option<Vec<ChunkCodec>> {
        let plain = matches!(self.chain, ChunkChain::Bytes(_)) && self.shards.is_none();
        if !plain || self.chunks.is_empty() || (self.big && self.width > 1) {
            return None;
        }
        let filters = match &self.filters {
            Value::Null => &[][..],
            Value::Array(list) => list.as_slice(),
            _ => return None,
        };
        let compressor = (!self.compressor.is_null()).then_some(&self.compressor);
        filters
            .iter()
            .chain(compressor)
            .map(|c| match c.get("id").and_then(Value::as_str) {
                Some("zlib") => Some(ChunkCodec::Zlib),
                Some("shuffle")
                    if c.get("elementsize").and_then(Value::as_u64) == Some(self.width as u64) =>
                {
                    Some(ChunkCodec::Shuffle {
                        element_size: self.width,
                    })
                }
                _ => None,
            })
            .collect()
    }

    /// Decoded bytes of one chunk.
    pub fn chunk_bytes(&self) -> usize {
        self.chunks.iter().product::<u64>().max(1) as usize * self.width
    }

    /// A caller's slice encoded as chunk elements: its memory image (the
    /// slice itself, or a byte-swapped copy) when it is of the variable's
    /// type, else converted first, as [`encode`](Self::encode) converts.
    pub fn encode_native<'v>(
        &self,
        var: &str,
        values: NativeRef<'v>,
        dtype: DataType,
    ) -> Result<Cow<'v, [u8]>, WriteError> {
        if values.dtype() != dtype {
            return Ok(Cow::Owned(
                self.encode(var, &values.to_values(), dtype)?.into_owned(),
            ));
        }
        let bytes = nctk_model::with_native_ref!(values, s => slice_bytes(s, self.big));
        bytes.ok_or_else(|| WriteError::Request {
            var: var.to_string(),
            reason: format!("type {dtype} is not supported by the Zarr writer"),
        })
    }

    /// Values encoded as chunk elements (converted to the variable's type
    /// first): their own memory when already in the chunks' type and byte
    /// order. Strings longer than the element are an error.
    pub fn encode<'v>(
        &self,
        var: &str,
        values: &'v Values,
        dtype: DataType,
    ) -> Result<Cow<'v, [u8]>, WriteError> {
        let req = |reason: String| WriteError::Request {
            var: var.to_string(),
            reason,
        };
        if values.dtype() != dtype {
            if !(values.dtype().is_numeric() && dtype.is_numeric()) {
                return Err(req(format!(
                    "cannot write {} values to a {dtype} variable",
                    values.dtype()
                )));
            }
            let v = nctk_model::convert::convert(values, dtype).map_err(|e| req(e.to_string()))?;
            return Ok(Cow::Owned(self.encode(var, &v, dtype)?.into_owned()));
        }
        match values {
            Values::String(s) => {
                let mut out = Vec::with_capacity(s.len() * self.width);
                for x in s {
                    // Fixed-width strings have no null: a null is "".
                    let mut bytes = x.as_deref().unwrap_or_default().as_bytes();
                    if bytes.len() > self.width {
                        if !self.truncate_strings {
                            return Err(req(format!(
                                "string of {} bytes is longer than the maximum string length {} (set the variable's string width, or the _nczarr_maxstrlen attribute to have longer strings cut)",
                                bytes.len(),
                                self.width
                            )));
                        }
                        bytes = &bytes[..self.width];
                    }
                    out.extend_from_slice(bytes);
                    out.resize(out.len() + self.width - bytes.len(), 0);
                }
                Ok(Cow::Owned(out))
            }
            v => number_bytes(v, self.big).ok_or_else(|| {
                req(format!(
                    "type {} is not supported by the Zarr writer",
                    v.dtype()
                ))
            }),
        }
    }
}

fn var_path(schema: &Schema, v: VarId) -> String {
    let g = schema.group_path(schema.var(v).group);
    let name = &schema.var(v).name;
    if g == "/" {
        name.clone()
    } else {
        format!("{}/{name}", &g[1..])
    }
}

/// Builds the plan of `v`, its storage as `schema` gives it
/// ([`VarStorage`]: unset fields take netCDF-C's defaults).
pub fn plan(schema: &Schema, v: VarId, layout: WriteLayout) -> Result<ArrayPlan, WriteError> {
    let var = schema.var(v);
    let opts = &var.storage;
    let prefix = var_path(schema, v);
    let oerr = |reason: String| WriteError::Options {
        var: prefix.clone(),
        reason,
    };
    let big = opts.endianness == Some(Endianness::Big);
    let mut truncate_strings = false;
    let v3 = layout.is_v3();
    let (dtype, width, max_strlen_attr) = match var.dtype {
        // Zarr v3 has no one-byte text type every reader knows: uint8.
        DataType::Char if v3 => ("|u1".to_string(), 1, None),
        DataType::Char if layout == WriteLayout::NcZarr490 => ("<U1".to_string(), 1, None),
        // zarr-python refuses a byte order on S; NCZarr marks char with `>`.
        DataType::Char if matches!(layout, WriteLayout::PureZarr { .. }) => {
            ("|S1".to_string(), 1, None)
        }
        DataType::Char => (">S1".to_string(), 1, None),
        DataType::String => {
            // The option, else netCDF-C's attributes (see `strlen`).
            let by_attribute = strlen::width_set_by_attributes(schema, v);
            truncate_strings = opts.string_width.is_none() && by_attribute.is_some();
            let n = opts
                .string_width
                .or(by_attribute)
                .unwrap_or(DEFAULT_MAX_STRLEN);
            if n == 0 {
                return Err(oerr("the string width must be at least 1".into()));
            }
            let default = strlen::default_width(schema).unwrap_or(DEFAULT_MAX_STRLEN);
            let attr = (n != default && layout == WriteLayout::NcZarr).then_some(n);
            (format!("|S{n}"), n, attr)
        }
        // zarr-python wants `|` on one-byte types; netCDF-C writes `<`.
        t if t.size() == Some(1) && (v3 || matches!(layout, WriteLayout::PureZarr { .. })) => {
            (numeric_dtype(t, big).replace(['<', '>'], "|"), 1, None)
        }
        t if t.is_numeric() => (numeric_dtype(t, big), t.size().unwrap_or(1), None),
        t => {
            return Err(oerr(format!(
                "type {t} is not supported by the Zarr writer"
            )))
        }
    };
    let dims: Vec<(u64, bool)> = var
        .dims
        .iter()
        .map(|&d| (schema.dim(d).len, schema.dim(d).unlimited))
        .collect();
    let default = || {
        let ts = if var.dtype == DataType::String {
            8
        } else {
            width as u64
        };
        default_chunks(&dims, ts)
    };
    let chunks = match &opts.layout {
        _ if dims.is_empty() => vec![],
        Layout::Chunked(c) => {
            if c.len() != dims.len() || c.contains(&0) {
                return Err(oerr(format!(
                    "chunk sizes {c:?} do not fit {} dimensions (each must be at least 1)",
                    dims.len()
                )));
            }
            c.clone()
        }
        // One chunk holding the whole variable, as netCDF-C's NCZarr
        // stores a contiguous one (the default while a length is 0).
        Layout::Contiguous | Layout::Compact if dims.iter().all(|&(len, _)| len > 0) => {
            dims.iter().map(|&(len, _)| len).collect()
        }
        _ => default(),
    };
    // netCDF-C 4.9.0 has no unlimited dimensions: they are written fixed
    // at their current length, and its NCZarr refuses a chunk longer than
    // that ("NCZarr error").
    let chunks: Vec<u64> = if layout == WriteLayout::NcZarr490 {
        chunks
            .iter()
            .zip(&dims)
            .map(|(&c, &(len, unlim))| if unlim { c.min(len).max(1) } else { c })
            .collect()
    } else {
        chunks
    };
    let elems = chunks.iter().try_fold(1u64, |a, &c| a.checked_mul(c));
    match elems.and_then(|e| e.checked_mul(width as u64)) {
        Some(b) if b <= u32::MAX as u64 => {}
        _ => return Err(oerr(format!("chunks {chunks:?} exceed 4 GiB"))),
    }
    let fill = match &opts.fill_value {
        Some(f)
            if var.attribute("_FillValue").is_none() && f.dtype() == var.dtype && f.len() == 1 =>
        {
            f.clone()
        }
        _ => schema.fill_value(v),
    };
    let fill_plan = ArrayPlan {
        prefix: prefix.clone(),
        dtype: dtype.clone(),
        chunks: chunks.clone(),
        shards: None,
        width,
        big,
        fill: fill.clone(),
        fill_bytes: vec![],
        chain: ChunkChain::Bytes(Pipeline::default()),
        v3: None,
        compressor: Value::Null,
        filters: Value::Null,
        max_strlen_attr,
        truncate_strings,
    };
    let fill_bytes = match (&fill, var.dtype) {
        (Values::String(s), _) => {
            let mut b = s[0].as_deref().unwrap_or_default().as_bytes().to_vec();
            b.resize(width.max(b.len()), 0);
            b.truncate(width);
            b
        }
        _ => fill_plan.encode(&prefix, &fill, var.dtype)?.into_owned(),
    };
    let codecs = codec_list(opts, width, var.dims.is_empty() && !v3).map_err(oerr)?;
    let ctx = CodecContext {
        element_size: Some(width),
        dtype: Some(&dtype),
    };
    if v3 {
        let codecs = codecs
            .iter()
            .map(|c| Codec::from_json_with(c, &ctx))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| oerr(format!("codecs: {e}")))?;
        let shape = v3chain::Shape {
            chunks: &chunks,
            shards: opts.shards.as_deref().filter(|_| !chunks.is_empty()),
            width,
            big,
        };
        let (chain, array) = v3chain::build(var.dtype, &shape, codecs).map_err(oerr)?;
        let shards = shape.shards.map(|shard| ShardLayout {
            shard: shard.to_vec(),
            inner: chunks.clone(),
            extent: dims
                .iter()
                .map(|&(len, unlimited)| if unlimited { u64::MAX } else { len })
                .collect(),
            width,
        });
        // The chain in v2 terms, so that `stored_codecs` can tell whose
        // chunks it takes as they are.
        let filters = match &chain {
            ChunkChain::Bytes(p) => Value::Array(p.filters.iter().map(Codec::to_json).collect()),
            _ => Value::Null,
        };
        return Ok(ArrayPlan {
            fill_bytes,
            chain,
            filters,
            v3: Some(array),
            shards,
            ..fill_plan
        });
    }
    let (compressor, filters) = match codecs.split_last() {
        None => (Value::Null, Value::Null),
        Some((last, [])) => (last.clone(), Value::Null),
        Some((last, rest)) => (last.clone(), Value::Array(rest.to_vec())),
    };
    let pipeline = Pipeline::from_zarr_json(&compressor, &filters, &ctx)
        .map_err(|e| oerr(format!("codecs: {e}")))?;
    Ok(ArrayPlan {
        fill_bytes,
        chain: ChunkChain::Bytes(pipeline),
        compressor,
        filters,
        ..fill_plan
    })
}

/// `_Codecs` entries in numcodecs' spelling: those in Zarr v3's (a v3
/// store's chain, as its reader records it) become the codecs on bytes
/// they name, those inside `sharding_indexed` for its inner chunks; the
/// codecs that shape a chunk (`bytes`, `transpose`, `vlen-utf8`,
/// `vlen-bytes`) are the writer's own and are left out.
fn numcodecs_spelling(list: Vec<Value>, ctx: &CodecContext<'_>) -> Result<Vec<Value>, String> {
    let mut out = vec![];
    for c in list {
        let Some(name) = c
            .get("name")
            .and_then(Value::as_str)
            .filter(|_| c.get("id").is_none())
        else {
            out.push(c);
            continue;
        };
        let config = c
            .get("configuration")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        match name {
            "bytes" | "transpose" | "vlen-utf8" | "vlen-bytes" => {}
            "sharding_indexed" => {
                let inner = match config.get("codecs") {
                    Some(Value::Array(l)) => l.clone(),
                    _ => vec![],
                };
                out.extend(numcodecs_spelling(inner, ctx)?);
            }
            _ => {
                let codec = nctk_codec::v3::from_v3(name, &config, ctx)
                    .map_err(|e| format!("_Codecs: {e}"))?;
                out.push(codec.to_json());
            }
        }
    }
    Ok(out)
}

/// The numcodecs JSON list of a variable: `_Codecs` as given, else shuffle,
/// `_Filter` / deflate, fletcher32 in netCDF-C's order. Scalars get none.
fn codec_list(opts: &VarStorage, width: usize, scalar: bool) -> Result<Vec<Value>, String> {
    if scalar {
        return Ok(vec![]);
    }
    if let Some(text) = &opts.codecs {
        let v: Value =
            serde_json::from_str(text).map_err(|e| format!("_Codecs is not JSON: {e}"))?;
        let list = match v {
            Value::Array(list) => list,
            Value::Object(_) => vec![v],
            _ => return Err("_Codecs must be a JSON list of codecs".into()),
        };
        return numcodecs_spelling(list, &CodecContext::new(width));
    }
    let mut list = vec![];
    if opts.shuffle {
        // The element size itself, not netCDF-C's 0 ("the type's size"),
        // which numcodecs takes literally.
        list.push(serde_json::json!({"id": "shuffle", "elementsize": width}));
    }
    if let Some(text) = &opts.filters {
        let ctx = CodecContext::new(width);
        for spec in parse_filter_attr(text).map_err(|e| e.to_string())? {
            if opts.shuffle && spec.id == nctk_codec::H5Z_FILTER_SHUFFLE {
                continue;
            }
            let codec = Codec::from_hdf5(spec.id, &spec.params, &ctx)
                .map_err(|e| format!("_Filter: {e}"))?;
            list.push(codec.to_json());
        }
    }
    if let Some(level) = opts.deflate_level {
        if level > 9 {
            return Err(format!("deflate level {level} is not in 0..=9"));
        }
        list.push(serde_json::json!({"id": "zlib", "level": level}));
    }
    if opts.fletcher32 {
        list.push(serde_json::json!({"id": "fletcher32"}));
    }
    Ok(list)
}
