//! Damaged HDF5 files: every truncation and byte flip of h5py fixtures
//! (old-style and dense new-style) opens and walks to a value or an error,
//! never a panic or a hang.

#[path = "meta/walk.rs"]
mod walk;

const FIXTURE: &str = include_str!("meta/h5py_fixture.py");

fn fixture(scenario: &str) -> Option<Vec<u8>> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f.h5");
    nctk_test_support::require::python_output(
        &["h5py", "numpy"],
        FIXTURE,
        [scenario, path.to_str().unwrap()],
    )?;
    Some(std::fs::read(&path).unwrap())
}

/// Truncated at every length in steps (and every length of the first
/// kilobyte): the intact file walks, a truncated one is an error (HDF5
/// records the file's length in the superblock, as the library checks).
fn truncations(bytes: &[u8]) {
    walk::walk_all(bytes.to_vec()).unwrap();
    let step = (bytes.len() / 400).max(1);
    for len in (0..1024.min(bytes.len())).chain((1024..bytes.len()).step_by(step)) {
        let result = walk::walk_all(bytes[..len].to_vec());
        assert!(
            result.is_err(),
            "truncated to {len} bytes: walked without error"
        );
    }
}

/// Every byte (in steps) XOR-ed with two patterns: the walk returns.
fn flips(bytes: &[u8]) {
    let step = (bytes.len() / 800).max(1);
    for at in (0..bytes.len()).step_by(step) {
        for mask in [0xff, 0x01] {
            let mut damaged = bytes.to_vec();
            damaged[at] ^= mask;
            let _ = walk::walk_all(damaged);
        }
    }
}

#[test]
fn old_style_file_truncated_or_flipped() {
    if let Some(bytes) = fixture("sb0") {
        truncations(&bytes);
        flips(&bytes);
    }
}

#[test]
fn dense_file_truncated_or_flipped() {
    if let Some(bytes) = fixture("dense") {
        truncations(&bytes);
        flips(&bytes);
    }
}

#[test]
fn shared_message_file_truncated_or_flipped() {
    if let Some(bytes) = fixture("sohm") {
        truncations(&bytes);
        flips(&bytes);
    }
}

mod random_damage {
    use std::sync::OnceLock;

    use proptest::prelude::*;
    use proptest::sample::Index;

    /// The dense fixture, written once for all cases.
    fn dense() -> Option<&'static Vec<u8>> {
        static BYTES: OnceLock<Option<Vec<u8>>> = OnceLock::new();
        BYTES.get_or_init(|| super::fixture("dense")).as_ref()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        /// Several bytes overwritten at once: the walk returns.
        #[test]
        fn several_bytes_overwritten(edits in prop::collection::vec((any::<Index>(), any::<u8>()), 1..12)) {
            if let Some(bytes) = dense() {
                let mut damaged = bytes.clone();
                for (at, value) in edits {
                    let i = at.index(damaged.len());
                    damaged[i] = value;
                }
                let _ = super::walk::walk_all(damaged);
            }
        }
    }
}
