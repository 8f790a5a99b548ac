//! The copy plan: the output's schema (after `-v/-V`, `-g/-G` and `-u`),
//! the check that it fits the output format, and the list of variables
//! whose data is copied, in nccopy's order.

use std::collections::HashMap;

use nctk::ClassicVersion as Version;
use nctk_model::{
    Attribute, CompoundField, DataType, DimId, Format, GroupId, Schema, TypeId, UserTypeKind, VarId,
};

use super::options::{CopyOptions, GroupList, VarList};
use super::CopyError;

/// One variable whose data is copied.
#[derive(Debug, Clone, PartialEq)]
pub struct VarCopy {
    /// The variable in the input schema.
    pub input: VarId,
    /// The variable in the output schema.
    pub output: VarId,
    /// Its name (a group path for variables outside the root group).
    pub name: String,
    /// Its shape in the input.
    pub shape: Vec<u64>,
    /// True when it is copied record by record (see [`Plan::records`]).
    pub by_record: bool,
}

/// What a copy does.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The output's definitions.
    pub schema: Schema,
    /// The variables whose data is copied, in input order.
    pub vars: Vec<VarCopy>,
    /// The number of records copied record by record across every record
    /// variable (netCDF-C's `copy_record_data`); 0 when no variable is.
    pub records: u64,
}

impl Plan {
    /// Bytes of data the copy moves.
    pub fn total_bytes(&self, input: &Schema) -> u64 {
        self.vars
            .iter()
            .map(|v| {
                let n: u64 = v.shape.iter().product();
                n.saturating_mul(elem_size(input.var(v.input).dtype))
            })
            .fold(0, u64::saturating_add)
    }
}

/// Bytes per element, an estimate for strings.
pub(crate) fn elem_size(dtype: DataType) -> u64 {
    dtype.size().unwrap_or(16) as u64
}

/// True when `name` (as given to `-v`) names `var`: its simple name, its
/// full path, or its path without the leading slash.
fn names_var(schema: &Schema, var: VarId, name: &str) -> bool {
    let path = schema.var_path(var);
    let path = path.strip_prefix('/').unwrap_or(&path);
    name == schema.var(var).name || name == path || name.strip_prefix('/') == Some(path)
}

/// True when `name` (as given to `-g`) names group `g`.
fn names_group(schema: &Schema, g: GroupId, name: &str) -> bool {
    let path = schema.group_path(g);
    name == path
        || name == path.trim_start_matches('/')
        || (g != GroupId::ROOT && name == schema.group(g).name)
}

fn ancestors(schema: &Schema, g: GroupId) -> impl Iterator<Item = GroupId> + '_ {
    std::iter::successors(Some(g), move |&g| schema.group(g).parent)
}

/// Groups in definition order, depth first from the root.
fn groups_in_order(schema: &Schema) -> Vec<GroupId> {
    let mut out = vec![];
    let mut stack = vec![GroupId::ROOT];
    while let Some(g) = stack.pop() {
        out.push(g);
        stack.extend(schema.group(g).groups.iter().rev());
    }
    out
}

struct GroupFilter<'a> {
    schema: &'a Schema,
    list: Option<&'a GroupList>,
}

impl GroupFilter<'_> {
    fn listed(&self, g: GroupId) -> bool {
        self.list.is_none_or(|l| {
            l.names
                .iter()
                .any(|n| ancestors(self.schema, g).any(|a| names_group(self.schema, a, n)))
        })
    }

    /// Whether group `g` is defined in the output.
    fn defined(&self, g: GroupId) -> bool {
        match self.list {
            None => true,
            Some(l) if !l.definitions_too => true,
            Some(_) => {
                g == GroupId::ROOT
                    || self.listed(g)
                    || groups_in_order(self.schema).into_iter().any(|d| {
                        d != g && ancestors(self.schema, d).any(|a| a == g) && self.listed(d)
                    })
            }
        }
    }
}

/// Checks that every `-v`/`-V` name and `-g`/`-G` name exists in `input`.
pub fn check_names(input: &Schema, opts: &CopyOptions) -> Result<(), CopyError> {
    if let Some(VarList { names, .. }) = &opts.vars {
        for n in names {
            if !input.var_ids().any(|v| names_var(input, v, n)) {
                return Err(CopyError::NoSuchVariable(n.clone()));
            }
        }
    }
    if let Some(GroupList { names, .. }) = &opts.groups {
        for n in names {
            if !input.group_ids().any(|g| names_group(input, g, n)) {
                return Err(CopyError::NoSuchGroup(n.clone()));
            }
        }
    }
    Ok(())
}

/// Builds the plan for copying `input` to an output of `kind`.
pub fn build(input: &Schema, kind: Format, opts: &CopyOptions) -> Result<Plan, CopyError> {
    check_names(input, opts)?;
    let groups = GroupFilter {
        schema: input,
        list: opts.groups.as_ref(),
    };
    let var_listed = |v: VarId| {
        opts.vars
            .as_ref()
            .is_none_or(|l| l.names.iter().any(|n| names_var(input, v, n)))
    };
    let var_defined = |v: VarId| {
        opts.vars
            .as_ref()
            .is_none_or(|l| !l.definitions_too || var_listed(v))
    };

    let mut out = Schema::new();
    let mut group_map: HashMap<GroupId, GroupId> = HashMap::from([(GroupId::ROOT, GroupId::ROOT)]);
    let mut dim_map: HashMap<DimId, DimId> = HashMap::new();
    let mut var_map: Vec<(VarId, VarId)> = vec![];
    let mut type_map: HashMap<TypeId, TypeId> = HashMap::new();
    for g in groups_in_order(input) {
        if !groups.defined(g) {
            continue;
        }
        let og = match input.group(g).parent {
            None => GroupId::ROOT,
            Some(p) => {
                let op = group_map[&p];
                out.add_group(op, &input.group(g).name)?
            }
        };
        group_map.insert(g, og);
        for &t in &input.group(g).types {
            let ty = input.user_type(t);
            let kind = remap_kind(&ty.kind, &type_map).ok_or_else(|| CopyError::DoesNotFit {
                format: kind.name(),
                what: crate::enhanced::describe(input, DataType::User(t)),
                reason: "it refers to a type of a group left out of the copy".into(),
            })?;
            type_map.insert(t, out.add_type(og, &ty.name, kind)?);
        }
        for &d in &input.group(g).dims {
            let dim = input.dim(d);
            // nccopy defines a dimension with its length unless it stays
            // unlimited (-u makes it fixed); a length of 0 is NC_UNLIMITED
            // again. A classic file has no other empty dimension, so an
            // empty fixed dimension of a store becomes unlimited there.
            let unlimited = (dim.unlimited && (!opts.fix_unlimited || dim.len == 0))
                || (dim.len == 0 && kind.is_cdf());
            let od = out.add_dim(og, &dim.name, dim.len, unlimited)?;
            dim_map.insert(d, od);
        }
        for a in &input.group(g).attributes {
            if let Some(a) = copied_attr(a, &type_map) {
                out.set_attr(og, None, a);
            }
        }
        for &v in &input.group(g).vars {
            if !var_defined(v) {
                continue;
            }
            let var = input.var(v);
            let dims: Vec<DimId> = var.dims.iter().map(|d| dim_map[d]).collect();
            let dtype = remap(var.dtype, &type_map).ok_or_else(|| CopyError::DoesNotFit {
                format: kind.name(),
                what: format!("variable {:?}", input.var_path(v)),
                reason: "its type is defined in a group left out of the copy".into(),
            })?;
            let ov = out.add_var(og, &var.name, dtype, &dims)?;
            // The input's storage facts (chunks, codecs, byte order): a
            // store output keeps them unless the options say otherwise.
            out.var_mut(ov).storage = var.storage.clone();
            for a in &var.attributes {
                if let Some(a) = copied_attr(a, &type_map) {
                    out.set_attr(og, Some(ov), a);
                }
            }
            var_map.push((v, ov));
        }
    }
    if kind.is_cdf() || kind == Format::Netcdf4Classic {
        check_classic_fit(&out, kind)?;
    }

    // Record-at-a-time copying (netCDF-C's nc3 special case) when the
    // output is a classic file with a record dimension: it keeps the
    // output's writes sequential. A chunked output is copied variable by
    // variable, chunk by chunk, instead.
    let record_dim = input.unlimited_dim().filter(|_| kind.is_cdf());
    let records = record_dim.map_or(0, |d| input.dim(d).len);
    let mut vars = vec![];
    for (v, ov) in var_map {
        let g = input.var(v).group;
        if !var_listed(v) || !groups.listed(g) {
            continue;
        }
        let by_record = record_dim.is_some()
            && g == GroupId::ROOT
            && input.var(v).dims.first() == record_dim.as_ref();
        vars.push(VarCopy {
            input: v,
            output: ov,
            name: input.var_path(v),
            shape: input.shape(v),
            by_record,
        });
    }
    let any_record = vars.iter().any(|v| v.by_record);
    Ok(Plan {
        schema: out,
        vars,
        records: if any_record { records } else { 0 },
    })
}

/// The attribute as copied, its user type the output's: nccopy drops
/// `_NCProperties` (netCDF-4 provenance).
fn copied_attr(a: &Attribute, types: &HashMap<TypeId, TypeId>) -> Option<Attribute> {
    (a.name != "_NCProperties").then(|| Attribute {
        user_type: a.user_type.and_then(|t| types.get(&t).copied()),
        ..a.clone()
    })
}

/// `dtype` with its user type replaced by the output's; `None` for a user
/// type not copied (yet).
fn remap(dtype: DataType, types: &HashMap<TypeId, TypeId>) -> Option<DataType> {
    match dtype {
        DataType::User(t) => types.get(&t).map(|&o| DataType::User(o)),
        other => Some(other),
    }
}

/// A user type's definition with the types it refers to replaced by the
/// output's; `None` when one of them was not copied.
fn remap_kind(kind: &UserTypeKind, types: &HashMap<TypeId, TypeId>) -> Option<UserTypeKind> {
    Some(match kind {
        UserTypeKind::Compound { size, fields } => UserTypeKind::Compound {
            size: *size,
            fields: fields
                .iter()
                .map(|f| {
                    Some(CompoundField {
                        dtype: remap(f.dtype, types)?,
                        ..f.clone()
                    })
                })
                .collect::<Option<_>>()?,
        },
        UserTypeKind::Vlen { base } => UserTypeKind::Vlen {
            base: remap(*base, types)?,
        },
        other => other.clone(),
    })
}

/// The classic version whose types `kind` holds (netCDF-4 classic model:
/// CDF-1's).
fn version_of(kind: Format) -> Version {
    match kind {
        Format::Classic | Format::Netcdf4Classic => Version::Cdf1,
        Format::Offset64 => Version::Cdf2,
        _ => Version::Cdf5,
    }
}

/// Why `dtype` does not fit `kind`, with nccopy's message for it.
fn type_reason(dtype: DataType, kind: Format) -> String {
    let reason = if dtype == DataType::String {
        "type string exists only in netCDF-4".to_string()
    } else if kind == Format::Netcdf4Classic {
        format!(
            "type {} is not in the classic model (byte, char, short, int, float and double); \
             use -k nc4",
            dtype.cdl_name()
        )
    } else {
        format!(
            "type {} is not in {} (CDF-1 and CDF-2 hold byte, char, short, int, float and \
             double); use -k cdf5",
            dtype.cdl_name(),
            version_of(kind)
        )
    };
    format!("{reason} (nccopy: {})", nccopy_type_error(kind))
}

/// nccopy's message for a type the output `kind` cannot hold.
fn nccopy_type_error(kind: Format) -> &'static str {
    if kind == Format::Netcdf4Classic {
        "NetCDF: Attempting netcdf-4 operation on strict nc3 netcdf-4 file"
    } else {
        "NetCDF: Not a valid data type or _FillValue type mismatch"
    }
}

/// Checks that a schema fits a classic format: no user types, no groups,
/// one unlimited dimension (first in its variables), types the version holds.
fn check_classic_fit(s: &Schema, kind: Format) -> Result<(), CopyError> {
    let version = version_of(kind);
    let format = kind.name();
    let no_fit = |what: String, reason: String| CopyError::DoesNotFit {
        format,
        what,
        reason,
    };
    if let Some(what) = crate::enhanced::first_user_type(s) {
        // nccopy fails on the type's definition, before any strict check.
        return Err(no_fit(
            what,
            format!(
                "user-defined types exist only in netCDF-4 (nccopy: {})",
                crate::enhanced::NOT_NETCDF4
            ),
        ));
    }
    if let Some(&g) = s.root().groups.first() {
        return Err(no_fit(
            format!("group {:?}", s.group_path(g)),
            "classic formats have no groups (select root-group variables with -V, or use -k nc4)"
                .into(),
        ));
    }
    let unlimited: Vec<DimId> = s
        .root()
        .dims
        .iter()
        .copied()
        .filter(|&d| s.dim(d).unlimited)
        .collect();
    if let Some(&second) = unlimited.get(1) {
        return Err(no_fit(
            format!("dimension {:?}", s.dim(second).name),
            "classic formats have one unlimited dimension (use -u to make them fixed)".into(),
        ));
    }
    let check_attr = |owner: &str, a: &Attribute| {
        if version.supports(a.value.dtype()) {
            Ok(())
        } else {
            Err(no_fit(
                format!("attribute \"{owner}:{}\"", a.name),
                type_reason(a.value.dtype(), kind),
            ))
        }
    };
    for a in &s.root().attributes {
        check_attr("", a)?;
    }
    for &v in &s.root().vars {
        let var = s.var(v);
        if !version.supports(var.dtype) {
            return Err(no_fit(
                format!("variable {:?}", var.name),
                type_reason(var.dtype, kind),
            ));
        }
        if let Some(pos) = var.dims.iter().skip(1).position(|&d| s.dim(d).unlimited) {
            return Err(no_fit(
                format!("variable {:?}", var.name),
                format!(
                    "its unlimited dimension {:?} is not its first (use -u to make it fixed)",
                    s.dim(var.dims[pos + 1]).name
                ),
            ));
        }
        for a in &var.attributes {
            check_attr(&var.name, a)?;
        }
    }
    Ok(())
}
