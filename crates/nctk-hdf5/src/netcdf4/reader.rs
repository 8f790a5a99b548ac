//! [`Nc4Reader`]: a netCDF-4 file read as a [`DataSource`].

use std::sync::Arc;

use nctk_model::{
    with_fixed_values, with_native_mut, ChunkCodec, ChunkRefs, DataSource, FileFacts, Format,
    NativeMut, Schema, Selection, SourceError, Values, VarId,
};
use nctk_store::bytes::ByteSource;

use crate::Hdf5File;

use super::build::{build, VarSource};
use super::convert::{decode, Stored};
use super::error::Nc4Error;
use super::hidden::marks_classic_model;
use super::walk::walk;

/// A netCDF-4 (HDF5) file opened for reading over a byte source.
pub struct Nc4Reader {
    file: Hdf5File,
    schema: Schema,
    vars: Vec<VarSource>,
    format: Format,
    facts: FileFacts,
}

impl std::fmt::Debug for Nc4Reader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Nc4Reader")
            .field("file", &self.file.ctx().name())
            .finish_non_exhaustive()
    }
}

impl Nc4Reader {
    /// Opens the HDF5 file in `source` and reads its netCDF-4 metadata as
    /// netCDF-C does.
    pub fn open(source: Arc<dyn ByteSource>) -> Result<Nc4Reader, Nc4Error> {
        let file = Hdf5File::open(source)?;
        let groups = walk(&file)?;
        let classic = marks_classic_model(&groups[0].group.attributes);
        let built = build(&file, &groups)?;
        Ok(Nc4Reader {
            file,
            schema: built.schema,
            vars: built.vars,
            format: if classic {
                Format::Netcdf4Classic
            } else {
                Format::Netcdf4
            },
            facts: built.facts,
        })
    }

    fn source(&self, var: VarId) -> Result<&VarSource, Nc4Error> {
        self.vars
            .get(var.0 as usize)
            .ok_or_else(|| Nc4Error::Invalid {
                file: self.file.ctx().name().to_string(),
                object: format!("variable id {}", var.0),
                reason: "no such variable".into(),
            })
    }

    /// Checks `selection` against the variable's shape; the number of
    /// values it selects.
    fn check(&self, var: VarId, selection: &Selection) -> Result<usize, Nc4Error> {
        let src = self.source(var)?;
        let bad = |source| Nc4Error::Model {
            file: self.file.ctx().name().to_string(),
            object: src.path.clone(),
            source,
        };
        selection
            .check(&self.schema.shape(var), false)
            .map_err(bad)?;
        let n = selection
            .num_elements()
            .and_then(|n| usize::try_from(n).ok());
        n.ok_or_else(|| {
            bad(nctk_model::ModelError::Selection(
                "the selection has too many values".into(),
            ))
        })
    }

    /// The raw stored elements of `selection` into `out`; the part past the
    /// dataset's own extent (a variable shorter than its unlimited
    /// dimension) reads as fill.
    fn read_raw(&self, src: &VarSource, sel: &Selection, out: &mut [u8]) -> Result<(), Nc4Error> {
        if src.null {
            return Err(Nc4Error::Invalid {
                file: self.file.ctx().name().to_string(),
                object: src.path.clone(),
                reason: "the dataset's dataspace is null: it holds no values".into(),
            });
        }
        // Per axis, the selected indices inside the extent are a prefix.
        let inside: Vec<u64> = (0..sel.rank())
            .map(|d| {
                let (start, count, stride, ext) =
                    (sel.start[d], sel.count[d], sel.stride[d], src.extent[d]);
                if start >= ext {
                    0
                } else {
                    count.min((ext - start - 1) / stride.max(1) + 1)
                }
            })
            .collect();
        if inside == sel.count {
            src.reader.read(&sel.start, &sel.count, &sel.stride, out)?;
            return Ok(());
        }
        let esize = src.fill.len();
        for element in out.chunks_exact_mut(esize) {
            element.copy_from_slice(&src.fill);
        }
        let n_inside: u64 = inside.iter().product();
        if n_inside == 0 {
            return Ok(());
        }
        let mut part = vec![0u8; n_inside as usize * esize];
        src.reader
            .read(&sel.start, &inside, &sel.stride, &mut part)?;
        scatter(&part, &inside, &sel.count, esize, out);
        Ok(())
    }
}

impl Nc4Reader {
    /// The values of `selection` straight into `bytes` (the memory of the
    /// caller's numbers), swapped in place when stored in the other order.
    fn read_native_bytes(
        &self,
        src: &VarSource,
        selection: &Selection,
        bytes: &mut [u8],
        big_endian: bool,
    ) -> Result<(), Nc4Error> {
        self.read_raw(src, selection, bytes)?;
        let size = src.fill.len();
        if big_endian != cfg!(target_endian = "big") && size > 1 {
            for element in bytes.chunks_exact_mut(size) {
                element.reverse();
            }
        }
        Ok(())
    }
}

/// Copies the row-major block `part` of shape `inner` into the corner of
/// the row-major block `out` of shape `outer`.
fn scatter(part: &[u8], inner: &[u64], outer: &[u64], esize: usize, out: &mut [u8]) {
    let rank = inner.len();
    if rank == 0 {
        out[..esize].copy_from_slice(&part[..esize]);
        return;
    }
    let row = inner[rank - 1] as usize * esize;
    let mut idx = vec![0u64; rank - 1];
    for chunk in part.chunks_exact(row.max(1)) {
        let offset = idx
            .iter()
            .zip(outer)
            .fold(0u64, |acc, (&i, &n)| acc * n + i)
            * outer[rank - 1];
        let at = offset as usize * esize;
        out[at..at + row].copy_from_slice(chunk);
        for d in (0..rank - 1).rev() {
            idx[d] += 1;
            if idx[d] < inner[d] {
                break;
            }
            idx[d] = 0;
        }
    }
}

impl DataSource for Nc4Reader {
    fn schema(&self) -> &Schema {
        &self.schema
    }

    fn read(&self, var: VarId, selection: &Selection) -> Result<Values, SourceError> {
        let src = self.source(var)?;
        if let Stored::Atomic { dtype, .. } = src.stored {
            // Numbers and chars are read straight into their vector.
            let mut out = Values::empty(dtype);
            self.read_into(var, selection, &mut out)?;
            return Ok(out);
        }
        let n = self.check(var, selection)?;
        let esize = src.stored.element_size(self.file.ctx().sizeof_addr());
        let len = n.checked_mul(esize).ok_or_else(|| Nc4Error::Invalid {
            file: self.file.ctx().name().to_string(),
            object: src.path.clone(),
            reason: format!("{n} values of {esize} bytes overflow"),
        })?;
        let mut raw = vec![0u8; len];
        self.read_raw(src, selection, &mut raw)?;
        Ok(decode(&self.file, &src.stored, &raw, 0, &src.path).map_err(Nc4Error::from)?)
    }

    fn read_into(
        &self,
        var: VarId,
        selection: &Selection,
        out: &mut Values,
    ) -> Result<(), SourceError> {
        let src = self.source(var)?;
        let Stored::Atomic { dtype, big_endian } = src.stored else {
            *out = self.read(var, selection)?;
            return Ok(());
        };
        let n = self.check(var, selection)?;
        if out.dtype() != dtype {
            *out = Values::with_capacity(dtype, n);
        }
        with_fixed_values!(out, v => {
            v.resize(n, Default::default());
        }, _ => unreachable!("an atomic stored type is fixed-width"));
        let bytes = nctk_model::bytes::values_as_bytes_mut(out)
            .ok_or_else(|| Nc4Error::from(self.file.ctx().unsupported(&src.path, 0, "strings")))?;
        self.read_native_bytes(src, selection, bytes, big_endian)?;
        Ok(())
    }

    fn read_native(
        &self,
        var: VarId,
        selection: &Selection,
        out: NativeMut<'_>,
    ) -> Result<(), SourceError> {
        let src = self.source(var)?;
        let n = self.check(var, selection)?;
        match src.stored {
            Stored::Atomic { dtype, big_endian } if out.dtype() == dtype && out.len() == n => {
                with_native_mut!(out, s => {
                    let bytes = nctk_model::bytes::as_bytes_mut(s);
                    self.read_native_bytes(src, selection, bytes, big_endian)?;
                });
            }
            _ => out.copy_from(&self.read(var, selection)?)?,
        }
        Ok(())
    }

    fn format(&self) -> Format {
        self.format
    }

    fn file_facts(&self) -> FileFacts {
        self.facts.clone()
    }

    fn stored_chunk_codecs(&self, var: VarId) -> Option<Vec<ChunkCodec>> {
        super::stored::codecs(self.vars.get(var.0 as usize)?)
    }

    fn chunk_refs(&self, var: VarId) -> Result<ChunkRefs, SourceError> {
        let src = self.source(var)?;
        let path = self.schema.var_path(var);
        let shape = self.schema.shape(var);
        Ok(super::refs::chunk_refs(
            self.file.ctx().name(),
            &path,
            &shape,
            src,
        )?)
    }

    fn stored_chunks(
        &self,
        var: VarId,
        chunks: &[Vec<u64>],
    ) -> Result<Vec<Option<Vec<u8>>>, SourceError> {
        let src = self.source(var)?;
        let Some(chain) = super::stored::codecs(src) else {
            return Ok(vec![None; chunks.len()]);
        };
        let shape = self.schema.shape(var);
        Ok(super::stored::read(src, &shape, &chain, chunks)?)
    }
}

/// The netCDF format of the HDF5 file in `source` (what `ncdump -k`
/// prints) from its root group's attributes alone, without reading the
/// rest of its metadata: `netCDF-4 classic model` when the root has
/// `_nc3_strict`, as netCDF-C decides, else `netCDF-4`.
pub fn format_of(source: Arc<dyn ByteSource>) -> Result<Format, Nc4Error> {
    let file = Hdf5File::open(source)?;
    let root = file.group(file.root_addr())?;
    Ok(if marks_classic_model(&root.attributes) {
        Format::Netcdf4Classic
    } else {
        Format::Netcdf4
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scatter_places_a_block_in_the_corner() {
        // inner 2x2 of one-byte elements into outer 3x3.
        let mut out = vec![0u8; 9];
        scatter(&[1, 2, 3, 4], &[2, 2], &[3, 3], 1, &mut out);
        assert_eq!(out, [1, 2, 0, 3, 4, 0, 0, 0, 0]);
    }
}
