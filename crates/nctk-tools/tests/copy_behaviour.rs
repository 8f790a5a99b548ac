//! `nctk copy` behaviour: safe output, streaming in bounded slabs, record
//! order, nccopy's option semantics and refusals.

mod copy_support;

use std::path::Path;
use std::process::Command;

use copy_support::{entries, kind, sample, watched};
use nctk::Format;
use nctk_classic::{ClassicWriter, FillMode, Version};
use nctk_model::{DataSource, DataType, GroupId, Schema, Selection};
use nctk_tools::copy::{copy, copy_source, CopyError, CopyOptions, NoProgress, VarList};

#[test]
fn failing_midway_leaves_the_old_output_and_no_temporary() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.nc");
    let out = dir.path().join("out.nc");
    sample(&input, Version::Cdf1, None);
    std::fs::write(&out, b"old bytes").unwrap();
    let src = watched(&input, Some(4));
    let err = copy_source(&src, &out, &kind(Format::Offset64), &mut NoProgress).unwrap_err();
    assert!(
        matches!(err, CopyError::Read { ref var, .. } if var == "t"),
        "{err}"
    );
    assert!(err.to_string().contains("injected failure"), "{err}");
    assert_eq!(std::fs::read(&out).unwrap(), b"old bytes");
    assert_eq!(entries(dir.path()), ["in.nc", "out.nc"]);
}

#[test]
fn a_variable_that_does_not_fit_names_itself_and_leaves_the_output() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in5.nc");
    let out = dir.path().join("out.nc");
    sample(&input, Version::Cdf5, Some(DataType::UInt));
    std::fs::write(&out, b"old bytes").unwrap();
    for k in [Format::Classic, Format::Offset64] {
        let err = copy(&input, &out, &kind(k), &mut NoProgress).unwrap_err();
        let msg = err.to_string();
        assert!(matches!(err, CopyError::DoesNotFit { .. }), "{msg}");
        assert!(
            msg.contains("variable \"u\"") && msg.contains("uint"),
            "{msg}"
        );
    }
    assert_eq!(std::fs::read(&out).unwrap(), b"old bytes");
    assert_eq!(entries(dir.path()), ["in5.nc", "out.nc"]);
    // It fits CDF-5.
    copy(&input, &out, &kind(Format::Cdf5), &mut NoProgress).unwrap();
}

#[test]
fn a_variable_too_large_for_cdf1_names_itself() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("big.nc");
    let out = dir.path().join("out.nc");
    // Two 3 GB variables: fine in CDF-2 (sparse file), too large for CDF-1.
    let mut s = Schema::new();
    let x = s.add_dim(GroupId::ROOT, "x", 750_000_000, false).unwrap();
    s.add_var(GroupId::ROOT, "a", DataType::Float, &[x])
        .unwrap();
    s.add_var(GroupId::ROOT, "b", DataType::Float, &[x])
        .unwrap();
    ClassicWriter::create_in_with_schema(
        std::sync::Arc::new(nctk_store::bytes::FileSink::create(&input).unwrap()),
        &s,
        Version::Cdf2,
        FillMode::NoFill,
    )
    .unwrap()
    .close()
    .unwrap();
    std::fs::write(&out, b"old bytes").unwrap();
    let err = copy(&input, &out, &kind(Format::Classic), &mut NoProgress).unwrap_err();
    let msg = err.to_string();
    assert!(
        msg.contains("variable \"b\"") || msg.contains("variable \"a\""),
        "{msg}"
    );
    assert_eq!(std::fs::read(&out).unwrap(), b"old bytes");
    assert_eq!(entries(dir.path()), ["big.nc", "out.nc"]);
}

#[test]
fn slabs_stay_within_the_buffer_and_records_interleave() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.nc");
    sample(&input, Version::Cdf1, None);
    let src = watched(&input, None);
    let opts = CopyOptions {
        buffer_size: 12, // three floats, three ints, six shorts
        ..CopyOptions::default()
    };
    copy_source(&src, dir.path().join("out.nc"), &opts, &mut NoProgress).unwrap();
    let reads = src.reads.lock().unwrap();
    let schema = src.schema();
    for (v, sel) in reads.iter() {
        let size = schema.var(*v).dtype.size().unwrap() as u64;
        assert!(sel.num_elements().unwrap() * size <= 12, "{sel:?}");
    }
    // Fixed variable first, then record by record across t and n.
    let order: Vec<(String, u64)> = reads
        .iter()
        .map(|(v, sel)| {
            (
                schema.var(*v).name.clone(),
                sel.start.first().copied().unwrap_or(0),
            )
        })
        .collect();
    assert_eq!(order[0].0, "s");
    let recs: Vec<&(String, u64)> = order.iter().filter(|(n, _)| n != "s").collect();
    let mut expect = vec![];
    for r in 0..5u64 {
        // t: 7 floats per record in slabs of 3 -> 3 reads; n: 1 read.
        expect.extend(std::iter::repeat_n(("t".to_string(), r), 3));
        expect.push(("n".to_string(), r));
    }
    assert_eq!(recs.into_iter().cloned().collect::<Vec<_>>(), expect);
    // And the data arrived.
    let a = nctk::open(&input).unwrap();
    let b = nctk::open(dir.path().join("out.nc")).unwrap();
    for name in ["s", "t", "n"] {
        let va = a.variable(name).unwrap();
        let vb = b.variable(name).unwrap();
        let all = Selection::all(&va.shape());
        assert_eq!(
            a.source().read(va.id(), &all).unwrap(),
            b.source().read(vb.id(), &all).unwrap()
        );
    }
}

#[test]
fn in_memory_input_and_output_give_the_same_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.nc");
    sample(&input, Version::Cdf2, None);
    let plain = dir.path().join("plain.nc");
    let mem = dir.path().join("mem.nc");
    copy(&input, &plain, &kind(Format::Cdf5), &mut NoProgress).unwrap();
    let opts = CopyOptions {
        read_in_memory: true,
        write_in_memory: true,
        ..kind(Format::Cdf5)
    };
    copy(&input, &mem, &opts, &mut NoProgress).unwrap();
    assert_eq!(std::fs::read(&plain).unwrap(), std::fs::read(&mem).unwrap());
}

#[test]
fn netcdf4_outputs_are_written_and_netcdf4_flags_ignored_for_classic() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.nc");
    let out = dir.path().join("out.nc");
    sample(&input, Version::Cdf1, None);
    let format_of = |opts: CopyOptions| {
        copy(&input, &out, &opts, &mut NoProgress).unwrap();
        let format = nctk::open(&out).unwrap().format();
        std::fs::remove_file(&out).unwrap();
        format
    };
    // netCDF-4 (HDF5) is written, and its classic model.
    assert_eq!(format_of(kind(Format::Netcdf4)), Format::Netcdf4);
    assert_eq!(
        format_of(kind(Format::Netcdf4Classic)),
        Format::Netcdf4Classic
    );
    // -d 5 with no -k: the netCDF-4 classic model, as nccopy writes.
    let deflated = CopyOptions {
        deflate: Some(5),
        ..CopyOptions::default()
    };
    assert_eq!(format_of(deflated), Format::Netcdf4Classic);
    // -F with no -k: netCDF-4, the filter applied.
    let opts = CopyOptions {
        filters: vec!["t,1,5".into()],
        ..CopyOptions::default()
    };
    assert_eq!(format_of(opts), Format::Netcdf4);
    // With a classic kind they are checked, then ignored.
    let opts = CopyOptions {
        deflate: Some(5),
        shuffle: true,
        chunkspecs: vec!["x/2".into(), "t:1,7".into()],
        ..kind(Format::Classic)
    };
    copy(&input, &out, &opts, &mut NoProgress).unwrap();
    let bad = CopyOptions {
        chunkspecs: vec!["nodim/2".into()],
        ..kind(Format::Classic)
    };
    let err = copy(&input, &out, &bad, &mut NoProgress).unwrap_err();
    assert!(err.to_string().contains("nodim"), "{err}");
}

#[test]
fn option_errors_read_like_nccopy() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.nc");
    sample(&input, Version::Cdf1, None);
    let out = dir.path().join("out.nc");
    let opts = CopyOptions {
        vars: Some(VarList {
            names: vec!["nothere".into()],
            definitions_too: false,
        }),
        ..CopyOptions::default()
    };
    assert_eq!(
        copy(&input, &out, &opts, &mut NoProgress)
            .unwrap_err()
            .to_string(),
        "nothere: No such variable"
    );
    assert_eq!(
        copy(&input, &input, &CopyOptions::default(), &mut NoProgress)
            .unwrap_err()
            .to_string(),
        "output would overwrite input"
    );
    let opts = CopyOptions {
        groups: Some(nctk_tools::copy::GroupList {
            names: vec!["g".into()],
            definitions_too: false,
        }),
        ..CopyOptions::default()
    };
    assert_eq!(
        copy(&input, &out, &opts, &mut NoProgress)
            .unwrap_err()
            .to_string(),
        "Group list (-g ...) only permitted for netCDF-4 file"
    );
    assert!(!out.exists());
}

/// The file `nccopy args input output` writes; `None` (after
/// `nctk_test_support::require`) when nccopy is absent.
fn nccopy(args: &[&str], input: &Path, output: &Path) -> Option<Vec<u8>> {
    if !nctk_test_support::require::tools(&["nccopy"]) {
        return None;
    }
    nctk_test_support::peer::output(Command::new("nccopy").args(args).arg(input).arg(output))
        .unwrap_or_else(|e| panic!("nccopy {args:?}: {e}"));
    Some(std::fs::read(output).unwrap())
}

#[test]
fn option_semantics_match_nccopy_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.nc");
    sample(&input, Version::Cdf1, None);
    let cases: Vec<(Vec<&str>, CopyOptions)> = vec![
        (vec![], CopyOptions::default()),
        (
            vec!["-v", "t"],
            CopyOptions {
                vars: Some(VarList {
                    names: vec!["t".into()],
                    definitions_too: false,
                }),
                ..CopyOptions::default()
            },
        ),
        (
            vec!["-V", "t,s"],
            CopyOptions {
                vars: Some(VarList {
                    names: vec!["t".into(), "s".into()],
                    definitions_too: true,
                }),
                ..CopyOptions::default()
            },
        ),
        (
            vec!["-u", "-k", "nc6"],
            CopyOptions {
                fix_unlimited: true,
                ..kind(Format::Offset64)
            },
        ),
        (
            vec!["-m", "10", "-k", "nc5"],
            CopyOptions {
                buffer_size: 10,
                ..kind(Format::Cdf5)
            },
        ),
    ];
    for (i, (args, opts)) in cases.into_iter().enumerate() {
        let ours = dir.path().join(format!("{i}.n.nc"));
        copy(&input, &ours, &opts, &mut NoProgress).unwrap();
        let Some(theirs) = nccopy(&args, &input, &dir.path().join(format!("{i}.c.nc"))) else {
            return;
        };
        assert_eq!(std::fs::read(&ours).unwrap(), theirs, "nccopy {args:?}");
    }
}

#[test]
fn fill_flag_prefills_what_is_not_copied() {
    // nccopy -Xf (netCDF-C 4.9.1+): without it, data left out by -v reads as
    // zeros (no fill, as nccopy); with it, as the fill value.
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.nc");
    sample(&input, Version::Cdf1, None);
    let only_n = |fill| CopyOptions {
        fill,
        vars: Some(VarList {
            names: vec!["n".into()],
            definitions_too: false,
        }),
        ..CopyOptions::default()
    };
    for (fill, want) in [(false, 0i16), (true, -32767)] {
        let out = dir.path().join(format!("{fill}.nc"));
        copy(&input, &out, &only_n(fill), &mut NoProgress).unwrap();
        let ds = nctk::open(&out).unwrap();
        let s: Vec<i16> = ds.variable("s").unwrap().get_values(..).unwrap();
        assert_eq!(s, vec![want; 7]);
    }
}
