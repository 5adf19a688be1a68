//! Planning: choosing the maintenance strategy (the verdict of DESIGN
//! section 6) and lowering the chosen strategy's plan to the IR. One
//! planner per strategy.

pub mod cluster_crown;
pub mod crown;
pub mod first_order;
pub mod generic_join;
pub mod ivm_eps;
pub mod names;
pub mod recompute;
mod skeleton;
pub mod storage;
pub mod top_join;
pub mod two_layer;
pub mod verdict;
pub mod view_tree;

pub use skeleton::skeleton;

pub use verdict::{Verdict, decide};
