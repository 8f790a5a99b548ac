//! A Zarr v2 codec chain: `filters` applied in order, then `compressor`.

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
    /// Intermediate buffers are sized from `out.len()` and the filters'
    /// fixed size changes, never from the stream.
    pub fn decode_into(&self, encoded: &[u8], out: &mut [u8]) -> Result<()> {
        // sizes[i] = length of the data entering filter i when encoding.
        let mut sizes = Vec::with_capacity(self.filters.len() + 1);
        sizes.push(out.len());
        for f in &self.filters {
            let last = sizes[sizes.len() - 1];
            let n = f.encoded_len(last)?.ok_or_else(|| {
                CodecError::unsupported(
                    f.id(),
                    "a compressor used as a filter before another codec",
                )
            })?;
            sizes.push(n);
        }
        let nf = self.filters.len();
        if nf == 0 {
            return match &self.compressor {
                Some(c) => c.decode_into(encoded, out),
                None if encoded.len() == out.len() => {
                    out.copy_from_slice(encoded);
                    Ok(())
                }
                None => Err(CodecError::size("none", out.len(), encoded.len())),
            };
        }
        let mut cur: Vec<u8> = match &self.compressor {
            Some(c) => c.decode(encoded, sizes[nf])?,
            None if encoded.len() == sizes[nf] => encoded.to_vec(),
            None => {
                return Err(CodecError::size(
                    self.filters[nf - 1].id(),
                    sizes[nf],
                    encoded.len(),
                ))
            }
        };
        for i in (1..nf).rev() {
            let mut next = vec![0u8; sizes[i]];
            self.filters[i].decode_into(&cur, &mut next)?;
            cur = next;
        }
        self.filters[0].decode_into(&cur, out)
    }

    /// Decodes one chunk into a new buffer of `expected_len` bytes.
    pub fn decode(&self, encoded: &[u8], expected_len: usize) -> Result<Vec<u8>> {
        let mut out = vec![0u8; expected_len];
        self.decode_into(encoded, &mut out)?;
        Ok(out)
    }
}
