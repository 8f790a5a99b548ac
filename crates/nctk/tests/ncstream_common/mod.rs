//! The corpus's ncstream answers as the ncstream tests see them: every
//! `.ncs` file under `generated/ncstream/siphon/NAME/` with its request
//! (`INDEX.tsv`), and the header message of a header answer.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use nctk_ncstream::{
    proto,
    wire::{self, Magic},
};
use prost::Message;

/// One recorded answer.
#[derive(Debug, Clone)]
pub struct Answer {
    /// The `.ncs` file.
    pub file: PathBuf,
    /// The dataset's URL (the request before `?`).
    pub url: String,
    /// Whether the request was `req=header`.
    pub header: bool,
}

/// The directory of the corpus's recorded answers.
pub fn root(corpus: &Path) -> PathBuf {
    corpus.join("generated/ncstream/siphon")
}

/// The answers of each directory (by name, sorted), in `INDEX.tsv` order.
pub fn answers(corpus: &Path) -> BTreeMap<String, Vec<Answer>> {
    let mut out = BTreeMap::new();
    for dir in std::fs::read_dir(root(corpus))
        .unwrap()
        .map(|e| e.unwrap().path())
    {
        let Ok(index) = std::fs::read_to_string(dir.join("INDEX.tsv")) else {
            continue;
        };
        let answers = index
            .lines()
            .skip(1)
            .filter_map(|line| {
                let cols: Vec<&str> = line.split('\t').collect();
                let (file, uri) = (cols[1], cols[4]);
                let (url, query) = uri.split_once('?')?;
                let header = query
                    .split('&')
                    .any(|q| q.eq_ignore_ascii_case("req=header"));
                file.ends_with(".ncs").then(|| Answer {
                    file: dir.join(file),
                    url: url.to_string(),
                    header,
                })
            })
            .collect();
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        out.insert(name, answers);
    }
    out
}

/// The header answer of each dataset URL.
pub fn header_answers(all: &BTreeMap<String, Vec<Answer>>) -> BTreeMap<String, PathBuf> {
    all.values()
        .flatten()
        .filter(|a| a.header)
        .map(|a| (a.url.clone(), a.file.clone()))
        .collect()
}

/// The `Header` message of a header answer or a full stream.
pub fn header_of(bytes: &[u8]) -> proto::Header {
    let at = if bytes.starts_with(&Magic::Start.bytes()) {
        4
    } else {
        0
    };
    assert_eq!(bytes[at..at + 4], Magic::Header.bytes());
    let (len, n) = wire::get_varint(&bytes[at + 4..], (at + 4) as u64).unwrap();
    let start = at + 4 + n;
    proto::Header::decode(&bytes[start..start + len as usize]).unwrap()
}
