//! Small helpers every stage uses: SHA-256 in hex, the async runtime, slugs,
//! terminal tables, and the loopback HTTP server that the benchmarks and the
//! tests answer with.
//!
//! `util` uses nothing of the crate; everything may use it.

pub mod hash;
pub mod loopback;
pub mod runtime;
pub mod slug;
pub mod table;
