//! HDF5 filter ids and netCDF-C's `_Filter` text, mapped to and from [`Codec`].
//!
//! Parameter conventions are those of netCDF-C's NCZarr codec plugins:
//!
//! | HDF5 id | filter | parameters | codec |
//! | --- | --- | --- | --- |
//! | 1 | deflate | `level` | `zlib` |
//! | 2 | shuffle | none, or `elementsize` | `shuffle` |
//! | 3 | fletcher32 | none | `fletcher32` |
//! | 4 | szip | `mask, pixels-per-block` | unsupported (error) |
//! | 307 | bzip2 | `level` | `bz2` |
//! | 32015 | zstd | `level` | `zstd` |
//! | 32001 | blosc | `0, 0, typesize, blocksize, clevel, shuffle, compressor code` | `blosc` |
//!
//! `_Filter` text is `id,p1,p2,...` with filters separated by `|`
//! (`"307,9|1,5"`), as ncgen reads and ncdump prints it.

use std::fmt;

use crate::blosc::{Blosc, BloscCompressor, BloscShuffle};
use crate::codec::{Codec, CodecContext};
use crate::error::{CodecError, Result};
use crate::shuffle::Shuffle;

/// HDF5 filter id of deflate.
pub const H5Z_FILTER_DEFLATE: u32 = 1;
/// HDF5 filter id of shuffle.
pub const H5Z_FILTER_SHUFFLE: u32 = 2;
/// HDF5 filter id of fletcher32.
pub const H5Z_FILTER_FLETCHER32: u32 = 3;
/// HDF5 filter id of szip.
pub const H5Z_FILTER_SZIP: u32 = 4;
/// HDF5 filter id of bzip2.
pub const H5Z_FILTER_BZIP2: u32 = 307;
/// HDF5 filter id of blosc.
pub const H5Z_FILTER_BLOSC: u32 = 32001;
/// HDF5 filter id of zstd.
pub const H5Z_FILTER_ZSTD: u32 = 32015;
/// The HDF Group's LZ4 filter (hdf5plugin's `LZ4`).
pub const H5Z_FILTER_LZ4: u32 = 32004;

/// One HDF5 filter: its id and its (visible) parameters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FilterSpec {
    /// HDF5 filter id.
    pub id: u32,
    /// Parameters as 32-bit unsigned integers.
    pub params: Vec<u32>,
}

impl fmt::Display for FilterSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.id)?;
        for p in &self.params {
            write!(f, ",{p}")?;
        }
        Ok(())
    }
}

/// Parses a `_Filter` attribute (`"307,9|1,5"`). Plain integers are accepted,
/// negative ones as their 32-bit two's complement, as ncgen does for untagged
/// constants.
pub fn parse_filter_attr(text: &str) -> Result<Vec<FilterSpec>> {
    let bad = |why: String| CodecError::invalid_config("filter", why);
    let mut specs = Vec::new();
    for spec in text.split('|') {
        let mut nums = spec.split(',').map(|t| {
            let t = t.trim();
            t.parse::<u32>()
                .or_else(|_| t.parse::<i32>().map(|v| v as u32))
                .map_err(|_| bad(format!("{t:?} is not a 32-bit integer in _Filter {text:?}")))
        });
        let id = nums
            .next()
            .ok_or_else(|| bad(format!("empty filter in {text:?}")))??;
        specs.push(FilterSpec {
            id,
            params: nums.collect::<Result<_>>()?,
        });
    }
    Ok(specs)
}

/// Formats filters as `_Filter` text.
pub fn format_filter_attr(specs: &[FilterSpec]) -> String {
    specs
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("|")
}

fn param(id: u32, params: &[u32], i: usize, name: &'static str) -> Result<u32> {
    params.get(i).copied().ok_or_else(|| {
        CodecError::invalid_config(
            name,
            format!("HDF5 filter {id} needs parameter {i}, got {params:?}"),
        )
    })
}

impl Codec {
    /// Builds a codec from an HDF5 filter id and its parameters.
    /// szip gives [`CodecError::Unsupported`]; other unknown ids give
    /// [`CodecError::UnknownCodec`] with the id as text.
    pub fn from_hdf5(id: u32, params: &[u32], ctx: &CodecContext<'_>) -> Result<Codec> {
        Ok(match id {
            H5Z_FILTER_DEFLATE => Codec::Zlib {
                level: param(id, params, 0, "zlib")?.min(9),
            },
            H5Z_FILTER_SHUFFLE => Codec::Shuffle(Shuffle::new(
                params.first().copied().unwrap_or(0) as usize,
                ctx.element_size,
            )),
            H5Z_FILTER_FLETCHER32 => Codec::Fletcher32,
            H5Z_FILTER_SZIP => {
                return Err(CodecError::unsupported(
                    "szip",
                    "szip compression (HDF5 filter 4)",
                ))
            }
            H5Z_FILTER_BZIP2 => Codec::Bz2 {
                level: param(id, params, 0, "bz2")?.clamp(1, 9),
            },
            H5Z_FILTER_ZSTD => Codec::Zstd {
                level: param(id, params, 0, "zstd")? as i32,
                checksum: false,
            },
            H5Z_FILTER_LZ4 => Codec::Lz4Hdf5 {
                block_size: params.first().copied().unwrap_or(0),
            },
            H5Z_FILTER_BLOSC => {
                let typesize = params
                    .get(2)
                    .copied()
                    .filter(|t| *t > 0)
                    .map(|t| t as usize);
                Codec::Blosc(Blosc {
                    cname: BloscCompressor::from_code(param(id, params, 6, "blosc")?)?,
                    clevel: param(id, params, 4, "blosc")?.min(9) as u8,
                    shuffle: BloscShuffle::from_int(i64::from(
                        param(id, params, 5, "blosc")? as i32
                    ))?,
                    blocksize: param(id, params, 3, "blosc")? as usize,
                    typesize: typesize.or(ctx.element_size),
                })
            }
            other => {
                return Err(CodecError::UnknownCodec {
                    id: other.to_string(),
                })
            }
        })
    }

    /// The HDF5 filter id and visible parameters netCDF-C would record for
    /// this codec; codecs without an HDF5 filter give [`CodecError::Unsupported`].
    pub fn to_hdf5(&self) -> Result<FilterSpec> {
        let (id, params) = match self {
            Codec::Zlib { level } => (H5Z_FILTER_DEFLATE, vec![*level]),
            Codec::Shuffle(_) => (H5Z_FILTER_SHUFFLE, vec![]),
            Codec::Fletcher32 => (H5Z_FILTER_FLETCHER32, vec![]),
            Codec::Bz2 { level } => (H5Z_FILTER_BZIP2, vec![*level]),
            Codec::Zstd { level, .. } => (H5Z_FILTER_ZSTD, vec![*level as u32]),
            Codec::Lz4Hdf5 { block_size } => (H5Z_FILTER_LZ4, vec![*block_size]),
            Codec::Blosc(b) => (
                H5Z_FILTER_BLOSC,
                vec![
                    0,
                    0,
                    b.typesize.unwrap_or(0) as u32,
                    b.blocksize as u32,
                    u32::from(b.clevel),
                    b.shuffle.resolve(b.typesize.unwrap_or(1)).to_int() as u32,
                    b.cname.code(),
                ],
            ),
            other => {
                return Err(CodecError::unsupported(
                    other.id(),
                    "no HDF5 filter id for this codec",
                ))
            }
        };
        Ok(FilterSpec { id, params })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filter_text_roundtrip() {
        let specs = parse_filter_attr("307,9|4,32,32").unwrap();
        assert_eq!(
            specs[0],
            FilterSpec {
                id: 307,
                params: vec![9]
            }
        );
        assert_eq!(
            specs[1],
            FilterSpec {
                id: 4,
                params: vec![32, 32]
            }
        );
        assert_eq!(format_filter_attr(&specs), "307,9|4,32,32");
        assert_eq!(
            parse_filter_attr("3").unwrap(),
            vec![FilterSpec {
                id: 3,
                params: vec![]
            }]
        );
        assert!(parse_filter_attr("1,x").is_err());
        assert!(parse_filter_attr("").is_err());
    }

    #[test]
    fn codecs_from_filters() {
        let ctx = CodecContext::new(4);
        let z = Codec::from_hdf5(1, &[5], &ctx).unwrap();
        assert_eq!(z, Codec::Zlib { level: 5 });
        assert_eq!(z.to_hdf5().unwrap().to_string(), "1,5");
        let b = Codec::from_hdf5(32001, &[0, 0, 4, 0, 5, 1, 1], &ctx).unwrap();
        let Codec::Blosc(bl) = &b else { panic!() };
        assert_eq!(
            (bl.cname, bl.clevel, bl.typesize),
            (BloscCompressor::Lz4, 5, Some(4))
        );
        assert_eq!(b.to_hdf5().unwrap().to_string(), "32001,0,0,4,0,5,1,1");
        assert!(matches!(
            Codec::from_hdf5(4, &[32, 32], &ctx),
            Err(CodecError::Unsupported { .. })
        ));
        assert!(matches!(
            Codec::from_hdf5(99999, &[], &ctx),
            Err(CodecError::UnknownCodec { .. })
        ));
        let s = Codec::from_hdf5(2, &[], &ctx).unwrap();
        assert_eq!(s.to_json()["elementsize"], 4);
    }
}
