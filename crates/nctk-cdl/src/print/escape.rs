//! CDL escapes, each as ncdump applies it: names, text attributes, char
//! data and string data all follow slightly different rules.

/// Characters ncdump escapes with a backslash in names.
fn name_needs_backslash(c: u8) -> bool {
    matches!(
        c,
        b' ' | b'!'
            | b'"'
            | b'#'
            | b'$'
            | b'&'
            | b'\''
            | b'('
            | b')'
            | b'*'
            | b','
            | b':'
            | b';'
            | b'<'
            | b'='
            | b'>'
            | b'?'
            | b'['
            | b']'
            | b'\\'
            | b'^'
            | b'`'
            | b'{'
            | b'|'
            | b'}'
            | b'~'
    )
}

/// Appends `name` with CDL escapes (ncdump's `escaped_name`): a leading
/// digit and the special ASCII characters get a backslash; bytes beyond
/// ASCII pass through.
pub(crate) fn push_name(out: &mut Vec<u8>, name: &str) {
    let b = c_str(name.as_bytes());
    if b.first().is_some_and(u8::is_ascii_digit) {
        out.push(b'\\');
    }
    for &c in b {
        if c.is_ascii_control() {
            // ncdump writes "\%xx" through a 4-byte buffer, which keeps
            // only "\%x" and ends the name there; names with control
            // characters are invalid in netCDF anyway.
            out.extend_from_slice(format!("\\%{:x}", c >> 4).as_bytes());
            return;
        }
        if name_needs_backslash(c) {
            out.push(b'\\');
        }
        out.push(c);
    }
}

/// `name` with CDL escapes as ncdump writes names: a backslash before a
/// leading digit and before special ASCII characters.
pub fn escaped_name(name: &str) -> String {
    let mut v = Vec::with_capacity(name.len() + 4);
    push_name(&mut v, name);
    String::from_utf8_lossy(&v).into_owned()
}

/// The bytes before the first NUL, as C sees a string.
pub(crate) fn c_str(b: &[u8]) -> &[u8] {
    b.split(|&c| c == 0).next().unwrap_or(&[])
}

/// Appends a three-digit octal escape `\ooo`.
fn push_octal(out: &mut Vec<u8>, c: u8) {
    out.extend_from_slice(&[
        b'\\',
        b'0' + (c >> 6),
        b'0' + ((c >> 3) & 7),
        b'0' + (c & 7),
    ]);
}

/// Strips trailing NUL bytes, as ncdump does before printing text.
pub(crate) fn trim_nuls(b: &[u8]) -> &[u8] {
    let end = b.iter().rposition(|&c| c != 0).map_or(0, |i| i + 1);
    &b[..end]
}

/// Appends a quoted text attribute value (ncdump's `pr_att_string`).
/// Trailing NULs are dropped; an embedded newline also breaks the line
/// (`"a\n",` then `"b"` on the next line) except in netCDF-4 files.
pub(crate) fn push_att_text(out: &mut Vec<u8>, text: &[u8], netcdf4: bool) {
    out.push(b'"');
    for &c in trim_nuls(text) {
        match c {
            0x08 => out.extend_from_slice(b"\\b"),
            0x0c => out.extend_from_slice(b"\\f"),
            b'\n' => {
                if netcdf4 {
                    out.extend_from_slice(b"\\n");
                } else {
                    out.extend_from_slice(b"\\n\",\n\t\t\t\"");
                }
            }
            b'\r' => out.extend_from_slice(b"\\r"),
            b'\t' => out.extend_from_slice(b"\\t"),
            0x0b => out.extend_from_slice(b"\\v"),
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\'' => out.extend_from_slice(b"\\'"),
            b'"' => out.extend_from_slice(b"\\\""),
            c if c < 0x20 || c == 0x7f => push_octal(out, c),
            c => out.push(c),
        }
    }
    out.push(b'"');
}

/// Appends a row of char data as a quoted string (ncdump's `pr_tvals`):
/// trailing NULs dropped, a newline also breaks the output line, and
/// every byte that is not printable ASCII becomes an octal escape.
pub(crate) fn push_char_data(out: &mut Vec<u8>, text: &[u8]) {
    out.push(b'"');
    for &c in trim_nuls(text) {
        match c {
            0x08 => out.extend_from_slice(b"\\b"),
            0x0c => out.extend_from_slice(b"\\f"),
            b'\n' => out.extend_from_slice(b"\\n\",\n    \""),
            b'\r' => out.extend_from_slice(b"\\r"),
            b'\t' => out.extend_from_slice(b"\\t"),
            0x0b => out.extend_from_slice(b"\\v"),
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\'' => out.extend_from_slice(b"\\'"),
            b'"' => out.extend_from_slice(b"\\\""),
            0x20..=0x7e => out.push(c),
            c => push_octal(out, c),
        }
    }
    out.push(b'"');
}

/// How ncdump prints a null string (a NULL `char *`), unquoted, in data
/// and in attributes alike.
pub(crate) const NIL: &[u8] = b"NIL";

/// Appends a quoted `string` data value (ncdump's `ncstring_typ_tostring`,
/// including its quirk of printing a vertical tab as `\n`), or [`NIL`]
/// for a null string.
pub(crate) fn push_string_data(out: &mut Vec<u8>, s: Option<&[u8]>) {
    let Some(s) = s else {
        out.extend_from_slice(NIL);
        return;
    };
    out.push(b'"');
    let s = c_str(s);
    for &c in s {
        match c {
            0x08 => out.extend_from_slice(b"\\b"),
            0x0c => out.extend_from_slice(b"\\f"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            b'\t' => out.extend_from_slice(b"\\t"),
            0x0b => out.extend_from_slice(b"\\n"),
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\'' => out.extend_from_slice(b"\\'"),
            b'"' => out.extend_from_slice(b"\\\""),
            c if c < 0x20 || c == 0x7f => push_octal(out, c),
            c => out.push(c),
        }
    }
    out.push(b'"');
}

/// Appends text with XML escapes as `ncdump -x` writes attribute values
/// (`pr_attx_string`); trailing NULs are dropped.
pub(crate) fn push_xml_text(out: &mut Vec<u8>, text: &[u8]) {
    out.push(b'"');
    for &c in trim_nuls(text) {
        match c {
            b'"' => out.extend_from_slice(b"&quot;"),
            b'<' => out.extend_from_slice(b"&lt;"),
            b'>' => out.extend_from_slice(b"&gt;"),
            b'&' => out.extend_from_slice(b"&amp;"),
            b'\n' => out.extend_from_slice(b"&#xA;"),
            b'\r' => out.extend_from_slice(b"&#xD;"),
            b'\t' => out.extend_from_slice(b"&#x9;"),
            0 => out.extend_from_slice(b"&#0;"),
            c if c < 0x20 || c == 0x7f => out.extend_from_slice(format!("&#{c};").as_bytes()),
            c => out.push(c),
        }
    }
    out.push(b'"');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(f: impl Fn(&mut Vec<u8>)) -> String {
        let mut v = vec![];
        f(&mut v);
        String::from_utf8(v).unwrap()
    }

    #[test]
    fn names() {
        assert_eq!(escaped_name("dim-name.x+y@z"), "dim-name.x+y@z");
        assert_eq!(escaped_name("1abc"), "\\1abc");
        assert_eq!(escaped_name("a b(c)"), "a\\ b\\(c\\)");
        assert_eq!(escaped_name("a/b"), "a/b");
        assert_eq!(escaped_name("é"), "é");
    }

    #[test]
    fn text() {
        assert_eq!(
            s(|o| push_att_text(o, b"a\nb\0\0", false)),
            "\"a\\n\",\n\t\t\t\"b\""
        );
        assert_eq!(s(|o| push_att_text(o, b"a\nb", true)), "\"a\\nb\"");
        assert_eq!(
            s(|o| push_att_text(o, b"\x01\xc3\xa9", false)),
            "\"\\001\u{e9}\""
        );
        assert_eq!(s(|o| push_char_data(o, b"\xc3\xa9'")), "\"\\303\\251\\'\"");
        assert_eq!(s(|o| push_string_data(o, Some(b"\x0b"))), "\"\\n\"");
    }
}
