//! Bad stores give errors naming the key and the reason, never panics;
//! small hand-made stores check the reading rules.

use std::sync::Arc;

use nctk_model::{DataSource, Selection, Values};
use nctk_store::kv::{MemoryStore, StoreKey, WritableStore};
use nctk_zarr::{ZarrError, ZarrOptions, ZarrReader};

fn store(objects: &[(&str, &[u8])]) -> Arc<MemoryStore> {
    let s = MemoryStore::new();
    s.put(
        &StoreKey::new(".zgroup").unwrap(),
        br#"{"zarr_format": 2}"#.to_vec().into(),
    )
    .unwrap();
    for (k, v) in objects {
        s.put(&StoreKey::new(*k).unwrap(), v.to_vec().into())
            .unwrap();
    }
    Arc::new(s)
}

fn zarray(shape: &str, chunks: &str, dtype: &str, extra: &str) -> Vec<u8> {
    format!(
        r#"{{"zarr_format": 2, "shape": {shape}, "chunks": {chunks}, "dtype": "{dtype}", "fill_value": 0, "order": "C", "compressor": null, "filters": null{extra}}}"#
    )
    .into_bytes()
}

fn open_err(objects: &[(&str, &[u8])]) -> String {
    let e = ZarrReader::open(store(objects), ZarrOptions::default()).unwrap_err();
    e.to_string()
}

fn read_all(objects: &[(&str, &[u8])]) -> Result<Values, ZarrError> {
    let r = ZarrReader::open(store(objects), ZarrOptions::default())?;
    let v = r.schema().var_by_path("v").unwrap();
    r.read_values(v, &Selection::all(&r.schema().shape(v)))
}

#[test]
fn metadata_errors_name_the_key() {
    let e = open_err(&[("v/.zarray", b"{not json")]);
    assert!(e.contains("v/.zarray") && e.contains("JSON"), "{e}");
    let e = open_err(&[("v/.zarray", &zarray("[-1]", "[1]", "<i4", ""))]);
    assert!(e.contains("v/.zarray"), "{e}");
    let e = open_err(&[(
        "v/.zarray",
        &zarray("[18446744073709551616]", "[1]", "<i4", ""),
    )]);
    assert!(e.contains("v/.zarray"), "{e}");
    let e = open_err(&[(
        "v/.zarray",
        &zarray("[4294967296, 4294967296, 8]", "[1, 1, 1]", "<i8", ""),
    )]);
    assert!(e.contains("overflows"), "{e}");
    let e = open_err(&[("v/.zarray", &zarray("[4]", "[0]", "<i4", ""))]);
    assert!(e.contains("chunk length 0"), "{e}");
    let e = open_err(&[("v/.zarray", &zarray("[4]", "[2]", "<c16", ""))]);
    assert!(e.contains("unsupported dtype <c16"), "{e}");
    let e = open_err(&[("v/.zarray", &zarray("[4]", "[2, 2]", "<i4", ""))]);
    assert!(e.contains("chunks has 2 entries"), "{e}");
    let e = open_err(&[(
        "v/.zarray",
        &zarray("[4]", "[2]", "<i4", r#", "order": "X""#),
    )]);
    assert!(e.contains("order"), "{e}");
    let e = ZarrReader::open(Arc::new(MemoryStore::new()), ZarrOptions::default()).unwrap_err();
    assert!(matches!(e, ZarrError::NotZarr { .. }), "{e}");
    let e = open_err(&[(".zattrs", b"[1,2]")]);
    assert!(e.contains(".zattrs") && e.contains("object"), "{e}");
}

#[test]
fn chunk_of_wrong_size_is_an_error() {
    let e = read_all(&[
        ("v/.zarray", &zarray("[4]", "[4]", "<i4", "")),
        ("v/0", &[0u8; 15]),
    ])
    .unwrap_err();
    assert!(
        matches!(
            e,
            ZarrError::ChunkSize {
                expected: 16,
                actual: 15,
                ..
            }
        ),
        "{e}"
    );
    assert!(e.to_string().contains("v/0"), "{e}");
}

#[test]
fn unknown_codec_fails_only_when_read() {
    let za = br#"{"zarr_format": 2, "shape": [2], "chunks": [2], "dtype": "<i4", "fill_value": 0, "order": "C", "compressor": {"id": "nosuchcodec"}, "filters": null}"#;
    let r = ZarrReader::open(
        store(&[("v/.zarray", za), ("v/0", b"xx")]),
        ZarrOptions::default(),
    )
    .unwrap();
    let v = r.schema().var_by_path("v").unwrap();
    let e = r.read_values(v, &Selection::all(&[2])).unwrap_err();
    assert!(matches!(e, ZarrError::Codec { .. }), "{e}");
}

#[test]
fn fill_partial_chunks_strides_and_f_order() {
    // 2-D, F order, chunks 2x3 over a 3x4 array; chunk (0,0) holds 1..6 in
    // column-major order, the others are missing (fill 0).
    let za = br#"{"zarr_format": 2, "shape": [3, 4], "chunks": [2, 3], "dtype": ">i2", "fill_value": -1, "order": "F", "compressor": null, "filters": null}"#;
    let chunk: Vec<u8> = [1i16, 2, 3, 4, 5, 6]
        .iter()
        .flat_map(|x| x.to_be_bytes())
        .collect();
    let r = ZarrReader::open(
        store(&[("v/.zarray", za), ("v/0.0", &chunk)]),
        ZarrOptions::default(),
    )
    .unwrap();
    let v = r.schema().var_by_path("v").unwrap();
    let all = r.read_values(v, &Selection::all(&[3, 4])).unwrap();
    // Column-major chunk: element (i, j) = data[i + 2*j].
    assert_eq!(
        all,
        Values::Short(vec![1, 3, 5, -1, 2, 4, 6, -1, -1, -1, -1, -1])
    );
    let sel = Selection {
        start: vec![0, 0],
        count: vec![2, 2],
        stride: vec![1, 2],
    };
    assert_eq!(
        r.read_values(v, &sel).unwrap(),
        Values::Short(vec![1, 5, 2, 6])
    );
    assert!(r
        .read_values(v, &Selection::block(&[0, 0], &[4, 1]))
        .is_err());
}

#[test]
fn scalars_and_empty_arrays() {
    let za = br#"{"zarr_format": 2, "shape": [], "chunks": [], "dtype": "<f4", "fill_value": 0.0, "order": "C", "compressor": null, "filters": null}"#;
    let vals = read_all(&[("v/.zarray", za), ("v/0", &2.5f32.to_le_bytes())]).unwrap();
    assert_eq!(vals, Values::Float(vec![2.5]));
    let za = br#"{"zarr_format": 2, "shape": [0], "chunks": [1], "dtype": "|u1", "fill_value": 0, "order": "C", "compressor": null, "filters": null}"#;
    assert_eq!(
        read_all(&[("v/.zarray", za)]).unwrap(),
        Values::UByte(vec![])
    );
}

#[test]
fn python_nan_tokens_and_string_types() {
    let za = br#"{"zarr_format": 2, "shape": [2], "chunks": [2], "dtype": "<f8", "fill_value": NaN, "order": "C", "compressor": null, "filters": null}"#;
    let Values::Double(d) = read_all(&[("v/.zarray", za)]).unwrap() else {
        panic!()
    };
    assert!(d.iter().all(|x| x.is_nan()));
    let za = br#"{"zarr_format": 2, "shape": [2], "chunks": [2], "dtype": "<U2", "fill_value": "", "order": "C", "compressor": null, "filters": null}"#;
    let chunk: Vec<u8> = ['h', 'i', '\u{e9}', '\0']
        .iter()
        .flat_map(|&c| (c as u32).to_le_bytes())
        .collect();
    assert_eq!(
        read_all(&[("v/.zarray", za), ("v/0", &chunk)]).unwrap(),
        Values::strings(["hi", "\u{e9}"])
    );
}
