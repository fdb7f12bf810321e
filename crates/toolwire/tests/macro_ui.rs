//! The `#[tool]` attribute's errors for misuse, checked against the messages in `tests/ui`.
//! After a deliberate change to a message, run with `TRYBUILD=overwrite` and review the diff.

#[test]
fn misuse_gets_a_clear_error() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/ui/*.rs");
}
