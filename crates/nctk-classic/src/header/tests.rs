#[test]
fn spec_example() {}
