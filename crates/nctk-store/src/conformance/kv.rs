//! The checks every key/value store backend must pass.

use std::collections::BTreeMap;

use bytes::Bytes;

use crate::kv::{ListableStore, ReadableStore, StoreKey, StorePrefix, WritableStore};

fn key(s: &str) -> StoreKey {
    StoreKey::new(s).expect("fixture keys are valid")
}

fn prefix(s: &str) -> StorePrefix {
    StorePrefix::new(s).expect("fixture prefixes are valid")
}

/// The objects the checks write and expect: metadata-like and chunk-like
/// keys, nested prefixes, an empty object, binary and non-ASCII content.
pub fn fixture() -> BTreeMap<StoreKey, Bytes> {
    let mut m = BTreeMap::new();
    m.insert(key(".zgroup"), Bytes::from_static(b"{\"zarr_format\": 2}"));
    m.insert(key(".zattrs"), Bytes::from_static(b"{}"));
    m.insert(key("v/.zarray"), Bytes::from_static(b"{\"shape\": [4]}"));
    m.insert(key("v/0"), Bytes::from((0u8..=255).collect::<Vec<u8>>()));
    m.insert(key("v/1"), Bytes::new());
    m.insert(
        key("g/.zgroup"),
        Bytes::from_static(b"{\"zarr_format\": 2}"),
    );
    m.insert(key("g/w/0.0"), Bytes::from_static(&[1, 2, 3, 4]));
    m.insert(key("g/w/1/0"), Bytes::from_static(&[5, 6]));
    m.insert(
        key("g/caf\u{e9}/.zarray"),
        Bytes::from_static("\u{2713}".as_bytes()),
    );
    m
}

fn names(keys: &[StoreKey]) -> Vec<String> {
    keys.iter().map(|k| k.name().to_string()).collect()
}

fn prefix_names(prefixes: &[StorePrefix]) -> Vec<String> {
    prefixes.iter().map(|p| p.name().to_string()).collect()
}

/// Builds a store holding [`fixture`] with `make` (given the fixture) and
/// checks it holds exactly that: whole and ranged reads, sizes, missing keys
/// (including directory-like prefixes) reading as `None`, `get_many`,
/// listings, and reads from several threads at once.
pub fn kv_contents<S, F>(make: F)
where
    S: ReadableStore + ListableStore,
    F: FnOnce(&BTreeMap<StoreKey, Bytes>) -> S,
{
    check_contents(&make(&fixture()));
}

/// `get_many` over present, missing and repeated keys in a scrambled order
/// equals one `get` per key.
fn check_get_many<S: ReadableStore + ?Sized>(store: &S, expected: &BTreeMap<StoreKey, Bytes>) {
    assert_eq!(
        store.get_many(&[]).expect("get_many of no keys"),
        Vec::<Option<Bytes>>::new(),
        "get_many of no keys"
    );
    let mut keys: Vec<StoreKey> = expected.keys().rev().cloned().collect();
    keys.insert(3, key("nope"));
    keys.push(key("g/w"));
    keys.push(key("v/0"));
    let got = store.get_many(&keys).expect("get_many");
    assert_eq!(got.len(), keys.len(), "get_many returns one value per key");
    for (k, v) in keys.iter().zip(&got) {
        assert_eq!(v.as_ref(), expected.get(k), "get_many {k}");
    }
}

fn check_contents<S: ReadableStore + ListableStore + ?Sized>(store: &S) {
    let expected = fixture();
    for (k, v) in &expected {
        let got = store.get(k).unwrap_or_else(|e| panic!("get {k}: {e}"));
        assert_eq!(got.as_ref(), Some(v), "get {k}");
        let size = store.size(k).unwrap_or_else(|e| panic!("size {k}: {e}"));
        assert_eq!(size, Some(v.len() as u64), "size {k}");
        let len = v.len() as u64;
        let r = store
            .get_range(k, len / 2..len)
            .unwrap_or_else(|e| panic!("get_range {k}: {e}"));
        assert_eq!(r.as_deref(), Some(&v[v.len() / 2..]), "get_range {k}");
        assert!(
            store.get_range(k, 0..len + 1).is_err(),
            "get_range past the end of {k} must fail"
        );
    }
    for missing in ["nope", "v/2", "g", "g/w", "v/.zarray/x", "g/w/1"] {
        let k = key(missing);
        assert_eq!(
            store.get(&k).unwrap_or_else(|e| panic!("get {k}: {e}")),
            None,
            "get {k}"
        );
        assert_eq!(
            store.size(&k).unwrap_or_else(|e| panic!("size {k}: {e}")),
            None,
            "size {k}"
        );
        assert_eq!(
            store
                .get_range(&k, 0..0)
                .unwrap_or_else(|e| panic!("get_range {k}: {e}")),
            None,
            "get_range {k}"
        );
    }

    check_get_many(store, &expected);

    let root = store.list_dir(&StorePrefix::root()).expect("list root");
    assert_eq!(names(&root.keys), [".zattrs", ".zgroup"], "list root keys");
    assert_eq!(
        prefix_names(&root.prefixes),
        ["g", "v"],
        "list root prefixes"
    );
    let g = store.list_dir(&prefix("g")).expect("list g");
    assert_eq!(names(&g.keys), [".zgroup"], "list g keys");
    assert_eq!(
        prefix_names(&g.prefixes),
        ["caf\u{e9}", "w"],
        "list g prefixes"
    );
    assert_eq!(g.keys[0].as_str(), "g/.zgroup", "listed keys are full keys");
    assert_eq!(
        g.prefixes[1].as_str(),
        "g/w",
        "listed prefixes are full prefixes"
    );
    let w = store.list_dir(&prefix("g/w")).expect("list g/w");
    assert_eq!(names(&w.keys), ["0.0"], "list g/w keys");
    assert_eq!(prefix_names(&w.prefixes), ["1"], "list g/w prefixes");
    let none = store
        .list_dir(&prefix("nothing/here"))
        .expect("list missing prefix");
    assert!(none.is_empty(), "a missing prefix lists as empty");
    let leaf = store
        .list_dir(&prefix("v/0"))
        .expect("list an object as a prefix");
    assert!(leaf.is_empty(), "an object has no children");

    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| {
                for (k, v) in &expected {
                    assert_eq!(store.get(k).expect("concurrent get").as_ref(), Some(v));
                }
            });
        }
    });
}

fn assert_empty<S: ListableStore + ?Sized>(store: &S, what: &str) {
    let root = store.list_dir(&StorePrefix::root()).expect("list root");
    assert!(root.is_empty(), "{what}");
}

/// Runs every check on the empty, writable, listable store `make` returns:
/// writes [`fixture`], runs the checks of [`kv_contents`], then overwrites
/// and runs the checks of [`kv_deletes`].
pub fn kv_store<S, F>(make: F)
where
    S: ReadableStore + ListableStore + WritableStore,
    F: FnOnce() -> S,
{
    let store = &make();
    assert_empty(store, "conformance runs on an empty store");
    for (k, v) in fixture() {
        store.put(&k, v).unwrap_or_else(|e| panic!("put {k}: {e}"));
    }
    check_contents(store);

    let k = key("v/0");
    store
        .put(&k, Bytes::from_static(b"new"))
        .expect("overwrite");
    assert_eq!(
        store.get(&k).expect("get").as_deref(),
        Some(&b"new"[..]),
        "overwrite"
    );
    check_deletes(store);
}

/// Builds a store holding [`fixture`] with `make` (given the fixture), for
/// a backend whose objects can be deleted but not put the way the store
/// puts them (a server answering only some of its API), and checks the
/// deletes: of a missing key (a success), of single keys (then read as
/// missing), a prefix whose objects are all deleted disappearing from its
/// parent's listing, and every key deleted leaving an empty store.
pub fn kv_deletes<S, F>(make: F)
where
    S: ReadableStore + ListableStore + WritableStore,
    F: FnOnce(&BTreeMap<StoreKey, Bytes>) -> S,
{
    check_deletes(&make(&fixture()));
}

/// The checks of [`kv_deletes`] on `store`, which holds the keys of
/// [`fixture`].
fn check_deletes<S: ReadableStore + ListableStore + WritableStore + ?Sized>(store: &S) {
    store
        .delete(&key("nope/never"))
        .expect("deleting a missing key succeeds");
    for k in ["g/w/0.0", "g/w/1/0"] {
        store
            .delete(&key(k))
            .unwrap_or_else(|e| panic!("delete {k}: {e}"));
        assert_eq!(store.get(&key(k)).expect("get"), None, "deleted {k}");
    }
    let g = store.list_dir(&prefix("g")).expect("list g");
    assert_eq!(
        prefix_names(&g.prefixes),
        ["caf\u{e9}"],
        "a prefix whose objects are all deleted disappears"
    );
    for k in fixture().keys() {
        store
            .delete(k)
            .unwrap_or_else(|e| panic!("delete {k}: {e}"));
    }
    assert_empty(store, "deleting everything empties the store");
}
