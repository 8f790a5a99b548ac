//! The validator: everything the reader rejects, plus what the reader (like
//! netCDF-C) tolerates but the format specification forbids, as PnetCDF's
//! `ncvalidator` fails it (errors: non-zero header padding, a second
//! zero-length dimension, a file longer than its header implies); and what
//! the specification allows but is suspicious (warnings: names netCDF-C
//! would not write, a `_FillValue` of another type, a short file, ...).
//! Each finding has a byte offset.

use crate::error::ClassicError;
use crate::header::{decode_header, DecodeError, Decoded, NumRecs};
use crate::reader::{layout_of, schema_of};
use crate::Version;
use nctk_model::name;
use nctk_store::bytes::ByteSource;

/// How bad a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    /// netCDF-C reads the file, but it breaks the specification or is suspicious.
    Warning,
    /// The file breaks the format: the reader refuses it, or it breaks the
    /// specification in a way PnetCDF's `ncvalidator` fails.
    Error,
}

/// One problem found in a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// Error or warning.
    pub severity: Severity,
    /// Byte offset the finding is about.
    pub offset: u64,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let sev = match self.severity {
            Severity::Warning => "warning",
            Severity::Error => "error",
        };
        write!(f, "{sev} at byte {}: {}", self.offset, self.message)
    }
}

/// An error at `offset`.
pub(crate) fn err(offset: u64, message: String) -> Finding {
    Finding {
        severity: Severity::Error,
        offset,
        message,
    }
}

/// A warning at `offset`.
pub(crate) fn warn(offset: u64, message: String) -> Finding {
    Finding {
        severity: Severity::Warning,
        offset,
        message,
    }
}

/// The finding for an error the reader would give.
fn finding_of(e: ClassicError) -> Finding {
    let (offset, message) = match e {
        ClassicError::Header { offset, reason, .. } => (offset, reason),
        e => (0, e.to_string()),
    };
    Finding {
        severity: Severity::Error,
        offset,
        message,
    }
}

/// Validates a classic file from any byte source. An empty list means the file conforms.
pub fn validate_source(source: &dyn ByteSource) -> Vec<Finding> {
    let file_len = match source.len() {
        Ok(n) => n,
        Err(e) => return vec![err(0, e.to_string())],
    };
    let buf = match usize::try_from(file_len.min(1 << 26)).map(|n| source.read_range(0..n as u64)) {
        Ok(Ok(b)) => b,
        Ok(Err(e)) => return vec![err(0, e.to_string())],
        Err(_) => return vec![err(0, "file too large".into())],
    };
    let decoded = match decode_header(&buf, file_len) {
        Ok(d) => d,
        Err(DecodeError::Invalid { offset, reason }) => return vec![err(offset, reason)],
        Err(DecodeError::NeedMore { len }) => {
            // Headers larger than 64 MiB: fall back to the reader's loop.
            return match crate::reader::read_header(source) {
                Ok(_) => vec![warn(
                    0,
                    format!("header of over {len} bytes not validated in full"),
                )],
                Err(e) => vec![finding_of(e)],
            };
        }
    };
    validate_decoded(&decoded, file_len)
}

/// The checks of [`validate_source`] on a decoded header of a file of
/// `file_len` bytes (the block-compressed validator runs them on its
/// stored header and uncompressed length).
pub(crate) fn validate_decoded(decoded: &Decoded, file_len: u64) -> Vec<Finding> {
    let mut out = vec![];
    for t in &decoded.tolerated {
        let finding = if t.breaks_spec { err } else { warn };
        out.push(finding(t.offset, t.message.clone()));
    }
    let h = &decoded.header;
    let at = |i: usize| decoded.var_offsets.get(i).copied().unwrap_or(0);
    // Names netCDF-C reads but would not write.
    let var_names = h
        .vars
        .iter()
        .enumerate()
        .map(|(i, v)| (at(i), "variable", &v.name));
    let attr_names = h
        .vars
        .iter()
        .enumerate()
        .flat_map(|(i, v)| v.attrs.iter().map(move |a| (at(i), "attribute", &a.name)));
    let names = h
        .dims
        .iter()
        .map(|d| (8, "dimension", &d.name))
        .chain(h.attrs.iter().map(|a| (8, "global attribute", &a.name)))
        .chain(var_names)
        .chain(attr_names);
    for (offset, what, n) in names {
        match name::normalize(n) {
            Err(e) => out.push(warn(
                offset,
                format!("{what} name: {e}; netCDF-C reads it but would not write it"),
            )),
            Ok(nfc) if nfc != *n => out.push(warn(
                offset,
                format!("{what} name {n:?} is not NFC-normalized"),
            )),
            Ok(_) => {}
        }
    }
    let zero_dims = h.dims.iter().filter(|d| d.len == 0).count();
    if zero_dims > 1 {
        out.push(err(
            8,
            format!(
                "{zero_dims} dimensions have length 0; only one may be the record dimension \
                 (netCDF-C reads the others as record dimensions too)"
            ),
        ));
    }
    // Duplicate names: the reader refuses them.
    let schema = match schema_of(h, 0, "", &decoded.var_offsets) {
        Ok(s) => s,
        Err(e) => {
            out.push(finding_of(e));
            return out;
        }
    };
    for v in schema.var_ids() {
        if let Err(e) = schema.check_fill_value(v) {
            out.push(warn(
                at(v.0 as usize),
                format!("{e}: netCDF-C reads it (the default fill is used) but refuses to write it in fill mode"),
            ));
        }
    }
    let layout = match layout_of(decoded, "") {
        Ok(l) => l,
        Err(e) => {
            out.push(finding_of(e));
            return out;
        }
    };
    for (i, (v, hv)) in layout.vars.iter().zip(&h.vars).enumerate() {
        let expect = if h.version == Version::Cdf5 {
            v.len
        } else {
            v.len.min(u32::MAX as u64)
        };
        if hv.vsize != expect {
            out.push(warn(
                at(i),
                format!(
                    "variable {:?}: vsize is {} but should be {expect}",
                    hv.name, hv.vsize
                ),
            ));
        }
    }
    let in_order = |record: bool| {
        let begins: Vec<u64> = layout
            .vars
            .iter()
            .filter(|v| v.is_record == record)
            .map(|v| v.begin)
            .collect();
        begins.is_sorted()
    };
    if !in_order(false) || !in_order(true) {
        out.push(warn(
            decoded.len,
            "variable data is not in header order".into(),
        ));
    }
    let numrecs = match h.numrecs {
        NumRecs::Count(n) => n,
        NumRecs::Streaming => {
            out.push(warn(
                4,
                "numrecs is STREAMING: records counted from the file length".into(),
            ));
            layout.records_in(file_len)
        }
    };
    let implied = layout.implied_len(numrecs);
    if file_len < implied {
        out.push(warn(file_len, format!("file is {file_len} bytes but the header implies {implied}: missing data reads as fill values")));
    } else if file_len > implied {
        out.push(err(
            implied,
            format!("file is {file_len} bytes but the header implies {implied}"),
        ));
    }
    out
}
