//! The dataspace message (type 1), version 2: scalar or simple, with the
//! maximum dimensions when one is unlimited.

use super::encode::Enc;
use crate::dataspace::{Dataspace, DataspaceKind};

/// The encoded dataspace message body of `space`; a maximum of
/// `u64::MAX` is written as unlimited (all bits set).
pub fn encode(space: &Dataspace) -> Vec<u8> {
    let mut e = Enc::new();
    let kind = match space.kind {
        DataspaceKind::Scalar => 0,
        DataspaceKind::Simple => 1,
        DataspaceKind::Null => 2,
    };
    let rank = if space.kind == DataspaceKind::Simple {
        space.dims.len()
    } else {
        0
    };
    let max = space.max_dims.as_ref().filter(|_| rank > 0);
    e.u8(2).u8(rank as u8).u8(u8::from(max.is_some())).u8(kind);
    for &d in &space.dims[..rank] {
        e.u64(d);
    }
    for &m in max.into_iter().flatten() {
        e.u64(m);
    }
    e.into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dataspaces_read_back_as_written() {
        let spaces = [
            Dataspace {
                kind: DataspaceKind::Scalar,
                dims: vec![],
                max_dims: None,
            },
            Dataspace {
                kind: DataspaceKind::Simple,
                dims: vec![0, 3, 4],
                max_dims: Some(vec![u64::MAX, 3, 4]),
            },
            Dataspace {
                kind: DataspaceKind::Simple,
                dims: vec![7],
                max_dims: None,
            },
        ];
        for s in spaces {
            let body = encode(&s);
            let ctx = super::super::test_ctx(&body);
            let mut cur = ctx.cursor(&body, 0, "dataspace");
            assert_eq!(Dataspace::parse(&mut cur, 8).unwrap(), s);
        }
    }
}
