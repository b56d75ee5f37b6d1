//! Which itc this is: the crate's version and the git commit it was built
//! from (`build.rs` finds it), as `itc --version` and every manifest name them.

/// The crate's version (`Cargo.toml`).
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The git commit the binary was built from (12 hex digits), or `unknown`
/// for a build outside a git checkout without `ITC_GIT_COMMIT` set.
pub const COMMIT: &str = env!("ITC_GIT_COMMIT");

/// `VERSION (commit COMMIT)`, as `itc --version` prints it.
pub const LONG_VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (commit ",
    env!("ITC_GIT_COMMIT"),
    ")"
);
