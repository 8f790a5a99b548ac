//! Properties of the configuration parsers over arbitrary text: a file
//! parses or fails with an error naming it and a line it has, never a
//! panic; `key = value` lines under a profile header read back exactly.

use std::path::Path;

use nctk_store_object::aws::ini::{FileKind, ProfileFile};
use nctk_store_object::aws::rc::RcSettings;
use nctk_store_object::aws::{parse_address, AwsConfigError};
use proptest::prelude::*;

fn line_in_range(e: &AwsConfigError, text: &[u8]) {
    match e {
        AwsConfigError::Syntax { path, line, .. } => {
            assert_eq!(path, "f");
            assert!(*line >= 1 && *line <= text.split(|&b| b == b'\n').count());
        }
        other => panic!("{other}"),
    }
}

proptest! {
    #[test]
    fn config_parsers_never_panic(text in proptest::collection::vec(
        prop_oneof![Just(b'['), Just(b']'), Just(b'='), Just(b'\n'), Just(b' '), Just(b'#'), any::<u8>()], 0..200))
    {
        for kind in [FileKind::Config, FileKind::Credentials] {
            if let Err(e) = ProfileFile::parse(Path::new("f"), &text, kind) {
                line_in_range(&e, &text);
            }
        }
        if let Err(e) = RcSettings::default().parse(Path::new("f"), &text) {
            line_in_range(&e, &text);
        }
    }

    #[test]
    fn properties_read_back(
        name in "[a-zA-Z0-9_-]{1,12}",
        props in proptest::collection::vec(("[a-z_]{1,12}", "[!-~]{0,20}"), 0..8),
    ) {
        let mut text = format!("[{name}]\n");
        for (k, v) in &props {
            text.push_str(&format!("{k} = {v}\n"));
        }
        let f = ProfileFile::parse(Path::new("f"), text.as_bytes(), FileKind::Credentials).unwrap();
        let p = f.profile(&name).unwrap();
        for (k, _) in &props {
            // The last value given for a key wins.
            let want = props.iter().rev().find(|(k2, _)| k2 == k).unwrap().1.as_str();
            prop_assert_eq!(p.get(k), (!want.is_empty()).then_some(want));
        }
    }

    #[test]
    fn addresses_never_panic(scheme in "(s3|gs3|https?)", authority in "[a-z0-9.:@-]{0,40}", path in "[a-z0-9./-]{0,40}") {
        let _ = parse_address(&scheme, &authority, &path);
    }
}
