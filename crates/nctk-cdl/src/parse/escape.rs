//! Backslash escapes in CDL strings and names.

/// Removes escapes from the body of a double-quoted CDL string (without the
/// quotes), as ncgen does: `\a \b \f \n \r \t \v \\ \" \' \?`, octal `\ooo`
/// (one to three digits) and hex `\xhh`; any other escaped character stands
/// for itself. The result is bytes: `\xhh` may produce invalid UTF-8.
pub(crate) fn unescape_string(body: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(body.len());
    let mut i = 0;
    while i < body.len() {
        let c = body[i];
        if c != b'\\' || i + 1 >= body.len() {
            out.push(c);
            i += 1;
            continue;
        }
        i += 1;
        let e = body[i];
        i += 1;
        match e {
            b'a' => out.push(0x07),
            b'b' => out.push(0x08),
            b'f' => out.push(0x0c),
            b'n' => out.push(b'\n'),
            b'r' => out.push(b'\r'),
            b't' => out.push(b'\t'),
            b'v' => out.push(0x0b),
            b'?' => out.push(0x7f),
            b'0'..=b'7' => {
                let mut v: u32 = u32::from(e - b'0');
                let mut n = 1;
                while n < 3 && i < body.len() && (b'0'..=b'7').contains(&body[i]) {
                    v = v * 8 + u32::from(body[i] - b'0');
                    i += 1;
                    n += 1;
                }
                out.push(v as u8);
            }
            b'x' | b'X' => {
                let mut v: u32 = 0;
                let mut n = 0;
                while n < 2 && i < body.len() && body[i].is_ascii_hexdigit() {
                    v = v * 16 + (body[i] as char).to_digit(16).unwrap_or(0);
                    i += 1;
                    n += 1;
                }
                if n == 0 {
                    out.push(e);
                } else {
                    out.push(v as u8);
                }
            }
            other => out.push(other),
        }
    }
    out
}

/// Removes escapes from a CDL name: a backslash makes the next character
/// literal (`a\ b` is `a b`, `\2m` is `2m`).
pub(crate) fn unescape_name(text: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len());
    let mut i = 0;
    while i < text.len() {
        if text[i] == b'\\' && i + 1 < text.len() {
            out.push(text[i + 1]);
            i += 2;
        } else {
            out.push(text[i]);
            i += 1;
        }
    }
    out
}

/// The value of a single-quoted character constant body (between the quotes).
pub(crate) fn char_constant(body: &[u8]) -> Option<u8> {
    match body {
        [c] if *c != b'\\' => Some(*c),
        [b'\\', e] => Some(match e {
            b'a' => 0x07,
            b'b' => 0x08,
            b'f' => 0x0c,
            b'n' => b'\n',
            b'r' => b'\r',
            b't' => b'\t',
            b'v' => 0x0b,
            b'?' => 0x7f,
            other => *other,
        }),
        [b'\\', a, b, c] if [a, b, c].iter().all(|d| (b'0'..=b'7').contains(d)) => {
            Some(((a - b'0') << 6) | ((b - b'0') << 3) | (c - b'0'))
        }
        [b'\\', b'x' | b'X', h, l] if h.is_ascii_hexdigit() && l.is_ascii_hexdigit() => {
            let v = (*h as char).to_digit(16)? * 16 + (*l as char).to_digit(16)?;
            Some(v as u8)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn string_escapes() {
        assert_eq!(unescape_string(br#"a\tb\n\"q\"\\"#), b"a\tb\n\"q\"\\");
        assert_eq!(unescape_string(br"\101\x42\0"), b"AB\0");
        assert_eq!(unescape_string(br"\q"), b"q");
        assert_eq!(unescape_string(b"\\"), b"\\");
    }

    #[test]
    fn name_escapes() {
        assert_eq!(unescape_name(br"a\ b\:c"), b"a b:c");
        assert_eq!(unescape_name(br"\2m"), b"2m");
    }

    #[test]
    fn char_constants() {
        assert_eq!(char_constant(b"a"), Some(b'a'));
        assert_eq!(char_constant(br"\n"), Some(b'\n'));
        assert_eq!(char_constant(br"\101"), Some(b'A'));
        assert_eq!(char_constant(br"\x41"), Some(b'A'));
        assert_eq!(char_constant(br"\'"), Some(b'\''));
    }
}
