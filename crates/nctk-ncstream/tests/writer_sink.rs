//! `NcStreamWriter` as a `DataSink`: the model's contract checks (read back
//! through `NcStreamReader`), and round trips of every type: what the
//! reader reads from a written stream equals what was written (values,
//! attributes, dimensions), after siphon has checked the same streams
//! (`writer_siphon.rs`).

mod writer_dataset;

use std::io::Write;
use std::sync::{Arc, Mutex};

use nctk_model::conformance::{self, SinkTarget};
use nctk_model::{DataSink, DataSource, Selection, SourceError, Values};
use nctk_ncstream::{DataOptions, NcStreamReader, NcStreamWriter};
use nctk_store::bytes::MemSource;

/// A stream in memory, shared between the writer and the test.
#[derive(Clone, Default)]
struct Shared(Arc<Mutex<Vec<u8>>>);

impl Write for Shared {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Shared {
    fn reader(&self) -> Result<NcStreamReader, nctk_ncstream::NcStreamError> {
        let bytes = self.0.lock().unwrap().clone();
        NcStreamReader::open(Arc::new(MemSource::new(bytes)), "mem.ncs")
    }
}

struct InMemory {
    stream: Shared,
    options: DataOptions,
}

impl SinkTarget for InMemory {
    fn create(&mut self) -> Box<dyn DataSink> {
        self.stream = Shared::default();
        Box::new(NcStreamWriter::new(
            self.stream.clone(),
            "mem.ncs",
            self.options,
        ))
    }

    fn open(&mut self) -> Result<Box<dyn DataSource>, SourceError> {
        Ok(Box::new(self.stream.reader()?))
    }
}

#[test]
fn the_contract_holds_plain_and_deflated() {
    for options in [DataOptions::default(), DataOptions { deflate: Some(1) }] {
        let mut target = InMemory {
            stream: Shared::default(),
            options,
        };
        conformance::sink_finishes(&mut target);
        conformance::sink_aborts(&mut target);
    }
}

#[test]
fn every_type_reads_back_as_written() {
    for options in [DataOptions::default(), DataOptions { deflate: Some(6) }] {
        let (schema, vals) = writer_dataset::dataset();
        let stream = Shared::default();
        let mut sink = NcStreamWriter::new(stream.clone(), "all.ncs", options);
        writer_dataset::write_all(&mut sink, &schema, &vals);
        Box::new(sink).finish().unwrap();
        let reader = stream.reader().unwrap();
        let read = reader.schema();
        assert_eq!(
            read.root().attributes,
            schema.root().attributes,
            "global attributes"
        );
        for (v, want) in &vals {
            let path = schema.var_path(*v);
            let r = read
                .var_by_path(&path)
                .unwrap_or_else(|| panic!("{path} read back"));
            assert_eq!(read.shape(r), {
                let mut s = schema.shape(*v);
                if schema.is_record_var(*v) {
                    s[0] = want.len() as u64;
                }
                s
            });
            let got = reader.read(r, &Selection::all(&read.shape(r))).unwrap();
            assert!(
                same_values(
                    read,
                    read.var(r).dtype,
                    &got,
                    &schema,
                    schema.var(*v).dtype,
                    want
                ),
                "{path}: {got:?} read, {want:?} written"
            );
            let attrs = &schema.var(*v).attributes;
            assert_eq!(&read.var(r).attributes, attrs, "{path}: attributes");
        }
    }
}

/// Values equal, NaNs equal, compound fields matched by name (a nested
/// compound comes after the other fields in ncstream, as netCDF-Java lists
/// a structure's members).
fn same_values(
    rs: &nctk_model::Schema,
    rt: nctk_model::DataType,
    got: &Values,
    ws: &nctk_model::Schema,
    wt: nctk_model::DataType,
    want: &Values,
) -> bool {
    use nctk_model::UserTypeKind::Compound;
    match (got, want, rs.user_kind(rt), ws.user_kind(wt)) {
        (Values::Double(a), Values::Double(b), ..) => {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
        }
        (
            Values::Compound { len: a, fields: fa },
            Values::Compound { len: b, fields: fb },
            Some(Compound { fields: ra, .. }),
            Some(Compound { fields: wa, .. }),
        ) => {
            a == b
                && ra.len() == wa.len()
                && wa.iter().zip(fb).all(|(wf, wv)| {
                    ra.iter().zip(fa).any(|(rf, rv)| {
                        rf.name == wf.name
                            && rf.dims == wf.dims
                            && same_values(rs, rf.dtype, rv, ws, wf.dtype, wv)
                    })
                })
        }
        _ => got == want,
    }
}

#[test]
fn slabs_out_of_order_read_back_whole() {
    let (schema, vals) = writer_dataset::dataset();
    let (w, values) = vals
        .iter()
        .find(|(v, _)| schema.var(*v).name == "w.v")
        .unwrap();
    let stream = Shared::default();
    let mut sink = NcStreamWriter::new(stream.clone(), "slabs.ncs", DataOptions::default());
    sink.define(&schema).unwrap();
    // The second row, then the first, then one value again (later wins).
    sink.write(*w, &Selection::block(&[1, 0], &[1, 3]), &values.slice(3..6))
        .unwrap();
    sink.write(*w, &Selection::block(&[0, 0], &[1, 3]), &values.slice(0..3))
        .unwrap();
    sink.write(
        *w,
        &Selection::block(&[0, 1], &[1, 1]),
        &Values::Short(vec![99]),
    )
    .unwrap();
    Box::new(sink).finish().unwrap();
    let reader = stream.reader().unwrap();
    let r = reader.schema().var_by_path("/g/w.v").unwrap();
    let got = reader.read(r, &Selection::all(&[2, 3])).unwrap();
    assert_eq!(got, Values::Short(vec![1, 99, 3, 4, 5, 6]));
}

#[test]
fn a_stream_cannot_be_redefined_after_data() {
    let (schema, vals) = writer_dataset::dataset();
    let mut sink = NcStreamWriter::new(Shared::default(), "x.ncs", DataOptions::default());
    sink.define(&schema).unwrap();
    let (v, values) = &vals[1];
    sink.write(*v, &Selection::all(&schema.shape(*v)), values)
        .unwrap();
    sink.define(&schema).expect("the same definitions again");
    let mut other = schema.clone();
    other
        .add_dim(nctk_model::GroupId::ROOT, "extra", 1, false)
        .unwrap();
    let err = sink.define(&other).unwrap_err().to_string();
    assert!(err.contains("x.ncs") && err.contains("redefined"), "{err}");
}

#[test]
fn an_aborted_stream_ends_with_an_error_message_and_no_end() {
    let (schema, vals) = writer_dataset::dataset();
    let stream = Shared::default();
    let mut sink = NcStreamWriter::new(stream.clone(), "cut.ncs", DataOptions::default());
    sink.define(&schema).unwrap();
    let (v, values) = &vals[1];
    sink.write(*v, &Selection::all(&schema.shape(*v)), values)
        .unwrap();
    Box::new(sink).abort().unwrap();
    let bytes = stream.0.lock().unwrap().clone();
    assert_eq!(bytes[..4], nctk_ncstream::message::START);
    assert_ne!(bytes[bytes.len() - 4..], nctk_ncstream::message::END);
    let err = match stream.reader() {
        Ok(_) => panic!("an aborted stream opened"),
        Err(e) => e.to_string(),
    };
    assert!(err.contains("the writer stopped"), "{err}");
}
