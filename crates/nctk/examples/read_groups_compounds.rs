//! Reads a netCDF-4 file's groups, user-defined types and compound values:
//! `cargo run -p nctk --example read_groups_compounds -- [FILE.nc]`
//! (by default the repository's `samples/enhanced.nc`).

use nctk::model::{DataType, Selection, UserTypeKind, Values};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args().nth(1).unwrap_or_else(|| {
        concat!(env!("CARGO_MANIFEST_DIR"), "/../../samples/enhanced.nc").to_string()
    });
    let ds = nctk::open(&path)?;
    println!("{path}: {}", ds.format().name());
    walk(ds.root(), 0);

    // Compound values come field by field (netCDF-C's struct layout is
    // not assumed): here `obs(station)` of `obs_t {temp, depth(2), site}`.
    let schema = ds.schema();
    for v in ds.variables() {
        let DataType::User(t) = v.dtype() else {
            continue;
        };
        let ty = schema.user_type(t);
        if let UserTypeKind::Compound { fields, .. } = &ty.kind {
            let values = v.read_values(&Selection::all(&v.shape()))?;
            if let Values::Compound {
                len,
                fields: columns,
            } = values
            {
                println!("{} ({}, {len} values):", v.name(), ty.name);
                for (field, column) in fields.iter().zip(&columns) {
                    println!("  {} = {column:?}", field.name);
                }
            }
        }
    }
    Ok(())
}

/// Prints a group's dimensions and variables, then its subgroups.
fn walk(group: nctk::Group<'_>, depth: usize) {
    let pad = "  ".repeat(depth);
    println!("{pad}group {}", group.path());
    for d in group.dimensions() {
        println!("{pad}  dimension {} = {}", d.name(), d.len());
    }
    for v in group.variables() {
        println!("{pad}  variable {} {:?}", v.name(), v.dimension_names());
    }
    for g in group.groups() {
        walk(g, depth + 1);
    }
}
