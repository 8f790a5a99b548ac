//! Fuzzes the AWS configuration and credentials parser, the rc-file
//! parser and the rules over what they read: any bytes parse or fail with
//! an error naming the file and a line within it, never a panic; resolving
//! any profile over the result gives settings or an error, never a panic.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use nctk_store_object::aws::ini::{FileKind, ProfileFile};
use nctk_store_object::aws::rc::RcSettings;
use nctk_store_object::aws::{resolve_with, AwsConfigError, AwsEnvironment, S3Target};

fn check_line(e: &AwsConfigError, data: &[u8]) {
    if let AwsConfigError::Syntax { path, line, .. } = e {
        assert_eq!(path, "fuzz");
        let lines = data.split(|&b| b == b'\n').count();
        assert!(*line >= 1 && *line <= lines, "line {line} of {lines}");
    }
}

fuzz_target!(|data: &[u8]| {
    let path = Path::new("fuzz");
    let mut parts = data.splitn(3, |&b| b == 0);
    let config = parts.next().unwrap_or_default();
    let creds = parts.next().unwrap_or_default();
    let rc = parts.next().unwrap_or_default();
    let mut env = AwsEnvironment::default();
    match ProfileFile::parse(path, config, FileKind::Config) {
        Ok(f) => env.config = Some(f),
        Err(e) => check_line(&e, config),
    }
    match ProfileFile::parse(path, creds, FileKind::Credentials) {
        Ok(f) => env.credentials = Some(f),
        Err(e) => check_line(&e, creds),
    }
    let mut settings = RcSettings::default();
    match settings.parse(path, rc) {
        Ok(()) => env.rc = settings,
        Err(e) => check_line(&e, rc),
    }
    let names: Vec<String> = env
        .config
        .iter()
        .chain(env.credentials.iter())
        .flat_map(|f| f.names().map(str::to_string).collect::<Vec<_>>())
        .collect();
    for profile in names.into_iter().map(Some).chain([None]) {
        let target = S3Target {
            endpoint: None,
            bucket: "b".into(),
            key: "k".into(),
            virtual_hosted: false,
            region: None,
            profile,
        };
        let _ = resolve_with(&target, &env);
    }
});
