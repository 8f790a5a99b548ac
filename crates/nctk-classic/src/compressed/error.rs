//! Errors of block-compressed classic files: each names the file and, for
//! damage, the variable, the block and the byte offset in the stored file.

use nctk_codec::CodecError;
use nctk_model::{ErrorKind, HasErrorKind};
use nctk_store::bytes::ByteError;

/// What is wrong with a block-compressed classic file, or why one cannot
/// be written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CompressedError {
    /// Reading or writing the stored file failed.
    #[error(transparent)]
    Io(#[from] ByteError),
    /// The file does not start with the block-compressed magic number.
    #[error("{file}: not a block-compressed classic netCDF file (magic number at offset 0)")]
    NotCompressed {
        /// The file.
        file: String,
    },
    /// The superblock (the first 64 bytes) is damaged or of a version
    /// this reader does not know.
    #[error("{file}: superblock at offset {offset}: {reason}")]
    Superblock {
        /// The file.
        file: String,
        /// Offset of the bad field.
        offset: u64,
        /// What is wrong.
        reason: String,
    },
    /// The stored classic header is not valid.
    #[error("{file}: classic header at offset {offset}: {reason}")]
    Header {
        /// The file.
        file: String,
        /// Offset of the header in the stored file.
        offset: u64,
        /// What is wrong (the classic decoder's message).
        reason: String,
    },
    /// A variable's directory entry or block table is damaged.
    #[error("{file}: variable {var:?}: index at offset {offset}: {reason}")]
    Index {
        /// The file.
        file: String,
        /// The variable's name.
        var: String,
        /// Offset of the bad entry in the stored file.
        offset: u64,
        /// What is wrong.
        reason: String,
    },
    /// One block is damaged: out of the file, overlapping another, a
    /// checksum mismatch, or decoding to the wrong length.
    #[error("{file}: variable {var:?}: block {block} at offset {offset}: {reason}")]
    Block {
        /// The file.
        file: String,
        /// The variable's name.
        var: String,
        /// The block number within the variable.
        block: u64,
        /// Offset of the block in the stored file.
        offset: u64,
        /// What is wrong.
        reason: String,
    },
    /// A block did not decode.
    #[error("{file}: variable {var:?}: block {block} at offset {offset}: {source}")]
    Codec {
        /// The file.
        file: String,
        /// The variable's name.
        var: String,
        /// The block number within the variable.
        block: u64,
        /// Offset of the block in the stored file.
        offset: u64,
        /// The codec's error.
        #[source]
        source: CodecError,
    },
    /// A variable whose blocks cannot be given as chunk references: they
    /// do not tile its shape as a chunk grid does, or some are stored raw
    /// among compressed ones.
    #[error("{file}: variable {var:?}: references: {reason}")]
    Refs {
        /// The file.
        file: String,
        /// The variable's name.
        var: String,
        /// Why.
        reason: String,
    },
    /// The input of [`compress`](super::compress) is not a classic file
    /// that can be compressed, or the options are invalid.
    #[error("{file}: {reason}")]
    Input {
        /// The input file.
        file: String,
        /// What is wrong.
        reason: String,
    },
}

impl CompressedError {
    /// This error as a [`ByteError`] of a read at `offset` of the decoded
    /// blob named `path`: an I/O error of the stored file passes through
    /// unchanged, damage becomes [`ByteError::Invalid`].
    pub fn into_byte_error(self, path: &str, offset: u64) -> ByteError {
        match self {
            CompressedError::Io(e) => e,
            other => ByteError::Invalid {
                path: path.to_string(),
                offset,
                source: other.into(),
            },
        }
    }
}

/// A damaged file (not compressed, a bad superblock, header, index or
/// block) is invalid data; the stored file's and a block's codec's errors
/// have their own kind (a codec nctk lacks is unsupported); input that
/// cannot be compressed is the caller's.
impl HasErrorKind for CompressedError {
    fn kind(&self) -> ErrorKind {
        match self {
            CompressedError::Io(e) => e.kind(),
            CompressedError::Codec { source, .. } => source.kind(),
            CompressedError::NotCompressed { .. }
            | CompressedError::Superblock { .. }
            | CompressedError::Header { .. }
            | CompressedError::Index { .. }
            | CompressedError::Block { .. } => ErrorKind::InvalidData,
            CompressedError::Input { .. } => ErrorKind::InvalidInput,
            CompressedError::Refs { .. } => ErrorKind::Unsupported,
        }
    }
}

/// Result type of the compressed module.
pub type Result<T, E = CompressedError> = std::result::Result<T, E>;
