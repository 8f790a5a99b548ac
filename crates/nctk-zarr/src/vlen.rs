//! Chunks of variable-length strings or byte strings, as numcodecs'
//! `VLenUTF8` / `VLenBytes` and Zarr v3's `vlen-utf8` / `vlen-bytes`
//! encode them: the number of items (u32, little-endian), then per item
//! its length (u32) and bytes.

/// The items of a vlen chunk that must hold `expected` of them, or why not.
pub(crate) fn decode(buf: &[u8], expected: u64) -> Result<Vec<&[u8]>, String> {
    let word = |at: usize| -> Result<usize, String> {
        buf.get(at..at + 4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
            .ok_or_else(|| format!("vlen chunk truncated at byte {at} of {}", buf.len()))
    };
    let n = word(0)?;
    if n as u64 != expected {
        return Err(format!("vlen chunk holds {n} items, expected {expected}"));
    }
    // Each item takes at least its 4-byte length: a count larger than the
    // buffer can hold is refused before anything is allocated.
    if n > buf.len() / 4 {
        return Err(format!(
            "vlen chunk claims {n} items in {} bytes",
            buf.len()
        ));
    }
    let mut items = Vec::with_capacity(n);
    let mut at = 4;
    for _ in 0..n {
        let len = word(at)?;
        at += 4;
        let item = buf
            .get(at..at.saturating_add(len))
            .ok_or_else(|| format!("vlen item of {len} bytes at byte {at} runs past the chunk"))?;
        items.push(item);
        at += len;
    }
    if at != buf.len() {
        return Err(format!("{} bytes after the last vlen item", buf.len() - at));
    }
    Ok(items)
}

/// The items of a chunk numcodecs' `json2` codec encoded (the JSON list
/// of the items followed by the dtype and the shape) that must hold
/// `expected` of them: strings as their UTF-8, `null` as `None` (a null
/// string), other values as JSON text.
pub(crate) fn decode_json(buf: &[u8], expected: u64) -> Result<Vec<Option<Vec<u8>>>, String> {
    let list: Vec<serde_json::Value> =
        serde_json::from_slice(buf).map_err(|e| format!("json2 chunk: {e}"))?;
    let n = list.len().saturating_sub(2);
    if n as u64 != expected {
        return Err(format!("json2 chunk holds {n} items, expected {expected}"));
    }
    Ok(list[..n]
        .iter()
        .map(|v| match v {
            serde_json::Value::String(s) => Some(s.clone().into_bytes()),
            serde_json::Value::Null => None,
            other => Some(other.to_string().into_bytes()),
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_and_damage() {
        let mut b = 2u32.to_le_bytes().to_vec();
        for s in ["ab", ""] {
            b.extend_from_slice(&(s.len() as u32).to_le_bytes());
            b.extend_from_slice(s.as_bytes());
        }
        assert_eq!(decode(&b, 2).unwrap(), vec![&b"ab"[..], &b""[..]]);
        assert!(decode(&b, 3).is_err());
        assert!(decode(&b[..7], 2).is_err());
        let j = br#"["a", "", 3, null, "|O", [4]]"#;
        assert_eq!(
            decode_json(j, 4).unwrap(),
            vec![Some(b"a".to_vec()), Some(vec![]), Some(b"3".to_vec()), None]
        );
        assert!(decode_json(j, 3).is_err());
        assert!(decode_json(b"[", 1).is_err());
        let huge = u32::MAX.to_le_bytes();
        assert!(decode(&huge, u64::from(u32::MAX)).is_err());
    }
}
