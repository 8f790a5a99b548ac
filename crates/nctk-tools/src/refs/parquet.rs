//! kerchunk's Parquet references, as fsspec's `LazyReferenceMapper`
//! reads them: a directory with `.zmetadata` (`{"metadata": {every
//! .zgroup/.zattrs/.zarray}, "record_size": N}`) and, for each variable
//! of the root group (fsspec's reader lists no subgroup), files
//! `refs.K.parq` of N rows each (the last one shorter): row `i` of file
//! `K` is the chunk whose row-major index in the chunk grid is
//! `K * N + i`, with columns `path` (the URL; null for a chunk not stored
//! or inline), `offset`, `size` and `raw` (an inline chunk's bytes, else
//! null). The rows come as the inputs are read and each file is written
//! when its N rows are there: a variable holds at most one record's rows
//! (but one combined along a dimension that is not its first, with more
//! than one chunk along the dimensions before it, whose rows are only in
//! order once every input is read: it holds its chunks until then). The
//! `.zmetadata` is written last, once the combined shapes are known.

use std::collections::HashMap;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use nctk::model::{ChunkRef, GroupId};
use parquet::basic::Compression;
use parquet::data_type::{ByteArray, ByteArrayType, Int64Type};
use parquet::errors::ParquetError;
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::parser::parse_message_type;
use parquet::schema::types::Type;
use serde_json::json;

use super::combine::{Chunks, Collection, VarLayout};
use super::kerchunk::{metadata, summary};
use super::stream::{stream, RefsSink};
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
/// (existing and empty; `output` names it in errors), `record_size`
/// chunks to a file, the inputs read `window` at a time. Each input
/// opened and each variable written is reported to `progress`.
pub fn write_parquet(
    inputs: &Collection,
    dir: &Path,
    output: &Path,
    record_size: u64,
    window: usize,
    progress: &mut dyn RefsProgress,
) -> Result<RefsSummary, RefsError> {
    let ds = inputs.first();
    if let Some(g) = ds.schema().group_ids().find(|&g| g != GroupId::ROOT) {
        return Err(RefsError::Subgroup {
            file: ds.name().to_string(),
            group: ds.schema().group_path(g),
        });
    }
    let written = |e| super::write_error(output, e);
    let schema = Arc::new(
        parse_message_type(SCHEMA)
            .map_err(parquet_io)
            .map_err(written)?,
    );
    let mut sink = ParquetSink {
        dir,
        output,
        record_size,
        schema,
        vars: HashMap::new(),
    };
    let layouts = stream(inputs, window, progress, &mut sink)?;
    let meta = metadata(ds, &layouts)?;
    let zmetadata = json!({"metadata": meta, "record_size": record_size});
    std::fs::write(dir.join(".zmetadata"), zmetadata.to_string()).map_err(written)?;
    Ok(summary(&layouts))
}

/// The Parquet files of each variable, written as their rows come.
struct ParquetSink<'a> {
    dir: &'a Path,
    output: &'a Path,
    record_size: u64,
    schema: Arc<Type>,
    vars: HashMap<String, Records>,
}

impl RefsSink for ParquetSink<'_> {
    fn chunks(
        &mut self,
        inputs: &Collection,
        layout: &VarLayout,
        chunks: Chunks,
    ) -> Result<(), RefsError> {
        let records = self.records(layout)?;
        let in_order = records.in_order;
        let records = self.vars.get_mut(&layout.name).expect("made above");
        if !in_order {
            records.held.extend(chunks);
            return Ok(());
        }
        let grid = layout.grid();
        let mut rows: Vec<(u64, usize, ChunkRef)> = chunks
            .into_iter()
            .map(|(coords, input, r)| (row_index(&coords, &grid), input, r))
            .collect();
        rows.sort_unstable_by_key(|(index, _, _)| *index);
        let (schema, record_size) = (&self.schema, self.record_size);
        for (index, input, r) in rows {
            records
                .push(index, Some((input, r)), inputs, schema, record_size)
                .map_err(|e| super::write_error(self.output, e))?;
        }
        Ok(())
    }

    fn close(&mut self, inputs: &Collection, layout: &VarLayout) -> Result<(), RefsError> {
        self.records(layout)?;
        let mut records = self.vars.remove(&layout.name).expect("made above");
        let grid = layout.grid();
        let mut held: Vec<(u64, usize, ChunkRef)> = std::mem::take(&mut records.held)
            .into_iter()
            .map(|(coords, input, r)| (row_index(&coords, &grid), input, r))
            .collect();
        held.sort_unstable_by_key(|(index, _, _)| *index);
        let total: u64 = grid.iter().product();
        let (schema, record_size) = (&self.schema, self.record_size);
        let written = (|| {
            for (index, input, r) in held {
                records.push(index, Some((input, r)), inputs, schema, record_size)?;
            }
            records.finish(total, inputs, schema, record_size)
        })();
        written.map_err(|e| super::write_error(self.output, e))
    }
}

impl ParquetSink<'_> {
    /// The records of the variable `layout` describes, made (with its
    /// directory) when it first comes.
    fn records(&mut self, layout: &VarLayout) -> Result<&mut Records, RefsError> {
        if !self.vars.contains_key(&layout.name) {
            let dir = self.dir.join(&layout.name);
            std::fs::create_dir_all(&dir).map_err(|e| super::write_error(self.output, e))?;
            // Row-major order is input order when the dimensions before
            // the combined one have one chunk each.
            let grid = layout.grid();
            let before = layout.axis.map_or(&grid[..0], |k| &grid[..k]);
            let records = Records {
                dir,
                next: 0,
                record: 0,
                rows: vec![],
                in_order: before.iter().all(|&n| n == 1),
                held: vec![],
            };
            self.vars.insert(layout.name.clone(), records);
        }
        Ok(self.vars.get_mut(&layout.name).expect("inserted"))
    }
}

/// The row-major index of the chunk at `coords` in a grid of `grid`
/// chunks along each dimension.
fn row_index(coords: &[u64], grid: &[u64]) -> u64 {
    coords.iter().zip(grid).fold(0, |acc, (c, n)| acc * n + c)
}

/// One variable's files: the rows of the record being filled (each an
/// input's chunk, or none for a chunk never written), the row index they
/// start at.
struct Records {
    dir: PathBuf,
    /// The row index of the next row.
    next: u64,
    /// The number of the file being filled.
    record: u64,
    rows: Vec<Option<(usize, ChunkRef)>>,
    /// Whether rows come in row-major order (else `held` until the end).
    in_order: bool,
    held: Chunks,
}

impl Records {
    /// Adds the row of index `index` (after rows of chunks never written
    /// up to it), writing each record as it fills.
    fn push(
        &mut self,
        index: u64,
        row: Option<(usize, ChunkRef)>,
        inputs: &Collection,
        schema: &Arc<Type>,
        record_size: u64,
    ) -> std::io::Result<()> {
        if index < self.next {
            return Err(std::io::Error::other(format!(
                "{}: chunk {index} came after chunk {}",
                self.dir.display(),
                self.next - 1
            )));
        }
        while self.next < index {
            self.rows.push(None);
            self.next += 1;
            self.flush_full(inputs, schema, record_size)?;
        }
        self.rows.push(row);
        self.next += 1;
        self.flush_full(inputs, schema, record_size)
    }

    /// Writes the record when it holds `record_size` rows.
    fn flush_full(
        &mut self,
        inputs: &Collection,
        schema: &Arc<Type>,
        record_size: u64,
    ) -> std::io::Result<()> {
        if (self.rows.len() as u64) < record_size {
            return Ok(());
        }
        self.flush(inputs, schema)
    }

    /// Writes the rows held as file `refs.K.parq`.
    fn flush(&mut self, inputs: &Collection, schema: &Arc<Type>) -> std::io::Result<()> {
        let rows = std::mem::take(&mut self.rows);
        let mut columns = Columns::with_capacity(rows.len());
        for row in &rows {
            match row {
                Some((input, r)) => columns.push(inputs.url(*input), r),
                None => columns.push_missing(),
            }
        }
        let file = File::create(self.dir.join(format!("refs.{}.parq", self.record)))?;
        columns.write(file, schema).map_err(parquet_io)?;
        self.record += 1;
        Ok(())
    }

    /// Every row given: rows of chunks never written up to `total`, and
    /// the last (shorter) record written.
    fn finish(
        &mut self,
        total: u64,
        inputs: &Collection,
        schema: &Arc<Type>,
        record_size: u64,
    ) -> std::io::Result<()> {
        while self.next < total {
            self.rows.push(None);
            self.next += 1;
            self.flush_full(inputs, schema, record_size)?;
        }
        if !self.rows.is_empty() {
            self.flush(inputs, schema)?;
        }
        Ok(())
    }
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
