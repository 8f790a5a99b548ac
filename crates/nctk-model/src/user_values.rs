//! Values of user-defined types: empty vectors of the right shape,
//! default fills, and the check that values fit a type.

use crate::{DataType, ModelError, Schema, UserTypeKind, Values};

impl Schema {
    /// An empty vector for values of `dtype`, with room for `n` values
    /// (compound: one empty vector per field; enum: the base type's).
    pub fn empty_values(&self, dtype: DataType, n: usize) -> Values {
        match self.user_kind(dtype) {
            None => Values::with_capacity(dtype, n),
            Some(UserTypeKind::Compound { fields, .. }) => Values::Compound {
                len: 0,
                fields: fields
                    .iter()
                    .map(|f| self.empty_values(f.dtype, n.saturating_mul(f.count()).min(1 << 20)))
                    .collect(),
            },
            Some(UserTypeKind::Vlen { .. }) => Values::Vlen(Vec::with_capacity(n)),
            Some(UserTypeKind::Enum { base, .. }) => Values::with_capacity(*base, n),
            Some(UserTypeKind::Opaque { size }) => Values::Opaque {
                size: *size as usize,
                bytes: Vec::with_capacity(n.saturating_mul(*size as usize).min(1 << 24)),
            },
        }
    }

    /// netCDF-C's default fill value of `dtype` as a one-element vector:
    /// the atomic defaults ([`DataType::default_fill`]); for an enum, its
    /// base type's default; for compound, vlen and opaque types, a value of
    /// all zero bytes as netCDF-C 4.9 gives them
    /// (`nc4_get_default_fill_value`: each numeric field 0, each string
    /// field null, each vlen empty, each opaque byte 0).
    pub fn default_fill(&self, dtype: DataType) -> Values {
        match self.user_kind(dtype) {
            None => dtype.default_fill(),
            Some(UserTypeKind::Enum { base, .. }) => base.default_fill(),
            Some(_) => self.zero_value(dtype),
        }
    }

    /// One value of `dtype` made of zero bytes (strings null, as a zero
    /// `char *` is in netCDF-C; vlens empty).
    fn zero_value(&self, dtype: DataType) -> Values {
        match self.user_kind(dtype) {
            None if dtype == DataType::String => Values::String(vec![None]),
            None => Values::from_bytes(dtype, &vec![0; dtype.size().unwrap_or(1)], false),
            Some(UserTypeKind::Compound { fields, .. }) => Values::Compound {
                len: 1,
                fields: fields
                    .iter()
                    .map(|f| Values::repeat(&self.zero_value(f.dtype), f.count()))
                    .collect(),
            },
            Some(UserTypeKind::Vlen { base }) => Values::Vlen(vec![self.empty_values(*base, 0)]),
            Some(UserTypeKind::Enum { base, .. }) => self.zero_value(*base),
            Some(UserTypeKind::Opaque { size }) => Values::Opaque {
                size: *size as usize,
                bytes: vec![0; *size as usize],
            },
        }
    }

    /// Checks that `values` are values of `dtype`: the variant its values
    /// travel as ([`Schema::value_type`]), a compound's fields each holding
    /// `len` times the field's element count of its type, a vlen's
    /// sequences each of the base type, an opaque's blobs of the type's
    /// size. An enum's values are not checked against its members (netCDF
    /// stores any value of the base type).
    pub fn check_values(&self, dtype: DataType, values: &Values) -> Result<(), ModelError> {
        let mismatch = |what: String| ModelError::ValuesMismatch {
            dtype: self.type_name(dtype).to_string(),
            reason: what,
        };
        match (self.user_kind(dtype), values) {
            (None | Some(UserTypeKind::Enum { .. }), v) => {
                let want = self.value_type(dtype);
                if v.dtype() != want {
                    return Err(mismatch(format!("values of type {} given", v.dtype())));
                }
            }
            (Some(UserTypeKind::Compound { fields, .. }), Values::Compound { len, fields: vs }) => {
                if fields.len() != vs.len() {
                    return Err(mismatch(format!(
                        "{} fields given for {} fields",
                        vs.len(),
                        fields.len()
                    )));
                }
                for (f, v) in fields.iter().zip(vs) {
                    if Some(v.len()) != len.checked_mul(f.count()) {
                        return Err(mismatch(format!(
                            "field {:?} holds {} values for {len} records of {} each",
                            f.name,
                            v.len(),
                            f.count()
                        )));
                    }
                    self.check_values(f.dtype, v)?;
                }
            }
            (Some(UserTypeKind::Vlen { base }), Values::Vlen(seqs)) => {
                for s in seqs {
                    self.check_values(*base, s)?;
                }
            }
            (Some(UserTypeKind::Opaque { size }), Values::Opaque { size: s, bytes }) => {
                if *s as u64 != *size || bytes.len() % (*s).max(1) != 0 {
                    return Err(mismatch(format!(
                        "{} bytes in blobs of {s} given for blobs of {size}",
                        bytes.len()
                    )));
                }
            }
            (Some(k), _) => {
                return Err(mismatch(format!(
                    "values that are not {} values given",
                    k.class_name()
                )))
            }
        }
        Ok(())
    }
}
