//! CDL constants: how ncgen types a numeric literal from its spelling and
//! suffix, and how it converts a constant to a variable's or attribute's
//! type (C casts, as ncgen does: integers wrap, fractions truncate).

use nctk_model::{DataType, Values};

use super::error::{CdlError, Pos};

/// A typed constant, as the lexer produces it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Const {
    /// `byte` (suffix `b`, or a character constant `'a'`).
    Byte(i8),
    /// `short` (suffix `s`).
    Short(i16),
    /// `int` (no suffix and in range, or suffix `l`).
    Int(i32),
    /// `int64` (suffix `ll`, or too large for `int`/`uint`).
    Int64(i64),
    /// `ubyte` (suffix `ub`).
    UByte(u8),
    /// `ushort` (suffix `us`).
    UShort(u16),
    /// `uint` (suffix `u`/`ul`, hexadecimal with a suffix, or too large for `int`).
    UInt(u32),
    /// `uint64` (suffix `ull`, or too large for `int64`).
    UInt64(u64),
    /// `float` (suffix `f`, `NaNf`, `Infinityf`).
    Float(f32),
    /// `double` (a decimal point or exponent, `NaN`, `Infinity`).
    Double(f64),
}

impl Const {
    /// The netCDF type of the constant.
    pub(crate) fn dtype(self) -> DataType {
        match self {
            Const::Byte(_) => DataType::Byte,
            Const::Short(_) => DataType::Short,
            Const::Int(_) => DataType::Int,
            Const::Int64(_) => DataType::Int64,
            Const::UByte(_) => DataType::UByte,
            Const::UShort(_) => DataType::UShort,
            Const::UInt(_) => DataType::UInt,
            Const::UInt64(_) => DataType::UInt64,
            Const::Float(_) => DataType::Float,
            Const::Double(_) => DataType::Double,
        }
    }

    fn num(self) -> Num {
        match self {
            Const::Byte(v) => Num::I(v.into()),
            Const::Short(v) => Num::I(v.into()),
            Const::Int(v) => Num::I(v.into()),
            Const::Int64(v) => Num::I(v.into()),
            Const::UByte(v) => Num::I(v.into()),
            Const::UShort(v) => Num::I(v.into()),
            Const::UInt(v) => Num::I(v.into()),
            Const::UInt64(v) => Num::I(v.into()),
            Const::Float(v) => Num::F(v.into()),
            Const::Double(v) => Num::F(v),
        }
    }

    /// The constant as text for a `string` target (ncgen's `sprintf` forms).
    pub(crate) fn to_text(self) -> String {
        match self.num() {
            Num::I(i) => i.to_string(),
            Num::F(x) => format_g8(x),
        }
    }
}

/// A number wide enough for any constant.
#[derive(Debug, Clone, Copy)]
enum Num {
    I(i128),
    F(f64),
}

/// What the lexer needs to know about an integer literal.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct IntLiteral {
    /// The typed value.
    pub value: Const,
    /// True when ncgen rejects the literal in the classic formats
    /// ("Illegal integer constant for classic format"): its type, after
    /// suffix and range, is wider than `int` or unsigned.
    pub classic_illegal: bool,
}

/// The type a suffix asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tag {
    None,
    Byte,
    Short,
    Int,
    Int64,
    UByte,
    UShort,
    UInt,
    UInt64,
}

impl Tag {
    fn parse(suffix: &str) -> Option<Tag> {
        let lower = suffix.to_ascii_lowercase();
        let (unsigned, rest) = match lower.strip_prefix('u') {
            Some(r) => (true, r),
            None => (false, lower.as_str()),
        };
        Some(match (unsigned, rest) {
            (false, "") => Tag::None,
            (true, "") => Tag::UInt,
            (false, "b") => Tag::Byte,
            (true, "b") => Tag::UByte,
            (false, "s") => Tag::Short,
            (true, "s") => Tag::UShort,
            (false, "l") => Tag::Int,
            (true, "l") => Tag::UInt,
            (false, "ll") => Tag::Int64,
            (true, "ll") => Tag::UInt64,
            _ => return None,
        })
    }

    fn unsigned(self) -> bool {
        matches!(self, Tag::UByte | Tag::UShort | Tag::UInt | Tag::UInt64)
    }
}

/// Why a numeric literal cannot be read; the text is ncgen's message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum LiteralError {
    /// The suffix after the digits is not one of ncgen's.
    #[error("Illegal integer suffix: {0}")]
    IntegerSuffix(String),
    /// A minus sign on an unsigned literal.
    #[error("Unsigned integer cannot be signed: {0}")]
    SignedUnsigned(String),
    /// More digits than 64 bits hold.
    #[error("integer constant out of range: {0}")]
    IntegerOverflow(String),
    /// The value does not fit the type its suffix names.
    #[error("Value out of range: {0}")]
    OutOfRange(String),
    /// Not a floating-point number (`float` or `double`, then the text).
    #[error("bad {0} constant: {1}")]
    BadFloat(&'static str, String),
}

/// Types a decimal or octal integer literal (`[+-]?digits[u][b|s|l|ll]`) as
/// ncgen 4.9 does: the suffix decides the type and the value is cast to it
/// (`300b` is 44, `65535s` is -1); without a suffix the smallest of `int`,
/// `uint`, `int64`, `uint64` that holds the value. A leading `0` means octal.
pub(crate) fn integer_literal(text: &str) -> Result<IntLiteral, LiteralError> {
    let digits_end = text
        .char_indices()
        .skip_while(|(i, c)| *i == 0 && (*c == '+' || *c == '-'))
        .find(|(_, c)| !c.is_ascii_digit())
        .map_or(text.len(), |(i, _)| i);
    let (number, suffix) = text.split_at(digits_end);
    let tag = Tag::parse(suffix).ok_or_else(|| LiteralError::IntegerSuffix(suffix.to_string()))?;
    let negative = number.starts_with('-');
    let digits = number.trim_start_matches(['+', '-']);
    if negative && tag.unsigned() {
        return Err(LiteralError::SignedUnsigned(number.to_string()));
    }
    let magnitude: u64 = if digits.starts_with('0') {
        // strtoull(.., 8) stops at the first non-octal digit.
        let octal: String = digits
            .chars()
            .take_while(|c| ('0'..='7').contains(c))
            .collect();
        u64::from_str_radix(&octal, 8)
    } else {
        digits.parse::<u64>()
    }
    .map_err(|_| LiteralError::IntegerOverflow(number.to_string()))?;
    let value = if tag == Tag::UInt64 && magnitude >> 63 == 1 {
        Const::UInt64(magnitude)
    } else {
        let v: i64 = if negative {
            (magnitude as i64).wrapping_neg()
        } else {
            magnitude as i64
        };
        let out_of_range = || LiteralError::OutOfRange(number.to_string());
        match tag {
            Tag::None => {
                let fits_int = if negative {
                    magnitude <= 1 << 31
                } else {
                    magnitude <= i32::MAX as u64
                };
                if fits_int {
                    Const::Int(v as i32)
                } else if !negative && magnitude <= u64::from(u32::MAX) {
                    Const::UInt(magnitude as u32)
                } else if negative {
                    Const::Int64(v)
                } else {
                    Const::UInt64(magnitude)
                }
            }
            _ if tag.unsigned() && v < 0 => return Err(out_of_range()),
            Tag::UByte => Const::UByte(u8::try_from(v).map_err(|_| out_of_range())?),
            Tag::UShort => Const::UShort(u16::try_from(v).map_err(|_| out_of_range())?),
            Tag::UInt => Const::UInt(u32::try_from(v).map_err(|_| out_of_range())?),
            Tag::UInt64 => Const::UInt64(v as u64),
            Tag::Int64 => Const::Int64(v),
            Tag::Byte => Const::Byte(v as i8),
            Tag::Short => Const::Short(v as i16),
            Tag::Int => Const::Int(v as i32),
        }
    };
    let classic_illegal = !matches!(value, Const::Byte(_) | Const::Short(_) | Const::Int(_));
    Ok(IntLiteral {
        value,
        classic_illegal,
    })
}

/// A hexadecimal literal with a size suffix (`0xabcdS`, `0x1FL`): ncgen
/// reads it with `%i` into an `unsigned int`, so it is always `uint`, with
/// values beyond `LONG_MAX` clamped there first.
pub(crate) fn hex_literal(hex_digits: &str) -> Const {
    let digits = hex_digits.trim_start_matches('0');
    let clamped: u64 = if digits.len() > 16 {
        i64::MAX as u64
    } else {
        u64::from_str_radix(if digits.is_empty() { "0" } else { digits }, 16)
            .map_or(i64::MAX as u64, |v| v.min(i64::MAX as u64))
    };
    Const::UInt(clamped as u32)
}

/// A floating-point literal; `float` when it ends in `f`/`F`, else `double`
/// (an `l`/`L`/`d`/`D` suffix is dropped).
pub(crate) fn float_literal(text: &str) -> Result<Const, LiteralError> {
    let (body, is_float) = match text.as_bytes().last() {
        Some(b'f' | b'F') => (&text[..text.len() - 1], true),
        Some(b'l' | b'L' | b'd' | b'D') => (&text[..text.len() - 1], false),
        _ => (text, false),
    };
    let bad = || LiteralError::BadFloat(if is_float { "float" } else { "double" }, text.into());
    let normalized = normalize_float(body).ok_or_else(bad)?;
    if is_float {
        normalized
            .parse::<f32>()
            .map(Const::Float)
            .map_err(|_| bad())
    } else {
        normalized
            .parse::<f64>()
            .map(Const::Double)
            .map_err(|_| bad())
    }
}

/// Rewrites C float syntax (`1.`, `.5`, `1.e5`) into what Rust parses;
/// `None` when there is no digit in the mantissa.
fn normalize_float(body: &str) -> Option<String> {
    let (sign, rest) = match body.as_bytes().first() {
        Some(b'+') => ("", &body[1..]),
        Some(b'-') => ("-", &body[1..]),
        _ => ("", body),
    };
    let (mantissa, exponent) = match rest.find(['e', 'E']) {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, ""),
    };
    let (int_part, frac_part) = match mantissa.find('.') {
        Some(i) => (&mantissa[..i], &mantissa[i + 1..]),
        None => (mantissa, ""),
    };
    if int_part.is_empty() && frac_part.is_empty() {
        return None;
    }
    let int_part = if int_part.is_empty() { "0" } else { int_part };
    let frac_part = if frac_part.is_empty() { "0" } else { frac_part };
    Some(format!("{sign}{int_part}.{frac_part}{exponent}"))
}

/// C's `%.8g`, used when ncgen turns a number into a string.
fn format_g8(x: f64) -> String {
    if x.is_nan() {
        return "nan".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf".into() } else { "-inf".into() };
    }
    if x == 0.0 {
        return if x.is_sign_negative() {
            "-0".into()
        } else {
            "0".into()
        };
    }
    let exp = format!("{x:.7e}");
    let (mant, e) = exp.split_once('e').unwrap_or((&exp, "0"));
    let e: i32 = e.parse().unwrap_or(0);
    let trim = |s: &str| {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s.to_string()
        }
    };
    if !(-4..8).contains(&e) {
        format!(
            "{}e{}{:02}",
            trim(mant),
            if e < 0 { '-' } else { '+' },
            e.abs()
        )
    } else {
        let decimals = (7 - e).max(0) as usize;
        trim(&format!("{x:.decimals$}"))
    }
}

/// x86-64 `cvttsd2si` to 32 bits: truncation, `i32::MIN` when out of range.
fn cvt_i32(x: f64) -> i32 {
    let t = x.trunc();
    if t.is_nan() || !(-2147483648.0..=2147483647.0).contains(&t) {
        i32::MIN
    } else {
        t as i32
    }
}

/// 2^63 as a double.
const TWO_63: f64 = 9_223_372_036_854_775_808.0;

/// x86-64 `cvttsd2si` to 64 bits: truncation, `i64::MIN` when out of range.
fn cvt_i64(x: f64) -> i64 {
    let t = x.trunc();
    if t.is_nan() || !(-TWO_63..TWO_63).contains(&t) {
        i64::MIN
    } else {
        t as i64
    }
}

macro_rules! int_from_num {
    ($name:ident, $t:ty, $float:expr) => {
        fn $name(n: Num) -> $t {
            match n {
                Num::I(i) => i as $t,
                Num::F(x) => $float(x),
            }
        }
    };
}

int_from_num!(num_i8, i8, |x| cvt_i32(x) as i8);
int_from_num!(num_u8, u8, |x| cvt_i32(x) as u8);
int_from_num!(num_i16, i16, |x| cvt_i32(x) as i16);
int_from_num!(num_u16, u16, |x| cvt_i32(x) as u16);
int_from_num!(num_i32, i32, cvt_i32);
int_from_num!(num_u32, u32, |x| cvt_i64(x) as u32);
int_from_num!(num_i64, i64, cvt_i64);
int_from_num!(num_u64, u64, |x: f64| if x < TWO_63 {
    cvt_i64(x) as u64
} else {
    (cvt_i64(x - TWO_63) as u64) ^ (1 << 63)
});

fn num_f32(n: Num) -> f32 {
    match n {
        Num::I(i) => i as f32,
        Num::F(x) => x as f32,
    }
}

fn num_f64(n: Num) -> f64 {
    match n {
        Num::I(i) => i as f64,
        Num::F(x) => x,
    }
}

/// Appends `c` converted to the type of `out` with C-cast semantics.
/// Strings (`string` targets) get ncgen's `sprintf` text; `char` targets get
/// the low byte. A type CDL has no numbers for is an error at `pos`.
pub(crate) fn push_const(out: &mut Values, c: Const, pos: Pos) -> Result<(), CdlError> {
    let n = c.num();
    match out {
        Values::Byte(v) => v.push(num_i8(n)),
        Values::Char(v) => v.push(num_i8(n) as u8),
        Values::Short(v) => v.push(num_i16(n)),
        Values::Int(v) => v.push(num_i32(n)),
        Values::Float(v) => v.push(match c {
            Const::Float(f) => f,
            _ => num_f32(n),
        }),
        Values::Double(v) => v.push(num_f64(n)),
        Values::UByte(v) => v.push(num_u8(n)),
        Values::UShort(v) => v.push(num_u16(n)),
        Values::UInt(v) => v.push(num_u32(n)),
        Values::Int64(v) => v.push(num_i64(n)),
        Values::UInt64(v) => v.push(num_u64(n)),
        Values::String(v) => v.push(Some(c.to_text())),
        other => {
            return Err(CdlError::unsupported(
                pos,
                format!("a number for type {}", other.dtype()),
            ))
        }
    }
    Ok(())
}

/// Appends a string constant converted to the type of `out`, as ncgen's
/// `sscanf` conversions do: a leading number is read, anything else is 0.
/// A `string` target takes the text, which must be UTF-8 (an error at
/// `pos` otherwise, never a replaced byte).
pub(crate) fn push_text(out: &mut Values, s: &[u8], pos: Pos) -> Result<(), CdlError> {
    let text = String::from_utf8_lossy(s);
    match out {
        Values::Char(v) => v.push(s.first().copied().unwrap_or(0)),
        Values::String(v) => v.push(Some(String::from_utf8(s.to_vec()).map_err(|e| {
            CdlError::semantic(
                pos,
                format!(
                    "string value is not valid UTF-8 (byte {:#04x} at offset {} of the string): \
                     a `string` holds UTF-8 text; use `char` for other bytes",
                    s[e.utf8_error().valid_up_to()],
                    e.utf8_error().valid_up_to()
                ),
            )
        })?)),
        Values::Float(_) | Values::Double(_) => {
            let x = leading_float(&text).unwrap_or(0.0);
            push_const(out, Const::Double(x), pos)?;
        }
        _ => {
            let i = leading_int(&text).unwrap_or(0);
            match out {
                Values::UInt64(v) => v.push(i as u64),
                _ => push_const(out, Const::Int64(i as i64), pos)?,
            }
        }
    }
    Ok(())
}

/// Appends an opaque constant (`0x...`) converted as ncgen does: the bytes
/// the hex digits spell, read as a native (little-endian) value of the
/// target's size (an opaque target: the bytes, cut or padded with zeros to
/// its size). `false` for `string` targets, which ncgen cannot convert.
pub(crate) fn push_opaque(out: &mut Values, hex: &str) -> bool {
    let bytes: Vec<u8> = hex
        .as_bytes()
        .chunks(2)
        .map(|p| {
            let s = std::str::from_utf8(p).unwrap_or("0");
            u8::from_str_radix(s, 16).unwrap_or(0)
        })
        .collect();
    let take = |n: usize| -> Vec<u8> {
        let mut b: Vec<u8> = bytes.iter().copied().take(n).collect();
        b.resize(n, 0);
        b
    };
    macro_rules! le {
        ($v:expr, $t:ty) => {{
            const N: usize = std::mem::size_of::<$t>();
            let b = take(N);
            let arr: [u8; N] = b.as_slice().try_into().unwrap_or([0; N]);
            $v.push(<$t>::from_le_bytes(arr));
        }};
    }
    match out {
        Values::Byte(v) => le!(v, i8),
        Values::Char(v) | Values::UByte(v) => le!(v, u8),
        Values::Short(v) => le!(v, i16),
        Values::UShort(v) => le!(v, u16),
        Values::Int(v) => le!(v, i32),
        Values::UInt(v) => le!(v, u32),
        Values::Int64(v) => le!(v, i64),
        Values::UInt64(v) => le!(v, u64),
        Values::Float(v) => le!(v, f32),
        Values::Double(v) => le!(v, f64),
        Values::Opaque { size, bytes: v } => v.extend(take(*size)),
        _ => return false,
    }
    true
}

fn leading_int(s: &str) -> Option<i128> {
    let s = s.trim_start();
    let s = &s[..s.char_indices().nth(40).map_or(s.len(), |(i, _)| i)];
    let end = s
        .char_indices()
        .take_while(|(i, c)| c.is_ascii_digit() || (*i == 0 && (*c == '-' || *c == '+')))
        .last()
        .map(|(i, c)| i + c.len_utf8())?;
    s[..end].parse().ok()
}

fn leading_float(s: &str) -> Option<f64> {
    let s = s.trim_start();
    let n = s
        .bytes()
        .take(64)
        .take_while(|b| b.is_ascii_digit() || b"+-.eE".contains(b))
        .count();
    let s = &s[..n];
    (1..=s.len())
        .rev()
        .filter(|&i| s.is_char_boundary(i))
        .find_map(|i| normalize_float(&s[..i]).and_then(|t| t.parse::<f64>().ok()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int(text: &str) -> Const {
        integer_literal(text).unwrap().value
    }

    #[test]
    fn suffixes_and_ranges_follow_ncgen() {
        assert_eq!(int("5"), Const::Int(5));
        assert_eq!(int("5L"), Const::Int(5));
        assert_eq!(int("-200000000000L"), Const::Int(1863462912));
        assert_eq!(int("200000000000"), Const::UInt64(200000000000));
        assert_eq!(int("2147483648"), Const::UInt(2147483648));
        assert_eq!(int("-2147483648"), Const::Int(i32::MIN));
        assert_eq!(int("-2147483649"), Const::Int64(-2147483649));
        assert_eq!(int("65535s"), Const::Short(-1));
        assert_eq!(int("300b"), Const::Byte(44));
        assert_eq!(int("255ub"), Const::UByte(255));
        assert_eq!(int("3UL"), Const::UInt(3));
        assert_eq!(int("3ull"), Const::UInt64(3));
        assert_eq!(int("7LL"), Const::Int64(7));
        assert_eq!(int("5us"), Const::UShort(5));
        assert_eq!(int("010"), Const::Int(8));
        assert_eq!(int("09"), Const::Int(0));
        assert_eq!(int("18446744073709551615ULL"), Const::UInt64(u64::MAX));
        assert!(integer_literal("-5u").is_err());
        assert!(integer_literal("300ub").is_err());
        assert!(integer_literal("99999999999999999999").is_err());
        assert!(integer_literal("7LL").unwrap().classic_illegal);
        assert!(!integer_literal("-5b").unwrap().classic_illegal);
    }

    #[test]
    fn hex_literals_are_uint() {
        assert_eq!(hex_literal("abcd"), Const::UInt(43981));
        assert_eq!(hex_literal("1F0000000F"), Const::UInt(15));
        assert_eq!(hex_literal("abcdabcdabcdabcd"), Const::UInt(u32::MAX));
    }

    #[test]
    fn floats() {
        assert_eq!(float_literal("1.e+15f").unwrap(), Const::Float(1e15));
        assert_eq!(float_literal(".5").unwrap(), Const::Double(0.5));
        assert_eq!(float_literal("5.").unwrap(), Const::Double(5.0));
        assert_eq!(float_literal("1e5").unwrap(), Const::Double(1e5));
        assert_eq!(float_literal("1.5L").unwrap(), Const::Double(1.5));
        assert!(float_literal(".").is_err());
    }

    #[test]
    fn conversions_are_c_casts() {
        let mut v = Values::Short(vec![]);
        for c in [Const::Double(1.9), Const::Double(-1.9), Const::Int(40000)] {
            push_const(&mut v, c, Pos::default()).unwrap();
        }
        assert_eq!(v, Values::Short(vec![1, -1, -25536]));
        let mut u = Values::UInt64(vec![]);
        push_const(&mut u, Const::Int64(-200000000000), Pos::default()).unwrap();
        assert_eq!(u, Values::UInt64(vec![18446743873709551616u64]));
        let mut b = Values::UByte(vec![]);
        push_const(&mut b, Const::Byte(-5), Pos::default()).unwrap();
        assert_eq!(b, Values::UByte(vec![251]));
        assert_eq!(format_g8(0.1), "0.1");
        assert_eq!(format_g8(1e36), "1e+36");
        assert_eq!(format_g8(123456789.0), "1.2345679e+08");
    }
}
