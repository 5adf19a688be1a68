//! `ivmc explain`: what the compiler concludes about each query, for people
//! (indented text with the plan drawn as a tree) and for tools (one JSON
//! object per line).

mod json;
mod text;
mod tree;

pub use json::to_json;
pub use text::to_text;

use crate::analysis::{self, Analysis, Hypergraph};
use crate::plan::verdict::{self, Setting, Verdict};
use crate::plan::{self, Plan, Rejection};
use crate::query::Query;
use crate::syntax;

/// A checked query with its analysis, verdict and plan.
#[derive(Debug, Clone)]
pub struct Report {
    /// The checked query.
    pub query: Query,
    /// What the analysis found.
    pub analysis: Analysis,
    /// The strategy chosen, or the rejection, with the bounds and the
    /// reasons.
    pub verdict: Verdict,
    /// What will be built, or why nothing is.
    pub plan: Result<Plan, Rejection>,
}

/// Analyses and plans one checked query.
pub fn report(query: Query) -> Report {
    let analysis = analysis::analyse(&Hypergraph::of(&query));
    let verdict = verdict::decide(
        &analysis,
        Setting {
            semiring: &query.semiring.class,
            semiring_name: &query.semiring.name,
            updates: query.updates,
            forced: query.strategy.map(|s| s.strategy),
            allow_intractable: query.allow_intractable,
        },
    );
    let plan = plan::plan(&query, &analysis, &verdict);
    Report {
        query,
        analysis,
        verdict,
        plan,
    }
}

/// Parses, checks, analyses and plans every query in `text`.
pub fn explain_str(text: &str) -> syn::Result<Vec<Report>> {
    let file = syntax::parse_str(text)?;
    let queries = syntax::check(&file)?;
    Ok(queries.into_iter().map(report).collect())
}
