//! `DataSource::read_into` against `DataSource::read` (which the dump and
//! copy tests check against ncdump and nccopy) on every classic file of the
//! corpus: the same values in the variable's own type whatever the buffer
//! held before, the buffer's allocation reused when it already holds the
//! type, and the same error for a selection outside the variable; and
//! `DataSource::read_native` (what `Variable::get_into` uses when no
//! conversion is needed) gives the same values straight into a slice.

use std::path::Path;

use nctk::model::{DataSource, DataType, NcValue, Selection, Values, VarId};
use nctk_test_support::{corpus::files_under, require};

/// The address of the vector inside `values` (0 for strings).
fn address(values: &Values) -> usize {
    nctk::model::with_fixed_values!(values, v => v.as_ptr() as usize, _ => 0)
}

/// The same type and the same bits (NaN included).
fn same(a: &Values, b: &Values) -> bool {
    a.dtype() == b.dtype() && a.to_bytes(false) == b.to_bytes(false)
}

/// What `read_native` writes into a slice of `want`'s type and length
/// (`None` for `char` and strings, which it does not take).
fn read_native(src: &dyn DataSource, var: VarId, sel: &Selection, want: &Values) -> Option<Values> {
    if matches!(want.dtype(), DataType::Char | DataType::String) {
        return None;
    }
    // A buffer of the right type and length holding something else first.
    let mut out = want.clone();
    nctk::model::with_fixed_values!(&mut out, v => v.iter_mut().for_each(|x| *x = Default::default()), _ => ());
    let got = nctk::model::with_fixed_values!(&mut out, v => src.read_native(var, sel, NcValue::native_mut(&mut v[..])), _ => Ok(()));
    got.unwrap();
    Some(out)
}

fn is_classic(path: &Path) -> bool {
    nctk::open(path).is_ok_and(|d| matches!(d.container(), Some(nctk::Container::Classic(_))))
}

#[test]
fn read_into_gives_what_read_gives() {
    let Some(corpus) = require::corpus() else {
        return;
    };
    let files: Vec<_> = files_under(&corpus, |_| true)
        .into_iter()
        .filter(|p| is_classic(p))
        .collect();
    assert!(
        files.len() > 50,
        "few classic files under {}",
        corpus.display()
    );
    let mut checked = 0;
    // One buffer for every read, as the copier keeps one.
    let mut buf = Values::empty(DataType::Byte);
    for path in &files {
        let Ok(ds) = nctk::open(path) else {
            continue; // damaged files: their errors are tested elsewhere
        };
        let src = ds.source();
        let schema = src.schema();
        for v in schema.var_ids() {
            let shape = schema.shape(v);
            if shape.iter().product::<u64>() > 1 << 20 {
                continue;
            }
            let all = Selection::all(&shape);
            let want = src.read(v, &all);
            let got = src.read_into(v, &all, &mut buf);
            let what = format!("{} {}", path.display(), schema.var(v).name);
            match want {
                Ok(want) => {
                    got.unwrap_or_else(|e| panic!("{what}: {e}"));
                    assert!(same(&buf, &want), "{what}: {buf:?} != {want:?}");
                    // Straight into a caller's slice of the variable's type.
                    if let Some(native) = read_native(src, v, &all, &want) {
                        assert!(same(&native, &want), "{what}: read_native {native:?}");
                    }
                }
                Err(e) => {
                    assert_eq!(got.unwrap_err().to_string(), e.to_string(), "{what}");
                    continue;
                }
            }
            checked += 1;
            if let Some(&len) = shape.first().filter(|&&n| n > 0) {
                // A smaller slab into the same buffer: same allocation.
                let before = address(&buf);
                let mut count = shape.clone();
                count[0] = 1;
                let mut start = vec![0; shape.len()];
                start[0] = len - 1;
                let slab = Selection::block(&start, &count);
                src.read_into(v, &slab, &mut buf).unwrap();
                let want = src.read(v, &slab).unwrap();
                assert!(same(&buf, &want), "{what} last slab: {buf:?} != {want:?}");
                assert_eq!(address(&buf), before, "{what}: buffer reallocated");
                // Past the end: the same error as read gives.
                start[0] = len;
                let outside = Selection::block(&start, &count);
                assert_eq!(
                    src.read_into(v, &outside, &mut buf)
                        .unwrap_err()
                        .to_string(),
                    src.read(v, &outside).unwrap_err().to_string(),
                    "{what} past the end"
                );
            }
        }
    }
    assert!(checked > 100, "only {checked} variables checked");
}
