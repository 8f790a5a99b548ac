//! The errors of reading and writing ncstream: each names the stream (a
//! file, `-` for stdin, or a URL), the byte offset where it went wrong and
//! the reason.

use nctk_model::{ErrorKind, HasErrorKind};

/// An error reading or writing an ncstream.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum NcStreamError {
    /// The stream ends before what its framing says follows.
    #[error("{stream}offset {offset}: stream ends inside {what}")]
    Truncated {
        /// The stream's name and `": "`, or empty before it is known.
        stream: String,
        /// Where the cut-short object starts.
        offset: u64,
        /// What was being read (`a varint`, `a header message of 120 bytes`).
        what: String,
    },
    /// The bytes are not what the grammar or the messages allow.
    #[error("{stream}offset {offset}: {reason}")]
    Corrupt {
        /// The stream's name and `": "`, or empty before it is known.
        stream: String,
        /// Where the bad object starts.
        offset: u64,
        /// What is wrong.
        reason: String,
    },
    /// A protobuf message does not decode.
    #[error("{stream}offset {offset}: {what} does not decode: {source}")]
    Message {
        /// The stream's name and `": "`, or empty before it is known.
        stream: String,
        /// Where the message starts.
        offset: u64,
        /// Which message (`Header`, `Data`, ...).
        what: String,
        /// prost's error.
        #[source]
        source: prost::DecodeError,
    },
    /// The writer of the stream sent an error message instead of data.
    #[error("{stream}offset {offset}: the stream carries an error: {message}")]
    Remote {
        /// The stream's name and `": "`, or empty before it is known.
        stream: String,
        /// Where the error message starts.
        offset: u64,
        /// The error's text.
        message: String,
    },
    /// Valid ncstream this implementation does not handle.
    #[error("{stream}offset {offset}: not supported: {reason}")]
    Unsupported {
        /// The stream's name and `": "`, or empty before it is known.
        stream: String,
        /// Where the object starts.
        offset: u64,
        /// The feature.
        reason: String,
    },
    /// Something of the dataset that ncstream (or this writer) cannot carry.
    #[error("{stream}cannot write {item} as ncstream: {reason}")]
    Unwritable {
        /// The stream's name and `": "`, or empty before it is known.
        stream: String,
        /// What could not be written (`variable "v"`, `attribute "a" of "v"`).
        item: String,
        /// Why.
        reason: String,
    },
    /// Writing the stream to a byte sink (a file, through
    /// [`SinkCursor`](nctk_store::bytes::SinkCursor)) failed: the sink's
    /// error names the file and the offset in it, so it is the message.
    #[error("{source}")]
    Sink {
        /// The sink's error.
        #[source]
        source: nctk_store::bytes::ByteError,
    },
    /// Reading or writing the underlying bytes failed.
    #[error("{stream}offset {offset}: {source}")]
    Io {
        /// The stream's name and `": "`, or empty before it is known.
        stream: String,
        /// Where the failed read or write was.
        offset: u64,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
}

impl NcStreamError {
    /// A stream cut short inside `what`, which starts at `offset`.
    pub fn truncated(offset: u64, what: impl Into<String>) -> Self {
        NcStreamError::Truncated {
            stream: String::new(),
            offset,
            what: what.into(),
        }
    }

    /// Malformed content at `offset`.
    pub fn corrupt(offset: u64, reason: impl Into<String>) -> Self {
        NcStreamError::Corrupt {
            stream: String::new(),
            offset,
            reason: reason.into(),
        }
    }

    /// A message at `offset` that protobuf cannot decode.
    pub fn message(offset: u64, what: impl Into<String>, source: prost::DecodeError) -> Self {
        NcStreamError::Message {
            stream: String::new(),
            offset,
            what: what.into(),
            source,
        }
    }

    /// Valid content this implementation does not handle.
    pub fn unsupported(offset: u64, reason: impl Into<String>) -> Self {
        NcStreamError::Unsupported {
            stream: String::new(),
            offset,
            reason: reason.into(),
        }
    }

    /// `item` of the dataset cannot be written as ncstream.
    pub fn unwritable(item: impl Into<String>, reason: impl Into<String>) -> Self {
        NcStreamError::Unwritable {
            stream: String::new(),
            item: item.into(),
            reason: reason.into(),
        }
    }

    /// An I/O failure at `offset`.
    pub fn io(offset: u64, source: std::io::Error) -> Self {
        NcStreamError::Io {
            stream: String::new(),
            offset,
            source,
        }
    }

    /// The failed write at `offset` of the stream named `name`: the byte
    /// sink's own error where `source` carries one (it names the file
    /// already), else an I/O error naming the stream.
    pub fn write_failed(offset: u64, source: std::io::Error, name: &str) -> Self {
        match source.downcast::<nctk_store::bytes::ByteError>() {
            Ok(sink) => NcStreamError::Sink { source: sink },
            Err(source) => NcStreamError::io(offset, source).in_stream(name),
        }
    }

    /// The same error, naming the stream (a path, `-` or a URL); a sink's
    /// error names its file already.
    pub fn in_stream(mut self, name: &str) -> Self {
        let slot = match &mut self {
            NcStreamError::Sink { .. } => return self,
            NcStreamError::Truncated { stream, .. }
            | NcStreamError::Corrupt { stream, .. }
            | NcStreamError::Message { stream, .. }
            | NcStreamError::Remote { stream, .. }
            | NcStreamError::Unsupported { stream, .. }
            | NcStreamError::Unwritable { stream, .. }
            | NcStreamError::Io { stream, .. } => stream,
        };
        if slot.is_empty() {
            *slot = format!("{name}: ");
        }
        self
    }
}

/// A stream cut short, malformed or with a message that does not decode is
/// invalid data; an error message in place of data is the failure of the
/// stream's writer (a server), I/O; valid ncstream nctk does not handle,
/// or a dataset it cannot write as ncstream, is unsupported.
impl HasErrorKind for NcStreamError {
    fn kind(&self) -> ErrorKind {
        match self {
            NcStreamError::Truncated { .. }
            | NcStreamError::Corrupt { .. }
            | NcStreamError::Message { .. } => ErrorKind::InvalidData,
            NcStreamError::Remote { .. } => ErrorKind::Io,
            NcStreamError::Unsupported { .. } | NcStreamError::Unwritable { .. } => {
                ErrorKind::Unsupported
            }
            NcStreamError::Io { source, .. } => ErrorKind::of_io(source),
            NcStreamError::Sink { source } => source.kind(),
        }
    }
}

/// The crate's result type.
pub type Result<T, E = NcStreamError> = std::result::Result<T, E>;
