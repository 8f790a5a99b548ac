//! The AWS rules (`nctk_store_object::aws`), each against the seeds'
//! examples (NCZarr documentation, Appendix E "AWS Selection Algorithms")
//! and netCDF-C's documented order, with files written into a temporary
//! HOME (never the real `~/.aws`).

use std::path::{Path, PathBuf};

use nctk_store_object::aws::{
    resolve_with, AwsConfigError, AwsEnvironment, S3Target, METADATA_DISABLED, METADATA_ENDPOINT,
    METADATA_ENDPOINT_VARIABLE,
};
use nctk_store_object::{S3Credentials, S3Settings};

/// A temporary HOME (and working directory) with files in it.
struct Home {
    dir: tempfile::TempDir,
    vars: Vec<(String, String)>,
}

impl Home {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("cwd")).unwrap();
        let vars = vec![("HOME".to_string(), dir.path().display().to_string())];
        Home { dir, vars }
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    fn file(self, rel: &str, text: &str) -> Self {
        let p = self.path(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
        self
    }

    fn var(mut self, k: &str, v: &str) -> Self {
        self.vars.push((k.to_string(), v.to_string()));
        self
    }

    /// A key pair in the environment.
    fn keys(self) -> Self {
        self.var("AWS_ACCESS_KEY_ID", "ENVID")
            .var("AWS_SECRET_ACCESS_KEY", "envsecret")
    }

    fn env(&self) -> Result<AwsEnvironment, AwsConfigError> {
        AwsEnvironment::load(self.vars.clone(), &self.path("cwd"))
    }

    fn resolve(&self, t: &S3Target) -> S3Settings {
        resolve_with(t, &self.env().unwrap()).unwrap()
    }

    fn error(&self, t: &S3Target) -> String {
        match self.env().and_then(|e| resolve_with(t, &e)) {
            Ok(s) => panic!("expected an error, got {s:?}"),
            Err(e) => e.to_string(),
        }
    }
}

fn target(bucket: &str, key: &str) -> S3Target {
    S3Target {
        endpoint: None,
        bucket: bucket.into(),
        key: key.into(),
        virtual_hosted: false,
        region: None,
        profile: None,
    }
}

fn with_profile(p: &str) -> S3Target {
    S3Target {
        profile: Some(p.into()),
        ..target("b", "k")
    }
}

/// The instance metadata service's address, when the settings ask it.
fn metadata_endpoint(s: &S3Settings) -> Option<&str> {
    match &s.credentials {
        S3Credentials::InstanceMetadata { endpoint, .. } => Some(endpoint),
        _ => None,
    }
}

fn key_id(s: &S3Settings) -> Option<&str> {
    match &s.credentials {
        S3Credentials::Static { access_key_id, .. } => Some(access_key_id),
        _ => None,
    }
}

/// Profiles a, b, c and default, each with its own key pair.
const PROFILES: &str = "\
[default]
aws_access_key_id = DEFAULTID
aws_secret_access_key = defaultsecret
[a]
aws_access_key_id = AID
aws_secret_access_key = asecret
[b]
aws_access_key_id = BID
aws_secret_access_key = bsecret
[c]
aws_access_key_id = CID
aws_secret_access_key = csecret
";

/// The seed's example (Appendix E): a `[default]` profile with a key
/// pair and `aws_region`, in `~/.aws/config`.
#[test]
fn seed_example_default_profile() {
    let h = Home::new().file(
        ".aws/config",
        "[default]\naws_access_key_id=XXXXXXXXXXXXXXXXXXXX\naws_secret_access_key=YYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYY\naws_region=ZZZZZZZZZ\n",
    );
    let s = h.resolve(&target("bucket", "key"));
    assert_eq!(
        s.credentials,
        S3Credentials::Static {
            access_key_id: "XXXXXXXXXXXXXXXXXXXX".into(),
            secret_access_key: "YYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYY".into(),
            session_token: None,
        }
    );
    assert_eq!(s.region, "ZZZZZZZZZ");
    assert_eq!((s.bucket.as_str(), s.endpoint.as_deref()), ("bucket", None));
}

/// Profile order: fragment `aws.profile`, rc `AWS.PROFILE`, `AWS_PROFILE`,
/// `default`.
#[test]
fn profile_order() {
    let h = || Home::new().file(".aws/credentials", PROFILES);
    let all = h().file(".ncrc", "AWS.PROFILE=b\n").var("AWS_PROFILE", "c");
    assert_eq!(key_id(&all.resolve(&with_profile("a"))), Some("AID"));
    assert_eq!(key_id(&all.resolve(&target("b", "k"))), Some("BID"));
    let env_only = h().var("AWS_PROFILE", "c");
    assert_eq!(key_id(&env_only.resolve(&target("b", "k"))), Some("CID"));
    assert_eq!(key_id(&h().resolve(&target("b", "k"))), Some("DEFAULTID"));
}

/// Profiles `none` and `no` sign nothing, whatever keys are about.
#[test]
fn none_and_no_are_unsigned() {
    let h = Home::new()
        .file(".aws/credentials", PROFILES)
        .var("AWS_ACCESS_KEY_ID", "ENVID")
        .var("AWS_SECRET_ACCESS_KEY", "envsecret");
    for p in ["none", "no"] {
        assert_eq!(
            h.resolve(&with_profile(p)).credentials,
            S3Credentials::Unsigned
        );
    }
    let rc = Home::new()
        .file(".aws/credentials", PROFILES)
        .file(".ncrc", "AWS.PROFILE=none\n");
    assert_eq!(
        rc.resolve(&target("b", "k")).credentials,
        S3Credentials::Unsigned
    );
}

/// Region order: the URL (fragment or host), the profile's `region`, rc
/// `AWS.REGION`, `AWS_REGION`, `AWS_DEFAULT_REGION`, `us-east-1`.
#[test]
fn region_order() {
    let region = |h: &Home, t: &S3Target| h.resolve(t).region;
    let in_url = S3Target {
        region: Some("url-1".into()),
        ..target("b", "k")
    };
    let full = || {
        Home::new()
            .file(".aws/config", "[default]\nregion = profile-1\n")
            .file(".ncrc", "AWS.REGION=rc-1\n")
            .var("AWS_REGION", "env-1")
            .var("AWS_DEFAULT_REGION", "envdefault-1")
    };
    assert_eq!(region(&full(), &in_url), "url-1");
    assert_eq!(region(&full(), &target("b", "k")), "profile-1");
    let no_profile = Home::new()
        .file(".ncrc", "AWS.REGION=rc-1\n")
        .var("AWS_REGION", "env-1");
    assert_eq!(region(&no_profile, &target("b", "k")), "rc-1");
    let env = Home::new()
        .var("AWS_REGION", "env-1")
        .var("AWS_DEFAULT_REGION", "envdefault-1");
    assert_eq!(region(&env, &target("b", "k")), "env-1");
    let env = Home::new().var("AWS_DEFAULT_REGION", "envdefault-1");
    assert_eq!(region(&env, &target("b", "k")), "envdefault-1");
    assert_eq!(region(&Home::new(), &target("b", "k")), "us-east-1");
}

/// The credentials file's keys win over the config file's for the same
/// profile; the config file's other settings still apply.
#[test]
fn credentials_file_wins() {
    let h = Home::new()
        .file(
            ".aws/config",
            "[profile p]\naws_access_key_id = CONFIGID\naws_secret_access_key = cs\nregion = eu-north-1\n",
        )
        .file(
            ".aws/credentials",
            "[p]\naws_access_key_id = CREDID\naws_secret_access_key = crs\n",
        );
    let s = h.resolve(&with_profile("p"));
    assert_eq!(key_id(&s), Some("CREDID"));
    assert_eq!(s.region, "eu-north-1");
}

/// Section names as the SDKs read them: `[profile x]` and `[default]` in
/// the config file, `[x]` in the credentials file; a bare `[x]` in the
/// config file and `[profile x]` in the credentials file are not profile x.
#[test]
fn section_names() {
    let config = Home::new().file(
        ".aws/config",
        "[profile x]\naws_access_key_id = XID\naws_secret_access_key = s\n[y]\naws_access_key_id = YID\naws_secret_access_key = s\n",
    );
    assert_eq!(key_id(&config.resolve(&with_profile("x"))), Some("XID"));
    let e = config.error(&with_profile("y"));
    assert!(e.contains("\"y\"") && e.contains(".aws/config"), "{e}");
    let creds = Home::new().file(
        ".aws/credentials",
        "[profile z]\naws_access_key_id = ZID\naws_secret_access_key = s\n",
    );
    assert!(creds.error(&with_profile("z")).contains("\"z\""));
}

/// Environment keys against profiles: they replace `default`'s keys (as
/// netCDF-C's synthesized default profile does); a named profile's keys
/// (fragment, rc or `AWS_PROFILE`) win over them.
#[test]
fn environment_keys_against_profiles() {
    let h = |extra: &[(&str, &str)]| {
        let mut h = Home::new()
            .file(".aws/credentials", PROFILES)
            .var("AWS_ACCESS_KEY_ID", "ENVID")
            .var("AWS_SECRET_ACCESS_KEY", "envsecret")
            .var("AWS_SESSION_TOKEN", "envtoken");
        for (k, v) in extra {
            h = h.var(k, v);
        }
        h
    };
    let s = h(&[]).resolve(&target("b", "k"));
    assert_eq!(
        s.credentials,
        S3Credentials::Static {
            access_key_id: "ENVID".into(),
            secret_access_key: "envsecret".into(),
            session_token: Some("envtoken".into()),
        }
    );
    assert_eq!(key_id(&h(&[]).resolve(&with_profile("a"))), Some("AID"));
    let env_profile = h(&[("AWS_PROFILE", "b")]);
    assert_eq!(key_id(&env_profile.resolve(&target("b", "k"))), Some("BID"));
    // No file at all: the environment's keys; nothing at all: the
    // instance metadata service.
    let bare = Home::new()
        .var("AWS_ACCESS_KEY_ID", "ENVID")
        .var("AWS_SECRET_ACCESS_KEY", "envsecret");
    assert_eq!(key_id(&bare.resolve(&target("b", "k"))), Some("ENVID"));
    assert_eq!(
        metadata_endpoint(&Home::new().resolve(&target("b", "k"))),
        Some(METADATA_ENDPOINT)
    );
}

/// Endpoint: the URL's own host; else `AWS_ENDPOINT_URL_S3`,
/// `AWS_ENDPOINT_URL`, the profile's `endpoint_url`; none of those when
/// `AWS_IGNORE_CONFIGURED_ENDPOINT_URLS=true`.
#[test]
fn endpoint_order() {
    let h = || {
        Home::new().keys().file("cwd/.keep", "").file(
            ".aws/config",
            "[default]\nendpoint_url = http://profile:1/\n",
        )
    };
    let e = |h: Home, t: &S3Target| h.resolve(t).endpoint;
    let own = S3Target {
        endpoint: Some("http://127.0.0.1:9000".into()),
        ..target("b", "k")
    };
    let t = target("b", "k");
    let all = || {
        h().var("AWS_ENDPOINT_URL_S3", "http://s3env:1")
            .var("AWS_ENDPOINT_URL", "http://env:1")
    };
    assert_eq!(e(all(), &own).as_deref(), Some("http://127.0.0.1:9000"));
    assert_eq!(e(all(), &t).as_deref(), Some("http://s3env:1"));
    assert_eq!(
        e(h().var("AWS_ENDPOINT_URL", "http://env:1"), &t).as_deref(),
        Some("http://env:1")
    );
    assert_eq!(e(h(), &t).as_deref(), Some("http://profile:1"));
    assert_eq!(
        e(all().var("AWS_IGNORE_CONFIGURED_ENDPOINT_URLS", "true"), &t),
        None
    );
}

/// `AWS_CONFIG_FILE` and `AWS_SHARED_CREDENTIALS_FILE` replace the default
/// paths (`~/` is HOME, as in the SDKs).
#[test]
fn file_locations_from_the_environment() {
    let h = Home::new()
        .file(".aws/credentials", PROFILES)
        .file(
            "elsewhere/creds",
            "[default]\naws_access_key_id = ELSEID\naws_secret_access_key = s\n",
        )
        .file("elsewhere/conf", "[default]\nregion = ap-south-1\n")
        .var("AWS_SHARED_CREDENTIALS_FILE", "~/elsewhere/creds");
    let conf = h.path("elsewhere/conf").display().to_string();
    let h = h.var("AWS_CONFIG_FILE", &conf);
    let s = h.resolve(&target("b", "k"));
    assert_eq!(
        (key_id(&s), s.region.as_str()),
        (Some("ELSEID"), "ap-south-1")
    );
}

/// Garbage in a configuration file: an error naming the file and line.
#[test]
fn garbage_names_file_and_line() {
    let cases: &[(&str, &[u8], usize)] = &[
        (
            ".aws/credentials",
            b"[default]\naws_access_key_id = A\nthis is not a property\n",
            3,
        ),
        (".aws/credentials", b"aws_access_key_id = A\n", 1),
        (".aws/config", b"# comment\n[default\nregion = x\n", 2),
        (".aws/config", b"[default] trailing\n", 1),
        (".aws/config", b"[]\n", 1),
        (".aws/credentials", b"[default]\n\n= value\n", 3),
        (".aws/credentials", b"[default]\nkey\n", 2),
        (".aws/credentials", b"[default]\nk = v\n\xff\xfe\n", 3),
        (
            ".ncrc",
            b"# ok\nAWS.REGION=x\n[https://host/b AWS.PROFILE=x\n",
            3,
        ),
    ];
    for (file, text, line) in cases {
        let h = Home::new();
        std::fs::create_dir_all(h.path(".aws")).unwrap();
        std::fs::write(h.path(file), text).unwrap();
        let e = h.env().unwrap_err().to_string();
        let want = format!("{}:{line}:", h.path(file).display());
        assert!(
            e.starts_with(&want),
            "{}: {e}",
            String::from_utf8_lossy(text)
        );
    }
    // Too large to be a configuration file.
    let h = Home::new().file(".aws/config", &"#".repeat(2 << 20));
    let e = h.env().unwrap_err().to_string();
    assert!(
        e.contains(".aws/config") && e.contains("larger than"),
        "{e}"
    );
}

/// Comments, continuation lines, `\r\n`, spaces and repeated sections are
/// read as the SDKs read them.
#[test]
fn sdk_syntax() {
    let h = Home::new().file(
        ".aws/config",
        "; a comment\r\n# another\r\n[profile p] # trailing comment\r\n  region=eu-west-3\r\ns3 =\r\n  addressing_style = path\r\n\r\n[profile p]\r\naws_access_key_id   =   PID  \r\naws_secret_access_key=sec=ret\r\n",
    );
    let s = h.resolve(&with_profile("p"));
    assert_eq!(s.region, "eu-west-3");
    assert_eq!(
        s.credentials,
        S3Credentials::Static {
            access_key_id: "PID".into(),
            secret_access_key: "sec=ret".into(),
            session_token: None,
        }
    );
}

/// A profile named but defined nowhere: an error naming it, where the
/// name came from and the files read.
#[test]
fn unknown_profile_is_named() {
    let h = Home::new().file(".aws/credentials", PROFILES);
    let e = h.error(&with_profile("ghost"));
    assert!(e.contains("\"ghost\"") && e.contains("aws.profile"), "{e}");
    assert!(
        e.contains(".aws/config") && e.contains(".aws/credentials"),
        "{e}"
    );
    let e = Home::new()
        .var("AWS_PROFILE", "ghost2")
        .error(&target("b", "k"));
    assert!(e.contains("\"ghost2\"") && e.contains("AWS_PROFILE"), "{e}");
    let e = Home::new()
        .file(".ncrc", "AWS.PROFILE=ghost3\n")
        .error(&target("b", "k"));
    assert!(e.contains("\"ghost3\"") && e.contains("rc file"), "{e}");
}

/// Half a key pair is an error naming where it is.
#[test]
fn half_a_key_pair() {
    let h = Home::new().file(".aws/credentials", "[p]\naws_access_key_id = ONLY\n");
    let e = h.error(&with_profile("p"));
    assert!(
        e.contains("\"p\"") && e.contains("aws_secret_access_key"),
        "{e}"
    );
    let e = Home::new()
        .var("AWS_SECRET_ACCESS_KEY", "s")
        .error(&target("b", "k"));
    assert!(e.contains("AWS_ACCESS_KEY_ID"), "{e}");
}

/// rc files: where netCDF-C looks (HOME then the current directory, later
/// overriding; `NCRCENV_HOME`; `NCRCENV_RC` alone; `NCRCENV_IGNORE`), and
/// `[url]` entries, which apply to the datasets under the URL and are
/// consulted before plain entries.
#[test]
fn rc_files() {
    let region = |h: &Home, t: &S3Target| h.resolve(t).region;
    let t = target("b", "k");
    let h = Home::new().file(".ncrc", "AWS.REGION=home-1\n");
    assert_eq!(region(&h, &t), "home-1");
    let h = h.file("cwd/.dodsrc", "AWS.REGION=cwd-1\n");
    assert_eq!(region(&h, &t), "cwd-1");
    let h = Home::new()
        .file(".ncrc", "AWS.REGION=home-1\n")
        .file(".daprc", "AWS.REGION=dap-1\n");
    assert_eq!(region(&h, &t), "dap-1");
    let h = Home::new()
        .file(".ncrc", "AWS.REGION=home-1\n")
        .file("other/.ncrc", "AWS.REGION=other-1\n");
    let other = h.path("other").display().to_string();
    assert_eq!(region(&h.var("NCRCENV_HOME", &other), &t), "other-1");
    let h = Home::new()
        .file(".ncrc", "AWS.REGION=home-1\n")
        .file("my.rc", "AWS.REGION=rc-1\n");
    let rc = h.path("my.rc").display().to_string();
    let h = h.var("NCRCENV_RC", &rc);
    assert_eq!(region(&h, &t), "rc-1");
    let h = Home::new()
        .file(".ncrc", "AWS.REGION=home-1\n")
        .var("NCRCENV_IGNORE", "1");
    assert_eq!(region(&h, &t), "us-east-1");

    // (keys in the environment: a server that is not AWS's gets none from
    // the instance metadata service)
    let h = Home::new().keys().file(
        ".ncrc",
        "# plain entries come after [url] ones whatever the file order\n\
         AWS.REGION=plain-1\n\
         [s3://bkt/dir]AWS.REGION=dir-1\n\
         [https://s3.us-west-2.amazonaws.com/bkt2]AWS.REGION=bkt2-1\n\
         [http://127.0.0.1:9000]AWS.REGION=local-1\n\
         [https://other.bkt.s3.amazonaws.com]AWS.REGION=virtual-1\n",
    );
    assert_eq!(region(&h, &target("bkt", "dir/ds.zarr")), "dir-1");
    assert_eq!(region(&h, &target("bkt", "dir")), "dir-1");
    assert_eq!(region(&h, &target("bkt", "dir2/ds")), "plain-1");
    assert_eq!(region(&h, &target("bkt2", "any/key")), "bkt2-1");
    assert_eq!(region(&h, &target("other.bkt", "")), "virtual-1");
    let local = S3Target {
        endpoint: Some("http://127.0.0.1:9000".into()),
        ..target("bkt", "dir/ds")
    };
    assert_eq!(region(&h, &local), "local-1");
    let elsewhere = S3Target {
        endpoint: Some("http://127.0.0.1:9001".into()),
        ..target("zzz", "")
    };
    assert_eq!(region(&h, &elsewhere), "plain-1");
}

/// No HOME, no variables: the instance metadata service at its usual
/// address, `us-east-1`.
#[test]
fn empty_environment() {
    let env = AwsEnvironment::load(Vec::new(), Path::new("/nonexistent-nctk-dir")).unwrap();
    let s = resolve_with(&target("b", "k"), &env).unwrap();
    assert_eq!(
        (s.region.as_str(), &s.credentials),
        (
            "us-east-1",
            &S3Credentials::InstanceMetadata {
                endpoint: "http://169.254.169.254".into(),
                profile: "default".into(),
                files: Vec::new(),
            }
        )
    );
}

/// No credentials for a server that is not AWS's: an error that says so
/// and how to give them, at once (instead of a request that waits on the
/// EC2 instance metadata address). AWS hosts, the credential chain's
/// other sources, and unsigned access still resolve.
#[test]
fn no_credentials_for_another_server_is_an_error_saying_how_to_give_them() {
    let at = |endpoint: &str| S3Target {
        endpoint: Some(endpoint.into()),
        ..target("b", "k")
    };
    let e = Home::new().error(&at("http://127.0.0.1:9000"));
    for part in [
        "no AWS credentials",
        "http://127.0.0.1:9000",
        "AWS_ACCESS_KEY_ID",
        "AWS_PROFILE",
        "aws.profile=none",
        ".aws/credentials",
    ] {
        assert!(e.contains(part), "{part:?} missing from: {e}");
    }
    let resolved = |h: Home, endpoint: &str| h.resolve(&at(endpoint));
    for aws in [
        "https://s3.eu-west-1.amazonaws.com",
        "https://bucket.vpce-1a2b.s3.us-east-1.vpce.amazonaws.com",
        "https://s3.cn-north-1.amazonaws.com.cn",
    ] {
        let s = resolved(Home::new(), aws);
        assert_eq!(metadata_endpoint(&s), Some(METADATA_ENDPOINT), "{aws}");
    }
    // object_store's chain, where it has something other than the
    // metadata service to ask: a web identity token with its role, a
    // container's endpoint (with its token file for the full URI).
    let token = || Home::new().var("AWS_WEB_IDENTITY_TOKEN_FILE", "/var/run/token");
    let with_role = token().var("AWS_ROLE_ARN", "arn:aws:iam::1:role/r");
    assert_eq!(
        resolved(with_role, "http://minio:9000").credentials,
        S3Credentials::Chain
    );
    let ecs = Home::new().var(
        "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
        "/v2/credentials/x",
    );
    assert_eq!(
        resolved(ecs, "http://minio:9000").credentials,
        S3Credentials::Chain
    );
    let full = || {
        Home::new().var(
            "AWS_CONTAINER_CREDENTIALS_FULL_URI",
            "http://169.254.170.23/v1",
        )
    };
    let pod = full().var("AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE", "/var/run/pod");
    assert_eq!(
        resolved(pod, "http://minio:9000").credentials,
        S3Credentials::Chain
    );
    // Half of either is not enough: the metadata service for AWS, the
    // error for another server.
    for half in [token(), full()] {
        let aws = resolved(half, "https://s3.us-east-1.amazonaws.com");
        assert_eq!(metadata_endpoint(&aws), Some(METADATA_ENDPOINT));
    }
    for half in [token(), full()] {
        assert!(half
            .error(&at("http://minio:9000"))
            .contains("no AWS credentials"));
    }
    // The metadata service's own variable does not make another server an
    // AWS host.
    let moved = Home::new().var(METADATA_ENDPOINT_VARIABLE, "http://127.0.0.1:1338");
    assert!(moved
        .error(&at("http://127.0.0.1:9000"))
        .contains("no AWS credentials"));
    let unsigned = S3Target {
        profile: Some("none".into()),
        ..at("http://127.0.0.1:9000")
    };
    assert_eq!(
        Home::new().resolve(&unsigned).credentials,
        S3Credentials::Unsigned
    );
    // a look-alike host is not AWS's
    assert!(Home::new()
        .error(&at("https://amazonaws.com.evil.example"))
        .contains("no AWS credentials"));
}

/// The instance metadata service, for an AWS host with no credentials
/// elsewhere: at `AWS_EC2_METADATA_SERVICE_ENDPOINT` when set (a trailing
/// `/` dropped, as botocore joins it), else at 169.254.169.254; not asked
/// at all with `AWS_EC2_METADATA_DISABLED=true` (any case), which is an
/// error at once saying so and how to give credentials.
#[test]
fn instance_metadata_service_for_aws_hosts() {
    let moved = Home::new().var(METADATA_ENDPOINT_VARIABLE, "http://[fd00:ec2::254]/");
    assert_eq!(
        metadata_endpoint(&moved.resolve(&target("b", "k"))),
        Some("http://[fd00:ec2::254]")
    );
    let named = Home::new().file(".aws/config", "[profile empty]\nregion = eu-west-1\n");
    match named.resolve(&with_profile("empty")).credentials {
        S3Credentials::InstanceMetadata { profile, files, .. } => {
            assert_eq!(profile, "empty");
            assert!(
                files.iter().any(|f| f.ends_with(".aws/config")),
                "{files:?}"
            );
        }
        other => panic!("expected the metadata service, got {other:?}"),
    }
    for off in ["true", "TRUE", "True"] {
        let e = Home::new()
            .var(METADATA_DISABLED, off)
            .error(&target("b", "k"));
        for part in [
            "no AWS credentials for AWS S3",
            "AWS_EC2_METADATA_DISABLED=true",
            "AWS_ACCESS_KEY_ID",
            "aws.profile=none",
        ] {
            assert!(e.contains(part), "{part:?} missing from: {e}");
        }
    }
    // Anything but `true` leaves it on, as in botocore.
    let on = Home::new().var(METADATA_DISABLED, "false");
    assert_eq!(
        metadata_endpoint(&on.resolve(&target("b", "k"))),
        Some(METADATA_ENDPOINT)
    );
}
