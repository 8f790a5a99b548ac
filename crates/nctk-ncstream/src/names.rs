//! netCDF-Java's full names, as ncstream's `Data.varName` and cdmremote's
//! `var=` carry them (`NetcdfFiles.makeFullName`): the group path without
//! the root, `/`-separated, each short name backslash-escaped for the
//! characters netCDF-Java reserves in a full name (`.` and `\`). A variable
//! of the root group is its escaped short name (`temperature`, not
//! `/temperature`).

use nctk_model::{GroupId, Schema, VarId};

/// The characters netCDF-Java escapes with a backslash when it puts a short
/// name into a full name (`NetcdfFiles.reservedFullName`).
const RESERVED: &[char] = &['.', '\\'];

/// `name` with a backslash before each reserved character.
pub fn escape(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        if RESERVED.contains(&c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// The full escaped name of `var` as netCDF-Java makes it: `temp` in the
/// root group, `g/sub/temp` elsewhere.
pub fn full_name(schema: &Schema, var: VarId) -> String {
    let v = schema.var(var);
    full_name_in(schema, v.group, &v.name)
}

/// The full escaped name an object called `name` in `group` has.
pub fn full_name_in(schema: &Schema, group: GroupId, name: &str) -> String {
    let mut parts = vec![escape(name)];
    let mut g = group;
    while let Some(parent) = schema.group(g).parent {
        parts.push(escape(&schema.group(g).name));
        g = parent;
    }
    parts.reverse();
    parts.join("/")
}

/// The unescaped path parts of a full name (groups, then the variable): a
/// `/` splits unless a backslash escapes it, a backslash keeps the character
/// after it as it is (netCDF-Java's `backslashUnescape`), and a leading `/`
/// (the root) is accepted. `g/a\.b` gives `["g", "a.b"]`.
pub fn parse_full_name(text: &str) -> Vec<String> {
    let text = text.strip_prefix('/').unwrap_or(text);
    let mut parts = vec![String::new()];
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                if let Some(next) = chars.next() {
                    parts.last_mut().expect("never empty").push(next);
                }
            }
            '/' => parts.push(String::new()),
            c => parts.last_mut().expect("never empty").push(c),
        }
    }
    parts
}

/// A full name as [`full_name`] writes it (escaped, no leading `/`),
/// however `text` escapes it.
pub fn canonical(text: &str) -> String {
    parse_full_name(text)
        .iter()
        .map(|p| escape(p))
        .collect::<Vec<_>>()
        .join("/")
}

/// The variable a full name (escaped, with or without the leading `/`)
/// names in `schema`, if any.
pub fn find_variable(schema: &Schema, text: &str) -> Option<VarId> {
    let mut parts = parse_full_name(text);
    let name = parts.pop()?;
    let group = parts
        .iter()
        .try_fold(GroupId::ROOT, |g, part| schema.group_by_name(g, part))?;
    schema.var_by_name(group, &name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use nctk_model::DataType;

    #[test]
    fn full_names_escape_and_find_their_variables_again() {
        let mut s = Schema::new();
        let top = s
            .add_var(GroupId::ROOT, "temperature", DataType::Float, &[])
            .unwrap();
        let g = s.add_group(GroupId::ROOT, "g.1").unwrap();
        let sub = s.add_group(g, "sub").unwrap();
        let deep = s.add_var(sub, "a\\b.c", DataType::Int, &[]).unwrap();
        // netCDF-Java: `.` and `\` escaped, no leading `/`, `/` between groups.
        assert_eq!(full_name(&s, top), "temperature");
        assert_eq!(full_name(&s, deep), "g\\.1/sub/a\\\\b\\.c");
        assert_eq!(
            parse_full_name("g\\.1/sub/a\\\\b\\.c"),
            ["g.1", "sub", "a\\b.c"]
        );
        for v in [top, deep] {
            let name = full_name(&s, v);
            assert_eq!(find_variable(&s, &name), Some(v));
            assert_eq!(find_variable(&s, &format!("/{name}")), Some(v));
        }
        assert_eq!(canonical("/g\\.1/sub/a\\\\b\\.c"), full_name(&s, deep));
        assert_eq!(canonical("/temperature"), "temperature");
        assert_eq!(find_variable(&s, "missing"), None);
        assert_eq!(find_variable(&s, "nogroup/temperature"), None);
        assert_eq!(find_variable(&s, ""), None);
    }
}
