//! What `ncdump -s` shows of the file itself (`nc4info.c`,
//! `NC4_isnetcdf4` in 4.9.0's `nc4hdf.c`): the superblock version, the
//! `_NCProperties` text and whether the file carries netCDF-4's marks.

use nctk_model::FileFacts;

use super::build::Atts;
use super::error::Nc4Error;
use super::hidden::{is_reserved, NC3_STRICT, NC_PROPERTIES};
use super::walk::WalkedGroup;

/// The facts of the file `atts` reads, whose groups are `groups` (the root first).
pub(crate) fn file_facts(atts: &Atts<'_>, groups: &[WalkedGroup]) -> Result<FileFacts, Nc4Error> {
    let root = &groups[0].group.attributes;
    let nc_properties = match root.iter().find(|a| a.name == NC_PROPERTIES) {
        Some(a) => atts.text(a)?,
        None => None,
    };
    // netCDF-C 4.9.0's `NC4_isnetcdf4` (the peer whose `ncdump -s` nctk
    // matches): two or more reserved attributes on datasets (or datasets
    // named `phony_dim`) anywhere in the file. A file with `_nc3_strict`
    // skips that walk and answers 0 there.
    let strict = root.iter().any(|a| a.name == NC3_STRICT);
    let markers: usize = groups
        .iter()
        .flat_map(|g| &g.datasets)
        .map(|(name, info)| {
            usize::from(name == "phony_dim")
                + info
                    .attributes
                    .iter()
                    .filter(|a| is_reserved(&a.name))
                    .count()
        })
        .sum();
    Ok(FileFacts {
        superblock_version: Some(u32::from(atts.file.superblock().version)),
        nc_properties,
        is_netcdf4: !strict && markers >= 2,
    })
}
