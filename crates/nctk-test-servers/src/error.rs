//! The one error type of the test servers.

use std::path::PathBuf;

/// A server that could not start, or a request to one that failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A program could not be spawned.
    #[error("cannot run `{command}`: {source}")]
    Spawn {
        /// The command line.
        command: String,
        /// Why it could not start.
        #[source]
        source: std::io::Error,
    },
    /// A spawned server exited, or did not answer within the wait.
    #[error("`{command}` {reason}; its output:\n{log}")]
    NotReady {
        /// The command line.
        command: String,
        /// What went wrong (exited with a status, did not answer in time).
        reason: String,
        /// What the server wrote to stdout and stderr.
        log: String,
    },
    /// A local socket, runtime or file could not be set up.
    #[error("{what}: {source}")]
    Io {
        /// What was being done, naming the file or address.
        what: String,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// A request could not be sent or its response not read.
    #[error("{method} {url}: {reason}")]
    Request {
        /// The request's method.
        method: String,
        /// The request's URL.
        url: String,
        /// The cause.
        reason: String,
    },
    /// A server answered with a status the request did not expect.
    #[error("{method} {url}: HTTP {status}: {body}")]
    Status {
        /// The request's method.
        method: String,
        /// The request's URL.
        url: String,
        /// The status received.
        status: u16,
        /// The response body, lossily as text.
        body: String,
    },
    /// A response that does not parse as the request's answer.
    #[error("{url}: malformed response: {reason}")]
    Malformed {
        /// The request's URL.
        url: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A directory to upload or serve that is not one.
    #[error("{}: not a readable directory", .0.display())]
    NotADirectory(PathBuf),
}

/// This crate's results.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// An [`Error::Io`] naming `what`.
    pub(crate) fn io(what: impl Into<String>) -> impl FnOnce(std::io::Error) -> Error {
        let what = what.into();
        move |source| Error::Io { what, source }
    }
}
