//! The block size a block-compressed classic file should have for a
//! variable, found by brute force (an oracle for the writer's rule in
//! `docs/formats/compressed-classic.md`, computed another way).

/// The largest whole number of a variable's rows that fits in
/// `request` bytes: the greatest `k * elem * shape[i+1] * ... * shape[n-1]`
/// with `1 <= k <= shape[i]` over every dimension `i` that is at most
/// `request`, else one element; then at most the variable's data (at
/// least one element). Every fitting candidate is tried, so keep shapes small.
pub fn row_aligned_block_bytes(shape: &[u64], elem: u64, request: u64) -> u64 {
    let data: u64 = shape.iter().product::<u64>() * elem;
    let mut best = elem;
    let mut inner = elem;
    for &n in shape.iter().rev() {
        let n = n.max(1);
        for k in 1..=n {
            let size = k * inner;
            if size > request {
                break;
            }
            best = best.max(size);
        }
        inner *= n;
    }
    best.clamp(elem, data.max(elem))
}
