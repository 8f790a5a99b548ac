//! Helpers shared by the `nctk` binary's integration tests (the corpus, the
//! peer checks and the peer runners are in `nctk_test_support`).
#![allow(dead_code)]

use std::process::{Command, Output};

/// Runs the `nctk` binary with `args`.
pub fn nctk(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_nctk"))
        .args(args)
        .output()
        .expect("run nctk")
}

/// The stdout of a successful `nctk` run, or a panic with its stderr.
pub fn nctk_ok(args: &[&str]) -> String {
    let out = nctk(args);
    assert!(
        out.status.success(),
        "nctk {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8 output")
}
