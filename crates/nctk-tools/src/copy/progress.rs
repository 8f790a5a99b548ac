//! Progress reporting: the copier tells a [`Progress`] how many bytes it
//! will move and how many it has moved; the CLI draws a bar from that.

/// Receives the copy's progress. Every method has a do-nothing default.
pub trait Progress {
    /// The copy starts and will move `total_bytes` bytes of data.
    fn start(&mut self, total_bytes: u64) {
        let _ = total_bytes;
    }

    /// `bytes` more bytes of variable `var` were copied.
    fn advance(&mut self, var: &str, bytes: u64) {
        let _ = (var, bytes);
    }

    /// The copy is over (successfully or not).
    fn finish(&mut self) {}
}

/// A [`Progress`] that reports nothing.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoProgress;

impl Progress for NoProgress {}
