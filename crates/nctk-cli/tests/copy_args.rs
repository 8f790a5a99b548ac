//! nccopy's flags as the `nctk copy` command line parses them (clap, through
//! `nctk-tools`' `clap` feature), as `CopyArgs::to_options` checks them,
//! and a copy run from them.

use clap::Parser;
use nctk::Format;
use nctk_tools::copy::command::{run_copy, CopyArgs};
use nctk_tools::copy::{NoProgress, VarList};

#[derive(Parser)]
struct Cli {
    #[command(flatten)]
    args: CopyArgs,
}

fn parse(args: &[&str]) -> CopyArgs {
    Cli::try_parse_from(std::iter::once("copy").chain(args.iter().copied()))
        .unwrap()
        .args
}

#[test]
fn nccopy_flags_parse() {
    let a = parse(&[
        "-k", "nc6", "-d", "5", "-s", "-c", "x/2", "-c", "t:1,3", "-u", "-V", "a,b", "-m", "1M",
        "-h", "2M", "-e", "100", "-Xf", "in.nc", "out.nc",
    ]);
    let o = a.to_options().unwrap();
    assert_eq!(o.kind, Some(Format::Offset64));
    assert_eq!(o.deflate, Some(5));
    assert!(o.shuffle && o.fix_unlimited && o.fill);
    assert_eq!(o.chunkspecs, vec!["x/2", "t:1,3"]);
    assert_eq!(
        o.vars,
        Some(VarList {
            names: vec!["a".into(), "b".into()],
            definitions_too: true
        })
    );
    assert_eq!(o.buffer_size, 1_000_000);
    assert_eq!(o.chunk_cache_size, Some(2_000_000));
    assert_eq!((a.input.as_str(), a.output.as_str()), ("in.nc", "out.nc"));
    assert_eq!(
        parse(&["-5", "a", "b"]).to_options().unwrap().kind,
        Some(Format::Cdf5)
    );
    assert_eq!(
        parse(&["-k", "64-bit offset", "a", "b"])
            .to_options()
            .unwrap()
            .kind,
        Some(Format::Offset64)
    );
}

#[test]
fn copies_to_stores_and_back() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.nc");
    let mut s = nctk_model::Schema::new();
    let r = nctk_model::GroupId::ROOT;
    let x = s.add_dim(r, "x", 4, false).unwrap();
    let v = s.add_var(r, "v", nctk_model::DataType::Int, &[x]).unwrap();
    let mut w = nctk_classic::ClassicWriter::create_in_with_schema(
        std::sync::Arc::new(nctk_store::bytes::FileSink::create(&input).unwrap()),
        &s,
        nctk_classic::Version::Cdf1,
        nctk_classic::FillMode::NoFill,
    )
    .unwrap();
    w.write_from(v, &nctk_model::Selection::all(&[4]), &[1i32, 2, 3, 4])
        .unwrap();
    w.close().unwrap();
    let path = |p: &std::path::Path| p.display().to_string();
    let store = dir.path().join("out.zarr");
    let url = format!("file://{}#mode=nczarr,file", store.display());
    let back = dir.path().join("back.nc");
    for args in [
        vec!["-4", "-d", "1", "-s", &path(&input), &url],
        vec!["-k", "classic", &url, &path(&back)],
    ] {
        let summary = run_copy(&parse(&args), || Box::new(NoProgress)).unwrap();
        assert_eq!(summary.variables, 1);
    }
    assert!(std::fs::read_to_string(store.join("v/.zarray"))
        .unwrap()
        .contains("zlib"));
    assert_eq!(
        std::fs::read(&input).unwrap(),
        std::fs::read(&back).unwrap()
    );
}

#[test]
fn bad_values_give_nccopy_messages() {
    let msg = |args: &[&str]| parse(args).to_options().unwrap_err().to_string();
    assert_eq!(msg(&["-k", "foo", "a", "b"]), "invalid output format: foo");
    assert_eq!(msg(&["-d", "12", "a", "b"]), "invalid deflation level: 12");
    assert_eq!(
        msg(&["-m", "1Q", "a", "b"]),
        "Suffix used for '-m' option value must be K, M, G, T, or P"
    );
    assert_eq!(msg(&["-Xq", "a", "b"]), "-X unknown sub-flag");
}
