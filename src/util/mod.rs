//! Small helpers every stage uses: SHA-256 in hex, the async runtime, slugs,
//! terminal tables, TOML files with readable errors, files written whole or
//! not at all, CSV text cells a spreadsheet will not run, scratch memory kept
//! in mapped files, bounded copies of unbounded things for messages, a lock
//! for folders with one writer, UTC dates, the data files compiled into the
//! binary, files opened only when they are regular files, and the loopback
//! HTTP server that the benchmarks and the tests answer with, and items
//! grouped by the keys they share.
//!
//! `util` uses nothing of the crate; everything may use it.

pub mod atomic;
pub mod bounded;
pub mod csv_cell;
pub mod embedded;
pub mod hash;
pub mod lines;
pub mod linked;
pub mod lock;
pub mod loopback;
pub mod regular;
pub mod runtime;
pub mod scratch;
pub mod slug;
pub mod table;
pub mod time;
pub mod toml_file;
pub mod version;
