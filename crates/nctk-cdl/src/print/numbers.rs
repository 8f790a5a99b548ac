//! Number formatting exactly as C's `printf` does it for ncdump.
//!
//! ncdump prints data with `%.7g` (float) and `%.15g` (double), and
//! attributes with `%#.7g` / `%#.15g` followed by its `tztrim` (trailing
//! zeros after the decimal point removed, the point kept). Both come out
//! of [`push_g`]: the value is rounded once, exactly (round half to even on
//! the exact binary value, as glibc does), to `precision` significant
//! digits, then laid out by `%g`'s rules.
//!
//! Floats take a fast path for every exponent: the value times a power of
//! ten is computed in `f64` (a correctly rounded power of ten and one
//! multiplication, a relative error under 3e-16) and used only when it
//! is far from a rounding tie; otherwise, and for doubles, the digits come
//! from Rust's exact formatting (`{:.N$e}`), which rounds the same way as
//! glibc. Text is written straight into the output buffer (no staging copy:
//! bytes stored one by one and then copied as a block stall the CPU's
//! store forwarding).

use std::fmt::Write as _;

/// The most significant digits ncdump accepts (`-p` up to 20).
const MAX_DIGITS: usize = 40;

/// Exact powers of ten representable in `f64`.
const POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// How [`push_g`] finishes a number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum GStyle {
    /// C's `%.Ng`: trailing zeros and a bare decimal point removed.
    Plain,
    /// C's `%#.Ng` then ncdump's `tztrim`: trailing zeros after the point
    /// removed, the point itself kept (`1.`, `1.5`, `1.e+36`).
    KeepPoint,
}

/// Decimal digits of a positive finite number rounded to `n` significant
/// digits: `digits[..n]` and the decimal exponent of the first digit.
struct Decimal {
    digits: [u8; MAX_DIGITS],
    exp: i32,
}

/// A fixed-capacity `fmt::Write` target on the stack.
struct StackBuf {
    buf: [u8; 64],
    len: usize,
}

impl std::fmt::Write for StackBuf {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        let b = s.as_bytes();
        let end = self.len + b.len();
        if end > self.buf.len() {
            return Err(std::fmt::Error);
        }
        self.buf[self.len..end].copy_from_slice(b);
        self.len = end;
        Ok(())
    }
}

/// Exact digits through Rust's correctly rounded `{:e}` formatting.
fn digits_exact(v: f64, n: usize) -> Decimal {
    let mut sb = StackBuf {
        buf: [0; 64],
        len: 0,
    };
    // n <= MAX_DIGITS, so "d.ddd...e-308" fits in 64 bytes.
    write!(sb, "{:.*e}", n - 1, v).expect("formatted number fits the buffer");
    let s = &sb.buf[..sb.len];
    let mut d = Decimal {
        digits: [b'0'; MAX_DIGITS],
        exp: 0,
    };
    let mut k = 0;
    let mut i = 0;
    while i < s.len() && s[i] != b'e' {
        if s[i].is_ascii_digit() {
            d.digits[k] = s[i];
            k += 1;
        }
        i += 1;
    }
    let exp_str = std::str::from_utf8(&s[i + 1..]).expect("ascii");
    d.exp = exp_str.parse().expect("exponent");
    d
}

/// Two-digit decimal strings "00".."99".
const DIGIT_PAIRS: &[u8; 200] = b"0001020304050607080910111213141516171819\
2021222324252627282930313233343536373839\
4041424344454647484950515253545556575859\
6061626364656667686970717273747576777879\
8081828384858687888990919293949596979899";

/// Writes the `n` low decimal digits of `v` (zero-padded) into `out[..n]`.
fn write_digits(out: &mut [u8], mut v: u64, n: usize) {
    let mut i = n;
    while i >= 2 {
        let d = (v % 100) as usize * 2;
        v /= 100;
        out[i - 2] = DIGIT_PAIRS[d];
        out[i - 1] = DIGIT_PAIRS[d + 1];
        i -= 2;
    }
    if i == 1 {
        out[0] = b'0' + (v % 10) as u8;
    }
}

/// `10^k` for `k` in -64..=64, each correctly rounded to `f64` (exact for
/// 0..=22): `SCALE[k + 64]`. A float needs `k` in -47..=55.
const SCALE: [f64; 129] = [
    1e-64, 1e-63, 1e-62, 1e-61, 1e-60, 1e-59, 1e-58, 1e-57, 1e-56, 1e-55, 1e-54, 1e-53, 1e-52,
    1e-51, 1e-50, 1e-49, 1e-48, 1e-47, 1e-46, 1e-45, 1e-44, 1e-43, 1e-42, 1e-41, 1e-40, 1e-39,
    1e-38, 1e-37, 1e-36, 1e-35, 1e-34, 1e-33, 1e-32, 1e-31, 1e-30, 1e-29, 1e-28, 1e-27, 1e-26,
    1e-25, 1e-24, 1e-23, 1e-22, 1e-21, 1e-20, 1e-19, 1e-18, 1e-17, 1e-16, 1e-15, 1e-14, 1e-13,
    1e-12, 1e-11, 1e-10, 1e-9, 1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1e0, 1e1, 1e2, 1e3,
    1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20,
    1e21, 1e22, 1e23, 1e24, 1e25, 1e26, 1e27, 1e28, 1e29, 1e30, 1e31, 1e32, 1e33, 1e34, 1e35, 1e36,
    1e37, 1e38, 1e39, 1e40, 1e41, 1e42, 1e43, 1e44, 1e45, 1e46, 1e47, 1e48, 1e49, 1e50, 1e51, 1e52,
    1e53, 1e54, 1e55, 1e56, 1e57, 1e58, 1e59, 1e60, 1e61, 1e62, 1e63, 1e64,
];

/// `10^k` from [`SCALE`] (`k` in -64..=64).
#[inline]
fn pow10(k: i32) -> f64 {
    SCALE[(k + 64) as usize]
}

/// Fast digits for a positive float value (exact in `f64`) when `n <= 9`,
/// or `None` when the scaled value is too close to a rounding tie.
fn digits_fast(v: f64, n: usize) -> Option<(u64, i32)> {
    debug_assert!((1..=9).contains(&n));
    // v is normal as an f64 (every float is); 2^e2 <= v < 2^(e2 + 1).
    let e2 = ((v.to_bits() >> 52) & 0x7ff) as i32 - 1023;
    // floor(e2 * log10(2)) is the decimal exponent or one less; one
    // comparison (no branch) settles it. Should the comparison with an
    // inexact power of ten err, `scaled` falls outside [lo, hi) and the
    // checks below send the value to the exact path.
    let e10 = (e2 * 78913) >> 18;
    let e10 = e10 + i32::from(v >= pow10(e10 + 1));
    let lo = POW10[n - 1];
    let hi = POW10[n];
    let scaled = v * pow10(n as i32 - 1 - e10);
    if scaled >= hi {
        return None;
    }
    // scaled < 1e9: the signed conversions are single instructions.
    let fl = scaled as i64 as u64;
    let frac = scaled - fl as i64 as f64;
    // The scaled value carries a relative error under 2 * 2^-53 (the power
    // of ten and the product are rounded once each), under 3e-7 absolute
    // for n <= 9: values within 2e-6 of a tie take the exact path.
    if (frac - 0.5).abs() < 2e-6 {
        return None;
    }
    let mut int = fl + u64::from(frac > 0.5);
    if int < lo as u64 {
        return None;
    }
    let mut exp = e10;
    if int >= hi as u64 {
        int /= 10;
        exp += 1;
    }
    Some((int, exp))
}

/// Appends C's `%.{precision}g` (or its `KeepPoint` variant) of a finite `v`.
pub(crate) fn push_g(out: &mut Vec<u8>, v: f64, precision: usize, style: GStyle) {
    let p = precision.clamp(1, MAX_DIGITS);
    // Sign, MAX_DIGITS digits, point, "0.000" or "e-308": under 64 bytes.
    Tail::write(out, 64, |o| {
        if v.is_sign_negative() {
            o.push(b'-');
        }
        let a = v.abs();
        let d = if a == 0.0 {
            Decimal {
                digits: [b'0'; MAX_DIGITS],
                exp: 0,
            }
        } else {
            digits_exact(a, p)
        };
        layout_g(o, &d.digits[..p], d.exp, style);
    });
}

/// Like [`push_g`] for a `float` value, with a fast path for precisions
/// up to 9 (ncdump's default is 7).
pub(crate) fn push_g_f32(out: &mut Vec<u8>, v: f32, precision: usize, style: GStyle) {
    let a = f64::from(v.abs());
    if precision <= 9 && precision > 0 && a != 0.0 {
        if let Some((int, exp)) = digits_fast(a, precision) {
            // Sign, 9 digits, point and "e-45", or "0.0000" and 9 digits.
            Tail::write(out, 32, |o| {
                // The sign without a branch (random signs mispredict).
                o.push(b'-');
                o.len -= usize::from(!v.is_sign_negative());
                if precision <= 8 {
                    layout_packed(o, int, precision, exp, style);
                } else {
                    let mut digits = [0u8; 9];
                    write_digits(&mut digits, int, precision);
                    layout_g(o, &digits[..precision], exp, style);
                }
            });
            return;
        }
    }
    push_g(out, f64::from(v), precision, style);
}

/// The 8 decimal digits of `x < 10^8`, one per byte, first digit in the
/// lowest byte (SWAR: both 4-digit halves, then 2-digit pairs, then
/// digits are split in parallel lanes of one `u64`).
fn packed_digits(x: u64) -> u64 {
    let merged = (x / 10_000) | ((x % 10_000) << 32);
    let hundreds = ((merged * 10_486) >> 20) & 0x0000_007f_0000_007f;
    let pairs = hundreds | ((merged - hundreds * 100) << 16);
    let tens = ((pairs * 103) >> 10) & 0x000f_000f_000f_000f;
    tens | ((pairs - tens * 10) << 8)
}

/// `%g` layout of the `n`-digit integer `int` (`n <= 8`, first digit
/// non-zero) with decimal exponent `x`: [`layout_g`]'s rules, with the
/// digits kept in one register and stored eight at a time.
fn layout_packed(o: &mut Tail, int: u64, n: usize, x: i32, style: GStyle) {
    // The n digits in bytes 0..n, zero bytes above.
    let d = packed_digits(int) >> (8 * (8 - n));
    let sig = 8 - d.leading_zeros() as usize / 8;
    let ascii = d + 0x3030_3030_3030_3030;
    let point = sig > 1 || style == GStyle::KeepPoint;
    if x < -4 || x >= n as i32 {
        o.push(ascii as u8);
        if point {
            o.push(b'.');
        }
        o.put8(ascii >> 8, sig - 1);
        o.push(b'e');
        o.push(if x < 0 { b'-' } else { b'+' });
        // A float's exponent has two digits.
        let ax = x.unsigned_abs() as usize * 2;
        o.extend(&DIGIT_PAIRS[ax..ax + 2]);
    } else if x >= 0 {
        let int_len = x as usize + 1;
        if sig <= int_len {
            o.put8(ascii, int_len);
            if style == GStyle::KeepPoint {
                o.push(b'.');
            }
        } else {
            o.put8(ascii, int_len);
            o.push(b'.');
            o.put8(ascii >> (8 * int_len), sig - int_len);
        }
    } else {
        // "0." and -x-1 zeros (at most 3), then the digits.
        o.put8(u64::from_le_bytes(*b"0.000000"), 1 + (-x) as usize);
        o.put8(ascii, sig);
    }
}

/// A number's text, written in place at the end of the output buffer.
struct Tail<'a> {
    buf: &'a mut [u8],
    len: usize,
}

impl Tail<'_> {
    /// Runs `f` on `room` bytes appended to `out`, then keeps only what it
    /// wrote (`f` must write at most `room` bytes).
    #[inline]
    fn write(out: &mut Vec<u8>, room: usize, f: impl FnOnce(&mut Tail)) {
        let start = out.len();
        out.resize(start + room, 0);
        let mut t = Tail {
            buf: &mut out[start..],
            len: 0,
        };
        f(&mut t);
        let len = t.len;
        out.truncate(start + len);
    }
    #[inline]
    fn push(&mut self, c: u8) {
        self.buf[self.len] = c;
        self.len += 1;
    }
    /// Stores the 8 bytes of `w` (first in the lowest byte) and keeps `n`
    /// of them (needs 8 bytes of room).
    #[inline]
    fn put8(&mut self, w: u64, n: usize) {
        self.buf[self.len..self.len + 8].copy_from_slice(&w.to_le_bytes());
        self.len += n;
    }
    #[inline]
    fn extend(&mut self, s: &[u8]) {
        self.buf[self.len..self.len + s.len()].copy_from_slice(s);
        self.len += s.len();
    }
}

/// Lays out rounded digits by `%g`'s rules.
fn layout_g(out: &mut Tail, digits: &[u8], x: i32, style: GStyle) {
    let p = digits.len() as i32;
    if x < -4 || x >= p {
        // Exponential: d.ddd e±XX
        out.push(digits[0]);
        push_fraction(out, &digits[1..], style);
        out.push(b'e');
        out.push(if x < 0 { b'-' } else { b'+' });
        let ax = x.unsigned_abs() as u64;
        let n = if ax >= 100 { 3 } else { 2 };
        let mut b = [0u8; 3];
        write_digits(&mut b, ax, n);
        out.extend(&b[..n]);
    } else if x >= 0 {
        let int_len = (x + 1) as usize;
        out.extend(&digits[..int_len]);
        push_fraction(out, &digits[int_len..], style);
    } else {
        // 0.000ddd: the first digit is non-zero (zero takes the x >= 0 branch).
        out.extend(b"0.");
        for _ in 0..(-x - 1) {
            out.push(b'0');
        }
        out.extend(&digits[..trimmed_len(digits)]);
    }
}

/// Length of `digits` without its trailing zeros.
fn trimmed_len(digits: &[u8]) -> usize {
    digits.iter().rposition(|&c| c != b'0').map_or(0, |i| i + 1)
}

/// Appends `.` and the fraction digits without trailing zeros; with
/// `Plain` the point goes too when nothing follows it.
fn push_fraction(out: &mut Tail, frac: &[u8], style: GStyle) {
    let keep = trimmed_len(frac);
    if keep > 0 || style == GStyle::KeepPoint {
        out.push(b'.');
    }
    out.extend(&frac[..keep]);
}

/// Appends the decimal digits of `v`.
pub(crate) fn push_u64(out: &mut Vec<u8>, v: u64) {
    let mut n = 1;
    let mut t = v;
    while t >= 10 {
        t /= 10;
        n += 1;
    }
    let mut buf = [0u8; 20];
    write_digits(&mut buf, v, n);
    out.extend_from_slice(&buf[..n]);
}

/// Appends the decimal digits of `v`, with a `-` when negative.
pub(crate) fn push_i64(out: &mut Vec<u8>, v: i64) {
    if v < 0 {
        out.push(b'-');
    }
    push_u64(out, v.unsigned_abs());
}

#[cfg(test)]
mod tests {
    use super::*;

    fn g(v: f64, p: usize) -> String {
        let mut o = vec![];
        push_g(&mut o, v, p, GStyle::Plain);
        String::from_utf8(o).unwrap()
    }
    fn gf(v: f32, p: usize) -> String {
        let mut o = vec![];
        push_g_f32(&mut o, v, p, GStyle::Plain);
        String::from_utf8(o).unwrap()
    }
    fn ga(v: f64, p: usize) -> String {
        let mut o = vec![];
        push_g(&mut o, v, p, GStyle::KeepPoint);
        String::from_utf8(o).unwrap()
    }

    #[test]
    fn matches_c_g_on_known_values() {
        // Expected strings from glibc printf.
        assert_eq!(gf(1.0, 7), "1");
        assert_eq!(gf(0.1, 7), "0.1");
        assert_eq!(gf(1e36, 7), "1e+36");
        assert_eq!(gf(f32::from_bits(0x7cf0_0000), 7), "9.96921e+36");
        assert_eq!(gf(-0.0, 7), "-0");
        assert_eq!(gf(123456.7, 7), "123456.7");
        assert_eq!(gf(1234567.0, 7), "1234567");
        assert_eq!(gf(12345678.0, 7), "1.234568e+07");
        assert_eq!(gf(0.0001, 7), "0.0001");
        assert_eq!(gf(0.00001, 7), "1e-05");
        assert_eq!(g(9.969209968386869e36, 15), "9.96920996838687e+36");
        assert_eq!(g(0.1, 15), "0.1");
        assert_eq!(g(2.5, 1), "2");
        assert_eq!(g(100.0, 15), "100");
        assert_eq!(ga(1.0, 7), "1.");
        assert_eq!(ga(100.0, 15), "100.");
        assert_eq!(ga(1e36, 7), "1.e+36");
        assert_eq!(ga(0.5, 7), "0.5");
        assert_eq!(ga(0.0, 7), "0.");
        assert_eq!(g(0.0, 7), "0");
    }

    /// C's `snprintf(fmt, precision, v)` (the oracle: glibc's printf).
    fn c_printf(fmt: &std::ffi::CStr, p: usize, v: f64) -> String {
        let mut buf = [0u8; 128];
        // SAFETY: the buffer's length is passed; the format takes an int
        // precision and a double, which are passed.
        let n = unsafe {
            libc::snprintf(
                buf.as_mut_ptr().cast(),
                buf.len(),
                fmt.as_ptr(),
                p as libc::c_int,
                v as libc::c_double,
            )
        };
        String::from_utf8(buf[..n as usize].to_vec()).unwrap()
    }

    /// Asserts both styles of a float (or double) at precision `p` equal
    /// C's `%.*g` and ncdump's `tztrim` of `%#.*g`.
    fn check(v: f64, p: usize, is_f32: bool) {
        let (mut plain, mut alt) = (vec![], vec![]);
        if is_f32 {
            push_g_f32(&mut plain, v as f32, p, GStyle::Plain);
            push_g_f32(&mut alt, v as f32, p, GStyle::KeepPoint);
        } else {
            push_g(&mut plain, v, p, GStyle::Plain);
            push_g(&mut alt, v, p, GStyle::KeepPoint);
        }
        let bits = if is_f32 {
            format!("{:08x}", (v as f32).to_bits())
        } else {
            format!("{:016x}", v.to_bits())
        };
        assert_eq!(
            String::from_utf8(plain).unwrap(),
            c_printf(c"%.*g", p, v),
            "{bits} %.{p}g"
        );
        assert_eq!(
            String::from_utf8(alt).unwrap(),
            tztrim(&c_printf(c"%#.*g", p, v)),
            "{bits} %#.{p}g"
        );
    }

    /// Floats that stress rounding: powers of ten and their neighbours,
    /// exact ties at every precision, carries (9.9999995), the extremes.
    fn float_edges() -> Vec<f32> {
        let mut v = vec![
            0.0,
            -0.0,
            f32::MIN_POSITIVE,
            f32::from_bits(1),
            f32::from_bits(0x007f_ffff),
            f32::MAX,
            f32::from_bits(0x7cf0_0000), // ncdump's float fill 9.96921e+36
            9_999_999.5,
            0.999_999_95,
            99_999_995.0,
            1.000_000_5e-5,
        ];
        for e in -45..=38 {
            let p = format!("1e{e}").parse::<f32>().unwrap();
            for b in p.to_bits().saturating_sub(2)..=p.to_bits() + 2 {
                v.push(f32::from_bits(b));
            }
        }
        // m + 0.5 at scales 2^-10..2^10 is an exact decimal tie.
        for m in 0..2000u32 {
            for s in [1.0f32, 0.5, 0.25, 1024.0, 1.0 / 1024.0, 1e-3] {
                v.push((m as f32 + 0.5) * s);
            }
        }
        v.iter().flat_map(|&x| [x, -x]).collect()
    }

    /// Property: every formatter output equals glibc's `printf` on edge
    /// values and on random bit patterns and plausible data, at each
    /// precision ncdump can use for floats (1-20, the default 7) and at
    /// the usual ones for doubles (15, 16, 17 and a few others).
    #[test]
    fn matches_c_printf_on_edge_and_random_values() {
        let mut seed = 0x1234_5678_9abc_def0u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let edges = float_edges();
        for p in 1..=20 {
            let mut n = 0;
            for &x in &edges {
                check(f64::from(x), p, true);
            }
            while n < 20_000 {
                let r = next();
                let x = match n % 3 {
                    0 => f32::from_bits(r as u32),
                    1 => (r % 1_000_000_000) as f32 / 1000.0,
                    _ => (r % 100_000) as f32 / 100.0,
                };
                if x.is_finite() {
                    check(f64::from(x), p, true);
                    n += 1;
                }
            }
        }
        for p in [1, 5, 15, 16, 17, 20] {
            for &x in &edges {
                check(f64::from(x) * 1.000_000_1, p, false);
            }
            let mut n = 0;
            while n < 20_000 {
                let r = next();
                let x = match n % 3 {
                    0 => f64::from_bits(r),
                    1 => (r % 1_000_000_000) as f64 / 1000.0,
                    _ => (r % 100_000) as f64 / 100.0 + 0.1,
                };
                if x.is_finite() {
                    check(x, p, false);
                    n += 1;
                }
            }
        }
    }

    /// ncdump's tztrim, transcribed for the oracle.
    fn tztrim(s: &str) -> String {
        let b = s.as_bytes();
        let mut i = usize::from(b.first() == Some(&b'-'));
        while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'.') {
            i += 1;
        }
        let ep = i;
        if b[ep - 1] == b'.' {
            return s.to_string();
        }
        let mut cp = ep - 1;
        while b[cp] == b'0' {
            cp -= 1;
        }
        cp += 1;
        format!("{}{}", &s[..cp], &s[ep..])
    }
}
