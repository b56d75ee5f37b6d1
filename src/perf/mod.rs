//! Performance: synthetic inputs, `itc bench scoring` (scoring throughput and
//! memory), `itc bench http` (requests per second against a loopback server)
//! and `itc bench soak` (a run killed and resumed under faults).
//!
//! Uses [`crate::models`], [`crate::score`] and [`crate::spec`].

pub mod bench;
pub mod http;
pub mod soak;
pub mod synth;
