//! Creating and changing datasets of every writable format: [`create`]
//! (classic CDF-1/2/5 files, NCZarr/Zarr stores) and [`append`] (classic
//! files) give a dataset in define mode ([`DatasetDef`]) or data mode
//! ([`DatasetMut`]), written through the format's [`DataSink`] by the
//! output side ([`crate::output`]).

mod holds;
mod var_def;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use nctk_classic::{ClassicError, ClassicWriter, FillMode, Version};
use nctk_model::{
    name, Attribute, ChunkCodec, DataType, DimId, GroupId, HasErrorKind, ModelError, NcValue,
    Schema, Selection, SourceError, TypeId, UserTypeKind, Values, VarId, VarStorage,
};
use nctk_store::bytes::{ByteSource as _, MemSink};

use crate::output::{
    check_compressed_target, check_writable, classic_version, create_output, store_target,
    CreateOptions, Output, OutputError, Sink,
};
use crate::{Container, Error, Extent, Extents, Format, IntoExtents};
use holds::{Feature, Holds};
pub use var_def::VarDef;

/// Creates a dataset at `target` in `format` and returns it in define mode;
/// variables are pre-filled with fill values, as netCDF-C does by default.
/// See [`create_with`].
pub fn create(target: impl AsRef<Path>, format: Format) -> Result<DatasetDef, Error> {
    create_with(target, format, CreateOptions::default())
}

/// As [`create`], choosing fill mode (`fill = false` is netCDF's `NC_NOFILL`).
pub fn create_with_fill(
    target: impl AsRef<Path>,
    format: Format,
    fill: bool,
) -> Result<DatasetDef, Error> {
    let opts = CreateOptions {
        fill,
        ..CreateOptions::default()
    };
    create_with(target, format, opts)
}

/// Creates a dataset at `target` in `format` as `opts` asks, in define
/// mode. `format` is a classic format (a file at the path `target`) or a
/// netCDF-4 format ([`Format::Netcdf4`], [`Format::Netcdf4Classic`]),
/// written as an NCZarr / Zarr store when `target` names one (as `nctk
/// copy` and `nctk gen` decide): a path ending in `.zarr` (a directory) or
/// `.zip`, or a netCDF-C URL (`file:///abs/x.zarr#mode=nczarr,file`,
/// `...#mode=zarr,zip`) whose modes choose the layout, else as a
/// netCDF-4/HDF5 file. With [`ClassicOptions::compress`](crate::ClassicOptions::compress), a classic format is
/// written as a block-compressed classic file (a local path only).
///
/// Nothing appears at `target` before [`DatasetMut::close`]: the dataset is
/// written under a temporary name beside it (made by
/// [`DatasetDef::end_define`]) and renamed over `target` when closed, so
/// an existing dataset is replaced only by a complete one. A dataset
/// dropped before `close` (an error, a panic) is aborted and its
/// temporary removed; `target` is left as it was.
///
/// ```
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let dir = tempfile::tempdir()?;
/// let target = dir.path().join("out.zarr");
/// let mut def = nctk::create(&target, nctk::Format::Netcdf4)?;
/// let x = def.add_dimension("x", 3)?;
/// def.add_variable::<i32>("v", &[x])?.put_attribute("units", "m")?;
/// let mut ds = def.end_define()?;
/// ds.put_values("v", .., &[1, 2, 3])?;
/// ds.close()?;
/// let v: Vec<i32> = nctk::open(&target)?.variable("v").unwrap().get_values(..)?;
/// assert_eq!(v, [1, 2, 3]);
/// # Ok(()) }
/// ```
pub fn create_with(
    target: impl AsRef<Path>,
    format: Format,
    opts: CreateOptions,
) -> Result<DatasetDef, Error> {
    let target = target.as_ref();
    let container = Container::for_output(target, format);
    if opts.classic_options().compress.is_some() {
        check_compressed_target(target)?;
        if !format.is_cdf() {
            return Err(Error::Unsupported {
                path: target.display().to_string(),
                reason: format!(
                    "a block-compressed file holds a classic dataset (CDF-1, CDF-2 or CDF-5), \
                     not {}",
                    format.name()
                ),
            });
        }
    }
    check_writable(target, container)?;
    if let Some(reason) = opts.mismatch(container) {
        return Err(Error::Options {
            path: target.display().to_string(),
            reason,
        });
    }
    if container == Container::Zarr {
        store_target(target)?;
    }
    let defs = match classic_version(container) {
        Some(version) => Defs::classic(version, &Schema::new()),
        None => Ok(Defs::Model(Schema::new())),
    };
    Ok(DatasetDef {
        target: target.to_path_buf(),
        defs: defs.map_err(|e| define_error(target, e))?,
        holds: Holds::new(container, format),
        next: Next::Create {
            container,
            format,
            opts,
        },
    })
}

/// The first classic format, CDF-1, then CDF-2 (64-bit offsets), then
/// CDF-5 (64-bit sizes, the unsigned and 64-bit types), whose rules every
/// definition of `schema` meets, sizes and offsets laid out as netCDF-C
/// lays them out (no data is written); `None` when none does (groups,
/// user-defined types, strings, several unlimited dimensions).
pub fn classic_format_for(schema: &Schema) -> Option<Format> {
    let fits = |version: Version| {
        Defs::classic(version, schema).is_ok_and(|mut defs| {
            defs.checker()
                .is_some_and(|checker| checker.end_define().is_ok())
        })
    };
    [Version::Cdf1, Version::Cdf2, Version::Cdf5]
        .into_iter()
        .find(|&v| fits(v))
        .map(Format::from)
}

/// Opens an existing classic file to append data or to redefine it; it
/// starts in data mode and is written in place (a redefinition that moves
/// data swaps the new file in whole). Dropped without
/// [`close`](DatasetMut::close), the file is finished as `close` would.
pub fn append(path: impl AsRef<Path>) -> Result<DatasetMut, Error> {
    let path = path.as_ref();
    let open = |path: &Path| -> Result<ClassicWriter, ClassicError> {
        ClassicWriter::open_in(crate::door::open_file(path)?, FillMode::Fill)
    };
    let writer = open(path).map_err(|e| Error::Format(e.into()))?;
    let version = writer.version();
    let format = Format::from(version);
    Ok(DatasetMut {
        out: Output::in_place(path, Sink::Classic(writer)),
        version: Some(version),
        holds: Holds::new(Container::Classic(format), format),
    })
}

/// An error of the classic definitions' checker, told of `target`.
fn define_error(target: &Path, e: ClassicError) -> Error {
    let path = target.display().to_string();
    let message = e.to_string().replace(&MemSink::new().name(), &path);
    Error::Output(OutputError::Output {
        path,
        source: SourceError::new(e.kind(), message),
    })
}

/// The definitions of a dataset in define mode, checked as they are made.
enum Defs {
    /// Classic: a writer in define mode over memory, which checks each
    /// definition as the file's writer will (names, types and lengths the
    /// version allows, one unlimited dimension first). Aborted when
    /// dropped, so it never lays out or fills anything.
    Classic(Option<Box<ClassicWriter>>),
    /// Stores: the model's rules; the store writer checks the rest when
    /// the store is made.
    Model(Schema),
}

impl Drop for Defs {
    fn drop(&mut self) {
        if let Defs::Classic(w) = self {
            if let Some(w) = w.take() {
                let _ = (*w).abort();
            }
        }
    }
}

impl Defs {
    /// A classic checker holding `schema`'s definitions, in define mode.
    fn classic(version: Version, schema: &Schema) -> Result<Defs, ClassicError> {
        let mut w = ClassicWriter::create_in(Arc::new(MemSink::new()), version, FillMode::NoFill)?;
        w.define_schema(schema)?;
        Ok(Defs::Classic(Some(Box::new(w))))
    }

    fn checker(&mut self) -> Option<&mut ClassicWriter> {
        match self {
            Defs::Classic(w) => w.as_deref_mut(),
            Defs::Model(_) => None,
        }
    }

    fn schema(&self) -> &Schema {
        match self {
            Defs::Classic(Some(w)) => w.schema(),
            Defs::Classic(None) => unreachable!("the checker is taken only on drop"),
            Defs::Model(s) => s,
        }
    }
}

/// What [`DatasetDef::end_define`] does with the definitions.
enum Next {
    /// Creates the dataset.
    Create {
        container: Container,
        format: Format,
        opts: CreateOptions,
    },
    /// Redefines an open one.
    Redefine(Box<DatasetMut>),
}

/// A dataset in define mode: add groups, user-defined types, dimensions,
/// variables and attributes (or take a whole [`Schema`] with
/// [`define_all`](Self::define_all)), then [`end_define`](Self::end_define).
///
/// Groups are named by their [`GroupId`]: [`add_group`](Self::add_group)
/// makes one, and the `_in` methods ([`add_dimension_in`](Self::add_dimension_in),
/// [`add_variable_in`](Self::add_variable_in),
/// [`put_group_attribute`](Self::put_group_attribute),
/// [`add_type`](Self::add_type)) define in it; the plain methods define
/// in the root group. Each definition is checked at the call with the
/// format's rules: what the format cannot hold (a group, a user-defined
/// type or a string variable in a classic file, a user-defined type in an
/// NCZarr store, chunking in an ncstream) is refused with an
/// [`Error::Unsupported`] naming the format and the item, as netCDF-C's
/// `nc_def_*` refuse it. A variable's storage is set on the variable
/// being defined ([`VarDef`]).
///
/// ```
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let dir = tempfile::tempdir()?;
/// let mut def = nctk::create(dir.path().join("out.zarr"), nctk::Format::Netcdf4)?;
/// let g = def.add_group(nctk::model::GroupId::ROOT, "forecast")?;
/// let x = def.add_dimension_in(g, "x", 100)?;
/// def.add_variable_in::<f32>(g, "t", &[x])?
///     .set_chunking(&[50])?
///     .set_compression(4, true)?;
/// let mut ds = def.end_define()?;
/// ds.put_values("/forecast/t", .., &vec![1.5f32; 100])?;
/// ds.close()?;
/// # Ok(()) }
/// ```
pub struct DatasetDef {
    target: PathBuf,
    defs: Defs,
    holds: Holds,
    next: Next,
}

impl std::fmt::Debug for DatasetDef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DatasetDef")
            .field("target", &self.target)
            .finish_non_exhaustive()
    }
}

impl DatasetDef {
    fn classic_error(&self, e: ClassicError) -> Error {
        define_error(&self.target, e)
    }

    /// `Ok` when the dataset holds `feature` (see [`Holds`]).
    fn check_holds(&self, item: &str, feature: Feature) -> Result<(), Error> {
        self.holds.check(&self.target, item, feature)
    }

    /// Refuses a group id the definitions do not have.
    fn check_group(&self, group: GroupId) -> Result<(), Error> {
        if self.schema().group_ids().any(|g| g == group) {
            return Ok(());
        }
        Err(ModelError::NotFound {
            kind: "group",
            name: format!("id {}", group.0),
        }
        .into())
    }

    /// Adds a fixed-length dimension to the root group.
    pub fn add_dimension(&mut self, name: &str, len: u64) -> Result<DimId, Error> {
        self.add_dim(GroupId::ROOT, name, len, false)
    }

    /// Adds the unlimited (record) dimension to the root group.
    pub fn add_unlimited_dimension(&mut self, name: &str) -> Result<DimId, Error> {
        self.add_dim(GroupId::ROOT, name, 0, true)
    }

    /// Adds a fixed-length dimension to `group`.
    pub fn add_dimension_in(
        &mut self,
        group: GroupId,
        name: &str,
        len: u64,
    ) -> Result<DimId, Error> {
        self.add_dim(group, name, len, false)
    }

    /// Adds an unlimited dimension to `group` (a netCDF-4 dataset may have
    /// several).
    pub fn add_unlimited_dimension_in(
        &mut self,
        group: GroupId,
        name: &str,
    ) -> Result<DimId, Error> {
        self.add_dim(group, name, 0, true)
    }

    fn add_dim(
        &mut self,
        group: GroupId,
        n: &str,
        len: u64,
        unlimited: bool,
    ) -> Result<DimId, Error> {
        self.check_group(group)?;
        let result = match &mut self.defs {
            Defs::Model(s) => return Ok(s.add_dim(group, &name::normalize(n)?, len, unlimited)?),
            Defs::Classic(_) if unlimited => {
                self.defs.checker().map(|w| w.add_unlimited_dimension(n))
            }
            Defs::Classic(_) => self.defs.checker().map(|w| w.add_dimension(n, len)),
        };
        result
            .expect("a classic dataset has its checker")
            .map_err(|e| self.classic_error(e))
    }

    /// Adds a subgroup named `name` to `parent` (netCDF-C's `nc_def_grp`).
    pub fn add_group(&mut self, parent: GroupId, name: &str) -> Result<GroupId, Error> {
        self.check_holds(&format!("group {name:?}"), Feature::Groups)?;
        self.check_group(parent)?;
        match &mut self.defs {
            Defs::Model(s) => Ok(s.add_group(parent, &name::normalize(name)?)?),
            Defs::Classic(_) => unreachable!("a classic dataset holds no groups"),
        }
    }

    /// Adds a user-defined type (compound, vlen, enum, opaque) named `name`
    /// to `group` (netCDF-C's `nc_def_compound`, `nc_def_vlen`,
    /// `nc_def_enum`, `nc_def_opaque`), checked with netCDF-C's rules; its
    /// id makes the variable type `DataType::User(id)`.
    pub fn add_type(
        &mut self,
        group: GroupId,
        name: &str,
        kind: UserTypeKind,
    ) -> Result<TypeId, Error> {
        self.check_holds(&format!("type {name:?}"), Feature::UserTypes)?;
        self.check_group(group)?;
        match &mut self.defs {
            Defs::Model(s) => Ok(s.add_type(group, &name::normalize(name)?, kind)?),
            Defs::Classic(_) => unreachable!("a classic dataset holds no user-defined types"),
        }
    }

    /// Adds a variable to the root group whose type is that of `T` (`f32`
    /// makes a `float`).
    pub fn add_variable<T: NcValue>(
        &mut self,
        name: &str,
        dims: &[DimId],
    ) -> Result<VarDef<'_>, Error> {
        self.add_variable_of_type_in(GroupId::ROOT, name, T::NATIVE, dims)
    }

    /// Adds a variable of any type to the root group, `char`, `string`
    /// and user-defined types included.
    pub fn add_variable_of_type(
        &mut self,
        name: &str,
        dtype: DataType,
        dims: &[DimId],
    ) -> Result<VarDef<'_>, Error> {
        self.add_variable_of_type_in(GroupId::ROOT, name, dtype, dims)
    }

    /// Adds a variable to `group` whose type is that of `T`.
    pub fn add_variable_in<T: NcValue>(
        &mut self,
        group: GroupId,
        name: &str,
        dims: &[DimId],
    ) -> Result<VarDef<'_>, Error> {
        self.add_variable_of_type_in(group, name, T::NATIVE, dims)
    }

    /// Adds a variable of any type to `group`; its dimensions must be
    /// defined in `group` or one of its ancestors.
    pub fn add_variable_of_type_in(
        &mut self,
        group: GroupId,
        n: &str,
        dtype: DataType,
        dims: &[DimId],
    ) -> Result<VarDef<'_>, Error> {
        let item = format!("variable {n:?}");
        match dtype {
            DataType::String => self.check_holds(&item, Feature::Strings)?,
            DataType::User(_) => self.check_holds(&item, Feature::UserTypes)?,
            _ => {}
        }
        self.check_group(group)?;
        let id = match &mut self.defs {
            Defs::Model(s) => {
                if let DataType::User(t) = dtype {
                    if !s.type_ids().any(|id| id == t) {
                        return Err(ModelError::NotFound {
                            kind: "type",
                            name: format!("id {}", t.0),
                        }
                        .into());
                    }
                }
                if let Some(d) = dims.iter().find(|&&d| !dim_in_scope(s, group, d)) {
                    return Err(ModelError::NotFound {
                        kind: "dimension",
                        name: format!("id {} in the scope of group {:?}", d.0, s.group_path(group)),
                    }
                    .into());
                }
                s.add_var(group, &name::normalize(n)?, dtype, dims)?
            }
            Defs::Classic(_) => {
                let result = self.defs.checker().map(|w| w.add_variable(n, dtype, dims));
                result
                    .expect("a classic dataset has its checker")
                    .map_err(|e| self.classic_error(e))?
            }
        };
        Ok(VarDef::new(self, id))
    }

    /// The variable `var`, defined earlier, to set more of its attributes
    /// or its storage.
    pub fn variable(&mut self, var: VarId) -> Result<VarDef<'_>, Error> {
        if var.0 as usize >= self.schema().num_vars() {
            return Err(ModelError::NotFound {
                kind: "variable",
                name: format!("id {}", var.0),
            }
            .into());
        }
        Ok(VarDef::new(self, var))
    }

    /// Sets a global attribute (of the root group); text becomes a `char`
    /// attribute.
    pub fn put_attribute(&mut self, name: &str, value: impl Into<AttrValue>) -> Result<(), Error> {
        self.put_attr(GroupId::ROOT, None, name, value.into().0)
    }

    /// Sets an attribute of `group`; text becomes a `char` attribute.
    pub fn put_group_attribute(
        &mut self,
        group: GroupId,
        name: &str,
        value: impl Into<AttrValue>,
    ) -> Result<(), Error> {
        self.check_group(group)?;
        self.put_attr(group, None, name, value.into().0)
    }

    /// Sets (adds or replaces) an attribute of `var`, or of `group`.
    fn put_attr(
        &mut self,
        group: GroupId,
        var: Option<VarId>,
        n: &str,
        value: Values,
    ) -> Result<(), Error> {
        let result = match &mut self.defs {
            Defs::Model(s) => {
                let group = var.map_or(group, |v| s.var(v).group);
                s.set_attr(group, var, Attribute::new(&name::normalize(n)?, value));
                return Ok(());
            }
            Defs::Classic(_) => self.defs.checker().map(|w| w.put_attribute(var, n, value)),
        };
        result
            .expect("a classic dataset has its checker")
            .map_err(|e| self.classic_error(e))
    }

    /// Changes the storage of `var` (a setting named `what`) with `edit`,
    /// when the dataset holds `feature`; a store checks the result as its
    /// writer will (the setting is undone if refused).
    fn set_storage(
        &mut self,
        var: VarId,
        feature: Feature,
        edit: impl FnOnce(&mut VarStorage),
    ) -> Result<(), Error> {
        let item = format!("variable {:?}", self.schema().var_path(var));
        self.check_holds(&item, feature)?;
        let Defs::Model(s) = &mut self.defs else {
            unreachable!("a classic dataset holds no storage settings")
        };
        let before = s.var(var).storage.clone();
        edit(&mut s.var_mut(var).storage);
        let checked = match self.holds.container() {
            Container::Zarr => {
                crate::create_zarr::check_store_storage(s, var).map_err(|e| match e {
                    nctk_zarr::WriteError::Options { reason, .. } => reason,
                    e => e.to_string(),
                })
            }
            _ => Ok(()),
        };
        checked.map_err(|reason| {
            s.var_mut(var).storage = before;
            Error::Definition {
                path: self.target.display().to_string(),
                reason: format!("{item}: {reason}"),
            }
        })
    }

    /// Takes every definition of `schema` at once (groups, user types and
    /// each variable's storage included, for a store): what is already
    /// defined must come first in it, unchanged. `nctk gen` and `nctk
    /// copy` define their outputs so. Storage a format cannot hold is left
    /// out (a classic file is contiguous), as nccopy leaves it out.
    pub fn define_all(&mut self, schema: &Schema) -> Result<(), Error> {
        let result = match &mut self.defs {
            Defs::Model(s) => {
                *s = schema.writable()?;
                return Ok(());
            }
            Defs::Classic(_) => self.defs.checker().map(|w| w.define_schema(schema)),
        };
        result
            .expect("a classic dataset has its checker")
            .map_err(|e| self.classic_error(e))
    }

    /// The definitions so far.
    pub fn schema(&self) -> &Schema {
        self.defs.schema()
    }

    /// Leaves define mode. A new dataset is made under its temporary name
    /// (a classic file's header written with netCDF-C's layout rules, a
    /// store's metadata); an open one takes the new definitions (a classic
    /// file moves its data as netCDF-C does; a store refuses any change,
    /// naming why). On an error the dataset is dropped: a created one is
    /// aborted and its temporary removed, a file opened by [`append`] is
    /// finished as it was.
    pub fn end_define(self) -> Result<DatasetMut, Error> {
        let DatasetDef {
            target,
            defs,
            holds,
            next,
        } = self;
        match next {
            Next::Create {
                container,
                format,
                opts,
            } => {
                let out = create_output(&target, container, format, defs.schema(), &opts)?;
                Ok(DatasetMut {
                    out,
                    version: classic_version(container),
                    holds,
                })
            }
            Next::Redefine(mut ds) => {
                ds.out.define(defs.schema())?;
                Ok(*ds)
            }
        }
    }
}

/// True when `dim` is defined in `group` or one of its ancestors (netCDF-4's
/// scoping: a variable uses only dimensions it can see).
fn dim_in_scope(schema: &Schema, group: GroupId, dim: DimId) -> bool {
    if dim.0 as usize >= schema.num_dims() {
        return false;
    }
    let home = schema.dim(dim).group;
    let mut at = Some(group);
    while let Some(g) = at {
        if g == home {
            return true;
        }
        at = schema.group(g).parent;
    }
    false
}

/// An attribute value: text, one number, a vector of numbers, or [`Values`].
#[derive(Debug, Clone, PartialEq)]
pub struct AttrValue(pub Values);

impl From<&str> for AttrValue {
    fn from(s: &str) -> Self {
        AttrValue(Values::text(s))
    }
}
impl From<Values> for AttrValue {
    fn from(v: Values) -> Self {
        AttrValue(v)
    }
}
macro_rules! numeric_attr_value {
    ($($t:ty),*) => {$(
        impl From<$t> for AttrValue {
            fn from(x: $t) -> Self {
                AttrValue(<$t>::into_values(vec![x]))
            }
        }
        impl From<Vec<$t>> for AttrValue {
            fn from(v: Vec<$t>) -> Self {
                AttrValue(<$t>::into_values(v))
            }
        }
    )*};
}
numeric_attr_value!(i8, u8, i16, u16, i32, u32, i64, u64, f32, f64);

/// Sizes the unlimited dimensions (`unlimited[i]`) of a variable of
/// `shape` for a write of `len` values to `extents`: an extent may run past
/// an unlimited dimension's current length, and an open-ended one (when it
/// is the only one) takes its length from the data.
fn grow_unlimited(shape: &mut [u64], unlimited: &[bool], extents: &[Extent], len: u64) {
    let count = |e: &Extent, len: u64| match *e {
        Extent::Index(_) => 1,
        Extent::Slice { start, end, step } => {
            (end.unwrap_or(len).saturating_sub(start)).div_ceil(step.max(1))
        }
    };
    let is_open = |i: usize| {
        unlimited.get(i) == Some(&true) && matches!(extents[i], Extent::Slice { end: None, .. })
    };
    let open = (0..extents.len()).filter(|&i| is_open(i)).count();
    for i in 0..extents.len().min(shape.len()) {
        let Extent::Slice { start, end, step } = extents[i] else {
            continue;
        };
        if !unlimited[i] {
            continue;
        }
        let n = match end {
            Some(end) => end.saturating_sub(start).div_ceil(step.max(1)),
            None if open == 1 => {
                let inner: u64 = (0..extents.len().min(shape.len()))
                    .filter(|&j| j != i)
                    .map(|j| count(&extents[j], shape[j]))
                    .product();
                len.checked_div(inner).unwrap_or(0)
            }
            None => continue,
        };
        shape[i] = shape[i].max(start + n.saturating_sub(1) * step + 1);
    }
}

/// A dataset in data mode: write values, add records, or
/// [`redefine`](Self::redefine); [`close`](Self::close) completes it.
/// Dropped before `close`, a created dataset is aborted and its temporary
/// removed (see [`create_with`]); a file opened by [`append`] is finished.
pub struct DatasetMut {
    out: Output,
    /// The classic version, for the checker of a redefinition; `None`
    /// for a store.
    version: Option<Version>,
    /// What the dataset holds, for a redefinition's checks.
    holds: Holds,
}

impl std::fmt::Debug for DatasetMut {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DatasetMut")
            .field("target", &self.out.target())
            .finish_non_exhaustive()
    }
}

impl DatasetMut {
    /// The dataset's structure (unlimited dimensions at their current length).
    pub fn schema(&self) -> &Schema {
        self.out.schema()
    }

    fn var_id(&self, name: &str) -> Result<VarId, Error> {
        self.schema().var_by_path(name).ok_or_else(|| {
            Error::Model(nctk_model::ModelError::NotFound {
                kind: "variable",
                name: name.into(),
            })
        })
    }

    /// Writes `data` (row-major) to the part of variable `name` that
    /// `extents` names, converting with netCDF's rules; the writer reads
    /// the slice itself (no copy of it is made: a classic file and a store
    /// encode their bytes straight from it). Writing past the
    /// end of an unlimited dimension grows it (adds records); an open-ended
    /// range on it (on one of them, for a store) takes its length from
    /// `data`.
    pub fn put_values<T: NcValue>(
        &mut self,
        name: &str,
        extents: impl IntoExtents,
        data: &[T],
    ) -> Result<(), Error> {
        let id = self.var_id(name)?;
        let schema = self.schema();
        let mut shape = schema.shape(id);
        let extents = match extents.into_extents() {
            Extents::All => Extents::Dims(vec![Extent::ALL; shape.len()]),
            dims => dims,
        };
        if let Extents::Dims(dims) = &extents {
            let unlimited: Vec<bool> = schema
                .var(id)
                .dims
                .iter()
                .map(|&d| schema.dim(d).unlimited)
                .collect();
            grow_unlimited(&mut shape, &unlimited, dims, data.len() as u64);
        }
        let (selection, _) = extents.resolve(&shape)?;
        let name = self.schema().var_path(id);
        let values = T::native_ref(data);
        Ok(self.out.write_native(id, &name, &selection, values)?)
    }

    /// Writes an n-dimensional array to the part of variable `name` that
    /// `extents` names: straight from the array's memory when it is in
    /// row-major order, else from one row-major copy of it.
    #[cfg(feature = "ndarray")]
    pub fn put<T: NcValue>(
        &mut self,
        name: &str,
        extents: impl IntoExtents,
        data: ndarray::ArrayViewD<'_, T>,
    ) -> Result<(), Error> {
        match data.as_slice() {
            Some(flat) => self.put_values(name, extents, flat),
            None => {
                let flat: Vec<T> = data.iter().copied().collect();
                self.put_values(name, extents, &flat)
            }
        }
    }

    /// Writes `values` (row-major, the selection's shape) to `selection`
    /// of `var`, converted with netCDF's rules; writing past the last
    /// record adds records. An error names the dataset and the variable.
    pub fn write(
        &mut self,
        var: VarId,
        selection: &Selection,
        values: &Values,
    ) -> Result<(), Error> {
        let name = self.schema().var_path(var);
        Ok(self.out.write(var, &name, selection, values)?)
    }

    /// The chunk lengths `var` is stored in, when the dataset is chunked
    /// (a store): slabs cut along them are written whole, once.
    pub fn chunk_shape(&self, var: VarId) -> Option<Vec<u64>> {
        self.out.chunk_shape(var)
    }

    /// The codec chain of `var`'s stored chunks, when the output takes
    /// chunks as stored ([`DatasetMut::write_stored_chunk`]).
    pub fn stored_chunk_codecs(&self, var: VarId) -> Option<Vec<ChunkCodec>> {
        self.out.stored_chunk_codecs(var)
    }

    /// Stores one whole chunk of `var` given as its encoded bytes (see
    /// [`DataSink::write_stored_chunk`](nctk_model::DataSink::write_stored_chunk)
    /// for `selection`); `false` when the output did not take it.
    pub fn write_stored_chunk(
        &mut self,
        var: VarId,
        selection: &Selection,
        bytes: Vec<u8>,
    ) -> Result<bool, Error> {
        let name = self.schema().var_path(var);
        Ok(self.out.write_stored_chunk(var, &name, selection, bytes)?)
    }

    /// netCDF's `nc_sync`: a classic file's record count is written and
    /// everything flushed (to the temporary name of a created file, which
    /// appears under its name on [`close`](Self::close)); a store stores
    /// its complete chunks as they are written.
    pub fn sync(&mut self) -> Result<(), Error> {
        Ok(self.out.sync()?)
    }

    /// Returns to define mode to add dimensions, variables or attributes;
    /// a classic file's data moves on the next `end_define` as netCDF-C
    /// moves it. A store refuses changes at `end_define`.
    pub fn redefine(self) -> Result<DatasetDef, Error> {
        let target = self.out.target().to_path_buf();
        let defs = match self.version {
            Some(version) => {
                Defs::classic(version, self.schema()).map_err(|e| define_error(&target, e))?
            }
            None => Defs::Model(self.schema().clone()),
        };
        Ok(DatasetDef {
            target,
            defs,
            holds: self.holds,
            next: Next::Redefine(Box::new(self)),
        })
    }

    /// Completes the dataset and, for a created one, renames it into place.
    pub fn close(self) -> Result<(), Error> {
        Ok(self.out.finish()?)
    }
}
