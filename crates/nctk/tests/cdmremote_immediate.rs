//! The cdmremote client and a header that carries values ("immediate"
//! data, which THREDDS sends for small coordinate variables and `nctk
//! serve` does not): `CdmRemoteReader` reads them from the header and asks
//! the server nothing. The header is THREDDS's own answer from the corpus
//! (`tds5_basic/00.ncs`), given through the reader's `Transport` seam by a
//! transport that has that one answer and counts every request; the truth
//! for the values is siphon 0.11 decoding the same header.
//!
//! `NCTK_CORPUS` locates the corpus; the test needs it and siphon as
//! `nctk_test_support::require` rules.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use nctk::model::{DataSource, Selection};
use nctk_ncstream::remote::{CdmRemoteReader, Transport, TransportError};
use nctk_test_support::require;

/// The recorded header answer for `req=header`; any other request is
/// counted and refused.
struct RecordedHeader {
    header: Vec<u8>,
    others: Arc<AtomicUsize>,
}

impl Transport for RecordedHeader {
    fn get(&self, query: &str) -> Result<Vec<u8>, TransportError> {
        if query == "req=header" {
            return Ok(self.header.clone());
        }
        self.others.fetch_add(1, Ordering::SeqCst);
        Err(TransportError::Status {
            status: 404,
            message: format!("no recorded answer for {query}"),
        })
    }

    fn name(&self) -> &str {
        "http://localhost:8080/thredds/cdmremote/nc4/tst/nc4_sfc_pres_temp.nc"
    }
}

/// siphon's immediate values of the header's variables: `{name: [values]}`.
const SIPHON_IMMEDIATE: &str = r#"
import sys, json
import numpy as np
from siphon.cdmr.ncstream import read_ncstream_messages, unpack_variable
with open(sys.argv[1], 'rb') as f:
    header = read_ncstream_messages(f)[0]
out = {}
for v in header.root.vars:
    data, _, _ = unpack_variable(v)
    if data is not None:
        out[v.name] = [float(x) for x in np.asarray(data).ravel()]
print(json.dumps(out))
"#;

/// Every variable whose values the header carries reads them, whole and in
/// sections, without a request; the others ask the server (here: refused,
/// an error naming the query).
#[test]
fn immediate_values_are_read_from_the_header() {
    let Some(answer) = require::corpus_path("generated/ncstream/siphon/tds5_basic/00.ncs") else {
        return;
    };
    let Some(out) = require::python_output(&["siphon.cdmr.ncstream"], SIPHON_IMMEDIATE, [&answer])
    else {
        return;
    };
    let expected: serde_json::Map<String, serde_json::Value> =
        serde_json::from_str(&out).expect("siphon's JSON");
    assert!(expected.contains_key("latitude"), "{expected:?}");
    let others = Arc::new(AtomicUsize::new(0));
    let transport = RecordedHeader {
        header: std::fs::read(&answer).unwrap(),
        others: others.clone(),
    };
    let reader = CdmRemoteReader::open(transport).unwrap();
    let schema = reader.schema().clone();
    for v in schema.var_ids() {
        let name = &schema.var(v).name;
        let shape = schema.shape(v);
        let all = reader.read(v, &Selection::all(&shape));
        match expected.get(name) {
            Some(values) => {
                let got = all.unwrap().as_f64_vec().unwrap();
                assert_eq!(serde_json::json!(got), *values, "{name}");
                let strided = Selection {
                    start: vec![1],
                    count: vec![(shape[0] - 1).div_ceil(2)],
                    stride: vec![2],
                };
                let got = reader.read(v, &strided).unwrap().as_f64_vec().unwrap();
                let want: Vec<serde_json::Value> = values
                    .as_array()
                    .unwrap()
                    .iter()
                    .skip(1)
                    .step_by(2)
                    .cloned()
                    .collect();
                assert_eq!(
                    serde_json::json!(got),
                    serde_json::Value::Array(want),
                    "{name}"
                );
            }
            None => {
                let e = all.unwrap_err().to_string();
                assert!(
                    e.contains("req=data&var=") && e.contains("404"),
                    "{name}: {e}"
                );
            }
        }
    }
    // One request for each variable without immediate values, none else.
    let without = schema
        .var_ids()
        .filter(|&v| !expected.contains_key(&schema.var(v).name))
        .count();
    assert_eq!(others.load(Ordering::SeqCst), without);
}
