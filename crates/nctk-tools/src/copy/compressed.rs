//! `nctk copy -k compressed`: a block-compressed classic output
//! (`docs/formats/compressed-classic.md`). Its options (`--codec`, `-d` as
//! the codec's level, shuffle, `--block-size`) are parsed here; a classic
//! input copied with no other change is compressed as it is
//! ([`nctk::compress_classic`], no uncompressed temporary), anything else
//! goes through the copier's plan into a classic writer whose file is
//! compressed when it is complete ([`nctk::ClassicOptions::compress`]).

use std::path::Path;

use nctk::{CodecId, CompressOptions, Container, Dataset};

use super::input::Input;
use super::{parse_size_named, plan, CopyError, CopyOptions, CopySummary, Progress};

/// The `-k` value that asks for a block-compressed classic output.
pub const COMPRESSED_KIND: &str = "compressed";

/// The largest `--block-size`: the format's limit of 256 MiB per block.
const MAX_BLOCK_SIZE: u64 = 256 << 20;

/// Parses `--codec` (`zstd`, `zlib`, `lz4`, `blosc`, `none`).
pub fn parse_codec(s: &str) -> Result<CodecId, CopyError> {
    CodecId::from_name(s).ok_or_else(|| {
        CopyError::Option(format!(
            "invalid codec: {s} (zstd, zlib, lz4, blosc or none)"
        ))
    })
}

/// Parses `-d` as `codec`'s level: zlib and blosc 0..=9, zstd -128..=22;
/// lz4 and none take no level.
pub fn parse_codec_level(s: &str, codec: CodecId) -> Result<i8, CopyError> {
    let range = match codec {
        CodecId::Zlib | CodecId::Blosc => 0..=9,
        CodecId::Zstd => -128..=22,
        _ => {
            return Err(CopyError::Option(format!(
                "-d {s}: codec {} takes no level",
                codec.name()
            )))
        }
    };
    match s.trim().parse::<i64>() {
        Ok(level) if range.contains(&level) => Ok(level as i8),
        _ => Err(CopyError::Option(format!(
            "invalid {} level: {s} ({} to {})",
            codec.name(),
            range.start(),
            range.end()
        ))),
    }
}

/// Parses `--block-size`: bytes with nccopy's optional K, M, G suffixes
/// (powers of 1000, as `-m`), at least 1 and at most 256 MiB.
pub fn parse_block_size(s: &str) -> Result<u64, CopyError> {
    let bytes = parse_size_named(s, "--block-size")? as u64;
    if (1..=MAX_BLOCK_SIZE).contains(&bytes) {
        Ok(bytes)
    } else {
        Err(CopyError::Option(format!(
            "invalid block size: {s} (1 to {MAX_BLOCK_SIZE} bytes)"
        )))
    }
}

/// The compressed-output flags as given on the command line.
#[derive(Debug, Clone, Copy, Default)]
pub struct CompressFlags<'a> {
    /// `-k compressed` was given.
    pub compressed: bool,
    /// `--codec`.
    pub codec: Option<&'a str>,
    /// `-d`.
    pub level: Option<&'a str>,
    /// `--block-size`.
    pub block_size: Option<&'a str>,
    /// `--no-shuffle`.
    pub no_shuffle: bool,
}

impl CompressFlags<'_> {
    /// The options asked for: `None` without `-k compressed` (when
    /// `--codec`, `--block-size` or `--no-shuffle`, which mean nothing
    /// else, are refused).
    pub fn options(&self) -> Result<Option<CompressOptions>, CopyError> {
        if !self.compressed {
            if self.codec.is_some() || self.block_size.is_some() || self.no_shuffle {
                return Err(CopyError::Option(
                    "--codec, --block-size and --no-shuffle apply only to -k compressed".into(),
                ));
            }
            return Ok(None);
        }
        let defaults = CompressOptions::default();
        let codec = self.codec.map(parse_codec).transpose()?;
        let codec = codec.unwrap_or(defaults.codec);
        Ok(Some(CompressOptions {
            codec,
            level: self
                .level
                .map(|l| parse_codec_level(l, codec))
                .transpose()?,
            shuffle: !self.no_shuffle,
            block_bytes: self
                .block_size
                .map(parse_block_size)
                .transpose()?
                .unwrap_or(defaults.block_bytes),
        }))
    }
}

/// Refuses an output that cannot be a block-compressed file (a store, a
/// URL, an ncstream) and the copy options that mean nothing for one
/// (`-c`, `-F`: netCDF-4 storage).
pub(crate) fn check_options(opts: &CopyOptions, output: &Path) -> Result<(), CopyError> {
    Container::Compressed.check_output(output)?;
    if !opts.chunkspecs.is_empty() || opts.wants_filters() {
        return Err(CopyError::Option(
            "-c and -F choose netCDF-4 storage; -k compressed takes --codec, -d (the codec's \
             level), --block-size and --no-shuffle"
                .into(),
        ));
    }
    Ok(())
}

/// The input's dataset when the copy changes nothing but the container
/// (no `-v`, `-V`, `-g`, `-G`, `-u`) of a classic file (or a
/// block-compressed one), so it can be compressed as it is.
pub(crate) fn direct_input<'i>(input: &'i Input<'_>, opts: &CopyOptions) -> Option<&'i Dataset> {
    let plain = opts.vars.is_none() && opts.groups.is_none() && !opts.fix_unlimited;
    match input {
        Input::Owned { dataset, .. } if plain && input.kind().is_cdf() => matches!(
            dataset.container(),
            Some(Container::Classic(_) | Container::Compressed)
        )
        .then_some(dataset),
        _ => None,
    }
}

/// Compresses the classic input `dataset` as it is into `output`.
pub(crate) fn copy_direct(
    input: &Input<'_>,
    dataset: &Dataset,
    output: &Path,
    (opts, options): (&CopyOptions, &CompressOptions),
    progress: &mut dyn Progress,
) -> Result<CopySummary, CopyError> {
    let schema = input.schema();
    let plan = plan::build(schema, input.kind(), opts)?;
    let total = plan.total_bytes(schema);
    progress.start(total);
    let result = nctk::compress_classic_dataset(dataset, output, options);
    progress.finish();
    result.map_err(|e| e.into_output(output))?;
    Ok(CopySummary {
        kind: input.kind(),
        variables: plan.vars.len(),
        bytes: total,
        input_data_ends_at: input.source().data_ends_at(),
        stored_chunks: 0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codecs_levels_and_block_sizes() {
        assert_eq!(parse_codec("ZSTD").unwrap(), CodecId::Zstd);
        assert!(parse_codec("lzma")
            .unwrap_err()
            .to_string()
            .contains("lzma"));
        assert_eq!(parse_codec_level("19", CodecId::Zstd).unwrap(), 19);
        assert_eq!(parse_codec_level("-5", CodecId::Zstd).unwrap(), -5);
        assert!(parse_codec_level("10", CodecId::Zlib).is_err());
        assert!(parse_codec_level("1", CodecId::Lz4).is_err());
        assert_eq!(parse_block_size("64K").unwrap(), 64_000);
        assert_eq!(parse_block_size("4096").unwrap(), 4096);
        assert!(parse_block_size("0").is_err());
        assert!(parse_block_size("1G").is_err());
        assert!(parse_block_size("1Q")
            .unwrap_err()
            .to_string()
            .contains("--block-size"));
    }
}
