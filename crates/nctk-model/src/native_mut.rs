//! [`NativeMut`]: a caller's buffer of one fixed-width number type, which
//! a [`DataSource`](crate::DataSource) reads straight into.

use crate::{DataType, ModelError, Values};

/// A caller's slice of one of the ten fixed-width number types, for
/// [`DataSource::read_native`](crate::DataSource::read_native): the values
/// of a variable of that type are read straight into it, with no vector in
/// between. `char` variables are read through [`Values`]. Exhaustive on
/// purpose: these are netCDF's fixed-width number types, and the enhanced
/// types to come are not read into a plain slice.
#[derive(Debug)]
pub enum NativeMut<'a> {
    /// `byte` values.
    Byte(&'a mut [i8]),
    /// `short` values.
    Short(&'a mut [i16]),
    /// `int` values.
    Int(&'a mut [i32]),
    /// `float` values.
    Float(&'a mut [f32]),
    /// `double` values.
    Double(&'a mut [f64]),
    /// `ubyte` values.
    UByte(&'a mut [u8]),
    /// `ushort` values.
    UShort(&'a mut [u16]),
    /// `uint` values.
    UInt(&'a mut [u32]),
    /// `int64` values.
    Int64(&'a mut [i64]),
    /// `uint64` values.
    UInt64(&'a mut [u64]),
}

/// Evaluates `$body` with `$s` bound to the slice inside a [`NativeMut`]
/// (every variant's element type implements [`NcValue`](crate::NcValue)),
/// so a reader handles the buffer once, generically.
#[macro_export]
macro_rules! with_native_mut {
    ($out:expr, $s:ident => $body:expr) => {
        match $out {
            $crate::NativeMut::Byte($s) => $body,
            $crate::NativeMut::Short($s) => $body,
            $crate::NativeMut::Int($s) => $body,
            $crate::NativeMut::Float($s) => $body,
            $crate::NativeMut::Double($s) => $body,
            $crate::NativeMut::UByte($s) => $body,
            $crate::NativeMut::UShort($s) => $body,
            $crate::NativeMut::UInt($s) => $body,
            $crate::NativeMut::Int64($s) => $body,
            $crate::NativeMut::UInt64($s) => $body,
        }
    };
}

impl NativeMut<'_> {
    /// The netCDF type the buffer holds.
    pub fn dtype(&self) -> DataType {
        fn of<T: crate::NcValue>(_: &[T]) -> DataType {
            T::NATIVE
        }
        with_native_mut!(self, s => of(s))
    }

    /// How many values the buffer holds.
    pub fn len(&self) -> usize {
        with_native_mut!(self, s => s.len())
    }

    /// True when the buffer holds no values.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Copies `values` (of the buffer's type and length) into the buffer.
    pub fn copy_from(self, values: &Values) -> Result<(), ModelError> {
        let (to, want) = (self.dtype(), self.len());
        let mismatch = || ModelError::IncompatibleTypes {
            from: values.dtype(),
            to,
        };
        with_native_mut!(self, s => {
            let src = crate::NcValue::as_native(values).ok_or_else(mismatch)?;
            if src.len() != want {
                return Err(ModelError::Selection(format!(
                    "{} values read for a buffer of {want}",
                    src.len()
                )));
            }
            s.copy_from_slice(src);
            Ok(())
        })
    }
}
