//! The validator: everything the reader rejects (errors) plus what netCDF-C
//! tolerates (warnings), each with a byte offset.

use crate::error::ClassicError;
use crate::header::{decode_header, DecodeError, NumRecs};
use crate::layout::{check_offsets, check_var_sizes, var_layouts};
use crate::Version;
use nctk_store::bytes::{ByteSource, FileSource};
use std::path::Path;

/// How bad a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    /// netCDF-C reads the file, but it breaks the specification or is suspicious.
    Warning,
    /// The file cannot be read (nctk's reader and netCDF-C refuse it).
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

/// Validates the classic file at `path`. An unreadable file is one error finding.
pub fn validate(path: impl AsRef<Path>) -> Vec<Finding> {
    match FileSource::open(path) {
        Ok(s) => validate_source(&s),
        Err(e) => vec![Finding {
            severity: Severity::Error,
            offset: 0,
            message: e.to_string(),
        }],
    }
}

/// Validates a classic file from any byte source. An empty list means the file conforms.
pub fn validate_source(source: &dyn ByteSource) -> Vec<Finding> {
    let mut out = vec![];
    let err = |offset: u64, message: String| Finding {
        severity: Severity::Error,
        offset,
        message,
    };
    let warn = |offset: u64, message: String| Finding {
        severity: Severity::Warning,
        offset,
        message,
    };
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
                Err(ClassicError::Header { offset, reason, .. }) => vec![err(offset, reason)],
                Err(e) => vec![err(0, e.to_string())],
            };
        }
    };
    for (offset, message) in &decoded.tolerated {
        out.push(warn(*offset, message.clone()));
    }
    let h = &decoded.header;
    let at = |i: usize| decoded.var_offsets.get(i).copied().unwrap_or(0);
    // Names.
    for d in &h.dims {
        if nctk_model::name::normalize(&d.name).as_deref() != Ok(d.name.as_str()) {
            out.push(warn(
                8,
                format!(
                    "dimension name {:?} breaks the name rules or is not NFC",
                    d.name
                ),
            ));
        }
    }
    for (i, v) in h.vars.iter().enumerate() {
        if nctk_model::name::normalize(&v.name).as_deref() != Ok(v.name.as_str()) {
            out.push(warn(
                at(i),
                format!(
                    "variable name {:?} breaks the name rules or is not NFC",
                    v.name
                ),
            ));
        }
        if !h.version.supports(v.dtype) {
            out.push(err(
                at(i),
                format!(
                    "variable {:?} has type {}, which {} does not allow",
                    v.name, v.dtype, h.version
                ),
            ));
        }
        for a in &v.attrs {
            if !h.version.supports(a.value.dtype()) {
                out.push(err(
                    at(i),
                    format!(
                        "attribute {:?} of {:?} has type {}, which {} does not allow",
                        a.name,
                        v.name,
                        a.value.dtype(),
                        h.version
                    ),
                ));
            }
            if a.name == "_FillValue" && (a.value.dtype() != v.dtype || a.value.len() != 1) {
                out.push(warn(
                    at(i),
                    format!("_FillValue of {:?} is not one {} value", v.name, v.dtype),
                ));
            }
        }
    }
    for a in &h.attrs {
        if !h.version.supports(a.value.dtype()) {
            out.push(err(
                8,
                format!(
                    "global attribute {:?} has type {}, which {} does not allow",
                    a.name,
                    a.value.dtype(),
                    h.version
                ),
            ));
        }
    }
    let zero_dims: Vec<usize> = (0..h.dims.len()).filter(|&i| h.dims[i].len == 0).collect();
    if zero_dims.len() > 1 {
        out.push(warn(
            8,
            format!(
                "{} dimensions have length 0; only the first is the record dimension",
                zero_dims.len()
            ),
        ));
    }
    let vars = match var_layouts(h) {
        Ok(v) => v,
        Err((i, reason)) => {
            out.push(err(
                at(i),
                format!("variable {:?}: {reason}", h.vars[i].name),
            ));
            return out;
        }
    };
    for (i, (v, hv)) in vars.iter().zip(&h.vars).enumerate() {
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
    if let Err(i) = check_var_sizes(h.version, &vars) {
        out.push(err(
            at(i),
            format!(
                "variable {:?} is too large for {}",
                h.vars[i].name, h.version
            ),
        ));
    }
    let order: Vec<u64> = vars
        .iter()
        .filter(|v| !v.is_record)
        .map(|v| v.begin)
        .collect();
    let rec_order: Vec<u64> = vars
        .iter()
        .filter(|v| v.is_record)
        .map(|v| v.begin)
        .collect();
    if !order.is_sorted() || !rec_order.is_sorted() {
        out.push(warn(
            decoded.len,
            "variable data is not in header order".into(),
        ));
    }
    let layout = match check_offsets(decoded.len, vars) {
        Ok(l) => l,
        Err((i, reason)) => {
            out.push(err(
                at(i),
                format!("variable {:?}: {reason}", h.vars[i].name),
            ));
            return out;
        }
    };
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
        out.push(warn(
            implied,
            format!("file is {file_len} bytes but the header implies {implied}"),
        ));
    }
    out
}
