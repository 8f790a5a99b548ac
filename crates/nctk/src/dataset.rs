use nctk_model::{convert, Attribute, DataSource, DataType, NcValue, Schema, Selection, VarId};

use nctk_classic::ClassicReader;

use crate::{Error, IntoExtents};

/// The format reader behind a [`Dataset`]: a closed set, so typed reads can
/// take each format's fast path.
enum Backend {
    Classic(Box<ClassicReader>),
    Other(Box<dyn DataSource>),
}

/// An open dataset, for reading. `Send + Sync`: threads may read it at once.
pub struct Dataset {
    backend: Backend,
}

impl std::fmt::Debug for Dataset {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Dataset")
            .field("format", &self.format_name())
            .finish()
    }
}

impl Dataset {
    /// Wraps a classic reader.
    pub fn from_classic(reader: ClassicReader) -> Dataset {
        Dataset {
            backend: Backend::Classic(Box::new(reader)),
        }
    }

    /// Wraps any other format reader.
    pub fn from_source(source: Box<dyn DataSource>) -> Dataset {
        Dataset {
            backend: Backend::Other(source),
        }
    }

    /// The underlying format reader, for format-independent tools (dump, copy).
    pub fn source(&self) -> &dyn DataSource {
        match &self.backend {
            Backend::Classic(r) => r.as_ref(),
            Backend::Other(s) => s.as_ref(),
        }
    }

    /// The dataset's structure.
    pub fn schema(&self) -> &Schema {
        self.source().schema()
    }

    /// The format name, as `ncdump -k` prints it.
    pub fn format_name(&self) -> &str {
        self.source().format_name()
    }

    /// The variable at `path` (`temp` or `/group/temp`).
    pub fn variable(&self, path: &str) -> Option<Variable<'_>> {
        let id = self.schema().var_by_path(path)?;
        Some(Variable { dataset: self, id })
    }

    /// Every variable of the root group, in definition order.
    pub fn variables(&self) -> impl Iterator<Item = Variable<'_>> {
        self.schema()
            .root()
            .vars
            .iter()
            .map(move |&id| Variable { dataset: self, id })
    }

    /// The global attribute `name` of the root group.
    pub fn attribute(&self, name: &str) -> Option<&Attribute> {
        self.schema()
            .root()
            .attributes
            .iter()
            .find(|a| a.name == name)
    }
}

/// A variable of an open [`Dataset`].
#[derive(Clone, Copy)]
pub struct Variable<'a> {
    dataset: &'a Dataset,
    id: VarId,
}

impl std::fmt::Debug for Variable<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Variable")
            .field("name", &self.name())
            .finish()
    }
}

impl<'a> Variable<'a> {
    /// The variable's id in the schema.
    pub fn id(&self) -> VarId {
        self.id
    }

    /// The variable's name.
    pub fn name(&self) -> &'a str {
        &self.dataset.schema().var(self.id).name
    }

    /// The element type.
    pub fn dtype(&self) -> DataType {
        self.dataset.schema().var(self.id).dtype
    }

    /// The current shape.
    pub fn shape(&self) -> Vec<u64> {
        self.dataset.schema().shape(self.id)
    }

    /// The names of the variable's dimensions.
    pub fn dimension_names(&self) -> Vec<&'a str> {
        let schema = self.dataset.schema();
        schema
            .var(self.id)
            .dims
            .iter()
            .map(|&d| schema.dim(d).name.as_str())
            .collect()
    }

    /// The attribute named `name`.
    pub fn attribute(&self, name: &str) -> Option<&'a Attribute> {
        self.dataset.schema().var(self.id).attribute(name)
    }

    /// Reads the selected values in the variable's own type.
    pub fn read_values(&self, selection: &Selection) -> Result<nctk_model::Values, Error> {
        self.dataset
            .source()
            .read(self.id, selection)
            .map_err(Error::Format)
    }

    fn read_vec<T: NcValue>(&self, selection: &Selection) -> Result<Vec<T>, Error> {
        match &self.dataset.backend {
            Backend::Classic(r) => r
                .read_vec(self.id, selection)
                .map_err(|e| Error::Format(Box::new(e))),
            Backend::Other(_) => Ok(convert::values_to_vec(self.read_values(selection)?)?),
        }
    }

    /// Reads the values named by `extents` as a flat `Vec<T>` in row-major
    /// order, converting with netCDF's rules (out-of-range values are errors).
    pub fn get_values<T: NcValue>(&self, extents: impl IntoExtents) -> Result<Vec<T>, Error> {
        let (selection, _) = extents.into_extents().resolve(&self.shape())?;
        self.read_vec(&selection)
    }

    /// Reads the values named by `extents` into `out`, which must hold
    /// exactly that many values: the way to reuse one buffer across reads.
    pub fn get_into<T: NcValue>(
        &self,
        extents: impl IntoExtents,
        out: &mut [T],
    ) -> Result<(), Error> {
        let (selection, _) = extents.into_extents().resolve(&self.shape())?;
        match &self.dataset.backend {
            Backend::Classic(r) => r
                .read_into(self.id, &selection, out)
                .map_err(|e| Error::Format(Box::new(e))),
            Backend::Other(_) => {
                let values: Vec<T> = self.read_vec(&selection)?;
                if values.len() != out.len() {
                    return Err(Error::Extent(format!(
                        "buffer holds {} values, the selection has {}",
                        out.len(),
                        values.len()
                    )));
                }
                out.copy_from_slice(&values);
                Ok(())
            }
        }
    }

    /// Reads the values named by `extents` into an n-dimensional array;
    /// dimensions given by a single index are dropped.
    #[cfg(feature = "ndarray")]
    pub fn get<T: NcValue>(&self, extents: impl IntoExtents) -> Result<ndarray::ArrayD<T>, Error> {
        let (selection, shape) = extents.into_extents().resolve(&self.shape())?;
        let values = self.read_vec(&selection)?;
        ndarray::ArrayD::from_shape_vec(shape, values)
            .map_err(|e| Error::Extent(format!("result shape: {e}")))
    }
}
