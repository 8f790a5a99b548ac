//! The filter pipeline message (message type 11), versions 1 and 2, and
//! the decoding of a chunk through it with nctk-codec.

use nctk_codec::{
    Codec, CodecContext, CodecError, Pipeline, H5Z_FILTER_DEFLATE, H5Z_FILTER_FLETCHER32,
    H5Z_FILTER_SHUFFLE, H5Z_FILTER_SZIP,
};

use crate::error::{Hdf5Error, Result};
use crate::io::FileCtx;

/// One filter of a pipeline, as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Filter {
    /// The filter id (1 deflate, 2 shuffle, 3 fletcher32, 4 szip, 307
    /// bzip2, 32001 blosc, 32004 lz4, 32015 zstd, ...).
    pub id: u16,
    /// The name the file gives it, if any.
    pub name: Option<String>,
    /// Whether the filter is optional (a chunk may skip it).
    pub optional: bool,
    /// The client data values.
    pub params: Vec<u32>,
}

/// A dataset's filters in the order they were applied when writing.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FilterPipeline {
    /// The filters, first applied first.
    pub filters: Vec<Filter>,
}

const WHAT: &str = "filter pipeline message";

impl FilterPipeline {
    /// Parses the body of a filter pipeline message read at relative
    /// address `addr`.
    pub fn parse(ctx: &FileCtx, addr: u64, body: &[u8]) -> Result<FilterPipeline> {
        let mut cur = ctx.cursor(body, addr, WHAT);
        let version = cur.u8()?;
        if !(1..=2).contains(&version) {
            return Err(cur.corrupt(format!("filter pipeline version {version}")));
        }
        let count = cur.u8()?;
        if count > 32 {
            return Err(cur.corrupt(format!("{count} filters (at most 32 allowed)")));
        }
        if version == 1 {
            cur.skip(6)?;
        }
        let mut filters = Vec::with_capacity(usize::from(count));
        for _ in 0..count {
            let id = cur.u16()?;
            let name_len = if version == 1 || id >= 256 {
                usize::from(cur.u16()?)
            } else {
                0
            };
            let flags = cur.u16()?;
            let nparams = usize::from(cur.u16()?);
            let name = if name_len > 0 {
                let padded = if version == 1 {
                    name_len.div_ceil(8) * 8
                } else {
                    name_len
                };
                let raw = cur.bytes(padded)?;
                let raw = &raw[..name_len];
                let end = raw.iter().position(|&b| b == 0).unwrap_or(raw.len());
                Some(String::from_utf8_lossy(&raw[..end]).into_owned())
            } else {
                None
            };
            let mut params = Vec::with_capacity(nparams.min(cur.remaining() / 4));
            for _ in 0..nparams {
                params.push(cur.u32()?);
            }
            if version == 1 && nparams % 2 == 1 {
                cur.skip(4)?;
            }
            filters.push(Filter {
                id,
                name,
                optional: flags & 1 != 0,
                params,
            });
        }
        Ok(FilterPipeline { filters })
    }

    /// The `_Filter` attribute as `ncdump -s` prints it: `id,p1,p2|id,...`
    /// for the filters of the pipeline in order, leaving out deflate,
    /// shuffle and Fletcher-32 (which ncdump shows as `_DeflateLevel`,
    /// `_Shuffle` and `_Fletcher32`); empty when no other filter is left.
    pub fn filter_text(&self) -> String {
        self.filters
            .iter()
            .filter(|f| {
                ![
                    H5Z_FILTER_DEFLATE,
                    H5Z_FILTER_SHUFFLE,
                    H5Z_FILTER_FLETCHER32,
                ]
                .contains(&u32::from(f.id))
            })
            .map(|f| {
                std::iter::once(f.id.to_string())
                    .chain(visible_params(f).iter().map(u32::to_string))
                    .collect::<Vec<_>>()
                    .join(",")
            })
            .collect::<Vec<_>>()
            .join("|")
    }

    /// The deflate level (`_DeflateLevel`), when the pipeline deflates.
    pub fn deflate_level(&self) -> Option<u32> {
        self.find(H5Z_FILTER_DEFLATE)
            .map(|f| f.params.first().copied().unwrap_or(0))
    }

    /// Whether the pipeline shuffles bytes (`_Shuffle = "true"`).
    pub fn shuffle(&self) -> bool {
        self.find(H5Z_FILTER_SHUFFLE).is_some()
    }

    /// Whether the pipeline checksums chunks (`_Fletcher32 = "true"`).
    pub fn fletcher32(&self) -> bool {
        self.find(H5Z_FILTER_FLETCHER32).is_some()
    }

    fn find(&self, id: u32) -> Option<&Filter> {
        self.filters.iter().find(|f| u32::from(f.id) == id)
    }

    /// The decoder of this pipeline for elements of `element_size` bytes.
    /// A filter nctk has no codec for is an error naming it.
    pub fn decoder(&self, ctx: &FileCtx, addr: u64, element_size: usize) -> Result<Decoder> {
        let cctx = CodecContext::new(element_size);
        let mut stages = Vec::with_capacity(self.filters.len());
        for f in &self.filters {
            let codec = codec_for(f, &cctx).map_err(|e| {
                ctx.unsupported(
                    "filter pipeline",
                    addr,
                    format!(
                        "filter {} ({}): {e}",
                        f.id,
                        f.name.as_deref().unwrap_or("unnamed")
                    ),
                )
            })?;
            stages.push(codec);
        }
        Ok(Decoder::new(stages))
    }
}

/// The parameters netCDF-C reports for a filter: szip's four stored
/// values become the two given when it was set (the option mask keeping
/// only its chip, entropy-coding and nearest-neighbour bits).
fn visible_params(f: &Filter) -> Vec<u32> {
    const SZIP_ALL_MASKS: u32 = 2 | 4 | 32;
    match (u32::from(f.id), f.params.as_slice()) {
        (H5Z_FILTER_SZIP, [mask, pixels, _, _]) => vec![mask & SZIP_ALL_MASKS, *pixels],
        _ => f.params.clone(),
    }
}

fn codec_for(f: &Filter, cctx: &CodecContext<'_>) -> std::result::Result<Codec, CodecError> {
    Codec::from_hdf5(u32::from(f.id), &f.params, cctx)
}

/// A pipeline ready to decode chunks: one codec per filter, undone in
/// reverse through nctk-codec's [`Pipeline`] (which sizes intermediate
/// buffers from the chunk's size, never from the stream).
#[derive(Debug, Clone)]
pub struct Decoder {
    stages: Vec<Codec>,
    /// Every filter: the pipeline of a chunk that skipped none.
    all: Pipeline,
}

impl Decoder {
    fn new(stages: Vec<Codec>) -> Decoder {
        let all = Pipeline {
            filters: stages.clone(),
            compressor: None,
        };
        Decoder { stages, all }
    }

    /// Whether there is nothing to undo for a chunk with filter `mask`
    /// (bit `i` set: filter `i` was skipped).
    pub fn is_identity(&self, mask: u32) -> bool {
        (0..self.stages.len()).all(|i| skipped(mask, i))
    }

    /// Decodes `stored` (the chunk as stored at relative address `addr`)
    /// into `out`, which must receive exactly `out.len()` bytes; filters
    /// are undone last first, those whose bit is set in `mask` skipped.
    pub fn decode_into(
        &self,
        ctx: &FileCtx,
        addr: u64,
        mask: u32,
        stored: &[u8],
        out: &mut [u8],
    ) -> Result<()> {
        let some_skipped = (0..self.stages.len()).any(|i| skipped(mask, i));
        let partial;
        let pipeline = if some_skipped {
            partial = Pipeline {
                filters: self
                    .stages
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| !skipped(mask, *i))
                    .map(|(_, c)| c.clone())
                    .collect(),
                compressor: None,
            };
            &partial
        } else {
            &self.all
        };
        pipeline
            .decode_into(stored, out)
            .map_err(|source| Hdf5Error::Filter {
                file: ctx.name().to_string(),
                offset: ctx.span(addr, 0, "chunk").unwrap_or(addr),
                source,
            })
    }
}

fn skipped(mask: u32, i: usize) -> bool {
    i < 32 && mask & (1 << i) != 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use nctk_store::bytes::{ByteSource, MemSource};
    use std::sync::Arc;

    fn ctx() -> FileCtx {
        let source: Arc<dyn ByteSource> = Arc::new(MemSource::new(vec![0; 64]));
        FileCtx::new(source, 64, 0, 8, 8)
    }

    /// A version-1 message as the specification lays it out: 6 reserved
    /// bytes, names padded to 8, an odd parameter count padded by 4 bytes.
    fn v1() -> Vec<u8> {
        let mut m = vec![1, 2, 0, 0, 0, 0, 0, 0];
        // shuffle: id 2, name "shuffle\0" (8), flags 1 (optional), 1 parameter
        m.extend_from_slice(&[2, 0, 8, 0, 1, 0, 1, 0]);
        m.extend_from_slice(b"shuffle\0");
        m.extend_from_slice(&[4, 0, 0, 0, 0, 0, 0, 0]);
        // zstd: id 32015, a 5-byte name padded to 8, flags 0, 2 parameters
        m.extend_from_slice(&[0x0f, 0x7d, 5, 0, 0, 0, 2, 0]);
        m.extend_from_slice(b"zstd\0\0\0\0");
        m.extend_from_slice(&[3, 0, 0, 0, 9, 0, 0, 0]);
        m
    }

    #[test]
    fn version_1_names_padding_and_text() {
        let p = FilterPipeline::parse(&ctx(), 0, &v1()).unwrap();
        assert_eq!(
            p.filters,
            vec![
                Filter {
                    id: 2,
                    name: Some("shuffle".into()),
                    optional: true,
                    params: vec![4]
                },
                Filter {
                    id: 32015,
                    name: Some("zstd".into()),
                    optional: false,
                    params: vec![3, 9]
                },
            ]
        );
        assert_eq!(p.filter_text(), "32015,3,9");
        assert!(p.shuffle() && !p.fletcher32() && p.deflate_level().is_none());
    }

    #[test]
    fn short_or_impossible_messages_are_errors() {
        let m = v1();
        for cut in 0..m.len() {
            assert!(
                FilterPipeline::parse(&ctx(), 0, &m[..cut]).is_err(),
                "{cut}"
            );
        }
        assert!(FilterPipeline::parse(&ctx(), 0, &[2, 33]).is_err());
        assert!(FilterPipeline::parse(&ctx(), 0, &[3, 0]).is_err());
    }
}
