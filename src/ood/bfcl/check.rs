//! The official AST checker: simple, multiple and order-free parallel.
