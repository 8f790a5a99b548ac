//! Walks an HDF5 file with nctk-hdf5 and describes it in the JSON shape
//! `h5py_fixture.py` prints (the meta tests' common ground).

use std::collections::HashMap;
use std::sync::Arc;

use nctk_hdf5::{Attribute, DataspaceKind, Datatype, Hdf5File, LinkTarget, ObjectKind, Result};
use nctk_store::bytes::{ByteSource, MemSource};
use serde_json::{json, Map, Value};

/// Opens `bytes` as an HDF5 file.
pub fn open(bytes: Vec<u8>) -> Result<Hdf5File> {
    let source: Arc<dyn ByteSource> = Arc::new(MemSource::new(bytes));
    Hdf5File::open(source)
}

/// Every object reachable by hard links from the root, by path, described
/// as `h5py_fixture.py` describes them.
pub fn describe(file: &Hdf5File) -> Result<Map<String, Value>> {
    let mut out = Map::new();
    let mut seen = HashMap::new();
    visit(file, file.root_addr(), "/".into(), &mut seen, &mut out)?;
    // Object references were described by address: now name the paths.
    for desc in out.values_mut() {
        for attr in desc["attrs"].as_array_mut().unwrap() {
            if let Some(Value::Array(targets)) = attr.get_mut("targets") {
                for t in targets.iter_mut() {
                    let addr = t.as_u64().unwrap();
                    *t = json!(seen
                        .get(&addr)
                        .cloned()
                        .unwrap_or_else(|| format!("@{addr}")));
                }
            }
        }
    }
    Ok(out)
}

fn visit(
    file: &Hdf5File,
    addr: u64,
    path: String,
    seen: &mut HashMap<u64, String>,
    out: &mut Map<String, Value>,
) -> Result<()> {
    if seen.contains_key(&addr) {
        return Ok(());
    }
    seen.insert(addr, path.clone());
    let mut children = Vec::new();
    let desc = match file.object_kind(addr)? {
        ObjectKind::Group => {
            let g = file.group(addr)?;
            let links: Vec<Value> = g
                .links
                .iter()
                .map(|l| match &l.target {
                    LinkTarget::Hard(a) => {
                        let sep = if path == "/" { "" } else { "/" };
                        children.push((*a, format!("{path}{sep}{}", l.name)));
                        json!([l.name, "hard"])
                    }
                    LinkTarget::Soft(p) => json!([l.name, "soft", p]),
                    LinkTarget::External { file, path } => json!([l.name, "external", file, path]),
                })
                .collect();
            json!({"kind": "Group", "links": links, "attrs": attrs(file, &g.attributes)?})
        }
        ObjectKind::Dataset => {
            let d = file.dataset(addr)?;
            let mut v = json!({
                "kind": "Dataset",
                "type": type_desc(&d.datatype, d.datatype_committed.is_some()),
                "dims": d.dataspace.dims,
                "max_dims": d.dataspace.max_dims.as_ref().unwrap_or(&d.dataspace.dims).iter()
                    .map(|&m| if m == u64::MAX { json!(-1) } else { json!(m) }).collect::<Vec<_>>(),
                "attrs": attrs(file, &d.attributes)?,
            });
            if let Some(fill) = &d.fill.value {
                v["fill"] = json!(hex(fill));
            }
            v
        }
        ObjectKind::NamedDatatype => {
            let t = file.named_datatype(addr)?;
            json!({"kind": "NamedDatatype", "type": type_desc(&t.datatype, true),
                   "attrs": attrs(file, &t.attributes)?})
        }
    };
    out.insert(path, desc);
    for (a, p) in children {
        visit(file, a, p, seen, out)?;
    }
    Ok(())
}

fn attrs(file: &Hdf5File, list: &[Attribute]) -> Result<Vec<Value>> {
    list.iter()
        .map(|a| {
            let (space, dims) = match a.dataspace.kind {
                DataspaceKind::Scalar => (0, vec![]),
                DataspaceKind::Simple => (1, a.dataspace.dims.clone()),
                DataspaceKind::Null => (2, vec![]),
            };
            let mut v = json!({"name": a.name, "space": space, "dims": dims,
                               "type": type_desc(&a.datatype, a.datatype_committed.is_some())});
            match &a.datatype {
                _ if space == 2 => {}
                Datatype::VarString { .. } => {
                    let strings = vlen_elements(file, &a.raw, 1)?
                        .into_iter()
                        .map(|b| String::from_utf8_lossy(&b).into_owned())
                        .collect::<Vec<_>>();
                    v["strings"] = json!(strings);
                }
                Datatype::VarLen { base } => {
                    let seqs = vlen_elements(file, &a.raw, base.size() as usize)?;
                    v["sequences"] = json!(seqs.iter().map(|s| hex(s)).collect::<Vec<_>>());
                }
                Datatype::Reference { size: 8, .. } => {
                    let targets = a
                        .raw
                        .chunks(8)
                        .map(|r| u64::from_le_bytes(r.try_into().unwrap()));
                    v["targets"] = json!(targets.collect::<Vec<_>>());
                }
                _ => v["raw"] = json!(hex(&a.raw)),
            }
            Ok(v)
        })
        .collect()
}

/// The bytes of each variable-length element of `raw` (length in base
/// elements of `unit` bytes, collection address, object index).
pub fn vlen_elements(file: &Hdf5File, raw: &[u8], unit: usize) -> Result<Vec<Vec<u8>>> {
    raw.chunks(16)
        .map(|e| {
            let len = u32::from_le_bytes(e[0..4].try_into().unwrap()) as usize;
            let addr = u64::from_le_bytes(e[4..12].try_into().unwrap());
            let index = u32::from_le_bytes(e[12..16].try_into().unwrap());
            if len == 0 {
                return Ok(Vec::new());
            }
            let mut bytes = file.global_heap_object(addr, index)?;
            bytes.truncate(len * unit);
            Ok(bytes)
        })
        .collect()
}

/// The datatype as `h5py_fixture.py`'s `type_desc` gives it (HDF5 class
/// numbers; sizes of variable-length types are left out, as h5py reports
/// in-memory sizes for them).
pub fn type_desc(dt: &Datatype, committed: bool) -> Value {
    let mut v = json!({"committed": committed, "size": dt.size()});
    let class = match dt {
        Datatype::Integer {
            signed, big_endian, ..
        } => {
            v["signed"] = json!(signed);
            v["big_endian"] = json!(big_endian);
            0
        }
        Datatype::Float { big_endian, .. } => {
            v["big_endian"] = json!(big_endian);
            1
        }
        Datatype::Time { .. } => 2,
        Datatype::String { .. } => {
            v["vlen"] = json!(false);
            3
        }
        Datatype::VarString { .. } => {
            v["vlen"] = json!(true);
            3
        }
        Datatype::Bitfield { big_endian, .. } => {
            v["big_endian"] = json!(big_endian);
            4
        }
        Datatype::Opaque { tag, .. } => {
            v["tag"] = json!(tag);
            5
        }
        Datatype::Compound { members, .. } => {
            v["members"] = json!(members
                .iter()
                .map(|m| json!([m.name, m.offset]))
                .collect::<Vec<_>>());
            6
        }
        Datatype::Reference { .. } => 7,
        Datatype::Enum { base, members } => {
            let signed = matches!(**base, Datatype::Integer { signed: true, .. });
            let be = matches!(
                **base,
                Datatype::Integer {
                    big_endian: true,
                    ..
                }
            );
            let mut m: Vec<Value> = members
                .iter()
                .map(|(n, raw)| json!([n, int_value(raw, signed, be)]))
                .collect();
            m.sort_by(|a, b| a[0].as_str().cmp(&b[0].as_str()));
            v["members"] = json!(m);
            8
        }
        Datatype::VarLen { .. } => 9,
        Datatype::Array { dims, .. } => {
            v["dims"] = json!(dims);
            10
        }
    };
    v["class"] = json!(class);
    v
}

fn int_value(raw: &[u8], signed: bool, big_endian: bool) -> i128 {
    let mut bytes: Vec<u8> = raw.to_vec();
    if big_endian {
        bytes.reverse();
    }
    let negative = signed && bytes.last().is_some_and(|b| b & 0x80 != 0);
    let mut buf = [if negative { 0xff } else { 0 }; 16];
    buf[..bytes.len()].copy_from_slice(&bytes);
    i128::from_le_bytes(buf)
}

/// Lower-case hex, as Python's `bytes.hex()`.
pub fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = vec![0u8; bytes.len() * 2];
    for (pair, &b) in out.chunks_exact_mut(2).zip(bytes) {
        pair[0] = DIGITS[usize::from(b >> 4)];
        pair[1] = DIGITS[usize::from(b & 15)];
    }
    String::from_utf8(out).unwrap()
}

/// Walks everything [`describe`] reaches; for damaged files (not every
/// test file that includes this module uses it).
#[allow(dead_code)]
pub fn walk_all(bytes: Vec<u8>) -> Result<()> {
    describe(&open(bytes)?).map(|_| ())
}
