//! Number formatting exactly as C's `printf` does it for ncdump.
//!
//! ncdump prints data with `%.7g` (float) and `%.15g` (double), and
//! attributes with `%#.7g` / `%#.15g` followed by its `tztrim` (trailing
//! zeros after the decimal point removed, the point kept). Both come out
//! of [`push_g`]: the value is rounded once, exactly (round half to even on
//! the exact binary value, as glibc does), to `precision` significant
//! digits, then laid out by `%g`'s rules.
//!
//! Floats take a fast path: the exact value times a power of ten is
//! computed in `f64` (one rounding) and used only when it is far from a
//! rounding tie; otherwise, and for doubles, the digits come from Rust's
//! exact formatting (`{:.N$e}`), which rounds the same way as glibc.

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

/// Fast digits for a float value (exact in `f64`) when `n <= 9`, or
/// `None` when the scaled value is too close to a rounding tie or out of
/// the range of exact powers of ten.
fn digits_fast(v: f64, n: usize) -> Option<(u64, i32)> {
    debug_assert!((1..=9).contains(&n));
    // v is normal as an f64 (every float is); 2^e2 <= v < 2^(e2 + 1).
    let e2 = ((v.to_bits() >> 52) & 0x7ff) as i32 - 1023;
    // floor(e2 * log10(2)): the decimal exponent or one less.
    let mut e10 = (e2 * 78913) >> 18;
    let lo = POW10[n - 1];
    let hi = POW10[n];
    let mut scaled = 0.0;
    for _ in 0..2 {
        let k = n as i32 - 1 - e10;
        scaled = if (0..=22).contains(&k) {
            v * POW10[k as usize]
        } else if (-22..0).contains(&k) {
            v / POW10[(-k) as usize]
        } else {
            return None;
        };
        if scaled < hi {
            break;
        }
        e10 += 1;
    }
    if scaled >= hi {
        return None;
    }
    let fl = scaled as u64;
    let frac = scaled - fl as f64;
    // The scaled value carries a relative error of at most 2^-53,
    // i.e. under 1.2e-7 absolute for n <= 9.
    if (frac - 0.5).abs() < 1e-6 {
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

/// `%g` layout of the `n`-digit integer `int` (first digit non-zero)
/// with decimal exponent `x`, written straight into `o`.
fn layout_int(o: &mut Small, int: u64, n: usize, x: i32, style: GStyle) {
    let mut sig = n;
    let mut s = int;
    while s % 10 == 0 {
        s /= 10;
        sig -= 1;
    }
    let point = style == GStyle::KeepPoint;
    if x < -4 || x >= n as i32 {
        let rest = sig - 1;
        let p10 = POW10_U64[rest];
        o.push(b'0' + (s / p10) as u8);
        if rest > 0 || point {
            o.push(b'.');
        }
        o.digits(s % p10, rest);
        o.push(b'e');
        o.push(if x < 0 { b'-' } else { b'+' });
        let ax = u64::from(x.unsigned_abs());
        o.digits(ax, if ax >= 100 { 3 } else { 2 });
    } else if x >= 0 {
        let int_len = x as usize + 1;
        if sig <= int_len {
            o.digits(s, sig);
            for _ in sig..int_len {
                o.push(b'0');
            }
            if point {
                o.push(b'.');
            }
        } else {
            let p10 = POW10_U64[sig - int_len];
            o.digits(s / p10, int_len);
            o.push(b'.');
            o.digits(s % p10, sig - int_len);
        }
    } else {
        o.extend(b"0.");
        for _ in 0..(-x - 1) {
            o.push(b'0');
        }
        o.digits(s, sig);
    }
}

/// Powers of ten as integers.
const POW10_U64: [u64; 20] = [
    1,
    10,
    100,
    1_000,
    10_000,
    100_000,
    1_000_000,
    10_000_000,
    100_000_000,
    1_000_000_000,
    10_000_000_000,
    100_000_000_000,
    1_000_000_000_000,
    10_000_000_000_000,
    100_000_000_000_000,
    1_000_000_000_000_000,
    10_000_000_000_000_000,
    100_000_000_000_000_000,
    1_000_000_000_000_000_000,
    10_000_000_000_000_000_000,
];

/// Appends C's `%.{precision}g` (or its `KeepPoint` variant) of a finite `v`.
pub(crate) fn push_g(out: &mut Vec<u8>, v: f64, precision: usize, style: GStyle) {
    push_g_impl(out, v, precision, style, false);
}

/// Like [`push_g`] for a `float` value, with a fast path for the usual precisions.
pub(crate) fn push_g_f32(out: &mut Vec<u8>, v: f32, precision: usize, style: GStyle) {
    push_g_impl(out, f64::from(v), precision, style, true);
}

fn push_g_impl(out: &mut Vec<u8>, v: f64, precision: usize, style: GStyle, is_f32: bool) {
    let p = precision.clamp(1, MAX_DIGITS);
    let mut o = Small::new();
    if v.is_sign_negative() {
        o.push(b'-');
    }
    let a = v.abs();
    if is_f32 && p <= 9 && a != 0.0 {
        if let Some((int, exp)) = digits_fast(a, p) {
            layout_int(&mut o, int, p, exp, style);
            o.append_to(out);
            return;
        }
    }
    let d = if a == 0.0 {
        Decimal {
            digits: [b'0'; MAX_DIGITS],
            exp: 0,
        }
    } else {
        digits_exact(a, p)
    };
    layout_g(&mut o, &d.digits[..p], d.exp, style);
    o.append_to(out);
}

/// A number's text, built on the stack and appended to the output once.
struct Small {
    buf: [u8; 96],
    len: usize,
}

impl Small {
    fn new() -> Small {
        Small {
            buf: [0; 96],
            len: 0,
        }
    }
    #[inline]
    fn push(&mut self, c: u8) {
        self.buf[self.len] = c;
        self.len += 1;
    }
    #[inline]
    fn extend(&mut self, s: &[u8]) {
        self.buf[self.len..self.len + s.len()].copy_from_slice(s);
        self.len += s.len();
    }
    /// Appends the `n` low decimal digits of `v`, zero-padded.
    #[inline]
    fn digits(&mut self, v: u64, n: usize) {
        write_digits(&mut self.buf[self.len..self.len + n], v, n);
        self.len += n;
    }
    /// Appends the text to `out` with one fixed-size copy (no call to
    /// `memmove` for a variable length) when it is short.
    #[inline]
    fn append_to(&self, out: &mut Vec<u8>) {
        if self.len <= 32 {
            let keep = out.len() + self.len;
            out.extend_from_slice(&self.buf[..32]);
            out.truncate(keep);
        } else {
            out.extend_from_slice(&self.buf[..self.len]);
        }
    }
}

/// Lays out rounded digits by `%g`'s rules.
fn layout_g(out: &mut Small, digits: &[u8], x: i32, style: GStyle) {
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
fn push_fraction(out: &mut Small, frac: &[u8], style: GStyle) {
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

    /// Compares against the C library's printf on many random values (needs
    /// a C compiler: see `nctk_test_support::require`).
    #[test]
    fn matches_c_printf_on_random_values() {
        use std::io::Write;
        use std::process::Command;
        if !nctk_test_support::require::tools(&["cc"]) {
            return;
        }
        let dir = std::env::temp_dir().join(format!("nctk-g-oracle-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let src = dir.join("g.c");
        std::fs::write(
            &src,
            r#"#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
int main(int argc, char** argv) {
    unsigned long long b; int p = atoi(argv[2]); char buf[128];
    while (scanf("%llx", &b) == 1) {
        if (argv[1][0] == 'f') { unsigned int u = (unsigned int)b; float f; memcpy(&f, &u, 4);
            if (!isfinite(f)) continue; printf("%.*g ", p, f); snprintf(buf, 128, "%#.*g", p, f); }
        else { double d; memcpy(&d, &b, 8); if (!isfinite(d)) continue;
            printf("%.*g ", p, d); snprintf(buf, 128, "%#.*g", p, d); }
        puts(buf);
    }
    return 0;
}"#,
        )
        .unwrap();
        let exe = dir.join("g");
        let st = Command::new("cc")
            .arg("-O")
            .arg(&src)
            .arg("-o")
            .arg(&exe)
            .arg("-lm")
            .status()
            .expect("run cc");
        assert!(st.success());
        let mut seed = 0x1234_5678_9abc_def0u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for (kind, p) in [
            ("f", 7usize),
            ("f", 3),
            ("f", 9),
            ("d", 15),
            ("d", 5),
            ("d", 17),
        ] {
            let mut bits = vec![];
            for i in 0..40_000u64 {
                let r = next();
                let b = if kind == "f" {
                    match i % 3 {
                        0 => r & 0xffff_ffff,
                        // plausible data: floats between 1e-3 and 1e6
                        1 => f32::to_bits((r % 1_000_000_000) as f32 / 1000.0) as u64,
                        _ => f32::to_bits((r % 100_000) as f32 / 100.0) as u64,
                    }
                } else {
                    match i % 3 {
                        0 => r,
                        1 => f64::to_bits((r % 1_000_000_000) as f64 / 1000.0),
                        _ => f64::to_bits((r % 100_000) as f64 / 100.0 + 0.1),
                    }
                };
                bits.push(b);
            }
            let mut child = Command::new(&exe)
                .args([kind, &p.to_string()])
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::piped())
                .spawn()
                .unwrap();
            let mut input = String::new();
            for b in &bits {
                input.push_str(&format!("{b:x}\n"));
            }
            let mut stdin = child.stdin.take().unwrap();
            let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
            let out = child.wait_with_output().unwrap();
            writer.join().unwrap().unwrap();
            let text = String::from_utf8(out.stdout).unwrap();
            let mut lines = text.lines();
            for b in bits {
                let (mut plain, mut alt) = (vec![], vec![]);
                if kind == "f" {
                    let f = f32::from_bits(b as u32);
                    if !f.is_finite() {
                        continue;
                    }
                    push_g_f32(&mut plain, f, p, GStyle::Plain);
                    push_g_f32(&mut alt, f, p, GStyle::KeepPoint);
                } else {
                    let d = f64::from_bits(b);
                    if !d.is_finite() {
                        continue;
                    }
                    push_g(&mut plain, d, p, GStyle::Plain);
                    push_g(&mut alt, d, p, GStyle::KeepPoint);
                }
                let line = lines.next().unwrap();
                let (c_plain, c_alt) = line.split_once(' ').unwrap();
                assert_eq!(
                    String::from_utf8(plain).unwrap(),
                    c_plain,
                    "{kind} {b:x} %.{p}g"
                );
                assert_eq!(
                    String::from_utf8(alt).unwrap(),
                    tztrim(c_alt),
                    "{kind} {b:x} %#.{p}g"
                );
            }
        }
        let _ = std::fs::remove_dir_all(&dir);
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
