//! Fuzzes the CDL parser: any text must parse or fail with an error (never
//! panic), and a parsed dataset must be self-consistent: one data slot and
//! one special-attribute slot per variable, and every variable's data has
//! exactly as many values as its shape holds, of its type
//! ([`Schema::check_values`](nctk_model::Schema::check_values)). The format check
//! must not panic for any kind.
#![no_main]

use libfuzzer_sys::fuzz_target;
use nctk_cdl::parse::{check_format, parse_with, ParseOptions};
use nctk_model::Format as Kind;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    for kind in [None, Some(Kind::Classic)] {
        let options = ParseOptions {
            kind,
            max_values: 1 << 16,
            ..ParseOptions::default()
        };
        let Ok(ds) = parse_with(text, &options) else {
            continue;
        };
        let s = &ds.schema;
        assert_eq!(ds.data.len(), s.num_vars());
        assert_eq!(ds.specials.len(), s.num_vars());
        for v in s.var_ids() {
            if let Some(values) = ds.var_data(v) {
                let n: u64 = s.shape(v).iter().product();
                assert_eq!(values.len() as u64, n);
                // user-typed values do not carry their type (an enum's
                // travel as its base type): the schema checks them
                let dtype = s.var(v).dtype;
                if let Err(e) = s.check_values(dtype, values) {
                    panic!("{}: {e}", s.var(v).name);
                }
            }
        }
        for k in [
            Kind::Classic,
            Kind::Offset64,
            Kind::Cdf5,
            Kind::Netcdf4,
            Kind::Netcdf4Classic,
        ] {
            let _ = check_format(&ds, k);
        }
    }
});
