//! `nctk dump` against `ncdump` on variables large enough that the printer
//! formats their blocks in parallel chunks (more than 8192 values): random
//! float, double and int values, fill values, NaN and infinities, with the
//! default layout and with `-f`, `-b`, `-l` and `-p`. Byte-identical output
//! is the truth. Skips without `ncdump`.

use std::process::Command;

use nctk_test_support::require;

fn output(program: &str, args: &[&str]) -> Vec<u8> {
    let out = Command::new(program)
        .args(args)
        .output()
        .expect("run program");
    assert!(
        out.status.success(),
        "{program} {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

#[test]
fn large_variables_match_ncdump() {
    if !require::tools(&["ncdump"]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("large.nc");
    let (nt, ny, nx) = (3usize, 57usize, 101usize);
    let n = nt * ny * nx;
    let mut seed = 0x0bad_cafe_dead_beefu64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let mut floats = vec![0f32; n];
    let mut doubles = vec![0f64; n];
    let mut ints = vec![0i32; n];
    for i in 0..n {
        let r = next();
        floats[i] = match i % 97 {
            0 => 9.969_21e36, // the default fill value: printed as _
            1 => f32::NAN,
            2 => f32::NEG_INFINITY,
            _ if i % 2 == 0 => f32::from_bits(r as u32 & 0xbfff_ffff), // finite
            _ => (r % 2_000_000) as f32 / 1000.0 - 1000.0,
        };
        doubles[i] = match i % 89 {
            0 => 9.969_209_968_386_869e36,
            1 => f64::INFINITY,
            _ => f64::from_bits(r & 0xbfff_ffff_ffff_ffff),
        };
        ints[i] = (r >> 32) as i32;
    }
    let mut def = nctk::create(&path, nctk::Format::Cdf5).unwrap();
    let dims = [("t", nt), ("y", ny), ("x", nx)]
        .map(|(name, len)| def.add_dimension(name, len as u64).unwrap());
    def.add_variable::<f32>("f", &dims).unwrap();
    def.add_variable::<f64>("d", &dims).unwrap();
    def.add_variable::<i32>("i", &dims).unwrap();
    let mut ds = def.end_define().unwrap();
    ds.put_values("f", .., &floats).unwrap();
    ds.put_values("d", .., &doubles).unwrap();
    ds.put_values("i", .., &ints).unwrap();
    ds.close().unwrap();

    let file = path.to_str().unwrap();
    for flags in [
        &[][..],
        &["-f", "c"],
        &["-b", "f"],
        &["-l", "50"],
        &["-p", "4,9"],
        &["-p", "9,17"],
    ] {
        let mut ours = vec!["dump"];
        ours.extend_from_slice(flags);
        ours.push(file);
        let mut theirs = flags.to_vec();
        theirs.push(file);
        let a = output(env!("CARGO_BIN_EXE_nctk"), &ours);
        let b = output("ncdump", &theirs);
        assert!(a == b, "nctk dump {flags:?} differs from ncdump");
    }
}
