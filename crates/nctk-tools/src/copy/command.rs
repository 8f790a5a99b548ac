//! `nctk copy`: nccopy with nccopy's flags.
//!
//! [`CopyArgs`] parses the flags (with clap; `-h` is the chunk cache size,
//! as in nccopy, so help is `--help`), [`CopyArgs::to_options`] turns them
//! into [`CopyOptions`] with nccopy's checks and messages, and [`run_copy`]
//! copies, drawing a progress bar on stderr when stderr is a terminal.

use std::io::IsTerminal;

use super::{
    copy, parse_deflate_level, parse_kind, parse_size, split_list, CopyError, CopyOptions,
    CopySummary, GroupList, NoProgress, Progress, VarList,
};
use clap::{ArgAction, Args};
use indicatif::{ProgressBar, ProgressStyle};
use nctk::Format;

/// nccopy's command line.
#[derive(Debug, Clone, Default, PartialEq, Eq, Args)]
#[command(disable_help_flag = true)]
pub struct CopyArgs {
    /// Output kind: classic/nc3/1, 64-bit offset/nc6/2, cdf5/nc5/5,
    /// netCDF-4/nc4/3, netCDF-4 classic model/nc7/4 (default: the input's;
    /// netCDF-4 kinds are written as NCZarr/Zarr stores).
    #[arg(short = 'k', value_name = "kind")]
    pub kind: Option<String>,
    /// Classic output (same as -k classic).
    #[arg(short = '3', conflicts_with_all = ["kind", "k4", "k5", "k6", "k7"])]
    pub k3: bool,
    /// netCDF-4 output, as an NCZarr/Zarr store (same as -k netCDF-4).
    #[arg(short = '4', conflicts_with_all = ["kind", "k5", "k6", "k7"])]
    pub k4: bool,
    /// CDF-5 output (same as -k cdf5).
    #[arg(short = '5', conflicts_with_all = ["kind", "k6", "k7"])]
    pub k5: bool,
    /// 64-bit offset output (same as -k '64-bit offset').
    #[arg(short = '6', conflicts_with_all = ["kind", "k7"])]
    pub k6: bool,
    /// netCDF-4 classic model output (same as -k nc7).
    #[arg(short = '7', conflicts_with = "kind")]
    pub k7: bool,
    /// Deflate level 0..9 (netCDF-4 output only).
    #[arg(short = 'd', value_name = "n")]
    pub deflate: Option<String>,
    /// Shuffle before deflating (netCDF-4 output only).
    #[arg(short = 's')]
    pub shuffle: bool,
    /// Chunking: "var:n1,n2,..." or "dim1/n1,dim2/n2,..." (netCDF-4 output only).
    #[arg(short = 'c', value_name = "chunkspec")]
    pub chunkspecs: Vec<String>,
    /// Make unlimited dimensions fixed in the output.
    #[arg(short = 'u')]
    pub fix_unlimited: bool,
    /// Build the output in memory, write it out at the end.
    #[arg(short = 'w')]
    pub write_in_memory: bool,
    /// Data only for these variables (definitions for all).
    #[arg(short = 'v', value_name = "var1,...", conflicts_with = "vars_only")]
    pub vars: Option<String>,
    /// Definitions and data only for these variables.
    #[arg(short = 'V', value_name = "var1,...")]
    pub vars_only: Option<String>,
    /// Data only for variables in these groups (definitions for all).
    #[arg(short = 'g', value_name = "grp1,...", conflicts_with = "groups_only")]
    pub groups: Option<String>,
    /// Definitions and data only for these groups.
    #[arg(short = 'G', value_name = "grp1,...")]
    pub groups_only: Option<String>,
    /// Copy buffer size in bytes, with optional K, M, G, T, P (default 5000000).
    #[arg(short = 'm', value_name = "n")]
    pub buffer: Option<String>,
    /// Chunk cache in bytes (netCDF-4 output only): output chunks held while
    /// written in part (default: the larger of -m and 36 MiB); room for a
    /// row of chunks lets slabs read whole input rows.
    #[arg(short = 'h', value_name = "n")]
    pub chunk_cache: Option<String>,
    /// Chunk cache elements (netCDF-4 output only).
    #[arg(short = 'e', value_name = "n")]
    pub chunk_cache_elems: Option<String>,
    /// Read the whole input into memory first.
    #[arg(short = 'r')]
    pub read_in_memory: bool,
    /// Filters for output variables: "var,id,params|id,params", "var1&var2,...",
    /// "*,..." or "none"; ids or names (deflate, shuffle, zstd, blosc, ...) or
    /// numcodecs JSON (may be repeated; netCDF-4 only).
    #[arg(short = 'F', value_name = "filterspec")]
    pub filters: Vec<String>,
    /// Log level (accepted, ignored).
    #[arg(short = 'L', value_name = "n")]
    pub log_level: Option<String>,
    /// Minimum chunk size in bytes (netCDF-4 output only).
    #[arg(short = 'M', value_name = "n")]
    pub min_chunk: Option<String>,
    /// Uncommon flags: `-Xf` pre-fills the output with fill values.
    #[arg(short = 'X', value_name = "flag")]
    pub extra: Vec<String>,
    /// Store output: also write chunks that hold only the fill value (by
    /// default they are left out and read as fill, as zarr-python's
    /// write_empty_chunks=False).
    #[arg(short = 'Z')]
    pub write_empty_chunks: bool,
    /// Experimental chunk cache estimates (accepted, ignored).
    #[arg(short = 'x')]
    pub experimental: bool,
    /// Print help.
    #[arg(long = "help", action = ArgAction::Help)]
    pub help: Option<bool>,
    /// The input: a classic file, an NCZarr/Zarr directory or zip store, or
    /// a netCDF-C URL.
    pub input: String,
    /// The output: a classic file, or an NCZarr/Zarr store named by a
    /// netCDF-C URL (file:///abs/out.zarr#mode=nczarr,file; zarr, zip,
    /// nczarr490, consolidated modes) or a path ending in .zarr or .zip.
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
        let kind = match &self.kind {
            Some(k) => Some(parse_kind(k)?),
            None => numeric,
        };
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
            deflate: self
                .deflate
                .as_deref()
                .map(parse_deflate_level)
                .transpose()?,
            shuffle: self.shuffle,
            chunkspecs: self.chunkspecs.clone(),
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
        })
    }
}

/// A progress bar on stderr, in bytes.
struct Bar(ProgressBar);

impl Progress for Bar {
    fn start(&mut self, total_bytes: u64) {
        self.0.set_length(total_bytes);
    }

    fn advance(&mut self, var: &str, bytes: u64) {
        self.0.set_message(var.to_string());
        self.0.inc(bytes);
    }

    fn finish(&mut self) {
        self.0.finish_and_clear();
    }
}

/// Runs `nctk copy`: a progress bar on stderr when it is a terminal,
/// nothing otherwise; one warning on stderr when the input's data stopped
/// before the end its header implies (the missing values were copied as
/// fill values, as `nctk dump` shows them).
pub fn run_copy(args: &CopyArgs) -> Result<CopySummary, CopyError> {
    let summary = copy_with_progress(args)?;
    if let Some(end) = summary.input_data_ends_at {
        eprintln!(
            "nctk copy: warning: {}: the data stops at byte {end}, before the end the header \
             implies; the missing values were copied as fill values",
            args.input
        );
    }
    Ok(summary)
}

fn copy_with_progress(args: &CopyArgs) -> Result<CopySummary, CopyError> {
    let opts = args.to_options()?;
    if std::io::stderr().is_terminal() {
        let bar = ProgressBar::new(0);
        bar.set_style(
            ProgressStyle::with_template(
                "{bar:40} {bytes}/{total_bytes} {binary_bytes_per_sec} {eta} {wide_msg}",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        copy(&args.input, &args.output, &opts, &mut Bar(bar))
    } else {
        copy(&args.input, &args.output, &opts, &mut NoProgress)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        args: CopyArgs,
    }

    fn parse(args: &[&str]) -> CopyArgs {
        Cli::try_parse_from(std::iter::once("copy").chain(args.iter().copied()))
            .unwrap()
            .args
    }

    #[test]
    fn nccopy_flags_parse() {
        let a = parse(&[
            "-k", "nc6", "-d", "5", "-s", "-c", "x/2", "-c", "t:1,3", "-u", "-V", "a,b", "-m",
            "1M", "-h", "2M", "-e", "100", "-Xf", "in.nc", "out.nc",
        ]);
        let o = a.to_options().unwrap();
        assert_eq!(o.kind, Some(Format::Offset64));
        assert_eq!(o.deflate, Some(5));
        assert!(o.shuffle && o.fix_unlimited && o.fill);
        assert_eq!(o.chunkspecs, vec!["x/2", "t:1,3"]);
        assert_eq!(
            o.vars,
            Some(VarList {
                names: vec!["a".into(), "b".into()],
                definitions_too: true
            })
        );
        assert_eq!(o.buffer_size, 1_000_000);
        assert_eq!(o.chunk_cache_size, Some(2_000_000));
        assert_eq!((a.input.as_str(), a.output.as_str()), ("in.nc", "out.nc"));
        assert_eq!(
            parse(&["-5", "a", "b"]).to_options().unwrap().kind,
            Some(Format::Cdf5)
        );
        assert_eq!(
            parse(&["-k", "64-bit offset", "a", "b"])
                .to_options()
                .unwrap()
                .kind,
            Some(Format::Offset64)
        );
    }

    #[test]
    fn copies_to_stores_and_back() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("in.nc");
        let mut s = nctk_model::Schema::new();
        let r = nctk_model::GroupId::ROOT;
        let x = s.add_dim(r, "x", 4, false).unwrap();
        let v = s.add_var(r, "v", nctk_model::DataType::Int, &[x]).unwrap();
        let mut w = nctk_classic::ClassicWriter::create_in_with_schema(
            nctk::door::create_file(&input).unwrap(),
            &s,
            nctk_classic::Version::Cdf1,
            nctk_classic::FillMode::NoFill,
        )
        .unwrap();
        w.write_from(v, &nctk_model::Selection::all(&[4]), &[1i32, 2, 3, 4])
            .unwrap();
        w.close().unwrap();
        let path = |p: &std::path::Path| p.display().to_string();
        let store = dir.path().join("out.zarr");
        let url = format!("file://{}#mode=nczarr,file", store.display());
        let back = dir.path().join("back.nc");
        for args in [
            vec!["-4", "-d", "1", "-s", &path(&input), &url],
            vec!["-k", "classic", &url, &path(&back)],
        ] {
            let summary = run_copy(&parse(&args)).unwrap();
            assert_eq!(summary.variables, 1);
        }
        assert!(std::fs::read_to_string(store.join("v/.zarray"))
            .unwrap()
            .contains("zlib"));
        assert_eq!(
            std::fs::read(&input).unwrap(),
            std::fs::read(&back).unwrap()
        );
    }

    #[test]
    fn bad_values_give_nccopy_messages() {
        let msg = |args: &[&str]| parse(args).to_options().unwrap_err().to_string();
        assert_eq!(msg(&["-k", "foo", "a", "b"]), "invalid output format: foo");
        assert_eq!(msg(&["-d", "12", "a", "b"]), "invalid deflation level: 12");
        assert_eq!(
            msg(&["-m", "1Q", "a", "b"]),
            "Suffix used for '-m' option value must be K, M, G, T, or P"
        );
        assert_eq!(msg(&["-Xq", "a", "b"]), "-X unknown sub-flag");
    }
}
