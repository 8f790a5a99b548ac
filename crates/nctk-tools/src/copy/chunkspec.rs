//! `-c` chunk specifications, parsed and checked against the input as
//! nccopy does (`dim/n,...` or `var:n1,n2,...`). Classic outputs ignore
//! them once checked; store outputs chunk by them (see `storage.rs`).

use nctk_model::{DimId, GroupId, Schema};

use super::CopyError;

/// How one `-c` argument asks variables to be chunked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChunkSpec {
    /// `/` (or `//`): no chunking on output.
    Off,
    /// `dim/n,...`: chunk lengths by dimension (a missing `n` is the
    /// dimension's length).
    Dims(Vec<(String, u64)>),
    /// `var:...`: the layout of one variable.
    Var {
        /// The variable's name or path.
        var: String,
        /// Its layout.
        layout: VarLayout,
    },
}

/// The layout a `var:...` specification asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VarLayout {
    /// `var:` : not chunked.
    Unchunked,
    /// `var:compact`.
    Compact,
    /// `var:contiguous`.
    Contiguous,
    /// `var:n1,n2,...`: one chunk length per dimension.
    Chunked(Vec<u64>),
}

/// Splits on commas not preceded by a backslash.
fn split_unescaped(s: &str) -> Vec<&str> {
    let mut parts = vec![];
    let mut begin = 0;
    let bytes = s.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        if b == b',' && (i == 0 || bytes[i - 1] != b'\\') {
            parts.push(&s[begin..i]);
            begin = i + 1;
        }
    }
    parts.push(&s[begin..]);
    parts
}

/// The dimension a `-c` specification names: a path (`/g/dim`) or a name
/// in the root group.
pub(crate) fn find_dim(schema: &Schema, name: &str) -> Option<DimId> {
    match name.rsplit_once('/') {
        Some((group, dim)) if name.starts_with('/') => {
            let g = if group.is_empty() {
                Some(GroupId::ROOT)
            } else {
                schema.group_by_path(group)
            }?;
            schema.dim_by_name(g, dim)
        }
        _ => schema.dim_by_name(GroupId::ROOT, name),
    }
}

impl ChunkSpec {
    /// Parses `spec` and checks it against `schema` (the input's).
    pub fn parse(spec: &str, schema: &Schema) -> Result<ChunkSpec, CopyError> {
        let bad = |reason: String| CopyError::ChunkSpec {
            spec: spec.to_string(),
            reason,
        };
        if spec == "/" || spec == "//" {
            return Ok(ChunkSpec::Off);
        }
        let Some((var, rest)) = spec.split_once(':') else {
            let mut dims = vec![];
            for part in split_unescaped(spec) {
                if part.is_empty() {
                    return Err(bad("consecutive commas".into()));
                }
                let Some((name, n)) = part.rsplit_once('/') else {
                    return Err(bad(format!("{part:?} gives no chunk length (dim/n)")));
                };
                let d = find_dim(schema, name)
                    .ok_or_else(|| bad(format!("no dimension named {name:?} in the input")))?;
                let len = if n.is_empty() {
                    schema.dim(d).len
                } else {
                    n.parse::<u64>()
                        .ok()
                        .filter(|&n| n >= 1)
                        .ok_or_else(|| bad(format!("bad chunk length {n:?}")))?
                };
                dims.push((name.to_string(), len));
            }
            return Ok(ChunkSpec::Dims(dims));
        };
        let id = schema
            .var_by_path(var)
            .ok_or_else(|| bad(format!("no variable named {var:?} in the input")))?;
        let layout = if rest.is_empty() {
            VarLayout::Unchunked
        } else if rest.eq_ignore_ascii_case("compact") {
            VarLayout::Compact
        } else if rest.eq_ignore_ascii_case("contiguous") {
            VarLayout::Contiguous
        } else {
            let sizes = rest
                .split(',')
                .map(|n| n.trim().parse::<u64>())
                .collect::<Result<Vec<u64>, _>>()
                .map_err(|_| bad(format!("bad chunk lengths {rest:?}")))?;
            let shape = schema.shape(id);
            if sizes.len() != shape.len() {
                return Err(bad(format!(
                    "{} chunk lengths for a variable of rank {}",
                    sizes.len(),
                    shape.len()
                )));
            }
            if let Some(i) = (0..shape.len()).find(|&i| sizes[i] > shape[i]) {
                return Err(bad(format!(
                    "chunk length {} is longer than dimension {} ({})",
                    sizes[i], i, shape[i]
                )));
            }
            VarLayout::Chunked(sizes)
        };
        Ok(ChunkSpec::Var {
            var: var.to_string(),
            layout,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nctk_model::DataType;

    fn schema() -> Schema {
        let mut s = Schema::new();
        let t = s.add_dim(GroupId::ROOT, "time", 2, true).unwrap();
        let x = s.add_dim(GroupId::ROOT, "x", 3, false).unwrap();
        s.add_var(GroupId::ROOT, "t", DataType::Float, &[t, x])
            .unwrap();
        s
    }

    #[test]
    fn both_forms_parse_and_are_checked() {
        let s = schema();
        assert_eq!(
            ChunkSpec::parse("x/2,time/", &s).unwrap(),
            ChunkSpec::Dims(vec![("x".into(), 2), ("time".into(), 2)])
        );
        assert_eq!(
            ChunkSpec::parse("t:1,3", &s).unwrap(),
            ChunkSpec::Var {
                var: "t".into(),
                layout: VarLayout::Chunked(vec![1, 3])
            }
        );
        assert_eq!(ChunkSpec::parse("/", &s).unwrap(), ChunkSpec::Off);
        assert!(ChunkSpec::parse("nodim/2", &s).is_err());
        assert!(ChunkSpec::parse("x", &s).is_err());
        assert!(ChunkSpec::parse("x/0", &s).is_err());
        assert!(ChunkSpec::parse("t:1", &s).is_err());
        assert!(ChunkSpec::parse("t:1,4", &s).is_err());
        assert!(ChunkSpec::parse("u:1", &s).is_err());
    }
}
