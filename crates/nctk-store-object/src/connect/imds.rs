//! The EC2 instance metadata service (IMDSv2) as the S3 store's credential
//! provider, for AWS hosts when nothing else gives credentials
//! ([`S3Credentials::InstanceMetadata`](crate::S3Credentials)).
//!
//! `object_store`'s own provider asks the service with the store's retries
//! and request timeout, so that on a machine that is not an EC2 instance
//! the first request waits through every retry. This one asks once: a
//! token (`PUT /latest/api/token`), the instance's role
//! (`GET /latest/meta-data/iam/security-credentials/`), then the role's
//! credentials, within [`CONNECT_TIMEOUT`] to connect and [`TIMEOUT`] for
//! the three together, never retried. The credentials are kept until
//! shortly before their `Expiration` and then asked for again. When the
//! service gives none (unreachable, no answer, no role, a bad answer),
//! every request fails with [`AwsConfigError::NoCredentials`], saying
//! where credentials were looked for and how to give them, and the service
//! is not asked again.

use std::sync::Arc;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use bytes::Bytes;
use http::Method;
use object_store::aws::AwsCredential;
use object_store::client::{
    HttpClient, HttpConnector, HttpError, HttpErrorKind, HttpRequestBody, ReqwestConnector,
};
use object_store::{ClientOptions, CredentialProvider};
use serde::Deserialize;
use tokio::sync::Mutex;

use crate::aws::{AwsConfigError, MetadataService};

/// Time allowed to connect to the service.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(1);

/// Time allowed for the whole exchange: token, role and credentials.
pub const TIMEOUT: Duration = Duration::from_secs(2);

/// Credentials are asked for again this long before they expire (or at
/// half their life, when that is sooner).
const REFRESH_BEFORE: Duration = Duration::from_secs(300);

/// After a failed refresh, the credentials held (still valid) are used this
/// long before the service is asked again.
const RETRY_REFRESH_AFTER: Duration = Duration::from_secs(30);

/// The life asked for the session token, in seconds (botocore's).
const TOKEN_TTL_SECONDS: &str = "21600";

/// The largest answer read: the service's answers are a few hundred bytes.
const MAX_ANSWER: usize = 64 << 10;

/// The path of the instance's roles; a role's credentials are below it.
const CREDENTIALS_PATH: &str = "/latest/meta-data/iam/security-credentials/";

/// The [`object_store`] credential provider asking the instance metadata
/// service at one address.
#[derive(Debug)]
pub struct InstanceMetadataProvider {
    endpoint: String,
    client: HttpClient,
    looked_in: LookedIn,
    state: Mutex<State>,
}

/// Where credentials were looked for before the service (named when it
/// gives none).
#[derive(Debug)]
struct LookedIn {
    s3_endpoint: Option<String>,
    profile: String,
    files: Vec<String>,
}

/// What the provider holds.
#[derive(Debug)]
enum State {
    /// Nothing asked yet.
    Empty,
    /// Credentials, used until `refresh_at`, valid until `expires`.
    Held {
        credential: Arc<AwsCredential>,
        refresh_at: Instant,
        expires: Instant,
    },
    /// The service gave none, for this reason: it is not asked again.
    Failed(String),
}

/// The role's credentials as the service gives them.
#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct Answer {
    code: Option<String>,
    access_key_id: String,
    secret_access_key: String,
    token: String,
    expiration: String,
}

impl InstanceMetadataProvider {
    /// The provider asking the service at `endpoint` (`http://host[:port]`)
    /// for the S3 store at `s3_endpoint` (`None`: AWS's), after `profile`
    /// and `files` were looked in (named when the service gives none).
    pub fn new(
        endpoint: &str,
        s3_endpoint: Option<&str>,
        profile: &str,
        files: &[String],
    ) -> object_store::Result<Self> {
        let options = ClientOptions::new()
            .with_allow_http(true)
            .with_connect_timeout(CONNECT_TIMEOUT);
        Ok(InstanceMetadataProvider {
            endpoint: endpoint.trim_end_matches('/').to_string(),
            client: ReqwestConnector::default().connect(&options)?,
            looked_in: LookedIn {
                s3_endpoint: s3_endpoint.map(str::to_string),
                profile: profile.to_string(),
                files: files.to_vec(),
            },
            state: Mutex::new(State::Empty),
        })
    }

    /// The error every request fails with when the service gave none.
    fn no_credentials(&self, reason: String) -> object_store::Error {
        let error = AwsConfigError::NoCredentials {
            endpoint: self.looked_in.s3_endpoint.clone(),
            profile: self.looked_in.profile.clone(),
            files: self.looked_in.files.clone(),
            metadata: MetadataService::GaveNone {
                endpoint: self.endpoint.clone(),
                reason,
            },
        };
        object_store::Error::Generic {
            store: "S3",
            source: Box::new(error),
        }
    }

    /// The role's credentials and how long they are valid, asked for once
    /// within [`TIMEOUT`]; why not, as words, otherwise.
    async fn fetch(&self) -> Result<(AwsCredential, Duration), String> {
        match tokio::time::timeout(TIMEOUT, self.exchange()).await {
            Ok(got) => got,
            Err(_) => Err(format!("no answer within {} s", TIMEOUT.as_secs())),
        }
    }

    /// Token, role, credentials.
    async fn exchange(&self) -> Result<(AwsCredential, Duration), String> {
        let token = self
            .ask(
                Method::PUT,
                "/latest/api/token",
                ("x-aws-ec2-metadata-token-ttl-seconds", TOKEN_TTL_SECONDS),
            )
            .await?;
        let token = text(&token, "the session token")?;
        let token = token.trim();
        let with_token = ("x-aws-ec2-metadata-token", token);
        let roles = self.ask(Method::GET, CREDENTIALS_PATH, with_token).await?;
        let roles = text(&roles, "the list of roles")?;
        let role = roles
            .lines()
            .map(str::trim)
            .find(|l| !l.is_empty())
            .ok_or("no IAM role is attached to this instance")?;
        if !role
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "+=,.@_-".contains(c))
        {
            return Err(format!("{role:?} is not an IAM role name"));
        }
        let path = format!("{CREDENTIALS_PATH}{role}");
        let answer = self.ask(Method::GET, &path, with_token).await?;
        let answer: Answer = serde_json::from_slice(&answer)
            .map_err(|e| format!("the credentials of role {role:?} do not parse: {e}"))?;
        if let Some(code) = answer.code.as_deref().filter(|c| *c != "Success") {
            return Err(format!("the credentials of role {role:?}: {code}"));
        }
        let expiration =
            chrono::DateTime::parse_from_rfc3339(answer.expiration.trim()).map_err(|e| {
                format!(
                    "the credentials of role {role:?} expire at {:?}: {e}",
                    answer.expiration
                )
            })?;
        let life = (expiration.to_utc() - chrono::Utc::now())
            .to_std()
            .unwrap_or_default();
        let credential = AwsCredential {
            key_id: answer.access_key_id,
            secret_key: answer.secret_access_key,
            token: Some(answer.token),
        };
        Ok((credential, life))
    }

    /// The body of the service's answer to `method path` with `header`; a
    /// status other than success, or an answer larger than any it gives,
    /// is an error.
    async fn ask(
        &self,
        method: Method,
        path: &str,
        (name, value): (&'static str, &str),
    ) -> Result<Bytes, String> {
        let request = http::Request::builder()
            .method(method.clone())
            .uri(format!("{}{path}", self.endpoint))
            .header(name, value)
            .body(HttpRequestBody::empty())
            .map_err(|e| format!("{method} {}{path}: {e}", self.endpoint))?;
        let response = self
            .client
            .execute(request)
            .await
            .map_err(|e| describe(&e))?;
        let status = response.status();
        let body = response
            .into_body()
            .bytes()
            .await
            .map_err(|e| describe(&e))?;
        if !status.is_success() {
            return Err(format!("{method} {path}: HTTP {status}"));
        }
        if body.len() > MAX_ANSWER {
            return Err(format!(
                "{method} {path}: an answer of {} bytes",
                body.len()
            ));
        }
        Ok(body)
    }
}

#[async_trait]
impl CredentialProvider for InstanceMetadataProvider {
    type Credential = AwsCredential;

    async fn get_credential(&self) -> object_store::Result<Arc<AwsCredential>> {
        // Held across the exchange: concurrent requests wait for one.
        let mut state = self.state.lock().await;
        let now = Instant::now();
        match &*state {
            State::Held {
                credential,
                refresh_at,
                ..
            } if now < *refresh_at => return Ok(Arc::clone(credential)),
            State::Failed(reason) => return Err(self.no_credentials(reason.clone())),
            _ => {}
        }
        match self.fetch().await {
            Ok((credential, life)) => {
                let credential = Arc::new(credential);
                *state = State::Held {
                    credential: Arc::clone(&credential),
                    refresh_at: now + life - REFRESH_BEFORE.min(life / 2),
                    expires: now + life,
                };
                Ok(credential)
            }
            Err(reason) => match &mut *state {
                State::Held {
                    credential,
                    refresh_at,
                    expires,
                } if now < *expires => {
                    *refresh_at = (now + RETRY_REFRESH_AFTER).min(*expires);
                    Ok(Arc::clone(credential))
                }
                _ => {
                    *state = State::Failed(reason.clone());
                    Err(self.no_credentials(reason))
                }
            },
        }
    }
}

/// An answer's body as text.
fn text<'a>(body: &'a Bytes, what: &str) -> Result<&'a str, String> {
    std::str::from_utf8(body).map_err(|_| format!("{what} is not UTF-8 text"))
}

/// What a failed request says: what went wrong and its first cause
/// ("cannot connect: Connection refused (os error 111)").
fn describe(error: &HttpError) -> String {
    let what = match error.kind() {
        HttpErrorKind::Connect => "cannot connect",
        HttpErrorKind::Timeout => "timed out",
        HttpErrorKind::Interrupted => "the connection broke",
        HttpErrorKind::Decode => "the answer does not decode",
        _ => "the request failed",
    };
    let mut cause: &dyn std::error::Error = error;
    while let Some(next) = cause.source() {
        cause = next;
    }
    format!("{what}: {cause}")
}
