//! `string` values as netCDF-C stores them: each a variable-length UTF-8
//! string whose bytes go to the global heap, the element the 16-byte
//! (length, collection, index) that points there; a null string (a NULL
//! `char *`, ncdump's `NIL`) points nowhere (HDF5's null element).

use crate::write::{Hdf5Writer, WriteResult, NULL_VLEN};

/// The stored elements of `strings`, their bytes put in the heap of `w`.
pub fn stored(w: &mut Hdf5Writer, strings: &[Option<String>]) -> WriteResult<Vec<u8>> {
    let mut out = Vec::with_capacity(16 * strings.len());
    for s in strings {
        out.extend(match s {
            Some(s) => one(w, s)?,
            None => NULL_VLEN,
        });
    }
    Ok(out)
}

/// The stored element of one string.
pub fn one(w: &mut Hdf5Writer, s: &str) -> WriteResult<[u8; 16]> {
    let len = u32::try_from(s.len())
        .map_err(|_| crate::write::WriteError::Unsupported("a string of 4 GiB or more".into()))?;
    w.put_vlen(len, s.as_bytes().to_vec())
}
