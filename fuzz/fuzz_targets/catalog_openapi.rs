//! The `openapi` importer of `itc catalog import` (`build::catalog`), with
//! validation, de-duplication and ids; invariants in
//! [`itc_fuzz::check_catalog`].
#![no_main]

use itc::build::catalog::Format;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| itc_fuzz::check_catalog(Format::Openapi, data));
