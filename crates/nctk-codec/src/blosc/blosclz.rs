//! BloscLZ, Blosc's FastLZ-derived inner compressor.
//!
//! Stream format (as decoded by c-blosc's `blosclz_decompress`): the first
//! byte's low 5 bits start a literal run. Each instruction byte `ctrl` is
//! either a literal run (`ctrl < 32`: `ctrl + 1` bytes follow) or a match
//! (`ctrl >> 5` = length code, `ctrl & 31` = distance high bits): length code
//! 7 is extended by bytes until one is not 255; then one distance low byte;
//! if that byte is 255 and the high bits are 31, two more bytes give a far
//! distance (big-endian, plus 8191). The match length is the code plus 2 and
//! the distance the stored value plus 1.
//!
//! The encoder here is a simple greedy hash-chain-free LZ77 writing that
//! format (not c-blosc's tuned encoder, so its ratio differs a little).

const MAX_COPY: usize = 32;
const MAX_DISTANCE: usize = 8191;
const MAX_FARDISTANCE: usize = 65535 + MAX_DISTANCE - 1;
const HASH_LOG: u32 = 13;

/// Decodes a BloscLZ stream into `out`, returning the number of bytes written,
/// or the input offset and reason of the first problem.
pub(crate) fn decompress(input: &[u8], out: &mut [u8]) -> Result<usize, (usize, &'static str)> {
    let Some(&first) = input.first() else {
        return Err((0, "empty blosclz stream"));
    };
    let mut ip = 1usize;
    let mut op = 0usize;
    let mut ctrl = usize::from(first & 31);
    loop {
        if ctrl >= 32 {
            let mut len = (ctrl >> 5) - 1;
            let ofs = (ctrl & 31) << 8;
            if len == 6 {
                loop {
                    let &code = input
                        .get(ip)
                        .ok_or((ip, "match length runs past the end"))?;
                    ip += 1;
                    len += usize::from(code);
                    if code != 255 {
                        break;
                    }
                }
            }
            let &code = input
                .get(ip)
                .ok_or((ip, "match distance runs past the end"))?;
            ip += 1;
            len += 3;
            let mut dist = ofs + usize::from(code);
            if code == 255 && ofs == 31 << 8 {
                let hi = *input
                    .get(ip)
                    .ok_or((ip, "far distance runs past the end"))?;
                let lo = *input
                    .get(ip + 1)
                    .ok_or((ip + 1, "far distance runs past the end"))?;
                ip += 2;
                dist = ((usize::from(hi) << 8) | usize::from(lo)) + MAX_DISTANCE;
            }
            let distance = dist + 1;
            if distance > op {
                return Err((ip, "match refers before the start of the output"));
            }
            if len > out.len() - op {
                return Err((ip, "match writes past the declared size"));
            }
            crate::lz4::copy_match(out, op, distance, len);
            op += len;
        } else {
            let n = ctrl + 1;
            if n > out.len() - op {
                return Err((ip, "literal run writes past the declared size"));
            }
            if input.len() - ip >= MAX_COPY && out.len() - op >= MAX_COPY {
                // n <= 32: one 32-byte move; bytes past the run are
                // rewritten by what follows.
                out[op..op + MAX_COPY].copy_from_slice(&input[ip..ip + MAX_COPY]);
            } else {
                let src = input
                    .get(ip..ip + n)
                    .ok_or((ip, "literal run past the end of the stream"))?;
                out[op..op + n].copy_from_slice(src);
            }
            ip += n;
            op += n;
        }
        match input.get(ip) {
            None => break,
            Some(&c) => {
                ctrl = usize::from(c);
                ip += 1;
            }
        }
    }
    Ok(op)
}

/// Compresses `input` into `out` (cleared first). Returns `false` when the
/// result would not be smaller than `max_out` bytes (store raw instead).
pub(crate) fn compress(input: &[u8], out: &mut Vec<u8>, max_out: usize) -> bool {
    out.clear();
    let n = input.len();
    if n < 16 {
        return false;
    }
    let mut table = vec![0u32; 1 << HASH_LOG];
    let ip_limit = n - 12;
    let match_limit = n - 4;
    let mut anchor = 0usize;
    let read = |p: usize| u32::from_le_bytes([input[p], input[p + 1], input[p + 2], input[p + 3]]);
    // LZ4-style acceleration: the longer nothing matches, the bigger the step.
    let mut misses = 0usize;
    let mut next = 0usize;
    while next < ip_limit {
        let ip = next;
        let seq = read(ip);
        let h = (seq.wrapping_mul(2_654_435_761) >> (32 - HASH_LOG)) as usize;
        let cand = table[h] as usize;
        table[h] = ip as u32;
        let distance = ip.wrapping_sub(cand);
        if cand >= ip || distance >= MAX_FARDISTANCE || read(cand) != seq {
            misses += 1;
            next = ip + 1 + (misses >> 6);
            continue;
        }
        misses = 0;
        let mut len = 4;
        while ip + len < match_limit && input[cand + len] == input[ip + len] {
            len += 1;
        }
        if distance > MAX_DISTANCE && len < 5 {
            next = ip + 1;
            continue;
        }
        // Extend the match backwards over pending literals.
        let (mut ip, mut cand, mut len) = (ip, cand, len);
        while ip > anchor.max(1) && cand > 0 && input[ip - 1] == input[cand - 1] {
            ip -= 1;
            cand -= 1;
            len += 1;
        }
        emit_literals(out, &input[anchor..ip]);
        emit_match(out, distance - 1, len - 2);
        if out.len() >= max_out {
            return false;
        }
        let end = ip + len;
        anchor = end;
        if end + 4 <= n {
            let s = read(end - 1);
            table[(s.wrapping_mul(2_654_435_761) >> (32 - HASH_LOG)) as usize] = (end - 1) as u32;
        }
        next = end;
    }
    emit_literals(out, &input[anchor..]);
    if let Some(b) = out.first_mut() {
        *b |= 1 << 5; // c-blosc's blosclz marker; the decoder masks it
    }
    out.len() < max_out
}

fn emit_literals(out: &mut Vec<u8>, lits: &[u8]) {
    for run in lits.chunks(MAX_COPY) {
        out.push((run.len() - 1) as u8);
        out.extend_from_slice(run);
    }
}

/// `dd` = distance - 1, `code` = length - 2 (at least 1).
fn emit_match(out: &mut Vec<u8>, dd: usize, code: usize) {
    let far = dd >= MAX_DISTANCE;
    let hi = if far { 31 } else { dd >> 8 };
    if code < 7 {
        out.push(((code << 5) + hi) as u8);
    } else {
        out.push(((7 << 5) + hi) as u8);
        let mut rest = code - 7;
        while rest >= 255 {
            out.push(255);
            rest -= 255;
        }
        out.push(rest as u8);
    }
    if far {
        let d = dd - MAX_DISTANCE;
        out.extend_from_slice(&[255, (d >> 8) as u8, (d & 255) as u8]);
    } else {
        out.push((dd & 255) as u8);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roundtrip(data: &[u8]) {
        let mut enc = Vec::new();
        if compress(data, &mut enc, data.len()) {
            let mut out = vec![0; data.len()];
            assert_eq!(decompress(&enc, &mut out), Ok(data.len()));
            assert_eq!(out, data);
        }
    }

    #[test]
    fn roundtrips() {
        roundtrip(&[0u8; 100_000]);
        roundtrip(&(0..100_000u32).map(|i| (i / 7) as u8).collect::<Vec<_>>());
        let mut far = vec![0u8; 40_000];
        for (i, b) in far.iter_mut().enumerate() {
            *b = ((i * 2_654_435_761usize) >> 13) as u8;
        }
        let mut data = far.clone();
        data.extend_from_slice(&far);
        roundtrip(&data);
        let text = b"the quick brown fox jumps over the lazy dog; ".repeat(500);
        roundtrip(&text);
    }

    #[test]
    fn rejects_bad_streams() {
        let mut out = [0u8; 8];
        assert!(decompress(&[], &mut out).is_err());
        assert!(decompress(&[31, 1, 2], &mut out).is_err()); // literal past end
        assert!(decompress(&[0, 1, 0x20, 5], &mut out).is_err()); // match before start
    }
}
