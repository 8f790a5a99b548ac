//! `nctk gen`: netCDF-C's `ncgen` — CDL text to a binary netCDF file.
//!
//! The CDL is parsed by [`nctk_cdl::parse()`] for the chosen kind, checked
//! with [`nctk_cdl::check_format`] (rejecting what `ncgen -k` rejects, with
//! its messages) and written by the classic writer, which lays the file
//! out with netCDF-C's rules. The netCDF-4 kinds (`-k nc4`, `-4`,
//! `-k nc7`) are written as NCZarr / Zarr stores when the output is a
//! netCDF-C URL (`file:///abs/x.zarr#mode=nczarr,file`, `...#mode=zarr,zip`)
//! or a path ending in `.zarr` or `.zip`; netCDF-4/HDF5 files cannot be
//! written. Either is written under a temporary name and renamed into
//! place when complete ([`write_output`]), as `nctk copy` writes.

use std::path::{Path, PathBuf};

use nctk::model::KindNames;
use nctk::OutputError;
use nctk::{Container, CreateOptions, Format};
use nctk_cdl::parse::{check_format, parse, parse_with, CdlDataset, CdlError, ParseOptions};
use nctk_model::{string_width, ErrorKind, HasErrorKind, Layout, Selection, VarId, VarStorage};

use crate::enhanced::first_user_type;

/// ncgen's options that `nctk gen` supports.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GenArgs {
    /// `-k KIND` (`nc3`, `classic`, `nc6`, `64-bit offset`, `nc5`, `cdf5`,
    /// `nc4`, `netCDF-4`, `nc7`, ... or the digits `1`..`5`), or the
    /// numeric flags `-3`, `-6`, `-5`, `-4`, `-7` mapped to `nc3`..`nc7`.
    /// `None`: `_Format`, else what the CDL needs (as ncgen).
    pub kind: Option<String>,
    /// `-o FILE`: the output file (implies binary output).
    pub output: Option<PathBuf>,
    /// `-b`: write a binary file named after the dataset (`NAME.nc`).
    pub binary: bool,
    /// `-x`: do not pre-fill variables.
    pub no_fill: bool,
    /// `-N NAME`: the dataset name used for the default output file name.
    pub name: Option<String>,
}

/// What went wrong in `nctk gen`.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum GenError {
    /// `-k` names no kind.
    #[error("unknown kind {0:?} (try nc3, nc6, nc5, nc4 or nc7)")]
    UnknownKind(String),
    /// The CDL does not parse, or the kind cannot hold it.
    #[error("{0}")]
    Cdl(#[from] CdlError),
    /// The CDL defines user types and the output is an NCZarr/Zarr store,
    /// which cannot hold them (netCDF-C 4.9.0's NCZarr refuses them too).
    #[error(
        "{}: NCZarr/Zarr stores cannot hold user-defined types ({dtype}); \
         ncgen: {}", .output.display(), crate::enhanced::NOT_NETCDF4
    )]
    UserTypeInStore {
        /// The output.
        output: PathBuf,
        /// The first type, described.
        dtype: String,
    },
    /// Creating, writing or renaming the output into place failed.
    #[error(transparent)]
    Output(#[from] OutputError),
}

/// A kind `-k` does not name is bad input; a file or store nctk cannot
/// write unsupported; the CDL's and the output's errors have their own
/// kind.
impl HasErrorKind for GenError {
    fn kind(&self) -> ErrorKind {
        match self {
            GenError::UnknownKind(_) => ErrorKind::InvalidInput,
            GenError::Cdl(e) => e.kind(),
            GenError::UserTypeInStore { .. } => ErrorKind::Unsupported,
            GenError::Output(e) => e.kind(),
        }
    }
}

/// What `gen` did.
#[derive(Debug, Clone, PartialEq)]
pub struct GenOutcome {
    /// The kind used.
    pub kind: Format,
    /// The file written, or `None` when only the syntax was checked
    /// (neither `-b` nor `-o`, as ncgen).
    pub written: Option<PathBuf>,
}

/// The kind for a `-k` value or numeric flag name.
pub fn kind_from_arg(arg: &str) -> Option<Format> {
    match arg {
        "-3" => Some(Format::Classic),
        "-6" => Some(Format::Offset64),
        "-5" => Some(Format::Cdf5),
        "-4" => Some(Format::Netcdf4),
        "-7" => Some(Format::Netcdf4Classic),
        _ => Format::from_kind_name(arg, KindNames::Ncgen),
    }
}

/// Runs ncgen on `cdl_text`: parses, checks for the kind, and writes the
/// binary file when `-b` or `-o` asks for one (into `dir` when the output
/// name is relative or derived from the dataset name). The text is bytes,
/// as ncgen reads it: string values that are not UTF-8 go to the file as
/// they are.
pub fn gen(args: &GenArgs, cdl_text: impl AsRef<[u8]>, dir: &Path) -> Result<GenOutcome, GenError> {
    let cdl_text = cdl_text.as_ref();
    let given = match &args.kind {
        Some(k) => Some(kind_from_arg(k).ok_or_else(|| GenError::UnknownKind(k.clone()))?),
        None => None,
    };
    let kind = match given {
        Some(k) => k,
        None => parse(cdl_text)?.inferred_kind(),
    };
    let ds = parse_with(
        cdl_text,
        &ParseOptions {
            kind: Some(kind),
            keywords: Some(given.unwrap_or(Format::Classic)),
            ..ParseOptions::default()
        },
    )?;
    check_format(&ds, kind)?;
    let store = match &args.output {
        Some(o) if !kind.is_cdf() && is_store_target(&o.to_string_lossy()) => {
            let text = o.to_string_lossy();
            Some(if text.contains("://") {
                PathBuf::from(text.into_owned())
            } else {
                in_dir(dir, o)
            })
        }
        _ => None,
    };
    let out = match (store, &args.output, args.binary) {
        (Some(store), _, _) => store,
        (None, Some(o), _) => in_dir(dir, o),
        (None, None, true) => in_dir(
            dir,
            Path::new(&format!("{}.nc", args.name.as_deref().unwrap_or(&ds.name))),
        ),
        (None, None, false) => {
            return Ok(GenOutcome {
                kind,
                written: None,
            })
        }
    };
    write_output(&ds, kind, &out, args.no_fill)?;
    Ok(GenOutcome {
        kind,
        written: Some(out),
    })
}

/// `path` in `dir`, as the user named it when `dir` is the current one.
fn in_dir(dir: &Path, path: &Path) -> PathBuf {
    if dir == Path::new(".") {
        path.to_path_buf()
    } else {
        dir.join(path)
    }
}

/// Writes a parsed dataset to `output`: a classic-format file of the given
/// kind, or for the netCDF-4 kinds a netCDF-4/HDF5 file, or an NCZarr /
/// Zarr store when a netCDF-C URL or a `.zarr` / `.zip` path names one. The output is written under a
/// temporary name and renamed into place when complete, as `nctk copy`
/// writes ([`nctk::create_with`]).
pub fn write_output(
    ds: &CdlDataset,
    kind: Format,
    output: &Path,
    no_fill: bool,
) -> Result<(), GenError> {
    let container = if kind.is_cdf() {
        Container::Classic(kind)
    } else if is_store_target(&output.to_string_lossy()) {
        Container::Zarr
    } else {
        Container::Hdf5
    };
    if let (Container::Zarr, Some(dtype)) = (container, first_user_type(&ds.schema)) {
        return Err(GenError::UserTypeInStore {
            output: output.to_path_buf(),
            dtype,
        });
    }
    let opts = CreateOptions::new().fill(!no_fill);
    // A netCDF-4 file or a store takes each variable's storage from the
    // CDL; a classic file holds none of it (ncgen drops it so).
    let mut schema = ds.schema.clone();
    if !kind.is_cdf() {
        for v in ds.schema.var_ids() {
            let mut storage = var_storage(ds, v, no_fill);
            if container == Container::Hdf5
                && ds.var_special(v).storage == Some(nctk_cdl::parse::Storage::Compact)
            {
                storage.layout = Layout::Compact;
            }
            schema.var_mut(v).storage = storage;
        }
    }
    let err = |e: nctk::Error| e.into_output(output);
    let mut def = nctk::create_with(output, kind, opts).map_err(err)?;
    def.define_all(&schema).map_err(err)?;
    let mut out = def.end_define().map_err(err)?;
    for v in ds.schema.var_ids() {
        let Some(values) = ds.var_data(v) else {
            continue;
        };
        let shape = ds.schema.shape(v);
        if shape.contains(&0) {
            continue;
        }
        out.write(v, &Selection::all(&shape), values).map_err(err)?;
    }
    out.close().map_err(err)?;
    Ok(())
}

/// True when an output name asks for an NCZarr / Zarr store: a URL, a
/// fragment with `mode=`, or a path ending in `.zarr` or `.zip`.
/// (The same rule `nctk copy` uses: [`nctk::Container::for_output`].)
pub fn is_store_target(out: &str) -> bool {
    nctk::Container::for_output(std::path::Path::new(out), Format::Netcdf4) == Container::Zarr
}

/// The storage of `v` the CDL's special attributes ask for: `_ChunkSizes`,
/// `_Storage = "contiguous"` (one chunk in a store), `_DeflateLevel`,
/// `_Shuffle`, `_Fletcher32`, `_Filter`, `_Codecs`, `_Endianness`,
/// `_NoFill` (and `no_fill` for every variable); a string variable gets
/// room for its longest value (at least netCDF-C's 128 bytes) unless
/// `_nczarr_maxstrlen` or `_nczarr_default_maxstrlen` sets its width,
/// which then cuts longer values as ncgen does.
pub fn var_storage(ds: &CdlDataset, v: VarId, no_fill: bool) -> VarStorage {
    let sp = ds.var_special(v);
    let layout = match (&sp.chunk_sizes, sp.storage) {
        (Some(c), _) => Layout::Chunked(c.clone()),
        (None, Some(nctk_cdl::parse::Storage::Contiguous)) => Layout::Contiguous,
        _ => Layout::Unset,
    };
    let string_width = match ds.var_data(v) {
        _ if string_width::width_set_by_attributes(&ds.schema, v).is_some() => None,
        Some(nctk_model::Values::String(s)) => s
            .iter()
            .map(|s| s.as_ref().map_or(0, String::len))
            .max()
            .filter(|&n| n > string_width::DEFAULT_MAX_STRLEN),
        _ => None,
    };
    VarStorage {
        layout,
        deflate_level: sp.deflate_level.map(|l| l.clamp(0, 9) as u32),
        shuffle: sp.shuffle.unwrap_or(false),
        fletcher32: sp.fletcher32.unwrap_or(false),
        filters: sp.filter.clone(),
        codecs: sp.codecs.clone(),
        endianness: sp.endianness,
        no_fill: no_fill || sp.no_fill.unwrap_or(false),
        string_width,
        fill_value: None,
        shards: None,
    }
}

#[cfg(test)]
mod store_tests {
    use super::*;

    const CDL: &str = r#"netcdf t {
dimensions:
  time = UNLIMITED ;
  x = 3 ;
variables:
  float v(time, x) ;
    v:_FillValue = -1.f ;
    v:_ChunkSizes = 1, 2 ;
    v:_DeflateLevel = 3 ;
    v:_Shuffle = "true" ;
  string s(x) ;
data:
  v = 1, 2, 3, 4, 5, _ ;
  s = "a", "bb", "ccc" ;
group: g {
  variables:
    int w(x) ;
  data:
    w = 7, 8, 9 ;
}
}
"#;

    #[test]
    fn store_targets() {
        assert!(is_store_target("file:///a/x#mode=nczarr,file"));
        assert!(is_store_target("out.zarr"));
        assert!(is_store_target("out.zarr/"));
        assert!(is_store_target("out.ZIP"));
        assert!(!is_store_target("out.nc"));
    }

    #[test]
    fn gen_4_writes_a_store_nctk_reads() {
        let dir = std::env::temp_dir().join(format!("nctk-gen-store-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for out in ["a.zarr", "b.zip"] {
            let args = GenArgs {
                kind: Some("-4".into()),
                output: Some(out.into()),
                ..GenArgs::default()
            };
            gen(&args, CDL, &dir).unwrap();
            let ds = nctk::open(dir.join(out)).unwrap();
            let v: Vec<f32> = ds.variable("v").unwrap().get_values(..).unwrap();
            assert_eq!(v, [1.0, 2.0, 3.0, 4.0, 5.0, -1.0]);
            let w: Vec<i32> = ds.variable("/g/w").unwrap().get_values(..).unwrap();
            assert_eq!(w, [7, 8, 9]);
        }
        let zarray = std::fs::read_to_string(dir.join("a.zarr/v/.zarray")).unwrap();
        assert!(zarray.contains(r#""chunks":[1,2]"#), "{zarray}");
        assert!(
            zarray.contains(r#""compressor":{"id":"zlib","level":3}"#),
            "{zarray}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
