//! The AWS configuration files read as botocore (the AWS SDK for Python,
//! through boto3) reads them: for each set of files and environment
//! variables, the key pair, session token, region and endpoint nctk
//! resolves equal botocore's own answers. Only cases where netCDF-C's
//! rules and the SDKs' agree are compared (no region or key variables in
//! the environment, where netCDF-C orders them differently).

use std::process::Command;

use nctk_store_object::aws::{resolve_with, AwsEnvironment, S3Target};
use nctk_store_object::S3Credentials;
use nctk_test_support::require;

/// botocore's credentials, region and S3 endpoint for each argument
/// (`profile\tNAME=VALUE\t...`: the profile, empty for botocore's own
/// choice, and the whole environment), one line each.
const BOTO: &str = r#"
import os, sys, boto3
for arg in sys.argv[1:]:
    profile, *pairs = arg.split("\t")
    os.environ.clear()
    os.environ.update(dict(p.split("=", 1) for p in pairs))
    s = boto3.Session(profile_name=profile or None)
    c = s.get_credentials()
    region = s.region_name or "us-east-1"
    endpoint = s.client("s3", region_name=region).meta.endpoint_url
    if endpoint.endswith("amazonaws.com"):
        endpoint = "aws"
    if c is None:
        print("none", "none", "none", region, endpoint)
    else:
        f = c.get_frozen_credentials()
        print(f.access_key, f.secret_key, f.token or "none", region, endpoint)
"#;

struct Case {
    files: &'static [(&'static str, &'static str)],
    vars: &'static [(&'static str, &'static str)],
    profile: Option<&'static str>,
}

const CASES: &[Case] = &[
    // The seed's default profile, with `region` (the SDKs' key).
    Case {
        files: &[(".aws/config", "[default]\naws_access_key_id=XXXX\naws_secret_access_key=YYYY\nregion=us-west-2\n")],
        vars: &[],
        profile: None,
    },
    // The credentials file wins; the config file's region applies.
    Case {
        files: &[
            (".aws/config", "[profile p]\naws_access_key_id = CONFIGID\naws_secret_access_key = cs\nregion = eu-north-1\n"),
            (".aws/credentials", "[p]\naws_access_key_id = CREDID\naws_secret_access_key = crs\naws_session_token = tok\n"),
        ],
        vars: &[],
        profile: Some("p"),
    },
    // AWS_PROFILE picks the profile; comments, CRLF, padding, `=` in values,
    // continuation lines (a repeated section, which the Rust and C++ SDKs
    // merge, is an error to botocore: not compared).
    Case {
        files: &[
            (".aws/config", "; c\r\n# c\r\n[profile q]\r\n  region=ap-south-1\r\ns3 =\r\n  addressing_style = path\r\n"),
            (".aws/credentials", "[q]\naws_access_key_id   =   QID  \naws_secret_access_key=se=cret\n[default]\naws_access_key_id = D\naws_secret_access_key = d\n"),
        ],
        vars: &[("AWS_PROFILE", "q")],
        profile: None,
    },
    // Files named by the environment; `~/` is HOME.
    Case {
        files: &[
            ("x/creds", "[default]\naws_access_key_id = XID\naws_secret_access_key = x\n"),
            ("x/conf", "[default]\nregion = ca-central-1\nendpoint_url = http://127.0.0.1:9999\n"),
            (".aws/credentials", "[default]\naws_access_key_id = NOTME\naws_secret_access_key = n\n"),
        ],
        vars: &[("AWS_SHARED_CREDENTIALS_FILE", "~/x/creds"), ("AWS_CONFIG_FILE", "~/x/conf")],
        profile: None,
    },
    // The endpoint from the environment beats the profile's.
    Case {
        files: &[(".aws/config", "[default]\nendpoint_url = http://127.0.0.1:9999\naws_access_key_id = E\naws_secret_access_key = e\n")],
        vars: &[("AWS_ENDPOINT_URL", "http://127.0.0.1:7777")],
        profile: None,
    },
];

#[test]
fn files_read_as_botocore_reads_them() {
    if !require::python(&["boto3"]) {
        return;
    }
    let homes: Vec<tempfile::TempDir> =
        CASES.iter().map(|_| tempfile::tempdir().unwrap()).collect();
    let mut ours = vec![];
    let mut args = vec![];
    for (case, home) in CASES.iter().zip(&homes) {
        for (rel, text) in case.files {
            let p = home.path().join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
        let mut vars: Vec<(String, String)> = vec![
            ("HOME".into(), home.path().display().to_string()),
            ("AWS_EC2_METADATA_DISABLED".into(), "true".into()),
        ];
        vars.extend(
            case.vars
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string())),
        );
        let mut arg = case.profile.unwrap_or("").to_string();
        for (k, v) in &vars {
            arg.push_str(&format!("\t{k}={v}"));
        }
        args.push(arg);

        let env = AwsEnvironment::load(vars, &home.path().join("no-cwd")).unwrap();
        let target = S3Target {
            endpoint: None,
            bucket: "b".into(),
            key: "k".into(),
            virtual_hosted: false,
            region: None,
            profile: case.profile.map(str::to_string),
        };
        let s = resolve_with(&target, &env).unwrap();
        let (id, secret, token) = match &s.credentials {
            S3Credentials::Static {
                access_key_id,
                secret_access_key,
                session_token,
            } => (
                access_key_id.as_str(),
                secret_access_key.as_str(),
                session_token.as_deref().unwrap_or("none"),
            ),
            _ => ("none", "none", "none"),
        };
        let endpoint = s.endpoint.as_deref().unwrap_or("aws");
        ours.push(format!("{id} {secret} {token} {} {endpoint}", s.region));
    }
    let out = Command::new("python3")
        .arg("-c")
        .arg(BOTO)
        .args(&args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let boto = String::from_utf8(out.stdout).unwrap();
    let boto: Vec<&str> = boto.lines().collect();
    assert_eq!(boto.len(), CASES.len());
    for (i, (ours, boto)) in ours.iter().zip(boto).enumerate() {
        assert_eq!(ours, boto, "case {i}");
    }
}
