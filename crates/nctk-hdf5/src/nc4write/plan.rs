//! The netCDF-4 mapping of a schema's root group, as netCDF-C 4.9 makes
//! it: each variable a dataset, each dimension a dimension scale (its
//! coordinate variable, else a dimension-only scale), objects created in
//! netCDF-C's order, hidden attributes in its order.

use nctk_model::{default_chunks, ChunkCodec, DataType, DimId, Endianness, Layout, Schema, VarId};

use super::attrs::{self, not_yet};
use crate::dataspace::{Dataspace, DataspaceKind};
use crate::datatype::{CompoundMember, Datatype, ReferenceKind};
use crate::fill::FillValue;
use crate::filter::Filter;
use crate::write::{
    AttrValue, AttributeSpec, DatasetSpec, Hdf5Writer, ObjectId, Storage, WriteError, WriteResult,
};

/// The `NAME` of a dimension-only scale (netCDF-C's `DIM_WITHOUT_VARIABLE`
/// with the dimension's length at definition).
fn dim_only_name(len: u64) -> String {
    format!("This is a netCDF dimension but not a netCDF variable.{len:10}")
}

/// How one variable's data is written.
#[derive(Debug, Clone)]
pub struct VarPlan {
    /// Its dataset.
    pub id: ObjectId,
    /// Bytes per element.
    pub element_size: usize,
    /// Stored big-endian.
    pub big_endian: bool,
    /// The chunk lengths, when chunked.
    pub chunk: Option<Vec<u64>>,
    /// One element of fill (stored byte order), what unwritten parts of a
    /// chunk hold.
    pub fill: Vec<u8>,
    /// The codec chain of its chunks when they can be written as stored
    /// elsewhere ([`nctk_model::DataSink::write_stored_chunk`]).
    pub stored_codecs: Option<Vec<ChunkCodec>>,
}

/// The datasets made for `schema` in `w`: one plan per variable.
pub fn build(w: &mut Hdf5Writer, schema: &Schema) -> WriteResult<Vec<VarPlan>> {
    refuse_outside_slice(schema)?;
    let root = ObjectId::ROOT;
    let dims: Vec<DimId> = schema.dim_ids().collect();
    let vars: Vec<VarId> = schema.var_ids().collect();
    let coord_var = |d: DimId| -> Option<VarId> {
        let dim = schema.dim(d);
        schema
            .var_by_name(dim.group, &dim.name)
            .filter(|&v| schema.var(v).dims == [d])
    };
    // netCDF-C's order: dimensions without a coordinate variable up to the
    // next one with, then variables up to that one's, and so on.
    let mut plans: Vec<Option<VarPlan>> = vec![None; vars.len()];
    let mut scales: Vec<Option<ObjectId>> = vec![None; dims.len()];
    let (mut di, mut vi) = (0, 0);
    while di < dims.len() || vi < vars.len() {
        let mut waiting = None;
        while di < dims.len() && waiting.is_none() {
            let d = dims[di];
            match coord_var(d) {
                Some(v) => waiting = Some(v),
                None => {
                    let id = dim_only_scale(w, schema, d, di)?;
                    scales[di] = Some(id);
                }
            }
            di += 1;
        }
        while vi < vars.len() {
            let v = vars[vi];
            vi += 1;
            let plan = variable(w, schema, v, &dims, coord_var)?;
            if let Some(di) = coord_of(schema, v, &dims, coord_var) {
                scales[di] = Some(plan.id);
            }
            plans[v.0 as usize] = Some(plan);
            if waiting == Some(v) {
                break;
            }
        }
    }
    let plans: Vec<VarPlan> = plans
        .into_iter()
        .map(|p| p.expect("every variable planned"))
        .collect();
    attach_scales(w, schema, &plans, &dims, &scales, coord_var)?;
    for a in &schema.root().attributes {
        w.add_attribute(root, attrs::user(a)?)?;
    }
    let props = format!("version=2,nctk={}", env!("CARGO_PKG_VERSION"));
    w.add_attribute(root, attrs::text("_NCProperties", props.as_bytes()))?;
    Ok(plans)
}

fn refuse_outside_slice(schema: &Schema) -> WriteResult<()> {
    if schema.group_ids().count() > 1 {
        return Err(not_yet("groups"));
    }
    // netCDF-C stores such a variable as `_nc4_non_coord_<name>`.
    for v in schema.var_ids() {
        let var = schema.var(v);
        if let Some(d) = schema.dim_by_name(var.group, &var.name) {
            if var.dims != [d] {
                return Err(not_yet(&format!(
                    "variable {:?} named as a dimension it is not the coordinate variable of",
                    var.name
                )));
            }
        }
    }
    Ok(())
}

/// The index of the dimension `v` is the coordinate variable of.
fn coord_of(
    schema: &Schema,
    v: VarId,
    dims: &[DimId],
    coord_var: impl Fn(DimId) -> Option<VarId>,
) -> Option<usize> {
    let var = schema.var(v);
    let &[d] = var.dims.as_slice() else {
        return None;
    };
    (coord_var(d) == Some(v))
        .then(|| dims.iter().position(|&x| x == d))
        .flatten()
}

fn scale_attrs(w: &mut Hdf5Writer, id: ObjectId, name: &str) -> WriteResult<()> {
    w.add_attribute(id, attrs::text("CLASS", b"DIMENSION_SCALE\0"))?;
    w.add_attribute(id, attrs::text("NAME", &[name.as_bytes(), &[0]].concat()))
}

fn dim_only_scale(
    w: &mut Hdf5Writer,
    schema: &Schema,
    d: DimId,
    index: usize,
) -> WriteResult<ObjectId> {
    let dim = schema.dim(d);
    let (len, storage, alloc_time, max) = if dim.unlimited {
        let chunked = Storage::Chunked {
            chunk: vec![1],
            filters: vec![],
        };
        (0, chunked, 3, u64::MAX)
    } else {
        (dim.len, Storage::Contiguous, 2, dim.len)
    };
    let spec = DatasetSpec {
        datatype: Datatype::Float {
            size: 4,
            big_endian: true,
        },
        dataspace: Dataspace {
            kind: DataspaceKind::Simple,
            dims: vec![len],
            max_dims: Some(vec![max]),
        },
        fill: FillValue {
            alloc_time,
            fill_time: 2,
            defined: true,
            value: None,
        },
        storage,
    };
    let id = w.add_dataset(ObjectId::ROOT, &dim.name, spec)?;
    scale_attrs(w, id, &dim_only_name(len))?;
    w.add_attribute(id, attrs::int_scalar("_Netcdf4Dimid", index as i32))?;
    Ok(id)
}

fn variable(
    w: &mut Hdf5Writer,
    schema: &Schema,
    v: VarId,
    dims: &[DimId],
    coord_var: impl Fn(DimId) -> Option<VarId>,
) -> WriteResult<VarPlan> {
    let var = schema.var(v);
    let st = &var.storage;
    let big_endian = st.endianness == Some(Endianness::Big);
    let datatype = attrs::datatype(var.dtype, big_endian)?;
    let element_size = datatype.size() as usize;
    let shape: Vec<(u64, bool)> = var
        .dims
        .iter()
        .map(|&d| (schema.dim(d).len, schema.dim(d).unlimited))
        .collect();
    let unlimited = shape.iter().any(|&(_, u)| u);
    if st.codecs.is_some() {
        return Err(not_yet(&format!(
            "variable {:?}: numcodecs codecs (give them as HDF5 filters)",
            var.name
        )));
    }
    let mut filters = pipeline(st, element_size)
        .map_err(|reason| WriteError::Invalid(format!("variable {:?}: {reason}", var.name)))?;
    let chunk = match &st.layout {
        Layout::Chunked(c) => Some(c.clone()),
        Layout::Unset if unlimited || !filters.is_empty() => {
            Some(default_chunks(&shape, element_size as u64))
        }
        Layout::Unset | Layout::Contiguous if !unlimited && filters.is_empty() => None,
        Layout::Compact if !unlimited && filters.is_empty() => None,
        _ => {
            return Err(WriteError::Invalid(format!(
            "variable {:?}: contiguous or compact storage with an unlimited dimension or filters",
            var.name
        )))
        }
    };
    let compact = st.layout == Layout::Compact;
    let chunk = chunk.filter(|_| !var.dims.is_empty());
    if let Some(c) = &chunk {
        let bad = c.len() != shape.len()
            || c.iter()
                .zip(&shape)
                .any(|(&c, &(len, unlim))| c == 0 || (!unlim && c > len.max(1)));
        if bad {
            return Err(WriteError::Invalid(format!(
                "variable {:?}: chunk sizes {c:?}",
                var.name
            )));
        }
    }
    let fill_value = schema.fill_value(v);
    let mut fill_bytes =
        attrs::little_endian_bytes(&fill_value).unwrap_or_else(|| vec![0; element_size]);
    if big_endian {
        fill_bytes.reverse();
    }
    let fill = if st.no_fill {
        FillValue {
            alloc_time: alloc_time(chunk.is_some(), compact),
            fill_time: 1,
            defined: true,
            value: None,
        }
    } else {
        FillValue {
            alloc_time: alloc_time(chunk.is_some(), compact),
            fill_time: 2,
            defined: true,
            value: Some(fill_bytes.clone()),
        }
    };
    let dataspace = if var.dims.is_empty() {
        Dataspace {
            kind: DataspaceKind::Scalar,
            dims: vec![],
            max_dims: None,
        }
    } else {
        Dataspace {
            kind: DataspaceKind::Simple,
            dims: shape.iter().map(|&(l, _)| l).collect(),
            max_dims: Some(
                shape
                    .iter()
                    .map(|&(l, u)| if u { u64::MAX } else { l })
                    .collect(),
            ),
        }
    };
    if let Some(c) = &chunk {
        let chunk_bytes = c.iter().product::<u64>() * element_size as u64;
        filters
            .iter_mut()
            .for_each(|f| set_local(f, element_size, chunk_bytes));
    }
    let stored_codecs = chunk
        .as_ref()
        .and_then(|_| stored_codecs(&filters, element_size, big_endian));
    let storage = match &chunk {
        Some(c) => Storage::Chunked {
            chunk: c.clone(),
            filters,
        },
        None if compact => Storage::Compact,
        None => Storage::Contiguous,
    };
    let spec = DatasetSpec {
        datatype,
        dataspace,
        fill,
        storage,
    };
    let id = w.add_dataset(ObjectId::ROOT, &var.name, spec)?;
    let dimids: Vec<i32> = var
        .dims
        .iter()
        .map(|d| dims.iter().position(|x| x == d).unwrap_or(0) as i32)
        .collect();
    if !dimids.is_empty() {
        w.add_attribute(id, attrs::int_vector("_Netcdf4Coordinates", &dimids))?;
    }
    if let Some(index) = coord_of(schema, v, dims, coord_var) {
        scale_attrs(w, id, &var.name)?;
        w.add_attribute(id, attrs::int_scalar("_Netcdf4Dimid", index as i32))?;
    }
    for a in &var.attributes {
        if a.name == "_FillValue" && a.dtype() != var.dtype && var.dtype != DataType::Char {
            return Err(WriteError::Invalid(format!(
                "variable {:?}: _FillValue of another type",
                var.name
            )));
        }
        w.add_attribute(id, attrs::user(a)?)?;
    }
    Ok(VarPlan {
        id,
        element_size,
        big_endian,
        chunk,
        fill: fill_bytes,
        stored_codecs,
    })
}

/// The codec chain of chunks stored through `filters` (elements of
/// `element_size` bytes), when chunks stored elsewhere can be written as
/// they are: little-endian (or one byte wide) elements through shuffle
/// and deflate only, deflate last (as the reader hands them out).
fn stored_codecs(
    filters: &[Filter],
    element_size: usize,
    big_endian: bool,
) -> Option<Vec<ChunkCodec>> {
    if big_endian && element_size > 1 {
        return None;
    }
    let mut chain = Vec::with_capacity(filters.len());
    for (i, f) in filters.iter().enumerate() {
        chain.push(match f.id {
            1 if i + 1 == filters.len() => ChunkCodec::Zlib,
            2 => ChunkCodec::Shuffle { element_size },
            _ => return None,
        });
    }
    Some(chain)
}

/// HDF5's space allocation time as netCDF-C leaves it: incremental for
/// chunked datasets, early for compact ones, late for contiguous ones.
fn alloc_time(chunked: bool, compact: bool) -> u8 {
    match (chunked, compact) {
        (true, _) => 3,
        (false, true) => 1,
        (false, false) => 2,
    }
}

fn filter(id: u16, params: Vec<u32>) -> Filter {
    // the names netCDF-C's plugins register, which HDF5 records
    let name = match id {
        BZIP2 => Some("bzip2"),
        ZSTD => Some("zstd"),
        BLOSC => Some("blosc"),
        _ => None,
    };
    Filter {
        id,
        name: name.map(String::from),
        optional: false,
        params,
    }
}

/// The HDF5 filter ids of netCDF-C's plugins.
const BZIP2: u16 = 307;
const ZSTD: u16 = 32015;
const BLOSC: u16 = 32001;

/// The filters of a variable stored as `st` asks, elements of
/// `element_size` bytes, in the order netCDF-C 4.9 puts them in the
/// pipeline: fletcher32, shuffle, the `_Filter` text's others in their
/// order, deflate. szip, which netCDF-C writes only with libsz, is refused.
fn pipeline(st: &nctk_model::VarStorage, element_size: usize) -> Result<Vec<Filter>, String> {
    let others = match st.filters.as_deref().filter(|f| !f.trim().is_empty()) {
        Some(text) => nctk_codec::parse_filter_attr(text).map_err(|e| e.to_string())?,
        None => Vec::new(),
    };
    let (mut fletcher32, mut shuffle, mut deflate) = (st.fletcher32, st.shuffle, st.deflate_level);
    let mut rest = Vec::new();
    for spec in others {
        let id = u16::try_from(spec.id).map_err(|_| format!("filter id {}", spec.id))?;
        match id {
            1 => deflate = Some(spec.params.first().copied().unwrap_or(0)),
            2 => shuffle = true,
            3 => fletcher32 = true,
            4 => return Err("szip is read-only in nctk (the filter needs libsz)".into()),
            _ => rest.push(filter(id, spec.params)),
        }
    }
    let mut filters = Vec::new();
    if fletcher32 {
        filters.push(filter(3, vec![]));
    }
    if shuffle {
        filters.push(filter(2, vec![element_size as u32]));
    }
    filters.extend(rest);
    if let Some(level) = deflate {
        filters.push(filter(1, vec![level.min(9)]));
    }
    Ok(filters)
}

/// What a filter's `set_local` callback records once the dataset is
/// known, as netCDF-C's plugin does: blosc's seven parameters get 0 and 0
/// (version slots), the element size (1 above 256 bytes) and the chunk's
/// bytes in their first four.
fn set_local(f: &mut Filter, element_size: usize, chunk_bytes: u64) {
    if f.id == BLOSC && f.params.len() >= 4 {
        let typesize = if element_size > 256 { 1 } else { element_size };
        f.params[..4].copy_from_slice(&[0, 0, typesize as u32, chunk_bytes as u32]);
    }
}

fn reference() -> Datatype {
    Datatype::Reference {
        size: 8,
        kind: ReferenceKind::Object,
    }
}

/// `DIMENSION_LIST` on every variable that is not a coordinate variable,
/// `REFERENCE_LIST` on every scale a variable uses.
fn attach_scales(
    w: &mut Hdf5Writer,
    schema: &Schema,
    plans: &[VarPlan],
    dims: &[DimId],
    scales: &[Option<ObjectId>],
    coord_var: impl Fn(DimId) -> Option<VarId> + Copy,
) -> WriteResult<()> {
    let mut refs: Vec<Vec<(ObjectId, i32)>> = vec![Vec::new(); dims.len()];
    for v in schema.var_ids() {
        let var = schema.var(v);
        if var.dims.is_empty() || coord_of(schema, v, dims, coord_var).is_some() {
            continue;
        }
        let plan = &plans[v.0 as usize];
        let mut list = Vec::with_capacity(var.dims.len());
        for (k, d) in var.dims.iter().enumerate() {
            let di = dims.iter().position(|x| x == d).unwrap_or(0);
            let scale = scales[di].expect("every dimension has a scale");
            list.push(vec![scale]);
            refs[di].push((plan.id, k as i32));
        }
        let attr = AttributeSpec {
            name: "DIMENSION_LIST".into(),
            datatype: Datatype::VarLen {
                base: Box::new(reference()),
            },
            dataspace: attrs::vector(list.len() as u64),
            value: AttrValue::ReferenceSequences(list),
        };
        w.add_attribute(plan.id, attr)?;
    }
    let compound = Datatype::Compound {
        size: 16,
        members: vec![
            CompoundMember {
                name: "dataset".into(),
                offset: 0,
                datatype: reference(),
            },
            CompoundMember {
                name: "dimension".into(),
                offset: 8,
                datatype: attrs::datatype(DataType::Int, false)?,
            },
        ],
    };
    for (di, list) in refs.into_iter().enumerate() {
        if list.is_empty() {
            continue;
        }
        let attr = AttributeSpec {
            name: "REFERENCE_LIST".into(),
            datatype: compound.clone(),
            dataspace: attrs::vector(list.len() as u64),
            value: AttrValue::ReferenceList(list),
        };
        w.add_attribute(scales[di].expect("every dimension has a scale"), attr)?;
    }
    Ok(())
}
