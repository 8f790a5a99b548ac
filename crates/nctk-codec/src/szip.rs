//! HDF5's szip filter (id 4), decoded by the crate's own CCSDS 121.0-B-3
//! decoder ([`crate::aec`]).
//!
//! The framing is HDF5's (`H5Zszip.c`): a 4-byte little-endian decoded size,
//! then the AEC stream as libaec's SZIP compatibility layer
//! (`SZ_BufftoBuffDecompress`) writes it:
//!
//! * options mask bit 16 (MSB) means big-endian samples, bit 32 (NN) the
//!   nearest-neighbour preprocessor; the other bits (EC, chip, raw, K13,
//!   LSB) change nothing in the stream;
//! * one reference sample interval per scanline: `ceil(pps / ppb)` blocks;
//! * a scanline whose pixel count is not a multiple of the block size is
//!   padded to whole blocks (the padding is dropped after decoding);
//! * 32- and 64-bit pixels are coded as 8-bit samples of the byte-planar
//!   (HDF5-shuffled) buffer.

use crate::aec::{self, AecParams};
use crate::error::{CodecError, Result};
use crate::shuffle::unshuffle;

const NAME: &str = "szip";
/// `SZ_MSB_OPTION_MASK`: samples are big-endian.
const MSB_OPTION_MASK: u32 = 16;
/// `SZ_NN_OPTION_MASK`: nearest-neighbour preprocessing.
const NN_OPTION_MASK: u32 = 32;
/// The most blocks per reference sample interval (libaec's limit).
const MAX_BLOCKS_PER_INTERVAL: u32 = 4096;

/// HDF5's szip filter with the four parameters HDF5 stores in the file
/// (after `H5Z_set_local_szip`), in HDF5's order (`H5Z_SZIP_PARM_*`):
/// options mask, pixels per block, bits per pixel, pixels per scanline.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Szip {
    /// `SZ_*_OPTION_MASK` bits (16 MSB, 32 NN, 4 EC, 8 LSB, ...).
    pub mask: u32,
    /// Bits per pixel: 1-16, 25-32 or 64.
    pub bits_per_pixel: u32,
    /// Pixels per block: even, 2-64.
    pub pixels_per_block: u32,
    /// Pixels per scanline (one reference sample interval each).
    pub pixels_per_scanline: u32,
}

impl Szip {
    /// Builds the filter from HDF5's four stored parameters, checking them.
    /// netCDF-C's two visible ones (mask, pixels per block) are not enough:
    /// [`CodecError::Unsupported`].
    pub fn from_hdf5(params: &[u32]) -> Result<Szip> {
        let &[mask, pixels_per_block, bits_per_pixel, pixels_per_scanline] = params else {
            if params.len() == 2 {
                return Err(CodecError::unsupported(
                    NAME,
                    format!(
                        "szip with netCDF-C's two parameters {params:?}: decoding needs the four \
                         HDF5 stores (mask, pixels per block, bits per pixel, pixels per scanline)"
                    ),
                ));
            }
            return Err(CodecError::invalid_config(
                NAME,
                format!("HDF5 filter 4 takes 4 parameters, got {params:?}"),
            ));
        };
        let bad = |why: String| Err(CodecError::invalid_config(NAME, why));
        match bits_per_pixel {
            1..=16 | 25..=32 | 64 => {}
            17..=24 => {
                return Err(CodecError::unsupported(
                    NAME,
                    format!("{bits_per_pixel} bits per pixel (4-byte containers of 17-24 bits)"),
                ))
            }
            n => return bad(format!("{n} bits per pixel (1-32 or 64)")),
        }
        if pixels_per_block % 2 != 0 || !(2..=64).contains(&pixels_per_block) {
            return bad(format!("{pixels_per_block} pixels per block (even, 2-64)"));
        }
        // HDF5 never makes a scanline shorter than a block, so padding a
        // scanline to whole blocks less than doubles it
        if pixels_per_scanline < pixels_per_block
            || pixels_per_scanline.div_ceil(pixels_per_block) > MAX_BLOCKS_PER_INTERVAL
        {
            return bad(format!(
                "{pixels_per_scanline} pixels per scanline (1 to {MAX_BLOCKS_PER_INTERVAL} \
                 blocks of {pixels_per_block})"
            ));
        }
        Ok(Szip {
            mask,
            bits_per_pixel,
            pixels_per_block,
            pixels_per_scanline,
        })
    }

    /// The four parameters as HDF5 stores them.
    pub fn to_hdf5(&self) -> Vec<u32> {
        vec![
            self.mask,
            self.pixels_per_block,
            self.bits_per_pixel,
            self.pixels_per_scanline,
        ]
    }

    /// Whether pixels are coded as the bytes of a byte-planar buffer.
    fn interleaved(&self) -> bool {
        matches!(self.bits_per_pixel, 32 | 64)
    }

    /// The AEC parameters (with the bytes of one coded sample).
    fn aec(&self) -> AecParams {
        let bits = if self.interleaved() {
            8
        } else {
            self.bits_per_pixel
        };
        AecParams {
            bits,
            block: self.pixels_per_block as usize,
            rsi: self.pixels_per_scanline.div_ceil(self.pixels_per_block) as usize,
            preprocess: self.mask & NN_OPTION_MASK != 0,
            msb: self.mask & MSB_OPTION_MASK != 0,
            width: bits.div_ceil(8).next_power_of_two() as usize,
        }
    }

    /// Decodes one HDF5 szip chunk into exactly `out`.
    pub(crate) fn decode_into(&self, input: &[u8], out: &mut [u8]) -> Result<()> {
        let Some((size, _)) = input.split_first_chunk::<4>() else {
            return Err(CodecError::Truncated {
                codec: NAME,
                offset: 0,
                needed: 4,
                available: input.len(),
            });
        };
        let declared = u32::from_le_bytes(*size) as usize;
        if declared != out.len() {
            return Err(CodecError::size(NAME, out.len(), declared));
        }
        let params = self.aec();
        let sample = params.width;
        let pixel = if self.interleaved() {
            self.bits_per_pixel as usize / 8
        } else {
            sample
        };
        if out.len() % pixel != 0 {
            return Err(CodecError::InvalidLength {
                codec: NAME,
                len: out.len(),
                reason: format!("not a whole number of {pixel}-byte pixels"),
            });
        }
        let line = self.pixels_per_scanline as usize * sample;
        let padded_line = params.rsi * params.block * sample;
        let lines = out.len().div_ceil(line);
        let decoded_len = if padded_line == line {
            out.len()
        } else {
            // less than twice the output (a scanline holds a block)
            padded_line * lines
        };
        let mut decoded = Vec::new();
        let whole: &mut [u8] = if decoded_len == out.len() && !self.interleaved() {
            out
        } else {
            decoded.resize(decoded_len, 0);
            &mut decoded
        };
        // offsets in errors count from the start of the chunk
        aec::decode(input, size.len(), &params, whole)?;
        if decoded.is_empty() {
            return Ok(()); // decoded straight into `out`
        }
        if padded_line == line {
            unshuffle(pixel, &decoded, out);
            return Ok(());
        }
        let mut planar = Vec::new();
        let dst: &mut [u8] = if self.interleaved() {
            planar.resize(out.len(), 0);
            &mut planar
        } else {
            out
        };
        for (to, from) in dst.chunks_mut(line).zip(decoded.chunks(padded_line)) {
            to.copy_from_slice(&from[..to.len()]);
        }
        if self.interleaved() {
            unshuffle(pixel, &planar, out);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_are_checked() {
        let ok = Szip::from_hdf5(&[141, 8, 32, 20]).unwrap();
        assert_eq!((ok.pixels_per_block, ok.bits_per_pixel), (8, 32));
        assert_eq!(ok.to_hdf5(), vec![141, 8, 32, 20]);
        assert!(matches!(
            Szip::from_hdf5(&[4, 32]),
            Err(CodecError::Unsupported { .. })
        ));
        assert!(matches!(
            Szip::from_hdf5(&[4, 8, 24, 20]),
            Err(CodecError::Unsupported { .. })
        ));
        for bad in [
            &[4u32, 8, 32][..],
            &[4, 8, 0, 20],
            &[4, 8, 48, 20],
            &[4, 7, 8, 20],
            &[4, 0, 8, 20],
            &[4, 66, 8, 20],
            &[4, 8, 8, 0],
            &[4, 8, 8, 6],
            &[4, 2, 8, 8194],
        ] {
            assert!(
                matches!(Szip::from_hdf5(bad), Err(CodecError::InvalidConfig { .. })),
                "{bad:?}"
            );
        }
    }
}
