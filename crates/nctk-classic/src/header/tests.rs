use super::*;
use nctk_model::{DataType, Values};

/// `tiny.nc` of the specification (CDF-2): `short vx(dim=5)` at byte 84.
const TINY_CDF2: &[u8] = b"CDF\x02\0\0\0\0\0\0\0\x0a\0\0\0\x01\0\0\0\x03dim\0\0\0\0\x05\
\0\0\0\0\0\0\0\0\0\0\0\x0b\0\0\0\x01\0\0\0\x02vx\0\0\0\0\0\x01\0\0\0\0\0\0\0\0\0\0\0\0\
\0\0\0\x03\0\0\0\x0c\0\0\0\0\0\0\0\x54";

#[test]
fn spec_example_decodes_and_encodes_back() {
    let d = decode_header(TINY_CDF2, 96).unwrap();
    assert_eq!(d.len, 84);
    let h = &d.header;
    assert_eq!(h.version, Version::Cdf2);
    assert_eq!(
        h.dims,
        vec![HeaderDim {
            name: "dim".into(),
            len: 5
        }]
    );
    assert_eq!(h.vars[0].dtype, DataType::Short);
    assert_eq!((h.vars[0].vsize, h.vars[0].begin), (12, 84));
    assert_eq!(encode_header(h), TINY_CDF2);
    assert_eq!(encoded_len(h), 84);
}

#[test]
fn every_element_round_trips_in_every_version() {
    for version in [Version::Cdf1, Version::Cdf2, Version::Cdf5] {
        let h = Header {
            version,
            numrecs: NumRecs::Count(7),
            dims: vec![
                HeaderDim {
                    name: "t".into(),
                    len: 0,
                },
                HeaderDim {
                    name: "caf\u{e9}".into(),
                    len: 3,
                },
            ],
            attrs: vec![
                Attribute::new("title", Values::text("odd")),
                Attribute::new("s", Values::Short(vec![1, -2, 3])),
            ],
            vars: vec![HeaderVar {
                name: "v".into(),
                dimids: vec![0, 1],
                attrs: vec![Attribute::new("d", Values::Double(vec![0.5]))],
                dtype: DataType::Byte,
                vsize: 4,
                begin: 1234,
            }],
        };
        let bytes = encode_header(&h);
        assert_eq!(bytes.len() as u64, encoded_len(&h));
        let d = decode_header(&bytes, bytes.len() as u64).unwrap();
        assert_eq!(d.header, h);
        assert!(d.tolerated.is_empty());
        // Any shorter buffer asks for more bytes when the file is long enough.
        assert!(matches!(
            decode_header(&bytes[..bytes.len() - 1], 1 << 20),
            Err(DecodeError::NeedMore { .. })
        ));
    }
}

#[test]
fn streaming_numrecs_round_trips() {
    let mut h = Header::empty(Version::Cdf5);
    h.numrecs = NumRecs::Streaming;
    let bytes = encode_header(&h);
    assert_eq!(bytes.len(), 48);
    assert_eq!(decode_header(&bytes, 48).unwrap().header, h);
    assert_eq!(encode_header(&Header::empty(Version::Cdf1)).len(), 32);
}
