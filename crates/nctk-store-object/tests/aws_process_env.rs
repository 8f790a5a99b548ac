//! `aws::resolve` reads this process's environment: a variable that is
//! not Unicode is skipped (`std::env::vars` would panic on it), and HOME
//! and `AWS_PROFILE` are honoured. One test in its own binary, so setting
//! variables races with nothing.

#[cfg(unix)]
#[test]
fn process_environment_with_a_non_unicode_variable() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;

    use nctk_store_object::aws::{resolve, S3Target};
    use nctk_store_object::S3Credentials;

    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir(home.path().join(".aws")).unwrap();
    std::fs::write(
        home.path().join(".aws/credentials"),
        "[proc]\naws_access_key_id = PROCID\naws_secret_access_key = s\n",
    )
    .unwrap();
    std::env::set_var("NCTK_NOT_UNICODE", OsStr::from_bytes(b"\xff\xfe"));
    std::env::set_var("HOME", home.path());
    std::env::set_var("AWS_PROFILE", "proc");
    for v in [
        "AWS_CONFIG_FILE",
        "AWS_SHARED_CREDENTIALS_FILE",
        "NCRCENV_RC",
        "NCRCENV_HOME",
    ] {
        std::env::remove_var(v);
    }
    std::env::set_var("NCRCENV_IGNORE", "1");
    let target = S3Target {
        endpoint: None,
        bucket: "b".into(),
        key: String::new(),
        virtual_hosted: false,
        region: None,
        profile: None,
    };
    let s = resolve(&target).unwrap();
    assert!(
        matches!(s.credentials, S3Credentials::Static { ref access_key_id, .. } if access_key_id == "PROCID")
    );
}
