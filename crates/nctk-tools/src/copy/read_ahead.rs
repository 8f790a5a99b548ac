//! Slabs read ahead of their writing: while the caller writes one slab of
//! a variable, a second thread reads the next, so that reading (a file's
//! reads, byte swaps, decoding) and writing (chunk assembly, the output's
//! writes) run on both cores. The reader hands each slab over when the
//! writer takes it, and the written slab's buffer goes back to the reader:
//! reading ahead holds one slab more than reading in turn, and is used
//! only for slabs of at most [`READ_AHEAD_BYTES`].

use std::sync::mpsc::{channel, sync_channel};

use nctk_model::{DataType, Selection, Values};

use super::CopyError;

/// The largest slab read ahead (the memory reading ahead adds): a chunk
/// of a 721 x 1440 float grid fits. Larger slabs are read in turn, which
/// keeps a copy of large chunks, whose encoding takes the cores anyway,
/// within its memory bound.
pub(crate) const READ_AHEAD_BYTES: u64 = 4 << 20;

/// Buffers in use at once: the one being read, the one being written.
const BUFFERS: usize = 2;

/// Reads a slab of the variable being copied into a buffer.
pub(crate) type ReadSlab<'a> = dyn Fn(&Selection, &mut Values) -> Result<(), CopyError> + Sync + 'a;

/// Writes a slab read.
pub(crate) type WriteSlab<'a> = dyn FnMut(&Selection, &Values) -> Result<(), CopyError> + 'a;

/// Calls `write` with each slab of `slabs` in order, as `read` reads it
/// (into `buf` when read in turn). With more than one slab, each of at
/// most `slab_bytes` and that within [`READ_AHEAD_BYTES`], the slabs are
/// read on another thread, one ahead of the one written. The
/// first error of either side ends the copy and is returned.
pub(crate) fn for_each_slab(
    slabs: &mut (dyn Iterator<Item = Selection> + Send),
    slab_bytes: u64,
    buf: &mut Values,
    read: &ReadSlab<'_>,
    write: &mut WriteSlab<'_>,
) -> Result<(), CopyError> {
    let mut slabs = slabs.peekable();
    let Some(first) = slabs.next() else {
        return Ok(());
    };
    if slabs.peek().is_none() || slab_bytes > READ_AHEAD_BYTES {
        for sel in std::iter::once(first).chain(slabs) {
            read(&sel, buf)?;
            write(&sel, buf)?;
        }
        return Ok(());
    }
    let (read_tx, read_rx) = sync_channel::<(Selection, Result<Values, CopyError>)>(0);
    let (free_tx, free_rx) = channel::<Values>();
    std::thread::scope(|scope| {
        scope.spawn(move || {
            let mut made = 0;
            for sel in std::iter::once(first).chain(slabs) {
                let mut b = match free_rx.try_recv() {
                    Ok(b) => b,
                    Err(_) if made < BUFFERS => {
                        made += 1;
                        Values::empty(DataType::Byte)
                    }
                    // every buffer is in use: wait for one written (none
                    // comes when the writer stopped)
                    Err(_) => match free_rx.recv() {
                        Ok(b) => b,
                        Err(_) => return,
                    },
                };
                let result = read(&sel, &mut b).map(|()| b);
                let failed = result.is_err();
                if read_tx.send((sel, result)).is_err() || failed {
                    return;
                }
            }
        });
        // Both channels end with this closure, so a reader waiting on
        // either stops when the writing stops early.
        let free_tx = free_tx;
        for (sel, result) in read_rx {
            let b = result?;
            write(&sel, &b)?;
            // the reader may have finished: the buffer is then dropped
            let _ = free_tx.send(b);
        }
        Ok(())
    })
}
