//! How a dataset is written ([`crate::create_with`]): fill mode for every
//! format, and the settings of the one format being written, each in a
//! type of its own ([`ClassicOptions`], [`StoreOptions`],
//! [`NcStreamOptions`]). Settings for another format than the one written
//! are refused at [`crate::create_with`], naming both.

use nctk_classic::compressed::CompressOptions;

use crate::{Container, StoreLayout};

/// How a dataset is written, beyond its format and definitions. The
/// default is netCDF-C's: fill mode and each format's own defaults.
///
/// ```no_run
/// use nctk::{CreateOptions, Format, StoreOptions};
/// let opts = CreateOptions::new().fill(false).store(StoreOptions {
///     consolidated: true,
///     ..StoreOptions::default()
/// });
/// let def = nctk::create_with("out.zarr", Format::Netcdf4, opts)?;
/// # Ok::<(), nctk::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct CreateOptions {
    /// Pre-fill variables with fill values (`NC_FILL`, the default);
    /// nccopy writes without fill, as every value is copied anyway.
    pub fill: bool,
    /// The settings of the format written.
    pub format: FormatOptions,
}

impl Default for CreateOptions {
    fn default() -> Self {
        CreateOptions {
            fill: true,
            format: FormatOptions::Default,
        }
    }
}

/// The settings of one format being written.
#[derive(Debug, Clone, PartialEq, Default)]
#[non_exhaustive]
pub enum FormatOptions {
    /// The defaults of whatever format is written.
    #[default]
    Default,
    /// A classic file (CDF-1, CDF-2, CDF-5).
    Classic(ClassicOptions),
    /// An NCZarr / Zarr store.
    Store(StoreOptions),
    /// An ncstream.
    NcStream(NcStreamOptions),
}

impl FormatOptions {
    /// The name of the format these settings are for.
    fn name(&self) -> Option<&'static str> {
        match self {
            FormatOptions::Default => None,
            FormatOptions::Classic(_) => Some("classic"),
            FormatOptions::Store(_) => Some("NCZarr/Zarr store"),
            FormatOptions::NcStream(_) => Some("ncstream"),
        }
    }
}

/// How a classic file is written.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ClassicOptions {
    /// Build the whole file in memory and write it out when closed
    /// (`nccopy -w`).
    pub in_memory: bool,
    /// Write a block-compressed classic file
    /// (`docs/formats/compressed-classic.md`) with these codec, level,
    /// shuffle and block size (a local path only); `None`, an ordinary
    /// classic file.
    pub compress: Option<CompressOptions>,
}

/// How an NCZarr / Zarr store is written (each variable's chunking and
/// codecs are set on the variable: [`crate::VarDef`]).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct StoreOptions {
    /// The metadata layout (default: a URL's modes, else the newest
    /// NCZarr).
    pub layout: Option<StoreLayout>,
    /// Also write consolidated `.zmetadata` (as a URL's `consolidated`
    /// mode asks).
    pub consolidated: bool,
    /// Bytes of chunks written in part held in memory (default: the store
    /// writer's, 64 MiB; at least one chunk).
    pub cache_bytes: Option<usize>,
    /// Store chunks holding only the fill value too (by default they are
    /// left out, as zarr-python leaves them out).
    pub write_empty_chunks: bool,
    /// Write into the arrays of the store already at the target (a
    /// directory or an object store), which an earlier create with the
    /// very same definitions and layout made: its metadata is checked,
    /// never written, and values go in place (no temporary name, no
    /// rename; an abort leaves the chunks already stored). Many writers may
    /// so fill disjoint regions of one store at once, from threads or
    /// processes, as long as no two write the same chunk.
    pub existing: bool,
}

/// How an ncstream is written.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct NcStreamOptions {
    /// Deflate data messages at this zlib level (`None` or 0: not
    /// compressed).
    pub deflate: Option<u32>,
}

impl CreateOptions {
    /// The default options: fill mode, each format's defaults.
    pub fn new() -> CreateOptions {
        CreateOptions::default()
    }

    /// Sets [`CreateOptions::fill`].
    pub fn fill(mut self, fill: bool) -> CreateOptions {
        self.fill = fill;
        self
    }

    /// Writes a classic file with `options`.
    pub fn classic(mut self, options: ClassicOptions) -> CreateOptions {
        self.format = FormatOptions::Classic(options);
        self
    }

    /// Writes a store with `options`.
    pub fn store(mut self, options: StoreOptions) -> CreateOptions {
        self.format = FormatOptions::Store(options);
        self
    }

    /// Writes an ncstream with `options`.
    pub fn ncstream(mut self, options: NcStreamOptions) -> CreateOptions {
        self.format = FormatOptions::NcStream(options);
        self
    }

    /// The classic settings (the defaults unless given).
    pub(crate) fn classic_options(&self) -> ClassicOptions {
        match &self.format {
            FormatOptions::Classic(o) => *o,
            _ => ClassicOptions::default(),
        }
    }

    /// The store settings (the defaults unless given).
    pub(crate) fn store_options(&self) -> StoreOptions {
        match &self.format {
            FormatOptions::Store(o) => o.clone(),
            _ => StoreOptions::default(),
        }
    }

    /// The ncstream settings (the defaults unless given).
    #[cfg(feature = "ncstream")]
    pub(crate) fn ncstream_options(&self) -> NcStreamOptions {
        match &self.format {
            FormatOptions::NcStream(o) => *o,
            _ => NcStreamOptions::default(),
        }
    }

    /// Why these options cannot write `container`: they are another
    /// format's (`None` when they fit).
    pub(crate) fn mismatch(&self, container: Container) -> Option<String> {
        let fits = matches!(
            (&self.format, container),
            (FormatOptions::Default, _)
                | (
                    FormatOptions::Classic(_),
                    Container::Classic(_) | Container::Compressed
                )
                | (FormatOptions::Store(_), Container::Zarr)
                | (FormatOptions::NcStream(_), Container::NcStream)
        );
        (!fits).then(|| {
            format!(
                "{} options given for a {} output",
                self.format.name().unwrap_or("default"),
                crate::formats::entry(container).name()
            )
        })
    }
}
