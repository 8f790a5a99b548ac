//! `nctk copy`'s progress bar: drawn on stderr when it is a terminal.

use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressStyle};
use nctk_tools::copy::{NoProgress, Progress};

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

/// A progress bar when stderr is a terminal, nothing otherwise.
pub fn for_stderr() -> Box<dyn Progress> {
    if !std::io::stderr().is_terminal() {
        return Box::new(NoProgress);
    }
    let bar = ProgressBar::new(0);
    bar.set_style(
        ProgressStyle::with_template(
            "{bar:40} {bytes}/{total_bytes} {binary_bytes_per_sec} {eta} {wide_msg}",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    Box::new(Bar(bar))
}
