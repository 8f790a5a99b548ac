//! Which CDL ncgen accepts for which output kind.

use nctk_model::Format;

use super::{CdlDataset, CdlError};

/// Checks that `ds` can be written as `kind`, rejecting what netCDF-C
/// 4.9.0's `ncgen -k` rejects, with its messages:
///
/// * groups and user types for the classic kinds ("-k or _Format conflicts
///   with enhanced CDL input"; for CDF-5 "Attempting netcdf-4 operation on
///   netcdf-3 file");
/// * integer literals wider than `int` for classic, 64-bit offset and
///   netCDF-4 classic ("Illegal integer constant for classic format");
/// * unsigned, 64-bit and string variables or attributes where the kind
///   lacks the type ("Not a valid data type or _FillValue type mismatch");
/// * netCDF-4 storage settings for the CDF kinds;
/// * an unlimited dimension other than the first of a variable, or more
///   than one unlimited dimension, in the CDF kinds;
/// * dimension sizes the kind cannot hold or ncgen cannot read
///   ("Invalid dimension size"; from 2^32 to 2^63-1 for netCDF-4 and CDF-5,
///   "Not a signed integer type");
/// * fixed-size variables too large for the CDF kinds.
pub fn check_format(ds: &CdlDataset, kind: Format) -> Result<(), CdlError> {
    let s = &ds.schema;
    let c = &ds.constructs;
    let enhanced_ok = matches!(kind, Format::Netcdf4 | Format::Cdf5);
    // ncgen's lexer rejects a wide literal before the parse ends.
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
    let enhanced = c.group.or(c.types);
    if let Some(pos) = enhanced {
        if !enhanced_ok {
            return Err(CdlError::format(
                Some(pos),
                "-k or _Format conflicts with enhanced CDL input",
            ));
        }
    }
    check_dim_sizes(ds, kind)?;
    if kind == Format::Netcdf4 {
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
    if kind.is_cdf() && enhanced.is_some() {
        return Err(CdlError::format(
            enhanced,
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
        Format::Cdf5 => t != nctk_model::DataType::String,
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
    if kind.is_cdf() {
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

/// What ncgen 4.9.0 does with a fixed dimension's size: CDF-1 holds sizes
/// up to 2^31 - 4, CDF-2 up to 2^32 - 4 and CDF-5 up to 2^64 - 4 ("Invalid
/// dimension size"); ncgen reads a size from 2^32 to 2^63 - 1 as a 64-bit
/// constant it refuses ("Not a signed integer type"), and HDF5 refuses
/// sizes from 2^63 on. (Sizes past 2^31 - 1 in the kinds without 64-bit
/// integers are already refused as integer constants.)
fn check_dim_sizes(ds: &CdlDataset, kind: Format) -> Result<(), CdlError> {
    let s = &ds.schema;
    for d in s.dim_ids() {
        let dim = s.dim(d);
        let n = dim.len;
        if dim.unlimited {
            continue;
        }
        let pos = ds.constructs.dim_pos.get(d.0 as usize).copied();
        let refuse = |why: &str| {
            Err(CdlError::format(
                pos,
                format!("dimension {} = {n}: {why}", dim.name),
            ))
        };
        let max = match kind {
            Format::Classic => (i32::MAX as u64) - 3,
            Format::Offset64 => (u32::MAX as u64) - 3,
            _ => u64::MAX - 3,
        };
        if n > max {
            return refuse(&format!(
                "NetCDF: Invalid dimension size (the largest {kind} dimension is {max})"
            ));
        }
        if n > u64::from(u32::MAX) && n <= i64::MAX as u64 {
            return refuse(
                "Not a signed integer type: ncgen 4.9.0 refuses dimension sizes \
                 from 4294967296 to 9223372036854775807",
            );
        }
        if n > i64::MAX as u64 && !kind.is_cdf() {
            return refuse("NetCDF: HDF error (HDF5 dimension sizes end at 2^63 - 1)");
        }
    }
    Ok(())
}

/// netCDF-C's `NC_check_vlens`: in CDF-1 every variable (one record's
/// worth, for record variables) must be smaller than 2^31 - 3 bytes, in
/// CDF-2 smaller than 2^32 - 3 and in CDF-5 smaller than 2^63 - 3, except
/// that the last fixed-size variable (when there are no record variables)
/// or the last record variable may be larger; a variable whose size does
/// not fit a signed 64-bit offset is refused wherever it is.
fn check_sizes(ds: &CdlDataset, kind: Format) -> Result<(), CdlError> {
    let s = &ds.schema;
    let limit: u64 = match kind {
        Format::Classic => (i32::MAX as u64) - 3,
        Format::Offset64 => (u32::MAX as u64) - 3,
        _ => (i64::MAX as u64) - 3,
    };
    let vsize = |v: nctk_model::VarId| -> u64 {
        let var = s.var(v);
        let elem = var.dtype.size().unwrap_or(1) as u64;
        var.dims
            .iter()
            .filter(|&&d| !s.dim(d).unlimited)
            .try_fold(elem, |p, &d| p.checked_mul(s.dim(d).len))
            .filter(|&n| n <= i64::MAX as u64)
            .unwrap_or(u64::MAX)
    };
    let too_large = || {
        Err(CdlError::format(
            None,
            "NetCDF: One or more variable sizes violate format constraints",
        ))
    };
    if s.var_ids().any(|v| vsize(v) == u64::MAX) {
        return too_large();
    }
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
        too_large()
    }
}
