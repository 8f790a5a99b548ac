//! The rules themselves (see the module documentation of [`super`]).

use super::address::is_aws_endpoint;
use super::ini::{merged, Profile, ProfileFile};
use super::{
    AwsConfigError, AwsEnvironment, MetadataService, ProfileSource, S3Target, METADATA_DISABLED,
    METADATA_ENDPOINT, METADATA_ENDPOINT_VARIABLE,
};
use crate::{S3Credentials, S3Settings};

/// The region when nothing names one.
pub const DEFAULT_REGION: &str = "us-east-1";

/// The settings for `target` in `env`, by the rules of [`super`].
pub fn resolve_with(target: &S3Target, env: &AwsEnvironment) -> Result<S3Settings, AwsConfigError> {
    let named = target
        .profile
        .as_deref()
        .filter(|p| !p.is_empty())
        .map(|p| (p, ProfileSource::Fragment))
        .or_else(|| {
            env.rc
                .lookup("AWS.PROFILE", target)
                .map(|p| (p, ProfileSource::RcFile))
        })
        .or_else(|| {
            env.var("AWS_PROFILE")
                .map(|p| (p, ProfileSource::Environment))
        });
    let unsigned =
        named.is_some_and(|(p, _)| p.eq_ignore_ascii_case("none") || p.eq_ignore_ascii_case("no"));
    let files: Vec<&ProfileFile> = env.config.iter().chain(env.credentials.iter()).collect();
    let profile: Option<Profile> = match named {
        _ if unsigned => None,
        Some((name, from)) => Some(merged(&files, name).ok_or_else(|| {
            AwsConfigError::UnknownProfile {
                profile: name.to_string(),
                from,
                files: env
                    .aws_files
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect(),
            }
        })?),
        None => merged(&files, "default"),
    };
    let profile_name = named.map_or("default", |(n, _)| n);

    let credentials = if unsigned {
        S3Credentials::Unsigned
    } else {
        let from_profile = match &profile {
            Some(p) => key_pair(
                p.get("aws_access_key_id"),
                p.get("aws_secret_access_key"),
                p.get("aws_session_token"),
                ("aws_access_key_id", "aws_secret_access_key"),
                || format!("AWS profile {profile_name:?}"),
            )?,
            None => None,
        };
        let from_env = || {
            key_pair(
                env.var("AWS_ACCESS_KEY_ID"),
                env.var("AWS_SECRET_ACCESS_KEY"),
                env.var("AWS_SESSION_TOKEN"),
                ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"),
                || "the environment".to_string(),
            )
        };
        match (named, from_profile) {
            (Some(_), Some(keys)) => keys,
            (_, keys) => from_env()?.or(keys).unwrap_or(S3Credentials::Chain),
        }
    };

    let profile_get = |k: &str| profile.as_ref().and_then(|p| p.get(k));
    let region = target
        .region
        .as_deref()
        .filter(|r| !r.is_empty())
        .or_else(|| profile_get("region"))
        .or_else(|| profile_get("aws_region"))
        .or_else(|| env.rc.lookup("AWS.REGION", target))
        .or_else(|| env.var("AWS_REGION"))
        .or_else(|| env.var("AWS_DEFAULT_REGION"))
        .unwrap_or(DEFAULT_REGION)
        .to_string();

    let configured = !env
        .var("AWS_IGNORE_CONFIGURED_ENDPOINT_URLS")
        .is_some_and(|v| v.eq_ignore_ascii_case("true"));
    let endpoint = target.endpoint.clone().or_else(|| {
        configured
            .then(|| {
                env.var("AWS_ENDPOINT_URL_S3")
                    .or_else(|| env.var("AWS_ENDPOINT_URL"))
                    .or_else(|| profile_get("endpoint_url"))
                    .map(|e| e.trim_end_matches('/').to_string())
            })
            .flatten()
    });

    let credentials = match credentials {
        S3Credentials::Chain if !chain_configured(env) => {
            instance_metadata(env, endpoint.as_deref(), profile_name)?
        }
        c => c,
    };

    Ok(S3Settings {
        bucket: target.bucket.clone(),
        region,
        endpoint,
        virtual_hosted: target.virtual_hosted,
        credentials,
    })
}

/// When nothing else gives credentials: the EC2 instance metadata service
/// for an AWS host (`endpoint` `None` or AWS's), at
/// `AWS_EC2_METADATA_SERVICE_ENDPOINT` or its usual address; an error
/// saying how to give credentials for another server, or when
/// `AWS_EC2_METADATA_DISABLED` is `true`.
fn instance_metadata(
    env: &AwsEnvironment,
    endpoint: Option<&str>,
    profile: &str,
) -> Result<S3Credentials, AwsConfigError> {
    let files = env
        .aws_files
        .iter()
        .map(|p| p.display().to_string())
        .collect();
    let metadata = if endpoint.is_some_and(|e| !is_aws_endpoint(e)) {
        MetadataService::NotAsked
    } else if env
        .var(METADATA_DISABLED)
        .is_some_and(|v| v.trim().eq_ignore_ascii_case("true"))
    {
        MetadataService::Disabled
    } else {
        let at = env
            .var(METADATA_ENDPOINT_VARIABLE)
            .unwrap_or(METADATA_ENDPOINT);
        return Ok(S3Credentials::InstanceMetadata {
            endpoint: at.trim().trim_end_matches('/').to_string(),
            profile: profile.to_string(),
            files,
        });
    };
    Err(AwsConfigError::NoCredentials {
        endpoint: endpoint.map(str::to_string),
        profile: profile.to_string(),
        files,
        metadata,
    })
}

/// Static credentials from a key pair and an optional session token;
/// `None` when neither key is set; an error when only one is.
fn key_pair(
    id: Option<&str>,
    secret: Option<&str>,
    token: Option<&str>,
    (id_name, secret_name): (&'static str, &'static str),
    origin: impl Fn() -> String,
) -> Result<Option<S3Credentials>, AwsConfigError> {
    let incomplete = |present, missing| AwsConfigError::IncompleteKeys {
        origin: origin(),
        present,
        missing,
    };
    match (id, secret) {
        (Some(id), Some(secret)) => Ok(Some(S3Credentials::Static {
            access_key_id: id.to_string(),
            secret_access_key: secret.to_string(),
            session_token: token.map(str::to_string),
        })),
        (None, None) => Ok(None),
        (Some(_), None) => Err(incomplete(id_name, secret_name)),
        (None, Some(_)) => Err(incomplete(secret_name, id_name)),
    }
}

/// Whether `env` gives `object_store`'s credential chain something other
/// than the instance metadata service to ask, as `object_store` 0.14
/// decides: a web identity token and the role to assume with it (EKS,
/// GitHub OIDC), or a container's credentials endpoint (ECS; EKS Pod
/// Identity, with its token file). Half of either leaves the chain only
/// the metadata service, asked with the store's retries: nctk's own
/// provider (or error) is used instead.
fn chain_configured(env: &AwsEnvironment) -> bool {
    let set = |v| env.var(v).is_some();
    (set("AWS_WEB_IDENTITY_TOKEN_FILE") && set("AWS_ROLE_ARN"))
        || set("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI")
        || (set("AWS_CONTAINER_CREDENTIALS_FULL_URI")
            && set("AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE"))
}
