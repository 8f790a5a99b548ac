//! kerchunk's Parquet references, as fsspec's `LazyReferenceMapper`
//! reads them: a directory with `.zmetadata` (`{"metadata": {every
//! .zgroup/.zattrs/.zarray}, "record_size": N}`) and, for each variable
//! of the root group (fsspec's reader lists no subgroup), files `refs.K.parq` of N rows
//! each (the last one shorter): row `i` of file `K` is the chunk whose
//! row-major index in the chunk grid is `K * N + i`, with columns `path`
//! (the URL; null for a chunk not stored or inline), `offset`, `size`
//! and `raw` (an inline chunk's bytes, else null). The rows are written
//! one file at a time: no more than one record's URLs are held at once.

use std::fs::File;
use std::path::Path;
use std::sync::Arc;

use nctk::model::{ChunkRef, GroupId};
use parquet::basic::Compression;
use parquet::data_type::{ByteArray, ByteArrayType, Int64Type};
use parquet::errors::ParquetError;
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::parser::parse_message_type;
use parquet::schema::types::Type;
use serde_json::{json, Map};

use super::combine::{Collection, VarRefs};
use super::kerchunk::walk;
use super::{RefsError, RefsProgress, RefsSummary};

/// Rows per Parquet file by default, as kerchunk's `refs_to_dataframe`.
pub const DEFAULT_RECORD_SIZE: u64 = 100_000;

/// The columns fsspec reads (pandas gives a nullable string or bytes
/// column as objects with `None`).
const SCHEMA: &str = "message schema {
    OPTIONAL BYTE_ARRAY path (UTF8);
    REQUIRED INT64 offset;
    REQUIRED INT64 size;
    OPTIONAL BYTE_ARRAY raw;
}";

/// Writes the references of the collection into the directory `dir`
/// (existing and empty), `record_size` chunks to a file: an error of the
/// file system, else what was written or why the inputs have no
/// references. Each variable written is reported to `progress`.
pub fn write_parquet(
    inputs: &Collection<'_>,
    dir: &Path,
    record_size: u64,
    progress: &mut dyn RefsProgress,
) -> std::io::Result<Result<RefsSummary, RefsError>> {
    let ds = inputs.first();
    if let Some(g) = ds.schema().group_ids().find(|&g| g != GroupId::ROOT) {
        return Ok(Err(RefsError::Subgroup {
            file: ds.name().to_string(),
            group: ds.schema().group_path(g),
        }));
    }
    let schema = Arc::new(parse_message_type(SCHEMA).map_err(parquet_io)?);
    let mut meta = Map::new();
    let mut failure = None;
    let summary = walk(inputs, &mut meta, progress, |_, name, chunks| {
        if let Err(e) = variable(inputs, dir, name, chunks, record_size, &schema) {
            failure.get_or_insert(e);
        }
        Ok(())
    });
    if let Some(e) = failure {
        return Err(e);
    }
    let Ok(summary) = summary else {
        return Ok(summary);
    };
    let zmetadata = json!({"metadata": meta, "record_size": record_size});
    std::fs::write(dir.join(".zmetadata"), zmetadata.to_string())?;
    Ok(Ok(summary))
}

/// Writes the files `name/refs.K.parq` of one variable.
fn variable(
    inputs: &Collection<'_>,
    dir: &Path,
    name: &str,
    chunks: &VarRefs,
    record_size: u64,
    schema: &Arc<Type>,
) -> std::io::Result<()> {
    let grid: Vec<u64> = chunks
        .shape
        .iter()
        .zip(&chunks.chunk_shape)
        .map(|(n, c)| n.div_ceil((*c).max(1)))
        .collect();
    let total: u64 = grid.iter().product();
    // The stored chunks by their row-major index in the grid.
    let mut order: Vec<(u64, usize)> = chunks
        .chunks
        .iter()
        .enumerate()
        .map(|(i, (coords, _, _))| {
            let index = coords.iter().zip(&grid).fold(0, |acc, (c, n)| acc * n + c);
            (index, i)
        })
        .collect();
    order.sort_unstable();
    let var_dir = dir.join(name);
    std::fs::create_dir_all(&var_dir)?;
    let mut stored = order.iter().peekable();
    for record in 0..total.div_ceil(record_size) {
        let first = record * record_size;
        let rows = record_size.min(total - first) as usize;
        let mut columns = Columns::with_capacity(rows);
        for index in first..first + rows as u64 {
            match stored.next_if(|(i, _)| *i == index) {
                Some(&(_, i)) => {
                    let (_, input, r) = &chunks.chunks[i];
                    columns.push(inputs.url(*input), r);
                }
                None => columns.push_missing(),
            }
        }
        let file = File::create(var_dir.join(format!("refs.{record}.parq")))?;
        columns.write(file, schema).map_err(parquet_io)?;
    }
    Ok(())
}

/// One record's rows, column by column (the nullable columns as their
/// non-null values and definition levels).
struct Columns {
    paths: Vec<ByteArray>,
    path_defined: Vec<i16>,
    offsets: Vec<i64>,
    sizes: Vec<i64>,
    raws: Vec<ByteArray>,
    raw_defined: Vec<i16>,
}

impl Columns {
    fn with_capacity(rows: usize) -> Columns {
        Columns {
            paths: Vec::with_capacity(rows),
            path_defined: Vec::with_capacity(rows),
            offsets: Vec::with_capacity(rows),
            sizes: Vec::with_capacity(rows),
            raws: Vec::new(),
            raw_defined: Vec::with_capacity(rows),
        }
    }

    /// A stored chunk of `url`.
    fn push(&mut self, url: &str, r: &ChunkRef) {
        match r {
            ChunkRef::Range { offset, length } => self.push_range(url, *offset, *length),
            ChunkRef::Object {
                object,
                offset,
                length,
            } => self.push_range(object, *offset, *length),
            ChunkRef::Inline(bytes) => {
                self.path_defined.push(0);
                self.offsets.push(0);
                self.sizes.push(0);
                self.raws.push(ByteArray::from(bytes.to_vec()));
                self.raw_defined.push(1);
            }
        }
    }

    /// A chunk stored as `length` bytes at `offset` of `path`.
    fn push_range(&mut self, path: &str, offset: u64, length: u64) {
        self.paths.push(ByteArray::from(path));
        self.path_defined.push(1);
        self.offsets.push(offset as i64);
        self.sizes.push(length as i64);
        self.raw_defined.push(0);
    }

    /// A chunk never written (read as the fill value).
    fn push_missing(&mut self) {
        self.path_defined.push(0);
        self.offsets.push(0);
        self.sizes.push(0);
        self.raw_defined.push(0);
    }

    /// Writes the rows as one Parquet file of one row group, uncompressed
    /// (the URLs dictionary-encoded).
    fn write(self, file: File, schema: &Arc<Type>) -> Result<(), ParquetError> {
        let props = WriterProperties::builder()
            .set_compression(Compression::UNCOMPRESSED)
            .set_dictionary_enabled(false)
            .build();
        let out = std::io::BufWriter::new(file);
        let mut writer = SerializedFileWriter::new(out, schema.clone(), Arc::new(props))?;
        let mut group = writer.next_row_group()?;
        let mut column = 0;
        while let Some(mut col) = group.next_column()? {
            match column {
                0 => {
                    col.typed::<ByteArrayType>().write_batch(
                        &self.paths,
                        Some(&self.path_defined),
                        None,
                    )?;
                }
                1 => {
                    col.typed::<Int64Type>()
                        .write_batch(&self.offsets, None, None)?;
                }
                2 => {
                    col.typed::<Int64Type>()
                        .write_batch(&self.sizes, None, None)?;
                }
                _ => {
                    col.typed::<ByteArrayType>().write_batch(
                        &self.raws,
                        Some(&self.raw_defined),
                        None,
                    )?;
                }
            }
            col.close()?;
            column += 1;
        }
        group.close()?;
        writer.close()?;
        Ok(())
    }
}

/// A Parquet error as an I/O error of the output.
fn parquet_io(e: ParquetError) -> std::io::Error {
    std::io::Error::other(e)
}
