//! Batched reads of several ranges: how a source merges nearby ranges
//! ([`Coalesce`], chosen by the source) and the reads themselves, into new
//! buffers ([`ByteSource::read_ranges`]) or into the caller's
//! ([`ByteSource::read_ranges_into`]).

use std::ops::Range;

use bytes::Bytes;

use super::{ByteError, ByteSource};

/// Gaps up to this many bytes between ranges are read through by
/// [`ByteSource::read_ranges`] rather than split into two reads, unless the
/// source chooses otherwise ([`ByteSource::coalesce`]).
pub const COALESCE_GAP: u64 = 64 * 1024;

/// How a source merges the ranges of one batch: nearby ranges are read
/// with one request covering them and the gaps between them, which trades
/// bytes read for requests made. A local file merges little (a request is
/// a cheap system call); a remote source merges much more.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Coalesce {
    /// Ranges separated by at most this many bytes may be read as one.
    pub gap: u64,
    /// Ranges this long or longer are read on their own, straight into
    /// their buffer (merging them would save a request but cost a copy).
    pub alone_from: u64,
    /// A merged request covers at most this many bytes.
    pub max_span: u64,
}

impl Coalesce {
    /// Every range is its own request (memory: a copy costs the same either way).
    pub const NEVER: Coalesce = Coalesce {
        gap: 0,
        alone_from: 0,
        max_span: 0,
    };

    /// The default for sources that do not choose: gaps up to
    /// [`COALESCE_GAP`], merged requests up to 8 MiB.
    pub const DEFAULT: Coalesce = Coalesce {
        gap: COALESCE_GAP,
        alone_from: u64::MAX,
        max_span: 8 << 20,
    };

    /// The requests that read `ranges` under this policy: the indices of
    /// the non-empty ranges sorted by offset, and the requests, each the
    /// span to read and the positions (in that order) of the ranges it
    /// covers. For sources that run the requests themselves (a remote
    /// source, concurrently).
    pub fn plan(&self, ranges: &[Range<u64>]) -> (Vec<usize>, Vec<MergedRequest>) {
        requests(ranges, *self)
    }

    /// Whether a range `next` (starting at or after the group's start)
    /// joins a group spanning `group` and ending with a range of `last_len`.
    fn joins(&self, group: &Range<u64>, last_len: u64, next: &Range<u64>) -> bool {
        let len = next.end.saturating_sub(next.start);
        last_len < self.alone_from
            && len < self.alone_from
            && next.start <= group.end.saturating_add(self.gap)
            && next.end.max(group.end) - group.start <= self.max_span
    }
}

/// A request: the span to read and the positions (in the sorted order) of
/// the ranges it covers.
pub type MergedRequest = (Range<u64>, Range<usize>);

/// The ranges' requests under `policy`: the indices of the non-empty
/// ranges sorted by offset, and the requests, each a span to read and the
/// positions (in that order) of the ranges it covers. Empty and reversed
/// ranges belong to no request.
fn requests(ranges: &[Range<u64>], policy: Coalesce) -> (Vec<usize>, Vec<MergedRequest>) {
    let mut order: Vec<usize> = (0..ranges.len())
        .filter(|&i| ranges[i].end > ranges[i].start)
        .collect();
    order.sort_by_key(|&i| ranges[i].start);
    let mut out: Vec<MergedRequest> = Vec::new();
    let mut last_len = 0;
    for (pos, &i) in order.iter().enumerate() {
        let r = &ranges[i];
        match out.last_mut() {
            Some((span, members)) if policy.joins(span, last_len, r) => {
                span.end = span.end.max(r.end);
                members.end = pos + 1;
            }
            _ => out.push((r.clone(), pos..pos + 1)),
        }
        last_len = r.end - r.start;
    }
    (order, out)
}

/// [`ByteSource::read_ranges`]: one `read_range` per request, sliced.
pub(crate) fn read_ranges<S: ByteSource + ?Sized>(
    source: &S,
    ranges: &[Range<u64>],
) -> Result<Vec<Bytes>, ByteError> {
    let mut out = vec![Bytes::new(); ranges.len()];
    let (order, requests) = requests(ranges, source.coalesce());
    for (span, members) in requests {
        let merged = source.read_range(span.clone())?;
        for &k in &order[members] {
            let r = &ranges[k];
            let lo = ((r.start - span.start) as usize).min(merged.len());
            let hi = ((r.end - span.start) as usize).min(merged.len());
            out[k] = merged.slice(lo..hi);
        }
    }
    Ok(out)
}

/// [`ByteSource::read_ranges_into`]: a request of one range reads straight
/// into its buffer; a merged request reads into one scratch buffer (reused)
/// and is copied out.
pub(crate) fn read_ranges_into<S: ByteSource + ?Sized>(
    source: &S,
    reads: &mut [(u64, &mut [u8])],
) -> Result<Vec<usize>, ByteError> {
    let ranges: Vec<Range<u64>> = reads
        .iter()
        .map(|(off, buf)| *off..off.saturating_add(buf.len() as u64))
        .collect();
    let mut got = vec![0usize; reads.len()];
    let mut scratch = Vec::new();
    let (order, requests) = requests(&ranges, source.coalesce());
    for (span, members) in requests {
        let members = &order[members];
        if let [k] = *members {
            got[k] = source.read_full(span.start, reads[k].1)?;
            continue;
        }
        let len = usize::try_from(span.end - span.start).map_err(|_| ByteError::TooLarge {
            path: source.name(),
            offset: span.start,
            len: span.end - span.start,
        })?;
        scratch.resize(len, 0);
        let have = source.read_full(span.start, &mut scratch)?;
        for &k in members {
            let s = (ranges[k].start - span.start) as usize;
            let dst = &mut *reads[k].1;
            let n = have.saturating_sub(s).min(dst.len());
            dst[..n].copy_from_slice(&scratch[s..s + n]);
            got[k] = n;
        }
    }
    Ok(got)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The requests' spans and the indices of the ranges each covers.
    fn plan(ranges: &[Range<u64>], policy: Coalesce) -> Vec<(Range<u64>, Vec<usize>)> {
        let (order, requests) = requests(ranges, policy);
        requests
            .into_iter()
            .map(|(span, members)| (span, order[members].to_vec()))
            .collect()
    }

    #[test]
    fn never_merges_under_never() {
        let r = [0..4, 4..8, 8..12];
        assert_eq!(
            plan(&r, Coalesce::NEVER),
            vec![(0..4, vec![0]), (4..8, vec![1]), (8..12, vec![2])]
        );
    }

    #[test]
    fn merges_by_gap_length_and_span() {
        let p = Coalesce {
            gap: 10,
            alone_from: 100,
            max_span: 50,
        };
        // Unsorted input; 0..4 and 14..18 are 10 apart (merged), 29..30 is
        // 11 past 18 (split); the long range stands alone; the span cap
        // splits 60..70 + 75..115.
        let r = [14..18, 0..4, 29..30, 200..300, 60..70, 75..115, 5..5];
        assert_eq!(
            plan(&r, p),
            vec![
                (0..18, vec![1, 0]),
                (29..30, vec![2]),
                (60..70, vec![4]),
                (75..115, vec![5]),
                (200..300, vec![3]),
            ]
        );
    }
}
