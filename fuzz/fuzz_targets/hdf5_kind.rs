//! Fuzzes `nctk dump -k`'s HDF5 probe: any bytes after the HDF5 signature
//! give a kind or an error naming the file, never a panic or a hang.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::io::Write;

/// The HDF5 signature, so that every input reaches the probe.
const SIGNATURE: &[u8] = b"\x89HDF\r\n\x1a\n";

fuzz_target!(|data: &[u8]| {
    let mut file = tempfile::Builder::new()
        .suffix(".nc")
        .tempfile_in(std::env::var_os("NCTK_FUZZ_TMP").unwrap_or_else(|| "/dev/shm".into()))
        .expect("temporary file");
    file.write_all(SIGNATURE).unwrap();
    file.write_all(data).unwrap();
    file.flush().unwrap();
    if let Err(e) = nctk::kind(file.path()) {
        assert!(
            e.to_string().contains(&*file.path().to_string_lossy()),
            "{e}"
        );
    }
});
