//! [`NativeRef`]: a caller's slice of one fixed-width number type, which a
//! [`DataSink`](crate::DataSink) writes from without copying it.

use crate::{DataType, Values};

/// A caller's slice of one of the ten fixed-width number types, for
/// [`DataSink::write_native`](crate::DataSink::write_native): the values
/// are written from it with no [`Values`] vector in between. The twin of
/// [`NativeMut`](crate::NativeMut), exhaustive for the same reason.
#[derive(Debug, Clone, Copy)]
pub enum NativeRef<'a> {
    /// `byte` values.
    Byte(&'a [i8]),
    /// `short` values.
    Short(&'a [i16]),
    /// `int` values.
    Int(&'a [i32]),
    /// `float` values.
    Float(&'a [f32]),
    /// `double` values.
    Double(&'a [f64]),
    /// `ubyte` values.
    UByte(&'a [u8]),
    /// `ushort` values.
    UShort(&'a [u16]),
    /// `uint` values.
    UInt(&'a [u32]),
    /// `int64` values.
    Int64(&'a [i64]),
    /// `uint64` values.
    UInt64(&'a [u64]),
}

/// Evaluates `$body` with `$s` bound to the slice inside a [`NativeRef`]
/// (every variant's element type implements [`NcValue`](crate::NcValue)),
/// so a writer handles the slice once, generically.
#[macro_export]
macro_rules! with_native_ref {
    ($values:expr, $s:ident => $body:expr) => {
        match $values {
            $crate::NativeRef::Byte($s) => $body,
            $crate::NativeRef::Short($s) => $body,
            $crate::NativeRef::Int($s) => $body,
            $crate::NativeRef::Float($s) => $body,
            $crate::NativeRef::Double($s) => $body,
            $crate::NativeRef::UByte($s) => $body,
            $crate::NativeRef::UShort($s) => $body,
            $crate::NativeRef::UInt($s) => $body,
            $crate::NativeRef::Int64($s) => $body,
            $crate::NativeRef::UInt64($s) => $body,
        }
    };
}

impl NativeRef<'_> {
    /// The netCDF type the slice holds.
    pub fn dtype(&self) -> DataType {
        fn of<T: crate::NcValue>(_: &[T]) -> DataType {
            T::NATIVE
        }
        with_native_ref!(self, s => of(s))
    }

    /// How many values the slice holds.
    pub fn len(&self) -> usize {
        with_native_ref!(self, s => s.len())
    }

    /// True when the slice holds no values.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The values copied into a [`Values`] of the slice's type (what a sink
    /// without a borrowed path writes).
    pub fn to_values(&self) -> Values {
        with_native_ref!(*self, s => crate::NcValue::into_values(s.to_vec()))
    }
}
