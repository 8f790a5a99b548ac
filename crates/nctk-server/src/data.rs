//! `req=data`: the data messages of the requested variables, read and
//! encoded slab by slab and sent through a bounded channel, so a request
//! holds a few slabs in memory whatever its size.
//!
//! * Uncompressed numbers, chars, enums, strings, opaque and vlens: one
//!   data message per variable, as netCDF-Java sends it (siphon's
//!   `Dataset` reads the first message of an answer only): its `Data`
//!   message and payload count first (the size is known from the
//!   selection), then each slab's payload as it is read.
//! * `deflate=N`, and compound variables: one data message per slab, each
//!   with the section it covers (a deflated payload's length comes before
//!   it, so a message is compressed whole).
//!
//! Each batch of slabs (as many as rayon has threads) is read and encoded
//! in parallel on a blocking thread and sent in order from the answer's
//! task; a request holds at most a batch and the channel's frames.

use std::cell::Cell;
use std::sync::Arc;

use bytes::Bytes;
use nctk_model::{DataType, Schema, Selection, Values, VarId};
use nctk_ncstream::message::{data_message, error_message, DataOptions};
use nctk_ncstream::payload::encode::{encode, Payload};
use nctk_ncstream::wire::{get_varint, put_varint};
use nctk_ncstream::{proto, NcStreamError};
use prost::Message;
use rayon::prelude::*;

use crate::body::Sender;
use crate::slabs::Slabs;

/// About how many bytes of values one slab holds.
pub const SLAB_BYTES: u64 = 2 << 20;

/// The bytes a value of a type without a fixed size is counted as when
/// sizing slabs (strings, vlens).
const VARIABLE_SIZE_GUESS: u64 = 64;

/// A validated data request: the variables and selections, in order.
pub struct DataRequest {
    /// The dataset read.
    pub dataset: Arc<nctk::Dataset>,
    /// What to send, in order.
    pub parts: Vec<(VarId, Selection)>,
    /// The deflate level, if any.
    pub deflate: Option<u32>,
}

/// Why producing the answer stopped.
enum Stop {
    /// The client went away.
    Gone,
    /// Reading or encoding failed: the text goes to the client as an
    /// ncstream error message.
    Failed(String),
}

/// Sends the answer's messages through `sender`, a task of the runtime:
/// the reading and encoding run on a blocking thread (and rayon) only
/// while there is work, never while a slow client holds the channel full,
/// so slow clients do not take the blocking threads from others. An error
/// after the first bytes ends the body with an ncstream error message.
pub async fn produce(request: DataRequest, sender: Sender) {
    let request = Arc::new(request);
    let mut result = Ok(());
    for part in 0..request.parts.len() {
        result = send_variable(&request, part, &sender).await;
        if result.is_err() {
            break;
        }
    }
    if let Err(Stop::Failed(text)) = result {
        let _ = sender.send(Bytes::from(error_message(&text))).await;
    }
}

/// How one variable's values go out.
#[derive(Clone, Copy)]
enum Plan {
    /// One message: its head, then each slab's payload.
    Single,
    /// A whole message per slab.
    PerSlab(DataOptions),
}

/// `work` on a blocking thread.
async fn blocking<R: Send + 'static>(
    work: impl FnOnce() -> Result<R, Stop> + Send + 'static,
) -> Result<R, Stop> {
    tokio::task::spawn_blocking(work)
        .await
        .unwrap_or_else(|e| Err(Stop::Failed(format!("internal error: {e}"))))
}

async fn send(sender: &Sender, bytes: Bytes) -> Result<(), Stop> {
    sender.send(bytes).await.map_err(|_| Stop::Gone)
}

async fn send_variable(
    request: &Arc<DataRequest>,
    part: usize,
    sender: &Sender,
) -> Result<(), Stop> {
    let (var, ref selection) = request.parts[part];
    let schema = request.dataset.schema();
    let v = schema.var(var);
    let compound = matches!(
        schema.user_kind(v.dtype),
        Some(nctk_model::UserTypeKind::Compound { .. })
    );
    let plan = match (request.deflate, compound) {
        (None, false) => Plan::Single,
        (deflate, _) => Plan::PerSlab(DataOptions { deflate }),
    };
    let empty = selection.num_elements() == Some(0);
    if let (Plan::Single, false) = (&plan, empty) {
        let (r, sel) = (request.clone(), selection.clone());
        send(sender, blocking(move || head(&r.dataset, var, &sel)).await?).await?;
    }
    let size = schema
        .type_size(v.dtype)
        .filter(|_| !matches!(v.dtype, DataType::String))
        .unwrap_or(VARIABLE_SIZE_GUESS)
        .max(1);
    let mut slabs = Slabs::new(selection, SLAB_BYTES / size);
    let batch = rayon::current_num_threads().max(2);
    loop {
        let group: Vec<Selection> = slabs.by_ref().take(batch).collect();
        if group.is_empty() {
            return Ok(());
        }
        let r = request.clone();
        let pieces = blocking(move || {
            group
                .par_iter()
                .map(|slab| piece(&r.dataset, var, slab, &plan, empty))
                .collect::<Result<Vec<Bytes>, Stop>>()
        })
        .await?;
        for piece in pieces {
            send(sender, piece).await?;
        }
    }
}

thread_local! {
    /// Each worker's values buffer, reused slab after slab (no fresh
    /// pages to fault in and zero for every slab).
    static VALUES: Cell<Values> = const { Cell::new(Values::Byte(Vec::new())) };
}

/// One slab's bytes: its payload (a single message's part) or its whole
/// message.
fn piece(
    dataset: &nctk::Dataset,
    var: VarId,
    slab: &Selection,
    plan: &Plan,
    empty: bool,
) -> Result<Bytes, Stop> {
    // Taken out of the cell, not borrowed: a reader that waits on rayon
    // inside `read_into` may run another slab's work on this thread.
    let mut values = VALUES.with(|cell| cell.replace(Values::Byte(Vec::new())));
    let result = dataset
        .source()
        .read_into(var, slab, &mut values)
        .map_err(|e| read_failed(dataset, var, e))
        .and_then(|()| encode_piece(dataset.schema(), var, slab, &values, plan, empty));
    VALUES.with(|cell| cell.replace(values));
    result
}

fn encode_piece(
    schema: &Schema,
    var: VarId,
    slab: &Selection,
    values: &Values,
    plan: &Plan,
    empty: bool,
) -> Result<Bytes, Stop> {
    let item = || format!("variable {}", schema.var_path(var));
    match plan {
        Plan::PerSlab(options) => data_message(schema, var, slab, values, options)
            .map(Bytes::from)
            .map_err(|e| failed(schema, var, e)),
        // An empty selection still gets its (empty) message.
        Plan::Single if empty => data_message(schema, var, slab, values, &DataOptions::default())
            .map(Bytes::from)
            .map_err(|e| failed(schema, var, e)),
        Plan::Single => match encode(schema, schema.var(var).dtype, values, &item())
            .map_err(|e| failed(schema, var, e))?
        {
            Payload::Block(bytes) => Ok(Bytes::from(bytes)),
            Payload::Objects(bytes) => {
                // The slab's own object count leads; the message's total
                // count went out with the head.
                let (_, n) = get_varint(&bytes, 0).map_err(|e| failed(schema, var, e))?;
                Ok(Bytes::from(bytes).slice(n..))
            }
            Payload::Structure(_) => Err(Stop::Failed(format!(
                "{}: a structure payload cannot be split",
                item()
            ))),
        },
    }
}

fn read(dataset: &nctk::Dataset, var: VarId, slab: &Selection) -> Result<Values, Stop> {
    dataset
        .source()
        .read(var, slab)
        .map_err(|e| read_failed(dataset, var, e))
}

fn read_failed(dataset: &nctk::Dataset, var: VarId, e: nctk_model::SourceError) -> Stop {
    Stop::Failed(format!(
        "IOException: reading {}: {e}",
        dataset.schema().var_path(var)
    ))
}

fn failed(schema: &Schema, var: VarId, e: NcStreamError) -> Stop {
    Stop::Failed(format!("{}: {e}", schema.var_path(var)))
}

/// The start of the one data message of `selection` of `var`: the framed
/// `Data` message and the payload's count (bytes for fixed-size values,
/// objects for strings, opaque and vlens).
///
/// The `Data` message is the encoder's own, made for the selection's first
/// value and given the whole selection's section, so every field is what
/// the encoder writes; the count follows from the first value's.
fn head(dataset: &nctk::Dataset, var: VarId, selection: &Selection) -> Result<Bytes, Stop> {
    let schema = dataset.schema();
    let bad = |e: NcStreamError| failed(schema, var, e);
    let first = Selection::block(&selection.start, &vec![1; selection.rank()]);
    let values = read(dataset, var, &first)?;
    let one = data_message(schema, var, &first, &values, &DataOptions::default()).map_err(bad)?;
    let (len, n) = get_varint(&one[4..], 4).map_err(bad)?;
    let body_at = 4 + n;
    let body_end = body_at + len as usize;
    let mut data = proto::Data::decode(&one[body_at..body_end])
        .map_err(|e| bad(NcStreamError::message(body_at as u64, "Data", e)))?;
    let (one_count, _) = get_varint(&one[body_end..], body_end as u64).map_err(bad)?;
    if let Some(section) = data.section.as_mut() {
        for (range, d) in section.range.iter_mut().zip(0..) {
            range.size = Some(selection.count[d]);
            range.stride = Some(selection.stride[d].max(1));
        }
    }
    let elements = selection.num_elements().unwrap_or(u64::MAX);
    let objects = matches!(
        data.data_type(),
        proto::DataType::String | proto::DataType::Opaque
    ) || data.vdata == Some(true);
    let count = if objects {
        elements
    } else {
        // `one_count` is the bytes of one value.
        elements.saturating_mul(one_count)
    };
    let body = data.encode_to_vec();
    let mut out = Vec::with_capacity(body.len() + 24);
    out.extend_from_slice(&one[..4]);
    put_varint(&mut out, body.len() as u64);
    out.extend_from_slice(&body);
    put_varint(&mut out, count);
    Ok(Bytes::from(out))
}
