//! tree-sitter-python trees as the APIBench official scorer reads them
//! (`benchmarks::python::parse`), and its extraction of the call text from a
//! response (`benchmarks::apibench::extract_api_call`).
//!
//! Invariants: every node lies inside the source and inside its parent,
//! children in order without overlap. A text past the parse budget gives no tree.
#![no_main]

use itc::benchmarks::Hub;
use itc::benchmarks::apibench::extract_api_call;
use itc::benchmarks::python::parse::{Node, parse};
use itc_fuzz::text;
use libfuzzer_sys::fuzz_target;

fn check_node(node: &Node, len: usize) {
    assert!(
        node.start <= node.end && node.end <= len,
        "{} outside the source",
        node.kind
    );
    let mut at = node.start;
    for child in &node.children {
        assert!(
            child.start >= at,
            "{} overlaps or precedes its sibling",
            child.kind
        );
        assert!(
            child.end <= node.end,
            "{} outside {}",
            child.kind,
            node.kind
        );
        at = child.end;
        check_node(child, len);
    }
}

fn check(source: &str) {
    // None: tree-sitter ran out of its time budget (runaway error recovery).
    let Some(tree) = parse(source) else { return };
    check_node(&tree, source.len());
    assert!(tree.to_sexp().starts_with('('));
}

fuzz_target!(|data: &[u8]| {
    let input = text(data);
    check(&input);
    for hub in [Hub::Huggingface, Hub::Tensorflowhub, Hub::Torchhub] {
        if let Some(call) = extract_api_call(&input, hub) {
            check(&call);
        }
    }
});
