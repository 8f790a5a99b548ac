//! Several inputs as one dataset along a dimension, as kerchunk's
//! `MultiZarrToZarr` combines references: a variable that has the
//! dimension takes each input's chunks in turn along it, a variable that
//! has not is the first input's. The inputs must line up: the same
//! variables, types, dimensions, shapes (but along the dimension), chunk
//! shapes, codecs and fill values, and each input but the last a whole
//! number of chunks along the dimension, so every chunk of the combined
//! grid is one input's chunk. Anything else is an error naming the file
//! and the variable: a reference never points at the wrong bytes.

use nctk::model::{ChunkRef, DataType, Endianness, Selection, VarId};
use nctk::Dataset;
use rayon::prelude::*;

use super::RefsError;

/// The opened inputs, their URLs (what the references point at) and the
/// dimension they are combined along.
pub struct Collection<'a> {
    datasets: &'a [Dataset],
    urls: &'a [String],
    concat_dim: Option<String>,
    cut_bytes: Option<u64>,
    /// Where the inputs' chunk indexes are read (rayon's global pool when
    /// `None`).
    pool: Option<&'a rayon::ThreadPool>,
}

impl<'a> Collection<'a> {
    /// The inputs `datasets` opened from `urls` (as many, at least one),
    /// combined along `concat_dim` or, when none is named and there are
    /// several inputs, the first input's unlimited dimension; a variable
    /// stored whole and raw cut into pieces of at most `cut_bytes`.
    pub fn new(
        datasets: &'a [Dataset],
        urls: &'a [String],
        concat_dim: Option<&str>,
        cut_bytes: Option<u64>,
    ) -> Result<Collection<'a>, RefsError> {
        assert_eq!(datasets.len(), urls.len(), "one URL per dataset");
        let first = datasets.first().ok_or(RefsError::NoInputs)?;
        let concat_dim = match concat_dim {
            Some(name) => Some(name.to_string()),
            None if datasets.len() > 1 => {
                let schema = first.schema();
                let unlimited = schema
                    .root()
                    .dims
                    .iter()
                    .find(|&&d| schema.dim(d).unlimited);
                match unlimited {
                    Some(&d) => Some(schema.dim(d).name.clone()),
                    None => {
                        return Err(RefsError::Mismatch {
                            file: first.name().to_string(),
                            var: None,
                            reason: "several inputs need a dimension to combine them along \
                                 (--concat-dim): this one has no unlimited dimension"
                                .into(),
                        })
                    }
                }
            }
            None => None,
        };
        if let Some(name) = concat_dim.as_deref().filter(|_| datasets.len() > 1) {
            let schema = first.schema();
            if !schema.dim_ids().any(|d| schema.dim(d).name == name) {
                return Err(RefsError::Mismatch {
                    file: first.name().to_string(),
                    var: None,
                    reason: format!("it has no dimension {name:?} to combine the inputs along"),
                });
            }
        }
        Ok(Collection {
            datasets,
            urls,
            concat_dim,
            cut_bytes,
            pool: None,
        })
    }

    /// The collection with its inputs' chunk indexes read on `pool` (one
    /// with more threads than cores, for remote inputs).
    pub(crate) fn on_pool(self, pool: Option<&'a rayon::ThreadPool>) -> Collection<'a> {
        Collection { pool, ..self }
    }

    /// The first input, whose groups, variables and attributes the
    /// combined dataset has.
    pub fn first(&self) -> &'a Dataset {
        &self.datasets[0]
    }

    /// The chunk references of `var`, cut as asked.
    fn chunk_refs(&self, var: &nctk::Variable<'_>) -> Result<nctk::model::ChunkRefs, RefsError> {
        let refs = var.chunk_refs()?;
        let size = var.dtype().size().unwrap_or(1) as u64;
        Ok(match self.cut_bytes {
            Some(target) => super::cut::cut(refs, &var.shape(), size, target),
            None => refs,
        })
    }

    /// The URL of input `i`.
    pub fn url(&self, i: usize) -> &str {
        &self.urls[i]
    }
}

/// One variable's references in the combined dataset.
#[derive(Debug)]
pub struct VarRefs {
    /// Its combined shape.
    pub shape: Vec<u64>,
    /// Elements per chunk along each dimension.
    pub chunk_shape: Vec<u64>,
    /// Byte order of a decoded chunk's elements.
    pub endianness: Endianness,
    /// The chunks' codecs (numcodecs JSON), in the order applied when
    /// writing.
    pub codecs: Vec<String>,
    /// The stored chunks: combined grid coordinates, the input they are
    /// in, where.
    pub chunks: Vec<(Vec<u64>, usize, ChunkRef)>,
}

/// The largest variable (decoded bytes, all inputs) whose values are
/// inlined when its chunks do not line up across the inputs, as
/// kerchunk inlines the coordinate it combines along (a time coordinate
/// of one record per file stored in chunks of 512).
const INLINE_MAX: u64 = 1 << 20;

/// The references of variable `v` of the first input across the inputs.
pub fn variable(inputs: &Collection<'_>, v: VarId) -> Result<VarRefs, RefsError> {
    let first = inputs.first();
    let schema = first.schema();
    let path = schema.var_path(v);
    let axis = inputs.concat_dim.as_deref().and_then(|name| {
        schema
            .var(v)
            .dims
            .iter()
            .position(|&d| schema.dim(d).name == name)
    });
    let Some(k) = axis else {
        let var = first
            .variable(&path)
            .unwrap_or_else(|| unreachable!("the schema's variable {path} is the dataset's"));
        let refs = inputs.chunk_refs(&var)?;
        return Ok(VarRefs {
            shape: var.shape(),
            chunk_shape: refs.chunk_shape,
            endianness: refs.endianness,
            codecs: refs.codecs,
            chunks: refs.chunks.into_iter().map(|(c, r)| (c, 0, r)).collect(),
        });
    };
    // Each input's chunk index read at once (remote inputs wait on round
    // trips); the first input that does not line up is the one named.
    let read = || {
        inputs
            .datasets
            .par_iter()
            .map(|ds| {
                let var = lined_up(first, v, ds, k)?;
                Ok((var.shape(), inputs.chunk_refs(&var)?))
            })
            .collect::<Vec<Result<_, RefsError>>>()
    };
    let parts: Vec<_> = match inputs.pool {
        Some(pool) => pool.install(read),
        None => read(),
    }
    .into_iter()
    .collect::<Result<_, _>>()?;
    let unaligned = parts[..parts.len() - 1]
        .iter()
        .position(|(shape, refs)| shape[k] % refs.chunk_shape[k] != 0);
    if let Some(i) = unaligned {
        let total: u64 = parts.iter().map(|(s, _)| s.iter().product::<u64>()).sum();
        let dtype = schema.var(v).dtype;
        let fixed = dtype.is_numeric() || dtype == DataType::Char;
        let size = dtype.size().unwrap_or(1);
        if fixed && total * size as u64 <= INLINE_MAX {
            return inline(inputs, &path, k, size);
        }
        let (shape, refs) = &parts[i];
        return Err(RefsError::Mismatch {
            file: inputs.datasets[i].name().to_string(),
            var: Some(path),
            reason: format!(
                "its {} elements along {:?} are not a whole number of its chunks of {}: \
                 the next input's chunks cannot follow them",
                shape[k],
                inputs.concat_dim.as_deref().unwrap_or_default(),
                refs.chunk_shape[k]
            ),
        });
    }
    let mut parts = parts.into_iter().enumerate();
    let (_, (mut shape, refs)) = parts.next().expect("at least one input");
    let mut offset = shape[k].div_ceil(refs.chunk_shape[k]);
    let mut all = VarRefs {
        shape: shape.clone(),
        chunk_shape: refs.chunk_shape,
        endianness: refs.endianness,
        codecs: refs.codecs,
        chunks: refs.chunks.into_iter().map(|(c, r)| (c, 0, r)).collect(),
    };
    for (i, (their_shape, refs)) in parts {
        if refs.chunk_shape != all.chunk_shape
            || refs.codecs != all.codecs
            || refs.endianness != all.endianness
        {
            return Err(RefsError::Mismatch {
                file: inputs.datasets[i].name().to_string(),
                var: Some(path),
                reason: format!(
                    "chunks {:?} with codecs {:?} where {} has {:?} with {:?}",
                    refs.chunk_shape,
                    refs.codecs,
                    first.name(),
                    all.chunk_shape,
                    all.codecs
                ),
            });
        }
        for (mut c, r) in refs.chunks {
            c[k] += offset;
            all.chunks.push((c, i, r));
        }
        shape[k] += their_shape[k];
        offset += their_shape[k].div_ceil(all.chunk_shape[k]);
    }
    all.shape = shape;
    Ok(all)
}

/// Input `ds`'s variable of the path of the first input's `v`, checked to
/// line up with it: the same type, dimensions, shape but along axis `k`
/// and fill value.
fn lined_up<'d>(
    first: &Dataset,
    v: VarId,
    ds: &'d Dataset,
    k: usize,
) -> Result<nctk::Variable<'d>, RefsError> {
    let schema = first.schema();
    let path = schema.var_path(v);
    let mismatch = |reason: String| RefsError::Mismatch {
        file: ds.name().to_string(),
        var: Some(path.clone()),
        reason,
    };
    let var = ds
        .variable(&path)
        .ok_or_else(|| mismatch(format!("no such variable (it is in {})", first.name())))?;
    let (own, theirs) = (schema.var(v), ds.schema().var(var.id()));
    if theirs.dtype != own.dtype {
        return Err(mismatch(format!(
            "type {} where {} has {}",
            theirs.dtype,
            first.name(),
            own.dtype
        )));
    }
    let first_var = first.variable(&path).expect("the first input's variable");
    if var.dimension_names() != first_var.dimension_names() {
        return Err(mismatch(format!(
            "dimensions {:?} where {} has {:?}",
            var.dimension_names(),
            first.name(),
            first_var.dimension_names()
        )));
    }
    let across = |s: Vec<u64>| -> Vec<u64> {
        s.into_iter()
            .enumerate()
            .filter(|&(d, _)| d != k)
            .map(|(_, n)| n)
            .collect()
    };
    if across(var.shape()) != across(first_var.shape()) {
        return Err(mismatch(format!(
            "shape {:?} where {} has {:?} (they may differ only along the combined dimension)",
            var.shape(),
            first.name(),
            first_var.shape()
        )));
    }
    if ds.schema().fill_value(var.id()) != schema.fill_value(v) {
        return Err(mismatch(format!(
            "a fill value other than {}'s",
            first.name()
        )));
    }
    Ok(var)
}

/// The variable at `path` read from every input and concatenated along
/// axis `k`, as one chunk of raw little-endian bytes (`size` bytes per
/// element) inside the references.
fn inline(
    inputs: &Collection<'_>,
    path: &str,
    k: usize,
    size: usize,
) -> Result<VarRefs, RefsError> {
    let mut shape: Option<Vec<u64>> = None;
    let mut pieces = Vec::with_capacity(inputs.datasets.len());
    for ds in inputs.datasets {
        let var = ds.variable(path).expect("checked by lined_up");
        let own = var.shape();
        pieces.push((own.clone(), var.read_values(&Selection::all(&own))?));
        match shape.as_mut() {
            Some(s) => s[k] += own[k],
            None => shape = Some(own),
        }
    }
    let shape = shape.expect("at least one input");
    // Row-major concatenation along axis k: for each index of the axes
    // before k, each input's block of (its length along k) x (the rest).
    let outer: u64 = shape[..k].iter().product();
    let inner: u64 = shape[k + 1..].iter().product();
    let mut bytes = Vec::new();
    let encoded: Vec<(usize, Vec<u8>)> = pieces
        .iter()
        .map(|(s, values)| ((s[k] * inner) as usize * size, values.to_bytes(false)))
        .collect();
    for o in 0..outer as usize {
        for (block, b) in &encoded {
            bytes.extend_from_slice(&b[o * block..(o + 1) * block]);
        }
    }
    let origin = vec![0; shape.len()];
    Ok(VarRefs {
        chunk_shape: shape.iter().map(|&n| n.max(1)).collect(),
        shape,
        endianness: Endianness::Little,
        codecs: Vec::new(),
        chunks: vec![(origin, 0, ChunkRef::Inline(bytes))],
    })
}
