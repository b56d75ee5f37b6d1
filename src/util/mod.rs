//! Small helpers every stage uses: SHA-256 in hex, the async runtime, slugs,
//! the loopback HTTP server that the benchmarks and the tests answer with,
//! and the data files compiled into the binary.
//!
//! `util` uses nothing of the crate; everything may use it.

pub mod embedded;
pub mod hash;
pub mod loopback;
pub mod runtime;
pub mod slug;
