//! The ncstream arm of the output side: a stream (`nctk_ncstream`'s
//! [`NcStreamWriter`]) written to a file, under a temporary name as every
//! file is, or to standard output when the target is `-` (nothing to
//! rename; an output dropped unfinished ends with an ncstream error
//! message and no end mark, so no reader takes it for complete).

use std::io::{BufWriter, Write};
use std::path::Path;

use nctk_model::Schema;
use nctk_store::bytes::SinkCursor;

use super::{CreateOptions, OutputError, Sink};
use crate::formats::CreateRequest;

/// The file extension that names an ncstream output.
const EXTENSION: &str = "ncs";

/// True when `target` is standard output (`-`).
pub(crate) fn is_stdout(target: &Path) -> bool {
    target == Path::new("-")
}

/// True when `target` names an ncstream output: a path ending in `.ncs`,
/// or `-` (standard output, where only a stream can go).
pub fn is_ncstream_target(target: &Path) -> bool {
    is_stdout(target)
        || target
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| e.eq_ignore_ascii_case(EXTENSION))
}

/// A stream to the file at `path` (the temporary; `location` is the
/// target's name, which the header carries) with `schema`'s definitions.
pub(crate) fn create_file_stream(request: &CreateRequest<'_>) -> Result<Sink, OutputError> {
    let path = request.path;
    let file = crate::door::open_file(path).map_err(|e| OutputError::Output {
        path: path.display().to_string(),
        source: e.into(),
    })?;
    let out: Box<dyn Write + Send> =
        Box::new(BufWriter::with_capacity(1 << 16, SinkCursor::new(file)));
    stream(out, request.target, request.schema, request.options)
}

/// A stream to standard output with `schema`'s definitions.
pub(crate) fn create_stdout_stream(
    schema: &Schema,
    opts: &CreateOptions,
) -> Result<Sink, OutputError> {
    let out: Box<dyn Write + Send> = Box::new(BufWriter::with_capacity(1 << 16, std::io::stdout()));
    stream(out, Path::new("-"), schema, opts)
}

/// A stream of `schema`'s definitions into `out`, whose header names
/// `location`.
#[cfg(feature = "ncstream")]
fn stream(
    out: Box<dyn Write + Send>,
    location: &Path,
    schema: &Schema,
    opts: &CreateOptions,
) -> Result<Sink, OutputError> {
    use nctk_model::DataSink;
    use nctk_ncstream::{DataOptions, NcStreamWriter};
    let name = location.display().to_string();
    let options = DataOptions {
        deflate: opts.ncstream_options().deflate.filter(|&level| level > 0),
    };
    let mut writer = NcStreamWriter::new(out, &name, options);
    writer
        .define(schema)
        .map_err(|source| OutputError::Output { path: name, source })?;
    Ok(Sink::Other(Box::new(writer)))
}

/// Without the ncstream crate, no stream is written.
#[cfg(not(feature = "ncstream"))]
fn stream(
    _out: Box<dyn Write + Send>,
    location: &Path,
    _schema: &Schema,
    _opts: &CreateOptions,
) -> Result<Sink, OutputError> {
    Err(OutputError::Unsupported {
        path: location.display().to_string(),
        format: "ncstream",
        reason: "this nctk was built without the `ncstream` feature".into(),
    })
}

#[cfg(all(test, feature = "ncstream"))]
mod tests {
    use super::*;
    use std::sync::Arc;

    use nctk_model::{DataSource, Selection, Values};
    use nctk_ncstream::NcStreamReader;
    use nctk_store::bytes::FileSource;

    #[test]
    fn ncs_paths_and_dash_name_streams() {
        assert!(is_ncstream_target(Path::new("-")));
        assert!(is_ncstream_target(Path::new("dir/out.ncs")));
        assert!(is_ncstream_target(Path::new("OUT.NCS")));
        assert!(!is_ncstream_target(Path::new("out.nc")));
        assert!(!is_ncstream_target(Path::new("ncs")));
        assert!(!is_ncstream_target(Path::new("out.ncs.zarr")));
    }

    /// The library's one define/put API writes a stream for a `.ncs`
    /// target, which appears only on close and reads back with the
    /// values put (through the ncstream reader), record count included.
    #[test]
    fn create_writes_a_stream_that_reads_back() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("made.ncs");
        let mut def = crate::create(&target, nctk_model::Format::Classic).unwrap();
        let t = def.add_unlimited_dimension("t").unwrap();
        let x = def.add_dimension("x", 2).unwrap();
        def.add_variable::<f32>("v", &[t, x])
            .unwrap()
            .put_attribute("units", "K")
            .unwrap();
        let mut ds = def.end_define().unwrap();
        ds.put_values("v", (0..3, ..), &[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0])
            .unwrap();
        assert!(!target.exists(), "nothing at the target before close");
        ds.close().unwrap();
        let source = Arc::new(FileSource::open(&target).unwrap());
        let reader = NcStreamReader::open(source, "made.ncs").unwrap();
        let v = reader.schema().var_by_path("/v").unwrap();
        assert_eq!(reader.schema().shape(v), [3, 2]);
        let got = reader.read(v, &Selection::all(&[3, 2])).unwrap();
        assert_eq!(got, Values::Float(vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]));
        let units = reader.schema().var(v).attribute("units").unwrap();
        assert_eq!(units.value, Values::text("K"));
    }
}
