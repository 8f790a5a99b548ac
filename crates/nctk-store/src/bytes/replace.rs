//! Staged replacement of a whole blob ([`ByteSink::replacement`]): the new
//! content is built apart from the old and swapped in on
//! [`Replacement::commit`], so an interrupted rewrite leaves the old blob
//! as it was.

use std::sync::Arc;

use super::{ByteError, ByteSink, MemSink};

/// New content for a blob, built apart from it.
pub trait Replacement: Send + Sync {
    /// Where the new content is written (it starts empty).
    fn sink(&self) -> &dyn ByteSink;

    /// Puts the new content in place of `original`'s and returns the sink
    /// that holds it from now on. Dropping an uncommitted replacement
    /// discards it and leaves `original` untouched.
    fn commit(self: Box<Self>, original: Arc<dyn ByteSink>)
        -> Result<Arc<dyn ByteSink>, ByteError>;
}

/// The default replacement: built in memory and copied over the original
/// on commit (for sinks with nothing better, such as memory itself).
#[derive(Debug, Default)]
pub struct MemReplacement {
    staged: MemSink,
}

impl Replacement for MemReplacement {
    fn sink(&self) -> &dyn ByteSink {
        &self.staged
    }

    fn commit(
        self: Box<Self>,
        original: Arc<dyn ByteSink>,
    ) -> Result<Arc<dyn ByteSink>, ByteError> {
        let image = self.staged.into_vec();
        original.set_len(0)?;
        original.write_at(0, &image)?;
        Ok(original)
    }
}
