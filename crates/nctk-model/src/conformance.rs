//! The [`DataSink`] contract as checks every writer runs (feature
//! `conformance`, for tests): a format's tests give a [`SinkTarget`] (how
//! to make a fresh sink over some storage, how to read that storage back)
//! and call [`sink_finishes`] and [`sink_aborts`] (and, for formats that
//! hold no user-defined types, [`sink_refuses_user_types`]); what a
//! finished sink holds is [`sink_expected`], for tests that also read it
//! with a peer.
//!
//! The checks panic with a message naming the step that broke the
//! contract.

use crate::{
    same_definitions, Attribute, CompoundField, DataSink, DataSource, DataType, GroupId, Schema,
    Selection, SourceError, UserTypeKind, Values, VarId,
};

/// Storage a sink is checked on.
pub trait SinkTarget {
    /// A fresh sink over empty storage, with no definitions yet (storage
    /// left by an earlier sink is replaced).
    fn create(&mut self) -> Box<dyn DataSink>;
    /// Opens what the storage holds now.
    fn open(&mut self) -> Result<Box<dyn DataSource>, SourceError>;
}

/// Records the checked dataset holds.
pub const RECORDS: u64 = 3;

/// The checked dataset's definitions: classic types in the root group
/// only, so every format holds them: `time` (unlimited), `y` = 3, `x` = 4;
/// `t(time)` int, `grid(y, x)` double with a `_FillValue`, `rec(time, x)`
/// short; a global and a variable attribute.
pub fn sink_schema() -> Schema {
    let mut s = Schema::new();
    let root = GroupId::ROOT;
    let time = s.add_dim(root, "time", 0, true).expect("time");
    let y = s.add_dim(root, "y", 3, false).expect("y");
    let x = s.add_dim(root, "x", 4, false).expect("x");
    s.set_attr(root, None, Attribute::new("title", Values::text("sink")));
    s.add_var(root, "t", DataType::Int, &[time]).expect("t");
    let grid = s
        .add_var(root, "grid", DataType::Double, &[y, x])
        .expect("grid");
    s.set_attr(
        root,
        Some(grid),
        Attribute::new("_FillValue", Values::Double(vec![-1.0])),
    );
    s.add_var(root, "rec", DataType::Short, &[time, x])
        .expect("rec");
    s
}

/// Every variable of [`sink_schema`] with all its values, as a finished
/// sink holds them.
pub fn sink_expected() -> Vec<(&'static str, Values)> {
    vec![
        ("t", Values::Int(vec![10, 20, 30])),
        (
            "grid",
            Values::Double((0..12).map(|i| f64::from(i) * 0.5).collect()),
        ),
        ("rec", Values::Short((0..12).map(|i| i * 3 - 7).collect())),
    ]
}

fn var(schema: &Schema, name: &str) -> VarId {
    schema
        .var_by_name(GroupId::ROOT, name)
        .unwrap_or_else(|| panic!("the sink's schema has no variable {name:?}"))
}

fn sel(start: &[u64], count: &[u64]) -> Selection {
    Selection {
        start: start.to_vec(),
        count: count.to_vec(),
        stride: vec![1; start.len()],
    }
}

/// Defines a fresh sink with [`sink_schema`] (and again, which must change
/// nothing).
fn defined(target: &mut dyn SinkTarget) -> Box<dyn DataSink> {
    let schema = sink_schema();
    let mut sink = target.create();
    sink.define(&schema)
        .unwrap_or_else(|e| panic!("define: {e}"));
    sink.define(&schema)
        .unwrap_or_else(|e| panic!("define with the same definitions again: {e}"));
    assert!(
        same_definitions(sink.schema(), &schema),
        "the sink's schema after define is not the one defined"
    );
    sink
}

/// Define, write slabs out of order (the last record first, so records
/// are added past the end; in another numeric type, converted; a value
/// out of range refused), finish, and read back: the definitions and
/// every value written, with the record count.
pub fn sink_finishes(target: &mut dyn SinkTarget) {
    let mut sink = defined(target);
    let schema = sink.schema().clone();
    let expected = sink_expected();
    let (t, grid, rec) = (var(&schema, "t"), var(&schema, "grid"), var(&schema, "rec"));
    let put = |sink: &mut Box<dyn DataSink>, v: VarId, s: Selection, values: Values| {
        sink.write(v, &s, &values)
            .unwrap_or_else(|e| panic!("write {:?} at {:?}: {e}", schema.var(v).name, s.start));
    };
    // The bottom row of `grid` first, then the top two.
    put(
        &mut sink,
        grid,
        sel(&[2, 0], &[1, 4]),
        expected[1].1.slice(8..12),
    );
    put(
        &mut sink,
        grid,
        sel(&[0, 0], &[2, 4]),
        expected[1].1.slice(0..8),
    );
    // The last record first: past the end, it adds every record before it.
    put(
        &mut sink,
        rec,
        sel(&[2, 0], &[1, 4]),
        expected[2].1.slice(8..12),
    );
    let time_len = |sink: &dyn DataSink| {
        let s = sink.schema();
        s.dim(s.unlimited_dim().expect("an unlimited dimension"))
            .len
    };
    assert_eq!(
        time_len(sink.as_ref()),
        RECORDS,
        "records after writing past the end"
    );
    put(
        &mut sink,
        rec,
        sel(&[0, 0], &[2, 4]),
        expected[2].1.slice(0..8),
    );
    // Doubles into an int variable, converted; then one out of range.
    put(
        &mut sink,
        t,
        sel(&[0], &[3]),
        Values::Double(vec![10.0, 20.0, 30.0]),
    );
    assert!(
        sink.write(t, &sel(&[0], &[1]), &Values::Double(vec![1e20]))
            .is_err(),
        "a value out of the variable's range must be refused (NC_ERANGE)"
    );
    sink.finish().unwrap_or_else(|e| panic!("finish: {e}"));

    let source = target
        .open()
        .unwrap_or_else(|e| panic!("open the finished dataset: {e}"));
    let read = source.schema();
    check_definitions(read, &schema);
    for (name, values) in &expected {
        let v = var(read, name);
        let got = source
            .read(v, &Selection::all(&read.shape(v)))
            .unwrap_or_else(|e| panic!("read {name:?}: {e}"));
        assert_eq!(&got, values, "{name:?} as read back");
    }
}

/// Define, write, abort: what is left does not open as a dataset.
pub fn sink_aborts(target: &mut dyn SinkTarget) {
    let mut sink = defined(target);
    let grid = var(sink.schema(), "grid");
    sink.write(grid, &sel(&[0, 0], &[1, 4]), &Values::Double(vec![1.0; 4]))
        .unwrap_or_else(|e| panic!("write: {e}"));
    sink.abort().unwrap_or_else(|e| panic!("abort: {e}"));
    if let Ok(source) = target.open() {
        panic!(
            "an aborted sink left a dataset that opens, with {} variables",
            source.schema().num_vars()
        );
    }
}

/// For a format that holds no user-defined types: a definition with a
/// compound variable is refused with an error (never a panic, never
/// dropped), and an abort after it leaves nothing that opens.
pub fn sink_refuses_user_types(target: &mut dyn SinkTarget) {
    let mut schema = sink_schema();
    let root = GroupId::ROOT;
    let field = |name: &str, offset| CompoundField {
        name: name.into(),
        offset,
        dtype: DataType::Int,
        dims: vec![],
    };
    let pair = schema
        .add_type(
            root,
            "pair_t",
            UserTypeKind::Compound {
                size: 8,
                fields: vec![field("a", 0), field("b", 4)],
            },
        )
        .expect("pair_t");
    schema
        .add_var(root, "pair", DataType::User(pair), &[])
        .expect("pair");
    let mut sink = target.create();
    assert!(
        sink.define(&schema).is_err(),
        "a definition with a compound variable must be refused"
    );
    let _ = sink.abort();
    if let Ok(source) = target.open() {
        panic!(
            "a refused definition left a dataset that opens, with {} variables",
            source.schema().num_vars()
        );
    }
}

/// `read` holds `defined`'s root definitions, compared by name (pure Zarr
/// lists them in key order); formats without unlimited dimensions (pure
/// Zarr, netCDF-C 4.9.0's NCZarr) may keep `time` as a fixed dimension of
/// [`RECORDS`].
fn check_definitions(read: &Schema, defined: &Schema) {
    let root = GroupId::ROOT;
    let sorted = |attrs: &[Attribute]| {
        let mut a = attrs.to_vec();
        a.sort_by(|x, y| x.name.cmp(&y.name));
        a
    };
    assert_eq!(
        sorted(&read.root().attributes),
        sorted(&defined.root().attributes),
        "global attributes read back"
    );
    for d in defined.dim_ids() {
        let want = defined.dim(d);
        let got = read
            .dim_by_name(root, &want.name)
            .map(|g| read.dim(g))
            .unwrap_or_else(|| panic!("no dimension {:?} read back", want.name));
        let len = if want.unlimited { RECORDS } else { want.len };
        assert_eq!(got.len, len, "length of {:?}", want.name);
        assert!(
            want.unlimited || !got.unlimited,
            "{:?} read back unlimited",
            want.name
        );
    }
    for v in defined.var_ids() {
        let want = defined.var(v);
        let got = read.var(var(read, &want.name));
        let dim_names = |s: &Schema, dims: &[crate::DimId]| {
            dims.iter()
                .map(|&d| s.dim(d).name.clone())
                .collect::<Vec<_>>()
        };
        assert_eq!(got.dtype, want.dtype, "type of {:?}", want.name);
        assert_eq!(
            dim_names(read, &got.dims),
            dim_names(defined, &want.dims),
            "dimensions of {:?}",
            want.name
        );
        assert_eq!(
            sorted(&got.attributes),
            sorted(&want.attributes),
            "attributes of {:?}",
            want.name
        );
    }
}
