//! The official runner: one verdict per result line, accuracy.
