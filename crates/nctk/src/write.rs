//! Creating and changing datasets: [`create`] and [`append`] give a
//! dataset in define mode ([`DatasetDef`]) or data mode ([`DatasetMut`]).

use std::path::Path;

use nctk_classic::{ClassicWriter, FillMode, Version};
use nctk_model::{DataType, DimId, NcValue, Schema, Values, VarId};

use crate::{Error, Extent, Extents, Format, IntoExtents};

fn format_error(e: nctk_classic::ClassicError) -> Error {
    Error::Format(Box::new(e))
}

fn version(format: Format) -> Result<Version, Error> {
    Version::try_from(format).map_err(|other| Error::Unsupported {
        path: String::new(),
        reason: format!("creating {other} datasets is not supported yet"),
    })
}

/// Creates (or truncates) a classic-format file and returns it in define mode.
/// Variables are pre-filled with fill values, as netCDF-C does by default.
pub fn create(path: impl AsRef<Path>, format: Format) -> Result<DatasetDef, Error> {
    create_with_fill(path, format, true)
}

/// As [`create`], choosing fill mode (`fill = false` is netCDF's `NC_NOFILL`).
pub fn create_with_fill(
    path: impl AsRef<Path>,
    format: Format,
    fill: bool,
) -> Result<DatasetDef, Error> {
    let mode = if fill {
        FillMode::Fill
    } else {
        FillMode::NoFill
    };
    let version = version(format)?;
    let sink = crate::door::create_file(path.as_ref()).map_err(|e| format_error(e.into()))?;
    let writer = ClassicWriter::create_in(sink, version, mode).map_err(format_error)?;
    Ok(DatasetDef { writer })
}

/// Opens an existing classic file to append data or to redefine it; it
/// starts in data mode.
pub fn append(path: impl AsRef<Path>) -> Result<DatasetMut, Error> {
    let sink = crate::door::open_file(path.as_ref()).map_err(|e| format_error(e.into()))?;
    let writer = ClassicWriter::open_in(sink, FillMode::Fill).map_err(format_error)?;
    Ok(DatasetMut { writer })
}

/// A dataset in define mode: add dimensions, variables and attributes, then
/// [`end_define`](Self::end_define).
#[derive(Debug)]
pub struct DatasetDef {
    writer: ClassicWriter,
}

impl DatasetDef {
    /// Adds a fixed-length dimension.
    pub fn add_dimension(&mut self, name: &str, len: u64) -> Result<DimId, Error> {
        self.writer.add_dimension(name, len).map_err(format_error)
    }

    /// Adds the unlimited (record) dimension.
    pub fn add_unlimited_dimension(&mut self, name: &str) -> Result<DimId, Error> {
        self.writer
            .add_unlimited_dimension(name)
            .map_err(format_error)
    }

    /// Adds a variable whose type is that of `T` (`f32` makes a `float`).
    pub fn add_variable<T: NcValue>(
        &mut self,
        name: &str,
        dims: &[DimId],
    ) -> Result<VarDef<'_>, Error> {
        self.add_variable_of_type(name, T::NATIVE, dims)
    }

    /// Adds a variable of any type, `char` included.
    pub fn add_variable_of_type(
        &mut self,
        name: &str,
        dtype: DataType,
        dims: &[DimId],
    ) -> Result<VarDef<'_>, Error> {
        let id = self
            .writer
            .add_variable(name, dtype, dims)
            .map_err(format_error)?;
        Ok(VarDef {
            writer: &mut self.writer,
            id,
        })
    }

    /// Sets a global attribute; text becomes a `char` attribute.
    pub fn put_attribute(&mut self, name: &str, value: impl Into<AttrValue>) -> Result<(), Error> {
        self.writer
            .put_attribute(None, name, value.into().0)
            .map_err(format_error)
    }

    /// The definitions so far.
    pub fn schema(&self) -> &Schema {
        self.writer.schema()
    }

    /// Leaves define mode: the header is written with netCDF-C's layout rules.
    pub fn end_define(mut self) -> Result<DatasetMut, Error> {
        self.writer.end_define().map_err(format_error)?;
        Ok(DatasetMut {
            writer: self.writer,
        })
    }
}

/// A variable just defined; add its attributes.
#[derive(Debug)]
pub struct VarDef<'a> {
    writer: &'a mut ClassicWriter,
    id: VarId,
}

impl VarDef<'_> {
    /// The variable's id.
    pub fn id(&self) -> VarId {
        self.id
    }

    /// Sets an attribute of the variable; text becomes a `char` attribute.
    pub fn put_attribute(
        &mut self,
        name: &str,
        value: impl Into<AttrValue>,
    ) -> Result<&mut Self, Error> {
        self.writer
            .put_attribute(Some(self.id), name, value.into().0)
            .map_err(format_error)?;
        Ok(self)
    }
}

/// An attribute value: text, one number, a vector of numbers, or [`Values`].
#[derive(Debug, Clone, PartialEq)]
pub struct AttrValue(pub Values);

impl From<&str> for AttrValue {
    fn from(s: &str) -> Self {
        AttrValue(Values::text(s))
    }
}
impl From<Values> for AttrValue {
    fn from(v: Values) -> Self {
        AttrValue(v)
    }
}
macro_rules! numeric_attr_value {
    ($($t:ty),*) => {$(
        impl From<$t> for AttrValue {
            fn from(x: $t) -> Self {
                AttrValue(<$t>::into_values(vec![x]))
            }
        }
        impl From<Vec<$t>> for AttrValue {
            fn from(v: Vec<$t>) -> Self {
                AttrValue(<$t>::into_values(v))
            }
        }
    )*};
}
numeric_attr_value!(i8, u8, i16, u16, i32, u32, i64, u64, f32, f64);

/// A dataset in data mode: write values, add records, or
/// [`redefine`](Self::redefine).
#[derive(Debug)]
pub struct DatasetMut {
    writer: ClassicWriter,
}

impl DatasetMut {
    /// The dataset's structure (unlimited dimensions at their current length).
    pub fn schema(&self) -> &Schema {
        self.writer.schema()
    }

    fn var_id(&self, name: &str) -> Result<VarId, Error> {
        self.schema().var_by_path(name).ok_or_else(|| {
            Error::Model(nctk_model::ModelError::NotFound {
                kind: "variable",
                name: name.into(),
            })
        })
    }

    /// Writes `data` (row-major) to the part of variable `name` that
    /// `extents` names, converting with netCDF's rules. An open-ended range
    /// on the unlimited dimension takes its length from `data`, so writing
    /// past the last record adds records.
    pub fn put_values<T: NcValue>(
        &mut self,
        name: &str,
        extents: impl IntoExtents,
        data: &[T],
    ) -> Result<(), Error> {
        let id = self.var_id(name)?;
        let schema = self.schema();
        let record = schema.is_record_var(id);
        let mut shape = schema.shape(id);
        let extents = match extents.into_extents() {
            Extents::All => Extents::Dims(vec![Extent::ALL; shape.len()]),
            dims => dims,
        };
        if let (true, Extents::Dims(dims)) = (record, &extents) {
            // The record dimension's extent may run past the current count:
            // size it from the data when it is open-ended.
            if let Some(Extent::Slice { start, end, step }) = dims.first() {
                let inner: u64 = dims[1..]
                    .iter()
                    .zip(&shape[1..])
                    .map(|(e, &len)| match *e {
                        Extent::Index(_) => 1,
                        Extent::Slice { start, end, step } => {
                            (end.unwrap_or(len).saturating_sub(start)).div_ceil(step.max(1))
                        }
                    })
                    .product();
                let records = match end {
                    Some(end) => end.saturating_sub(*start).div_ceil((*step).max(1)),
                    None if inner > 0 => data.len() as u64 / inner,
                    None => 0,
                };
                shape[0] = shape[0].max(start + records.saturating_sub(1) * step + 1);
            }
        }
        let (selection, _) = extents.resolve(&shape)?;
        self.writer
            .write_from(id, &selection, data)
            .map_err(format_error)
    }

    /// Writes an n-dimensional array to the part of variable `name` that
    /// `extents` names.
    #[cfg(feature = "ndarray")]
    pub fn put<T: NcValue>(
        &mut self,
        name: &str,
        extents: impl IntoExtents,
        data: ndarray::ArrayViewD<'_, T>,
    ) -> Result<(), Error> {
        let flat: Vec<T> = data.iter().copied().collect();
        self.put_values(name, extents, &flat)
    }

    /// Writes the record count and flushes everything to disk.
    pub fn sync(&mut self) -> Result<(), Error> {
        self.writer.sync().map_err(format_error)
    }

    /// Returns to define mode to add dimensions, variables or attributes;
    /// data moves on the next `end_define` as netCDF-C moves it.
    pub fn redefine(mut self) -> Result<DatasetDef, Error> {
        self.writer.redefine().map_err(format_error)?;
        Ok(DatasetDef {
            writer: self.writer,
        })
    }

    /// Flushes and closes the file.
    pub fn close(self) -> Result<(), Error> {
        self.writer.close().map_err(format_error)
    }
}
