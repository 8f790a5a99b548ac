//! [`ZarrReader`], the [`DataSource`] of a Zarr / NCZarr dataset: the
//! schema its metadata gives ([`crate::schema`]), and reads of selections
//! ([`crate::selection`]).

use std::sync::Arc;

use nctk_model::{DataSource, Schema, Selection, SourceError, Values, VarId};
use nctk_store::kv::ReadListStore;

use crate::schema::{self, ZarrOptions};
use crate::selection::{read_selection, ArrayMeta};
use crate::ZarrError;

/// A Zarr v2 / NCZarr dataset opened for reading: a netCDF [`Schema`] and
/// chunked reads that touch only the chunks a selection needs.
///
/// `ZarrReader` is `Send + Sync`; share it between threads freely.
pub struct ZarrReader {
    store: Arc<dyn ReadListStore>,
    schema: Schema,
    arrays: Vec<ArrayMeta>,
    nczarr: bool,
}

impl std::fmt::Debug for ZarrReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ZarrReader")
            .field("nczarr", &self.nczarr)
            .field("variables", &self.arrays.len())
            .finish()
    }
}

impl ZarrReader {
    /// Opens the dataset at the root of `store`.
    pub fn open(store: Arc<dyn ReadListStore>, opts: ZarrOptions) -> Result<ZarrReader, ZarrError> {
        let built = schema::build(store.as_ref(), opts)?;
        Ok(ZarrReader {
            store,
            schema: built.schema,
            arrays: built.arrays,
            nczarr: built.nczarr,
        })
    }

    /// True when the dataset was read with its NCZarr metadata.
    pub fn is_nczarr(&self) -> bool {
        self.nczarr
    }

    /// Reads the selected values of `var`, as [`DataSource::read`] does,
    /// with this crate's error type.
    pub fn read_values(&self, var: VarId, selection: &Selection) -> Result<Values, ZarrError> {
        let v = self.schema.var(var);
        let meta = &self.arrays[var.0 as usize];
        let shape = self.schema.shape(var);
        selection
            .check(&shape, false)
            .map_err(|e| ZarrError::Request {
                var: v.name.clone(),
                reason: e.to_string(),
            })?;
        // A netCDF scalar stored with Zarr shape [1]; an unlimited dimension
        // may be longer than this array: read past its end as fill.
        let zsel = if shape.is_empty() && !meta.shape.is_empty() {
            Selection::all(&meta.shape)
        } else {
            selection.clone()
        };
        if zsel
            .start
            .iter()
            .zip(&zsel.count)
            .zip(&zsel.stride)
            .zip(&meta.shape)
            .any(|(((&s, &c), &st), &len)| c > 0 && s + (c - 1) * st >= len)
        {
            return self.read_padded(var, meta, &zsel);
        }
        read_selection(self.store.as_ref(), meta, &v.name, &zsel)
    }

    /// Reads a selection reaching past the array's own extent (an array
    /// shorter than its unlimited dimension): the part inside is read, the
    /// rest is fill.
    fn read_padded(
        &self,
        var: VarId,
        meta: &ArrayMeta,
        sel: &Selection,
    ) -> Result<Values, ZarrError> {
        let name = &self.schema.var(var).name;
        let n = sel.num_elements().unwrap_or(0) as usize;
        let fill = meta.fill_values();
        let mut out = Values::with_capacity(fill.dtype(), n);
        // Element by element along the selection (rare path).
        let rank = sel.rank();
        let mut j = vec![0u64; rank];
        for _ in 0..n {
            let idx: Vec<u64> = (0..rank)
                .map(|d| sel.start[d] + j[d] * sel.stride[d])
                .collect();
            if idx.iter().zip(&meta.shape).all(|(&i, &len)| i < len) {
                let one = Selection::block(&idx, &vec![1; rank]);
                out.extend_from(&read_selection(self.store.as_ref(), meta, name, &one)?);
            } else {
                out.extend_from(&fill);
            }
            for d in (0..rank).rev() {
                j[d] += 1;
                if j[d] < sel.count[d] {
                    break;
                }
                j[d] = 0;
            }
        }
        Ok(out)
    }
}

impl DataSource for ZarrReader {
    fn schema(&self) -> &Schema {
        &self.schema
    }

    fn read(&self, var: VarId, selection: &Selection) -> Result<Values, SourceError> {
        Ok(self.read_values(var, selection)?)
    }

    fn format(&self) -> nctk_model::Format {
        nctk_model::Format::Netcdf4
    }

    /// Each stored chunk as its object (a shard's inner chunk as its
    /// bytes in the shard), named by its key in the store.
    fn chunk_refs(&self, var: VarId) -> Result<nctk_model::ChunkRefs, SourceError> {
        let meta = &self.arrays[var.0 as usize];
        let shape = self.schema.shape(var);
        let path = self.schema.var_path(var);
        Ok(crate::refs::chunk_refs(
            self.store.as_ref(),
            meta,
            &path,
            &shape,
        )?)
    }
}

#[allow(dead_code)]
fn _assert_send_sync() {
    fn is<T: Send + Sync>() {}
    is::<ZarrReader>();
}
