//! Planning: the verdict (`docs/design.md#verdicts-and-strategies`,
//! [`verdict`]), the typed [`Plan`] it chooses (or the [`Rejection`] it ends
//! in), and the lowering of each plan to the IR, one planner per strategy.
//!
//! [`plan`] turns a verdict into the structure its strategy is built from
//! (the variable order, the subqueries, the join tree, the clusters, the
//! triangle), so that `explain` draws what will be built and [`lower`] is
//! the one place that sends each kind of plan to its planner.

pub mod cluster_crown;
pub mod crown;
pub mod first_order;
pub mod generic_join;
pub mod names;
mod nullary;
pub mod partition;
pub mod range_join;
pub mod recompute;
pub mod semijoin;
mod skeleton;
pub mod storage;
pub mod top_join;
pub mod triangle;
pub mod two_layer;
pub mod verdict;
pub mod view_tree;

pub use skeleton::skeleton;

pub use verdict::{Accepted, Rejected, Verdict, decide};

use proc_macro2::{Ident, Span, TokenStream, TokenTree};

use crate::analysis::acyclicity::gyo;
use crate::analysis::decomposition::{self, Subquery};
use crate::analysis::hypergraph::members;
use crate::analysis::{Analysis, InequalityJoin, JoinTree, Mask, Triangle, VariableOrder};
use crate::ir::{AtomPath, Draft, PathBody, Program, Trigger};
use crate::query::{Query, Strategy, UpdateModel};

/// What will be built for a query: the strategy the verdict chose, with the
/// part of the analysis it is built from.
#[derive(Debug, Clone)]
pub enum Plan {
    /// An F-IVM view tree over a free-top variable order: the canonical
    /// one, or (for a query without one) a general one.
    ViewTree {
        /// The variable order.
        order: VariableOrder,
        /// Whether it is a general order: the query has no canonical one.
        general: bool,
    },
    /// Two layers: a view tree per free-dominated subquery (over the
    /// semiring), and the insert-only join of their supports on top
    /// (materialized with worst-case-optimal delta joins when `cyclic`).
    TwoLayer {
        /// The subqueries, each with its variable order.
        subqueries: Vec<Subquery>,
        /// Whether the supports' keys form a cyclic hypergraph.
        cyclic: bool,
    },
    /// CROWN over a free-connex join tree rooted at the head.
    Crown(JoinTree),
    /// Max-max: per cluster (atoms connected through summed-out
    /// variables), which tuples take part in a full result and the best
    /// payload among them, and a Boolean CROWN over the clusters on top.
    ClusterCrown(Vec<Mask>),
    /// The triangle count: IVMε with exponent `eps`, or the factorized
    /// baseline when `eps` is `None`.
    Triangle {
        /// The triangle's atoms and variables.
        triangle: Triangle,
        /// IVMε's partition exponent; `None` for the factorized baseline.
        eps: Option<f64>,
        /// One relation in all three roles, in one orientation (IVMε
        /// only): one partitioned copy and one view.
        cycle: bool,
    },
    /// First-order deltas: each update joins its tuple with the other
    /// atoms.
    FirstOrder,
    /// Recomputation from the base relations when the result is read.
    Recompute,
    /// The two-atom inequality join over range-sum tries.
    RangeJoin(InequalityJoin),
}

/// Why a query gets no code: the message, and where it points.
#[derive(Debug, Clone)]
pub struct Rejection {
    /// What is wrong, the witness, the lower bound and what to do.
    pub message: String,
    /// Where the error points: the `#[strategy(...)]` attribute that does
    /// not apply; else the first and the last atom (or theta factor) of
    /// the witness; else the query's name.
    pub span: (Span, Span),
}

impl Rejection {
    /// The error of a query the verdict rejects: the reason, the witness,
    /// the lower bound where the rejection rests on one, and the hint.
    pub fn of(query: &Query, rejected: &Rejected) -> Rejection {
        let mut message = format!(
            "{} cannot be maintained efficiently: {}",
            query.dialect.subject(&query.name),
            rejected.reason
        );
        message.push_str(&format!("\n  witness: {}", rejected.witness));
        if let Some(bound) = rejected.lower_bound() {
            let updates = match query.updates {
                UpdateModel::InsertDelete => "inserts and deletes",
                UpdateModel::InsertOnly => "inserts only",
            };
            message.push_str(&format!(
                "\n  lower bound: {bound} (under {updates} over `{}`; {})",
                query.semiring.name, rejected.source
            ));
        }
        message.push_str(&format!("\n  help: {}", rejected.hint));
        Rejection {
            message,
            span: rejection_span(query, rejected),
        }
    }

    /// The compile error, over the range of `span`.
    pub fn to_error(&self) -> syn::Error {
        let (start, end) = self.span;
        // An error spans from its first token to its last: two tokens give
        // the range from the first witness atom to the last.
        let range: TokenStream = [start, end]
            .into_iter()
            .map(|span| TokenTree::Ident(Ident::new("witness", span)))
            .collect();
        syn::Error::new_spanned(range, &self.message)
    }
}

/// The plan of a query with its verdict, or why there is none: the
/// verdict's rejection as an error ([`Rejection::of`]).
pub fn plan(query: &Query, analysis: &Analysis, verdict: &Verdict) -> Result<Plan, Rejection> {
    let strategy = match verdict {
        Verdict::Accepted(accepted) => accepted.strategy,
        Verdict::Rejected(rejected) => return Err(Rejection::of(query, rejected)),
    };
    let missing = |what: &str| Rejection {
        message: format!(
            "internal error: the `{}` strategy was chosen for query `{}`, which has no {what}",
            strategy.keyword(),
            query.name
        ),
        span: (query.span, query.span),
    };
    let hg = &analysis.hypergraph;
    Ok(match strategy {
        Strategy::ViewTree => match (&analysis.variable_order, &analysis.general_order) {
            (Some(order), _) => Plan::ViewTree {
                order: order.clone(),
                general: false,
            },
            (None, Some(order)) => Plan::ViewTree {
                order: order.clone(),
                general: true,
            },
            (None, None) => return Err(missing("variable order")),
        },
        Strategy::TwoLayer => {
            let subqueries = analysis
                .decomposition
                .clone()
                .ok_or_else(|| missing("decomposition into free-dominated subqueries"))?;
            // The top join's relations are the subqueries' supports, keyed
            // by their free variables.
            let keys: Vec<Mask> = subqueries.iter().map(|s| s.free).collect();
            let cyclic = !gyo(&keys).is_acyclic();
            Plan::TwoLayer { subqueries, cyclic }
        }
        Strategy::Crown => Plan::Crown(
            analysis
                .join_tree
                .clone()
                .ok_or_else(|| missing("free-connex join tree"))?,
        ),
        Strategy::ClusterCrown => Plan::ClusterCrown(decomposition::clusters(hg)),
        Strategy::IvmEps { eps } => {
            let triangle = analysis.triangle.ok_or_else(|| missing("triangle"))?;
            Plan::Triangle {
                triangle,
                eps: Some(eps),
                cycle: triangle::is_cycle(query, &triangle),
            }
        }
        Strategy::Factorized => Plan::Triangle {
            triangle: analysis.triangle.ok_or_else(|| missing("triangle"))?,
            eps: None,
            cycle: false,
        },
        Strategy::FirstOrder => Plan::FirstOrder,
        Strategy::Recompute => Plan::Recompute,
        Strategy::RangeJoin => Plan::RangeJoin(
            analysis
                .inequality_join
                .ok_or_else(|| missing("inequality join"))?,
        ),
    })
}

/// The plan lowered to the IR by its strategy's planner, with the
/// programs of its semijoins' bodies and domains (lowered before, in the
/// order of `query.semijoins`) attached ([`semijoin`]), and what no code
/// reads back dropped ([`storage`]). An error only where a planner meets
/// a shape the verdict should have ruled out.
pub fn lower(
    query: &Query,
    plan: &Plan,
    verdict: &Verdict,
    partition: &partition::Partition,
    semijoins: Vec<semijoin::Parts>,
) -> Result<Program, syn::Error> {
    let internal = |what: &str| {
        syn::Error::new(
            query.span,
            format!("internal error: {what} (query `{}`)", query.name),
        )
    };
    let mut program = match plan {
        Plan::ViewTree { order, .. } => view_tree::lower(query, order, verdict),
        Plan::TwoLayer { subqueries, cyclic } => {
            two_layer::lower(query, subqueries, *cyclic, verdict)
                .ok_or_else(|| internal("the subqueries' supports have no join tree"))?
        }
        Plan::Crown(tree) => crown::lower(query, tree, verdict)
            .ok_or_else(|| internal("CROWN's top join has no join tree"))?,
        Plan::ClusterCrown(clusters) => cluster_crown::lower(query, clusters, verdict)
            .ok_or_else(|| internal("a cluster or the top join has no join tree"))?,
        Plan::Triangle {
            triangle,
            eps,
            cycle,
        } => triangle::lower(query, triangle, *eps, *cycle, verdict),
        Plan::FirstOrder => first_order::lower(query, verdict),
        Plan::RangeJoin(join) => range_join::lower(query, join, verdict),
        Plan::Recompute => recompute::lower(query, verdict),
    };
    feed_derived_relations(&mut program);
    partition::assign(&mut program, partition);
    semijoin::attach(&mut program, query, semijoins);
    storage::keep_only_what_is_read(
        &mut program,
        query.semiring.catalogue && query.semiring.name == "Bool",
    );
    storage::keep_in_triangle(
        &mut program,
        query.semiring.catalogue && query.semiring.class.ring,
    );
    crate::ir::verify(&program).map_err(|broken| internal(&broken))?;
    Ok(program)
}

/// Each derived relation is fed by its source's trigger, after the
/// source's own atoms (which then read it as it was before the update, as
/// the exact delta of a self-join wants of a later atom).
fn feed_derived_relations(p: &mut Draft) {
    for d in 0..p.relations.len() {
        let Some(derived) = p.relations[d].derived() else {
            continue;
        };
        let (source, atom) = (derived.source, derived.atom);
        let path = AtomPath {
            atom,
            body: PathBody::Feed(d),
        };
        match p.triggers.iter_mut().find(|t| t.relation == source) {
            Some(trigger) => trigger.paths.push(path),
            None => p.triggers.push(Trigger {
                relation: source,
                paths: vec![path],
            }),
        }
    }
}

/// Where a rejection points: a forced strategy that does not apply, at its
/// attribute; a theta factor that the strategy cannot apply (the witness
/// is that factor alone), at the factor; a query the dichotomies rule
/// out, at the first and last atom (or theta factor) of the witness.
fn rejection_span(query: &Query, rejected: &Rejected) -> (Span, Span) {
    let whole = (query.span, query.span);
    if let verdict::Grounds::NotApplicable { .. } = rejected.grounds {
        return query
            .strategy
            .map_or(whole, |forced| (forced.span, forced.span));
    }
    let edges: Vec<usize> = members(rejected.witness_atoms).collect();
    match edges.as_slice() {
        [first, .., last] | [first @ last] => (query.edge_span(*first), query.edge_span(*last)),
        [] => whole,
    }
}
