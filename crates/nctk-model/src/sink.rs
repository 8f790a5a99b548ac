//! The write side's seam: [`DataSink`], the twin of [`crate::DataSource`].

use crate::{ChunkCodec, NativeRef, Schema, Selection, SourceError, Values, VarId};

/// The error type of a [`DataSink`]: each format's own structured error,
/// boxed with its kind (the same type as [`SourceError`]).
pub type SinkError = SourceError;

/// Write access to a dataset being made, implemented by every format's
/// writer. Everything format-independent that writes (the copier, the
/// generator, the facade's outputs) is written against it.
///
/// The contract, in call order:
///
/// 1. [`define`](Self::define) takes the complete definitions (every group,
///    dimension, variable and attribute). A sink created with its
///    definitions accepts the same definitions again and changes nothing.
///    Definitions that differ after data was written are netCDF's
///    redefinition: a classic writer takes them when they only add
///    (dimensions, variables) or change attributes; a store may refuse them
///    with an error naming why.
/// 2. [`write`](Self::write) puts slabs, in any order; writing past the last
///    record of a record variable adds records (and an unlimited
///    dimension of a store grows). Values are given in any numeric type
///    and converted with netCDF's rules; a conversion error
///    (`NC_ERANGE`) is an error, not a wrong value.
/// 3. Exactly one of [`finish`](Self::finish) or [`abort`](Self::abort)
///    ends it. `finish` completes the dataset (record count, padding,
///    remaining chunks, final metadata, flush): when it returns `Ok`, the
///    dataset opens with everything written. `abort` drops what was
///    written: what is left does not open as a complete dataset (a
///    created classic file is emptied, a store loses its metadata), so
///    the facade's safe output can remove it. A sink dropped without
///    either is left as the format leaves it and must not be relied on.
pub trait DataSink: Send {
    /// The dataset's definitions; unlimited dimensions at the length
    /// written so far.
    fn schema(&self) -> &Schema;

    /// Takes the complete definitions of the dataset; see the contract
    /// above for definitions given again.
    fn define(&mut self, schema: &Schema) -> Result<(), SinkError>;

    /// Writes `values` (row-major, the selection's shape) to `selection`
    /// of `var`, converted to the variable's type with netCDF's rules.
    fn write(
        &mut self,
        var: VarId,
        selection: &Selection,
        values: &Values,
    ) -> Result<(), SinkError>;

    /// As [`write`](Self::write), from a caller's slice of a fixed-width
    /// number type, which a sink with a borrowed path writes from without
    /// copying it into [`Values`] (the classic and Zarr writers do). The
    /// default copies it and calls `write`.
    fn write_native(
        &mut self,
        var: VarId,
        selection: &Selection,
        values: NativeRef<'_>,
    ) -> Result<(), SinkError> {
        self.write(var, selection, &values.to_values())
    }

    /// The chunk lengths `var` is stored in, when the output is chunked:
    /// writers of slabs (the copier) then cut them along chunk boundaries.
    fn chunk_shape(&self, var: VarId) -> Option<Vec<u64>> {
        let _ = var;
        None
    }

    /// The encoding of `var`'s stored chunks, when the sink takes chunks
    /// as stored ([`write_stored_chunk`](Self::write_stored_chunk)): the
    /// codec chain in the order applied when writing, elements
    /// little-endian, chunks of [`chunk_shape`](Self::chunk_shape).
    /// `None` (the default) when it does not.
    fn stored_chunk_codecs(&self, var: VarId) -> Option<Vec<ChunkCodec>> {
        let _ = var;
        None
    }

    /// Stores `bytes`, one whole chunk of `var` encoded as
    /// [`stored_chunk_codecs`](Self::stored_chunk_codecs) says, as the
    /// chunk `selection` covers: its start is the chunk's first element,
    /// its count the chunk's lengths cut at the variable's fixed lengths
    /// (writing past the last record adds records, as
    /// [`write`](Self::write) does). `Ok(false)` when the sink did not take
    /// it (the default): write its values instead.
    fn write_stored_chunk(
        &mut self,
        var: VarId,
        selection: &Selection,
        bytes: Vec<u8>,
    ) -> Result<bool, SinkError> {
        let _ = (var, selection, bytes);
        Ok(false)
    }

    /// Completes the dataset; see the contract above.
    fn finish(self: Box<Self>) -> Result<(), SinkError>;

    /// Drops what was written, so that nothing opens as a complete
    /// dataset; see the contract above. An error tells what could not be
    /// undone.
    fn abort(self: Box<Self>) -> Result<(), SinkError>;
}

/// True when `a` and `b` hold the same definitions: the same groups,
/// dimensions, variables and attributes, whatever the current length of
/// unlimited dimensions and the storage facts a format records. A
/// [`DataSink`] given its own definitions again changes nothing.
pub fn same_definitions(a: &Schema, b: &Schema) -> bool {
    definitions_only(a) == definitions_only(b)
}

fn definitions_only(schema: &Schema) -> Schema {
    let mut s = schema.clone();
    for d in schema.dim_ids() {
        let dim = s.dim_mut(d);
        if dim.unlimited {
            dim.len = 0;
        }
    }
    for v in schema.var_ids() {
        s.var_mut(v).storage = Default::default();
    }
    s
}

/// Why `new` is not a redefinition of `old` that netCDF allows: `new`
/// must keep every group, dimension and variable of `old`, first and
/// unchanged (fixed lengths, types, shapes), and every attribute name
/// (values may change). `None` when it is.
pub fn redefinition_error(old: &Schema, new: &Schema) -> Option<String> {
    if new.group_ids().count() < old.group_ids().count() {
        return Some("a redefinition cannot remove groups".into());
    }
    for (o, n) in old.group_ids().zip(new.group_ids()) {
        let (og, ng) = (old.group(o), new.group(n));
        if og.name != ng.name || og.parent != ng.parent {
            return Some(format!("group {:?} is missing or moved", old.group_path(o)));
        }
        if let Some(reason) = missing_attribute(&og.attributes, &ng.attributes) {
            return Some(format!("group {:?}: {reason}", old.group_path(o)));
        }
    }
    if new.num_dims() < old.num_dims() {
        return Some("a redefinition cannot remove dimensions".into());
    }
    for (o, n) in old.dim_ids().zip(new.dim_ids()) {
        let (od, nd) = (old.dim(o), new.dim(n));
        let same_len = od.unlimited || od.len == nd.len;
        if od.name != nd.name || od.group != nd.group || od.unlimited != nd.unlimited || !same_len {
            return Some(format!("dimension {:?} is missing or changed", od.name));
        }
    }
    if new.num_vars() < old.num_vars() {
        return Some("a redefinition cannot remove variables".into());
    }
    for (o, n) in old.var_ids().zip(new.var_ids()) {
        let (ov, nv) = (old.var(o), new.var(n));
        if ov.name != nv.name || ov.group != nv.group || ov.dtype != nv.dtype || ov.dims != nv.dims
        {
            return Some(format!("variable {:?} is missing or changed", ov.name));
        }
        if let Some(reason) = missing_attribute(&ov.attributes, &nv.attributes) {
            return Some(format!("variable {:?}: {reason}", ov.name));
        }
    }
    None
}

fn missing_attribute(old: &[crate::Attribute], new: &[crate::Attribute]) -> Option<String> {
    old.iter()
        .find(|a| !new.iter().any(|b| b.name == a.name))
        .map(|a| format!("a redefinition cannot remove attribute {:?}", a.name))
}
