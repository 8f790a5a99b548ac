//! [`AzuriteServer`]: Azurite's blob service, the Azure Storage emulator,
//! started on a free loopback port; containers are made and listed through
//! Microsoft's own client (`azure-storage-blob`, which adlfs installs).

use crate::error::{Error, Result};
use crate::process::{Driver, ServerProcess};

/// The program started.
const PROGRAM: &str = "azurite-blob";

/// Azurite's well-known development account (the same in every Azurite).
const ACCOUNT: &str = AzuriteServer::ACCOUNT;

/// The key of [`ACCOUNT`] (public: the same in every Azurite).
const ACCOUNT_KEY: &str =
    "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";

/// Creates a container (`sys.argv[2]`) on the account of the connection
/// string `sys.argv[1]`, or lists the blobs under a prefix
/// (`sys.argv[3]`) of one, a name a line.
const CLIENT: &str = r#"
import sys
from azure.storage.blob import BlobServiceClient
service = BlobServiceClient.from_connection_string(sys.argv[1])
container = service.get_container_client(sys.argv[2])
if len(sys.argv) == 3:
    container.create_container()
else:
    for blob in container.list_blobs(name_starts_with=sys.argv[3]):
        print(blob.name)
"#;

/// `azurite-blob` (`npm install -g azurite`) on a free port of
/// `127.0.0.1`, keeping blobs in memory, with its development account.
/// Killed (and reaped) when dropped.
pub struct AzuriteServer {
    _process: ServerProcess,
    endpoint: String,
}

/// A started [`AzuriteServer`], or `None` after a visible `SKIPPED` line
/// when `azurite-blob` or Python's `azure.storage.blob` is not installed
/// (a failure under CI, as [`nctk_test_support::require`] says). One that
/// is installed but does not start fails the test.
#[track_caller]
pub fn azurite() -> Option<AzuriteServer> {
    if !nctk_test_support::require::azurite_blob()
        || !nctk_test_support::require::python(&["azure.storage.blob"])
    {
        return None;
    }
    Some(AzuriteServer::start().unwrap_or_else(|e| panic!("{e}")))
}

impl AzuriteServer {
    /// The development account every Azurite serves, which `object_store`
    /// uses with `AZURE_STORAGE_USE_EMULATOR`.
    pub const ACCOUNT: &'static str = "devstoreaccount1";

    /// Starts `azurite-blob` on a free port and waits (a bounded time)
    /// until it answers.
    pub fn start() -> Result<Self> {
        let driver = Driver::new("azurite-client", None)?;
        let process = ServerProcess::start(
            PROGRAM,
            |port| {
                [
                    "--blobHost",
                    "127.0.0.1",
                    "--blobPort",
                    &port.to_string(),
                    "--inMemoryPersistence",
                    "--disableTelemetry",
                    "--skipApiVersionCheck",
                    "--silent",
                ]
                .map(String::from)
                .to_vec()
            },
            |port| format!("http://127.0.0.1:{port}/{ACCOUNT}?comp=list"),
            &driver,
        )?;
        Ok(Self {
            endpoint: format!("http://127.0.0.1:{}", process.port()),
            _process: process,
        })
    }

    /// `http://127.0.0.1:PORT`: what `AZURITE_BLOB_STORAGE_URL` names.
    pub fn endpoint(&self) -> String {
        self.endpoint.clone()
    }

    /// The account's blob endpoint, `http://127.0.0.1:PORT/devstoreaccount1`.
    pub fn account_url(&self) -> String {
        format!("{}/{ACCOUNT}", self.endpoint)
    }

    /// The connection string of the development account here (what the
    /// Azure SDKs and adlfs take).
    pub fn connection_string(&self) -> String {
        format!(
            "DefaultEndpointsProtocol=http;AccountName={ACCOUNT};AccountKey={ACCOUNT_KEY};\
             BlobEndpoint={};",
            self.account_url()
        )
    }

    /// Creates `container`.
    pub fn create_container(&self, container: &str) -> Result<()> {
        self.client(&[container]).map(drop)
    }

    /// Every blob of `container` whose name starts with `prefix`, in
    /// Azure's order.
    pub fn list_keys(&self, container: &str, prefix: &str) -> Result<Vec<String>> {
        let out = self.client(&[container, prefix])?;
        Ok(out.lines().map(str::to_string).collect())
    }

    /// Runs [`CLIENT`] with the connection string and `args`.
    fn client(&self, args: &[&str]) -> Result<String> {
        let connection = self.connection_string();
        let args = std::iter::once(connection.as_str()).chain(args.iter().copied());
        nctk_test_support::peer::python(CLIENT, args).map_err(|e| Error::Request {
            method: "azure.storage.blob".into(),
            url: self.account_url(),
            reason: e.to_string(),
        })
    }
}
