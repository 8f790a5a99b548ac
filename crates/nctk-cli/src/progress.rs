//! The progress bars of `nctk copy` (bytes) and `nctk refs` (inputs
//! opened, then variables referenced): drawn on stderr when it is a
//! terminal.

use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressStyle};
use nctk_tools::copy::{NoProgress, Progress};
use nctk_tools::refs::RefsProgress;

/// A progress bar on stderr, in bytes.
struct Bar(ProgressBar);

impl Progress for Bar {
    fn start(&mut self, total_bytes: u64) {
        self.0.set_length(total_bytes);
    }

    fn advance(&mut self, var: &str, bytes: u64) {
        self.0.set_message(var.to_string());
        self.0.inc(bytes);
    }

    fn finish(&mut self) {
        self.0.finish_and_clear();
    }
}

impl RefsProgress for Bar {
    fn set_total(&mut self, steps: u64) {
        self.0.set_length(steps);
    }

    fn advance(&mut self, what: &str) {
        self.0.set_message(what.to_string());
        self.0.inc(1);
    }

    fn finish(&mut self) {
        self.0.finish_and_clear();
    }
}

/// A bar on stderr drawn with `template`, when stderr is a terminal.
fn bar(template: &str) -> Option<Bar> {
    if !std::io::stderr().is_terminal() {
        return None;
    }
    let bar = ProgressBar::new(0);
    bar.set_style(
        ProgressStyle::with_template(template).unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    Some(Bar(bar))
}

/// `nctk refs`'s progress bar (steps: inputs opened, variables
/// referenced) when stderr is a terminal, nothing otherwise.
pub fn refs_for_stderr() -> Box<dyn RefsProgress> {
    match bar("{bar:40} {pos}/{len} {elapsed} {wide_msg}") {
        Some(bar) => Box::new(bar),
        None => Box::new(NoProgress),
    }
}

/// A progress bar when stderr is a terminal, nothing otherwise.
pub fn for_stderr() -> Box<dyn Progress> {
    match bar("{bar:40} {bytes}/{total_bytes} {binary_bytes_per_sec} {eta} {wide_msg}") {
        Some(bar) => Box::new(bar),
        None => Box::new(NoProgress),
    }
}
