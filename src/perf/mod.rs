//! Performance: synthetic inputs, `itc bench` (scoring throughput and memory)
//! and `itc bench-http` (requests per second against a loopback server).
//!
//! Uses [`crate::models`], [`crate::score`] and [`crate::spec`].

pub mod bench;
pub mod http;
pub mod soak;
pub mod synth;
