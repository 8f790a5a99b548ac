use nctk_model::{
    convert, Attribute, DataSource, DataType, Format, GroupId, NcValue, Schema, Selection, VarId,
};

use std::sync::Arc;

use nctk_classic::compressed::CompressedSource;
use nctk_store::bytes::ByteSource;

use crate::{Container, Dimension, Error, Group, IntoExtents};

/// What references to a dataset's chunks point at, when not the bytes of
/// the file it was opened from.
pub(crate) enum RefsOrigin {
    /// A store's objects, whose keys are relative to this absolute path
    /// or URL.
    StoreRoot(String),
    /// A block-compressed file's blocks.
    Compressed(Arc<CompressedSource>),
}

/// An open dataset, for reading. `Send + Sync`: threads may read it at once.
pub struct Dataset {
    source: Box<dyn DataSource>,
    /// What holds it, when opened by the facade.
    container: Option<Container>,
    /// The classic file's bytes behind it (a classic file, or the one a
    /// block-compressed file stands for), which [`crate::compress_classic_dataset`]
    /// compresses as they are.
    classic_bytes: Option<Arc<dyn ByteSource>>,
    /// What references to the dataset's chunks point at when it is not
    /// the file's own bytes (a store's objects, a block-compressed
    /// file's blocks).
    refs_origin: Option<RefsOrigin>,
    /// The path or URL it was opened by, for messages.
    name: String,
}

impl std::fmt::Debug for Dataset {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Dataset")
            .field("format", &self.format())
            .field("container", &self.container)
            .finish()
    }
}

impl Dataset {
    /// Wraps a format reader.
    pub fn from_source(source: Box<dyn DataSource>) -> Dataset {
        Dataset {
            source,
            container: None,
            classic_bytes: None,
            refs_origin: None,
            name: String::new(),
        }
    }

    /// The dataset, named `name` in messages.
    pub(crate) fn named(mut self, name: &str) -> Dataset {
        self.name = name.to_string();
        self
    }

    /// The dataset, read from the classic file `bytes`.
    pub(crate) fn with_classic_bytes(mut self, bytes: Arc<dyn ByteSource>) -> Dataset {
        self.classic_bytes = Some(bytes);
        self
    }

    /// The dataset, read from a store whose objects' keys are relative to
    /// `root` (its absolute path or URL; `None`: a zip archive).
    pub(crate) fn with_store_root(mut self, root: Option<String>) -> Dataset {
        self.refs_origin = root.map(RefsOrigin::StoreRoot);
        self
    }

    /// The dataset, read from the block-compressed file `file`.
    pub(crate) fn with_compressed(mut self, file: Arc<CompressedSource>) -> Dataset {
        self.refs_origin = Some(RefsOrigin::Compressed(file));
        self
    }

    /// What references to the dataset's chunks point at, when not the
    /// file's own bytes.
    pub(crate) fn refs_origin(&self) -> Option<&RefsOrigin> {
        self.refs_origin.as_ref()
    }

    /// The classic file's bytes behind the dataset, when it is one.
    pub(crate) fn classic_bytes(&self) -> Option<&Arc<dyn ByteSource>> {
        self.classic_bytes.as_ref()
    }

    /// The path or URL the dataset was opened by (empty for one made by
    /// [`Dataset::from_source`] or opened from memory without a name).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The dataset, known to be held by `container`.
    pub(crate) fn in_container(mut self, container: Container) -> Dataset {
        self.container = Some(container);
        self
    }

    /// What holds the dataset (a classic file, an HDF5 file, a store, an
    /// ncstream, ...), when [`crate::open`] and its kin opened it; `None`
    /// for a dataset made by [`Dataset::from_source`].
    pub fn container(&self) -> Option<Container> {
        self.container
    }

    /// The underlying format reader, for format-independent tools (dump, copy).
    pub fn source(&self) -> &dyn DataSource {
        self.source.as_ref()
    }

    /// The dataset's structure.
    pub fn schema(&self) -> &Schema {
        self.source().schema()
    }

    /// The dataset's netCDF format (its [`Format::name`] is what
    /// `ncdump -k` prints).
    pub fn format(&self) -> Format {
        self.source().format()
    }

    /// The variable at `path` (`temp` or `/group/temp`).
    pub fn variable(&self, path: &str) -> Option<Variable<'_>> {
        self.root().variable(path)
    }

    /// Every variable of the root group, in definition order.
    pub fn variables(&self) -> impl Iterator<Item = Variable<'_>> {
        self.root().variables()
    }

    /// The global attribute `name` of the root group.
    pub fn attribute(&self, name: &str) -> Option<&Attribute> {
        self.root().attribute(name)
    }

    /// The root group, the view every other group is reached from.
    ///
    /// ```
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let dir = tempfile::tempdir()?;
    /// # let path = dir.path().join("r.nc");
    /// # nctk::create(&path, nctk::Format::Classic)?.end_define()?.close()?;
    /// let ds = nctk::open(&path)?;
    /// assert_eq!(ds.root().path(), "/");
    /// # Ok(()) }
    /// ```
    pub fn root(&self) -> Group<'_> {
        Group::new(self, GroupId::ROOT)
    }

    /// The root group's dimensions in definition order, with their current
    /// lengths (netCDF4-python's `ds.dimensions`).
    ///
    /// ```
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let dir = tempfile::tempdir()?;
    /// # let path = dir.path().join("r.nc");
    /// # let mut def = nctk::create(&path, nctk::Format::Classic)?;
    /// # def.add_unlimited_dimension("time")?;
    /// # def.add_dimension("x", 3)?;
    /// # def.end_define()?.close()?;
    /// let ds = nctk::open(&path)?;
    /// let dims: Vec<(&str, u64, bool)> = ds
    ///     .dimensions()
    ///     .map(|d| (d.name(), d.len(), d.is_unlimited()))
    ///     .collect();
    /// assert_eq!(dims, [("time", 0, true), ("x", 3, false)]);
    /// # Ok(()) }
    /// ```
    pub fn dimensions(&self) -> impl Iterator<Item = Dimension<'_>> {
        self.root().dimensions()
    }

    /// The root group's dimension `name` (netCDF4-python's `ds.dimensions[name]`).
    ///
    /// ```
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let dir = tempfile::tempdir()?;
    /// # let path = dir.path().join("r.nc");
    /// # let mut def = nctk::create(&path, nctk::Format::Classic)?;
    /// # def.add_dimension("x", 3)?;
    /// # def.end_define()?.close()?;
    /// let ds = nctk::open(&path)?;
    /// assert_eq!(ds.dimension("x").map(|d| d.len()), Some(3));
    /// # Ok(()) }
    /// ```
    pub fn dimension(&self, name: &str) -> Option<Dimension<'_>> {
        self.root().dimension(name)
    }

    /// The root group's subgroups in definition order (netCDF4-python's
    /// `ds.groups`; classic files have none).
    ///
    /// ```
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let dir = tempfile::tempdir()?;
    /// # let path = dir.path().join("r.nc");
    /// # nctk::create(&path, nctk::Format::Classic)?.end_define()?.close()?;
    /// let ds = nctk::open(&path)?;
    /// for g in ds.groups() {
    ///     println!("{}: {} variables", g.path(), g.variables().count());
    /// }
    /// # Ok(()) }
    /// ```
    pub fn groups(&self) -> impl Iterator<Item = Group<'_>> {
        self.root().groups()
    }

    /// The group at `path` (`/`, `/g`, `g/sub`), or `None`.
    ///
    /// ```
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let dir = tempfile::tempdir()?;
    /// # let path = dir.path().join("r.nc");
    /// # nctk::create(&path, nctk::Format::Classic)?.end_define()?.close()?;
    /// let ds = nctk::open(&path)?;
    /// assert_eq!(ds.group("/"), Some(ds.root()));
    /// assert_eq!(ds.group("/no/such/group"), None);
    /// # Ok(()) }
    /// ```
    pub fn group(&self, path: &str) -> Option<Group<'_>> {
        self.root().group(path)
    }

    /// The global attributes in definition order (netCDF4-python's
    /// `ds.ncattrs()` with `getncattr`).
    ///
    /// ```
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let dir = tempfile::tempdir()?;
    /// # let path = dir.path().join("r.nc");
    /// # let mut def = nctk::create(&path, nctk::Format::Classic)?;
    /// # def.put_attribute("title", "demo")?;
    /// # def.put_attribute("version", 2.5f64)?;
    /// # def.end_define()?.close()?;
    /// let ds = nctk::open(&path)?;
    /// let names: Vec<&str> = ds.attributes().iter().map(|a| a.name.as_str()).collect();
    /// assert_eq!(names, ["title", "version"]);
    /// assert_eq!(ds.attributes()[1].as_f64(), Some(2.5));
    /// # Ok(()) }
    /// ```
    pub fn attributes(&self) -> &[Attribute] {
        self.root().attributes()
    }
}

/// A variable of an open [`Dataset`].
#[derive(Clone, Copy)]
pub struct Variable<'a> {
    dataset: &'a Dataset,
    id: VarId,
}

impl std::fmt::Debug for Variable<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Variable")
            .field("name", &self.name())
            .finish()
    }
}

/// The same variable of the same open dataset.
impl PartialEq for Variable<'_> {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self.dataset, other.dataset) && self.id == other.id
    }
}

impl<'a> Variable<'a> {
    pub(crate) fn new(dataset: &'a Dataset, id: VarId) -> Variable<'a> {
        Variable { dataset, id }
    }

    /// The variable's id in the schema.
    pub fn id(&self) -> VarId {
        self.id
    }

    /// The variable's name.
    pub fn name(&self) -> &'a str {
        &self.dataset.schema().var(self.id).name
    }

    /// The element type.
    pub fn dtype(&self) -> DataType {
        self.dataset.schema().var(self.id).dtype
    }

    /// The current shape.
    pub fn shape(&self) -> Vec<u64> {
        self.dataset.schema().shape(self.id)
    }

    /// Where the stored bytes of each of the variable's chunks are in the
    /// file or store the dataset was opened from (offsets into the file
    /// itself, a block-compressed file's blocks, or a store's objects by
    /// absolute path or URL; for kerchunk references: `nctk refs`), with
    /// the chunk grid and the chunks' codecs as numcodecs JSON. An error
    /// naming the file and the variable when its storage cannot be
    /// described so, or when the container holds no such bytes (a zip
    /// store, an ncstream).
    pub fn chunk_refs(&self) -> Result<nctk_model::ChunkRefs, Error> {
        crate::formats::chunk_refs(self.dataset, self.id)
    }

    /// The names of the variable's dimensions.
    pub fn dimension_names(&self) -> Vec<&'a str> {
        let schema = self.dataset.schema();
        schema
            .var(self.id)
            .dims
            .iter()
            .map(|&d| schema.dim(d).name.as_str())
            .collect()
    }

    /// The variable's dimensions, outermost first (empty for a scalar),
    /// wherever they are defined (this group or an ancestor).
    ///
    /// ```
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let dir = tempfile::tempdir()?;
    /// # let path = dir.path().join("v.nc");
    /// # let mut def = nctk::create(&path, nctk::Format::Classic)?;
    /// # let time = def.add_unlimited_dimension("time")?;
    /// # let x = def.add_dimension("x", 3)?;
    /// # def.add_variable::<f32>("temp", &[time, x])?;
    /// # def.end_define()?.close()?;
    /// let ds = nctk::open(&path)?;
    /// let temp = ds.variable("temp").expect("no temp");
    /// let dims: Vec<(&str, u64)> = temp.dimensions().iter().map(|d| (d.name(), d.len())).collect();
    /// assert_eq!(dims, [("time", 0), ("x", 3)]);
    /// # Ok(()) }
    /// ```
    pub fn dimensions(&self) -> Vec<Dimension<'a>> {
        let schema = self.dataset.schema();
        schema
            .var(self.id)
            .dims
            .iter()
            .map(|&d| Dimension::new(schema, d))
            .collect()
    }

    /// The group that holds the variable.
    ///
    /// ```
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let dir = tempfile::tempdir()?;
    /// # let path = dir.path().join("v.nc");
    /// # let mut def = nctk::create(&path, nctk::Format::Classic)?;
    /// # def.add_variable::<f32>("t", &[])?;
    /// # def.end_define()?.close()?;
    /// let ds = nctk::open(&path)?;
    /// assert_eq!(ds.variable("t").map(|v| v.group()), Some(ds.root()));
    /// # Ok(()) }
    /// ```
    pub fn group(&self) -> Group<'a> {
        Group::new(self.dataset, self.dataset.schema().var(self.id).group)
    }

    /// The attribute named `name`.
    pub fn attribute(&self, name: &str) -> Option<&'a Attribute> {
        self.dataset.schema().var(self.id).attribute(name)
    }

    /// The variable's attributes in definition order (netCDF4-python's
    /// `var.ncattrs()` with `getncattr`).
    ///
    /// ```
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let dir = tempfile::tempdir()?;
    /// # let path = dir.path().join("v.nc");
    /// # let mut def = nctk::create(&path, nctk::Format::Classic)?;
    /// # def.add_variable::<f32>("t", &[])?.put_attribute("units", "K")?;
    /// # def.end_define()?.close()?;
    /// let ds = nctk::open(&path)?;
    /// let t = ds.variable("t").expect("no t");
    /// assert_eq!(t.attributes()[0].as_str(), Some("K"));
    /// # Ok(()) }
    /// ```
    pub fn attributes(&self) -> &'a [Attribute] {
        &self.dataset.schema().var(self.id).attributes
    }

    /// Reads the selected values in the variable's own type.
    pub fn read_values(&self, selection: &Selection) -> Result<nctk_model::Values, Error> {
        self.dataset
            .source()
            .read(self.id, selection)
            .map_err(Error::Format)
    }

    /// Reads into a vector of `T`: straight into it when `T` is the
    /// variable's own type (no copy), else converted with netCDF's rules.
    fn read_vec<T: NcValue>(&self, selection: &Selection) -> Result<Vec<T>, Error> {
        let mut values = T::into_values(Vec::new());
        self.dataset
            .source()
            .read_into(self.id, selection, &mut values)
            .map_err(Error::Format)?;
        Ok(convert::values_to_vec(values)?)
    }

    /// Reads the values named by `extents` as a flat `Vec<T>` in row-major
    /// order, converting with netCDF's rules (out-of-range values are errors).
    pub fn get_values<T: NcValue>(&self, extents: impl IntoExtents) -> Result<Vec<T>, Error> {
        let (selection, _) = extents.into_extents().resolve(&self.shape())?;
        self.read_vec(&selection)
    }

    /// Reads the values named by `extents` into `out`, which must hold
    /// exactly that many values: the way to reuse one buffer across reads.
    pub fn get_into<T: NcValue>(
        &self,
        extents: impl IntoExtents,
        out: &mut [T],
    ) -> Result<(), Error> {
        let (selection, _) = extents.into_extents().resolve(&self.shape())?;
        let n = selection.num_elements();
        if n != Some(out.len() as u64) {
            return Err(Error::Extent(format!(
                "buffer holds {} values, the selection has {}",
                out.len(),
                n.map_or_else(|| "more".to_string(), |n| n.to_string())
            )));
        }
        if T::NATIVE == self.dtype() {
            // No conversion: the format reads straight into `out`.
            return self
                .dataset
                .source()
                .read_native(self.id, &selection, T::native_mut(out))
                .map_err(Error::Format);
        }
        out.copy_from_slice(&self.read_vec(&selection)?);
        Ok(())
    }

    /// Reads the values named by `extents` into an n-dimensional array;
    /// dimensions given by a single index are dropped.
    #[cfg(feature = "ndarray")]
    pub fn get<T: NcValue>(&self, extents: impl IntoExtents) -> Result<ndarray::ArrayD<T>, Error> {
        let (selection, shape) = extents.into_extents().resolve(&self.shape())?;
        let values = self.read_vec(&selection)?;
        ndarray::ArrayD::from_shape_vec(shape, values)
            .map_err(|e| Error::Extent(format!("result shape: {e}")))
    }
}
