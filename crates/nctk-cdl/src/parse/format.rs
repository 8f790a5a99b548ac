//! Which CDL ncgen accepts for which output kind.

use super::{CdlDataset, CdlError, Kind};

/// Checks that `ds` can be written as `kind`, rejecting what netCDF-C
/// 4.9.0's `ncgen -k` rejects, with its messages:
///
/// * groups for the classic kinds ("-k or _Format conflicts with enhanced
///   CDL input"; for CDF-5 "Attempting netcdf-4 operation on netcdf-3 file");
/// * integer literals wider than `int` for classic, 64-bit offset and
///   netCDF-4 classic ("Illegal integer constant for classic format");
/// * unsigned, 64-bit and string variables or attributes where the kind
///   lacks the type ("Not a valid data type or _FillValue type mismatch");
/// * netCDF-4 storage settings for the CDF kinds;
/// * an unlimited dimension other than the first of a variable, or more
///   than one unlimited dimension, in the CDF kinds;
/// * fixed-size variables too large for CDF-1/CDF-2.
pub fn check_format(ds: &CdlDataset, kind: Kind) -> Result<(), CdlError> {
    let s = &ds.schema;
    let c = &ds.constructs;
    let enhanced_ok = matches!(kind, Kind::Netcdf4 | Kind::Cdf5);
    if let Some(pos) = c.group {
        if !enhanced_ok {
            return Err(CdlError::format(
                Some(pos),
                "-k or _Format conflicts with enhanced CDL input",
            ));
        }
    }
    if kind.classic_types_only() {
        if let Some((pos, text)) = &c.wide_integer {
            return Err(CdlError::format(
                Some(*pos),
                format!(
                    "Illegal integer constant for classic format: {}",
                    text.trim_end_matches(|ch: char| ch.is_ascii_alphabetic())
                ),
            ));
        }
    }
    if kind == Kind::Netcdf4 {
        return Ok(());
    }
    // From here on: CDF-1, CDF-2, CDF-5 and netCDF-4 classic model.
    for v in s.var_ids() {
        let var = s.var(v);
        let pos = c.var_pos.get(v.0 as usize).copied();
        for (j, &d) in var.dims.iter().enumerate() {
            if s.dim(d).unlimited && j != 0 {
                return Err(CdlError::format(
                    pos,
                    format!(
                        "Variable: {}: UNLIMITED must be in first dimension only",
                        var_path(ds, v)
                    ),
                ));
            }
        }
    }
    if kind.is_cdf() && c.group.is_some() {
        return Err(CdlError::format(
            c.group,
            "NetCDF: Attempting netcdf-4 operation on netcdf-3 file",
        ));
    }
    let unlimited: Vec<_> = s.dim_ids().filter(|&d| s.dim(d).unlimited).collect();
    if unlimited.len() > 1 {
        let pos = c.dim_pos.get(unlimited[1].0 as usize).copied();
        return Err(CdlError::format(
            pos,
            "NetCDF: NC_UNLIMITED size already in use",
        ));
    }
    let type_ok = |t: nctk_model::DataType| match kind {
        Kind::Cdf5 => t != nctk_model::DataType::String,
        _ => t.is_classic(),
    };
    for v in s.var_ids() {
        if !type_ok(s.var(v).dtype) {
            return Err(CdlError::format(
                c.var_pos.get(v.0 as usize).copied(),
                "NetCDF: Not a valid data type or _FillValue type mismatch",
            ));
        }
    }
    if kind.is_cdf() {
        for v in s.var_ids() {
            let sp = ds.var_special(v);
            if sp.needs_netcdf4() {
                return Err(CdlError::format(
                    sp.pos,
                    "NetCDF: Attempting netcdf-4 operation on netcdf-3 file",
                ));
            }
        }
    }
    for g in s.group_ids() {
        for a in &s.group(g).attributes {
            if !type_ok(a.value.dtype()) {
                let pos = c
                    .typed_attrs
                    .iter()
                    .find(|(_, o, n)| o.is_none() && *n == a.name)
                    .map(|t| t.0);
                return Err(CdlError::format(
                    pos,
                    "NetCDF: Not a valid data type or _FillValue type mismatch",
                ));
            }
        }
    }
    for v in s.var_ids() {
        for a in &s.var(v).attributes {
            if !type_ok(a.value.dtype()) {
                let pos = c
                    .typed_attrs
                    .iter()
                    .find(|(_, o, n)| *o == Some(v) && *n == a.name)
                    .map(|t| t.0);
                return Err(CdlError::format(
                    pos,
                    "NetCDF: Not a valid data type or _FillValue type mismatch",
                ));
            }
        }
    }
    if matches!(kind, Kind::Classic | Kind::Offset64) {
        check_sizes(ds, kind)?;
    }
    Ok(())
}

fn var_path(ds: &CdlDataset, v: nctk_model::VarId) -> String {
    let s = &ds.schema;
    let var = s.var(v);
    let g = s.group_path(var.group);
    if g == "/" {
        format!("/{}", var.name)
    } else {
        format!("{g}/{}", var.name)
    }
}

/// netCDF-C's `NC_check_vlens`: in CDF-1 every variable (one record's
/// worth, for record variables) must be smaller than 2^31 - 3 bytes and in
/// CDF-2 smaller than 2^32 - 3, except that the last fixed-size variable
/// (when there are no record variables) or the last record variable may be
/// larger.
fn check_sizes(ds: &CdlDataset, kind: Kind) -> Result<(), CdlError> {
    let s = &ds.schema;
    let limit: u64 = if kind == Kind::Classic {
        (i32::MAX as u64) - 3
    } else {
        (u32::MAX as u64) - 3
    };
    let vsize = |v: nctk_model::VarId| -> u64 {
        let var = s.var(v);
        let elem = var.dtype.size().unwrap_or(1) as u64;
        var.dims
            .iter()
            .filter(|&&d| !s.dim(d).unlimited)
            .fold(elem, |p, &d| p.saturating_mul(s.dim(d).len))
    };
    let vars: Vec<_> = s.var_ids().collect();
    let fixed: Vec<_> = vars
        .iter()
        .copied()
        .filter(|&v| !s.is_record_var(v))
        .collect();
    let record: Vec<_> = vars
        .iter()
        .copied()
        .filter(|&v| s.is_record_var(v))
        .collect();
    let mut large = 0;
    let mut last_large = None;
    for &v in &fixed {
        if vsize(v) > limit {
            large += 1;
            last_large = Some(v);
        }
    }
    let fixed_ok = match large {
        0 => true,
        1 => record.is_empty() && last_large == fixed.last().copied(),
        _ => false,
    };
    let mut rec_large = 0;
    let mut rec_last_large = None;
    for &v in &record {
        if vsize(v) > limit {
            rec_large += 1;
            rec_last_large = Some(v);
        }
    }
    let record_ok = match rec_large {
        0 => true,
        1 => rec_last_large == record.last().copied(),
        _ => false,
    };
    if fixed_ok && record_ok {
        Ok(())
    } else {
        Err(CdlError::format(
            None,
            "NetCDF: One or more variable sizes violate format constraints",
        ))
    }
}
