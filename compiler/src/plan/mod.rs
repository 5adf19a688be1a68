//! Planning: choosing the maintenance strategy (the verdict of DESIGN
//! section 6) and, as strategies land, building the plan each one lowers to
//! the IR.

pub mod verdict;

pub use verdict::{Verdict, decide};
