//! Views of a [`Dataset`]'s groups and dimensions, as netCDF4-python shows
//! them (`ds.dimensions`, `ds.groups`, `ds.ncattrs()`): borrowed, cheap to
//! copy, and named by the model's typed ids.

use nctk_model::{Attribute, DimId, GroupId, Schema};

use crate::{Dataset, Variable};

/// A group of an open [`Dataset`]: its own dimensions, variables,
/// attributes and subgroups. The root group is [`Dataset::root`].
///
/// ```
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let dir = tempfile::tempdir()?;
/// # let path = dir.path().join("g.nc");
/// # let mut def = nctk::create(&path, nctk::Format::Classic)?;
/// # def.add_dimension("x", 2)?;
/// # def.end_define()?.close()?;
/// let ds = nctk::open(&path)?;
/// let root = ds.root();
/// assert_eq!(root.path(), "/");
/// assert_eq!(root.dimensions().count(), 1);
/// # Ok(()) }
/// ```
#[derive(Clone, Copy)]
pub struct Group<'a> {
    dataset: &'a Dataset,
    id: GroupId,
}

impl std::fmt::Debug for Group<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Group").field("path", &self.path()).finish()
    }
}

impl PartialEq for Group<'_> {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self.dataset, other.dataset) && self.id == other.id
    }
}

impl<'a> Group<'a> {
    pub(crate) fn new(dataset: &'a Dataset, id: GroupId) -> Group<'a> {
        Group { dataset, id }
    }

    fn schema(&self) -> &'a Schema {
        self.dataset.schema()
    }

    fn model(&self) -> &'a nctk_model::Group {
        self.schema().group(self.id)
    }

    /// The group's id in the schema.
    ///
    /// ```
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let dir = tempfile::tempdir()?;
    /// # let path = dir.path().join("g.nc");
    /// # nctk::create(&path, nctk::Format::Classic)?.end_define()?.close()?;
    /// let ds = nctk::open(&path)?;
    /// assert_eq!(ds.root().id(), nctk::model::GroupId::ROOT);
    /// # Ok(()) }
    /// ```
    pub fn id(&self) -> GroupId {
        self.id
    }

    /// The group's name (empty for the root).
    ///
    /// ```
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let dir = tempfile::tempdir()?;
    /// # let path = dir.path().join("g.nc");
    /// # nctk::create(&path, nctk::Format::Classic)?.end_define()?.close()?;
    /// let ds = nctk::open(&path)?;
    /// assert_eq!(ds.root().name(), "");
    /// # Ok(()) }
    /// ```
    pub fn name(&self) -> &'a str {
        &self.model().name
    }

    /// The group's full path (`/` for the root, `/a/b` below it).
    ///
    /// ```
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let dir = tempfile::tempdir()?;
    /// # let path = dir.path().join("g.nc");
    /// # nctk::create(&path, nctk::Format::Classic)?.end_define()?.close()?;
    /// let ds = nctk::open(&path)?;
    /// assert_eq!(ds.root().path(), "/");
    /// # Ok(()) }
    /// ```
    pub fn path(&self) -> String {
        self.schema().group_path(self.id)
    }

    /// The parent group; `None` for the root.
    ///
    /// ```
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let dir = tempfile::tempdir()?;
    /// # let path = dir.path().join("g.nc");
    /// # nctk::create(&path, nctk::Format::Classic)?.end_define()?.close()?;
    /// let ds = nctk::open(&path)?;
    /// assert!(ds.root().parent().is_none());
    /// # Ok(()) }
    /// ```
    pub fn parent(&self) -> Option<Group<'a>> {
        self.model().parent.map(|id| Group::new(self.dataset, id))
    }

    /// The dimensions this group defines, in definition order (not those
    /// it sees from its ancestors; netCDF4-python's `group.dimensions`).
    ///
    /// ```
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let dir = tempfile::tempdir()?;
    /// # let path = dir.path().join("g.nc");
    /// # let mut def = nctk::create(&path, nctk::Format::Classic)?;
    /// # def.add_unlimited_dimension("time")?;
    /// # def.end_define()?.close()?;
    /// let ds = nctk::open(&path)?;
    /// for dim in ds.root().dimensions() {
    ///     println!("{} = {} (unlimited: {})", dim.name(), dim.len(), dim.is_unlimited());
    /// }
    /// # Ok(()) }
    /// ```
    pub fn dimensions(&self) -> impl Iterator<Item = Dimension<'a>> + 'a {
        let schema = self.schema();
        self.model()
            .dims
            .iter()
            .map(move |&id| Dimension::new(schema, id))
    }

    /// The dimension `name` defined in this group (not in an ancestor).
    ///
    /// ```
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let dir = tempfile::tempdir()?;
    /// # let path = dir.path().join("g.nc");
    /// # let mut def = nctk::create(&path, nctk::Format::Classic)?;
    /// # def.add_dimension("x", 4)?;
    /// # def.end_define()?.close()?;
    /// let ds = nctk::open(&path)?;
    /// assert_eq!(ds.root().dimension("x").map(|d| d.len()), Some(4));
    /// # Ok(()) }
    /// ```
    pub fn dimension(&self, name: &str) -> Option<Dimension<'a>> {
        self.dimensions().find(|d| d.name() == name)
    }

    /// The group's variables, in definition order.
    ///
    /// ```
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let dir = tempfile::tempdir()?;
    /// # let path = dir.path().join("g.nc");
    /// # let mut def = nctk::create(&path, nctk::Format::Classic)?;
    /// # def.add_variable::<f32>("t", &[])?;
    /// # def.end_define()?.close()?;
    /// let ds = nctk::open(&path)?;
    /// let names: Vec<&str> = ds.root().variables().map(|v| v.name()).collect();
    /// assert_eq!(names, ["t"]);
    /// # Ok(()) }
    /// ```
    pub fn variables(&self) -> impl Iterator<Item = Variable<'a>> + 'a {
        let dataset = self.dataset;
        self.model()
            .vars
            .iter()
            .map(move |&id| Variable::new(dataset, id))
    }

    /// The variable at `path` relative to this group (`w`, `sub/w`; a path
    /// starting with `/` starts at the root):
    /// `ds.group("/g")?.variable("w")` is `ds.variable("/g/w")`.
    ///
    /// ```
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let dir = tempfile::tempdir()?;
    /// # let path = dir.path().join("g.nc");
    /// # let mut def = nctk::create(&path, nctk::Format::Classic)?;
    /// # def.add_variable::<f32>("t", &[])?;
    /// # def.end_define()?.close()?;
    /// let ds = nctk::open(&path)?;
    /// assert_eq!(ds.root().variable("t"), ds.variable("/t"));
    /// # Ok(()) }
    /// ```
    pub fn variable(&self, path: &str) -> Option<Variable<'a>> {
        let id = self.schema().var_by_relative_path(self.id, path)?;
        Some(Variable::new(self.dataset, id))
    }

    /// The group's attributes (global attributes for the root), in
    /// definition order (netCDF4-python's `ncattrs()` and `getncattr`).
    ///
    /// ```
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let dir = tempfile::tempdir()?;
    /// # let path = dir.path().join("g.nc");
    /// # let mut def = nctk::create(&path, nctk::Format::Classic)?;
    /// # def.put_attribute("title", "demo")?;
    /// # def.end_define()?.close()?;
    /// let ds = nctk::open(&path)?;
    /// for attr in ds.root().attributes() {
    ///     println!("{} = {:?}", attr.name, attr.as_str());
    /// }
    /// # Ok(()) }
    /// ```
    pub fn attributes(&self) -> &'a [Attribute] {
        &self.model().attributes
    }

    /// The group attribute `name`.
    ///
    /// ```
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let dir = tempfile::tempdir()?;
    /// # let path = dir.path().join("g.nc");
    /// # let mut def = nctk::create(&path, nctk::Format::Classic)?;
    /// # def.put_attribute("version", 3i32)?;
    /// # def.end_define()?.close()?;
    /// let ds = nctk::open(&path)?;
    /// let version = ds.root().attribute("version").and_then(|a| a.as_f64());
    /// assert_eq!(version, Some(3.0));
    /// # Ok(()) }
    /// ```
    pub fn attribute(&self, name: &str) -> Option<&'a Attribute> {
        self.attributes().iter().find(|a| a.name == name)
    }

    /// The group's subgroups, in definition order (netCDF4-python's
    /// `group.groups`).
    ///
    /// ```
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let dir = tempfile::tempdir()?;
    /// # let path = dir.path().join("g.nc");
    /// # nctk::create(&path, nctk::Format::Classic)?.end_define()?.close()?;
    /// let ds = nctk::open(&path)?; // classic files have only the root group
    /// assert_eq!(ds.root().groups().count(), 0);
    /// # Ok(()) }
    /// ```
    pub fn groups(&self) -> impl Iterator<Item = Group<'a>> + 'a {
        let dataset = self.dataset;
        self.model()
            .groups
            .iter()
            .map(move |&id| Group::new(dataset, id))
    }

    /// The group at `path` relative to this one (`sub`, `sub/deeper`; a
    /// path starting with `/` starts at the root; `""` is this group).
    ///
    /// ```
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let dir = tempfile::tempdir()?;
    /// # let path = dir.path().join("g.nc");
    /// # nctk::create(&path, nctk::Format::Classic)?.end_define()?.close()?;
    /// let ds = nctk::open(&path)?;
    /// assert_eq!(ds.root().group(""), Some(ds.root()));
    /// assert!(ds.root().group("missing").is_none());
    /// # Ok(()) }
    /// ```
    pub fn group(&self, path: &str) -> Option<Group<'a>> {
        let id = self.schema().group_by_relative_path(self.id, path)?;
        Some(Group::new(self.dataset, id))
    }
}

/// A dimension of an open [`Dataset`]: name, current length, unlimited.
///
/// ```
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let dir = tempfile::tempdir()?;
/// # let path = dir.path().join("d.nc");
/// # let mut def = nctk::create(&path, nctk::Format::Classic)?;
/// # def.add_dimension("lat", 3)?;
/// # def.end_define()?.close()?;
/// let ds = nctk::open(&path)?;
/// let lat = ds.dimension("lat").expect("no lat");
/// assert_eq!((lat.name(), lat.len(), lat.is_unlimited()), ("lat", 3, false));
/// # Ok(()) }
/// ```
#[derive(Clone, Copy)]
pub struct Dimension<'a> {
    schema: &'a Schema,
    id: DimId,
}

impl std::fmt::Debug for Dimension<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Dimension")
            .field("name", &self.name())
            .field("len", &self.len())
            .field("unlimited", &self.is_unlimited())
            .finish()
    }
}

impl PartialEq for Dimension<'_> {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self.schema, other.schema) && self.id == other.id
    }
}

impl<'a> Dimension<'a> {
    pub(crate) fn new(schema: &'a Schema, id: DimId) -> Dimension<'a> {
        Dimension { schema, id }
    }

    fn model(&self) -> &'a nctk_model::Dimension {
        self.schema.dim(self.id)
    }

    /// The dimension's id in the schema.
    ///
    /// ```
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let dir = tempfile::tempdir()?;
    /// # let path = dir.path().join("d.nc");
    /// # let mut def = nctk::create(&path, nctk::Format::Classic)?;
    /// let x = def.add_dimension("x", 3)?;
    /// # def.end_define()?.close()?;
    /// let ds = nctk::open(&path)?;
    /// assert_eq!(ds.dimension("x").map(|d| d.id()), Some(x));
    /// # Ok(()) }
    /// ```
    pub fn id(&self) -> DimId {
        self.id
    }

    /// The dimension's name.
    ///
    /// ```
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let dir = tempfile::tempdir()?;
    /// # let path = dir.path().join("d.nc");
    /// # let mut def = nctk::create(&path, nctk::Format::Classic)?;
    /// # def.add_dimension("x", 3)?;
    /// # def.end_define()?.close()?;
    /// let ds = nctk::open(&path)?;
    /// assert_eq!(ds.dimensions().next().map(|d| d.name()), Some("x"));
    /// # Ok(()) }
    /// ```
    pub fn name(&self) -> &'a str {
        &self.model().name
    }

    /// The current length (for an unlimited dimension: the record count).
    ///
    /// ```
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let dir = tempfile::tempdir()?;
    /// # let path = dir.path().join("d.nc");
    /// # let mut def = nctk::create(&path, nctk::Format::Classic)?;
    /// # def.add_dimension("x", 3)?;
    /// # def.end_define()?.close()?;
    /// let ds = nctk::open(&path)?;
    /// assert_eq!(ds.dimension("x").map(|d| d.len()), Some(3));
    /// # Ok(()) }
    /// ```
    // A dimension is not a container: `is_empty` would read oddly.
    #[allow(clippy::len_without_is_empty)]
    pub fn len(&self) -> u64 {
        self.model().len
    }

    /// True for an unlimited (record) dimension.
    ///
    /// ```
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let dir = tempfile::tempdir()?;
    /// # let path = dir.path().join("d.nc");
    /// # let mut def = nctk::create(&path, nctk::Format::Classic)?;
    /// # def.add_unlimited_dimension("time")?;
    /// # def.end_define()?.close()?;
    /// let ds = nctk::open(&path)?;
    /// assert_eq!(ds.dimension("time").map(|d| d.is_unlimited()), Some(true));
    /// # Ok(()) }
    /// ```
    pub fn is_unlimited(&self) -> bool {
        self.model().unlimited
    }

    /// The id of the group that defines the dimension.
    ///
    /// ```
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let dir = tempfile::tempdir()?;
    /// # let path = dir.path().join("d.nc");
    /// # let mut def = nctk::create(&path, nctk::Format::Classic)?;
    /// # def.add_dimension("x", 3)?;
    /// # def.end_define()?.close()?;
    /// let ds = nctk::open(&path)?;
    /// assert_eq!(ds.dimension("x").map(|d| d.group()), Some(nctk::model::GroupId::ROOT));
    /// # Ok(()) }
    /// ```
    pub fn group(&self) -> GroupId {
        self.model().group
    }
}
