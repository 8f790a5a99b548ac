//! The closed set of codecs, built from numcodecs JSON.

use serde_json::Value;

use crate::blosc::Blosc;
use crate::dtype::{Dtype, NumpyDtype};
use crate::error::{CodecError, Result};
use crate::filters::{
    bitround::BitRound, delta::Delta, fixedscaleoffset::FixedScaleOffset, quantize::Quantize,
};
use crate::json::{object, Config};
use crate::shuffle::Shuffle;
use crate::szip::Szip;
use crate::{bz2, crc32c_codec, deflate, fletcher32, lz4, zstd_codec};

/// What a codec may need to know about the array whose chunks it encodes.
///
/// numcodecs takes these from the numpy array handed to `encode`; here they
/// are given once, when the codec is built:
///
/// * `shuffle` with `elementsize: 0` (netCDF-C's spelling) uses `element_size`;
/// * `blosc` uses `element_size` as its typesize when encoding (decoding reads
///   it from each buffer's header);
/// * `bitround` uses `dtype` to know the float width when encoding.
///
/// Codecs whose JSON names a dtype (delta, fixedscaleoffset, quantize) ignore
/// the context.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CodecContext<'a> {
    /// Size in bytes of one array element.
    pub element_size: Option<usize>,
    /// The array's numpy dtype string, e.g. `"<f4"`.
    pub dtype: Option<&'a str>,
}

impl<'a> CodecContext<'a> {
    /// A context knowing only the element size.
    pub fn new(element_size: usize) -> Self {
        CodecContext {
            element_size: Some(element_size),
            dtype: None,
        }
    }

    /// A context from a numpy dtype string; the element size follows from it
    /// when it is a plain numeric type (`"<f4"` gives 4, `"|S10"` gives 10).
    pub fn from_dtype(dtype: &'a str) -> Self {
        let size = NumpyDtype::parse(dtype).and_then(|d| usize::try_from(d.itemsize()).ok());
        CodecContext {
            element_size: size,
            dtype: Some(dtype),
        }
    }

    fn parsed_dtype(&self) -> Option<Dtype> {
        self.dtype.and_then(|d| Dtype::parse("context", d).ok())
    }
}

/// One numcodecs codec with its parameters.
///
/// Build one with [`Codec::from_json`] (or [`Codec::from_json_with`] when the
/// array's element size matters), then call [`Codec::encode`] and
/// [`Codec::decode_into`] / [`Codec::decode`] per chunk. A `Codec` is
/// immutable, `Send` and `Sync`: share one across threads.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Codec {
    /// `zlib` (HDF5 deflate, filter 1): zlib-format deflate. Level 0-9.
    Zlib {
        /// Compression level 0-9 (numcodecs default 1).
        level: u32,
    },
    /// `gzip`: gzip-format deflate. Level 0-9.
    Gzip {
        /// Compression level 0-9 (numcodecs default 1).
        level: u32,
    },
    /// `bz2` (HDF5 filter 307). Level 1-9.
    Bz2 {
        /// Compression level 1-9 (numcodecs default 1).
        level: u32,
    },
    /// `zstd` (HDF5 filter 32015).
    Zstd {
        /// zstd level (numcodecs default 0 = zstd's default).
        level: i32,
        /// Whether frames carry a content checksum (written on encode).
        checksum: bool,
    },
    /// `lz4`: numcodecs framing (4-byte LE size, then one LZ4 block).
    Lz4 {
        /// LZ4 acceleration (kept for the JSON; the encoder has one speed).
        acceleration: i32,
    },
    /// `hdf5lz4` (HDF5 filter 32004): the HDF Group's LZ4 filter framing
    /// (original size u64 BE, block size u32 BE, then each block's
    /// compressed size u32 BE and bytes; a block stored as is when
    /// compressing does not shrink it).
    Lz4Hdf5 {
        /// Uncompressed bytes per block (0: the filter's default, 1 GiB).
        block_size: u32,
    },
    /// `blosc` (HDF5 filter 32001), Blosc1 format.
    Blosc(Blosc),
    /// `shuffle` (HDF5 filter 2): byte shuffle.
    Shuffle(Shuffle),
    /// `fletcher32` (HDF5 filter 3): 4-byte checksum appended.
    Fletcher32,
    /// `crc32c` (Zarr v3, numcodecs `crc32c`): 4-byte little-endian CRC-32C
    /// appended, checked when decoding.
    Crc32c,
    /// HDF5's szip filter (id 4): built only from HDF5 filter parameters
    /// ([`Codec::from_hdf5`]); decodes, does not encode.
    Szip(Szip),
    /// `delta`: differences of adjacent values.
    Delta(Delta),
    /// `fixedscaleoffset`: `round((x - offset) * scale)`.
    FixedScaleOffset(FixedScaleOffset),
    /// `bitround`: mantissa bit rounding (lossy; decode is the identity).
    BitRound(BitRound),
    /// `quantize`: decimal-digit quantization (lossy).
    Quantize(Quantize),
}

impl Codec {
    /// Builds a codec from its numcodecs JSON configuration, e.g.
    /// `{"id": "blosc", "cname": "lz4", "clevel": 5, "shuffle": 1, "blocksize": 0}`.
    /// Missing fields take numcodecs' defaults; integers written as strings
    /// (as netCDF-C does) are accepted.
    ///
    /// An `id` this crate does not implement gives [`CodecError::UnknownCodec`].
    pub fn from_json(config: &Value) -> Result<Codec> {
        Self::from_json_with(config, &CodecContext::default())
    }

    /// Like [`Codec::from_json`], with the array's element size and dtype.
    pub fn from_json_with(config: &Value, ctx: &CodecContext<'_>) -> Result<Codec> {
        let Value::Object(map) = config else {
            return Err(CodecError::invalid_config(
                "codec",
                format!("not a JSON object: {config}"),
            ));
        };
        let id = match map.get("id") {
            Some(Value::String(s)) => s.as_str(),
            _ => {
                return Err(CodecError::invalid_config(
                    "codec",
                    "missing string field \"id\"",
                ))
            }
        };
        let cfg = |name| Config::new(name, map);
        Ok(match id {
            "zlib" => Codec::Zlib {
                level: cfg("zlib").int_in("level", 1, 0, 9)? as u32,
            },
            "gzip" => Codec::Gzip {
                level: cfg("gzip").int_in("level", 1, 0, 9)? as u32,
            },
            "bz2" => Codec::Bz2 {
                level: cfg("bz2").int_in("level", 1, 1, 9)? as u32,
            },
            "zstd" => {
                let c = cfg("zstd");
                Codec::Zstd {
                    level: c.int_in("level", 0, -131_072, 22)? as i32,
                    checksum: c.bool_or("checksum", false)?,
                }
            }
            "lz4" => Codec::Lz4 {
                acceleration: cfg("lz4").int_in(
                    "acceleration",
                    1,
                    i64::from(i32::MIN),
                    i64::from(i32::MAX),
                )? as i32,
            },
            "hdf5lz4" => Codec::Lz4Hdf5 {
                block_size: cfg("hdf5lz4").int_in("blocksize", 0, 0, i64::from(u32::MAX))? as u32,
            },
            "blosc" => Codec::Blosc(Blosc::from_config(&cfg("blosc"), ctx.element_size)?),
            "shuffle" => Codec::Shuffle(Shuffle::from_config(&cfg("shuffle"), ctx.element_size)?),
            "fletcher32" => Codec::Fletcher32,
            "crc32c" => Codec::Crc32c,
            "delta" => Codec::Delta(Delta::from_config(&cfg("delta"))?),
            "fixedscaleoffset" => {
                Codec::FixedScaleOffset(FixedScaleOffset::from_config(&cfg("fixedscaleoffset"))?)
            }
            "bitround" => {
                Codec::BitRound(BitRound::from_config(&cfg("bitround"), ctx.parsed_dtype())?)
            }
            "quantize" => Codec::Quantize(Quantize::from_config(&cfg("quantize"))?),
            other => {
                return Err(CodecError::UnknownCodec {
                    id: other.to_string(),
                })
            }
        })
    }

    /// The configuration as numcodecs' `get_config()` writes it (field names,
    /// order and defaults of numcodecs 0.16).
    pub fn to_json(&self) -> Value {
        match self {
            Codec::Zlib { level } => object([("id", "zlib".into()), ("level", (*level).into())]),
            Codec::Gzip { level } => object([("id", "gzip".into()), ("level", (*level).into())]),
            Codec::Bz2 { level } => object([("id", "bz2".into()), ("level", (*level).into())]),
            Codec::Zstd { level, checksum } => object([
                ("id", "zstd".into()),
                ("level", (*level).into()),
                ("checksum", (*checksum).into()),
            ]),
            Codec::Lz4 { acceleration } => object([
                ("id", "lz4".into()),
                ("acceleration", (*acceleration).into()),
            ]),
            Codec::Lz4Hdf5 { block_size } => object([
                ("id", "hdf5lz4".into()),
                ("blocksize", (*block_size).into()),
            ]),
            Codec::Blosc(b) => b.to_json(),
            Codec::Shuffle(s) => s.to_json(),
            Codec::Fletcher32 => object([("id", "fletcher32".into())]),
            Codec::Crc32c => object([("id", "crc32c".into())]),
            // netCDF-C's NCZarr spelling of szip
            Codec::Szip(s) => object([
                ("id", "szip".into()),
                ("mask", s.mask.into()),
                ("pixels-per-block", s.pixels_per_block.into()),
            ]),
            Codec::Delta(d) => d.to_json(),
            Codec::FixedScaleOffset(f) => f.to_json(),
            Codec::BitRound(b) => b.to_json(),
            Codec::Quantize(q) => q.to_json(),
        }
    }

    /// The numcodecs id, e.g. `"blosc"`.
    pub fn id(&self) -> &'static str {
        match self {
            Codec::Zlib { .. } => "zlib",
            Codec::Gzip { .. } => "gzip",
            Codec::Bz2 { .. } => "bz2",
            Codec::Zstd { .. } => "zstd",
            Codec::Lz4 { .. } => "lz4",
            Codec::Lz4Hdf5 { .. } => "hdf5lz4",
            Codec::Blosc(_) => "blosc",
            Codec::Shuffle(_) => "shuffle",
            Codec::Fletcher32 => "fletcher32",
            Codec::Crc32c => "crc32c",
            Codec::Szip(_) => "szip",
            Codec::Delta(_) => "delta",
            Codec::FixedScaleOffset(_) => "fixedscaleoffset",
            Codec::BitRound(_) => "bitround",
            Codec::Quantize(_) => "quantize",
        }
    }

    /// The exact length `encode` gives for an input of `decoded_len` bytes,
    /// for codecs whose output length does not depend on the data (filters);
    /// `None` for compressors. Errors when `decoded_len` is not a whole
    /// number of elements for a typed filter.
    pub fn encoded_len(&self, decoded_len: usize) -> Result<Option<usize>> {
        Ok(match self {
            Codec::Shuffle(_) | Codec::BitRound(_) => Some(decoded_len),
            Codec::Fletcher32 | Codec::Crc32c => Some(decoded_len + 4),
            Codec::Delta(d) => Some(d.encoded_len(decoded_len)?),
            Codec::FixedScaleOffset(f) => Some(f.encoded_len(decoded_len)?),
            Codec::Quantize(q) => Some(q.encoded_len(decoded_len)?),
            _ => None,
        })
    }

    /// The exact length `decode` gives for an input of `encoded_len` bytes,
    /// for filters whose decoded length follows from the encoded one; `None`
    /// for compressors and filters that change the element type.
    pub fn decoded_len(&self, encoded_len: usize) -> Option<usize> {
        match self {
            Codec::Shuffle(_) | Codec::BitRound(_) => Some(encoded_len),
            // A too-short input is reported by the decoder itself.
            Codec::Fletcher32 | Codec::Crc32c => Some(encoded_len.saturating_sub(4)),
            _ => None,
        }
    }

    /// Encodes one buffer.
    pub fn encode(&self, input: &[u8]) -> Result<Vec<u8>> {
        match self {
            Codec::Zlib { level } => deflate::zlib_encode(input, *level),
            Codec::Gzip { level } => deflate::gzip_encode(input, *level),
            Codec::Bz2 { level } => bz2::encode(input, *level),
            Codec::Zstd { level, checksum } => zstd_codec::encode(input, *level, *checksum),
            Codec::Lz4 { .. } => lz4::encode(input),
            Codec::Lz4Hdf5 { block_size } => lz4::hdf5_encode(input, *block_size),
            Codec::Blosc(b) => b.encode(input),
            Codec::Shuffle(s) => s.encode(input),
            Codec::Fletcher32 => Ok(fletcher32::encode(input)),
            Codec::Crc32c => Ok(crc32c_codec::encode(input)),
            Codec::Szip(_) => Err(CodecError::unsupported("szip", "szip encoding")),
            Codec::Delta(d) => d.encode(input),
            Codec::FixedScaleOffset(f) => f.encode(input),
            Codec::BitRound(b) => b.encode(input),
            Codec::Quantize(q) => q.encode(input),
        }
    }

    /// Decodes `input` into exactly `out`: the decoded data must be exactly
    /// `out.len()` bytes, or this is an error. Nothing is allocated from sizes
    /// the stream claims beyond `out.len()`.
    pub fn decode_into(&self, input: &[u8], out: &mut [u8]) -> Result<()> {
        match self {
            Codec::Zlib { .. } => deflate::zlib_decode_into("zlib", input, out),
            Codec::Gzip { .. } => deflate::gzip_decode_into(input, out),
            Codec::Bz2 { .. } => bz2::decode_into(input, out),
            Codec::Zstd { .. } => {
                let mut d = zstd_codec::decompressor("zstd")?;
                zstd_codec::decode_into("zstd", &mut d, input, out)
            }
            Codec::Lz4 { .. } => lz4::decode_into(input, out),
            Codec::Lz4Hdf5 { .. } => lz4::hdf5_decode_into(input, out),
            Codec::Blosc(b) => b.decode_into(input, out),
            Codec::Shuffle(s) => s.decode_into(input, out),
            Codec::Fletcher32 => fletcher32::decode_into(input, out),
            Codec::Crc32c => crc32c_codec::decode_into(input, out),
            Codec::Szip(s) => s.decode_into(input, out),
            Codec::Delta(d) => d.decode_into(input, out),
            Codec::FixedScaleOffset(f) => f.decode_into(input, out),
            Codec::BitRound(_) => {
                if input.len() != out.len() {
                    return Err(CodecError::size("bitround", out.len(), input.len()));
                }
                out.copy_from_slice(input);
                Ok(())
            }
            Codec::Quantize(q) => q.decode_into(input, out),
        }
    }

    /// Decodes `input` whose decoded length is not known beforehand (a
    /// chunk of variable-length strings), refusing to produce more than
    /// `limit` bytes. Compressors stream into a growing buffer; codecs whose
    /// output length follows from the input (checksums, shuffle) decode
    /// exactly; other filters have no meaning for such data and are refused.
    pub fn decode_unsized(&self, input: &[u8], limit: usize) -> Result<Vec<u8>> {
        use crate::bounded::read_to_end_limited;
        let exact = |len: usize| -> Result<Vec<u8>> {
            if len > limit {
                return Err(CodecError::size(self.id(), limit, len));
            }
            self.decode(input, len)
        };
        match self {
            Codec::Zlib { .. } => {
                read_to_end_limited("zlib", flate2::read::ZlibDecoder::new(input), limit)
            }
            Codec::Gzip { .. } => {
                read_to_end_limited("gzip", flate2::read::MultiGzDecoder::new(input), limit)
            }
            Codec::Bz2 { .. } => {
                read_to_end_limited("bz2", bzip2::read::MultiBzDecoder::new(input), limit)
            }
            Codec::Zstd { .. } => {
                let d = zstd::stream::read::Decoder::with_buffer(input)
                    .map_err(|e| CodecError::library("zstd", "decode", e))?;
                read_to_end_limited("zstd", d, limit)
            }
            Codec::Lz4 { .. } => match input.get(..4) {
                Some(h) => exact(u32::from_le_bytes([h[0], h[1], h[2], h[3]]) as usize),
                None => Err(CodecError::Truncated {
                    codec: "lz4",
                    offset: 0,
                    needed: 4,
                    available: input.len(),
                }),
            },
            Codec::Blosc(_) => exact(crate::blosc::declared_size(input)?),
            c => match c.decoded_len(input.len()) {
                Some(len) => exact(len),
                None => Err(CodecError::unsupported(
                    c.id(),
                    "variable-length data (only compressors and checksums apply)",
                )),
            },
        }
    }

    /// Decodes into a new buffer of exactly `expected_len` bytes.
    pub fn decode(&self, input: &[u8], expected_len: usize) -> Result<Vec<u8>> {
        let mut out = vec![0u8; expected_len];
        self.decode_into(input, &mut out)?;
        Ok(out)
    }

    /// Whether this codec is lossless (encode then decode gives the input back).
    pub fn is_lossless(&self) -> bool {
        !matches!(
            self,
            Codec::BitRound(_) | Codec::Quantize(_) | Codec::FixedScaleOffset(_)
        )
    }
}
