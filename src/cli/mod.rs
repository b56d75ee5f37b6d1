//! The command line: one file a command. Each turns its clap arguments into
//! the plain options value of one library call; the library never sees clap.
//!
//! `cli` may use every other folder; nothing uses `cli` but `main.rs`.

/// Implements [`clap::ValueEnum`] for a library enum, so that the library
/// needs no clap. The enum must be in scope by its plain name:
///
/// ```ignore
/// value_enum!(Mode {
///     Prompt => "prompt": "Thought and Action in the text",
///     Native => "native",
/// });
/// ```
#[allow(unused_macros)]
macro_rules! value_enum {
    ($ty:ident { $($variant:ident => $name:literal $(: $help:literal)?),+ $(,)? }) => {
        impl clap::ValueEnum for $ty {
            fn value_variants<'a>() -> &'a [Self] {
                &[$($ty::$variant),+]
            }

            fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
                Some(match self {
                    $($ty::$variant => clap::builder::PossibleValue::new($name)$(.help($help))?),+
                })
            }
        }
    };
}
#[allow(unused_imports)]
pub(crate) use value_enum;

pub mod ood;
