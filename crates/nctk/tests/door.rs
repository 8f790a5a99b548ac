//! The door is the only place that names files or parses URLs: the format
//! crates below the facade receive byte sources, sinks and stores. Their
//! sources are read as Rust tokens (comments, strings and character
//! literals left out), so a doc comment that mentions a path, or a name
//! such as `Hdf5File::open`, is not taken for opening a file.

use std::path::{Path, PathBuf};

/// The crates below the facade: the model, the codecs, and every format.
const FORMAT_CRATES: [&str; 7] = [
    "nctk-model",
    "nctk-codec",
    "nctk-classic",
    "nctk-zarr",
    "nctk-hdf5",
    "nctk-ncstream",
    "nctk-cdl",
];

/// Token sequences that name a file, open one, parse a URL or reach a
/// network. A bare `Path` is allowed (the CDL lexer's group-path token);
/// `std::path`, `Path::new` and `AsRef<Path>` are not.
const BANNED: [&[&str]; 10] = [
    &["std", "::", "fs"],
    &["std", "::", "path"],
    &["std", "::", "net"],
    &["File", "::", "open"],
    &["File", "::", "create"],
    &["url", "::", "parse"],
    &["Url", "::", "parse"],
    &["Path", "::", "new"],
    &["AsRef", "<", "Path", ">"],
    &["PathBuf"],
];

/// Every `.rs` file under `dir`.
fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let p = entry.unwrap().path();
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// The tokens of Rust source `text` that matter here: identifiers, `::`
/// and single punctuation; comments, string, byte-string, raw-string and
/// character literals and numbers are dropped.
fn tokens(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = vec![];
    let mut i = 0;
    let at = |i: usize| chars.get(i).copied().unwrap_or('\0');
    while i < chars.len() {
        let c = chars[i];
        if c == '/' && at(i + 1) == '/' {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && at(i + 1) == '*' {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && at(i + 1) == '*' {
                    depth += 1;
                    i += 2;
                } else if chars[i] == '*' && at(i + 1) == '/' {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if c == 'r' && (at(i + 1) == '#' || at(i + 1) == '"') && raw_string_at(&chars, i) {
            i = skip_raw_string(&chars, i + 1);
        } else if c == 'b' && at(i + 1) == 'r' && raw_string_at(&chars, i + 1) {
            i = skip_raw_string(&chars, i + 2);
        } else if c == '"' || (c == 'b' && at(i + 1) == '"') {
            i += if c == 'b' { 2 } else { 1 };
            while i < chars.len() && chars[i] != '"' {
                i += if chars[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
        } else if c == '\'' && is_char_literal(&chars, i) {
            i += 1;
            while i < chars.len() && chars[i] != '\'' {
                i += if chars[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
        } else if c.is_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            out.push(chars[start..i].iter().collect());
        } else if c == ':' && at(i + 1) == ':' {
            out.push("::".into());
            i += 2;
        } else if c.is_ascii_digit() {
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
        } else {
            if !c.is_whitespace() {
                out.push(c.to_string());
            }
            i += 1;
        }
    }
    out
}

/// True when a raw string (`r"..."`, `r#"..."#`) starts at `chars[i]`
/// (the `r`).
fn raw_string_at(chars: &[char], i: usize) -> bool {
    let mut j = i + 1;
    while chars.get(j) == Some(&'#') {
        j += 1;
    }
    chars.get(j) == Some(&'"') && (i == 0 || !chars[i - 1].is_alphanumeric())
}

/// The index just past the raw string whose hashes start at `chars[i]`.
fn skip_raw_string(chars: &[char], mut i: usize) -> usize {
    let mut hashes = 0;
    while chars.get(i) == Some(&'#') {
        hashes += 1;
        i += 1;
    }
    i += 1; // the opening quote
    while i < chars.len() {
        if chars[i] == '"' && (1..=hashes).all(|k| chars.get(i + k) == Some(&'#')) {
            return i + 1 + hashes;
        }
        i += 1;
    }
    i
}

/// True when the `'` at `chars[i]` opens a character literal rather than
/// a lifetime or a label (`'a'`, `'\n'`, `'\u{1F600}'` vs `'a`, `'static`).
fn is_char_literal(chars: &[char], i: usize) -> bool {
    matches!(
        (chars.get(i + 1), chars.get(i + 2)),
        (Some('\\'), _) | (Some(_), Some('\''))
    )
}

/// Where `seq` occurs in `tokens` (token indices).
fn occurrences(tokens: &[String], seq: &[&str]) -> usize {
    tokens
        .windows(seq.len())
        .filter(|w| w.iter().zip(seq).all(|(t, s)| t == s))
        .count()
}

#[test]
fn the_tokenizer_sees_code_not_comments_or_strings() {
    let text = r##"
        // std::fs in a comment
        /* Path /* nested */ PathBuf */
        /// File::open in a doc comment
        let a = "std::fs::read"; let b = r#"Path "quoted" "#; let c = b"PathBuf";
        let d = 'P'; fn f<'a>(x: &'a str) {}
        let file = Hdf5File::open(source)?;
        let real = std::fs::read(p);
    "##;
    let t = tokens(text);
    assert_eq!(occurrences(&t, &["std", "::", "fs"]), 1, "{t:?}");
    assert_eq!(occurrences(&t, &["Path"]), 0, "{t:?}");
    assert_eq!(
        occurrences(&tokens("Tok::Path(p)"), &["Path", "::", "new"]),
        0
    );
    assert_eq!(
        occurrences(&tokens("Path::new(x)"), &["Path", "::", "new"]),
        1
    );
    assert_eq!(occurrences(&t, &["PathBuf"]), 0, "{t:?}");
    assert_eq!(occurrences(&t, &["File", "::", "open"]), 0, "{t:?}");
    assert_eq!(occurrences(&t, &["Hdf5File", "::", "open"]), 1, "{t:?}");
    assert!(
        t.contains(&"str".to_string()),
        "a lifetime is not a literal: {t:?}"
    );
}

#[test]
fn no_format_crate_names_a_file_or_parses_a_url() {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut found = vec![];
    for c in FORMAT_CRATES {
        let mut files = vec![];
        sources(&crates.join(c).join("src"), &mut files);
        assert!(!files.is_empty(), "{c}: found its sources");
        for f in &files {
            let t = tokens(&std::fs::read_to_string(f).unwrap());
            for seq in BANNED {
                let n = occurrences(&t, seq);
                if n > 0 {
                    found.push(format!("{}: {} ({n})", f.display(), seq.join("")));
                }
            }
        }
    }
    assert!(found.is_empty(), "{found:#?}");
}
