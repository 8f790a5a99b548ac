/// What a store backend can do, declared by each backend.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Capabilities {
    /// `get_range` reads only the bytes asked for (otherwise it reads the
    /// whole object and slices it).
    pub partial_reads: bool,
    /// `list_dir` is available.
    pub listable: bool,
    /// `put` and `delete` are available.
    pub writable: bool,
    /// Each key may be written once only and never deleted (zip).
    pub write_once: bool,
    /// A request costs a round trip worth hiding (a network store):
    /// readers fetch many keys at once through
    /// [`get_many`](crate::kv::ReadableStore::get_many), ahead of decoding.
    /// `false` for local storage, where a read is a copy out of the page
    /// cache: fetching ahead would only add a copy and threads, so each
    /// decoding task fetches its own key.
    pub fetch_ahead: bool,
}
