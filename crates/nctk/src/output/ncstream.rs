//! The ncstream arm of the output side: a stream (`nctk_ncstream`'s
//! [`NcStreamWriter`]) written to a file, under a temporary name as every
//! file is, or to standard output when the target is `-` (nothing to
//! rename; an output dropped unfinished ends with an ncstream error
//! message and no end mark, so no reader takes it for complete).

use std::io::{BufWriter, Write};
use std::path::Path;
use std::sync::Arc;

use nctk_model::{DataSink, Schema};
use nctk_ncstream::{DataOptions, NcStreamWriter};
use nctk_store::bytes::ByteSink;

use super::{CreateOptions, OutputError};

/// The file extension that names an ncstream output.
const EXTENSION: &str = "ncs";

/// The writer behind [`super::Sink::NcStream`].
pub(crate) type StreamWriter = NcStreamWriter<Box<dyn Write + Send>>;

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
pub(crate) fn create_file_stream(
    path: &Path,
    location: &Path,
    schema: &Schema,
    opts: &CreateOptions,
) -> Result<StreamWriter, OutputError> {
    let file = crate::door::create_file(path).map_err(|e| OutputError::Output {
        path: path.display().to_string(),
        source: Box::new(e),
    })?;
    let out: Box<dyn Write + Send> = Box::new(BufWriter::with_capacity(
        1 << 16,
        ByteSinkWriter { sink: file, at: 0 },
    ));
    stream(out, location, schema, opts)
}

/// A stream to standard output with `schema`'s definitions.
pub(crate) fn create_stdout_stream(
    schema: &Schema,
    opts: &CreateOptions,
) -> Result<StreamWriter, OutputError> {
    let out: Box<dyn Write + Send> = Box::new(BufWriter::with_capacity(1 << 16, std::io::stdout()));
    stream(out, Path::new("-"), schema, opts)
}

fn stream(
    out: Box<dyn Write + Send>,
    location: &Path,
    schema: &Schema,
    opts: &CreateOptions,
) -> Result<StreamWriter, OutputError> {
    let name = location.display().to_string();
    let options = DataOptions {
        deflate: opts.deflate.filter(|&level| level > 0),
    };
    let mut writer = NcStreamWriter::new(out, &name, options);
    writer
        .define(schema)
        .map_err(|source| OutputError::Output { path: name, source })?;
    Ok(writer)
}

/// A [`ByteSink`] written front to back as a [`Write`].
struct ByteSinkWriter {
    sink: Arc<dyn ByteSink>,
    at: u64,
}

impl Write for ByteSinkWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.sink
            .write_at(self.at, buf)
            .map_err(std::io::Error::other)?;
        self.at += buf.len() as u64;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.sink.flush().map_err(std::io::Error::other)
    }
}
