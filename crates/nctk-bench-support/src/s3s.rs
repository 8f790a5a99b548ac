//! `s3s-fs`, a Rust S3 server over a directory, for the cloud benchmarks:
//! fast enough not to be what they measure (moto is not). Its binary is
//! `$NCTK_S3S_FS`, else `s3s-fs` on the PATH (`cargo install s3s-fs
//! --features binary`).

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use crate::python;

/// The access key the server accepts.
pub const KEY: &str = "bench";
/// The secret key the server accepts.
pub const SECRET: &str = "benchsecret";
/// The bucket the benchmarks use.
pub const BUCKET: &str = "bench";

/// Uploads a file or a directory tree with boto3 (objects put through
/// the S3 API, so the server stores their ETags and never hashes a file
/// on a read).
const PY_UPLOAD: &str = r#"
import sys, os, boto3
endpoint, key, secret, bucket, local, prefix = sys.argv[1:7]
s3 = boto3.client('s3', endpoint_url=endpoint, aws_access_key_id=key,
                  aws_secret_access_key=secret, region_name='us-east-1')
if bucket not in [b['Name'] for b in s3.list_buckets().get('Buckets', [])]:
    s3.create_bucket(Bucket=bucket)
if os.path.isdir(local):
    for d, _, files in os.walk(local):
        for f in files:
            p = os.path.join(d, f)
            s3.upload_file(p, bucket, prefix + '/' + os.path.relpath(p, local))
else:
    s3.upload_file(local, bucket, prefix)
print('ok')
"#;

/// `s3s-fs` serving a directory, with one key pair; killed on drop.
pub struct S3sFs {
    child: Child,
    /// `http://127.0.0.1:PORT`.
    pub endpoint: String,
}

impl S3sFs {
    /// Starts the server over `root` (created if missing); `None`, with
    /// the reason printed, when it cannot start.
    pub fn start(root: &Path) -> Option<S3sFs> {
        let exe = std::env::var_os("NCTK_S3S_FS")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from("s3s-fs"));
        std::fs::create_dir_all(root).ok()?;
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .ok()?
            .local_addr()
            .ok()?
            .port();
        let child = Command::new(&exe)
            .args(["--host", "127.0.0.1", "--port", &port.to_string()])
            .args(["--access-key", KEY, "--secret-key", SECRET])
            .arg(root)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| eprintln!("{}: {e} (set NCTK_S3S_FS)", exe.display()))
            .ok()?;
        let server = S3sFs {
            child,
            endpoint: format!("http://127.0.0.1:{port}"),
        };
        for _ in 0..100 {
            if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
                return Some(server);
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        None
    }
}

impl Drop for S3sFs {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl S3sFs {
    /// Puts the file or directory tree `local` at `key` in [`BUCKET`]
    /// (created when missing).
    pub fn upload(&self, local: &Path, key: &str) {
        let args = [
            &self.endpoint,
            KEY,
            SECRET,
            BUCKET,
            &local.display().to_string(),
            key,
        ];
        python(PY_UPLOAD, &args.map(Path::new));
    }
}
