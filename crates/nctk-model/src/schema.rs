use crate::{name, DataType, ModelError, TypeId, UserType, Values};

/// Index of a dimension in a [`Schema`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DimId(pub u32);

/// Index of a variable in a [`Schema`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VarId(pub u32);

/// Index of a group in a [`Schema`]; the root group is [`GroupId::ROOT`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GroupId(pub u32);

impl GroupId {
    /// The root group.
    pub const ROOT: GroupId = GroupId(0);
}

/// A named attribute: always a one-dimensional vector of typed values.
#[derive(Debug, Clone, PartialEq)]
pub struct Attribute {
    /// The attribute's name.
    pub name: String,
    /// The attribute's values.
    pub value: Values,
    /// The attribute's user type (compound, vlen, enum, opaque), which the
    /// values do not carry; `None` for an atomic type, which they do.
    pub user_type: Option<TypeId>,
}

impl Attribute {
    /// An attribute named `name` holding `value` (of an atomic type).
    pub fn new(name: impl Into<String>, value: Values) -> Attribute {
        Attribute {
            name: name.into(),
            value,
            user_type: None,
        }
    }

    /// An attribute of type `dtype` (atomic or user) holding `value`.
    pub fn typed(name: impl Into<String>, dtype: DataType, value: Values) -> Attribute {
        let user_type = match dtype {
            DataType::User(id) => Some(id),
            _ => None,
        };
        Attribute {
            name: name.into(),
            value,
            user_type,
        }
    }
}

/// A named dimension.
#[derive(Debug, Clone, PartialEq)]
pub struct Dimension {
    /// The dimension's name.
    pub name: String,
    /// Current length (for an unlimited dimension: the number of records).
    pub len: u64,
    /// True for an unlimited (record) dimension.
    pub unlimited: bool,
    /// The group that defines the dimension.
    pub group: GroupId,
}

/// How a variable's data is laid out in its storage (the `_Storage` and
/// `_ChunkSizes` special attributes of `ncdump -s`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Layout {
    /// Not set: the writer chooses (a store: netCDF-C's default chunking;
    /// a classic file: contiguous). What a variable defined without
    /// [`VarStorage`] settings has; readers never report it.
    #[default]
    Unset,
    /// One contiguous block (classic files; unchunked netCDF-4 variables).
    /// A store holds it as one chunk covering the whole variable, as
    /// netCDF-C's NCZarr does.
    Contiguous,
    /// Chunked with these chunk lengths, one per dimension.
    Chunked(Vec<u64>),
    /// A scalar stored inline.
    Compact,
}

/// Byte order of a variable's stored data (the `_Endianness` special attribute).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Endianness {
    /// Little-endian.
    Little,
    /// Big-endian.
    Big,
}

/// How one variable is stored: the one storage vocabulary of nctk, what
/// every reader reports (`ncdump -s`'s special attributes) and what every
/// writer takes from the schema it is given (`schema.var(id).storage`).
///
/// Every field's default means "not set: the writer's default" (netCDF-C's
/// defaults): [`Layout::Unset`], no filters, no deflate, no shuffle, no
/// fletcher32, no codecs, the writer's byte order (little-endian), fill
/// on, the writer's string width, netCDF's default fill value. A writer
/// uses what its format holds and leaves out the rest without error (a
/// classic file holds no chunking, filters or byte order, and is written
/// contiguous and big-endian; netCDF-C's nccopy drops them so); the
/// facade's define API (`nctk::VarDef`) refuses at the call what the
/// dataset's format cannot hold, as netCDF-C's `nc_def_var_*` do.
///
/// How each reader fills it: the classic reader sets `layout` (always
/// contiguous) and `endianness` (big); the Zarr reader sets `layout`
/// (chunked), `codecs`, `filters` (NCZarr's `_Filter`), `endianness`,
/// `string_width` and `fill_value`; the netCDF-4 (HDF5) reader sets
/// `layout`, `filters` (only filters other than deflate, shuffle and
/// fletcher32, in ncdump's `_Filter` text), `deflate_level`, `shuffle`,
/// `fletcher32`, `endianness`, `no_fill` and `fill_value`; the ncstream
/// reader sets `layout` (contiguous).
///
/// How a store writer (NCZarr / Zarr) takes it: `codecs`, when given, is
/// the whole chain (the last codec the compressor) and the other filter
/// fields are not used; else the chain is shuffle, `filters`, deflate,
/// fletcher32 in netCDF-C's order. `no_fill` is recorded only (chunks
/// never written read as fill either way).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct VarStorage {
    /// Contiguous, chunked or compact; [`Layout::Unset`] leaves it to the writer.
    pub layout: Layout,
    /// The `_Filter` text (HDF5 filter ids and parameters, `"307,9|1,5"`),
    /// if any; a store writer maps it to numcodecs as netCDF-C maps it.
    pub filters: Option<String>,
    /// The deflate (zlib) level 0..=9 when the variable is deflated (`_DeflateLevel`).
    pub deflate_level: Option<u32>,
    /// True when the shuffle filter is on (`_Shuffle = "true"`).
    pub shuffle: bool,
    /// True when the fletcher32 checksum filter is on (`_Fletcher32 = "true"`).
    pub fletcher32: bool,
    /// The `_Codecs` text (a numcodecs JSON list, or one codec), if any.
    pub codecs: Option<String>,
    /// Stored byte order, where the format records one; `None`: the
    /// writer's (little-endian for a store).
    pub endianness: Option<Endianness>,
    /// True when the variable is (or was) written without fill (`_NoFill`).
    pub no_fill: bool,
    /// Bytes per element of a `string` variable stored at a fixed width
    /// (NCZarr and Zarr `|S<n>`; four per character for `<U<n>`), so a
    /// copy can keep strings that long. `None`: the writer's width (a
    /// store: the one netCDF-C's `_nczarr_maxstrlen` /
    /// `_nczarr_default_maxstrlen` attributes set, longer strings then
    /// cut, else 128); a width set here refuses longer strings.
    pub string_width: Option<usize>,
    /// The fill value a format records apart from `_FillValue` (a Zarr
    /// array's `fill_value` when no `_FillValue` attribute gives one), so
    /// a copy reads and writes the same fill; one value of the variable's
    /// type. A `_FillValue` attribute takes precedence.
    pub fill_value: Option<Values>,
    /// Zarr v3 sharding (`sharding_indexed`): the shard shape, one length
    /// per dimension, each a multiple of the chunk length (the chunks of
    /// [`layout`](Self::layout) are then the shards' inner chunks, the
    /// shards the objects stored). `None`: no sharding; other formats
    /// ignore it.
    pub shards: Option<Vec<u64>>,
}

/// A variable: a name, a type, a shape given by dimensions, and attributes.
#[derive(Debug, Clone, PartialEq)]
pub struct Variable {
    /// The variable's name.
    pub name: String,
    /// The group that holds the variable.
    pub group: GroupId,
    /// The element type.
    pub dtype: DataType,
    /// The dimensions, outermost first; empty for a scalar.
    pub dims: Vec<DimId>,
    /// The variable's attributes, in definition order.
    pub attributes: Vec<Attribute>,
    /// Storage facts for `ncdump -s`.
    pub storage: VarStorage,
}

impl Variable {
    /// The attribute named `name`.
    pub fn attribute(&self, name: &str) -> Option<&Attribute> {
        self.attributes.iter().find(|a| a.name == name)
    }
}

/// A group: a scope for dimensions, variables, attributes and subgroups.
#[derive(Debug, Clone, PartialEq)]
pub struct Group {
    /// The group's name (empty for the root).
    pub name: String,
    /// The parent group; `None` for the root.
    pub parent: Option<GroupId>,
    /// Dimensions defined in this group, in definition order.
    pub dims: Vec<DimId>,
    /// Variables of this group, in definition order.
    pub vars: Vec<VarId>,
    /// Group (global) attributes, in definition order.
    pub attributes: Vec<Attribute>,
    /// Subgroups, in definition order.
    pub groups: Vec<GroupId>,
    /// User types defined in this group, in definition order.
    pub types: Vec<TypeId>,
}

/// The whole structure of a dataset: every group, dimension and variable.
///
/// Objects live in arenas and refer to each other by typed ids. Classic
/// datasets use only the root group.
#[derive(Debug, Clone, PartialEq)]
pub struct Schema {
    groups: Vec<Group>,
    dims: Vec<Dimension>,
    vars: Vec<Variable>,
    pub(crate) types: Vec<UserType>,
}

impl Default for Schema {
    fn default() -> Self {
        Schema::new()
    }
}

impl Schema {
    /// A schema with an empty root group.
    pub fn new() -> Schema {
        Schema {
            groups: vec![Group {
                name: String::new(),
                parent: None,
                dims: vec![],
                vars: vec![],
                attributes: vec![],
                groups: vec![],
                types: vec![],
            }],
            dims: vec![],
            vars: vec![],
            types: vec![],
        }
    }

    /// The group `id`.
    pub fn group(&self, id: GroupId) -> &Group {
        &self.groups[id.0 as usize]
    }

    /// The group `id`, mutably.
    pub fn group_mut(&mut self, id: GroupId) -> &mut Group {
        &mut self.groups[id.0 as usize]
    }

    /// The root group.
    pub fn root(&self) -> &Group {
        self.group(GroupId::ROOT)
    }

    /// The dimension `id`.
    pub fn dim(&self, id: DimId) -> &Dimension {
        &self.dims[id.0 as usize]
    }

    /// The dimension `id`, mutably (to update an unlimited length).
    pub fn dim_mut(&mut self, id: DimId) -> &mut Dimension {
        &mut self.dims[id.0 as usize]
    }

    /// The variable `id`.
    pub fn var(&self, id: VarId) -> &Variable {
        &self.vars[id.0 as usize]
    }

    /// The variable `id`, mutably.
    pub fn var_mut(&mut self, id: VarId) -> &mut Variable {
        &mut self.vars[id.0 as usize]
    }

    /// Every dimension id, in creation order.
    pub fn dim_ids(&self) -> impl Iterator<Item = DimId> + '_ {
        (0..self.dims.len() as u32).map(DimId)
    }

    /// Every variable id, in creation order.
    pub fn var_ids(&self) -> impl Iterator<Item = VarId> + '_ {
        (0..self.vars.len() as u32).map(VarId)
    }

    /// Every group id, in creation order (the root first).
    pub fn group_ids(&self) -> impl Iterator<Item = GroupId> + '_ {
        (0..self.groups.len() as u32).map(GroupId)
    }

    /// Number of dimensions in all groups.
    pub fn num_dims(&self) -> usize {
        self.dims.len()
    }

    /// Number of variables in all groups.
    pub fn num_vars(&self) -> usize {
        self.vars.len()
    }

    /// Refuses a name a group's dimensions, variables, subgroups or types use.
    pub(crate) fn check_free_name(&self, group: GroupId, name: &str) -> Result<(), ModelError> {
        let g = self.group(group);
        let taken = g.dims.iter().any(|&d| self.dim(d).name == name)
            || g.vars.iter().any(|&v| self.var(v).name == name)
            || g.groups.iter().any(|&c| self.group(c).name == name)
            || g.types
                .iter()
                .any(|&t| self.types[t.0 as usize].name == name);
        if taken {
            return Err(ModelError::DuplicateName(name.to_string()));
        }
        Ok(())
    }

    /// Adds a dimension to `group`. The name must already be valid and NFC.
    /// Dimension names must be unique within the group; variables may share
    /// a dimension's name (coordinate variables).
    pub fn add_dim(
        &mut self,
        group: GroupId,
        name: &str,
        len: u64,
        unlimited: bool,
    ) -> Result<DimId, ModelError> {
        if self
            .group(group)
            .dims
            .iter()
            .any(|&d| self.dim(d).name == name)
        {
            return Err(ModelError::DuplicateName(name.to_string()));
        }
        let id = DimId(self.dims.len() as u32);
        self.dims.push(Dimension {
            name: name.to_string(),
            len,
            unlimited,
            group,
        });
        self.group_mut(group).dims.push(id);
        Ok(id)
    }

    /// Adds a variable to `group`.
    pub fn add_var(
        &mut self,
        group: GroupId,
        name: &str,
        dtype: DataType,
        dims: &[DimId],
    ) -> Result<VarId, ModelError> {
        if self
            .group(group)
            .vars
            .iter()
            .any(|&v| self.var(v).name == name)
            || self
                .group(group)
                .groups
                .iter()
                .any(|&c| self.group(c).name == name)
            || self
                .group(group)
                .types
                .iter()
                .any(|&t| self.types[t.0 as usize].name == name)
        {
            return Err(ModelError::DuplicateName(name.to_string()));
        }
        let id = VarId(self.vars.len() as u32);
        self.vars.push(Variable {
            name: name.to_string(),
            group,
            dtype,
            dims: dims.to_vec(),
            attributes: vec![],
            storage: VarStorage::default(),
        });
        self.group_mut(group).vars.push(id);
        Ok(id)
    }

    /// Adds a subgroup to `parent`.
    pub fn add_group(&mut self, parent: GroupId, name: &str) -> Result<GroupId, ModelError> {
        self.check_free_name(parent, name)?;
        let id = GroupId(self.groups.len() as u32);
        self.groups.push(Group {
            name: name.to_string(),
            parent: Some(parent),
            dims: vec![],
            vars: vec![],
            attributes: vec![],
            groups: vec![],
            types: vec![],
        });
        self.group_mut(parent).groups.push(id);
        Ok(id)
    }

    /// Sets (adds or replaces in place) an attribute of a variable, or of
    /// the group when `var` is `None`.
    pub fn set_attr(&mut self, group: GroupId, var: Option<VarId>, attr: Attribute) {
        let list = match var {
            Some(v) => &mut self.var_mut(v).attributes,
            None => &mut self.group_mut(group).attributes,
        };
        match list.iter_mut().find(|a| a.name == attr.name) {
            Some(slot) => *slot = attr,
            None => list.push(attr),
        }
    }

    /// Adds an attribute to a variable, or to the group when `var` is
    /// `None`, refusing a name the list already holds (a reader must not
    /// drop one of two stored attributes silently).
    pub fn add_attr(
        &mut self,
        group: GroupId,
        var: Option<VarId>,
        attr: Attribute,
    ) -> Result<(), ModelError> {
        let list = match var {
            Some(v) => &mut self.var_mut(v).attributes,
            None => &mut self.group_mut(group).attributes,
        };
        if list.iter().any(|a| a.name == attr.name) {
            return Err(ModelError::DuplicateName(attr.name));
        }
        list.push(attr);
        Ok(())
    }

    /// netCDF-C's rule for a variable's `_FillValue` when it fills (classic
    /// fill mode, netCDF-4 always): exactly one value of the variable's type.
    pub fn check_fill_value(&self, var: VarId) -> Result<(), ModelError> {
        let v = self.var(var);
        let Some(a) = v.attribute("_FillValue") else {
            return Ok(());
        };
        let reason = if a.dtype() != v.dtype {
            format!(
                "has type {} but the variable has type {}",
                self.type_name(a.dtype()),
                self.type_name(v.dtype)
            )
        } else if let Err(e) = self.check_values(v.dtype, &a.value) {
            e.to_string()
        } else if a.value.len() != 1 {
            format!("holds {} values instead of one", a.value.len())
        } else {
            return Ok(());
        };
        Err(ModelError::FillValue {
            var: v.name.clone(),
            reason,
        })
    }

    /// The definitions as every writer must store them, or the first
    /// problem: each name NFC-normalized and one netCDF-C can write
    /// ([`name::normalize`]), no name twice in one scope after normalizing
    /// (dimensions of a group; variables, subgroups and types of a group;
    /// the attributes of one list; the fields of a compound and the members
    /// of an enum), every attribute's values fitting its type
    /// ([`Schema::check_values`]). Ids are unchanged. (Writers that fill also
    /// call [`Schema::check_fill_value`].)
    pub fn writable(&self) -> Result<Schema, ModelError> {
        let mut out = self.clone();
        let nfc_attrs = |attrs: &mut Vec<Attribute>| -> Result<(), ModelError> {
            for a in attrs.iter_mut() {
                a.name = name::normalize(&a.name)?;
            }
            unique(attrs.iter().map(|a| a.name.as_str()))
        };
        for g in out.groups.iter_mut() {
            if g.parent.is_some() {
                g.name = name::normalize(&g.name)?;
            }
            nfc_attrs(&mut g.attributes)?;
        }
        for d in out.dims.iter_mut() {
            d.name = name::normalize(&d.name)?;
        }
        for v in out.vars.iter_mut() {
            v.name = name::normalize(&v.name)?;
            nfc_attrs(&mut v.attributes)?;
        }
        for t in out.types.iter_mut() {
            t.name = name::normalize(&t.name)?;
            t.kind.normalize_names()?;
        }
        for g in &out.groups {
            unique(g.dims.iter().map(|&d| out.dim(d).name.as_str()))?;
            unique(
                g.vars
                    .iter()
                    .map(|&v| out.var(v).name.as_str())
                    .chain(g.groups.iter().map(|&c| out.group(c).name.as_str()))
                    .chain(g.types.iter().map(|&t| out.user_type(t).name.as_str())),
            )?;
        }
        let attrs = out
            .groups
            .iter()
            .flat_map(|g| &g.attributes)
            .chain(out.vars.iter().flat_map(|v| &v.attributes));
        for a in attrs {
            out.check_values(a.dtype(), &a.value)?;
        }
        Ok(out)
    }

    /// The variable named `name` in `group`.
    pub fn var_by_name(&self, group: GroupId, name: &str) -> Option<VarId> {
        self.group(group)
            .vars
            .iter()
            .copied()
            .find(|&v| self.var(v).name == name)
    }

    /// The dimension named `name` visible from `group` (this group first,
    /// then its ancestors, as netCDF-4 scoping says).
    pub fn dim_by_name(&self, group: GroupId, name: &str) -> Option<DimId> {
        self.find_up(group, |g| {
            g.dims.iter().copied().find(|&d| self.dim(d).name == name)
        })
    }

    /// The first `Some` that `find` gives for `group`, then for each of
    /// its ancestors in turn (netCDF-4's scoping of names).
    pub(crate) fn find_up<T>(
        &self,
        group: GroupId,
        find: impl Fn(&Group) -> Option<T>,
    ) -> Option<T> {
        let mut g = Some(group);
        while let Some(id) = g {
            if let Some(found) = find(self.group(id)) {
                return Some(found);
            }
            g = self.group(id).parent;
        }
        None
    }

    /// The subgroup named `name` of `parent`.
    pub fn group_by_name(&self, parent: GroupId, name: &str) -> Option<GroupId> {
        self.group(parent)
            .groups
            .iter()
            .copied()
            .find(|&g| self.group(g).name == name)
    }

    /// The group at a `/`-separated path from the root (`""` or `"/"` is the root).
    pub fn group_by_path(&self, path: &str) -> Option<GroupId> {
        self.group_by_relative_path(GroupId::ROOT, path)
    }

    /// The group at a `/`-separated path from `from` (`""` is `from`
    /// itself); a path that starts with `/` starts at the root.
    pub fn group_by_relative_path(&self, from: GroupId, path: &str) -> Option<GroupId> {
        let start = if path.starts_with('/') {
            GroupId::ROOT
        } else {
            from
        };
        path.split('/')
            .filter(|s| !s.is_empty())
            .try_fold(start, |g, name| self.group_by_name(g, name))
    }

    /// The variable at a path such as `temp` or `/grp/sub/temp`.
    pub fn var_by_path(&self, path: &str) -> Option<VarId> {
        self.var_by_relative_path(GroupId::ROOT, path)
    }

    /// The variable at a path from `from` (`temp`, `sub/temp`); a path
    /// that starts with `/` starts at the root.
    pub fn var_by_relative_path(&self, from: GroupId, path: &str) -> Option<VarId> {
        let (dir, name) = match path.rsplit_once('/') {
            Some(("", name)) => ("/", name),
            Some(split) => split,
            None => ("", path),
        };
        self.var_by_name(self.group_by_relative_path(from, dir)?, name)
    }

    /// The full path of a group (`/` for the root, `/a/b` otherwise).
    pub fn group_path(&self, id: GroupId) -> String {
        let mut parts = vec![];
        let mut g = id;
        while let Some(parent) = self.group(g).parent {
            parts.push(self.group(g).name.as_str());
            g = parent;
        }
        parts.reverse();
        format!("/{}", parts.join("/"))
    }

    /// The path a variable is named by in messages and progress: its name
    /// in the root group (`temp`), its full path elsewhere (`/g/temp`).
    /// Either form finds the variable again with
    /// [`var_by_relative_path`](Self::var_by_relative_path) from the root.
    pub fn var_path(&self, var: VarId) -> String {
        let v = self.var(var);
        if v.group == GroupId::ROOT {
            v.name.clone()
        } else {
            format!("{}/{}", self.group_path(v.group), v.name)
        }
    }

    /// The current shape of a variable (unlimited dimensions at their
    /// current length).
    pub fn shape(&self, var: VarId) -> Vec<u64> {
        self.var(var)
            .dims
            .iter()
            .map(|&d| self.dim(d).len)
            .collect()
    }

    /// True when the variable's first dimension is unlimited (a record variable).
    pub fn is_record_var(&self, var: VarId) -> bool {
        self.var(var)
            .dims
            .first()
            .is_some_and(|&d| self.dim(d).unlimited)
    }

    /// The unlimited dimension of the root group, if any (classic files have at most one).
    pub fn unlimited_dim(&self) -> Option<DimId> {
        self.root()
            .dims
            .iter()
            .copied()
            .find(|&d| self.dim(d).unlimited)
    }

    /// The variable's `_FillValue` attribute if present, else the type's
    /// default fill ([`Schema::default_fill`]).
    pub fn fill_value(&self, var: VarId) -> Values {
        let v = self.var(var);
        v.attribute("_FillValue")
            .filter(|a| {
                a.dtype() == v.dtype
                    && !a.value.is_empty()
                    && self.check_values(v.dtype, &a.value).is_ok()
            })
            .map(|a| a.value.slice(0..1))
            .unwrap_or_else(|| self.default_fill(v.dtype))
    }
}

/// Refuses a name `names` holds twice (`NC_ENAMEINUSE`).
fn unique<'a>(names: impl IntoIterator<Item = &'a str>) -> Result<(), ModelError> {
    match name::first_duplicate(names) {
        Some(n) => Err(ModelError::DuplicateName(n.to_string())),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_scope_dimensions_and_paths_resolve() {
        let mut s = Schema::new();
        let time = s.add_dim(GroupId::ROOT, "time", 3, true).unwrap();
        let g = s.add_group(GroupId::ROOT, "sub").unwrap();
        let x = s.add_dim(g, "x", 4, false).unwrap();
        let v = s.add_var(g, "t", DataType::Float, &[time, x]).unwrap();
        assert_eq!(s.dim_by_name(g, "time"), Some(time));
        assert_eq!(s.dim_by_name(GroupId::ROOT, "x"), None);
        assert_eq!(s.var_by_path("/sub/t"), Some(v));
        assert_eq!(s.var_by_relative_path(g, "t"), Some(v));
        assert_eq!(s.var_by_relative_path(g, "/sub/t"), Some(v));
        assert_eq!(s.var_by_relative_path(g, "sub/t"), None);
        assert_eq!(s.group_by_relative_path(g, ""), Some(g));
        assert_eq!(s.group_by_relative_path(g, "/"), Some(GroupId::ROOT));
        assert_eq!(s.group_path(g), "/sub");
        assert_eq!(s.shape(v), vec![3, 4]);
        assert!(s.is_record_var(v));
        assert!(s.add_dim(g, "x", 1, false).is_err());
        assert_eq!(s.fill_value(v), DataType::Float.default_fill());
    }

    #[test]
    fn var_paths_find_their_variables() {
        let mut s = Schema::new();
        let top = s.add_var(GroupId::ROOT, "top", DataType::Int, &[]).unwrap();
        let a = s.add_group(GroupId::ROOT, "a").unwrap();
        let b = s.add_group(a, "b").unwrap();
        let deep = s.add_var(b, "top", DataType::Int, &[]).unwrap();
        assert_eq!(s.var_path(top), "top");
        assert_eq!(s.var_path(deep), "/a/b/top");
        for v in [top, deep] {
            assert_eq!(
                s.var_by_relative_path(GroupId::ROOT, &s.var_path(v)),
                Some(v)
            );
        }
    }
}
