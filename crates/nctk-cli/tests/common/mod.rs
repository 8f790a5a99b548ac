//! Helpers shared by the `nctk` binary's integration tests (the corpus, the
//! peer checks and the peer runners are in `nctk_test_support`).
#![allow(dead_code)]

use std::process::{Command, Output};

pub mod served;

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

/// Runs the `nctk` binary with `args` and the file `input` as its
/// standard input: success, stdout, stderr.
pub fn nctk_stdin(args: &[&str], input: &std::path::Path) -> (bool, String, String) {
    let file = std::fs::File::open(input).expect("open the input");
    let out = Command::new(env!("CARGO_BIN_EXE_nctk"))
        .args(args)
        .stdin(std::process::Stdio::from(file))
        .output()
        .expect("run nctk");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The root group's data lines of a CDL dump: from `data:` to the first
/// group or the end.
pub fn root_data(dump: &str) -> String {
    dump.lines()
        .skip_while(|l| *l != "data:")
        .take_while(|l| !l.starts_with("group:") && *l != "}")
        .collect::<Vec<_>>()
        .join("\n")
}
