//! What to copy and how: [`CopyOptions`], with nccopy's spellings parsed
//! by [`parse_kind`], [`parse_size`], [`parse_deflate_level`] and
//! [`split_list`].

use nctk_model::{Format, KindNames};

use super::CopyError;

/// nccopy's default copy buffer (`-m`): 5,000,000 bytes.
pub const DEFAULT_BUFFER_SIZE: usize = 5_000_000;

/// Parses a `-k` value as nccopy does, from nccopy's table matched exactly
/// (`invalid output format: X` otherwise).
pub fn parse_kind(s: &str) -> Result<Format, CopyError> {
    Format::from_kind_name(s, KindNames::Nccopy)
        .ok_or_else(|| CopyError::Option(format!("invalid output format: {s}")))
}

/// `-v` / `-V`: which variables to copy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VarList {
    /// Variable names or group paths (`temp`, `/g/temp`).
    pub names: Vec<String>,
    /// `-V`: only these variables are defined in the output; `-v`: every
    /// variable is defined, only these get data.
    pub definitions_too: bool,
}

/// `-g` / `-G`: which groups to copy (netCDF-4 inputs only).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupList {
    /// Group names or paths.
    pub names: Vec<String>,
    /// `-G`: only these groups are defined; `-g`: every group is defined,
    /// only variables of these groups get data.
    pub definitions_too: bool,
}

/// Everything `nctk copy` can be asked, with nccopy's defaults
/// ([`Default`]: same kind as the input, 5,000,000-byte buffer, no fill).
#[derive(Debug, Clone, PartialEq)]
pub struct CopyOptions {
    /// `-k` (and `-3 -4 -5 -6 -7`): the output kind; `None` keeps the input's.
    pub kind: Option<Format>,
    /// `-d`: deflate level 0..=9 (netCDF-4 outputs only).
    pub deflate: Option<u32>,
    /// `-s`: shuffle before deflate (netCDF-4 outputs only).
    pub shuffle: bool,
    /// `-c`: chunk specifications, `var:n1,n2,...` or `dim/n,...` (netCDF-4 outputs only).
    pub chunkspecs: Vec<String>,
    /// `-F`: filter specifications (netCDF-4 outputs only).
    pub filters: Vec<String>,
    /// `--shards`: shard specifications in the syntax of `-c` (`dim/n,...`
    /// or `var:n1,n2,...`), lengths rounded up to whole chunks (Zarr v3
    /// outputs only; others ignore them).
    pub shards: Vec<String>,
    /// `-u`: unlimited dimensions become fixed at their current length.
    pub fix_unlimited: bool,
    /// `-v` / `-V`.
    pub vars: Option<VarList>,
    /// `-g` / `-G`.
    pub groups: Option<GroupList>,
    /// `-m`: the copy buffer in bytes; bounds the memory a slab takes.
    pub buffer_size: usize,
    /// `-h`: chunk cache size (netCDF-4 outputs only).
    pub chunk_cache_size: Option<usize>,
    /// `-e`: chunk cache elements (netCDF-4 outputs only).
    pub chunk_cache_elems: Option<usize>,
    /// `-M`: minimum chunk size in bytes (netCDF-4 outputs only).
    pub min_chunk_bytes: Option<usize>,
    /// `-w`: build the output in memory, write it out at the end.
    pub write_in_memory: bool,
    /// `-r`: read the whole input into memory first (classic inputs).
    pub read_in_memory: bool,
    /// `-Xf`: pre-fill the output with fill values (nccopy writes without fill).
    pub fill: bool,
    /// `-Z`: store outputs keep chunks that hold only the fill value (by
    /// default they are not written, as zarr-python's `write_empty_chunks=False`).
    pub write_empty_chunks: bool,
    /// `-k compressed`: write a block-compressed classic file with these
    /// codec, level, shuffle and block size (`kind` then stays `None`: the
    /// classic kind inside is the input's, or the first the input fits).
    pub compress: Option<nctk::CompressOptions>,
}

impl Default for CopyOptions {
    fn default() -> Self {
        CopyOptions {
            kind: None,
            deflate: None,
            shuffle: false,
            chunkspecs: vec![],
            filters: vec![],
            shards: vec![],
            fix_unlimited: false,
            vars: None,
            groups: None,
            buffer_size: DEFAULT_BUFFER_SIZE,
            chunk_cache_size: None,
            chunk_cache_elems: None,
            min_chunk_bytes: None,
            write_in_memory: false,
            read_in_memory: false,
            fill: false,
            write_empty_chunks: false,
            compress: None,
        }
    }
}

/// The chunk cache a store output gets without `-h`: room for a band of
/// chunks across a variable's inner dimensions, so that slabs read whole
/// rows of a classic input (netCDF-C's default chunks of the 415 MB
/// benchmark field, `(25, 241, 480)` floats, make a band of 33 MiB). With
/// one slab and the chunks in flight, a copy stays within 64 MiB.
pub const AUTO_CHUNK_CACHE_SIZE: usize = 36 << 20;

impl CopyOptions {
    /// Bytes of output chunks written in part a copy holds: `-h` (nccopy's
    /// chunk cache size), else the larger of the copy buffer (`-m`) and
    /// [`AUTO_CHUNK_CACHE_SIZE`].
    pub fn chunk_cache_bytes(&self) -> usize {
        self.chunk_cache_size
            .unwrap_or(self.buffer_size.max(AUTO_CHUNK_CACHE_SIZE))
    }

    /// True when a netCDF-4-only option asks for compression or chunking
    /// (`-d` above 0, `-s`, `-c`): with no `-k`, nccopy then writes
    /// netCDF-4 classic model from a classic input.
    pub fn wants_netcdf4_features(&self) -> bool {
        self.deflate.is_some_and(|d| d > 0) || self.shuffle || !self.chunkspecs.is_empty()
    }

    /// True when a `-F` filter other than `none` is given (nccopy then
    /// switches the output to netCDF-4).
    pub fn wants_filters(&self) -> bool {
        self.filters
            .iter()
            .any(|f| f != "none" && !f.eq_ignore_ascii_case("*,none"))
    }
}

/// Parses a size with nccopy's optional multiplier suffix: `K`, `M`, `G`,
/// `T`, `P` (powers of 1000, either case), as `-m`, `-h` and `-e` take it.
pub fn parse_size(s: &str, flag: char) -> Result<usize, CopyError> {
    parse_size_named(s, &format!("-{flag}"))
}

/// [`parse_size`] for the option spelled `option` (`-m`, `--block-size`).
pub fn parse_size_named(s: &str, option: &str) -> Result<usize, CopyError> {
    let bad = || {
        CopyError::Option(format!(
            "Suffix used for '{option}' option value must be K, M, G, T, or P"
        ))
    };
    let split = s
        .find(|c: char| c.is_ascii_alphabetic() && c != 'e' && c != 'E')
        .unwrap_or(s.len());
    let (num, suffix) = s.split_at(split);
    let value: f64 = num.trim().parse().map_err(|_| bad())?;
    if value.is_nan() || value < 0.0 {
        return Err(bad());
    }
    let mult = match suffix.chars().next() {
        None => 1.0,
        Some('k' | 'K') => 1e3,
        Some('m' | 'M') => 1e6,
        Some('g' | 'G') => 1e9,
        Some('t' | 'T') => 1e12,
        Some('p' | 'P') => 1e15,
        Some(_) => return Err(bad()),
    };
    Ok((value * mult) as usize)
}

/// Parses a `-d` level (0..=9; `invalid deflation level: N` otherwise).
pub fn parse_deflate_level(s: &str) -> Result<u32, CopyError> {
    let digits: String = s
        .trim_start()
        .chars()
        .enumerate()
        .take_while(|&(i, c)| c.is_ascii_digit() || (i == 0 && (c == '-' || c == '+')))
        .map(|(_, c)| c)
        .collect();
    // strtol: no digits reads as 0.
    let level: i64 = digits.parse().unwrap_or(0);
    if (0..=9).contains(&level) {
        Ok(level as u32)
    } else {
        Err(CopyError::Option(format!(
            "invalid deflation level: {level}"
        )))
    }
}

/// Splits a comma-separated `-v`/`-g` list; `\,` is a literal comma.
pub fn split_list(s: &str) -> Vec<String> {
    let mut out = vec![];
    let mut cur = String::new();
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                if let Some(n) = chars.next() {
                    cur.push(n);
                }
            }
            ',' => out.push(std::mem::take(&mut cur)),
            c => cur.push(c),
        }
    }
    out.push(cur);
    out.retain(|n| !n.is_empty());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_as_nccopy_spells_them() {
        assert_eq!(parse_kind("nc3").unwrap(), Format::Classic);
        assert_eq!(parse_kind("1").unwrap(), Format::Classic);
        assert_eq!(parse_kind("64-bit offset").unwrap(), Format::Offset64);
        assert_eq!(parse_kind("5").unwrap(), Format::Cdf5);
        assert_eq!(parse_kind("3").unwrap(), Format::Netcdf4);
        assert_eq!(parse_kind("4").unwrap(), Format::Netcdf4Classic);
        assert_eq!(
            parse_kind("Classic").unwrap_err().to_string(),
            "invalid output format: Classic"
        );
    }

    #[test]
    fn sizes_take_suffixes() {
        assert_eq!(parse_size("5000000", 'm').unwrap(), 5_000_000);
        assert_eq!(parse_size("5M", 'm').unwrap(), 5_000_000);
        assert_eq!(parse_size("1.5k", 'm').unwrap(), 1500);
        assert_eq!(parse_size("2g", 'h').unwrap(), 2_000_000_000);
        assert!(parse_size("1Q", 'm')
            .unwrap_err()
            .to_string()
            .contains("'-m'"));
        assert!(parse_size("-1", 'm').is_err());
    }

    #[test]
    fn deflate_levels() {
        assert_eq!(parse_deflate_level("5").unwrap(), 5);
        assert_eq!(parse_deflate_level("x").unwrap(), 0);
        assert_eq!(
            parse_deflate_level("12").unwrap_err().to_string(),
            "invalid deflation level: 12"
        );
    }

    #[test]
    fn lists_split_on_unescaped_commas() {
        assert_eq!(split_list("a,b\\,c,,d"), vec!["a", "b,c", "d"]);
    }
}
