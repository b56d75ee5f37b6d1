//! mpf (stub).
