//! The netCDF schema of a walked file: groups, dimensions (through
//! [`dims`](super::dims)), variables with their storage facts, and the
//! attributes netCDF-C lists.

use nctk_model::{
    Attribute, DataType, DimId, Endianness, FileFacts, GroupId, Layout, Schema, Values, VarStorage,
};

use crate::{
    Attribute as H5Attribute, DatasetInfo, DatasetReader, DataspaceKind, FilterPipeline, Hdf5File,
};

use super::convert::{decode, vlen_bytes, vlen_element_size, Stored};
use super::dims::{self, DatasetDims, GroupDims, DIM_WITHOUT_VARIABLE};
use super::error::Nc4Error;
use super::facts::file_facts;
use super::hidden::{self, is_hidden};
use super::types::TypeTable;
use super::walk::{Entry, WalkedGroup};

/// What reading one variable needs.
pub(crate) struct VarSource {
    /// The dataset's reader (its own extent, which may be shorter than the
    /// variable's unlimited dimension).
    pub reader: DatasetReader,
    /// How an element is stored.
    pub stored: Stored,
    /// The dataset's current extent.
    pub extent: Vec<u64>,
    /// One stored fill element (for values past the dataset's extent).
    pub fill: Vec<u8>,
    /// The dataset's path, for errors.
    pub path: String,
    /// The dataspace is null: netCDF-C lists a scalar variable whose
    /// values cannot be read.
    pub null: bool,
}

/// The schema and, per variable (by [`nctk_model::VarId`]), its source.
pub(crate) struct Built {
    pub schema: Schema,
    pub vars: Vec<VarSource>,
    pub facts: FileFacts,
}

/// A value per group and per dataset of the group.
type PerDataset<T> = Vec<Vec<T>>;

/// The prefix netCDF-C gives a dataset whose variable has a dimension's
/// name but is not its coordinate variable.
const NON_COORD_PREPEND: &str = "_nc4_non_coord_";

/// Builds the schema of `groups` (index 0 the root).
pub(crate) fn build(file: &Hdf5File, groups: &[WalkedGroup]) -> Result<Built, Nc4Error> {
    let name = file.ctx().name().to_string();
    let mut schema = Schema::new();
    let mut gids = vec![GroupId::ROOT; groups.len()];
    for (i, g) in groups.iter().enumerate() {
        if let Some(p) = g.parent {
            gids[i] = schema
                .add_group(gids[p], &g.name)
                .map_err(|e| model_error(&name, &g.name, e))?;
        }
    }
    let (table, stored) = read_types(file, groups, &gids, &mut schema)?;
    let atts = Atts {
        file,
        table: &table,
        name: &name,
    };
    let tree: Vec<GroupDims> = groups
        .iter()
        .enumerate()
        .map(|(g, walked)| {
            Ok(GroupDims {
                parent: walked.parent,
                datasets: walked
                    .datasets
                    .iter()
                    .enumerate()
                    .map(|(i, (n, info))| atts.dataset_dims(n, info, stored[g][i].is_some()))
                    .collect::<Result<_, Nc4Error>>()?,
                children: walked.children.clone(),
            })
        })
        .collect::<Result<_, Nc4Error>>()?;
    let resolved = dims::resolve(&tree, &name)?;

    let dim_ids = add_dims(&mut schema, &resolved.dims, &gids, &name)?;
    let mut vars = Vec::new();
    for (g, walked) in groups.iter().enumerate() {
        for a in visible(&walked.group.attributes) {
            if let Some(attr) = atts.attribute(a)? {
                schema.set_attr(gids[g], None, attr);
            }
        }
        for (i, (link, info)) in walked.datasets.iter().enumerate() {
            let (Some(var_dims), Some(stored)) = (&resolved.var_dims[g][i], &stored[g][i]) else {
                continue;
            };
            let var_name = link
                .strip_prefix(NON_COORD_PREPEND)
                .filter(|rest| !rest.is_empty())
                .unwrap_or(link);
            let path = format!(
                "{}/{link}",
                schema.group_path(gids[g]).trim_end_matches('/')
            );
            let dims: Vec<DimId> = var_dims.iter().map(|&d| dim_ids[d]).collect();
            let id = schema
                .add_var(gids[g], var_name, stored.dtype(), &dims)
                .map_err(|e| model_error(&name, &path, e))?;
            let (source, storage) = var_source(file, &schema, info, stored.clone(), path)?;
            schema.var_mut(id).storage = storage;
            for a in visible(&info.attributes) {
                if let Some(attr) = atts.attribute(a)? {
                    schema.set_attr(gids[g], Some(id), attr);
                }
            }
            vars.push(source);
        }
    }
    let facts = file_facts(&atts, groups)?;
    Ok(Built {
        schema,
        vars,
        facts,
    })
}

/// The user types as netCDF-C meets them, group by group in link order
/// (a dataset's type must be committed before it to be a user type), and
/// per group and dataset how its values are stored (`None`: no variable).
fn read_types(
    file: &Hdf5File,
    groups: &[WalkedGroup],
    gids: &[GroupId],
    schema: &mut Schema,
) -> Result<(TypeTable, PerDataset<Option<Stored>>), Nc4Error> {
    let mut table = TypeTable::new(file.ctx().name());
    let mut stored: PerDataset<Option<Stored>> = groups
        .iter()
        .map(|g| vec![None; g.datasets.len()])
        .collect();
    for (g, walked) in groups.iter().enumerate() {
        for entry in &walked.entries {
            match entry {
                Entry::Type(link, addr) => {
                    let named = file.named_datatype(*addr)?;
                    table.read_named(schema, gids[g], link, &named.datatype)?;
                }
                Entry::Dataset(i) => {
                    stored[g][*i] = table.var_type(&walked.datasets[*i].1.datatype);
                }
            }
        }
    }
    Ok((table, stored))
}

/// Adds the dimensions to their groups, each group's in netCDF-C's id
/// order (as `ncdump` lists them); their ids in the schema.
fn add_dims(
    schema: &mut Schema,
    dims: &[dims::Dim],
    gids: &[GroupId],
    file: &str,
) -> Result<Vec<DimId>, Nc4Error> {
    let mut order: Vec<usize> = (0..dims.len()).collect();
    order.sort_by_key(|&d| (dims[d].group, dims[d].id));
    let mut ids = vec![DimId(0); dims.len()];
    for d in order {
        let dim = &dims[d];
        ids[d] = schema
            .add_dim(gids[dim.group], &dim.name, dim.len, dim.unlimited)
            .map_err(|e| model_error(file, &dim.name, e))?;
    }
    Ok(ids)
}

fn model_error(file: &str, object: &str, source: nctk_model::ModelError) -> Nc4Error {
    Nc4Error::Model {
        file: file.to_string(),
        object: object.to_string(),
        source,
    }
}

fn visible(attrs: &[H5Attribute]) -> impl Iterator<Item = &H5Attribute> {
    attrs.iter().filter(|a| !is_hidden(&a.name))
}

fn find<'a>(attrs: &'a [H5Attribute], name: &str) -> Option<&'a H5Attribute> {
    attrs.iter().find(|a| a.name == name)
}

/// The number of elements of an attribute's dataspace.
fn points(a: &H5Attribute) -> u64 {
    match a.dataspace.kind {
        DataspaceKind::Null => 0,
        DataspaceKind::Scalar => 1,
        _ => a.dataspace.dims.iter().product(),
    }
}

/// Reads attributes with the file's types.
pub(crate) struct Atts<'a> {
    /// The file.
    pub file: &'a Hdf5File,
    /// The user types read.
    pub table: &'a TypeTable,
    /// The file's name, for errors.
    pub name: &'a str,
}

impl Atts<'_> {
    fn invalid(&self, a: &H5Attribute, reason: String) -> Nc4Error {
        Nc4Error::Invalid {
            file: self.name.to_string(),
            object: a.name.clone(),
            reason,
        }
    }

    /// `count` values of `a` read as `stored`, checked against the bytes
    /// the attribute holds.
    fn values(&self, a: &H5Attribute, stored: &Stored, count: u64) -> Result<Values, Nc4Error> {
        let size = stored.element_size(self.file.ctx().sizeof_addr()) as u64;
        let need = count.checked_mul(size).filter(|&n| n <= a.raw.len() as u64);
        let Some(need) = need else {
            return Err(self.invalid(
                a,
                format!(
                    "{count} values of {size} bytes do not fit in the attribute's {} bytes",
                    a.raw.len()
                ),
            ));
        };
        Ok(decode(
            self.file,
            stored,
            &a.raw[..need as usize],
            0,
            &a.name,
        )?)
    }

    /// A listed attribute (`read_hdf5_att`), `None` for types netCDF-C skips.
    fn attribute(&self, a: &H5Attribute) -> Result<Option<Attribute>, Nc4Error> {
        // netCDF-C reads a fixed-length string as char text unless the
        // dataspace has dimensions (an empty one is a zero-length char).
        let scalar = a.dataspace.kind != DataspaceKind::Simple;
        let Some(stored) = self.table.att_type(&a.datatype, scalar) else {
            return Ok(None);
        };
        if a.dataspace.kind == DataspaceKind::Simple && a.dataspace.dims.len() > 1 {
            return Err(self.invalid(
                a,
                format!("an attribute of {} dimensions", a.dataspace.dims.len()),
            ));
        }
        let count = match (&stored, a.dataspace.kind) {
            (_, DataspaceKind::Null) => 0,
            // A scalar fixed-length string: char text as long as the string.
            (
                Stored::Atomic {
                    dtype: DataType::Char,
                    ..
                },
                _,
            ) => u64::from(a.datatype.size()),
            _ => points(a),
        };
        let value = self.values(a, &stored, count)?;
        Ok(Some(Attribute::typed(
            a.name.clone(),
            stored.dtype(),
            value,
        )))
    }

    /// An integer hidden attribute's values as `i32` (`_Netcdf4Dimid`,
    /// `_Netcdf4Coordinates`).
    fn ints(&self, a: &H5Attribute) -> Result<Vec<i32>, Nc4Error> {
        let bad = || self.invalid(a, "not an integer attribute".into());
        let stored = self.table.att_type(&a.datatype, true).ok_or_else(bad)?;
        if !stored.dtype().is_integer() {
            return Err(bad());
        }
        let values = self.values(a, &stored, points(a))?;
        nctk_model::convert::values_to_vec::<i32>(values).map_err(|_| bad())
    }

    /// A text attribute's value (`CLASS`, `NAME`, `_NCProperties`), as C
    /// reads it: up to the first NUL.
    pub(crate) fn text(&self, a: &H5Attribute) -> Result<Option<String>, Nc4Error> {
        let Some(stored) = self.table.att_type(&a.datatype, true) else {
            return Ok(None);
        };
        let count = match stored {
            Stored::VarString => points(a).min(1),
            _ => u64::from(a.datatype.size()),
        };
        Ok(match self.values(a, &stored, count)? {
            Values::Char(b) => {
                let end = b.iter().position(|&c| c == 0).unwrap_or(b.len());
                Some(String::from_utf8_lossy(&b[..end]).into_owned())
            }
            Values::String(s) => s.into_iter().next().flatten(),
            _ => None,
        })
    }

    /// `DIMENSION_LIST`: per axis, the object addresses of the scales
    /// attached (a variable-length sequence of object references per axis).
    fn dimension_list(&self, a: &H5Attribute) -> Result<Vec<Vec<u64>>, Nc4Error> {
        let ctx = self.file.ctx();
        let addr_size = usize::from(ctx.sizeof_addr());
        let width = vlen_element_size(ctx.sizeof_addr());
        let count = points(a) as usize;
        let need = count.checked_mul(width).filter(|&n| n <= a.raw.len());
        let Some(need) = need else {
            return Err(self.invalid(
                a,
                format!(
                    "{count} reference lists do not fit in {} bytes",
                    a.raw.len()
                ),
            ));
        };
        a.raw[..need]
            .chunks_exact(width)
            .map(|element| {
                let refs =
                    vlen_bytes(self.file, element, 0, &a.name, addr_size)?.unwrap_or_default();
                refs.chunks_exact(addr_size)
                    .map(|r| Ok(ctx.cursor(r, 0, &a.name).uint(addr_size)?))
                    .collect::<Result<Vec<u64>, Nc4Error>>()
            })
            .collect()
    }

    /// What dimension resolution needs from one dataset; `usable` when
    /// its type maps to a netCDF type.
    fn dataset_dims(
        &self,
        link: &str,
        info: &DatasetInfo,
        usable: bool,
    ) -> Result<DatasetDims, Nc4Error> {
        let attrs = &info.attributes;
        let scale = match find(attrs, hidden::CLASS) {
            Some(a) => self.text(a)?.as_deref() == Some("DIMENSION_SCALE"),
            None => false,
        };
        let dim_only = match find(attrs, hidden::NAME) {
            Some(a) if scale => self
                .text(a)?
                .is_some_and(|t| t.starts_with(DIM_WITHOUT_VARIABLE)),
            _ => false,
        };
        let dimid = match find(attrs, hidden::DIMID) {
            Some(a) => self.ints(a)?.first().copied(),
            None => None,
        };
        let coordinates = find(attrs, hidden::COORDINATES)
            .map(|a| self.ints(a))
            .transpose()?;
        let dimension_list = find(attrs, hidden::DIMENSION_LIST)
            .map(|a| self.dimension_list(a))
            .transpose()?;
        let space = &info.dataspace;
        let shape = match space.kind {
            DataspaceKind::Simple => space.dims.clone(),
            _ => vec![],
        };
        let unlimited = match &space.max_dims {
            Some(max) => max.iter().map(|&m| m == u64::MAX).collect(),
            None => vec![false; shape.len()],
        };
        if unlimited.len() != shape.len() {
            return Err(Nc4Error::Invalid {
                file: self.name.to_string(),
                object: link.to_string(),
                reason: "the dataspace's maximum size has another rank".into(),
            });
        }
        Ok(DatasetDims {
            name: link.to_string(),
            addr: info.addr,
            shape,
            unlimited,
            scale,
            dim_only,
            dimid,
            coordinates,
            dimension_list,
            usable,
        })
    }
}

/// The reader and the `ncdump -s` facts of one variable's dataset.
fn var_source(
    file: &Hdf5File,
    schema: &Schema,
    info: &DatasetInfo,
    stored: Stored,
    path: String,
) -> Result<(VarSource, VarStorage), Nc4Error> {
    let ctx = file.ctx();
    let extent = match info.dataspace.kind {
        DataspaceKind::Simple => info.dataspace.dims.clone(),
        _ => vec![],
    };
    let reader = DatasetReader::from_info(ctx, info)?;
    let filters = info
        .filter_message
        .as_ref()
        .map(|(addr, body)| FilterPipeline::parse(ctx, *addr, body))
        .transpose()?;
    let element_size = stored.element_size(ctx.sizeof_addr());
    // A fill value the writer set (`H5D_FILL_VALUE_USER_DEFINED`); without
    // one netCDF-C reports `_NoFill` and HDF5 fills with zeros.
    let fill_bytes = info.fill.value.clone().filter(|v| v.len() == element_size);
    let mut storage = VarStorage {
        layout: match reader.layout() {
            crate::Layout::Compact { .. } => Layout::Compact,
            crate::Layout::Contiguous { .. } => Layout::Contiguous,
            crate::Layout::Chunked { chunk, .. } => Layout::Chunked(chunk.clone()),
        },
        endianness: match stored {
            Stored::Atomic { dtype, big_endian } if dtype.size().is_some_and(|s| s > 1) => {
                Some(if big_endian {
                    Endianness::Big
                } else {
                    Endianness::Little
                })
            }
            _ => None,
        },
        no_fill: fill_bytes.is_none(),
        string_width: match stored {
            Stored::FixedString { size, .. } => Some(size),
            _ => None,
        },
        ..VarStorage::default()
    };
    if let Some(p) = &filters {
        storage.deflate_level = p.deflate_level();
        storage.shuffle = p.shuffle();
        storage.fletcher32 = p.fletcher32();
        storage.filters = Some(p.filter_text()).filter(|t| !t.is_empty());
    }
    if let (Some(b), Stored::Atomic { .. }) = (&fill_bytes, &stored) {
        storage.fill_value = Some(decode(file, &stored, b, info.addr, &path)?);
    }
    // Past the dataset's extent netCDF-C reads the variable's fill: the
    // fill value message's, else the type's default.
    let fill = match (fill_bytes, &stored) {
        (Some(b), _) => b,
        (None, Stored::Atomic { dtype, big_endian }) => {
            schema.default_fill(*dtype).to_bytes(*big_endian)
        }
        (None, _) => vec![0; element_size],
    };
    Ok((
        VarSource {
            reader,
            stored,
            extent,
            fill,
            path,
            null: info.dataspace.kind == DataspaceKind::Null,
        },
        storage,
    ))
}
