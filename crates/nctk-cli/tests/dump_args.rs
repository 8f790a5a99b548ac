//! ncdump's flags as the `nctk dump` command line parses them (clap, through
//! `nctk-tools`' `clap` feature) and as `DumpArgs::to_options` checks them.

use clap::Parser;
use nctk_cdl::print::{IndexLang, TimeStrings};
use nctk_tools::dump::DumpArgs;

#[derive(Parser)]
struct Cli {
    #[command(flatten)]
    args: DumpArgs,
}

fn parse(argv: &[&str]) -> DumpArgs {
    let mut v = vec!["ncdump"];
    v.extend_from_slice(argv);
    Cli::try_parse_from(v).unwrap().args
}

#[test]
fn flags_map_to_options() {
    let a = parse(&[
        "-h", "-v", "a,b", "-b", "F", "-l", "40", "-p", "3,9", "-i", "x.nc",
    ]);
    let o = a.to_options().unwrap();
    assert!(o.header_only);
    assert_eq!(o.vars, ["a", "b"]);
    assert!(o.brief_comments);
    assert_eq!(o.index_lang, IndexLang::Fortran);
    assert_eq!(o.max_line_len, 40);
    assert_eq!((o.float_digits, o.double_digits), (Some(3), Some(9)));
    assert_eq!(o.times, TimeStrings::IsoT);
    assert_eq!(a.file, "x.nc");
    let o = parse(&["-p", ",9", "x.nc"]).to_options().unwrap();
    assert_eq!((o.float_digits, o.double_digits), (None, None));
    assert!(parse(&["-l", "5", "x.nc"]).to_options().is_err());
    assert!(parse(&["-b", "x", "x.nc"]).to_options().is_err());
}
