//! The facade's write API, checked by reading back through nctk and, when
//! installed, through netCDF-C's ncdump.

use nctk::{Format, IntoExtents};

#[test]
fn create_write_append_redefine_read_back() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.nc");
    let mut def = nctk::create(&path, Format::Cdf5).unwrap();
    let time = def.add_unlimited_dimension("time").unwrap();
    let x = def.add_dimension("x", 3).unwrap();
    def.add_variable::<f32>("temp", &[time, x])
        .unwrap()
        .put_attribute("units", "K")
        .unwrap();
    def.add_variable::<u64>("big", &[x]).unwrap();
    def.put_attribute("title", "facade test").unwrap();
    let mut ds = def.end_define().unwrap();
    ds.put_values("temp", (0..2, ..), &[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0])
        .unwrap();
    ds.put_values("big", .., &[u64::MAX - 2, 0, 7]).unwrap();
    // Out of range for the variable's type: an error, nothing written.
    assert!(ds.put_values("big", .., &[-1i32, 0, 0]).is_err());
    ds.close().unwrap();

    // Append a record (an open-ended range on the unlimited dimension), then
    // redefine to add a variable.
    let mut ds = nctk::append(&path).unwrap();
    ds.put_values("temp", (2.., ..), &[7.0f32, 8.0, 9.0])
        .unwrap();
    let mut def = ds.redefine().unwrap();
    let x = def
        .schema()
        .dim_by_name(nctk::model::GroupId::ROOT, "x")
        .unwrap();
    def.add_variable::<i16>("added", &[x]).unwrap();
    let mut ds = def.end_define().unwrap();
    ds.put_values("added", .., &[-1i16, 0, 1]).unwrap();
    ds.close().unwrap();

    let ds = nctk::open(&path).unwrap();
    assert_eq!(ds.format().name(), "cdf5");
    let temp = ds.variable("temp").unwrap();
    assert_eq!(temp.shape(), vec![3, 3]);
    assert_eq!(
        temp.get_values::<f32>(..).unwrap(),
        (1..=9).map(|v| v as f32).collect::<Vec<_>>()
    );
    assert_eq!(temp.get_values::<f64>((1, 1..)).unwrap(), vec![5.0, 6.0]);
    let a = temp.get::<f32>((.., 1)).unwrap();
    assert_eq!(a.shape(), &[3]);
    assert_eq!(
        ds.variable("big").unwrap().get_values::<u64>(..).unwrap(),
        vec![u64::MAX - 2, 0, 7]
    );
    assert!(
        ds.variable("big").unwrap().get_values::<i64>(..).is_err(),
        "u64::MAX-2 does not fit i64"
    );
    assert_eq!(
        ds.variable("added").unwrap().get_values::<i32>(..).unwrap(),
        vec![-1, 0, 1]
    );
    let mut buf = vec![0f32; 3];
    temp.get_into((2, ..), &mut buf).unwrap();
    assert_eq!(buf, vec![7.0, 8.0, 9.0]);
    assert!((0, 0, 0).into_extents().resolve(&temp.shape()).is_err());

    // netCDF-C reads the same values, when it is installed.
    if nctk_test_support::require::tools(&["ncdump"]) {
        let text = nctk_test_support::peer::run(
            "ncdump",
            ["-v".as_ref(), "temp,big,added".as_ref(), path.as_os_str()],
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert!(
            text.contains("temp =\n  1, 2, 3,\n  4, 5, 6,\n  7, 8, 9 ;"),
            "{text}"
        );
        assert!(
            text.contains("big = 18446744073709551613, 0, 7 ;"),
            "{text}"
        );
        assert!(text.contains("added = -1, 0, 1 ;"), "{text}");
    }
}

#[test]
fn readers_share_one_dataset_across_threads() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.nc");
    let mut def = nctk::create(&path, Format::Offset64).unwrap();
    let y = def.add_dimension("y", 64).unwrap();
    let x = def.add_dimension("x", 128).unwrap();
    def.add_variable::<f64>("v", &[y, x]).unwrap();
    let mut ds = def.end_define().unwrap();
    let data: Vec<f64> = (0..64 * 128).map(|i| i as f64 * 0.5).collect();
    ds.put_values("v", .., &data).unwrap();
    ds.close().unwrap();

    let ds = nctk::open(&path).unwrap();
    std::thread::scope(|s| {
        for t in 0..4usize {
            let (ds, data) = (&ds, &data);
            s.spawn(move || {
                let v = ds.variable("v").unwrap();
                for row in (t..64).step_by(4) {
                    let got: Vec<f64> = v.get_values((row, ..)).unwrap();
                    assert_eq!(got, data[row * 128..(row + 1) * 128]);
                }
            });
        }
    });
}
