//! The compiler from join-aggregate queries to incremental view maintenance
//! code.
//!
//! A query flows one way through the stages, one module each:
//!
//! | stage | module | what it holds |
//! |---|---|---|
//! | parse | [`syntax`] | the syntax tree with spans, from tokens or text |
//! | check | [`syntax::check`] | [`query::Query`]: names resolved, variables typed |
//! | analyse | [`analysis`] | classes, witnesses, width, variable orders, join trees |
//! | plan | [`plan`] | the verdict (strategy and bounds), the typed [`plan::Plan`] it chooses or the [`plan::Rejection`] (spanned at the witness's atoms), and [`plan::lower`]: one planner per strategy lowering to the IR |
//! | lower | [`ir`] | the maintenance IR: maps, triggers, how the result is read |
//! | emit | [`emit`] | the one emitter: IR in, Rust tokens out |
//! | explain | [`explain`] | `ivmc explain` output, human and JSON |
//!
//! [`pipeline`] runs the stages up to the plan ([`pipeline::Report`]) and
//! lowers a report to the IR ([`pipeline::lower`]); [`driver`] runs it for
//! the `ivm_query!` macro, `build.rs` ([`build`]) and `ivmc compile`, and
//! [`explain`] renders its reports. `docs/architecture.md` in the
//! repository ties the stages together and says how to add a strategy, an
//! IR construct or a semiring.
//!
//! The planners: view trees
//! ([`plan::view_tree`]), the first-order delta ([`plan::first_order`]),
//! IVMε and factorized IVM for the triangle count ([`plan::triangle`]), and
//! under inserts only the two layers ([`plan::two_layer`]), CROWN
//! ([`plan::crown`]) and the max-max clusters ([`plan::cluster_crown`]) over
//! one insert-only top join ([`plan::top_join`]). The classes and verdicts
//! follow `docs/design.md` (sections *Classes of queries* and *Verdicts and
//! strategies*) and the papers behind them, listed under its *References*:
//! F-IVM and q-hierarchical queries, p-hierarchical queries under inserts
//! (*The Role of Semirings in Incremental View Maintenance*), strong-connex
//! queries and strictly monotone semirings (*Answering Conjunctive Queries
//! with Aggregations under Updates*), IVMε for the triangle count
//! (*Counting Triangles under Updates in Worst-Case Optimal Time*, by Kara,
//! Ngo, Nikolic, Olteanu and Zhang).
//!
//! ```
//! let reports = ivm_compiler::pipeline::report_str(
//!     "query Q { relation S(x: u32, y: u32); relation T(y: u32); Q(x) = S(x, y) * T(y); }",
//! )
//! .unwrap();
//! let r = &reports[0];
//! assert!(r.analysis.hierarchical.is_ok());
//! assert!(r.analysis.q_hierarchical.is_err()); // a q-core: y dominates x
//! assert!(!r.verdict.tractable());
//! ```

#![forbid(unsafe_code)]

pub mod analysis;
pub mod build;
pub mod diagnostic;
pub mod driver;
pub mod emit;
pub mod explain;
pub mod ir;
pub mod pipeline;
pub mod plan;
pub mod query;
pub mod semiring;
pub mod sql;
pub mod syntax;
pub mod tuple;
