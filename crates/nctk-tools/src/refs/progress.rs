//! Progress reporting for `nctk refs`: each input opened and each
//! variable referenced (across all the inputs) is one step; the CLI draws
//! a bar from that.

/// Receives the references' progress. Every method has a do-nothing
/// default.
pub trait RefsProgress {
    /// The work is `steps` steps; called again when the total is known
    /// better (once the inputs are open, their variables count).
    fn set_total(&mut self, steps: u64) {
        let _ = steps;
    }

    /// One more step is done: `what` (an input or a variable) was opened
    /// or referenced.
    fn advance(&mut self, what: &str) {
        let _ = what;
    }

    /// The work is over (successfully or not).
    fn finish(&mut self) {}
}

impl RefsProgress for crate::copy::NoProgress {}
