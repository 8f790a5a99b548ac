//! Placing a read of fixed-size values in its output: the fill where no
//! message lands, then each message's runs, as tasks run on rayon's
//! threads (all messages at once when no two meet in the output, message
//! after message otherwise, so a later one wins). Raw values are read
//! straight from the stream in parts of [`TASK_BYTES`], each part put in
//! native byte order on the thread that read it.

use nctk_model::bytes::values_as_bytes;
use nctk_model::{DataType, Selection, Values, VarId};
use rayon::prelude::*;

use super::overlap::{self, Run};
use super::{unfilled, Located, NcStreamReader, Piece};
use crate::error::{NcStreamError, Result};
use crate::header::decode::carries;

/// The bytes of raw values read and byte-swapped as one task (a multiple
/// of every element size): a larger message is read in parts on several
/// threads, each part swapped while it is still in the cache.
const TASK_BYTES: usize = 1 << 20;

/// What a read of fixed-size values fills: the variable, the type of its
/// values and their size in bytes.
#[derive(Debug, Clone, Copy)]
struct Target {
    var: VarId,
    dtype: DataType,
    size: u64,
}

/// One task of placing messages' values in the output.
enum Task<'a> {
    /// Raw values read straight from the stream into the output (stream
    /// offset, output bytes), then put in native byte order.
    Raw {
        big_endian: bool,
        reads: Vec<(u64, &'a mut [u8])>,
    },
    /// A message (index into the variable's pieces) decoded whole, its
    /// runs copied into the output.
    Decode {
        piece: usize,
        slots: Vec<(Run, &'a mut [u8])>,
    },
}

impl NcStreamReader {
    /// Reads the selected values of `var`, of a fixed size, into `out`
    /// (exactly the selection's values, in `fill`'s type; whatever it held
    /// is overwritten): the fill where no message lands, then each
    /// message's runs.
    pub(super) fn read_fixed(
        &self,
        var: VarId,
        sel: &Selection,
        fill: &Values,
        out: &mut [u8],
    ) -> Result<()> {
        let fill_bytes = values_as_bytes(fill).expect("fixed-size fill");
        let target = Target {
            var,
            dtype: fill.dtype(),
            size: fill_bytes.len() as u64,
        };
        let runs: Vec<Vec<Run>> = self
            .pieces(var)
            .iter()
            .map(|p| overlap::runs(sel, &p.section))
            .collect();
        let covered = overlap::covered(&runs);
        fill_gaps(out, fill_bytes, &covered);
        let tagged = |k: usize, rs: Vec<Run>| rs.into_iter().map(move |r| (k, r));
        if overlap::disjoint(&covered) {
            let all = runs
                .into_iter()
                .enumerate()
                .flat_map(|(k, rs)| tagged(k, rs));
            return self.place(target, all.collect(), out);
        }
        // Messages that meet in the output: one after another, so a later
        // one wins.
        for (k, rs) in runs.into_iter().enumerate() {
            self.place(target, tagged(k, rs).collect(), out)?;
        }
        Ok(())
    }

    /// Fills the output bytes of `runs` (each tagged with the index of its
    /// message; no two intersecting) from their messages, in parallel.
    fn place(&self, target: Target, runs: Vec<(usize, Run)>, out: &mut [u8]) -> Result<()> {
        let pieces = self.pieces(target.var);
        let mut slots: Vec<Vec<(Run, &mut [u8])>> = pieces.iter().map(|_| vec![]).collect();
        for (k, r, slot) in overlap::split(out, target.size, runs) {
            slots[k].push((r, slot));
        }
        let mut tasks = vec![];
        for (k, slots) in slots.into_iter().enumerate() {
            if slots.is_empty() {
                continue;
            }
            match self.raw_payload(target, &pieces[k]) {
                Some((raw, big_endian)) => {
                    raw_tasks(raw, big_endian, target.size, slots, &mut tasks);
                }
                None => tasks.push(Task::Decode { piece: k, slots }),
            }
        }
        tasks
            .into_par_iter()
            .try_for_each(|task| self.run_task(target, task))
    }

    /// Where a message's values start in the stream and their byte order,
    /// when they are stored there as they are (uncompressed numbers of the
    /// variable's type that fill the message's section exactly).
    fn raw_payload(&self, target: Target, p: &Located) -> Option<(u64, bool)> {
        let schema = &self.header.schema;
        let vt = schema.value_type(schema.var(target.var).dtype);
        let Piece::Row {
            info,
            payload,
            raw: Some(raw),
        } = &p.piece
        else {
            return None;
        };
        let msg_elems: u64 = p.section.iter().map(|s| s.count).product();
        (carries(info.dtype, vt) && payload.end - raw == msg_elems * target.size)
            .then_some((*raw, info.big_endian))
    }

    /// Does one task of [`place`](Self::place).
    fn run_task(&self, target: Target, task: Task<'_>) -> Result<()> {
        match task {
            Task::Raw {
                big_endian,
                mut reads,
            } => {
                let at = reads.first().map_or(0, |(at, _)| *at);
                let got = self
                    .source
                    .read_ranges_into(&mut reads)
                    .map_err(|e| NcStreamError::io(at, std::io::Error::other(e)))?;
                for ((at, slot), got) in reads.into_iter().zip(got) {
                    if got < slot.len() {
                        return Err(NcStreamError::truncated(
                            at,
                            format!("the values of a data message ({} bytes)", slot.len()),
                        ));
                    }
                    to_native(slot, target.size, big_endian);
                }
                Ok(())
            }
            Task::Decode { piece, slots } => {
                self.copy_decoded(target, &self.pieces(target.var)[piece], slots)
            }
        }
    }

    /// Decodes message `p` whole and copies its runs into their slots.
    fn copy_decoded(
        &self,
        target: Target,
        p: &Located,
        slots: Vec<(Run, &mut [u8])>,
    ) -> Result<()> {
        let schema = &self.header.schema;
        let msg_elems: u64 = p.section.iter().map(|s| s.count).product();
        let v = self.decode(target.var, p)?;
        let Some(src) = values_as_bytes(&v).filter(|b| b.len() as u64 == msg_elems * target.size)
        else {
            return Err(unfilled(schema, target.var, p.at));
        };
        if v.dtype() != target.dtype {
            return Err(NcStreamError::corrupt(
                p.at,
                format!(
                    "{}: a message of type {} for a variable of type {}",
                    schema.var_path(target.var),
                    v.dtype(),
                    target.dtype
                ),
            ));
        }
        for (r, slot) in slots {
            let m = (r.msg * target.size) as usize;
            slot.copy_from_slice(&src[m..m + slot.len()]);
        }
        Ok(())
    }
}

/// Writes the fill value into the elements of `out` that no interval of
/// `covered` (sorted, see [`overlap::covered`]) holds.
fn fill_gaps(out: &mut [u8], fill: &[u8], covered: &[(u64, u64)]) {
    let size = fill.len();
    let n = (out.len() / size) as u64;
    let mut fill_to = |from: u64, to: u64| {
        if from < to {
            nctk_model::bytes::fill_pattern(
                &mut out[from as usize * size..to as usize * size],
                fill,
            );
        }
    };
    let mut next = 0u64;
    for &(start, end) in covered {
        fill_to(next, start);
        next = next.max(end);
    }
    fill_to(next, n);
}

/// Puts values of `size` bytes stored in the given byte order into native
/// order, in place.
fn to_native(bytes: &mut [u8], size: u64, big_endian: bool) {
    if big_endian == cfg!(target_endian = "big") {
        return;
    }
    macro_rules! swap {
        ($t:ty) => {
            for c in bytes.chunks_exact_mut(std::mem::size_of::<$t>()) {
                let x = <$t>::from_ne_bytes(c.try_into().expect("whole values"));
                c.copy_from_slice(&x.swap_bytes().to_ne_bytes());
            }
        };
    }
    match size {
        2 => swap!(u16),
        4 => swap!(u32),
        8 => swap!(u64),
        // One-byte values have no order.
        _ => {}
    }
}

/// Cuts one raw message's slots (in output order) into [`Task::Raw`]s of
/// [`TASK_BYTES`]: a long slot in parts, short ones together (one batch,
/// whose nearby ranges the source may merge).
fn raw_tasks<'a>(
    raw: u64,
    big_endian: bool,
    size: u64,
    slots: Vec<(Run, &'a mut [u8])>,
    tasks: &mut Vec<Task<'a>>,
) {
    let mut reads: Vec<(u64, &'a mut [u8])> = vec![];
    let mut bytes = 0usize;
    for (r, mut slot) in slots {
        let mut at = raw + r.msg * size;
        while !slot.is_empty() {
            let take = slot.len().min(TASK_BYTES - bytes);
            let (head, tail) = std::mem::take(&mut slot).split_at_mut(take);
            reads.push((at, head));
            slot = tail;
            at += take as u64;
            bytes += take;
            if bytes == TASK_BYTES {
                let reads = std::mem::take(&mut reads);
                tasks.push(Task::Raw { big_endian, reads });
                bytes = 0;
            }
        }
    }
    if !reads.is_empty() {
        tasks.push(Task::Raw { big_endian, reads });
    }
}
