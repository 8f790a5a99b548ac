//! Block-compressed files damaged on purpose, shared by the damage tests
//! of `nctk-classic` (the index, the byte source, the validator), of the
//! facade (`nctk::open`, reading, `nctk::validate`) and of the CLI: a
//! sample file compressed with the foundation's `compress`, and each case
//! a damaged copy with the place the damage is at (the variable, the
//! block, the stored file's offset), which an error must name.
#![allow(dead_code)]

use std::sync::Arc;

use nctk_classic::compressed::format::{
    BlockEntry, DirEntry, Superblock, BLOCK_ENTRY_LEN, DIR_ENTRY_LEN, SUPERBLOCK_LEN,
};
use nctk_classic::compressed::{compress, BlockCodec, CodecId, CompressOptions, Index};
use nctk_classic::header::decode_header;
use nctk_classic::{ClassicReader, ClassicWriter, FillMode, Version};
use nctk_model::{DataType, GroupId, Schema, Selection, Values};
use nctk_store::bytes::{MemSink, MemSource};

/// Uncompressed bytes per block of the sample.
pub const BLOCK_BYTES: u64 = 1000;

/// The sample classic file (CDF-2): `label(n)` char, `count(time)` int,
/// `elev(y, x)` double, `temp(time, y, x)` float, 3 records; smooth
/// values, so blocks compress.
pub fn sample_classic() -> Vec<u8> {
    let mut s = Schema::new();
    let root = GroupId::ROOT;
    let time = s.add_dim(root, "time", 0, true).unwrap();
    let y = s.add_dim(root, "y", 20, false).unwrap();
    let x = s.add_dim(root, "x", 30, false).unwrap();
    let n = s.add_dim(root, "n", 40, false).unwrap();
    let label = s.add_var(root, "label", DataType::Char, &[n]).unwrap();
    let count = s.add_var(root, "count", DataType::Int, &[time]).unwrap();
    let elev = s.add_var(root, "elev", DataType::Double, &[y, x]).unwrap();
    let temp = s
        .add_var(root, "temp", DataType::Float, &[time, y, x])
        .unwrap();
    let sink = Arc::new(MemSink::new());
    let mut w =
        ClassicWriter::create_in_with_schema(sink.clone(), &s, Version::Cdf2, FillMode::Fill)
            .unwrap();
    let text: Vec<u8> = (0..40).map(|i| b'a' + (i % 26) as u8).collect();
    w.write(label, &Selection::all(&[40]), &Values::Char(text))
        .unwrap();
    w.write(count, &Selection::all(&[3]), &Values::Int(vec![7, 8, 9]))
        .unwrap();
    let elev_values = (0..600).map(|i| f64::from(i / 30 * 10 + i % 30)).collect();
    w.write(
        elev,
        &Selection::all(&[20, 30]),
        &Values::Double(elev_values),
    )
    .unwrap();
    let temp_values = (0..1800).map(|i| 280.0 + (i % 600) as f32 / 8.0).collect();
    w.write(
        temp,
        &Selection::all(&[3, 20, 30]),
        &Values::Float(temp_values),
    )
    .unwrap();
    w.close().unwrap();
    sink.to_vec()
}

/// `classic` compressed with `codec` in blocks of [`BLOCK_BYTES`].
pub fn compressed(classic: &[u8], codec: CodecId) -> Vec<u8> {
    let reader = ClassicReader::from_bytes(classic.to_vec()).unwrap();
    let sink = MemSink::new();
    let options = CompressOptions {
        codec,
        level: None,
        shuffle: true,
        block_bytes: BLOCK_BYTES,
    };
    compress(&reader, &sink, &options).unwrap();
    sink.into_vec()
}

/// Where an error about a case must point.
#[derive(Debug, Clone)]
pub struct Expect {
    /// The variable named, if the damage is a variable's.
    pub var: Option<String>,
    /// The block named, if the damage is one block's.
    pub block: Option<u64>,
    /// The offset in the stored file.
    pub offset: u64,
    /// A word of the reason.
    pub word: &'static str,
    /// Whether the index opens (the damage is in a block's bytes, found
    /// when the block is read).
    pub opens: bool,
}

impl Expect {
    /// Whether `text` (an error's message) names the variable, the block
    /// and the offset, and says the word; `Err` says what it lacks.
    pub fn check(&self, text: &str) -> Result<(), String> {
        let mut missing = vec![];
        if let Some(var) = &self.var {
            if !text.contains(&format!("{var:?}")) {
                missing.push(format!("variable {var:?}"));
            }
        }
        if let Some(block) = self.block {
            if !text.contains(&format!("block {block}")) {
                missing.push(format!("block {block}"));
            }
        }
        if !text.contains(&self.offset.to_string()) {
            missing.push(format!("offset {}", self.offset));
        }
        if !text.to_lowercase().contains(self.word) {
            missing.push(format!("{:?}", self.word));
        }
        if missing.is_empty() {
            Ok(())
        } else {
            Err(format!(
                "error does not name {}: {text}",
                missing.join(", ")
            ))
        }
    }
}

/// One damaged file.
#[derive(Debug, Clone)]
pub struct Case {
    /// What was damaged.
    pub label: String,
    /// The damaged file.
    pub bytes: Vec<u8>,
    /// What an error must name.
    pub expect: Expect,
}

/// The intact file's index and the means to damage a copy.
pub struct Damager {
    /// The intact compressed file.
    pub intact: Vec<u8>,
    /// Its index.
    pub index: Index,
    /// Its tables.
    pub tables: Vec<Vec<BlockEntry>>,
}

impl Damager {
    /// Opens the index of the intact `bytes`.
    pub fn new(bytes: Vec<u8>) -> Damager {
        let index = Index::open(&MemSource::new(bytes.clone())).unwrap();
        let tables = index.tables.clone().expect("small tables are read at open");
        Damager {
            intact: bytes,
            index,
            tables,
        }
    }

    /// The number of variable `name`.
    pub fn var(&self, name: &str) -> usize {
        (0..self.index.entries.len())
            .find(|&v| self.index.var_name(v) == name)
            .unwrap()
    }

    /// Offset of the directory entry of `var`.
    pub fn entry_at(&self, var: usize) -> u64 {
        self.index.superblock.dir_offset + var as u64 * DIR_ENTRY_LEN
    }

    /// Offset of the table entry of block `block` of `var`.
    pub fn table_at(&self, var: usize, block: u64) -> u64 {
        self.index.entries[var].table_offset + block * BLOCK_ENTRY_LEN
    }

    /// A copy with `var`'s table entry of `block` replaced by `entry`.
    pub fn with_block_entry(&self, var: usize, block: u64, entry: BlockEntry) -> Vec<u8> {
        let mut b = self.intact.clone();
        let at = self.table_at(var, block) as usize;
        b[at..at + BLOCK_ENTRY_LEN as usize].copy_from_slice(&entry.encode());
        b
    }

    /// A copy with `var`'s directory entry changed by `f` (its CRC
    /// recomputed, so the field's own check is hit).
    pub fn with_dir_entry(&self, var: usize, f: impl FnOnce(&mut DirEntry)) -> Vec<u8> {
        let mut entry = self.index.entries[var];
        f(&mut entry);
        let mut b = self.intact.clone();
        let at = self.entry_at(var) as usize;
        b[at..at + DIR_ENTRY_LEN as usize].copy_from_slice(&entry.encode());
        b
    }

    /// A copy with the superblock changed by `f` (CRC recomputed).
    pub fn with_superblock(&self, f: impl FnOnce(&mut Superblock)) -> Vec<u8> {
        let mut sb = self.index.superblock;
        f(&mut sb);
        let mut b = self.intact.clone();
        b[..SUPERBLOCK_LEN as usize].copy_from_slice(&sb.encode());
        b
    }

    /// A copy with the stored header and the superblock changed by `f`
    /// and the superblock's `header_crc` made to match: a header that
    /// lies consistently.
    pub fn with_header(&self, f: impl FnOnce(&mut [u8], &mut Superblock)) -> Vec<u8> {
        let mut b = self.intact.clone();
        let end = (SUPERBLOCK_LEN + self.index.superblock.header_len) as usize;
        let mut sb = self.index.superblock;
        f(&mut b[SUPERBLOCK_LEN as usize..end], &mut sb);
        sb.header_crc = crc32fast::hash(&b[SUPERBLOCK_LEN as usize..end]);
        b[..SUPERBLOCK_LEN as usize].copy_from_slice(&sb.encode());
        b
    }

    /// A copy whose last block (the file's last bytes) is `content` of
    /// another length encoded with the variable's codec, its table entry,
    /// the file's length and the superblock fixed to match: only the
    /// decoded length is wrong.
    pub fn with_last_block_of_length(&self, len: usize) -> (Vec<u8>, usize, u64, u64) {
        let var = self.index.entries.len() - 1;
        let block = self.index.entries[var].nblocks - 1;
        let old = self.tables[var][block as usize];
        let content = vec![0u8; len];
        let codec: BlockCodec = self.index.entries[var].codec;
        // With `none`, or when not smaller: the content as it is, a raw
        // block of the wrong length.
        let stored = codec.encode_block(&content).unwrap();
        let mut b = self.intact[..old.offset as usize].to_vec();
        b.extend_from_slice(&stored);
        let entry = BlockEntry {
            offset: old.offset,
            stored_len: stored.len() as u32,
            crc32: crc32fast::hash(&stored),
        };
        let at = self.table_at(var, block) as usize;
        b[at..at + BLOCK_ENTRY_LEN as usize].copy_from_slice(&entry.encode());
        let mut sb = self.index.superblock;
        sb.data_end = b.len() as u64;
        b[..SUPERBLOCK_LEN as usize].copy_from_slice(&sb.encode());
        (b, var, block, old.offset)
    }

    /// Every damage case of the issue on this file.
    pub fn cases(&self) -> Vec<Case> {
        let mut out = vec![];
        let temp = self.var("temp");
        let elev = self.var("elev");
        let count = self.var("count");
        let t = &self.tables[temp];
        let data_end = self.index.superblock.data_end;
        let mut case = |label: &str, bytes: Vec<u8>, expect: Expect| {
            out.push(Case {
                label: label.to_string(),
                bytes,
                expect,
            })
        };
        let at = |var: usize, block: Option<u64>, offset: u64, word, opens| Expect {
            var: Some(self.index.var_name(var).to_string()),
            block,
            offset,
            word,
            opens,
        };
        let whole = |offset: u64, word| Expect {
            var: None,
            block: None,
            offset,
            word,
            opens: false,
        };

        // The index.
        let mut e = t[2];
        e.offset = data_end + 10;
        case(
            "block offset past the end of the file",
            self.with_block_entry(temp, 2, e),
            at(temp, Some(2), self.table_at(temp, 2), "outside", false),
        );
        let mut e = t[2];
        e.offset = 0;
        case(
            "block offset inside the index",
            self.with_block_entry(temp, 2, e),
            at(temp, Some(2), self.table_at(temp, 2), "outside", false),
        );
        let mut e = t[3];
        e.offset = t[2].offset + 1;
        case(
            "blocks overlap",
            self.with_block_entry(temp, 3, e),
            at(temp, Some(3), self.table_at(temp, 3), "overlap", false),
        );
        let swapped = self.with_block_entry(temp, 4, t[5]);
        let swapped = {
            let mut b = swapped;
            let at5 = self.table_at(temp, 5) as usize;
            b[at5..at5 + 16].copy_from_slice(&t[4].encode());
            b
        };
        case(
            "blocks not in increasing order",
            swapped,
            at(temp, Some(5), self.table_at(temp, 5), "increasing", false),
        );
        let mut e = t[1];
        e.stored_len = BLOCK_BYTES as u32 + 1;
        case(
            "stored length longer than the block",
            self.with_block_entry(temp, 1, e),
            at(temp, Some(1), self.table_at(temp, 1), "larger", false),
        );
        case(
            "table offset moved",
            self.with_dir_entry(elev, |e| e.table_offset += BLOCK_ENTRY_LEN),
            at(elev, None, self.entry_at(elev) + 32, "block table", false),
        );
        case(
            "nblocks wrong",
            self.with_dir_entry(temp, |e| e.nblocks += 1),
            at(temp, None, self.entry_at(temp) + 24, "blocks", false),
        );
        case(
            "data_bytes wrong",
            self.with_dir_entry(elev, |e| e.data_bytes -= 8),
            at(elev, None, self.entry_at(elev) + 16, "bytes of data", false),
        );
        case(
            "block size 0",
            self.with_dir_entry(temp, |e| e.block_bytes = 0),
            at(temp, None, self.entry_at(temp) + 8, "block size 0", false),
        );
        case(
            "block size larger than the variable",
            self.with_dir_entry(elev, |e| e.block_bytes = e.data_bytes + 8),
            at(
                elev,
                None,
                self.entry_at(elev) + 8,
                "larger than the variable",
                false,
            ),
        );
        case(
            "directory entry checksum",
            {
                let mut b = self.intact.clone();
                b[self.entry_at(count) as usize + 9] ^= 1;
                b
            },
            at(count, None, self.entry_at(count) + 40, "checksum", false),
        );

        // The blocks.
        let e = self.tables[elev][1];
        case(
            "block checksum mismatch",
            {
                let mut b = self.intact.clone();
                b[e.offset as usize + e.stored_len as usize / 2] ^= 0x10;
                b
            },
            at(elev, Some(1), e.offset, "checksum", true),
        );
        let raw_len = self.index.entries[temp].block_len(self.index.entries[temp].nblocks - 1);
        for (label, len) in [
            ("block decodes short", raw_len as usize / 2),
            ("block decodes long", raw_len as usize * 2),
        ] {
            let (bytes, var, block, offset) = self.with_last_block_of_length(len);
            if bytes.len() as u64 - offset > raw_len {
                continue; // `none`: a longer raw block is the index's case above
            }
            case(label, bytes, at(var, Some(block), offset, "", true));
        }

        // The superblock.
        case(
            "magic number",
            {
                let mut b = self.intact.clone();
                b[1] = b'X';
                b
            },
            whole(0, "magic"),
        );
        case(
            "version",
            {
                let mut b = self.with_superblock(|_| {});
                b[11] = 2;
                let crc = crc32fast::hash(&b[..56]);
                b[56..60].copy_from_slice(&crc.to_be_bytes());
                b
            },
            whole(8, "version"),
        );
        case(
            "unknown flag",
            {
                let mut b = self.intact.clone();
                b[15] = 1;
                let crc = crc32fast::hash(&b[..56]);
                b[56..60].copy_from_slice(&crc.to_be_bytes());
                b
            },
            whole(12, "flag"),
        );
        case(
            "superblock checksum",
            {
                let mut b = self.intact.clone();
                b[20] ^= 4;
                b
            },
            whole(56, "checksum"),
        );
        case(
            "data_end wrong",
            self.with_superblock(|sb| sb.data_end -= 1),
            whole(48, "truncated"),
        );
        case(
            "truncated",
            self.intact[..self.intact.len() - 10].to_vec(),
            whole(48, "truncated"),
        );
        case(
            "appended to",
            {
                let mut b = self.intact.clone();
                b.extend_from_slice(b"trailing");
                b
            },
            whole(48, "appended"),
        );

        // The stored header lies.
        case(
            "header byte changed",
            {
                let mut b = self.intact.clone();
                b[SUPERBLOCK_LEN as usize + 7] -= 1;
                b
            },
            whole(SUPERBLOCK_LEN, "checksum"),
        );
        case(
            "numrecs lies",
            self.with_header(|h, _| h[7] -= 1),
            at(
                count,
                None,
                self.entry_at(count) + 16,
                "bytes of data",
                false,
            ),
        );
        // Found by the fuzzer: the header's counts were bounded by the
        // uncompressed length the superblock declares, so a huge one let
        // a huge variable count allocate.
        let nvars_at = decode_header(&self.index.header_bytes, self.index.superblock.header_len)
            .unwrap()
            .var_offsets[0]
            - 4;
        case(
            "variable count fits only a huge uncompressed length",
            self.with_header(|h, sb| {
                let at = nvars_at as usize;
                h[at..at + 4].copy_from_slice(&0x3FFF_FFFFu32.to_be_bytes());
                sb.virtual_len = 1 << 50;
            }),
            whole(SUPERBLOCK_LEN + nvars_at, "count"),
        );
        case(
            "header_len lies",
            self.with_superblock(|sb| {
                sb.header_len -= 4;
                let end = (SUPERBLOCK_LEN + sb.header_len) as usize;
                sb.header_crc = crc32fast::hash(&self.intact[SUPERBLOCK_LEN as usize..end]);
            }),
            // The header cut 4 bytes short ends inside the last
            // variable's 8-byte (CDF-2) `begin`.
            whole(
                SUPERBLOCK_LEN + self.index.superblock.header_len - 8,
                "header truncated",
            ),
        );
        out
    }
}

/// The sample compressed with each codec, and its cases.
pub fn all_cases() -> Vec<(CodecId, Vec<Case>)> {
    let classic = sample_classic();
    [
        CodecId::Zstd,
        CodecId::Zlib,
        CodecId::Lz4,
        CodecId::Blosc,
        CodecId::None,
    ]
    .into_iter()
    .map(|codec| (codec, Damager::new(compressed(&classic, codec)).cases()))
    .collect()
}
