use super::{
    pad4, Header, HeaderDim, HeaderVar, NumRecs, TAG_ATTRIBUTE, TAG_DIMENSION, TAG_VARIABLE,
};
use crate::Version;
use nctk_model::{Attribute, DataType, Values};

/// Why a header could not be decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum DecodeError {
    /// The bytes given end inside the header, but the file is long enough:
    /// call again with at least `len` bytes from the start of the file.
    NeedMore {
        /// Bytes needed from the start of the file.
        len: u64,
    },
    /// The header is invalid.
    Invalid {
        /// Byte offset of the problem.
        offset: u64,
        /// What is wrong.
        reason: String,
    },
}

/// Something netCDF-C reads that a strict reading of the format questions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tolerated {
    /// Byte offset of the oddity.
    pub offset: u64,
    /// What is odd.
    pub message: String,
    /// True when the format specification forbids it (PnetCDF's
    /// `ncvalidator` fails the file: a validator error); false for what
    /// the specification allows but is suspicious (a validator warning).
    pub breaks_spec: bool,
}

/// A decoded header, its length in bytes and what was tolerated on the way.
#[derive(Debug, Clone, PartialEq)]
pub struct Decoded {
    /// The header.
    pub header: Header,
    /// Length of the encoded header in bytes.
    pub len: u64,
    /// Oddities netCDF-C tolerates (non-zero padding, mis-tagged empty lists,
    /// names with a NUL), with their byte offsets.
    pub tolerated: Vec<Tolerated>,
    /// Byte offset of each variable's entry in the header.
    pub var_offsets: Vec<u64>,
}

/// Decodes the header at the start of `buf`. `file_len` is the length of the
/// whole file: counts that imply more bytes than it holds are rejected at
/// once, before anything is allocated from them.
pub fn decode_header(buf: &[u8], file_len: u64) -> Result<Decoded, DecodeError> {
    let mut d = Decoder {
        buf,
        pos: 0,
        file_len: file_len.max(buf.len() as u64),
        version: Version::Cdf1,
        tolerated: vec![],
        var_offsets: vec![],
    };
    let header = d.header()?;
    Ok(Decoded {
        header,
        len: d.pos as u64,
        tolerated: d.tolerated,
        var_offsets: d.var_offsets,
    })
}

pub(super) struct Decoder<'a> {
    buf: &'a [u8],
    pos: usize,
    file_len: u64,
    version: Version,
    tolerated: Vec<Tolerated>,
    var_offsets: Vec<u64>,
}

type R<T> = Result<T, DecodeError>;

impl<'a> Decoder<'a> {
    fn tolerate(&mut self, offset: usize, message: String, breaks_spec: bool) {
        self.tolerated.push(Tolerated {
            offset: offset as u64,
            message,
            breaks_spec,
        });
    }

    fn invalid<T>(&self, offset: usize, reason: impl Into<String>) -> R<T> {
        Err(DecodeError::Invalid {
            offset: offset as u64,
            reason: reason.into(),
        })
    }

    /// Takes `n` bytes, or says why it cannot.
    fn take(&mut self, n: u64, what: &str) -> R<&'a [u8]> {
        let end = (self.pos as u64).saturating_add(n);
        if end > self.file_len {
            return self.invalid(
                self.pos,
                format!(
                    "header truncated: {what} needs {n} bytes but the file ends at byte {}",
                    self.file_len
                ),
            );
        }
        if end > self.buf.len() as u64 {
            return Err(DecodeError::NeedMore { len: end });
        }
        let s = &self.buf[self.pos..end as usize];
        self.pos = end as usize;
        Ok(s)
    }

    fn u32(&mut self, what: &str) -> R<u32> {
        let b = self.take(4, what)?;
        Ok(u32::from_be_bytes(b.try_into().expect("4 bytes")))
    }

    fn u64(&mut self, what: &str) -> R<u64> {
        let b = self.take(8, what)?;
        Ok(u64::from_be_bytes(b.try_into().expect("8 bytes")))
    }

    /// A NON_NEG count or length (4 bytes, 8 in CDF-5).
    fn count(&mut self, what: &str) -> R<u64> {
        if self.version == Version::Cdf5 {
            let at = self.pos;
            let v = self.u64(what)?;
            if v > i64::MAX as u64 {
                return self.invalid(
                    at,
                    format!("{what} {v} is negative as a signed 64-bit count"),
                );
            }
            Ok(v)
        } else {
            self.u32(what).map(u64::from)
        }
    }

    fn offset(&mut self, what: &str) -> R<u64> {
        if self.version == Version::Cdf1 {
            self.u32(what).map(u64::from)
        } else {
            let at = self.pos;
            let v = self.u64(what)?;
            if v > i64::MAX as u64 {
                return self.invalid(
                    at,
                    format!("{what} {v} is negative as a signed 64-bit offset"),
                );
            }
            Ok(v)
        }
    }

    /// Rejects a count whose elements, each at least `min_each` bytes, cannot
    /// fit in the rest of the file.
    fn check_count(&self, at: usize, count: u64, min_each: u64, what: &str) -> R<()> {
        let remaining = self.file_len - self.pos as u64;
        match count.checked_mul(min_each) {
            Some(need) if need <= remaining => Ok(()),
            _ => self.invalid(
                at,
                format!(
                    "{what} count {count} needs at least {} bytes but only {remaining} remain in the file",
                    count.saturating_mul(min_each)
                ),
            ),
        }
    }

    fn padding(&mut self, used: u64, what: &str) -> R<()> {
        let at = self.pos;
        let pad = self.take(pad4(used) - used, what)?;
        if pad.iter().any(|&b| b != 0) {
            self.tolerate(at, format!("non-zero header padding after {what}"), true);
        }
        Ok(())
    }

    fn name(&mut self, what: &str) -> R<String> {
        let at = self.pos;
        let n = self.count(what)?;
        self.check_count(at, n, 1, &format!("{what} length"))?;
        let start = self.pos;
        let mut bytes = self.take(n, what)?;
        if let Some(nul) = bytes.iter().position(|&b| b == 0) {
            // netCDF-C uses names as C strings: they end at the first NUL.
            self.tolerate(start, format!("{what} contains a NUL byte"), false);
            bytes = &bytes[..nul];
        }
        let name = match nctk_model::name::from_stored(bytes) {
            Ok(name) => name,
            Err(e) => return self.invalid(start, format!("{what}: {e}")),
        };
        if name.is_empty() {
            self.tolerate(at, format!("{what} is empty"), false);
        }
        self.padding(n, what)?;
        Ok(name)
    }

    fn dtype(&mut self, what: &str) -> R<DataType> {
        let at = self.pos;
        let code = self.u32(what)?;
        match DataType::from_code(code) {
            Some(t) if self.version.supports(t) => Ok(t),
            Some(t) if t != DataType::String => self.invalid(
                at,
                format!(
                    "{what}: type code {code} ({t}) is not allowed in {} files \
                     (netCDF-C: Not a valid data type or _FillValue type mismatch)",
                    self.version
                ),
            ),
            _ => self.invalid(at, format!("{what}: unknown type code {code}")),
        }
    }

    /// A list's tag and element count. An absent list (count 0) with another
    /// tag than ZERO is tolerated, as netCDF-C does.
    fn list_head(&mut self, tag: u32, min_each: u64, what: &str) -> R<u64> {
        let at = self.pos;
        let found = self.u32(what)?;
        let count_at = self.pos;
        let n = self.count(what)?;
        if n == 0 {
            if found != 0 && found != tag {
                self.tolerate(at, format!("empty {what} has tag {found:#x}"), false);
            }
            return Ok(0);
        }
        if found != tag {
            return self.invalid(
                at,
                format!("expected the {what} tag {tag:#x}, found {found:#x}"),
            );
        }
        self.check_count(count_at, n, min_each, what)?;
        Ok(n)
    }

    fn attr(&mut self) -> R<Attribute> {
        let name = self.name("attribute name")?;
        let dtype = self.dtype(&format!("type of attribute {name:?}"))?;
        let at = self.pos;
        let n = self.count("attribute length")?;
        let size = dtype.size().expect("fixed-width type") as u64;
        self.check_count(at, n, size, &format!("attribute {name:?} value"))?;
        let bytes = self.take(n * size, "attribute values")?;
        let value = Values::from_bytes(dtype, bytes, true);
        self.padding(n * size, &format!("values of attribute {name:?}"))?;
        Ok(Attribute::new(name, value))
    }

    fn attrs(&mut self, what: &str) -> R<Vec<Attribute>> {
        let cs = self.version.count_size();
        let n = self.list_head(TAG_ATTRIBUTE, 2 * cs + 4, what)?;
        let mut out = Vec::with_capacity(n as usize);
        for _ in 0..n {
            out.push(self.attr()?);
        }
        Ok(out)
    }

    fn dim(&mut self) -> R<HeaderDim> {
        let name = self.name("dimension name")?;
        let len = self.count("dimension length")?;
        Ok(HeaderDim { name, len })
    }

    fn var(&mut self) -> R<HeaderVar> {
        let cs = self.version.count_size();
        let name = self.name("variable name")?;
        let at = self.pos;
        let ndims = self.count("variable rank")?;
        self.check_count(at, ndims, cs, &format!("dimension ids of {name:?}"))?;
        let mut dimids = Vec::with_capacity(ndims as usize);
        for _ in 0..ndims {
            dimids.push(self.count("dimension id")?);
        }
        let attrs = self.attrs("attribute list")?;
        let dtype = self.dtype(&format!("type of variable {name:?}"))?;
        let vsize = self.count("vsize")?;
        let begin = self.offset("begin")?;
        Ok(HeaderVar {
            name,
            dimids,
            attrs,
            dtype,
            vsize,
            begin,
        })
    }

    fn header(&mut self) -> R<Header> {
        let magic = self.take(4, "magic number")?;
        let version = match magic {
            [b'C', b'D', b'F', v] => match Version::from_byte(*v) {
                Some(v) => v,
                None => return self.invalid(3, format!("unknown classic version byte {v}")),
            },
            _ => return self.invalid(0, "not a classic netCDF file (magic is not CDF)"),
        };
        self.version = version;
        let cs = version.count_size();
        let numrecs = if version == Version::Cdf5 {
            match self.u64("numrecs")? {
                u64::MAX => NumRecs::Streaming,
                n if n > i64::MAX as u64 => {
                    return self.invalid(4, format!("numrecs {n} is negative"));
                }
                n => NumRecs::Count(n),
            }
        } else {
            match self.u32("numrecs")? {
                u32::MAX => NumRecs::Streaming,
                n => NumRecs::Count(n.into()),
            }
        };
        let ndims = self.list_head(TAG_DIMENSION, 2 * cs, "dimension list")?;
        let mut dims = Vec::with_capacity(ndims as usize);
        for _ in 0..ndims {
            dims.push(self.dim()?);
        }
        let attrs = self.attrs("global attribute list")?;
        // name length, rank, empty attribute list (tag + count), type, vsize, begin.
        let min_var = cs + cs + (4 + cs) + 4 + cs + version.offset_size();
        let nvars = self.list_head(TAG_VARIABLE, min_var, "variable list")?;
        let mut vars = Vec::with_capacity(nvars as usize);
        for _ in 0..nvars {
            self.var_offsets.push(self.pos as u64);
            vars.push(self.var()?);
        }
        Ok(Header {
            version,
            numrecs,
            dims,
            attrs,
            vars,
        })
    }
}
