//! Zarr v2 object arrays (`|O`) read as netCDF strings: xarray's string
//! variables (`zarr_format=2`, the `vlen-utf8` filter), and arrays whose
//! chunks numcodecs' `VLenBytes` and `JSON` (`json2`, which zarr-python 3
//! no longer reads) encoded, written chunk by chunk from numcodecs itself;
//! a `json2` null reads as a null string, as numcodecs decodes it.

use std::sync::Arc;

use nctk_model::{DataSource, Selection, Values};
use nctk_store::kv::DirectoryStore;
use nctk_test_support::require;
use nctk_zarr::{ZarrOptions, ZarrReader};

/// Writes the store at `argv[1]` and prints each array's items.
const PY_WRITE: &str = r#"
import sys, os, json
import numpy as np
import numcodecs
import xarray as xr
root = sys.argv[1]
words = ["alpha", "bé", "", "δέλτα", "e"]
xr.Dataset({"xs": ("n", np.array(words, dtype=object))}).to_zarr(root, zarr_format=2, mode="w")
for name, codec, compressor in [("vb", numcodecs.VLenBytes(), numcodecs.Zlib(1)),
                                ("j2", numcodecs.JSON(), None)]:
    os.makedirs(os.path.join(root, name))
    json.dump({"zarr_format": 2, "shape": [5], "chunks": [2], "dtype": "|O",
               "compressor": compressor.get_config() if compressor else None,
               "fill_value": None, "order": "C", "filters": [codec.get_config()]},
              open(os.path.join(root, name, ".zarray"), "w"))
    json.dump({"_ARRAY_DIMENSIONS": ["n"]}, open(os.path.join(root, name, ".zattrs"), "w"))
    for c in range(3):
        items = (words[2 * c:2 * c + 2] + [""])[:2]
        if name == "vb":
            items = [w.encode() for w in items]
        enc = codec.encode(np.array(items, dtype=object))
        if compressor:
            enc = compressor.encode(enc)
        open(os.path.join(root, name, str(c)), "wb").write(enc)
# numcodecs' JSON keeps None as null: a null string, read back as None.
nulls = np.array(["a", None, ""], dtype=object)
os.makedirs(os.path.join(root, "jn"))
json.dump({"zarr_format": 2, "shape": [3], "chunks": [3], "dtype": "|O", "compressor": None,
           "fill_value": None, "order": "C", "filters": [numcodecs.JSON().get_config()]},
          open(os.path.join(root, "jn", ".zarray"), "w"))
json.dump({"_ARRAY_DIMENSIONS": ["m"]}, open(os.path.join(root, "jn", ".zattrs"), "w"))
enc = numcodecs.JSON().encode(nulls)
open(os.path.join(root, "jn", "0"), "wb").write(enc)
print(json.dumps([words, list(numcodecs.JSON().decode(enc))]))
"#;

#[test]
fn object_arrays_read_as_strings() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("objects.zarr");
    let Some(out) = require::python_output(&["numcodecs", "xarray", "zarr"], PY_WRITE, [&root])
    else {
        return;
    };
    let (words, nulls): (Vec<String>, Vec<Option<String>>) =
        serde_json::from_str(out.trim()).unwrap();
    let store = Arc::new(DirectoryStore::open(&root).unwrap());
    let reader = ZarrReader::open(store, ZarrOptions::default()).unwrap();
    let schema = reader.schema();
    let mut seen = vec![];
    for v in schema.var_ids() {
        let name = schema.var(v).name.clone();
        if name == "jn" {
            let got = reader.read(v, &Selection::all(&[3])).unwrap();
            assert_eq!(got, Values::String(nulls.clone()), "{name}");
            assert!(nulls.contains(&None), "numcodecs decoded no null");
            seen.push(name);
            continue;
        }
        let got = reader.read(v, &Selection::all(&[5])).unwrap();
        assert_eq!(got, Values::strings(words.clone()), "{name}");
        let tail = reader.read(v, &Selection::block(&[3], &[2])).unwrap();
        assert_eq!(tail, Values::strings(words[3..].to_vec()), "{name}");
        seen.push(name);
    }
    assert_eq!(seen, ["j2", "jn", "vb", "xs"]);
}
