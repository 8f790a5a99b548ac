//! A Zarr v2 codec chain: `filters` applied in order, then `compressor`.

use std::borrow::Cow;

use serde_json::Value;

use crate::codec::{Codec, CodecContext};
use crate::error::{CodecError, Result};

/// The codecs of one Zarr v2 array. Encoding applies `filters` in order then
/// `compressor`; decoding applies them in reverse.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Pipeline {
    /// Filters, first applied first when encoding.
    pub filters: Vec<Codec>,
    /// The compressor, applied last when encoding.
    pub compressor: Option<Codec>,
}

impl Pipeline {
    /// Builds from the `compressor` and `filters` values of a `.zarray`
    /// (either may be `null`).
    pub fn from_zarr_json(
        compressor: &Value,
        filters: &Value,
        ctx: &CodecContext<'_>,
    ) -> Result<Self> {
        let compressor = match compressor {
            Value::Null => None,
            c => Some(Codec::from_json_with(c, ctx)?),
        };
        let filters = match filters {
            Value::Null => Vec::new(),
            Value::Array(fs) => fs
                .iter()
                .map(|f| Codec::from_json_with(f, ctx))
                .collect::<Result<_>>()?,
            other => {
                return Err(CodecError::invalid_config(
                    "codec",
                    format!("filters must be null or a list, not {other}"),
                ))
            }
        };
        Ok(Pipeline {
            filters,
            compressor,
        })
    }

    /// Whether the pipeline does nothing (raw chunks).
    pub fn is_empty(&self) -> bool {
        self.filters.is_empty() && self.compressor.is_none()
    }

    /// Encodes one chunk.
    pub fn encode(&self, chunk: &[u8]) -> Result<Vec<u8>> {
        let mut buf: Option<Vec<u8>> = None;
        for c in self.filters.iter().chain(self.compressor.as_ref()) {
            let next = c.encode(buf.as_deref().unwrap_or(chunk))?;
            buf = Some(next);
        }
        Ok(buf.unwrap_or_else(|| chunk.to_vec()))
    }

    /// Decodes one chunk into exactly `out` (the chunk's size in bytes).
    /// Each intermediate buffer is sized either forward from `out.len()`
    /// through the filters' fixed size changes, or backward from the data in
    /// hand for a fixed-size filter after a compressor (netCDF-C writes
    /// `filters: [shuffle, zlib]` with `compressor: fletcher32`); never from
    /// a size the stream claims.
    pub fn decode_into(&self, encoded: &[u8], out: &mut [u8]) -> Result<()> {
        let chain: Vec<&Codec> = self
            .filters
            .iter()
            .chain(self.compressor.as_ref())
            .collect();
        let Some((first, rest)) = chain.split_first() else {
            if encoded.len() != out.len() {
                return Err(CodecError::size("none", out.len(), encoded.len()));
            }
            out.copy_from_slice(encoded);
            return Ok(());
        };
        // entering[i] = length of the data entering codec i when encoding,
        // while every codec before it has a fixed size change.
        let mut entering = vec![Some(out.len())];
        for c in &chain[..chain.len() - 1] {
            let next = match entering[entering.len() - 1] {
                Some(n) => c.encoded_len(n)?,
                None => None,
            };
            entering.push(next);
        }
        let mut cur: Cow<'_, [u8]> = Cow::Borrowed(encoded);
        for (i, c) in rest.iter().enumerate().rev() {
            let len = match entering[i + 1] {
                Some(n) => n,
                None => c.decoded_len(cur.len()).ok_or_else(|| {
                    CodecError::unsupported(c.id(), "a compressor after another compressor")
                })?,
            };
            let mut next = vec![0u8; len];
            c.decode_into(&cur, &mut next)?;
            cur = Cow::Owned(next);
        }
        first.decode_into(&cur, out)
    }

    /// Decodes a chunk whose decoded length is not known (variable-length
    /// strings or bytes), refusing any stage longer than `limit` bytes; see
    /// [`Codec::decode_unsized`].
    pub fn decode_unsized(&self, encoded: &[u8], limit: usize) -> Result<Vec<u8>> {
        let mut cur: Cow<'_, [u8]> = Cow::Borrowed(encoded);
        for c in self.filters.iter().chain(self.compressor.as_ref()).rev() {
            cur = Cow::Owned(c.decode_unsized(&cur, limit)?);
        }
        Ok(cur.into_owned())
    }

    /// Decodes one chunk into a new buffer of `expected_len` bytes.
    pub fn decode(&self, encoded: &[u8], expected_len: usize) -> Result<Vec<u8>> {
        let mut out = vec![0u8; expected_len];
        self.decode_into(encoded, &mut out)?;
        Ok(out)
    }
}
