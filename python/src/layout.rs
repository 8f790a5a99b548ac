//! The native memory layout of netCDF's fixed-size types, as netCDF-C
//! gives compounds to C programs and netCDF4-python to numpy (a C struct:
//! each field at the next multiple of its alignment, the size a multiple of
//! the largest), whatever offsets the file stores them at.

use nctk::model::{DataType, Schema, UserTypeKind};

/// A fixed-size type's native size and alignment, and a compound's field
/// offsets (in field order; empty for other types).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NativeLayout {
    /// Bytes per value, padding included.
    pub size: usize,
    /// The alignment of the type's values.
    pub align: usize,
    /// Each field's offset, for a compound.
    pub offsets: Vec<usize>,
}

/// The native layout of `dtype`; `None` for strings, vlens and compounds
/// holding them (their values are Python objects, not bytes).
pub fn native_layout(schema: &Schema, dtype: DataType) -> Option<NativeLayout> {
    let scalar = |size: usize, align: usize| NativeLayout {
        size,
        align,
        offsets: Vec::new(),
    };
    match schema.user_kind(dtype) {
        None => dtype.size().map(|s| scalar(s, s)),
        Some(UserTypeKind::Opaque { size }) => Some(scalar(*size as usize, 1)),
        Some(UserTypeKind::Enum { base, .. }) => native_layout(schema, *base),
        Some(UserTypeKind::Vlen { .. }) => None,
        Some(UserTypeKind::Compound { fields, .. }) => {
            let mut end = 0usize;
            let mut align = 1usize;
            let mut offsets = Vec::with_capacity(fields.len());
            for f in fields {
                let inner = native_layout(schema, f.dtype)?;
                let offset = end.next_multiple_of(inner.align);
                offsets.push(offset);
                end = offset + inner.size * f.count();
                align = align.max(inner.align);
            }
            Some(NativeLayout {
                size: end.next_multiple_of(align),
                align,
                offsets,
            })
        }
    }
}
