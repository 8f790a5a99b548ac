//! The walk over the file's groups in netCDF-C's order
//! (`rec_read_metadata`): each group's links in creation order (name order
//! when the group does not track it), datasets and named types first,
//! child groups after.

use crate::{DatasetInfo, Group, Hdf5File, LinkTarget, ObjectKind};

use super::error::Nc4Error;

/// One group as the walk found it.
pub(crate) struct WalkedGroup {
    /// The link name (empty for the root).
    pub name: String,
    /// The parent's index in the walk, `None` for the root.
    pub parent: Option<usize>,
    /// The group's own object (links and attributes).
    pub group: Group,
    /// Datasets in link order: (link name, object).
    pub datasets: Vec<(String, DatasetInfo)>,
    /// Datasets and named datatypes interleaved in link order.
    pub entries: Vec<Entry>,
    /// Child groups (indexes in the walk), in link order.
    pub children: Vec<usize>,
}

/// A dataset or a named datatype of a group, in link order.
pub(crate) enum Entry {
    /// The dataset at this index of the group's `datasets`.
    Dataset(usize),
    /// A named datatype: its link name and object header address.
    Type(String, u64),
}

/// How many soft links a path may pass through (HDF5's `H5L_NUM_LINKS`).
const MAX_SOFT_LINKS: usize = 16;

/// The object header address a link of the group at `group` leads to:
/// a hard link's, or the object a soft link's path names (absolute, or
/// relative to the group). External links are not followed.
fn target(
    file: &Hdf5File,
    group: u64,
    name: &str,
    link: &LinkTarget,
    depth: usize,
) -> Result<u64, Nc4Error> {
    let bad = |reason: String| Nc4Error::Invalid {
        file: file.ctx().name().to_string(),
        object: name.to_string(),
        reason,
    };
    match link {
        LinkTarget::Hard(a) => Ok(*a),
        LinkTarget::Soft(path) => {
            if depth >= MAX_SOFT_LINKS {
                return Err(bad(format!(
                    "more than {MAX_SOFT_LINKS} soft links in a row"
                )));
            }
            let mut at = if path.starts_with('/') {
                file.root_addr()
            } else {
                group
            };
            for part in path.split('/').filter(|p| !p.is_empty() && *p != ".") {
                let found = file.group(at)?.links.into_iter().find(|l| l.name == part);
                let Some(next) = found else {
                    return Err(bad(format!("soft link to {path}: no object {part}")));
                };
                at = target(file, at, part, &next.target, depth + 1)?;
            }
            Ok(at)
        }
        LinkTarget::External { file: other, path } => Err(Nc4Error::Unsupported {
            file: file.ctx().name().to_string(),
            object: name.to_string(),
            reason: format!("an external link to {path} in {other}"),
        }),
    }
}

/// Walks the groups below the root; index 0 of the result is the root.
pub(crate) fn walk(file: &Hdf5File) -> Result<Vec<WalkedGroup>, Nc4Error> {
    let mut out = Vec::new();
    visit(file, file.root_addr(), String::new(), None, &mut out)?;
    Ok(out)
}

fn visit(
    file: &Hdf5File,
    addr: u64,
    name: String,
    parent: Option<usize>,
    out: &mut Vec<WalkedGroup>,
) -> Result<usize, Nc4Error> {
    // A group linked below itself would be walked forever.
    let mut ancestor = parent;
    while let Some(a) = ancestor {
        if out[a].group.addr == addr {
            return Err(Nc4Error::Invalid {
                file: file.ctx().name().to_string(),
                object: name,
                reason: format!("the group at address {addr} is linked below itself"),
            });
        }
        ancestor = out[a].parent;
    }
    let group = file.group(addr)?;
    let mut links = group.links.clone();
    if links.iter().all(|l| l.creation_order.is_some()) {
        links.sort_by_key(|l| l.creation_order);
    } else {
        links.sort_by(|a, b| a.name.as_bytes().cmp(b.name.as_bytes()));
    }
    // Soft links are followed, as `H5Oopen` follows them.
    let links = links
        .into_iter()
        .map(|l| Ok((target(file, addr, &l.name, &l.target, 0)?, l.name)))
        .collect::<Result<Vec<_>, Nc4Error>>()?;
    let me = out.len();
    out.push(WalkedGroup {
        name,
        parent,
        group,
        datasets: vec![],
        entries: vec![],
        children: vec![],
    });
    let mut subgroups = vec![];
    for (target, link) in links {
        match file.object_kind(target)? {
            ObjectKind::Dataset => {
                let info = file.dataset(target)?;
                let g = &mut out[me];
                g.entries.push(Entry::Dataset(g.datasets.len()));
                g.datasets.push((link, info));
            }
            ObjectKind::NamedDatatype => out[me].entries.push(Entry::Type(link, target)),
            ObjectKind::Group => subgroups.push((link, target)),
        }
    }
    for (link, target) in subgroups {
        let child = visit(file, target, link, Some(me), out)?;
        out[me].children.push(child);
    }
    Ok(me)
}
