//! The partition plan: how a query's updates are spread over the workers
//! of a sharded run (`docs/design.md#scale-out-on-timely-dataflow`).
//!
//! Pick a key variable `v`. A relation whose every atom binds `v`, at the
//! same column, is hash-partitioned on that column: its tuples with `v = a`
//! all live on worker `hash(a)`. Every other relation is replicated: every
//! worker holds all of it. A derivation of an output tuple binds `v` to one
//! value `a`; its atoms that bind `v` are on worker `hash(a)` only, and the
//! rest are everywhere, so it is computed on exactly one worker, provided
//! some relation is partitioned. The result is then the ⊕, per output
//! tuple, of the workers' results: exact over every semiring.
//!
//! The relations a semijoin's body reads are replicated, so that every
//! worker counts the body whole; a `not exists` domain reads the atom that
//! binds the correlated variables, whose local tuples are the only ones
//! the worker multiplies by the indicator.
//!
//! The key is the root of a q-hierarchical query's variable order (every
//! atom binds it), else the variable that partitions the most relations
//! (ties go to the variable that comes first). A query none of whose
//! variables partitions a relation (a relation used by several atoms at
//! different columns, as the triangle count over one edge relation is)
//! runs on one worker.

use std::fmt;

use crate::analysis::Analysis;
use crate::ir::{self, Program, RelationKind};
use crate::query::{Query, RelId, VarId};

/// How a query's updates are spread over the workers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Partition {
    /// Each derivation on one worker, by the hash of `key`.
    Sharded {
        /// The key variable.
        key: VarId,
        /// How each declared relation's updates are routed, by relation.
        routes: Vec<(RelId, Route)>,
    },
    /// One worker holds everything.
    Single(Unsharded),
}

/// Where the updates of one relation go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Route {
    /// To the worker of the hash of this column's value.
    Hash {
        /// The column, in the relation's order.
        column: usize,
    },
    /// To every worker.
    Replicate,
}

/// Why a query runs on one worker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unsharded {
    /// No variable is bound by every atom of some relation at one column:
    /// each relation would be replicated, and every worker would compute
    /// every derivation.
    NoKey,
}

/// The partition plan of `query`.
pub fn partition(query: &Query, analysis: &Analysis) -> Partition {
    let replicated = semijoin_relations(query);
    let routes_by = |v: VarId| routes(query, v, &replicated);
    let hashed = |routes: &[(RelId, Route)]| {
        routes
            .iter()
            .filter(|(_, r)| matches!(r, Route::Hash { .. }))
            .count()
    };
    let root = analysis
        .variable_order
        .as_ref()
        .and_then(|order| (order.roots.len() == 1).then(|| order.roots[0]));
    let candidates = root
        .into_iter()
        .chain(0..query.variables.len())
        .map(|v| (v, routes_by(v)))
        .filter(|(_, routes)| hashed(routes) > 0);
    // The root first, then the most relations partitioned, then the
    // first variable.
    let mut best: Option<(VarId, Vec<(RelId, Route)>)> = None;
    for (v, routes) in candidates {
        let better = match &best {
            None => true,
            Some((b, r)) => Some(*b) != root && hashed(&routes) > hashed(r),
        };
        if better {
            best = Some((v, routes));
        }
    }
    match best {
        Some((key, routes)) => Partition::Sharded { key, routes },
        None => Partition::Single(Unsharded::NoKey),
    }
}

/// The declared relations that some semijoin's body (or domain) reads,
/// by name in the outer query.
fn semijoin_relations(query: &Query) -> Vec<RelId> {
    let names: Vec<String> = query
        .semijoins
        .iter()
        .flat_map(|s| std::iter::once(&*s.body).chain(s.domain()))
        .flat_map(|q| {
            q.atoms
                .iter()
                .map(|a| q.relations[a.relation].name.to_string())
        })
        .collect();
    query
        .declared()
        .filter(|(_, r)| names.contains(&r.name.to_string()))
        .map(|(r, _)| r)
        .collect()
}

/// Each declared relation's route for key `v`.
fn routes(query: &Query, v: VarId, replicated: &[RelId]) -> Vec<(RelId, Route)> {
    query
        .declared()
        .map(|(r, _)| {
            if replicated.contains(&r) {
                return (r, Route::Replicate);
            }
            // The column each atom written over `r` binds `v` at.
            let columns: Vec<Option<usize>> = (0..query.atoms.len())
                .map(|a| query.written_columns(a))
                .filter(|(written, _)| *written == r)
                .map(|(_, args)| args.iter().position(|&x| x == Some(v)))
                .collect();
            let route = match columns.split_first() {
                Some((&Some(column), rest)) if rest.iter().all(|&c| c == Some(column)) => {
                    Route::Hash { column }
                }
                _ => Route::Replicate,
            };
            (r, route)
        })
        .collect()
}

/// Routes the updates of `p`'s declared relations by `partition`.
pub fn assign(p: &mut Program, partition: &Partition) {
    let Partition::Sharded { routes, .. } = partition else {
        return;
    };
    for &(r, route) in routes {
        if let RelationKind::Declared { route: to, .. } = &mut p.relations[r].kind {
            *to = match route {
                Route::Hash { column } => ir::Route::Hash { column },
                Route::Replicate => ir::Route::Every,
            };
        }
    }
}

impl Partition {
    /// The plan in words, as `ivmc explain` prints it: `sharded by store:
    /// Sales(store), Prices(store); replicated: Stores`.
    pub fn describe(&self, query: &Query) -> String {
        match self {
            Partition::Sharded { key, routes } => {
                let mut hashed = Vec::new();
                let mut copied = Vec::new();
                for &(r, route) in routes {
                    let relation = &query.relations[r];
                    match route {
                        Route::Hash { column } => hashed.push(format!(
                            "{}({})",
                            relation.name, relation.columns[column].name
                        )),
                        Route::Replicate => copied.push(relation.name.to_string()),
                    }
                }
                let mut text = format!(
                    "sharded by {}: {}",
                    query.var_label(*key),
                    hashed.join(", ")
                );
                if !copied.is_empty() {
                    text.push_str(&format!("; replicated: {}", copied.join(", ")));
                }
                text
            }
            Partition::Single(reason) => format!("one worker: {reason}"),
        }
    }
}

impl fmt::Display for Unsharded {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unsharded::NoKey => f.write_str(
                "no variable is bound by every atom of a relation at one column, so every worker would compute every derivation",
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::pipeline::report_str;

    /// The plan of the one query in `text`, in words.
    fn plan(text: &str) -> String {
        let reports = report_str(text).expect("the query checks");
        reports[0].partition.describe(&reports[0].query)
    }

    /// Relations declared with two `u32` columns each, and a rule.
    fn query(attrs: &str, relations: &[(&str, &str, &str)], rule: &str) -> String {
        let relations: String = relations
            .iter()
            .map(|(name, a, b)| format!("relation {name}({a}: u32, {b}: u32);"))
            .collect();
        format!("{attrs} query Q {{ {relations} {rule} }}")
    }

    #[test]
    fn plans() {
        let count = "#[semiring(ivm::semiring::Count)]";
        let opted_in = "#[allow(intractable)]";
        let cases = [
            // A q-hierarchical query: by its root.
            (
                query(
                    "",
                    &[("Sales", "store", "item"), ("Prices", "store", "item")],
                    "Q(store) = Sales(store, item) * Prices(store, item);",
                ),
                "sharded by store: Sales(store), Prices(store)",
            ),
            // A relation without the key is replicated.
            (
                query(
                    opted_in,
                    &[
                        ("Orders", "customer", "nation"),
                        ("Nations", "nation", "region"),
                        ("Regions", "region", "name"),
                    ],
                    "Q(customer) = Orders(customer, n) * Nations(n, r) * Regions(r, name);",
                ),
                "sharded by n: Orders(nation), Nations(nation); replicated: Regions",
            ),
            // The key partitions the most relations.
            (
                query(
                    opted_in,
                    &[("R", "a", "b"), ("S", "b", "c"), ("T", "b", "d")],
                    "Q() = R(a, b) * S(b, c) * T(b, d);",
                ),
                "sharded by b: R(b), S(b), T(b)",
            ),
            // A triangle of three relations replicates one.
            (
                query(
                    count,
                    &[("R", "a", "b"), ("S", "b", "c"), ("T", "c", "a")],
                    "Q() = R(a, b) * S(b, c) * T(c, a);",
                ),
                "sharded by a: R(a), T(a); replicated: S",
            ),
            // A self-join at one column.
            (
                query(
                    "",
                    &[("Edge", "src", "dst")],
                    "Q(v) = Edge(v, a) * Edge(v, b);",
                ),
                "sharded by v: Edge(src)",
            ),
            // A semijoin's body is replicated.
            (
                query(
                    "",
                    &[("R", "a", "b"), ("S", "b", "c")],
                    "Q(a) = R(a, b) * exists(S(b, _));",
                ),
                "sharded by a: R(a); replicated: S",
            ),
        ];
        for (text, expected) in cases {
            assert_eq!(plan(&text), expected, "{text}");
        }
    }

    #[test]
    fn a_relation_bound_at_two_columns_runs_on_one_worker() {
        let text = query(
            "#[semiring(ivm::semiring::Count)]",
            &[("E", "src", "dst")],
            "Q() = E(a, b) * E(b, c) * E(c, a);",
        );
        assert!(plan(&text).starts_with("one worker: "), "{}", plan(&text));
    }
}
