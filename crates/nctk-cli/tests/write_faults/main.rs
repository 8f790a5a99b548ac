//! Faults at every write (issue 29): the `nctk` binary, copying as a user
//! runs it, is SIGKILLed at points spread over each writer's copy (at
//! least 20 kills a writer, from a fixed seed), and runs out of disk (a
//! file size limit, and a tmpfs where one can be mounted). What is left
//! at the output's name is always nothing, the old output byte for byte,
//! or a complete output that nctk and a peer read as the source; never a
//! file or store that opens with other data. A full disk also ends with
//! exit status 1 and an error naming the output and the reason, and the
//! old output kept. The writers: classic (CDF-1, CDF-2, CDF-5, and built
//! in memory with `-w`), block-compressed classic, NCZarr / Zarr v2 /
//! Zarr v3 stores in directories, zips and on S3 (moto), ncstream and
//! netCDF-4. And readers that open a classic file while `nctk::append`
//! adds records to it see only records whose data is there.
//!
//! The truths: the file system (bytes of the old and of an uncut
//! output), netCDF4-python (netCDF-C), zarr-python and siphon for what
//! the outputs hold, `ncdump` and netCDF4-python for the appended file,
//! and the inputs' own values.

mod append;
mod disk;
mod local;
mod s3;
mod support;

use local::{writer_faults, Variant};
use support::PeerKind;

#[test]
fn classic_writer() {
    let variant = |label, flags| Variant {
        label,
        flags,
        file: "out.nc",
        mode: None,
        peer: PeerKind::Netcdf,
    };
    writer_faults(
        &[
            variant("CDF-1", &["-k", "classic"]),
            variant("CDF-2", &["-k", "64-bit offset"]),
            variant("CDF-5", &["-k", "cdf5"]),
            variant("CDF-1 built in memory", &["-k", "classic", "-w"]),
        ],
        24,
        0x29_01,
    );
}

#[test]
fn block_compressed_classic_writer() {
    writer_faults(
        &[Variant {
            label: "block-compressed classic",
            flags: &["-k", "compressed"],
            file: "out.ncb",
            mode: None,
            peer: PeerKind::ClassicCopy,
        }],
        20,
        0x29_02,
    );
}

/// An NCZarr, a Zarr v2 and a Zarr v3 store at `file` (a directory or a
/// zip: `storage`).
fn stores(file: &'static str, storage: &'static str) -> [Variant; 3] {
    let (v2, v3) = if storage == "zip" {
        ("zarr,zip", "zarr,zip,v3")
    } else {
        ("zarr,file", "zarr,v3,file")
    };
    let variant = |label, mode| Variant {
        label,
        flags: &[],
        file,
        mode,
        peer: PeerKind::Zarr,
    };
    [
        variant("NCZarr", None),
        variant("Zarr v2", Some(v2)),
        variant("Zarr v3", Some(v3)),
    ]
}

#[test]
fn directory_store_writer() {
    writer_faults(&stores("out.zarr", "file"), 21, 0x29_03);
}

#[test]
fn zip_store_writer() {
    writer_faults(&stores("out.zip", "zip"), 21, 0x29_04);
}

#[test]
fn ncstream_writer() {
    writer_faults(
        &[Variant {
            label: "ncstream",
            flags: &[],
            file: "out.ncs",
            mode: None,
            peer: PeerKind::Ncstream,
        }],
        20,
        0x29_05,
    );
}

#[test]
fn netcdf4_writer() {
    let variant = |label, flags| Variant {
        label,
        flags,
        file: "out.nc",
        mode: None,
        peer: PeerKind::Netcdf,
    };
    writer_faults(
        &[
            variant("netCDF-4 contiguous", &["-k", "nc4"]),
            variant("netCDF-4 chunked", &["-k", "nc4", "-c", "t/1,y/64,x/64"]),
        ],
        20,
        0x29_06,
    );
}

/// (Named to start first: it is the longest.)
#[test]
fn a_copy_to_s3_leaves_the_old_store_the_new_one_or_nothing() {
    s3::object_store_faults(21, 0x29_07);
}

#[test]
fn readers_while_nctk_appends() {
    append::readers_while_appending();
}
