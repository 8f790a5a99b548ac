//! The walk over the file's groups in netCDF-C's order
//! (`rec_read_metadata`): each group's links in creation order (name order
//! when the group does not track it), datasets and named types first,
//! child groups after.

use std::collections::HashSet;

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

/// Walks the groups below the root; index 0 of the result is the root.
pub(crate) fn walk(file: &Hdf5File) -> Result<Vec<WalkedGroup>, Nc4Error> {
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    visit(
        file,
        file.root_addr(),
        String::new(),
        None,
        &mut out,
        &mut seen,
    )?;
    Ok(out)
}

fn visit(
    file: &Hdf5File,
    addr: u64,
    name: String,
    parent: Option<usize>,
    out: &mut Vec<WalkedGroup>,
    seen: &mut HashSet<u64>,
) -> Result<usize, Nc4Error> {
    if !seen.insert(addr) {
        return Err(Nc4Error::Invalid {
            file: file.ctx().name().to_string(),
            object: name,
            reason: format!("the group at address {addr} is linked twice (a cycle of groups)"),
        });
    }
    let group = file.group(addr)?;
    let mut links: Vec<_> = group
        .links
        .iter()
        .filter_map(|l| match l.target {
            LinkTarget::Hard(a) => Some((l.name.clone(), l.creation_order, a)),
            _ => None,
        })
        .collect();
    if links.iter().all(|l| l.1.is_some()) {
        links.sort_by_key(|l| l.1);
    } else {
        links.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    }
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
    for (link, _, target) in links {
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
        let child = visit(file, target, link, Some(me), out, seen)?;
        out[me].children.push(child);
    }
    Ok(me)
}
