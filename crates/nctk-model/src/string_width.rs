//! Bytes per element of NCZarr `string` variables, as netCDF-C sets them.
//!
//! netCDF-C stores a `string` variable as fixed-width bytes (`|S<n>`). The
//! width is the variable's `_nczarr_maxstrlen` attribute, else the root
//! group's `_nczarr_default_maxstrlen`, else 128. Both are ordinary
//! attributes to netCDF-C (they are stored in `.zattrs` with type `<i4`,
//! `ncattrs()` and `ncdump` show them, `ncgen` takes them from CDL), and a
//! string longer than a width they set is truncated to it when written.

use crate::{convert::convert, Attribute, DataType, GroupId, Schema, Values, VarId};

/// netCDF-C's width when no attribute sets one.
pub const DEFAULT_MAX_STRLEN: usize = 128;

/// The variable attribute that sets its width.
pub const VAR_WIDTH_ATTR: &str = "_nczarr_maxstrlen";

/// The root-group attribute that sets the width of every string variable
/// without its own.
pub const DEFAULT_WIDTH_ATTR: &str = "_nczarr_default_maxstrlen";

/// True for the two width attributes: NCZarr names that netCDF-C shows and
/// copies like any user attribute.
pub fn is_width_attribute(name: &str) -> bool {
    name == VAR_WIDTH_ATTR || name == DEFAULT_WIDTH_ATTR
}

/// The width set by attribute `name` among `attrs`: its first value, when
/// it is a whole number of at least 1.
pub fn width_from(attrs: &[Attribute], name: &str) -> Option<usize> {
    let a = attrs.iter().find(|a| a.name == name)?;
    match convert(&a.value, DataType::Int64).ok()? {
        Values::Int64(v) => v.first().and_then(|&n| usize::try_from(n).ok()),
        _ => None,
    }
    .filter(|&n| n >= 1)
}

/// The width netCDF-C's attributes set for string variable `v`: its own
/// `_nczarr_maxstrlen`, else the root group's `_nczarr_default_maxstrlen`;
/// `None` when neither does (the width is then 128 unless the writer is
/// told otherwise).
pub fn width_set_by_attributes(schema: &Schema, v: VarId) -> Option<usize> {
    width_from(&schema.var(v).attributes, VAR_WIDTH_ATTR).or_else(|| default_width(schema))
}

/// The width the root group's `_nczarr_default_maxstrlen` sets, if any.
pub fn default_width(schema: &Schema) -> Option<usize> {
    width_from(&schema.group(GroupId::ROOT).attributes, DEFAULT_WIDTH_ATTR)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn attr(name: &str, value: Values) -> Attribute {
        Attribute::new(name, value)
    }

    #[test]
    fn widths_from_attributes() {
        let attrs = [
            attr(VAR_WIDTH_ATTR, Values::Int(vec![4])),
            attr(DEFAULT_WIDTH_ATTR, Values::Short(vec![0])),
            attr("other", Values::text("x")),
        ];
        assert_eq!(width_from(&attrs, VAR_WIDTH_ATTR), Some(4));
        assert_eq!(
            width_from(&attrs, DEFAULT_WIDTH_ATTR),
            None,
            "0 sets nothing"
        );
        assert_eq!(width_from(&attrs, "other"), None);
        assert_eq!(width_from(&attrs, "absent"), None);
        assert!(is_width_attribute(VAR_WIDTH_ATTR) && !is_width_attribute("_nczarr_attr"));
    }
}
