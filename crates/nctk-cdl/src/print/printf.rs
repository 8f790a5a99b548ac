//! A small C `printf` for one numeric argument: what ncdump does with a
//! variable's `C_format` attribute (e.g. `"%.3f"`, `"%5d"`, `"%g"`).

use std::fmt::Write as _;

use super::numbers::{push_g, GStyle};

/// A parsed one-conversion C format: literal text around one `%` spec.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CFormat {
    prefix: Vec<u8>,
    suffix: Vec<u8>,
    left: bool,
    plus: bool,
    space: bool,
    alt: bool,
    zero: bool,
    width: usize,
    precision: Option<usize>,
    conv: u8,
}

/// A value handed to [`CFormat::push`].
#[derive(Debug, Clone, Copy)]
pub(crate) enum Arg {
    /// A signed integer.
    Int(i64),
    /// An unsigned integer.
    UInt(u64),
    /// A floating-point number.
    Float(f64),
}

/// Unescapes `%%` in literal text.
fn literal(s: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        if s[i] == b'%' && s.get(i + 1) == Some(&b'%') {
            i += 1;
        }
        out.push(s[i]);
        i += 1;
    }
    out
}

impl CFormat {
    /// Parses `fmt`; `None` unless it has exactly one numeric conversion.
    pub(crate) fn parse(fmt: &str) -> Option<CFormat> {
        let b = fmt.as_bytes();
        let mut i = 0;
        let start = loop {
            if i >= b.len() {
                return None;
            }
            if b[i] == b'%' {
                if b.get(i + 1) == Some(&b'%') {
                    i += 2;
                    continue;
                }
                break i;
            }
            i += 1;
        };
        let mut f = CFormat {
            prefix: literal(&b[..start]),
            suffix: vec![],
            left: false,
            plus: false,
            space: false,
            alt: false,
            zero: false,
            width: 0,
            precision: None,
            conv: 0,
        };
        i = start + 1;
        while i < b.len() {
            match b[i] {
                b'-' => f.left = true,
                b'+' => f.plus = true,
                b' ' => f.space = true,
                b'#' => f.alt = true,
                b'0' => f.zero = true,
                _ => break,
            }
            i += 1;
        }
        while i < b.len() && b[i].is_ascii_digit() {
            f.width = f.width * 10 + usize::from(b[i] - b'0');
            i += 1;
        }
        if i < b.len() && b[i] == b'.' {
            i += 1;
            let mut p = 0;
            while i < b.len() && b[i].is_ascii_digit() {
                p = p * 10 + usize::from(b[i] - b'0');
                i += 1;
            }
            f.precision = Some(p.min(60));
        }
        while i < b.len() && matches!(b[i], b'h' | b'l' | b'L' | b'q' | b'j' | b'z' | b't') {
            i += 1;
        }
        let conv = *b.get(i)?;
        if !b"diouxXeEfFgG".contains(&conv) {
            return None;
        }
        f.conv = conv;
        let rest = &b[i + 1..];
        // A second conversion is not supported.
        let mut k = 0;
        while k < rest.len() {
            if rest[k] == b'%' {
                if rest.get(k + 1) != Some(&b'%') {
                    return None;
                }
                k += 1;
            }
            k += 1;
        }
        f.suffix = literal(rest);
        Some(f)
    }

    /// Appends the formatted value.
    pub(crate) fn push(&self, out: &mut Vec<u8>, arg: Arg) {
        out.extend_from_slice(&self.prefix);
        let mut body = String::new();
        let mut neg = false;
        let float_conv = matches!(self.conv, b'e' | b'E' | b'f' | b'F' | b'g' | b'G');
        if float_conv {
            let x = match arg {
                Arg::Int(v) => v as f64,
                Arg::UInt(v) => v as f64,
                Arg::Float(v) => v,
            };
            neg = x.is_sign_negative() && !x.is_nan();
            let a = x.abs();
            let p = self.precision.unwrap_or(6);
            if !a.is_finite() {
                body.push_str(if a.is_nan() { "nan" } else { "inf" });
            } else {
                match self.conv {
                    b'f' | b'F' => {
                        let _ = write!(body, "{a:.p$}");
                        if self.alt && p == 0 {
                            body.push('.');
                        }
                    }
                    b'e' | b'E' => {
                        let s = format!("{a:.p$e}");
                        let (m, e) = s.split_once('e').unwrap_or((&s, "0"));
                        let e: i32 = e.parse().unwrap_or(0);
                        body.push_str(m);
                        if self.alt && p == 0 {
                            body.push('.');
                        }
                        let _ = write!(body, "e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs());
                    }
                    _ => {
                        let mut v = vec![];
                        let style = if self.alt {
                            GStyle::KeepPoint
                        } else {
                            GStyle::Plain
                        };
                        push_g(&mut v, a, p.max(1), style);
                        body.push_str(&String::from_utf8_lossy(&v));
                    }
                }
            }
            if self.conv.is_ascii_uppercase() {
                body = body.to_ascii_uppercase();
            }
        } else {
            let (mag, is_neg) = match arg {
                Arg::Int(v) => (v.unsigned_abs(), v < 0),
                Arg::UInt(v) => (v, false),
                Arg::Float(v) => ((v.abs()) as u64, v < 0.0),
            };
            match self.conv {
                b'd' | b'i' => {
                    neg = is_neg;
                    let _ = write!(body, "{mag}");
                }
                _ => {
                    // Unsigned conversions see the two's complement bits.
                    let bits = match arg {
                        Arg::Int(v) => v as u64,
                        _ => mag,
                    };
                    match self.conv {
                        b'o' => {
                            let _ = write!(body, "{bits:o}");
                            if self.alt && !body.starts_with('0') {
                                body.insert(0, '0');
                            }
                        }
                        b'x' => {
                            let _ = write!(body, "{bits:x}");
                        }
                        b'X' => {
                            let _ = write!(body, "{bits:X}");
                        }
                        _ => {
                            let _ = write!(body, "{bits}");
                        }
                    }
                }
            }
            if let Some(p) = self.precision {
                if p == 0 && body == "0" {
                    body.clear();
                }
                while body.len() < p {
                    body.insert(0, '0');
                }
            }
            if self.alt && bits_nonzero(&body) {
                match self.conv {
                    b'x' => body.insert_str(0, "0x"),
                    b'X' => body.insert_str(0, "0X"),
                    _ => {}
                }
            }
        }
        let sign = if neg {
            "-"
        } else if self.plus && (matches!(self.conv, b'd' | b'i') || float_conv) {
            "+"
        } else if self.space && (matches!(self.conv, b'd' | b'i') || float_conv) {
            " "
        } else {
            ""
        };
        let len = sign.len() + body.len();
        let pad = self.width.saturating_sub(len);
        let zero_ok = self.zero && !self.left && (float_conv || self.precision.is_none());
        if self.left {
            out.extend_from_slice(sign.as_bytes());
            out.extend_from_slice(body.as_bytes());
            out.extend(std::iter::repeat_n(b' ', pad));
        } else if zero_ok {
            out.extend_from_slice(sign.as_bytes());
            out.extend(std::iter::repeat_n(b'0', pad));
            out.extend_from_slice(body.as_bytes());
        } else {
            out.extend(std::iter::repeat_n(b' ', pad));
            out.extend_from_slice(sign.as_bytes());
            out.extend_from_slice(body.as_bytes());
        }
        out.extend_from_slice(&self.suffix);
    }
}

fn bits_nonzero(s: &str) -> bool {
    s.bytes().any(|c| c != b'0')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(fmt: &str, a: Arg) -> String {
        let mut o = vec![];
        CFormat::parse(fmt).unwrap().push(&mut o, a);
        String::from_utf8(o).unwrap()
    }

    #[test]
    fn common_formats() {
        assert_eq!(f("%.3f", Arg::Float(2.0 / 3.0)), "0.667");
        assert_eq!(f("%5d", Arg::Int(-42)), "  -42");
        assert_eq!(f("%-5d|", Arg::Int(42)), "42   |");
        assert_eq!(f("%05.1f", Arg::Float(1.25)), "001.2");
        assert_eq!(f("%g", Arg::Float(1e-5)), "1e-05");
        assert_eq!(f("%.2e", Arg::Float(12345.0)), "1.23e+04");
        assert_eq!(f("%x", Arg::Int(255)), "ff");
        assert_eq!(f("%d%%", Arg::Int(5)), "5%");
        assert!(CFormat::parse("%s").is_none());
    }
}
