//! How each variable of a netCDF-4 output (an NCZarr/Zarr store) is
//! stored, written into the output schema's [`VarStorage`], which the
//! writer takes: its chunk lengths and codecs, from `-c`, `-d`, `-s`, `-F`, `-M`, the input's own storage
//! (store inputs) and netCDF-C's defaults, decided as nccopy decides them
//! (`copy_chunking`, `copy_var_specials` and `copy_var_filter` in
//! `nccopy.c`):
//!
//! * chunks: a `var:n1,...` specification; else, per dimension, a
//!   `dim/n` specification, the input's chunk length, netCDF-C's default
//!   ([`nctk_model::default_chunks`]). `var:`, `var:contiguous`,
//!   `var:compact` and `/` (when nothing is filtered) ask for one chunk
//!   holding the whole variable, which is how netCDF-C's NCZarr stores a
//!   contiguous variable; so does a chunk smaller than `-M` bytes (default
//!   8192) in a variable without unlimited dimensions, when that one chunk
//!   is at most 16 MiB. A store input's own chunks are kept as they are
//!   (unless `-c` or `-M` is given), so a store copies with its shape.
//! * codecs: `-d n` (n > 0) deflates at level n, with shuffle if `-s`; `-d 0`
//!   removes deflate, shuffle and other filters; without `-d`, the input's
//!   deflate and shuffle are kept (a store's codecs, a netCDF-4 file's
//!   HDF5 filters). Other filters come from `-F` for the
//!   variable, else from the input, and only when nothing deflates (as in
//!   nccopy). fletcher32 is kept from the input. `-F none` removes every
//!   filter.

use nctk_model::default_chunks as store_default_chunks;
use nctk_model::string_width::DEFAULT_MAX_STRLEN as STORE_DEFAULT_STRING_WIDTH;
use nctk_model::{DataType, Layout, Schema, VarId, VarStorage};
use serde_json::{json, Value};

use super::chunkspec::{find_dim, ChunkSpec, VarLayout};
use super::filterspec::FilterOption;
use super::{CopyError, CopyOptions};

/// nccopy's `CHUNK_THRESHOLD`: variables whose chunks would be smaller are
/// not chunked (here: one chunk), unless they have an unlimited dimension.
pub const DEFAULT_MIN_CHUNK_BYTES: usize = 8192;

/// The largest chunk small chunks are merged into (netCDF-C's default
/// chunk size, 16 MiB): a larger variable keeps its small chunks, so no
/// copy ever makes one huge chunk (which would have to be held in memory
/// whole).
const MAX_MERGED_CHUNK_BYTES: u64 = 16 << 20;

/// The `-c` chunk specifications and `-F` filters of `opts` that apply to
/// the output `schema`, parsed.
pub(crate) fn chunk_and_filter_options(
    schema: &Schema,
    opts: &CopyOptions,
) -> Result<(Vec<ChunkSpec>, Vec<FilterOption>), CopyError> {
    let filters = opts
        .filters
        .iter()
        .map(|f| FilterOption::parse(f))
        .collect::<Result<Vec<_>, _>>()?;
    Ok((applicable_specs(&opts.chunkspecs, schema), filters))
}

/// The specifications of `specs` naming variables of `schema`, parsed.
/// They were checked against the input; one naming something the output
/// lacks (left out by -V or -G) does not apply.
fn applicable_specs(specs: &[String], schema: &Schema) -> Vec<ChunkSpec> {
    specs
        .iter()
        .filter_map(|s| ChunkSpec::parse(s, schema).ok())
        .collect()
}

/// The storage of every variable of `schema` (the output's, each variable
/// carrying the input's storage facts) under `opts`, in variable order.
pub(crate) fn decide(schema: &Schema, opts: &CopyOptions) -> Result<Vec<VarStorage>, CopyError> {
    let (chunkspecs, filters) = chunk_and_filter_options(schema, opts)?;
    let shardspecs = applicable_specs(&opts.shards, schema);
    schema
        .var_ids()
        .map(|v| {
            let var = schema.var(v);
            let codecs = codecs(schema, v, opts, &filters)?;
            let layout = match var.dims.is_empty() {
                true => Layout::Unset,
                false => Layout::Chunked(chunks(schema, v, opts, &chunkspecs, !codecs.is_empty())),
            };
            let shards = match &layout {
                Layout::Chunked(c) => shards(schema, v, c, &shardspecs),
                _ => None,
            };
            Ok(VarStorage {
                layout,
                codecs: (!codecs.is_empty()).then(|| Value::Array(codecs).to_string()),
                endianness: var.storage.endianness,
                no_fill: var.storage.no_fill,
                // Strings wider than netCDF-C's default keep their width
                // (the default would refuse them); narrower ones, and
                // widths set by attributes, come out as they went in.
                string_width: var
                    .storage
                    .string_width
                    .filter(|&n| var.dtype == DataType::String && n > STORE_DEFAULT_STRING_WIDTH),
                // A Zarr input's own fill_value, so missing chunks read
                // the same and fill-only chunks stay out of the copy.
                fill_value: var.storage.fill_value.clone(),
                shards,
                ..VarStorage::default()
            })
        })
        .collect()
}

/// Bytes per element as netCDF-C's default chunking counts them.
fn type_size(dtype: DataType) -> u64 {
    match dtype {
        DataType::String => 8,
        t => t.size().unwrap_or(1) as u64,
    }
}

/// The chunk lengths of `v` (rank at least 1).
pub(crate) fn chunks(
    schema: &Schema,
    v: VarId,
    opts: &CopyOptions,
    specs: &[ChunkSpec],
    filtered: bool,
) -> Vec<u64> {
    let var = schema.var(v);
    let dims: Vec<(u64, bool)> = var
        .dims
        .iter()
        .map(|&d| (schema.dim(d).len, schema.dim(d).unlimited))
        .collect();
    let unlimited = dims.iter().any(|&(_, u)| u);
    let whole: Vec<u64> = dims.iter().map(|&(len, _)| len.max(1)).collect();
    let var_spec = specs.iter().rev().find_map(|s| match s {
        ChunkSpec::Var { var, layout } if schema.var_by_path(var) == Some(v) => Some(layout),
        _ => None,
    });
    // Whether the chunks are the input's own (no -c for the variable).
    let mut kept = false;
    let chunks: Vec<u64> = match var_spec {
        Some(VarLayout::Chunked(c)) => c.iter().map(|&n| n.max(1)).collect(),
        Some(_) if !unlimited => return whole,
        _ if specs.contains(&ChunkSpec::Off) && !unlimited && !filtered => return whole,
        _ => {
            let ts = type_size(var.dtype);
            let default = store_default_chunks(&dims, ts);
            let input = match &var.storage.layout {
                Layout::Chunked(c) if c.len() == dims.len() => Some(c),
                _ => None,
            };
            let chosen: Vec<u64> = (0..dims.len())
                .map(|i| {
                    let d = var.dims[i];
                    let per_dim = dim_spec(schema, specs, d);
                    let (len, unlim) = dims[i];
                    let from_input = input.map(|c| {
                        if unlim {
                            c[i].max(1)
                        } else {
                            c[i].clamp(1, len.max(1))
                        }
                    });
                    per_dim.or(from_input).unwrap_or(default[i])
                })
                .collect();
            kept = input.is_some_and(|c| {
                c.iter()
                    .zip(&chosen)
                    .zip(&dims)
                    .all(|((&a, &b), &(len, unlim))| b == if unlim { a } else { a.min(len) }.max(1))
            });
            chosen
        }
    };
    // A store input's chunks are kept unless -M is given; small chunks
    // become one only while that one stays small.
    if kept && opts.min_chunk_bytes.is_none() {
        return chunks;
    }
    let min = opts.min_chunk_bytes.unwrap_or(DEFAULT_MIN_CHUNK_BYTES) as u64;
    let size = |c: &[u64]| {
        c.iter()
            .fold(type_size(var.dtype), |a: u64, &n| a.saturating_mul(n))
    };
    if size(&chunks) < min && !unlimited && size(&whole) <= MAX_MERGED_CHUNK_BYTES {
        whole
    } else {
        chunks
    }
}

/// The length the last `dim/n` spec naming dimension `d` asks for.
pub(crate) fn dim_spec(schema: &Schema, specs: &[ChunkSpec], d: nctk_model::DimId) -> Option<u64> {
    specs.iter().rev().find_map(|s| match s {
        ChunkSpec::Dims(list) => list
            .iter()
            .rev()
            .find(|(name, _)| find_dim(schema, name) == Some(d))
            .map(|&(_, n)| n),
        _ => None,
    })
}

/// The shard lengths of `v` chunked as `chunks` (Zarr v3 outputs; others
/// ignore them): per dimension a `--shards` length (`dim/n,...` or
/// `var:n1,n2,...`, the syntax of `-c`) rounded up to whole chunks and cut
/// to the chunks covering a fixed dimension, else the input's own shard
/// length when it holds whole chunks, else one chunk. `None` when neither
/// `--shards` nor the input shards the variable.
fn shards(schema: &Schema, v: VarId, chunks: &[u64], specs: &[ChunkSpec]) -> Option<Vec<u64>> {
    let var = schema.var(v);
    let input = var
        .storage
        .shards
        .as_ref()
        .filter(|s| s.len() == chunks.len() && s.iter().zip(chunks).all(|(&s, &c)| s % c == 0));
    let var_spec = specs.iter().rev().find_map(|s| match s {
        ChunkSpec::Var {
            var,
            layout: VarLayout::Chunked(n),
        } if schema.var_by_path(var) == Some(v) => Some(n.clone()),
        _ => None,
    });
    let asked: Vec<Option<u64>> = (0..chunks.len())
        .map(|i| {
            let d = var.dims[i];
            var_spec
                .as_ref()
                .map(|n| n[i])
                .or_else(|| dim_spec(schema, specs, d))
        })
        .collect();
    if input.is_none() && asked.iter().all(Option::is_none) {
        return None;
    }
    let shard = (0..chunks.len())
        .map(|i| {
            let c = chunks[i];
            let dim = schema.dim(var.dims[i]);
            match asked[i] {
                Some(n) => {
                    let whole = n.div_ceil(c).max(1) * c;
                    if dim.unlimited {
                        whole
                    } else {
                        whole.min(dim.len.div_ceil(c).max(1) * c)
                    }
                }
                None => input.map_or(c, |s| s[i]),
            }
        })
        .collect();
    Some(shard)
}

/// The input's codecs, sorted into what nccopy treats apart.
#[derive(Default)]
struct InputCodecs {
    deflate: Option<u32>,
    shuffle: bool,
    fletcher32: bool,
    others: Vec<Value>,
}

/// The input's filters: a store's codecs (numcodecs JSON); a netCDF-4
/// file's deflate, shuffle and fletcher32 and its other HDF5 filters (the
/// `_Filter` text, mapped to codecs as `-F` maps them).
fn input_codecs(schema: &Schema, v: VarId) -> Result<InputCodecs, CopyError> {
    let var = schema.var(v);
    let st = &var.storage;
    let mut out = InputCodecs {
        deflate: st.deflate_level,
        shuffle: st.shuffle,
        fletcher32: st.fletcher32,
        others: vec![],
    };
    let Some(text) = &st.codecs else {
        if let Some(filters) = st.filters.as_deref().filter(|f| !f.is_empty()) {
            let spec = FilterOption::parse(&format!("*,{filters}"))?;
            let width = var.dtype.size().unwrap_or(1);
            for f in spec.filters.iter().flatten() {
                out.others
                    .push(f.to_json(width).map_err(|source| CopyError::Filter {
                        var: var.name.clone(),
                        source,
                    })?);
            }
        }
        return Ok(out);
    };
    let list: Vec<Value> = serde_json::from_str(text).map_err(|source| CopyError::InputCodecs {
        var: schema.var(v).name.clone(),
        codecs: text.clone(),
        source,
    })?;
    for c in list {
        match c.get("id").and_then(Value::as_str) {
            Some("zlib") => {
                out.deflate = Some(c.get("level").and_then(Value::as_u64).unwrap_or(1) as u32)
            }
            Some("shuffle") => out.shuffle = true,
            Some("fletcher32") => out.fletcher32 = true,
            _ => out.others.push(c),
        }
    }
    Ok(out)
}

/// The numcodecs list of `v`, in netCDF-C's order: shuffle, other filters,
/// deflate, fletcher32. Scalars have none.
fn codecs(
    schema: &Schema,
    v: VarId,
    opts: &CopyOptions,
    filters: &[FilterOption],
) -> Result<Vec<Value>, CopyError> {
    let var = schema.var(v);
    if var.dims.is_empty() {
        return Ok(vec![]);
    }
    let path = format!(
        "{}/{}",
        schema.group_path(var.group).trim_end_matches('/'),
        var.name
    );
    let mine: Vec<&FilterOption> = filters.iter().filter(|f| f.names(&path)).collect();
    if mine.iter().any(|f| f.filters.is_none()) {
        return Ok(vec![]);
    }
    let input = input_codecs(schema, v)?;
    let width = var.dtype.size().unwrap_or(1);
    let (shuffle, deflate) = match opts.deflate {
        None => (input.shuffle, input.deflate),
        Some(0) => (false, None),
        Some(level) => (opts.shuffle, Some(level)),
    };
    let mut list = vec![];
    if shuffle {
        list.push(json!({"id": "shuffle", "elementsize": width}));
    }
    if deflate.is_none() && opts.deflate != Some(0) {
        let given: Vec<Value> = mine
            .iter()
            .flat_map(|f| f.filters.iter().flatten())
            .map(|f| f.to_json(width))
            .collect::<Result<_, _>>()
            .map_err(|source| CopyError::Filter {
                var: path.to_string(),
                source,
            })?;
        let others = if given.is_empty() {
            input.others
        } else {
            given
        };
        let is_shuffle = |c: &Value| c.get("id").and_then(Value::as_str) == Some("shuffle");
        list.extend(others.into_iter().filter(|c| !(shuffle && is_shuffle(c))));
    }
    if let Some(level) = deflate {
        list.push(json!({"id": "zlib", "level": level}));
    }
    if input.fletcher32 {
        list.push(json!({"id": "fletcher32"}));
    }
    Ok(list)
}

#[cfg(test)]
mod tests {
    use super::*;
    use nctk_model::GroupId;

    /// `t(time, y, x)` float with `time` unlimited, `small(x)` short, and
    /// `z(y, x)` stored chunked (32, 64) with shuffle + blosc by its input.
    fn schema() -> Schema {
        let mut s = Schema::new();
        let r = GroupId::ROOT;
        let time = s.add_dim(r, "time", 10, true).unwrap();
        let y = s.add_dim(r, "y", 721, false).unwrap();
        let x = s.add_dim(r, "x", 1440, false).unwrap();
        s.add_var(r, "t", DataType::Float, &[time, y, x]).unwrap();
        s.add_var(r, "small", DataType::Short, &[x]).unwrap();
        let z = s.add_var(r, "z", DataType::Double, &[y, x]).unwrap();
        s.var_mut(z).storage.layout = Layout::Chunked(vec![32, 64]);
        s.var_mut(z).storage.codecs = Some(
            r#"[{"id":"shuffle","elementsize":8},{"id":"blosc","cname":"lz4","clevel":5,"shuffle":1,"blocksize":0}]"#
                .into(),
        );
        s
    }

    fn with(f: impl FnOnce(&mut CopyOptions)) -> Vec<VarStorage> {
        let mut o = CopyOptions::default();
        f(&mut o);
        decide(&schema(), &o).unwrap()
    }

    /// The chunk lengths decided, `None` when left to the writer.
    fn chunk_sizes(s: &VarStorage) -> Option<Vec<u64>> {
        match &s.layout {
            Layout::Chunked(c) => Some(c.clone()),
            _ => None,
        }
    }

    #[test]
    fn shards_hold_whole_chunks() {
        assert!(with(|_| {}).iter().all(|s| s.shards.is_none()));
        let d = with(|o| {
            o.chunkspecs = vec!["time/1,x/100".into()];
            o.shards = vec!["time/5,x/250".into(), "z:64,200".into()];
        });
        let (c, s) = (chunk_sizes(&d[0]).unwrap(), d[0].shards.clone().unwrap());
        assert_eq!(c[0], 1);
        // time as asked; y one chunk; x rounded up to whole chunks.
        assert_eq!(s, vec![5, c[1], 300]);
        // A var: spec, each length rounded up to whole chunks (z keeps its
        // input's 32 along y; -c gives it 100 along x).
        assert_eq!(chunk_sizes(&d[2]), Some(vec![32, 100]));
        assert_eq!(d[2].shards, Some(vec![64, 200]));
        // small(x): x/250 rounded to its chunks, cut to the whole length.
        let small = chunk_sizes(&d[1]).unwrap();
        let want = 250u64.div_ceil(small[0]) * small[0];
        assert_eq!(
            d[1].shards,
            Some(vec![want.min(1440u64.div_ceil(small[0]) * small[0])])
        );
    }

    #[test]
    fn chunks_as_nccopy_chooses_them() {
        let d = with(|_| {});
        assert_eq!(chunk_sizes(&d[0]), Some(vec![1, 721, 1440]));
        assert_eq!(chunk_sizes(&d[1]), Some(vec![1440]));
        assert_eq!(chunk_sizes(&d[2]), Some(vec![32, 64]), "the input's");
        let c = with(|o| o.chunkspecs = vec!["t:2,100,100".into(), "y/20".into()]);
        assert_eq!(chunk_sizes(&c[0]), Some(vec![2, 100, 100]));
        assert_eq!(chunk_sizes(&c[2]), Some(vec![20, 64]));
        let c = with(|o| o.chunkspecs = vec!["z:contiguous".into(), "/".into()]);
        assert_eq!(chunk_sizes(&c[2]), Some(vec![721, 1440]));
        assert_eq!(
            chunk_sizes(&c[0]),
            Some(vec![1, 721, 1440]),
            "unlimited stays chunked"
        );
        // Under -M bytes: one chunk (not for the unlimited variable); the
        // input's chunks too.
        let c = with(|o| o.min_chunk_bytes = Some(1 << 20));
        assert_eq!(chunk_sizes(&c[2]), Some(vec![721, 1440]));
        // A large variable keeps small input chunks: no merging into one
        // huge chunk, even with -M.
        let mut big = Schema::new();
        let x = big
            .add_dim(GroupId::ROOT, "x", 1_000_000_000, false)
            .unwrap();
        let v = big
            .add_var(GroupId::ROOT, "v", DataType::UByte, &[x])
            .unwrap();
        big.var_mut(v).storage.layout = Layout::Chunked(vec![4096]);
        for m in [None, Some(1 << 20)] {
            let o = CopyOptions {
                min_chunk_bytes: m,
                ..CopyOptions::default()
            };
            let got = decide(&big, &o).unwrap();
            assert_eq!(chunk_sizes(&got[0]), Some(vec![4096]), "-M {m:?}");
        }
        let c = with(|o| o.chunkspecs = vec!["x/4".into(), "time/1".into()]);
        assert_eq!(chunk_sizes(&c[1]), Some(vec![1440]));
        assert_eq!(chunk_sizes(&c[0]), Some(vec![1, 721, 4]));
    }

    #[test]
    fn codecs_as_nccopy_chooses_them() {
        let codecs = |o: &VarStorage| o.codecs.clone().unwrap_or_default();
        let d = with(|_| {});
        assert_eq!(d[0].codecs, None);
        assert!(codecs(&d[2]).contains("blosc") && codecs(&d[2]).contains("shuffle"));
        let c = with(|o| {
            o.deflate = Some(1);
            o.shuffle = true;
        });
        assert_eq!(
            codecs(&c[0]),
            r#"[{"id":"shuffle","elementsize":4},{"id":"zlib","level":1}]"#
        );
        assert!(
            !codecs(&c[2]).contains("blosc"),
            "deflate replaces other filters"
        );
        let c = with(|o| o.deflate = Some(0));
        assert_eq!(c[2].codecs, None);
        let c = with(|o| o.filters = vec!["t&small,307,9".into(), "z,none".into()]);
        assert_eq!(codecs(&c[0]), r#"[{"id":"bz2","level":9}]"#);
        assert_eq!(c[2].codecs, None);
        let c = with(|o| o.filters = vec!["z,32015,3".into()]);
        assert_eq!(
            codecs(&c[2]),
            r#"[{"id":"shuffle","elementsize":8},{"id":"zstd","level":3,"checksum":false}]"#
        );
    }
}
