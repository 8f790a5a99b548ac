use super::{
    pad4, Header, HeaderDim, HeaderVar, NumRecs, TAG_ATTRIBUTE, TAG_DIMENSION, TAG_VARIABLE,
};
use crate::Version;
use nctk_model::Attribute;

/// Encodes `header`. The result is exactly [`encoded_len`] bytes long.
pub fn encode_header(header: &Header) -> Vec<u8> {
    let mut e = Encoder {
        out: Vec::with_capacity(encoded_len(header) as usize),
        version: header.version,
    };
    e.header(header);
    e.out
}

/// Length in bytes of the encoded `header` (netCDF-C's `ncx_len_NC`).
pub fn encoded_len(header: &Header) -> u64 {
    let v = header.version;
    let cs = v.count_size();
    4 + cs
        + list_len(v, header.dims.iter().map(|d| dim_len(v, d)))
        + attrs_len(v, &header.attrs)
        + list_len(v, header.vars.iter().map(|x| var_len(v, x)))
}

fn list_len(v: Version, items: impl Iterator<Item = u64>) -> u64 {
    4 + v.count_size() + items.sum::<u64>()
}

fn name_len(v: Version, name: &str) -> u64 {
    v.count_size() + pad4(name.len() as u64)
}

fn attr_len(v: Version, a: &Attribute) -> u64 {
    let size = a.value.dtype().size().unwrap_or(0) as u64;
    name_len(v, &a.name) + 4 + v.count_size() + pad4(a.value.len() as u64 * size)
}

fn attrs_len(v: Version, attrs: &[Attribute]) -> u64 {
    list_len(v, attrs.iter().map(|a| attr_len(v, a)))
}

fn dim_len(v: Version, d: &HeaderDim) -> u64 {
    name_len(v, &d.name) + v.count_size()
}

fn var_len(v: Version, x: &HeaderVar) -> u64 {
    let cs = v.count_size();
    name_len(v, &x.name)
        + cs
        + cs * x.dimids.len() as u64
        + attrs_len(v, &x.attrs)
        + 4
        + cs
        + v.offset_size()
}

struct Encoder {
    out: Vec<u8>,
    version: Version,
}

impl Encoder {
    fn u32(&mut self, x: u32) {
        self.out.extend_from_slice(&x.to_be_bytes());
    }

    fn count(&mut self, x: u64) {
        if self.version == Version::Cdf5 {
            self.out.extend_from_slice(&x.to_be_bytes());
        } else {
            self.u32(u32::try_from(x).unwrap_or(u32::MAX));
        }
    }

    fn offset(&mut self, x: u64) {
        if self.version == Version::Cdf1 {
            self.u32(u32::try_from(x).unwrap_or(u32::MAX));
        } else {
            self.out.extend_from_slice(&x.to_be_bytes());
        }
    }

    fn pad(&mut self, used: usize) {
        let n = pad4(used as u64) as usize - used;
        self.out.extend(std::iter::repeat_n(0u8, n));
    }

    fn name(&mut self, s: &str) {
        self.count(s.len() as u64);
        self.out.extend_from_slice(s.as_bytes());
        self.pad(s.len());
    }

    fn attrs(&mut self, attrs: &[Attribute]) {
        if attrs.is_empty() {
            self.u32(0);
            self.count(0);
            return;
        }
        self.u32(TAG_ATTRIBUTE);
        self.count(attrs.len() as u64);
        for a in attrs {
            self.name(&a.name);
            self.u32(a.value.dtype().code());
            self.count(a.value.len() as u64);
            let before = self.out.len();
            a.value.write_bytes(&mut self.out, true);
            let used = self.out.len() - before;
            self.pad(used);
        }
    }

    fn header(&mut self, h: &Header) {
        self.out
            .extend_from_slice(&[b'C', b'D', b'F', h.version.byte()]);
        match h.numrecs {
            NumRecs::Count(n) => self.count(n),
            NumRecs::Streaming => {
                let n = if self.version == Version::Cdf5 { 8 } else { 4 };
                self.out.extend(std::iter::repeat_n(0xFFu8, n));
            }
        }
        if h.dims.is_empty() {
            self.u32(0);
            self.count(0);
        } else {
            self.u32(TAG_DIMENSION);
            self.count(h.dims.len() as u64);
            for d in &h.dims {
                self.name(&d.name);
                self.count(d.len);
            }
        }
        self.attrs(&h.attrs);
        if h.vars.is_empty() {
            self.u32(0);
            self.count(0);
        } else {
            self.u32(TAG_VARIABLE);
            self.count(h.vars.len() as u64);
            for x in &h.vars {
                self.name(&x.name);
                self.count(x.dimids.len() as u64);
                for &d in &x.dimids {
                    self.count(d);
                }
                self.attrs(&x.attrs);
                self.u32(x.dtype.code());
                self.count(x.vsize);
                self.offset(x.begin);
            }
        }
    }
}
