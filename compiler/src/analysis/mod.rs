//! Facts about a query's hypergraph: the classes of
//! `docs/design.md#classes-of-queries` with a witness for each failed test,
//! the fractional hypertree width, and the structures strategies are planned
//! over (variable orders, the p-hierarchical decomposition, join trees).
//!
//! Everything here is a plain function over [`Hypergraph`]; nothing knows
//! about spans, semirings or strategies.

pub mod acyclicity;
pub mod decomposition;
pub mod hierarchy;
pub mod hypergraph;
pub mod keys;
pub mod shape;
pub mod variable_order;
pub mod width;

pub use acyclicity::JoinTree;
pub use decomposition::Subquery;
pub use hierarchy::{Core, NotQHierarchical, Overlap, QCore};
pub use hypergraph::{Hypergraph, Mask};
pub use shape::{InequalityJoin, Triangle};
pub use variable_order::VariableOrder;
pub use width::{Ratio, Width};

use hypergraph::bit;

/// Why a query is not α-acyclic: where the GYO reduction got stuck.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cycle {
    /// The atoms left.
    pub atoms: Mask,
    /// The variables left in them, each in at least two of them.
    pub vars: Mask,
}

/// Why an α-acyclic query is not free-connex: with one extra atom over the
/// free variables it is cyclic.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HeadCycle {
    /// The atoms left by the GYO reduction besides the head atom.
    pub atoms: Mask,
    /// The variables left.
    pub vars: Mask,
}

/// Why a query is not free-connex.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotFreeConnex {
    /// The query is not even α-acyclic.
    Cyclic(Cycle),
    /// It is α-acyclic, but adding the head atom closes a cycle.
    Head(HeadCycle),
}

/// Everything the analysis knows about one query.
#[derive(Debug, Clone, PartialEq)]
pub struct Analysis {
    /// The hypergraph analysed.
    pub hypergraph: Hypergraph,
    /// α-acyclicity, or where GYO got stuck.
    pub acyclic: Result<(), Cycle>,
    /// Free-connexity, or why not.
    pub free_connex: Result<(), NotFreeConnex>,
    /// Hierarchical, or an overlapping pair.
    pub hierarchical: Result<(), Overlap>,
    /// q-hierarchical, or why not.
    pub q_hierarchical: Result<(), NotQHierarchical>,
    /// p-hierarchical, or the core that breaks it.
    pub p_hierarchical: Result<(), Core>,
    /// The fractional hypertree width.
    pub fhtw: Width,
    /// The triangle-count shape, if the query has it.
    pub triangle: Option<Triangle>,
    /// The two-atom inequality join, if the query is one.
    pub inequality_join: Option<InequalityJoin>,
    /// The canonical free-top variable order, for q-hierarchical queries.
    pub variable_order: Option<VariableOrder>,
    /// A free-top variable order for a query that has no canonical one
    /// (`VariableOrder::general`), for the view tree of an opted-in query.
    pub general_order: Option<VariableOrder>,
    /// The free-dominated subqueries, for p-hierarchical queries.
    pub decomposition: Option<Vec<Subquery>>,
    /// A free-connex join tree (rooted at the head node) for free-connex
    /// queries.
    pub join_tree: Option<JoinTree>,
}

impl Analysis {
    /// Strong-connex: free-connex and p-hierarchical (*Answering Conjunctive
    /// Queries with Aggregations under Updates*, Lemma 3).
    pub fn strong_connex(&self) -> bool {
        self.free_connex.is_ok() && self.p_hierarchical.is_ok()
    }

    /// Whether the query contains a q-core (used by the max-max verdict).
    pub fn has_q_core(&self) -> bool {
        let hg = &self.hypergraph;
        hypergraph::members(hg.free).any(|f| {
            hypergraph::members(hg.bound()).any(|b| {
                let (af, ab) = (hg.at(f), hg.at(b));
                af & ab != 0 && !hypergraph::subset(ab, af)
            })
        })
    }
}

/// Analyses a hypergraph.
pub fn analyse(hg: &Hypergraph) -> Analysis {
    let g = acyclicity::gyo(&hg.atoms);
    let acyclic = if g.is_acyclic() {
        Ok(())
    } else {
        Err(Cycle {
            atoms: g.residual_edges(),
            vars: g.residual_vars(),
        })
    };
    let free_connex = match acyclic {
        Err(c) => Err(NotFreeConnex::Cyclic(c)),
        Ok(()) => {
            let head = acyclicity::gyo(&acyclicity::with_head(hg));
            if head.is_acyclic() {
                Ok(())
            } else {
                let head_index = hg.atoms.len();
                Err(NotFreeConnex::Head(HeadCycle {
                    atoms: head.residual_edges() & !bit(head_index),
                    vars: head.residual_vars(),
                }))
            }
        }
    };
    let q_hierarchical = hierarchy::q_hierarchical(hg);
    let p_hierarchical = hierarchy::p_hierarchical(hg);
    Analysis {
        hypergraph: hg.clone(),
        acyclic,
        free_connex,
        hierarchical: hierarchy::hierarchical(hg),
        q_hierarchical,
        p_hierarchical,
        fhtw: width::fhtw(hg),
        triangle: shape::triangle(hg),
        inequality_join: shape::inequality_join(hg),
        variable_order: q_hierarchical
            .ok()
            .and_then(|()| VariableOrder::canonical(hg)),
        general_order: q_hierarchical
            .is_err()
            .then(|| VariableOrder::general(hg))
            .flatten(),
        decomposition: p_hierarchical
            .ok()
            .and_then(|()| decomposition::decompose(hg)),
        join_tree: free_connex.ok().and_then(|()| JoinTree::free_connex(hg)),
    }
}

impl Cycle {
    /// The witness in words.
    pub fn describe(&self, hg: &Hypergraph) -> String {
        format!(
            "the GYO reduction gets stuck on {}: each of {} occurs in at least two of them and no atom is contained in another",
            quoted(&hg.label_list(self.atoms)),
            quoted(&hg.name_list(self.vars)),
        )
    }
}

impl NotFreeConnex {
    /// The atoms of the witness: those the GYO reduction got stuck on.
    pub fn atoms(&self) -> Mask {
        match self {
            NotFreeConnex::Cyclic(c) => c.atoms,
            NotFreeConnex::Head(h) => h.atoms,
        }
    }

    /// The witness in words.
    pub fn describe(&self, hg: &Hypergraph) -> String {
        match self {
            NotFreeConnex::Cyclic(c) => format!("not α-acyclic: {}", c.describe(hg)),
            NotFreeConnex::Head(h) => format!(
                "α-acyclic, but with an atom over the free variables ({}) added, the GYO reduction gets stuck on {} and that atom: the free variables are joined through summed-out {}",
                quoted(&hg.name_list(hg.free)),
                quoted(&hg.label_list(h.atoms)),
                quoted(&hg.name_list(h.vars & !hg.free)),
            ),
        }
    }
}

/// `[a, b]` becomes `` `a`, `b` ``.
fn quoted(list: &[&str]) -> String {
    list.iter()
        .map(|s| format!("`{s}`"))
        .collect::<Vec<_>>()
        .join(", ")
}
