//! The door's arm for stores on object stores: from a parsed
//! [`S3Location`] (S3 and S3-compatible servers) or [`CloudLocation`]
//! (GCS, Azure, plain HTTP(S), read-only) to an [`ObjectKvStore`], for
//! reading and for writing.
//!
//! S3's region, endpoint and credentials follow netCDF-C's and the AWS
//! SDKs' rules through [`nctk_store_object::aws::resolve`]; GCS and Azure
//! are configured from the environment as `object_store` reads it. A store is read with
//! its consolidated `.zmetadata` when it has one, so opening it needs no
//! listing. A store is written in place (an object store has no rename):
//! an existing store there is deleted first, and the new one appears only
//! when complete ([`PublishOnClose`]).

use std::path::PathBuf;
use std::sync::Arc;

use nctk_store::kv::{ListableStore, ReadableStore, StoreKey, StorePrefix};
use nctk_store_object::aws;
use nctk_store_object::connect::Access;
use nctk_store_object::{connect, ObjectKvStore, Remote, RemoteOptions};
use nctk_zarr::write::ReadWriteStore;

use super::publish::{delete_in_order, is_abandoned, PublishOnClose, WRITING_MARKER};
use super::url::{CloudLocation, S3Location, ZarrTarget};
use super::{open_error, Opened, StoreTarget, STORE_MARKERS};
use crate::{Error, OpenOptions};

/// A store output on an object store: where it goes ([`StoreTarget::object`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObjectTarget {
    location: ObjectLocation,
    /// The URL without its fragment, for messages.
    url: String,
}

/// Where on an object store a dataset lives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum ObjectLocation {
    /// S3 or an S3-compatible server.
    S3(S3Location),
    /// GCS, Azure or a plain HTTP(S) server.
    Cloud(CloudLocation),
}

/// The URL `text` without its fragment.
fn without_fragment(text: &str) -> &str {
    text.split('#').next().unwrap_or(text)
}

/// The object store and prefix `location` names, for `access`; `url`
/// names it in errors.
fn remote(
    location: &ObjectLocation,
    url: &str,
    access: Access,
    options: RemoteOptions,
) -> Result<Remote, Error> {
    match location {
        ObjectLocation::S3(s3) => {
            let settings = aws::resolve(&s3.target()).map_err(|e| open_error(url, e))?;
            let store = connect::s3(&settings, &options, url).map_err(|e| open_error(url, e))?;
            Ok(Remote::new(store, url, &s3.key, options))
        }
        ObjectLocation::Cloud(cloud) => {
            connect::cloud(&cloud.url, access, &options).map_err(|e| open_error(url, e))
        }
    }
}

/// Opens the store `z` names on an object store for reading, with its
/// consolidated metadata when present.
pub(super) fn open(
    location: &ObjectLocation,
    z: &ZarrTarget,
    options: &OpenOptions,
) -> Result<Opened, Error> {
    let url = without_fragment(&z.url);
    let settings = super::remote_options(options, url)?;
    let store = ObjectKvStore::read_only(remote(location, url, Access::Read, settings)?);
    let mut options = z.options();
    options.consolidated = true;
    Ok(Opened::Store {
        store: Arc::new(store),
        options,
        root: Some(url.to_string()),
    })
}

/// Where a store output on an object store goes: the URL (without
/// fragment) stands for its path in messages.
pub(super) fn store_target(
    location: &ObjectLocation,
    z: &ZarrTarget,
    layout: Option<crate::StoreLayout>,
    consolidated: bool,
) -> StoreTarget {
    let url = without_fragment(&z.url).to_string();
    StoreTarget {
        path: PathBuf::from(&url),
        zip: false,
        layout,
        consolidated,
        object: Some(ObjectTarget {
            location: location.clone(),
            url,
        }),
    }
}

/// Opens the store already at `target` to write into its arrays in place
/// (nothing is deleted, nothing held back: see
/// [`crate::StoreOptions::existing`]).
pub(crate) fn open_store(target: &ObjectTarget) -> Result<Arc<dyn ReadWriteStore>, Error> {
    let url = &target.url;
    let settings = RemoteOptions::from_env().map_err(|e| open_error(url, e))?;
    let store = ObjectKvStore::new(remote(&target.location, url, Access::Write, settings)?);
    Ok(Arc::new(store))
}

/// Makes an empty store at `target` for writing: a Zarr/NCZarr store
/// already there is deleted, what makes it open first, and so is what a
/// write killed part-way left (marked by [`WRITING_MARKER`]; one still
/// running on this machine is refused); anything else under the prefix is
/// refused, as a local directory that is not a store is. The new one is
/// visible only once closed, and deleted when dropped unclosed or stopped
/// by a signal.
pub(crate) fn create_store(target: &ObjectTarget) -> Result<Arc<dyn ReadWriteStore>, Error> {
    let url = &target.url;
    let settings = RemoteOptions::from_env().map_err(|e| open_error(url, e))?;
    let store = ObjectKvStore::new(remote(&target.location, url, Access::Write, settings)?);
    let top = store
        .list_dir(&StorePrefix::root())
        .map_err(|e| open_error(url, e))?;
    let refuse = |why: String| Error::Io {
        path: url.clone(),
        source: std::io::Error::new(std::io::ErrorKind::AlreadyExists, why),
    };
    if !top.is_empty() {
        let marker = StoreKey::new(WRITING_MARKER).expect("a valid key");
        if top.keys.contains(&marker) {
            let text = store.get(&marker).map_err(|e| open_error(url, e))?;
            if !text.as_deref().is_none_or(is_abandoned) {
                return Err(refuse(format!(
                    "not replacing it: another nctk process on this machine is writing it ({WRITING_MARKER} says {:?})",
                    String::from_utf8_lossy(text.as_deref().unwrap_or_default()).trim()
                )));
            }
        } else if !top.keys.iter().any(|k| STORE_MARKERS.contains(&k.name())) {
            return Err(refuse(
                "not replacing it: it holds objects but is not a Zarr/NCZarr store (no \
                 .zgroup, .zarray, .zattrs, .zmetadata, .nczarr or zarr.json at its top); delete them \
                 or name another output"
                    .into(),
            ));
        }
        let old = store.keys().map_err(|e| open_error(url, e))?;
        delete_in_order(&store, old).map_err(|e| open_error(url, e))?;
    }
    let store = PublishOnClose::new(store).map_err(|e| open_error(url, e))?;
    Ok(Arc::new(store))
}
