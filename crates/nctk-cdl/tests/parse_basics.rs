//! Focused behaviour of the CDL parser; expected values are what netCDF-C
//! 4.9.0's ncgen writes for the same CDL (checked with ncgen + ncdump).

use nctk_cdl::parse::{check_format, parse, parse_with, CdlError, ParseOptions};
use nctk_model::{DataType, Format, Values};

fn var_data(cdl: &str, var: &str) -> Values {
    let ds = parse(cdl).unwrap();
    let v = ds.schema.var_by_path(var).unwrap();
    ds.var_data(v).unwrap().clone()
}

#[test]
fn numbers_convert_with_c_casts() {
    let cdl =
        "netcdf a {\ndimensions: x = 3 ;\nvariables: short s(x) ;\ndata: s = 1.9, -1.9, 40000 ;\n}";
    assert_eq!(var_data(cdl, "s"), Values::Short(vec![1, -1, -25536]));
}

#[test]
fn char_arrays_fill_from_strings() {
    let cdl = "netcdf a {\ndimensions: n = 4 ; x = 3 ;\nvariables: char d(n) ; char e(x, n) ;\n\
               data: d = \"ab\", \"c\" ; e = \"abc\", \"\", \"x\" ;\n}";
    assert_eq!(var_data(cdl, "d"), Values::Char(b"abc\0".to_vec()));
    assert_eq!(
        var_data(cdl, "e"),
        Values::Char(b"abc\0\0\0\0\0x\0\0\0".to_vec())
    );
}

#[test]
fn unlimited_dimension_is_sized_from_the_data() {
    let cdl =
        "netcdf a {\ndimensions: t = UNLIMITED ; n = 2 ;\nvariables: float f(t) ; int g(t, n) ;\n\
               data: f = 1, _, 3 ; g = 1, 2, 3, 4, 5 ;\n}";
    let ds = parse(cdl).unwrap();
    let g = ds.schema.var_by_path("g").unwrap();
    assert_eq!(ds.schema.shape(g), vec![3, 2]);
    let f = ds.schema.var_by_path("f").unwrap();
    let fill = DataType::Float.default_fill();
    let Values::Float(fv) = ds.var_data(f).unwrap() else {
        panic!()
    };
    assert_eq!(fv[0], 1.0);
    assert_eq!(
        fv[1].to_bits(),
        match fill {
            Values::Float(v) => v[0].to_bits(),
            _ => 0,
        }
    );
    assert_eq!(
        ds.var_data(g).unwrap(),
        &Values::Int(vec![1, 2, 3, 4, 5, -2147483647])
    );
}

#[test]
fn attribute_types_are_inferred_as_ncgen_does() {
    let cdl = "netcdf a {\nvariables: int v ;\n v:a = 1, 2.5f ; v:b = \"ab\", \"cd\" ; v:c = 'a', 'b' ;\n\
               v:d = 1, 4294967295 ; v:e = 5L ; float v:f = 1 ; string v:g = \"x\", \"y\" ;\n}";
    let ds = parse(cdl).unwrap();
    let v = ds.schema.var(ds.schema.var_by_path("v").unwrap());
    let at = |n: &str| v.attribute(n).unwrap().value.clone();
    assert_eq!(at("a"), Values::Float(vec![1.0, 2.5]));
    assert_eq!(at("b"), Values::Char(b"abcd".to_vec()));
    assert_eq!(at("c"), Values::Byte(vec![97, 98]));
    assert_eq!(at("d"), Values::UInt(vec![1, 4294967295]));
    assert_eq!(at("e"), Values::Int(vec![5]));
    assert_eq!(at("f"), Values::Float(vec![1.0]));
    assert_eq!(at("g"), Values::strings(["x", "y"]));
}

#[test]
fn groups_strings_and_specials() {
    let cdl = "netcdf g {\ndimensions: x = 2 ;\n:_Format = \"netCDF-4\" ;\n\
               group: sub {\n variables:\n  string s(x) ;\n  s:_Storage = \"chunked\" ; s:_ChunkSizes = 2 ;\n\
               data:\n  s = \"a\", NIL ;\n }\n}";
    let ds = parse(cdl).unwrap();
    let s = ds.schema.var_by_path("/sub/s").unwrap();
    // NIL is a null string, not "" (ncgen writes a NULL `char *`).
    assert_eq!(
        ds.var_data(s).unwrap(),
        &Values::String(vec![Some("a".into()), None])
    );
    assert_eq!(ds.var_special(s).chunk_sizes, Some(vec![2]));
    assert!(ds.schema.var(s).attributes.is_empty());
    assert_eq!(ds.inferred_kind(), Format::Netcdf4);
    assert!(check_format(&ds, Format::Netcdf4).is_ok());
    assert!(check_format(&ds, Format::Classic).is_err());
    assert!(check_format(&ds, Format::Cdf5).is_err());
}

#[test]
fn escaped_and_unicode_names() {
    let cdl =
        "netcdf a {\ndimensions: \\2m\\ x = 1 ;\nvariables: int caf\u{65}\u{301}(\\2m\\ x) ;\n}";
    let ds = parse(cdl).unwrap();
    assert_eq!(ds.schema.dim(nctk_model::DimId(0)).name, "2m x");
    assert!(ds.schema.var_by_path("caf\u{e9}").is_some());
}

#[test]
fn undefined_user_types_are_clear_errors() {
    // ncgen 4.9.0 refuses it too: "Undefined name (line 3): obs_t".
    let cdl = "netcdf a {\nvariables:\n  obs_t v ;\n}";
    match parse(cdl) {
        Err(CdlError::Semantic { pos, reason }) => {
            assert_eq!(pos.line, 3);
            assert!(reason.contains("obs_t"), "{reason}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn classic_kinds_reject_what_ncgen_rejects() {
    let wide = parse("netcdf a {\nvariables: int v ; v:a = 7LL ;\n}").unwrap();
    let err = check_format(&wide, Format::Classic).unwrap_err();
    assert!(err
        .to_string()
        .contains("Illegal integer constant for classic format: 7"));
    assert!(check_format(&wide, Format::Cdf5).is_ok());
    let unsigned = parse("netcdf a {\nvariables: ubyte v ;\n}").unwrap();
    assert!(check_format(&unsigned, Format::Offset64).is_err());
    assert!(check_format(&unsigned, Format::Cdf5).is_ok());
    let two =
        parse("netcdf a {\ndimensions: t = UNLIMITED ; u = UNLIMITED ;\nvariables: int v(t) ;\n}")
            .unwrap();
    assert!(check_format(&two, Format::Cdf5).is_err());
    let opts = ParseOptions {
        kind: Some(Format::Classic),
        ..ParseOptions::default()
    };
    let i64var = parse_with("netcdf a {\nvariables: int64 v ;\n}", &opts).unwrap();
    assert_eq!(i64var.schema.var(nctk_model::VarId(0)).dtype, DataType::Int);
}

#[test]
fn errors_have_positions_and_never_panic() {
    for bad in [
        "",
        "netcdf",
        "netcdf a {",
        "netcdf a { dimensions: x = ; }",
        "netcdf a { variables: int v(y) ; }",
        "netcdf a { data: v = 1 ; }",
        "netcdf a {\n :a = \"unterminated ; }",
        "netcdf a { dimensions: x = -1 ; }",
        "netcdf a { variables: int v ; v:a = _ ; }",
        "netcdf a { variables: int v ; data: v = {1} ; }",
    ] {
        let e = parse(bad).unwrap_err();
        assert!(!e.to_string().is_empty());
    }
}

#[test]
fn deep_nesting_and_long_strings_are_bounded() {
    let deep = format!(
        "netcdf a {{ variables: int v ; data: v = {}1{} ; }}",
        "{".repeat(100_000),
        "}".repeat(100_000)
    );
    assert!(parse(&deep).is_err());
    let long = format!(
        "netcdf a {{ variables: float v ; data: v = \"{}\" ; }}",
        "1".repeat(1_000_000)
    );
    assert!(parse(&long).is_ok());
    let utf = "netcdf a { variables: int v ; data: v = \"ééééééééééééééééééééééééééééééééééééééééééé\" ; }";
    assert!(parse(utf).is_ok());
}
