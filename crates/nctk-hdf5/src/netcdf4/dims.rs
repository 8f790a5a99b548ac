//! netCDF dimensions from HDF5 datasets, as netCDF-C's `hdf5open.c` finds
//! them: dimension scales (`read_scale`), `_Netcdf4Dimid` and
//! `_Netcdf4Coordinates` (`read_coord_dimids`), `DIMENSION_LIST` matched
//! to scales in the group and its parents (`rec_match_dimscales`), phony
//! dimensions for datasets with no scales (`create_phony_dims`) and the
//! current length of unlimited dimensions (`nc4_find_dim_len`).
//!
//! The input is a tree of groups in netCDF-C's reading order (each group's
//! datasets in link order, child groups after); the output is every
//! dimension with netCDF-C's id, and each variable's dimensions.

use super::error::Nc4Error;

/// The prefix of a scale's `NAME` that marks a dimension with no variable.
pub(crate) const DIM_WITHOUT_VARIABLE: &str =
    "This is a netCDF dimension but not a netCDF variable";

/// One HDF5 dataset as dimension resolution sees it.
#[derive(Debug, Clone, Default)]
pub(crate) struct DatasetDims {
    /// The link name (for errors).
    pub name: String,
    /// The object header address: the dataset's identity.
    pub addr: u64,
    /// Current extent per axis (empty for a scalar).
    pub shape: Vec<u64>,
    /// Per axis, whether the maximum extent is unlimited.
    pub unlimited: Vec<bool>,
    /// `CLASS = "DIMENSION_SCALE"`.
    pub scale: bool,
    /// The scale's `NAME` marks a dimension that is not a variable.
    pub dim_only: bool,
    /// `_Netcdf4Dimid`.
    pub dimid: Option<i32>,
    /// `_Netcdf4Coordinates`.
    pub coordinates: Option<Vec<i32>>,
    /// `DIMENSION_LIST`: per axis, the addresses of the scales attached.
    pub dimension_list: Option<Vec<Vec<u64>>>,
    /// The dataset's type maps to a netCDF type (netCDF-C skips the
    /// others as variables, `NC_EBADTYPID`).
    pub usable: bool,
}

/// A group of datasets; `children` index the tree's group list.
#[derive(Debug, Clone, Default)]
pub(crate) struct GroupDims {
    /// The group's parent, `None` for the root.
    pub parent: Option<usize>,
    /// Datasets in link order.
    pub datasets: Vec<DatasetDims>,
    /// Child groups in link order.
    pub children: Vec<usize>,
}

/// A netCDF dimension.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Dim {
    /// netCDF-C's dimension id (ncdump lists a group's dimensions by it).
    pub id: i32,
    /// The name.
    pub name: String,
    /// The length (for an unlimited dimension, its current length).
    pub len: u64,
    /// Unlimited.
    pub unlimited: bool,
    /// The group (index in the tree) that defines it.
    pub group: usize,
    /// The scale dataset it comes from (`None` for a phony dimension).
    scale: Option<u64>,
}

/// The result: dimensions and, per group and dataset, the variable's
/// dimensions (indexes into `dims`), `None` when the dataset is no variable.
#[derive(Debug, Clone)]
pub(crate) struct Resolved {
    /// Every dimension, in creation order.
    pub dims: Vec<Dim>,
    /// Per group, per dataset.
    pub var_dims: Vec<Vec<Option<Vec<usize>>>>,
}

struct Resolver<'a> {
    groups: &'a [GroupDims],
    file: &'a str,
    dims: Vec<Dim>,
    next_dimid: i32,
    /// Per group, per dataset: the dimension indexes found so far.
    var_dims: Vec<Vec<Option<Vec<Option<usize>>>>>,
}

/// Resolves the dimensions of `groups` (index 0 is the root); `file`
/// names the file in errors.
pub(crate) fn resolve(groups: &[GroupDims], file: &str) -> Result<Resolved, Nc4Error> {
    let mut r = Resolver {
        groups,
        file,
        dims: vec![],
        next_dimid: 0,
        var_dims: groups
            .iter()
            .map(|g| vec![None; g.datasets.len()])
            .collect(),
    };
    if !groups.is_empty() {
        r.read_group(0)?;
        r.match_group(0)?;
    }
    r.unlimited_lengths();
    let var_dims = r
        .var_dims
        .iter()
        .enumerate()
        .map(|(g, list)| {
            list.iter()
                .enumerate()
                .map(|(i, v)| match v {
                    None => Ok(None),
                    Some(ds) => ds
                        .iter()
                        .enumerate()
                        .map(|(axis, d)| {
                            d.ok_or_else(|| {
                                r.invalid(g, i, format!("no dimension found for axis {axis}"))
                            })
                        })
                        .collect::<Result<Vec<_>, _>>()
                        .map(Some),
                })
                .collect::<Result<Vec<_>, _>>()
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Resolved {
        dims: r.dims,
        var_dims,
    })
}

impl Resolver<'_> {
    fn invalid(&self, group: usize, ds: usize, reason: String) -> Nc4Error {
        Nc4Error::Invalid {
            file: self.file.to_string(),
            object: self.groups[group].datasets[ds].name.clone(),
            reason,
        }
    }

    /// The dimension with netCDF id `id` for a variable of `group`: ids
    /// are the file's (netCDF-C's `nc4_find_dim` looks in the list of all
    /// its dimensions, so a variable may use a dimension of any group, a
    /// sibling's included); the group and its parents are searched first,
    /// for files whose groups number their dimensions each on their own.
    fn find_dim(&self, group: usize, id: i32) -> Option<usize> {
        self.nearest(group, |d| d.id == id)
    }

    /// The first dimension that `matches`, looked for in `group`, then its
    /// parents, then anywhere in the file.
    fn nearest(&self, mut group: usize, matches: impl Fn(&Dim) -> bool) -> Option<usize> {
        loop {
            if let Some(i) = self
                .dims
                .iter()
                .position(|d| d.group == group && matches(d))
            {
                return Some(i);
            }
            match self.groups[group].parent {
                Some(parent) => group = parent,
                None => return self.dims.iter().position(matches),
            }
        }
    }

    fn add_dim(
        &mut self,
        group: usize,
        name: String,
        len: u64,
        unlimited: bool,
        scale: Option<u64>,
        id: Option<i32>,
    ) -> usize {
        let id = id.unwrap_or_else(|| {
            self.next_dimid += 1;
            self.next_dimid - 1
        });
        self.dims.push(Dim {
            id,
            name,
            len,
            unlimited,
            group,
            scale,
        });
        self.dims.len() - 1
    }

    /// `rec_read_metadata`: the group's datasets in link order, then its
    /// children.
    fn read_group(&mut self, g: usize) -> Result<(), Nc4Error> {
        for (i, ds) in self.groups[g].datasets.iter().enumerate() {
            let mut own_dim = None;
            if ds.scale {
                let (Some(&len), Some(&unlimited)) = (ds.shape.first(), ds.unlimited.first())
                else {
                    return Err(self.invalid(g, i, "a dimension scale with no dimensions".into()));
                };
                if let Some(id) = ds.dimid {
                    if id < 0 {
                        return Err(self.invalid(g, i, format!("_Netcdf4Dimid {id} is negative")));
                    }
                    self.next_dimid = self.next_dimid.max(id.saturating_add(1));
                }
                own_dim =
                    Some(self.add_dim(g, ds.name.clone(), len, unlimited, Some(ds.addr), ds.dimid));
                if ds.dim_only {
                    continue;
                }
            }
            if !ds.usable {
                continue;
            }
            let rank = ds.shape.len();
            let mut dims = vec![None; rank];
            if let Some(coords) = &ds.coordinates {
                if coords.len() != rank {
                    return Err(self.invalid(
                        g,
                        i,
                        format!(
                            "_Netcdf4Coordinates has {} values for {rank} dimensions",
                            coords.len()
                        ),
                    ));
                }
                for (slot, &id) in dims.iter_mut().zip(coords) {
                    *slot = self.find_dim(g, id);
                }
            } else if ds.scale && rank > 1 {
                return Err(self.invalid(
                    g,
                    i,
                    "a multi-dimensional scale without _Netcdf4Coordinates".into(),
                ));
            }
            if let (Some(d), 1) = (own_dim, rank) {
                dims[0] = Some(d);
            }
            self.var_dims[g][i] = Some(dims);
        }
        for &c in &self.groups[g].children {
            self.read_group(c)?;
        }
        Ok(())
    }

    /// `rec_match_dimscales`: children first, then the group's variables.
    fn match_group(&mut self, g: usize) -> Result<(), Nc4Error> {
        for &c in &self.groups[g].children {
            self.match_group(c)?;
        }
        for i in 0..self.groups[g].datasets.len() {
            let ds = &self.groups[g].datasets[i];
            let Some(mut dims) = self.var_dims[g][i].clone() else {
                continue;
            };
            // Ids of `_Netcdf4Coordinates` whose dimension came later in
            // the group are found now (netCDF-C's second `nc4_find_dim`).
            if let Some(coords) = &ds.coordinates {
                for (slot, &id) in dims.iter_mut().zip(coords) {
                    if slot.is_none() {
                        *slot = self.find_dim(g, id);
                    }
                }
            }
            if ds.scale || ds.coordinates.is_some() {
                self.var_dims[g][i] = Some(dims);
                continue;
            }
            // H5DSget_num_scales(dataset, 0): the scales of the first axis.
            let attached = ds
                .dimension_list
                .as_ref()
                .filter(|l| l.first().is_some_and(|first| !first.is_empty()));
            match attached {
                Some(list) => {
                    for (axis, slot) in dims.iter_mut().enumerate() {
                        // H5DSiterate_scales keeps the last scale attached.
                        let Some(&scale) = list.get(axis).and_then(|s| s.last()) else {
                            return Err(self.invalid(
                                g,
                                i,
                                format!("DIMENSION_LIST has no scale for axis {axis}"),
                            ));
                        };
                        *slot = self.scale_dim(g, scale);
                    }
                }
                None => self.phony_dims(g, i, &mut dims),
            }
            self.var_dims[g][i] = Some(dims);
        }
        Ok(())
    }

    /// The dimension made from the scale at `addr`: in `group`, a parent,
    /// or any other group of the file.
    fn scale_dim(&self, group: usize, addr: u64) -> Option<usize> {
        self.nearest(group, |d| d.scale == Some(addr))
    }

    /// `create_phony_dims`: per axis, a dimension of the group of the same
    /// length and kind not yet used by this variable, or a new
    /// `phony_dim_N` (N its id).
    fn phony_dims(&mut self, g: usize, i: usize, dims: &mut [Option<usize>]) {
        let ds = &self.groups[g].datasets[i];
        for axis in 0..dims.len() {
            let (len, unlimited) = (ds.shape[axis], ds.unlimited[axis]);
            // The group's first dimension of that length and kind that this
            // variable does not use yet (scales included), else a new one.
            let reuse = (0..self.dims.len()).find(|&f| {
                let d = &self.dims[f];
                d.group == g
                    && d.len == len
                    && d.unlimited == unlimited
                    && !dims[..axis].contains(&Some(f))
            });
            dims[axis] = Some(match reuse {
                Some(f) => f,
                None => {
                    let name = format!("phony_dim_{}", self.next_dimid);
                    self.add_dim(g, name, len, unlimited, None, None)
                }
            });
        }
    }

    /// `nc4_find_dim_len`: an unlimited dimension is as long as the longest
    /// extent along it of the variables of its group and the groups below.
    fn unlimited_lengths(&mut self) {
        for d in 0..self.dims.len() {
            if !self.dims[d].unlimited {
                continue;
            }
            let mut len = 0;
            let mut stack = vec![self.dims[d].group];
            while let Some(g) = stack.pop() {
                stack.extend(&self.groups[g].children);
                for (i, v) in self.var_dims[g].iter().enumerate() {
                    let shape = &self.groups[g].datasets[i].shape;
                    for (axis, slot) in v.iter().flatten().enumerate() {
                        if *slot == Some(d) {
                            len = len.max(shape[axis]);
                        }
                    }
                }
            }
            self.dims[d].len = len;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ds(name: &str, addr: u64, shape: &[u64]) -> DatasetDims {
        DatasetDims {
            name: name.into(),
            addr,
            shape: shape.to_vec(),
            unlimited: vec![false; shape.len()],
            usable: true,
            ..DatasetDims::default()
        }
    }

    fn names(r: &Resolved, g: usize, i: usize) -> Vec<String> {
        r.var_dims[g][i]
            .as_ref()
            .unwrap()
            .iter()
            .map(|&d| r.dims[d].name.clone())
            .collect()
    }

    /// netCDF-C 4.7.3+: one phony dimension per distinct length, a second
    /// one when a variable has two axes of one length, named by id.
    #[test]
    fn phony_dims_follow_netcdf_c() {
        let root = GroupDims {
            datasets: vec![
                ds("a", 1, &[3, 4]),
                ds("b", 2, &[4, 4]),
                ds("c", 3, &[3]),
                ds("d", 4, &[4, 4]),
            ],
            ..GroupDims::default()
        };
        let r = resolve(&[root], "f").unwrap();
        assert_eq!(names(&r, 0, 0), ["phony_dim_0", "phony_dim_1"]);
        assert_eq!(names(&r, 0, 1), ["phony_dim_1", "phony_dim_2"]);
        assert_eq!(names(&r, 0, 2), ["phony_dim_0"]);
        assert_eq!(names(&r, 0, 3), ["phony_dim_1", "phony_dim_2"]);
    }

    /// Children are matched before their parent, so a child's phony
    /// dimensions take the lower ids.
    #[test]
    fn child_groups_get_phony_ids_first() {
        let root = GroupDims {
            datasets: vec![ds("a", 1, &[5])],
            children: vec![1],
            ..GroupDims::default()
        };
        let child = GroupDims {
            parent: Some(0),
            datasets: vec![ds("b", 2, &[5])],
            ..GroupDims::default()
        };
        let r = resolve(&[root, child], "f").unwrap();
        assert_eq!(names(&r, 1, 0), ["phony_dim_0"]);
        assert_eq!(names(&r, 0, 0), ["phony_dim_1"]);
    }

    /// Scales with `_Netcdf4Dimid`, a dimension-only unlimited scale whose
    /// length is the longest variable along it, a variable in a child group
    /// attached to a scale of the root.
    #[test]
    fn scales_ids_and_unlimited_lengths() {
        let mut time = ds("time", 10, &[0]);
        time.unlimited = vec![true];
        time.scale = true;
        time.dim_only = true;
        time.dimid = Some(1);
        let mut x = ds("x", 11, &[2]);
        x.scale = true;
        x.dimid = Some(0);
        let root = GroupDims {
            datasets: vec![time, x],
            children: vec![1],
            ..GroupDims::default()
        };
        let mut v = ds("v", 12, &[7, 2]);
        v.unlimited = vec![true, false];
        v.dimension_list = Some(vec![vec![10], vec![11]]);
        let child = GroupDims {
            parent: Some(0),
            datasets: vec![v],
            ..GroupDims::default()
        };
        let r = resolve(&[root, child], "f").unwrap();
        assert_eq!(names(&r, 1, 0), ["time", "x"]);
        assert!(
            r.var_dims[0][0].is_none(),
            "a dimension-only scale is no variable"
        );
        assert_eq!(names(&r, 0, 1), ["x"]);
        let time = r.dims.iter().find(|d| d.name == "time").unwrap();
        assert_eq!((time.id, time.len, time.unlimited), (1, 7, true));
    }

    /// `_Netcdf4Coordinates` may name a dimension whose scale comes later
    /// in the group.
    #[test]
    fn coordinates_find_later_dimensions() {
        let mut lon = ds("lon", 1, &[3]);
        lon.coordinates = Some(vec![0]);
        let mut time = ds("time", 2, &[3]);
        time.scale = true;
        time.dimid = Some(0);
        time.coordinates = Some(vec![0]);
        let root = GroupDims {
            datasets: vec![lon, time],
            ..GroupDims::default()
        };
        let r = resolve(&[root], "f").unwrap();
        assert_eq!(names(&r, 0, 0), ["time"]);
        assert_eq!(names(&r, 0, 1), ["time"]);
    }

    /// A variable may use a sibling group's dimensions, found by id
    /// (`_Netcdf4Coordinates`) or by scale (`DIMENSION_LIST`), whichever
    /// group comes first.
    #[test]
    fn sibling_groups_dimensions_are_found() {
        let scale = |name: &str, addr, id| {
            let mut d = ds(name, addr, &[2]);
            (d.scale, d.dim_only, d.dimid) = (true, true, Some(id));
            d
        };
        let mut by_id = ds("by_id", 20, &[2, 2]);
        by_id.coordinates = Some(vec![0, 1]);
        let mut by_scale = ds("by_scale", 21, &[2]);
        by_scale.dimension_list = Some(vec![vec![11]]);
        for order in [[1, 2], [2, 1]] {
            let mut groups = vec![
                GroupDims {
                    children: order.to_vec(),
                    ..GroupDims::default()
                },
                GroupDims::default(),
                GroupDims::default(),
            ];
            groups[1] = GroupDims {
                parent: Some(0),
                datasets: vec![scale("a", 10, 0), scale("b", 11, 1)],
                ..GroupDims::default()
            };
            groups[2] = GroupDims {
                parent: Some(0),
                datasets: vec![by_id.clone(), by_scale.clone()],
                ..GroupDims::default()
            };
            let r = resolve(&groups, "f").unwrap();
            assert_eq!(names(&r, 2, 0), ["a", "b"], "{order:?}");
            assert_eq!(names(&r, 2, 1), ["b"], "{order:?}");
        }
    }

    /// A `_Netcdf4Coordinates` of the wrong length is an error naming the dataset.
    #[test]
    fn bad_coordinates_are_errors() {
        let mut v = ds("v", 1, &[2, 3]);
        v.coordinates = Some(vec![0]);
        let root = GroupDims {
            datasets: vec![v],
            ..GroupDims::default()
        };
        let e = resolve(&[root], "f.nc").unwrap_err().to_string();
        assert!(
            e.contains("f.nc") && e.contains('v') && e.contains("_Netcdf4Coordinates"),
            "{e}"
        );
    }
}
