//! Fuzzes the cdmremote query parser: any query string parses or fails
//! with an error, never a panic; a parsed section resolves against any
//! shape to a selection inside it or to an error.
#![no_main]

use libfuzzer_sys::fuzz_target;
use nctk_server::query::parse_query;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(query) = parse_query(text) else {
        return;
    };
    for spec in &query.vars {
        let Some(section) = &spec.section else {
            continue;
        };
        for shape in [
            vec![],
            vec![3],
            vec![10, 1],
            vec![0, 5, 7],
            vec![u64::MAX, 4],
        ] {
            let Ok(sel) = section.resolve(&shape) else {
                continue;
            };
            for d in 0..shape.len() {
                // `:` over an empty dimension selects nothing
                if shape[d] == 0 {
                    assert_eq!(sel.count[d], 0, "{text}: {sel:?} in {shape:?}");
                    continue;
                }
                let last = sel.start[d] + (sel.count[d] - 1) * sel.stride[d];
                assert!(
                    sel.count[d] >= 1 && last < shape[d],
                    "{text}: {sel:?} in {shape:?}"
                );
            }
        }
    }
});
