//! Several inputs as one dataset along a dimension, as kerchunk's
//! `MultiZarrToZarr` combines references: a variable that has the
//! dimension takes each input's chunks in turn along it, a variable that
//! has not is the first input's. The inputs must line up: the same
//! variables, types, dimensions, shapes (but along the dimension), chunk
//! shapes, codecs and fill values, and each input but the last a whole
//! number of chunks along the dimension, so every chunk of the combined
//! grid is one input's chunk. Anything else is an error naming the file
//! and the variable: a reference never points at the wrong bytes.
//!
//! The inputs come a few at a time ([`Combiner::add`], from the module
//! `stream`), in order: what is kept of the inputs already seen is each
//! variable's combined shape and, for a variable small enough to be
//! inlined, its chunks or values (at most [`INLINE_MAX`] bytes of
//! values); every other chunk is handed on as soon as its input is read.

use std::collections::BTreeMap;

use nctk::model::{ChunkRef, ChunkRefs, DataType, Endianness, Selection, Values, VarId};
use nctk::Dataset;

use super::RefsError;

/// The inputs combined: the first one, opened (its groups, variables and
/// attributes are the combined dataset's), every input's name as given
/// and URL (what the references point at), and the dimension they are
/// combined along.
pub struct Collection {
    first: Dataset,
    names: Vec<String>,
    urls: Vec<String>,
    concat_dim: Option<String>,
    cut_bytes: Option<u64>,
}

impl Collection {
    /// The inputs named `names` (as given, for messages), whose chunks are
    /// referenced at `urls` (as many, at least one), `first` the first of
    /// them opened, combined along `concat_dim` or, when none is named and
    /// there are several inputs, the first input's unlimited dimension; a
    /// variable stored whole and raw cut into pieces of at most
    /// `cut_bytes`.
    pub fn new(
        first: Dataset,
        names: Vec<String>,
        urls: Vec<String>,
        concat_dim: Option<&str>,
        cut_bytes: Option<u64>,
    ) -> Result<Collection, RefsError> {
        if names.is_empty() || names.len() != urls.len() {
            return Err(RefsError::NoInputs);
        }
        let several = names.len() > 1;
        let schema = first.schema();
        let mismatch = |reason: String| RefsError::Mismatch {
            file: first.name().to_string(),
            var: None,
            reason,
        };
        let concat_dim = match concat_dim {
            Some(name) => Some(name.to_string()),
            None if several => {
                let unlimited = schema
                    .root()
                    .dims
                    .iter()
                    .find(|&&d| schema.dim(d).unlimited);
                match unlimited {
                    Some(&d) => Some(schema.dim(d).name.clone()),
                    None => {
                        return Err(mismatch(
                            "several inputs need a dimension to combine them along \
                             (--concat-dim): this one has no unlimited dimension"
                                .into(),
                        ))
                    }
                }
            }
            None => None,
        };
        if let Some(name) = concat_dim.as_deref().filter(|_| several) {
            if !schema.dim_ids().any(|d| schema.dim(d).name == name) {
                return Err(mismatch(format!(
                    "it has no dimension {name:?} to combine the inputs along"
                )));
            }
        }
        Ok(Collection {
            first,
            names,
            urls,
            concat_dim,
            cut_bytes,
        })
    }

    /// The first input, whose groups, variables and attributes the
    /// combined dataset has.
    pub fn first(&self) -> &Dataset {
        &self.first
    }

    /// How many inputs there are.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Whether there are no inputs (never: a collection has at least one).
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// Input `i` as given.
    pub fn name(&self, i: usize) -> &str {
        &self.names[i]
    }

    /// The URL of input `i`.
    pub fn url(&self, i: usize) -> &str {
        &self.urls[i]
    }

    /// The chunk references of `var`, cut as asked.
    fn chunk_refs(&self, var: &nctk::Variable<'_>) -> Result<ChunkRefs, RefsError> {
        let refs = var.chunk_refs()?;
        let size = var.dtype().size().unwrap_or(1) as u64;
        Ok(match self.cut_bytes {
            Some(target) => super::cut::cut(refs, &var.shape(), size, target),
            None => refs,
        })
    }
}

/// A variable's layout in the combined dataset, as far as the inputs seen
/// so far make it.
#[derive(Debug, Clone)]
pub struct VarLayout {
    /// The variable in the first input.
    pub var: VarId,
    /// Its name in the references (`a/b/name` below the root group).
    pub name: String,
    /// The axis the inputs are combined along, when it has the dimension.
    pub axis: Option<usize>,
    /// Its combined shape.
    pub shape: Vec<u64>,
    /// Elements per chunk along each dimension.
    pub chunk_shape: Vec<u64>,
    /// Byte order of a decoded chunk's elements.
    pub endianness: Endianness,
    /// The chunks' codecs (numcodecs JSON), in the order applied when
    /// writing.
    pub codecs: Vec<String>,
    /// Chunks stored (referenced or inline).
    pub stored: usize,
}

impl VarLayout {
    /// Chunks along each dimension of the combined grid.
    pub fn grid(&self) -> Vec<u64> {
        self.shape
            .iter()
            .zip(&self.chunk_shape)
            .map(|(n, c)| n.div_ceil((*c).max(1)))
            .collect()
    }
}

/// Chunks of a variable: grid coordinates in the combined dataset, the
/// input they are in, where.
pub type Chunks = Vec<(Vec<u64>, usize, ChunkRef)>;

/// The largest variable (decoded bytes, all inputs) whose values are
/// inlined when its chunks do not line up across the inputs, as
/// kerchunk inlines the coordinate it combines along (a time coordinate
/// of one record per file stored in chunks of 512).
pub const INLINE_MAX: u64 = 1 << 20;

/// What one input gives a variable: its shape and its chunk references,
/// or its values once the variable is inlined.
pub struct Part {
    shape: Vec<u64>,
    content: Content,
}

enum Content {
    Refs(ChunkRefs),
    Values(Values),
}

/// Inline values: each input's shape and values, by input.
type Pieces = BTreeMap<usize, (Vec<u64>, Values)>;

/// An inlined variable's values: those read, and the inputs before
/// `until` all need theirs (those read before the variable was inlined
/// are read again).
struct Inline {
    pieces: Pieces,
    until: usize,
}

/// One variable of the first input combined across the inputs, one
/// input at a time in order.
pub struct Combiner {
    layout: VarLayout,
    path: String,
    /// Bytes per element when the variable could be inlined (a fixed-size
    /// type along the combined dimension), else `None`.
    inline_size: Option<usize>,
    /// The grid offset along the axis of the next input's chunks.
    next: u64,
    /// Chunks held back while the variable may still be inlined.
    held: Chunks,
    /// The first input (not the last) that is not a whole number of
    /// chunks along the axis: the variable is inlined, or this is the
    /// error.
    unaligned: Option<RefsError>,
    /// The first input whose chunks or codecs differ from the first's:
    /// an error unless the variable is inlined.
    differs: Option<RefsError>,
    /// The values, once the variable is inlined.
    inline: Option<Inline>,
}

impl Combiner {
    /// Variable `v` of the collection's first input, named `name` in the
    /// references, before any input is added.
    pub fn new(inputs: &Collection, v: VarId, name: String) -> Combiner {
        let schema = inputs.first.schema();
        let axis = inputs.concat_dim.as_deref().and_then(|dim| {
            schema
                .var(v)
                .dims
                .iter()
                .position(|&d| schema.dim(d).name == dim)
        });
        let dtype = schema.var(v).dtype;
        let fixed = dtype.is_numeric() || dtype == DataType::Char;
        Combiner {
            layout: VarLayout {
                var: v,
                name,
                axis,
                shape: vec![],
                chunk_shape: vec![],
                endianness: Endianness::Little,
                codecs: vec![],
                stored: 0,
            },
            path: schema.var_path(v),
            inline_size: dtype.size().filter(|_| fixed && axis.is_some()),
            next: 0,
            held: vec![],
            unaligned: None,
            differs: None,
            inline: None,
        }
    }

    /// Its layout so far.
    pub fn layout(&self) -> &VarLayout {
        &self.layout
    }

    /// Whether input `i` matters to this variable: every input for a
    /// variable along the combined dimension, else the first only.
    pub fn wants(&self, i: usize) -> bool {
        i == 0 || self.layout.axis.is_some()
    }

    /// What input `i`, opened as `ds`, gives the variable: checked to line
    /// up with the first input, then its chunk references or, once the
    /// variable is inlined, its values.
    pub fn part(&self, inputs: &Collection, i: usize, ds: &Dataset) -> Result<Part, RefsError> {
        let var = self.variable(inputs, i, ds)?;
        let shape = var.shape();
        let content = if self.inline.is_some() {
            Content::Values(var.read_values(&Selection::all(&shape))?)
        } else {
            Content::Refs(inputs.chunk_refs(&var)?)
        };
        Ok(Part { shape, content })
    }

    /// The variable in input `i`, opened as `ds`, checked to line up.
    fn variable<'d>(
        &self,
        inputs: &Collection,
        i: usize,
        ds: &'d Dataset,
    ) -> Result<nctk::Variable<'d>, RefsError> {
        match self.layout.axis {
            Some(k) => lined_up(inputs, self.layout.var, i, ds, k),
            None => Ok(ds
                .variable(&self.path)
                .unwrap_or_else(|| unreachable!("the first input's variable {}", self.path))),
        }
    }

    /// Adds input `i`'s part (inputs come in order, from 0), and returns
    /// the chunks that can be written now: none while the variable may
    /// still be inlined. An input that does not line up is an error as
    /// soon as the variable can no longer be inlined.
    pub fn add(&mut self, inputs: &Collection, i: usize, part: Part) -> Result<Chunks, RefsError> {
        let Part { shape, content } = part;
        let refs = match content {
            Content::Values(values) => {
                let k = self
                    .layout
                    .axis
                    .expect("only a combined variable is inlined");
                self.layout.shape[k] += shape[k];
                let inline = self.inline.as_mut().expect("values once inlined");
                inline.pieces.insert(i, (shape, values));
                inline.until = i + 1;
                return self.settle(i);
            }
            Content::Refs(refs) => refs,
        };
        if i == 0 {
            self.layout.shape = shape.clone();
            self.layout.chunk_shape = refs.chunk_shape.clone();
            self.layout.endianness = refs.endianness;
            self.layout.codecs = refs.codecs.clone();
        } else if self.differs.is_none()
            && (refs.chunk_shape != self.layout.chunk_shape
                || refs.codecs != self.layout.codecs
                || refs.endianness != self.layout.endianness)
        {
            self.differs = Some(RefsError::Mismatch {
                file: inputs.name(i).to_string(),
                var: Some(self.path.clone()),
                reason: format!(
                    "chunks {:?} with codecs {:?} where {} has {:?} with {:?}",
                    refs.chunk_shape,
                    refs.codecs,
                    inputs.name(0),
                    self.layout.chunk_shape,
                    self.layout.codecs
                ),
            });
        }
        self.layout.stored += refs.chunks.len();
        let Some(k) = self.layout.axis else {
            return Ok(refs.chunks.into_iter().map(|(c, r)| (c, i, r)).collect());
        };
        let last = i + 1 == inputs.len();
        let chunk = refs.chunk_shape[k].max(1);
        if self.unaligned.is_none() && !last && shape[k] % chunk != 0 {
            self.unaligned = Some(RefsError::Mismatch {
                file: inputs.name(i).to_string(),
                var: Some(self.path.clone()),
                reason: format!(
                    "its {} elements along {:?} are not a whole number of its chunks of {}: \
                     the next input's chunks cannot follow them",
                    shape[k],
                    inputs.concat_dim.as_deref().unwrap_or_default(),
                    chunk
                ),
            });
        }
        if i > 0 {
            self.layout.shape[k] += shape[k];
        }
        match self.inline.as_mut() {
            // Read before this input's window knew it was inlined.
            Some(inline) => inline.until = i + 1,
            None => {
                for (mut c, r) in refs.chunks {
                    c[k] += self.next;
                    self.held.push((c, i, r));
                }
                self.next += shape[k].div_ceil(self.layout.chunk_shape[k].max(1));
            }
        }
        self.settle(i)
    }

    /// After input `i`: inlines the variable when an input is unaligned
    /// and it is small enough, fails when it can no longer be inlined
    /// and something does not line up, hands on the held chunks when it
    /// can no longer be inlined.
    fn settle(&mut self, i: usize) -> Result<Chunks, RefsError> {
        let bytes = |size: usize| self.layout.shape.iter().product::<u64>() * size as u64;
        let inlinable = self
            .inline_size
            .is_some_and(|size| bytes(size) <= INLINE_MAX);
        if !inlinable {
            if let Some(e) = self.unaligned.take().or_else(|| self.differs.take()) {
                return Err(e);
            }
            return Ok(std::mem::take(&mut self.held));
        }
        if self.unaligned.is_some() && self.inline.is_none() {
            self.held = vec![];
            self.inline = Some(Inline {
                pieces: Pieces::new(),
                until: i + 1,
            });
        }
        Ok(vec![])
    }

    /// Whether the inlined variable still needs the values of input `i`
    /// (read before the variable was inlined).
    pub fn needs_values(&self, i: usize) -> bool {
        self.inline
            .as_ref()
            .is_some_and(|inline| i < inline.until && !inline.pieces.contains_key(&i))
    }

    /// Input `i`'s values of the inlined variable, read again (its shape
    /// was added when it was first read).
    pub fn add_values(
        &mut self,
        inputs: &Collection,
        i: usize,
        ds: &Dataset,
    ) -> Result<(), RefsError> {
        let var = self.variable(inputs, i, ds)?;
        let shape = var.shape();
        let values = var.read_values(&Selection::all(&shape))?;
        if let Some(inline) = self.inline.as_mut() {
            inline.pieces.insert(i, (shape, values));
        }
        Ok(())
    }

    /// The variable complete, every input added (and every value an
    /// inlined variable needs): its final layout and its last chunks (an
    /// inlined variable's one chunk).
    pub fn finish(mut self) -> Result<(VarLayout, Chunks), RefsError> {
        if let Some(inline) = self.inline.take() {
            let k = self
                .layout
                .axis
                .expect("only a combined variable is inlined");
            let size = self
                .inline_size
                .expect("an inlined variable has a fixed size");
            let (shape, bytes) = concatenate(&inline.pieces, k, size);
            let origin = vec![0; shape.len()];
            let layout = VarLayout {
                chunk_shape: shape.iter().map(|&n| n.max(1)).collect(),
                shape,
                endianness: Endianness::Little,
                codecs: vec![],
                stored: 1,
                ..self.layout
            };
            return Ok((layout, vec![(origin, 0, ChunkRef::Inline(bytes))]));
        }
        if let Some(e) = self.unaligned.take().or_else(|| self.differs.take()) {
            return Err(e);
        }
        let chunks = std::mem::take(&mut self.held);
        Ok((self.layout, chunks))
    }
}

/// Input `i`, opened as `ds`, its variable of the path of the first
/// input's `v`, checked to line up with it: the same type, dimensions,
/// shape but along axis `k` and fill value.
fn lined_up<'d>(
    inputs: &Collection,
    v: VarId,
    i: usize,
    ds: &'d Dataset,
    k: usize,
) -> Result<nctk::Variable<'d>, RefsError> {
    let first = &inputs.first;
    let schema = first.schema();
    let path = schema.var_path(v);
    let mismatch = |reason: String| RefsError::Mismatch {
        file: inputs.name(i).to_string(),
        var: Some(path.clone()),
        reason,
    };
    let var = ds
        .variable(&path)
        .ok_or_else(|| mismatch(format!("no such variable (it is in {})", inputs.name(0))))?;
    let (own, theirs) = (schema.var(v), ds.schema().var(var.id()));
    if theirs.dtype != own.dtype {
        return Err(mismatch(format!(
            "type {} where {} has {}",
            theirs.dtype,
            inputs.name(0),
            own.dtype
        )));
    }
    let first_var = first.variable(&path).expect("the first input's variable");
    if var.dimension_names() != first_var.dimension_names() {
        return Err(mismatch(format!(
            "dimensions {:?} where {} has {:?}",
            var.dimension_names(),
            inputs.name(0),
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
            inputs.name(0),
            first_var.shape()
        )));
    }
    if ds.schema().fill_value(var.id()) != schema.fill_value(v) {
        return Err(mismatch(format!(
            "a fill value other than {}'s",
            inputs.name(0)
        )));
    }
    Ok(var)
}

/// Each input's values (in input order) concatenated along axis `k`:
/// the combined shape and its raw little-endian bytes (`size` bytes per
/// element).
fn concatenate(pieces: &Pieces, k: usize, size: usize) -> (Vec<u64>, Vec<u8>) {
    let mut shape = pieces
        .values()
        .next()
        .map(|(s, _)| s.clone())
        .unwrap_or_default();
    shape[k] = pieces.values().map(|(s, _)| s[k]).sum();
    // Row-major concatenation along axis k: for each index of the axes
    // before k, each input's block of (its length along k) x (the rest).
    let outer: u64 = shape[..k].iter().product();
    let inner: u64 = shape[k + 1..].iter().product();
    let encoded: Vec<(usize, Vec<u8>)> = pieces
        .values()
        .map(|(s, values)| ((s[k] * inner) as usize * size, values.to_bytes(false)))
        .collect();
    let mut bytes = Vec::new();
    for o in 0..outer as usize {
        for (block, b) in &encoded {
            bytes.extend_from_slice(&b[o * block..(o + 1) * block]);
        }
    }
    (shape, bytes)
}
