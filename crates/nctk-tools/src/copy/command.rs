//! `nctk copy`: nccopy with nccopy's flags.
//!
//! [`CopyArgs`] holds the flags (the `nctk` binary parses them with clap,
//! through this crate's `clap` feature; `-h` is the chunk cache size, as in
//! nccopy, so help is `--help`), [`CopyArgs::to_options`] turns them into
//! [`CopyOptions`] with nccopy's checks and messages, and [`run_copy`]
//! copies, reporting to a [`Progress`] (the binary's progress bar).

use super::compressed::{CompressFlags, COMPRESSED_KIND};
use super::{
    copy, parse_deflate_level, parse_kind, parse_size, split_list, CopyError, CopyOptions,
    CopySummary, GroupList, Progress, VarList,
};
use nctk::Format;

/// nccopy's command line.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
#[cfg_attr(feature = "clap", command(disable_help_flag = true))]
pub struct CopyArgs {
    /// Output kind: classic/nc3/1, 64-bit offset/nc6/2, cdf5/nc5/5,
    /// netCDF-4/nc4/3, netCDF-4 classic model/nc7/4, or compressed (a
    /// block-compressed classic file: see --codec, -d, --block-size)
    /// (default: the input's; netCDF-4 kinds are written as NCZarr/Zarr
    /// stores; an ncstream input copied to a plain path, or any non-classic
    /// input copied with -k compressed, gets the first classic kind that
    /// fits).
    #[cfg_attr(feature = "clap", arg(short = 'k', value_name = "kind"))]
    pub kind: Option<String>,
    /// Classic output (same as -k classic).
    #[cfg_attr(feature = "clap", arg(short = '3', conflicts_with_all = ["kind", "k4", "k5", "k6", "k7"]))]
    pub k3: bool,
    /// netCDF-4 output, as an NCZarr/Zarr store (same as -k netCDF-4).
    #[cfg_attr(feature = "clap", arg(short = '4', conflicts_with_all = ["kind", "k5", "k6", "k7"]))]
    pub k4: bool,
    /// CDF-5 output (same as -k cdf5).
    #[cfg_attr(feature = "clap", arg(short = '5', conflicts_with_all = ["kind", "k6", "k7"]))]
    pub k5: bool,
    /// 64-bit offset output (same as -k '64-bit offset').
    #[cfg_attr(feature = "clap", arg(short = '6', conflicts_with_all = ["kind", "k7"]))]
    pub k6: bool,
    /// netCDF-4 classic model output (same as -k nc7).
    #[cfg_attr(feature = "clap", arg(short = '7', conflicts_with = "kind"))]
    pub k7: bool,
    /// Deflate level 0..9 (netCDF-4 and ncstream output only; an ncstream
    /// deflates its data messages); with -k compressed, the codec's level
    /// (zstd -128..22, default 1; zlib 0..9, default 1; blosc 0..9,
    /// default 5; lz4 and none take none).
    #[cfg_attr(feature = "clap", arg(short = 'd', value_name = "n"))]
    pub deflate: Option<String>,
    /// Shuffle before deflating (netCDF-4 output only; -k compressed
    /// shuffles multi-byte values by default).
    #[cfg_attr(feature = "clap", arg(short = 's'))]
    pub shuffle: bool,
    /// -k compressed: the blocks' codec: zstd (default), zlib, lz4, blosc
    /// or none.
    #[cfg_attr(feature = "clap", arg(long = "codec", value_name = "codec"))]
    pub codec: Option<String>,
    /// -k compressed: uncompressed bytes per block at most, with optional
    /// K, M, G (powers of 1000, as -m), rounded down to whole rows of each
    /// variable (whole values when a row is larger); 1 to 256 MiB
    /// (default 1 MiB, 1048576).
    #[cfg_attr(feature = "clap", arg(long = "block-size", value_name = "n"))]
    pub block_size: Option<String>,
    /// -k compressed: do not byte-shuffle multi-byte values before
    /// compressing them.
    #[cfg_attr(feature = "clap", arg(long = "no-shuffle", conflicts_with = "shuffle"))]
    pub no_shuffle: bool,
    /// Chunking: "var:n1,n2,..." or "dim1/n1,dim2/n2,..." (netCDF-4 output only).
    #[cfg_attr(feature = "clap", arg(short = 'c', value_name = "chunkspec"))]
    pub chunkspecs: Vec<String>,
    /// Zarr v3 sharding (`#mode=zarr,v3` / `#mode=nczarr,v3` outputs):
    /// "var:n1,n2,..." or "dim1/n1,dim2/n2,..." as -c, each length rounded
    /// up to whole chunks; the chunks become the shards' inner chunks.
    #[cfg_attr(feature = "clap", arg(long = "shards", value_name = "shardspec"))]
    pub shards: Vec<String>,
    /// Make unlimited dimensions fixed in the output.
    #[cfg_attr(feature = "clap", arg(short = 'u'))]
    pub fix_unlimited: bool,
    /// Build the output in memory, write it out at the end.
    #[cfg_attr(feature = "clap", arg(short = 'w'))]
    pub write_in_memory: bool,
    /// Data only for these variables (definitions for all).
    #[cfg_attr(
        feature = "clap",
        arg(short = 'v', value_name = "var1,...", conflicts_with = "vars_only")
    )]
    pub vars: Option<String>,
    /// Definitions and data only for these variables.
    #[cfg_attr(feature = "clap", arg(short = 'V', value_name = "var1,..."))]
    pub vars_only: Option<String>,
    /// Data only for variables in these groups (definitions for all).
    #[cfg_attr(
        feature = "clap",
        arg(short = 'g', value_name = "grp1,...", conflicts_with = "groups_only")
    )]
    pub groups: Option<String>,
    /// Definitions and data only for these groups.
    #[cfg_attr(feature = "clap", arg(short = 'G', value_name = "grp1,..."))]
    pub groups_only: Option<String>,
    /// Copy buffer size in bytes, with optional K, M, G, T, P (default 5000000).
    #[cfg_attr(feature = "clap", arg(short = 'm', value_name = "n"))]
    pub buffer: Option<String>,
    /// Chunk cache in bytes (netCDF-4 output only): output chunks held while
    /// written in part (default: the larger of -m and 36 MiB); room for a
    /// row of chunks lets slabs read whole input rows.
    #[cfg_attr(feature = "clap", arg(short = 'h', value_name = "n"))]
    pub chunk_cache: Option<String>,
    /// Chunk cache elements (netCDF-4 output only).
    #[cfg_attr(feature = "clap", arg(short = 'e', value_name = "n"))]
    pub chunk_cache_elems: Option<String>,
    /// Read the whole input into memory first.
    #[cfg_attr(feature = "clap", arg(short = 'r'))]
    pub read_in_memory: bool,
    /// Filters for output variables: "var,id,params|id,params", "var1&var2,...",
    /// "*,..." or "none"; ids or names (deflate, shuffle, zstd, blosc, ...) or
    /// numcodecs JSON (may be repeated; netCDF-4 only).
    #[cfg_attr(feature = "clap", arg(short = 'F', value_name = "filterspec"))]
    pub filters: Vec<String>,
    /// Log level (accepted, ignored).
    #[cfg_attr(feature = "clap", arg(short = 'L', value_name = "n"))]
    pub log_level: Option<String>,
    /// Minimum chunk size in bytes (netCDF-4 output only).
    #[cfg_attr(feature = "clap", arg(short = 'M', value_name = "n"))]
    pub min_chunk: Option<String>,
    /// Uncommon flags: `-Xf` pre-fills the output with fill values.
    #[cfg_attr(feature = "clap", arg(short = 'X', value_name = "flag"))]
    pub extra: Vec<String>,
    /// Store output: also write chunks that hold only the fill value (by
    /// default they are left out and read as fill, as zarr-python's
    /// write_empty_chunks=False).
    #[cfg_attr(feature = "clap", arg(short = 'Z'))]
    pub write_empty_chunks: bool,
    /// Experimental chunk cache estimates (accepted, ignored).
    #[cfg_attr(feature = "clap", arg(short = 'x'))]
    pub experimental: bool,
    /// Print help.
    #[cfg(feature = "clap")]
    #[arg(long = "help", action = clap::ArgAction::Help)]
    pub help: Option<bool>,
    /// The input: a classic file, an NCZarr/Zarr directory or zip store, or
    /// a netCDF-C URL.
    pub input: String,
    /// The output: a classic file (block-compressed with -k compressed), or
    /// an NCZarr/Zarr store named by a
    /// netCDF-C URL (file:///abs/out.zarr#mode=nczarr,file; zarr, zip,
    /// nczarr490, consolidated modes) or a path ending in .zarr or .zip, or
    /// an ncstream: a path ending in .ncs, or - for standard output.
    pub output: String,
}

impl CopyArgs {
    /// The options these flags ask for, with nccopy's checks and messages.
    pub fn to_options(&self) -> Result<CopyOptions, CopyError> {
        let numeric = [
            (self.k3, Format::Classic),
            (self.k4, Format::Netcdf4),
            (self.k5, Format::Cdf5),
            (self.k6, Format::Offset64),
            (self.k7, Format::Netcdf4Classic),
        ]
        .into_iter()
        .find_map(|(on, kind)| on.then_some(kind));
        let compressed = self.kind.as_deref() == Some(COMPRESSED_KIND);
        let kind = match &self.kind {
            Some(_) if compressed => None,
            Some(k) => Some(parse_kind(k)?),
            None => numeric,
        };
        let compress = CompressFlags {
            compressed,
            codec: self.codec.as_deref(),
            level: self.deflate.as_deref(),
            block_size: self.block_size.as_deref(),
            no_shuffle: self.no_shuffle,
        }
        .options()?;
        let size = |s: &Option<String>, flag| s.as_deref().map(|s| parse_size(s, flag)).transpose();
        let mut fill = false;
        for x in &self.extra {
            match x.chars().next() {
                Some('f') => fill = true,
                None => {}
                Some(_) => return Err(CopyError::Option("-X unknown sub-flag".into())),
            }
        }
        let vars = match (&self.vars, &self.vars_only) {
            (Some(v), _) => Some(VarList {
                names: split_list(v),
                definitions_too: false,
            }),
            (None, Some(v)) => Some(VarList {
                names: split_list(v),
                definitions_too: true,
            }),
            (None, None) => None,
        };
        let groups = match (&self.groups, &self.groups_only) {
            (Some(g), _) => Some(GroupList {
                names: split_list(g),
                definitions_too: false,
            }),
            (None, Some(g)) => Some(GroupList {
                names: split_list(g),
                definitions_too: true,
            }),
            (None, None) => None,
        };
        Ok(CopyOptions {
            kind,
            // -k compressed takes -d as its codec's level, -s as its default.
            deflate: self
                .deflate
                .as_deref()
                .filter(|_| !compressed)
                .map(parse_deflate_level)
                .transpose()?,
            shuffle: self.shuffle && !compressed,
            chunkspecs: self.chunkspecs.clone(),
            shards: self.shards.clone(),
            filters: self.filters.clone(),
            fix_unlimited: self.fix_unlimited,
            vars,
            groups,
            buffer_size: size(&self.buffer, 'm')?.unwrap_or(super::DEFAULT_BUFFER_SIZE),
            chunk_cache_size: size(&self.chunk_cache, 'h')?,
            chunk_cache_elems: size(&self.chunk_cache_elems, 'e')?,
            min_chunk_bytes: self
                .min_chunk
                .as_deref()
                .map(|s| s.trim().parse::<usize>().unwrap_or(0)),
            write_in_memory: self.write_in_memory,
            read_in_memory: self.read_in_memory,
            fill,
            write_empty_chunks: self.write_empty_chunks,
            compress,
        })
    }
}

/// Runs `nctk copy`, telling the [`Progress`] that `progress` makes once
/// the flags are checked how it goes (a bad flag makes none); one warning
/// on stderr when the input's data stopped before the end its header
/// implies (the missing values were copied as fill values, as `nctk dump`
/// shows them).
pub fn run_copy(
    args: &CopyArgs,
    progress: impl FnOnce() -> Box<dyn Progress>,
) -> Result<CopySummary, CopyError> {
    let opts = args.to_options()?;
    let summary = copy(&args.input, &args.output, &opts, progress().as_mut())?;
    if let Some(end) = summary.input_data_ends_at {
        eprintln!(
            "nctk copy: warning: {}: the data stops at byte {end}, before the end the header \
             implies; the missing values were copied as fill values",
            args.input
        );
    }
    Ok(summary)
}
