/// Errors from the nctk API.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A model rule was broken (range error, bad selection, bad name, ...).
    #[error(transparent)]
    Model(#[from] nctk_model::ModelError),
    /// The extents given do not fit the variable.
    #[error("bad extents: {0}")]
    Extent(String),
    /// The format reader or writer failed.
    #[error(transparent)]
    Format(nctk_model::SourceError),
    /// The path or URL names nothing nctk can open.
    #[error("{path}: {reason}")]
    Open {
        /// The path or URL.
        path: String,
        /// Why it cannot be opened.
        reason: String,
    },
    /// Plain I/O on the named path failed.
    #[error("{path}: {source}")]
    Io {
        /// The path.
        path: String,
        /// The I/O error.
        source: std::io::Error,
    },
}
