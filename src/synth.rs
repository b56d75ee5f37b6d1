//! Synthetic benchmark inputs: many tasks and many models' predictions of
//! mixed kinds and answer styles, for measuring scoring throughput.
