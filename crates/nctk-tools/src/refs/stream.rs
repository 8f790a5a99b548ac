//! The inputs read a window at a time: a few dozen opened at once
//! (concurrently), each variable's chunk references read from them
//! (concurrently), lined up with the first input's ([`Combiner`]) and
//! handed to a [`RefsSink`] as soon as they can be written, then the
//! window's inputs closed. What stays is each variable's combined layout
//! and the values of the small variables that are inlined, so memory and
//! open files depend on the window, not on the number of inputs.

use nctk::{Dataset, Error};
use rayon::prelude::*;
use rayon::ThreadPool;

use super::combine::{Chunks, Collection, Combiner, VarLayout};
use super::kerchunk::group_prefix;
use super::{RefsError, RefsProgress};

/// Inputs open at once by default.
pub const DEFAULT_WINDOW: usize = 64;

/// Threads that open remote inputs and read their chunk indexes: each
/// mostly waits on a round trip (a few per input: a HEAD, then the blocks
/// of the file its headers and index nodes lie in, one after another), so
/// many more threads than cores overlap the round trips of many inputs.
const REMOTE_THREADS: usize = 16;

/// Whether `input` is read over the network (a URL but `file://`).
fn is_remote(input: &str) -> bool {
    input.contains("://") && !input.starts_with("file://")
}

/// A pool of [`REMOTE_THREADS`] threads when any of `inputs` is remote
/// (`None`, rayon's global pool, when all are local or the pool cannot be
/// made).
fn remote_pool(inputs: &Collection) -> Option<ThreadPool> {
    if !(0..inputs.len()).any(|i| is_remote(inputs.name(i))) {
        return None;
    }
    rayon::ThreadPoolBuilder::new()
        .num_threads(REMOTE_THREADS.max(rayon::current_num_threads()))
        .thread_name(|i| format!("nctk-refs-{i}"))
        .build()
        .ok()
}

/// `work` run on `pool` (its parallel iterators on the pool's threads),
/// or as it is (rayon's global pool).
fn on_pool<R: Send>(pool: Option<&ThreadPool>, work: impl FnOnce() -> R + Send) -> R {
    match pool {
        Some(pool) => pool.install(work),
        None => work(),
    }
}

/// Where the references go as they are made.
pub trait RefsSink {
    /// Chunks of the variable `layout` describes (its layout so far,
    /// which covers them), in the order of their inputs; the chunks of
    /// one input come in one call.
    fn chunks(
        &mut self,
        inputs: &Collection,
        layout: &VarLayout,
        chunks: Chunks,
    ) -> Result<(), RefsError>;

    /// Every chunk of the variable was given: `layout` is final.
    fn close(&mut self, inputs: &Collection, layout: &VarLayout) -> Result<(), RefsError>;
}

/// Reads every input of `inputs` (input 0 is the collection's first,
/// already open; the others opened by `open`) `window` at a time, each
/// opened input and then each variable completed reported to
/// `progress`, the chunks handed to `sink`; returns every variable's
/// final layout, in the order of the first input's groups and
/// variables.
pub fn stream(
    inputs: &Collection,
    window: usize,
    progress: &mut dyn RefsProgress,
    sink: &mut dyn RefsSink,
) -> Result<Vec<VarLayout>, RefsError> {
    let first = inputs.first();
    let schema = first.schema();
    let mut vars = vec![];
    for g in schema.group_ids() {
        let prefix = group_prefix(schema, g);
        for &v in &schema.group(g).vars {
            super::kerchunk::check_type(first, v)?;
            let name = format!("{prefix}{}", schema.var(v).name);
            vars.push(Combiner::new(inputs, v, name));
        }
    }
    progress.set_total((inputs.len() + vars.len()) as u64);
    let window = window.max(1);
    let pool = remote_pool(inputs);
    let pool = pool.as_ref();
    let all: Vec<usize> = (0..inputs.len()).collect();
    for indexes in all.chunks(window) {
        let owned = open_window(inputs, indexes, pool, progress)?;
        let opened = with_first(inputs, indexes, &owned);
        for combiner in &mut vars {
            add_window(inputs, combiner, &opened, pool, sink)?;
        }
    }
    // Inputs read before a variable turned out to be inlined, read again
    // for its values.
    let again: Vec<usize> = all
        .iter()
        .copied()
        .filter(|&i| vars.iter().any(|c| c.needs_values(i)))
        .collect();
    for indexes in again.chunks(window) {
        let owned = open_window(inputs, indexes, pool, &mut crate::copy::NoProgress)?;
        let opened = with_first(inputs, indexes, &owned);
        for combiner in &mut vars {
            for &(i, ds) in &opened {
                if combiner.needs_values(i) {
                    combiner.add_values(inputs, i, ds)?;
                }
            }
        }
    }
    let mut layouts = Vec::with_capacity(vars.len());
    for combiner in vars {
        let (layout, chunks) = combiner.finish()?;
        if !chunks.is_empty() {
            sink.chunks(inputs, &layout, chunks)?;
        }
        sink.close(inputs, &layout)?;
        progress.advance(&layout.name);
        layouts.push(layout);
    }
    Ok(layouts)
}

/// The inputs `indexes` but input 0 (the collection's first, open
/// already) opened at once (on `pool`), each reported to `progress` as it
/// opens.
fn open_window(
    inputs: &Collection,
    indexes: &[usize],
    pool: Option<&ThreadPool>,
    progress: &mut dyn RefsProgress,
) -> Result<Vec<(usize, Dataset)>, Error> {
    let indexes: Vec<usize> = indexes.iter().copied().filter(|&i| i != 0).collect();
    let names: Vec<&str> = indexes.iter().map(|&i| inputs.name(i)).collect();
    Ok(indexes
        .into_iter()
        .zip(open_all(&names, pool, progress)?)
        .collect())
}

/// The window `owned` (and input 0 when `indexes` has it), each input
/// with its index, in order.
fn with_first<'a>(
    inputs: &'a Collection,
    indexes: &[usize],
    owned: &'a [(usize, Dataset)],
) -> Vec<(usize, &'a Dataset)> {
    let first = indexes.contains(&0).then(|| (0, inputs.first()));
    first
        .into_iter()
        .chain(owned.iter().map(|(i, ds)| (*i, ds)))
        .collect()
}

/// Adds the window's inputs to `combiner`: the parts read at once (on
/// `pool`), added in order, the chunks that can be written handed to
/// `sink`; the values an inlined variable needs read from the inputs
/// still open.
fn add_window(
    inputs: &Collection,
    combiner: &mut Combiner,
    opened: &[(usize, &Dataset)],
    pool: Option<&ThreadPool>,
    sink: &mut dyn RefsSink,
) -> Result<(), RefsError> {
    let wanted: Vec<(usize, &Dataset)> = opened
        .iter()
        .copied()
        .filter(|&(i, _)| combiner.wants(i))
        .collect();
    let shared = &*combiner;
    let parts: Vec<_> = on_pool(pool, || {
        wanted
            .par_iter()
            .map(|&(i, ds)| shared.part(inputs, i, ds))
            .collect()
    });
    for (&(i, _), part) in wanted.iter().zip(parts) {
        let chunks = combiner.add(inputs, i, part?)?;
        if !chunks.is_empty() {
            sink.chunks(inputs, combiner.layout(), chunks)?;
        }
    }
    for &(i, ds) in &wanted {
        if combiner.needs_values(i) {
            combiner.add_values(inputs, i, ds)?;
        }
    }
    Ok(())
}

/// Opens `names` at once (on `pool`, else rayon's global pool), each
/// reported to `progress` as it opens (whether it opened or not); the
/// first error in their order.
pub fn open_all(
    names: &[&str],
    pool: Option<&ThreadPool>,
    progress: &mut dyn RefsProgress,
) -> Result<Vec<Dataset>, Error> {
    let (opened, reports) = std::sync::mpsc::channel();
    std::thread::scope(|scope| {
        let opening = scope.spawn(move || {
            on_pool(pool, || {
                names
                    .par_iter()
                    .enumerate()
                    .map(|(i, name)| {
                        let ds = nctk::open(name);
                        // The receiver outlives the sender: a send cannot fail.
                        let _ = opened.send(i);
                        ds
                    })
                    .collect::<Result<Vec<Dataset>, Error>>()
            })
        });
        for i in reports {
            progress.advance(names[i]);
        }
        opening
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    })
}

#[cfg(test)]
mod tests {
    use super::is_remote;

    #[test]
    fn urls_but_file_urls_are_remote() {
        assert!(is_remote("s3://b/k.nc"));
        assert!(is_remote("http://127.0.0.1:9000/b/k.nc#mode=bytes,s3"));
        assert!(!is_remote("file:///data/a.nc"));
        assert!(!is_remote("/data/a.nc"));
    }
}
