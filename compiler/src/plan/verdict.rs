//! The verdict (`docs/design.md#verdicts-and-strategies`): from the query's
//! classes, the update model and the semiring's class to a strategy with its
//! [`Bounds`] ([`Verdict::Accepted`]), or a rejection with what it rests on
//! ([`Grounds`]: a [`LowerBound`], a forced strategy that does not apply, a
//! theta factor) and the witness ([`Verdict::Rejected`]).
//!
//! The table's rows are tried in order and the first that matches applies.
//! A strategy forced with `#[strategy(...)]` is checked for soundness
//! instead; `#[allow(intractable)]` turns a rejection into the cheapest
//! strategy that applies ([`opt_in_choice`]).

use crate::analysis::hypergraph::{bit, members};
use crate::analysis::variable_order::Over;
use crate::analysis::width::first_order_exponent;
use crate::analysis::{Analysis, Mask, NotFreeConnex, Ratio, VariableOrder};
use crate::query::{Dialect, Strategy, UpdateModel};
use crate::semiring::SemiringClass;

/// The outcome of planning one query: a strategy with its bounds, or a
/// rejection with the lower bound and witness it rests on.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// Code will be generated, with [`Accepted::strategy`].
    Accepted(Accepted),
    /// No code: the query is rejected.
    Rejected(Rejected),
}

impl Verdict {
    /// The accepted verdict, where the query is maintained.
    pub fn accepted(&self) -> Option<&Accepted> {
        match self {
            Verdict::Accepted(a) => Some(a),
            Verdict::Rejected(_) => None,
        }
    }

    /// The rejection, where the query is not maintained.
    pub fn rejected(&self) -> Option<&Rejected> {
        match self {
            Verdict::Accepted(_) => None,
            Verdict::Rejected(r) => Some(r),
        }
    }

    /// The strategy that maintains the query; `None` when it is rejected.
    pub fn strategy(&self) -> Option<Strategy> {
        self.accepted().map(|a| a.strategy)
    }

    /// Whether the automatic choice maintains the query: an accepted
    /// verdict that was not taken on despite a failed class test, or the
    /// rejection of a forced strategy where the automatic one applies.
    pub fn tractable(&self) -> bool {
        match self {
            Verdict::Accepted(a) => !matches!(a.choice, Choice::Intractable { .. }),
            Verdict::Rejected(r) => matches!(r.grounds, Grounds::NotApplicable { tractable: true }),
        }
    }

    /// Why this strategy, or why the rejection, in one sentence.
    pub fn reason(&self) -> &str {
        match self {
            Verdict::Accepted(a) => &a.reason,
            Verdict::Rejected(r) => &r.reason,
        }
    }

    /// The witness of the failed class test: a rejection's, or that of a
    /// query taken on although it is not tractable.
    pub fn witness(&self) -> Option<&str> {
        match self {
            Verdict::Accepted(a) => a.choice.witness(),
            Verdict::Rejected(r) => Some(&r.witness),
        }
    }
}

/// A verdict that maintains the query.
#[derive(Debug, Clone, PartialEq)]
pub struct Accepted {
    /// The strategy that maintains it.
    pub strategy: Strategy,
    /// Whether the strategy is the automatic choice, forced, or taken on
    /// despite a failed class test.
    pub choice: Choice,
    /// The strategy's bounds.
    pub bounds: Bounds,
    /// Why this strategy, in one sentence.
    pub reason: String,
    /// Where the bounds come from.
    pub source: &'static str,
    /// For a query taken on with `#[allow(intractable)]`: the candidates
    /// [`opt_in_choice`] weighed, each with its price.
    pub weighed: Option<String>,
}

impl Accepted {
    /// The verdict in one sentence, for the generated struct's docs.
    pub fn summary(&self) -> String {
        format!(
            "Maintained with the `{}` strategy: {} per update, {} enumeration delay.",
            self.strategy.keyword(),
            self.bounds.update,
            self.bounds.delay
        )
    }

    /// [`summary`](Self::summary) for a query read by the struct that
    /// holds it, whose result is walked off one view's entries
    /// (`ir::LevelStore::KeysOf`).
    pub fn summary_for_holder(&self) -> String {
        format!(
            "Maintained with the `{}` strategy: {} per update. The struct that holds it reads it by lookup and `changes()`, so `iter()` walks its one view's entries, without constant delay.",
            self.strategy.keyword(),
            self.bounds.update,
        )
    }

    /// The deprecation warning of a query taken on although it is not
    /// tractable.
    pub fn warning(&self, query: &impl std::fmt::Display, d: &Dialect) -> Option<String> {
        let witness = self.choice.witness()?;
        Some(format!(
            "{} is not tractable ({witness}); it is maintained with the `{}` strategy in {} per update because of {}",
            d.subject(query),
            self.strategy.keyword(),
            self.bounds.update,
            d.allow_intractable()
        ))
    }
}

/// How the strategy of an accepted verdict came to be.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Choice {
    /// The first matching row of the verdict table, or a forced strategy
    /// that is that row's.
    Automatic,
    /// Forced with `#[strategy(...)]` over a tractable query, other than
    /// the automatic choice.
    Forced,
    /// The query is not tractable: compiled anyway, with
    /// `#[allow(intractable)]` or a forced strategy.
    Intractable {
        /// The witness of the failed class test behind the rejection it
        /// would otherwise have been.
        witness: String,
    },
}

impl Choice {
    /// The witness of the failed class test, for a query taken on despite
    /// it.
    pub fn witness(&self) -> Option<&str> {
        match self {
            Choice::Intractable { witness } => Some(witness),
            Choice::Automatic | Choice::Forced => None,
        }
    }
}

/// A verdict that rejects the query.
#[derive(Debug, Clone, PartialEq)]
pub struct Rejected {
    /// What the rejection rests on.
    pub grounds: Grounds,
    /// Why the rejection, in one sentence.
    pub reason: String,
    /// Where the lower bound (or the rule) comes from.
    pub source: &'static str,
    /// The witness of the failed class test, or why a forced strategy
    /// does not apply.
    pub witness: String,
    /// The atoms the witness names, a bit per atom: where the error points.
    /// Zero when the witness is not about the query's shape (a semiring
    /// that cannot retract, a forced strategy that does not apply).
    pub witness_atoms: Mask,
    /// What the user can do.
    pub hint: String,
}

impl Rejected {
    /// The lower bound that rules out efficient maintenance, where the
    /// rejection rests on one.
    pub fn lower_bound(&self) -> Option<LowerBound> {
        match self.grounds {
            Grounds::LowerBound(b) => Some(b),
            Grounds::NotApplicable { .. } | Grounds::Theta => None,
        }
    }
}

/// What a rejection rests on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Grounds {
    /// A conditional lower bound (or the lack of any known strategy) rules
    /// out efficient maintenance.
    LowerBound(LowerBound),
    /// The strategy forced with `#[strategy(...)]` does not apply to the
    /// query.
    NotApplicable {
        /// Whether the automatic choice maintains the query.
        tractable: bool,
    },
    /// The strategy cannot apply a theta factor of the query.
    Theta,
}

/// The lower bound behind a rejection (`docs/design.md#lower-bounds`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LowerBound {
    /// No O(N^(1/2-γ)) update time with O(N^(1/2-γ)) delay (OMv).
    Omv,
    /// The semiring cannot take a contribution back.
    NoRetraction,
    /// No strategy and no bound are known for the semiring's class.
    Unknown,
    /// No O(1) update time with O(1) delay, even over `Bool` (OMv, BMM or
    /// hyperclique).
    NotConstant,
}

impl std::fmt::Display for LowerBound {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            LowerBound::Omv => {
                "no O(N^(1/2-γ)) update time with O(N^(1/2-γ)) delay, for any γ > 0, under the OMv conjecture"
            }
            LowerBound::NoRetraction => {
                "no retraction: the semiring cannot take a contribution back"
            }
            LowerBound::Unknown => "no known bound",
            LowerBound::NotConstant => {
                "no O(1) update time with O(1) delay, even over Bool, under the OMv, BMM or hyperclique conjectures"
            }
        })
    }
}

/// The bounds of an accepted strategy.
#[derive(Debug, Clone, PartialEq)]
pub struct Bounds {
    /// Amortized update time (an upper bound).
    pub update: Bound,
    /// Enumeration delay.
    pub delay: Bound,
    /// Space, where the strategy's source states it.
    pub space: Option<Bound>,
}

impl Bounds {
    /// Update time `update`, constant delay, space unstated.
    fn update(update: Bound) -> Bounds {
        Bounds {
            update,
            delay: Bound::constant(),
            space: None,
        }
    }
}

/// One upper bound, rendered as explain and the generated docs print it.
#[derive(Debug, Clone, PartialEq)]
pub enum Bound {
    /// `O(N^e)`, written the usual way ([`power`]).
    Power(f64),
    /// `O(log N)`: ordered multisets.
    LogN,
    /// `O(log U)`: a walk of a range-sum trie over a key type of range U.
    LogU,
    /// A view tree over a general variable order: per atom, the degrees
    /// of the loops its update runs, times `per_entry` for each entry it
    /// changes ([`general_update_time`]).
    PerAtom {
        /// Each atom with the degrees of its loops, in the atoms' order.
        atoms: Vec<AtomCost>,
        /// The cost of changing one entry (`O(1)` or `O(log N)`).
        per_entry: Box<Bound>,
    },
    /// A read that evaluates the join: `O(N^e)` (the AGM bound) before the
    /// first tuple, then O(1).
    AfterJoin(f64),
}

impl Bound {
    /// `O(1)`.
    pub fn constant() -> Bound {
        Bound::Power(0.0)
    }
}

/// An atom's cost in a [`Bound::PerAtom`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AtomCost {
    /// The atom as a bound names it: its relation, or the atom as written
    /// where the relation has several atoms.
    pub atom: String,
    /// The degrees whose product bounds its update (none: one entry per
    /// view on its path).
    pub degrees: Vec<String>,
}

impl std::fmt::Display for Bound {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Bound::Power(e) => f.write_str(&power(*e)),
            Bound::LogN => f.write_str("O(log N)"),
            Bound::LogU => f.write_str("O(log U)"),
            Bound::PerAtom { atoms, per_entry } => write_per_atom(f, atoms, per_entry),
            Bound::AfterJoin(e) => write!(
                f,
                "{} before the first tuple (generic join, the AGM bound), then O(1)",
                power(*e)
            ),
        }
    }
}

/// A [`Bound::PerAtom`]: the atoms that loop, each with the product of
/// its degrees, then those that do not, together.
fn write_per_atom(
    f: &mut std::fmt::Formatter<'_>,
    atoms: &[AtomCost],
    per_entry: &Bound,
) -> std::fmt::Result {
    let per_entry = per_entry.to_string();
    let mut costly: Vec<String> = Vec::new();
    let mut cheap: Vec<String> = Vec::new();
    for AtomCost { atom, degrees } in atoms {
        if degrees.is_empty() {
            cheap.push(format!("`{atom}`"));
        } else {
            costly.push(format!(
                "O({}{}) for `{atom}`",
                degrees.join(" · "),
                if per_entry == "O(1)" {
                    String::new()
                } else {
                    format!(
                        " · {}",
                        per_entry.trim_start_matches("O(").trim_end_matches(')')
                    )
                }
            ));
        }
    }
    if costly.is_empty() {
        return f.write_str(&per_entry);
    }
    if !cheap.is_empty() {
        costly.push(format!("{per_entry} for {}", cheap.join(", ")));
    }
    f.write_str(&costly.join(", "))
}

/// The inputs of the verdict besides the analysis.
#[derive(Debug, Clone, Copy)]
pub struct Setting<'a> {
    /// The semiring's class.
    pub semiring: &'a SemiringClass,
    /// The semiring's display name, for messages.
    pub semiring_name: &'a str,
    /// The update model.
    pub updates: UpdateModel,
    /// A strategy forced with `#[strategy(...)]`.
    pub forced: Option<Strategy>,
    /// `#[allow(intractable)]`.
    pub allow_intractable: bool,
    /// The language the query was written in, which the hints speak.
    pub dialect: &'a crate::query::Dialect,
}

/// `O(N^e)` written the usual way: `O(1)`, `O(N)`, `O(N^2)`, `O(N^0.5)`.
pub fn power(e: f64) -> String {
    if e.abs() < 1e-12 {
        "O(1)".to_owned()
    } else if (e - 1.0).abs() < 1e-12 {
        "O(N)".to_owned()
    } else if (e - e.round()).abs() < 1e-12 {
        format!("O(N^{})", e.round() as i64)
    } else {
        let s = format!("{e:.3}");
        format!("O(N^{})", s.trim_end_matches('0'))
    }
}

fn ratio_power(r: Ratio) -> String {
    power(r.to_f64())
}

/// An automatic verdict of `strategy` with `update` time and constant
/// delay.
fn accept(strategy: Strategy, update: Bound, reason: String, source: &'static str) -> Accepted {
    Accepted {
        strategy,
        choice: Choice::Automatic,
        bounds: Bounds::update(update),
        reason,
        source,
        weighed: None,
    }
}

impl From<Accepted> for Verdict {
    fn from(a: Accepted) -> Verdict {
        Verdict::Accepted(a)
    }
}

/// A rejection resting on `lower_bound`.
fn reject(
    lower_bound: LowerBound,
    reason: String,
    source: &'static str,
    witness: String,
    witness_atoms: Mask,
    hint: String,
) -> Verdict {
    Verdict::Rejected(Rejected {
        grounds: Grounds::LowerBound(lower_bound),
        reason,
        source,
        witness,
        witness_atoms,
        hint,
    })
}

/// Whether deletes must be supported: under `insert_delete`, or in a ring,
/// where an insert with a negative payload is a delete (*Answering
/// Conjunctive Queries with Aggregations under Updates*, section 1.1).
fn with_deletes(class: &SemiringClass, updates: UpdateModel) -> bool {
    updates == UpdateModel::InsertDelete || class.ring
}

/// IVMε at `eps` for the triangle count.
fn ivm_eps(a: &Analysis, eps: f64, reason: String) -> Accepted {
    let factors = a.triangle.map_or(0, |t| t.factors);
    let mut v = accept(
        Strategy::IvmEps { eps },
        Bound::Power(eps.max(1.0 - eps)),
        reason + &factors_note(factors),
        "\"Counting Triangles under Updates in Worst-Case Optimal Time\" (IVMε)",
    );
    // The views hold one entry per pair of heavy values, at most
    // (N/M^ε)·(N/M^(1−ε)) = O(N), beside the relations.
    v.bounds.space = Some(Bound::Power(1.0));
    v
}

/// The automatic verdict: the first matching row of the verdict table
/// (`docs/design.md#the-verdict-table`).
pub fn auto(a: &Analysis, class: &SemiringClass, updates: UpdateModel, d: &Dialect) -> Verdict {
    auto_with(a, class, updates, true, d)
}

/// The catalogue semirings over which the query is maintainable under
/// inserts only, with the strategy: what a rejection under inserts points
/// to.
fn insert_only_alternatives(a: &Analysis) -> Vec<(&'static str, Strategy)> {
    crate::semiring::CATALOGUE
        .iter()
        .filter_map(|name| {
            let known = crate::semiring::catalogue(name)?;
            if known.class.ring {
                return None;
            }
            auto_with(
                a,
                &known.class,
                UpdateModel::InsertOnly,
                false,
                &Dialect::Rule,
            )
            .strategy()
            .map(|s| (*name, s))
        })
        .collect()
}

/// [`auto`], with the hints that look at other semirings only when
/// `hints` (they call back in here without).
fn auto_with(
    a: &Analysis,
    class: &SemiringClass,
    updates: UpdateModel,
    hints: bool,
    d: &Dialect,
) -> Verdict {
    if with_deletes(class, updates) {
        under_deletes(a, class, updates, d)
    } else {
        under_inserts(a, class, hints, d)
    }
}

/// The rows of the verdict table under deletes (or over a ring): a view
/// tree for a q-hierarchical query over a semiring that retracts, IVMε for
/// the triangle count, else a rejection.
fn under_deletes(
    a: &Analysis,
    class: &SemiringClass,
    updates: UpdateModel,
    d: &Dialect,
) -> Verdict {
    let hg = &a.hypergraph;
    let ring_note = if class.ring && updates == UpdateModel::InsertOnly {
        " (a ring is maintained as under inserts and deletes: an insert with a negative payload is a delete)"
    } else {
        ""
    };
    if a.q_hierarchical.is_ok() {
        if class.deletable {
            return accept(
                Strategy::ViewTree,
                Bound::constant(),
                format!(
                    "q-hierarchical under inserts and deletes, and the semiring has O(1)-deletable aggregates{ring_note}"
                ),
                "F-IVM view trees; \"Answering Conjunctive Queries with Aggregations under Updates\", section 5.3",
            )
            .into();
        }
        if class.ordered_deletes {
            return accept(
                Strategy::ViewTree,
                Bound::LogN,
                "q-hierarchical under inserts and deletes; the semiring's aggregates are retracted through ordered multisets, and Ω(log N) is unavoidable for it".to_owned(),
                "\"Answering Conjunctive Queries with Aggregations under Updates\", section 5.3",
            )
            .into();
        }
    }
    if a.triangle.is_some() && (class.ring || class.counting) {
        return ivm_eps(
            a,
            0.5,
            format!(
                "the triangle count over a counting semiring: heavy/light partitions with ε = 1/2, optimal under the OMv conjecture{ring_note}"
            ),
        )
        .into();
    }
    if a.q_hierarchical.is_ok() {
        return reject(
            LowerBound::NoRetraction,
            "q-hierarchical, but the semiring states no way to retract a contribution".to_owned(),
            "\"Answering Conjunctive Queries with Aggregations under Updates\", section 5.3",
            "the semiring is not declared `ring`, `deletable` or `ordered`".to_owned(),
            0,
            format!(
                "declare how it retracts (e.g. `#[semiring(my::K, deletable)]`), or use {}",
                d.insert_only()
            ),
        );
    }
    let witness = a
        .q_hierarchical
        .err()
        .map(|w| w.describe(hg))
        .unwrap_or_default();
    reject(
        LowerBound::Omv,
        format!(
            "not q-hierarchical, so under inserts and deletes it cannot be maintained with sublinear update time and delay{ring_note}"
        ),
        "the q-hierarchical dichotomy, for queries without self-joins (\"The Role of Semirings in Incremental View Maintenance\"; \"Answering Conjunctive Queries with Aggregations under Updates\")",
        witness,
        a.q_hierarchical.err().map_or(0, |w| w.atoms()),
        insert_only_hint(a, class, d),
    )
}

/// The rows of the verdict table under inserts only, over a semiring that
/// is not a ring: IVMε, a view tree, two layers, CROWN or its clusters,
/// else a rejection.
fn under_inserts(a: &Analysis, class: &SemiringClass, hints: bool, d: &Dialect) -> Verdict {
    if a.triangle.is_some() && class.counting {
        return ivm_eps(
            a,
            0.5,
            "the triangle count over a counting semiring: heavy/light partitions with ε = 1/2"
                .to_owned(),
        )
        .into();
    }
    // A q-hierarchical query needs no second layer: its view tree is O(1)
    // under inserts as under deletes, over any semiring, with less state
    // than the two-layer structure (whose top join would be a single
    // subquery's support, or a product of them).
    if a.q_hierarchical.is_ok() {
        return accept(
            Strategy::ViewTree,
            Bound::constant(),
            "q-hierarchical: a view tree maintains it in O(1) under inserts, over any semiring"
                .to_owned(),
            "F-IVM view trees",
        )
        .into();
    }
    if class.positive && a.p_hierarchical.is_ok() {
        return two_layer(a).into();
    }
    if class.bounded_monotone && a.free_connex.is_ok() {
        return accept(
            Strategy::Crown,
            Bound::constant(),
            "free-connex under inserts over a bounded monotone semiring: a payload improves O(1) times".to_owned(),
            "\"Answering Conjunctive Queries with Aggregations under Updates\", section 5.1 (Lemma 18); CROWN",
        )
        .into();
    }
    if class.max_max && a.free_connex.is_ok() && !a.has_q_core() {
        return accept(
            Strategy::ClusterCrown,
            Bound::constant(),
            "free-connex without a q-core under inserts over the max-max semiring".to_owned(),
            "\"Answering Conjunctive Queries with Aggregations under Updates\", section 5.2",
        )
        .into();
    }
    if a.free_connex.is_ok() {
        return not_strong_connex(a, class, hints, d);
    }
    not_free_connex(a, class, d)
}

/// Two layers, for a p-hierarchical query under inserts over a positive
/// semiring: O(1) when α-acyclic, else the cost of the top join's
/// worst-case-optimal delta joins.
fn two_layer(a: &Analysis) -> Accepted {
    if a.acyclic.is_ok() {
        return accept(
            Strategy::TwoLayer,
            Bound::constant(),
            "p-hierarchical and α-acyclic under inserts over a positive semiring".to_owned(),
            "\"The Role of Semirings in Incremental View Maintenance\", Theorem 1; \"Answering Conjunctive Queries with Aggregations under Updates\", section 5.1",
        );
    }
    let rho = top_cover(a);
    accept(
        Strategy::TwoLayer,
        Bound::Power(Ratio::new(rho.numer() - rho.denom(), rho.denom()).to_f64()),
        format!(
            "p-hierarchical but cyclic under inserts over a positive semiring: the top join of the subqueries' supports is materialized with worst-case-optimal delta joins, whose costs add up to the AGM bound N^({rho}) (\"The Role of Semirings in Incremental View Maintenance\", Theorem 1, states O(N^(fhtw−1)) over a tree decomposition, fhtw = {})",
            a.fhtw
        ),
        "\"The Role of Semirings in Incremental View Maintenance\", Theorem 1; generic join",
    )
}

/// The rejection, under inserts only, of a free-connex query that is not
/// strong-connex (no strategy fits its semiring's class); with `hints`,
/// it names the catalogue semirings over which it is maintainable.
fn not_strong_connex(a: &Analysis, class: &SemiringClass, hints: bool, d: &Dialect) -> Verdict {
    // Inserts only, and the semiring is not a ring.
    let deletes = false;
    let witness = a
        .p_hierarchical
        .err()
        .map(|c| c.describe(&a.hypergraph))
        .unwrap_or_else(|| "the semiring is not positive".to_owned());
    let hard =
        class.strictly_monotone || class.in_k || (class.oplus_strictly_monotone && a.has_q_core());
    let reason = if hard {
        "free-connex but not strong-connex: over this semiring the core forces polynomial update time under inserts".to_owned()
    } else {
        "free-connex but not strong-connex, and no strategy is known for this semiring's class"
            .to_owned()
    };
    let others = if hints {
        insert_only_alternatives(a)
    } else {
        Vec::new()
    };
    let opt_in = opt_in_hint(a, class, deletes, d);
    let hint = if others.is_empty() {
        opt_in
    } else {
        let list: Vec<String> = others
            .iter()
            .map(|(name, s)| format!("`{name}` ({})", s.keyword()))
            .collect();
        format!(
            "under inserts it is maintainable in O(1) over {}; over this semiring, {opt_in}",
            list.join(", ")
        )
    };
    reject(
        if hard {
            LowerBound::Omv
        } else {
            LowerBound::Unknown
        },
        reason,
        "\"Answering Conjunctive Queries with Aggregations under Updates\", Corollary 14; \"The Role of Semirings in Incremental View Maintenance\", Theorem 2",
        witness,
        a.p_hierarchical.err().map_or(0, |c| c.atoms()),
        hint,
    )
}

/// The rejection, under inserts only, of a query that is not free-connex
/// (nor p-hierarchical over a positive semiring).
fn not_free_connex(a: &Analysis, class: &SemiringClass, d: &Dialect) -> Verdict {
    // Inserts only, and the semiring is not a ring.
    let deletes = false;
    let hg = &a.hypergraph;
    let witness = a
        .free_connex
        .err()
        .map(|w| w.describe(hg))
        .unwrap_or_default();
    let mut atoms = a.free_connex.err().map_or(0, |w| w.atoms());
    let extra = match (a.free_connex, a.p_hierarchical) {
        (Err(NotFreeConnex::Cyclic(_)), Err(core)) => {
            atoms |= core.atoms();
            format!("; and it is not p-hierarchical: {}", core.describe(hg))
        }
        _ => String::new(),
    };
    reject(
        LowerBound::NotConstant,
        "not free-connex, and not a p-hierarchical query over a positive semiring".to_owned(),
        "\"The Role of Semirings in Incremental View Maintenance\", Theorem 2; \"Answering Conjunctive Queries with Aggregations under Updates\", Table 1",
        format!("{witness}{extra}"),
        atoms,
        opt_in_hint(a, class, deletes, d),
    )
}

/// What `#[allow(intractable)]` makes of a rejected query: the cheapest of
/// a view tree over the general variable order (where one exists and the
/// semiring can retract under deletes), the first-order delta and
/// recompute; or the range join for a two-atom inequality join.
///
/// Cheaper under one assumption about the data: every join key has the
/// same degree d, and a relation holds N = d² tuples (the skew where the
/// choice matters: a few keys of degree √N). Each candidate is priced in
/// powers of d:
///
/// - **time per update**: d^k, where k counts the loops the update runs (a
///   loop through an index costs d, a scan d²), for the worst atom, then
///   summed over the atoms to break ties. Recompute stores the tuple in
///   O(1), but a read evaluates the whole join (the AGM bound N^ρ*, so
///   k = 2ρ*), and the result is assumed read after every update.
/// - **space**: a view tree whose order has width w (the largest fractional
///   edge cover of a bag) keeps views of up to N^w entries, where first
///   order and recompute keep O(N) beside the result. So a view tree of
///   width w > 1 must save at least the factor its space may exceed theirs
///   by, N^(w−1) = d^(2(w−1)), on the worst update.
///
/// The cheapest in time that the space rule allows wins; on a tie the
/// first-order delta wins (it keeps fewer maps: matrix multiplication
/// measures 3× faster with it, `benches/higher_order.rs`), and recompute
/// wins only when strictly cheaper than both.
pub fn opt_in_choice(a: &Analysis, class: &SemiringClass, deletes: bool) -> OptIn {
    if a.inequality_join.is_some() && class.ring {
        return OptIn {
            strategy: Strategy::RangeJoin,
            time: Bound::LogU,
            weighed: None,
        };
    }
    let hg = &a.hypergraph;
    let first_order = Price::of(&first_order_loops(hg));
    let rho = crate::analysis::width::fractional_edge_cover(&hg.relation_edges(), hg.vars());
    let order = a
        .general_order
        .as_ref()
        .filter(|_| !deletes || class.deletable || class.ordered_deletes);
    let tree = order.map(|order| {
        let weight = |degrees: &[String]| -> u32 {
            degrees
                .iter()
                .map(|d| if d.starts_with('|') { 2 } else { 1 })
                .sum()
        };
        let ks: Vec<u32> = general_bounds(a, order)
            .iter()
            .map(|(_, degrees)| weight(degrees))
            .collect();
        (Price::of(&ks), order.width(hg))
    });
    let in_d = |k: u32| match k {
        0 => "O(1)".to_owned(),
        1 => "O(d)".to_owned(),
        k => format!("O(d^{k})"),
    };
    let mut weighed = Vec::new();
    if let Some((time, width)) = &tree {
        let space = if width.to_f64() <= 1.0 {
            "O(N)".to_owned()
        } else {
            ratio_power(*width)
        };
        let outgrows = if space_pays(*time, width.to_f64(), first_order) {
            ""
        } else {
            " (its views may outgrow the input by more than it saves)"
        };
        weighed.push(format!(
            "view tree {} per update in {space} space{outgrows}",
            in_d(time.worst)
        ));
    }
    weighed.push(format!(
        "first order {} per update",
        in_d(first_order.worst)
    ));
    weighed.push(format!("recompute {} per read", ratio_power(rho)));
    let tree_price = tree.map(|(time, width)| (time, width.to_f64()));
    let strategy = pick(tree_price, first_order, 2.0 * rho.to_f64());
    let time = match (strategy, order) {
        (Strategy::ViewTree, Some(order)) => {
            let per_entry = if deletes && !class.deletable {
                Bound::LogN
            } else {
                Bound::constant()
            };
            general_update_time(a, order, per_entry)
        }
        (Strategy::Recompute, _) => Bound::constant(),
        _ => Bound::Power(first_order_exponent(hg).to_f64()),
    };
    OptIn {
        strategy,
        time,
        weighed: Some(format!(
            "{} (every join key of degree d, N = d² tuples per relation)",
            weighed.join("; ")
        )),
    }
}

/// The time an update costs in powers of the degree d (see
/// [`opt_in_choice`]): the worst atom's exponent, then the sum over the
/// atoms, compared in that order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Price {
    worst: u32,
    total: u32,
}

impl Price {
    /// The price of updates whose atoms cost d^k for each k of `ks`.
    fn of(ks: &[u32]) -> Price {
        Price {
            worst: ks.iter().copied().max().unwrap_or(0),
            total: ks.iter().sum(),
        }
    }
}

/// Whether a view tree of price `tree` and width `width` saves, on its
/// worst update, at least the factor d^(2(width − 1)) = N^(width − 1) by
/// which its views may outgrow the first-order delta's O(N) state.
fn space_pays(tree: Price, width: f64, first_order: Price) -> bool {
    let excess = 2.0 * (width - 1.0);
    excess <= 0.0 || f64::from(first_order.worst) - f64::from(tree.worst) >= excess
}

/// The rule of [`opt_in_choice`] over the candidates' prices: the view tree
/// (its price and width, where there is one) when strictly cheaper than
/// first order and its space pays; recompute (`recompute`: the exponent of
/// a read, in powers of d) when strictly cheaper than the better of those;
/// else first order.
fn pick(tree: Option<(Price, f64)>, first_order: Price, recompute: f64) -> Strategy {
    let (strategy, best) = match tree {
        Some((time, width)) if time < first_order && space_pays(time, width, first_order) => {
            (Strategy::ViewTree, time)
        }
        _ => (Strategy::FirstOrder, first_order),
    };
    if recompute < f64::from(best.worst) {
        Strategy::Recompute
    } else {
        strategy
    }
}

/// What [`opt_in_choice`] picked, and what it weighed.
#[derive(Debug, Clone)]
pub struct OptIn {
    /// The strategy.
    pub strategy: Strategy,
    /// Its update time.
    pub time: Bound,
    /// The candidates' prices in the degree model, for explain; `None`
    /// where nothing was weighed (the range join).
    pub weighed: Option<String>,
}

/// Per atom, the cost exponent k (in degrees d, see [`opt_in_choice`]) of
/// its first-order delta: the join `plan::first_order` runs, in the order
/// of `analysis::keys::next_atom`, a point lookup free, an index d and a
/// scan d². A lookup by a declared key is weighed as an index: the model
/// assumes every join key of degree d (`ivmc explain`'s "under keys" line
/// gives the bound the keys promise).
fn first_order_loops(hg: &crate::analysis::Hypergraph) -> Vec<u32> {
    let atoms: Vec<usize> = members(hg.relations()).collect();
    atoms
        .iter()
        .map(|&i| {
            let mut bound = hg.atoms[i];
            let mut rest: Vec<usize> = atoms.iter().copied().filter(|&j| j != i).collect();
            let mut k = 0;
            while !rest.is_empty() {
                let j = crate::analysis::keys::next_atom(hg, bound, &rest);
                rest.retain(|&r| r != j);
                k += match (hg.atoms[j] & !bound == 0, hg.atoms[j] & bound == 0) {
                    (true, _) => 0,
                    (false, true) => 2,
                    (false, false) => 1,
                };
                bound |= hg.atoms[j];
            }
            k
        })
        .collect()
}

/// The verdict of the range join.
fn range_join(a: &Analysis) -> Accepted {
    let factors = a.inequality_join.map_or(0, |j| j.factors);
    accept(
        Strategy::RangeJoin,
        Bound::LogU,
        "range join: each side's payloads summed by its compared variable in a range-sum trie, so an update reads the other side's sum below or above its key (U: the key type's range, 2^32 for `u32`)".to_owned() + &factors_note(factors),
        "range-aggregate indexes (prefix sums over an ordered key)",
    )
}

/// What a strategy of fixed shape says of the nullary factors beside it
/// (`analysis::shape::nullary_factors`): each is a one-entry sum, O(1) per
/// update of its relation, that multiplies the result when it is read.
fn factors_note(factors: crate::analysis::hypergraph::Mask) -> String {
    match factors.count_ones() {
        0 => String::new(),
        1 => "; times a nullary factor, a one-entry sum kept in O(1) per update".to_owned(),
        n => format!("; times {n} nullary factors, one-entry sums kept in O(1) per update"),
    }
}

/// The hint of a rejection: what `#[allow(intractable)]` would compile.
fn opt_in_hint(a: &Analysis, class: &SemiringClass, deletes: bool, d: &Dialect) -> String {
    let OptIn { strategy, time, .. } = opt_in_choice(a, class, deletes);
    let option = d.allow_intractable();
    match strategy {
        Strategy::ViewTree => format!(
            "{option} compiles it with the `view_tree` strategy over a general variable order in {time} per update"
        ),
        Strategy::RangeJoin => {
            format!("{option} compiles it with the `range_join` strategy in {time} per update")
        }
        Strategy::Recompute => format!(
            "{option} compiles it with the `recompute` strategy (O(1) per update, the whole join per read)"
        ),
        _ => format!("{option} compiles it with the first-order strategy in {time} per update"),
    }
}

/// The fractional edge cover number ρ* of the two-layer top join: the
/// hypergraph of the subqueries' free variables. The materialized top join
/// of a cyclic p-hierarchical query costs O(N^(ρ* − 1)) amortized.
fn top_cover(a: &Analysis) -> Ratio {
    let keys: Vec<crate::analysis::Mask> = a
        .decomposition
        .as_ref()
        .map(|subs| subs.iter().map(|s| s.free).collect())
        .unwrap_or_default();
    crate::analysis::width::fractional_edge_cover(&keys, a.hypergraph.free)
}

/// What `#[updates(insert_only)]` would give, for a rejection under deletes.
fn insert_only_hint(a: &Analysis, class: &SemiringClass, d: &Dialect) -> String {
    let opt_in = opt_in_hint(a, class, true, d);
    if class.ring {
        return format!("the semiring is a ring, so inserts-only does not help; {opt_in}");
    }
    match auto(a, class, UpdateModel::InsertOnly, d) {
        Verdict::Accepted(v) => format!(
            "with {} it is maintainable with the `{}` strategy in {} amortized; or {opt_in}",
            d.insert_only(),
            v.strategy.keyword(),
            v.bounds.update
        ),
        Verdict::Rejected(_) => {
            format!("inserts-only does not make it tractable over this semiring; {opt_in}")
        }
    }
}

/// The verdict for a query: the automatic one, or the check of a forced
/// strategy, with `#[allow(intractable)]` applied.
pub fn decide(a: &Analysis, setting: Setting<'_>) -> Verdict {
    let auto_verdict = auto(a, setting.semiring, setting.updates, setting.dialect);
    let v = match setting.forced {
        None => auto_verdict,
        Some(s) => forced(a, setting, s, &auto_verdict),
    };
    let v = match v {
        Verdict::Accepted(v) => match unhonoured_theta(a, v.strategy, setting.dialect) {
            Some(theta) => Verdict::Rejected(theta),
            None => Verdict::Accepted(v),
        },
        rejected => rejected,
    };
    match v {
        Verdict::Rejected(r) if setting.allow_intractable && setting.forced.is_none() => {
            opt_in(a, setting, r).into()
        }
        v => v,
    }
}

/// What `#[allow(intractable)]` makes of `rejected`: the strategy
/// [`opt_in_choice`] picks, with what it weighed, the rejection's reason
/// and its witness.
fn opt_in(a: &Analysis, setting: Setting<'_>, rejected: Rejected) -> Accepted {
    let deletes = with_deletes(setting.semiring, setting.updates);
    let choice = opt_in_choice(a, setting.semiring, deletes);
    let fits = match choice.strategy {
        // `opt_in_choice` weighs a view tree only where one applies.
        Strategy::ViewTree => forced_view_tree(a, setting).ok(),
        Strategy::RangeJoin => Some(range_join(a)),
        Strategy::Recompute => Some(recompute(a)),
        _ => None,
    };
    let mut f = fits.unwrap_or_else(|| first_order(a));
    f.weighed = choice.weighed;
    f.choice = Choice::Intractable {
        witness: rejected.witness,
    };
    f.reason = format!(
        "{} — compiled anyway because of {}",
        rejected.reason,
        setting.dialect.allow_intractable()
    );
    f
}

/// The rejection of strategy `s` for a query with a theta factor, which
/// only the first-order and recompute strategies apply: the others keep
/// views of single atoms, where its variables never meet.
fn unhonoured_theta(a: &Analysis, s: Strategy, d: &Dialect) -> Option<Rejected> {
    let hg = &a.hypergraph;
    let edge = members(hg.conditions).next()?;
    if matches!(
        s,
        Strategy::FirstOrder | Strategy::Recompute | Strategy::RangeJoin
    ) {
        return None;
    }
    let label = &hg.atom_labels[edge];
    let reads: Vec<String> = members(hg.atoms[edge])
        .map(|v| {
            let holders: Vec<&str> = members(hg.at(v) & hg.relations())
                .map(|e| hg.atom_labels[e].as_str())
                .collect();
            format!("`{}` (of `{}`)", hg.var_names[v], holders.join("`, `"))
        })
        .collect();
    let first_order = first_order_exponent(hg);
    Some(Rejected {
        grounds: Grounds::Theta,
        reason: format!(
            "the `{}` strategy cannot apply the theta factor `{label}`",
            s.keyword()
        ),
        source: "docs/design.md#local-steps-and-theta-factors",
        witness: format!(
            "`{label}` reads {}, which no atom holds together: a hyperedge of its own",
            reads.join(" and ")
        ),
        witness_atoms: bit(edge),
        hint: format!(
            "{} (or {}) applies it to each derivation, in {} per update; {} when the result is read",
            d.strategy(Strategy::FirstOrder),
            d.allow_intractable(),
            ratio_power(first_order),
            d.strategy(Strategy::Recompute)
        ),
    })
}

/// The first-order delta, which applies to every query.
fn first_order(a: &Analysis) -> Accepted {
    let k = first_order_exponent(&a.hypergraph);
    accept(
        Strategy::FirstOrder,
        Bound::Power(k.to_f64()),
        "first-order delta: each update joins its tuple with the other relations through hash indexes".to_owned(),
        "classical IVM (DBToaster's first-order deltas)",
    )
}

/// The verdict of a strategy forced with `#[strategy(...)]`: its bounds
/// where it applies, else a rejection saying why not and what would
/// apply; tractable, and the witness, as the automatic verdict has them.
fn forced(a: &Analysis, setting: Setting<'_>, s: Strategy, auto_verdict: &Verdict) -> Verdict {
    let fits = match s {
        Strategy::ViewTree => forced_view_tree(a, setting),
        Strategy::TwoLayer => forced_two_layer(a, setting),
        Strategy::Crown | Strategy::ClusterCrown => forced_crown(a, setting, s),
        Strategy::IvmEps { eps } => forced_ivm_eps(a, setting, eps),
        Strategy::Factorized => forced_factorized(a, setting),
        Strategy::FirstOrder => Ok(first_order(a)),
        Strategy::Recompute => Ok(recompute(a)),
        Strategy::RangeJoin => forced_range_join(a, setting),
    };
    let mut v = match fits {
        Ok(v) => v,
        Err(NotApplicable(why)) => {
            return Verdict::Rejected(not_applicable(s, auto_verdict, why, setting.dialect));
        }
    };
    v.choice = match auto_verdict {
        Verdict::Accepted(auto) if auto.strategy == s => Choice::Automatic,
        Verdict::Accepted(_) => Choice::Forced,
        Verdict::Rejected(r) => Choice::Intractable {
            witness: r.witness.clone(),
        },
    };
    v.into()
}

/// Why a forced strategy does not apply to the query, as the rejection's
/// witness says it.
struct NotApplicable(String);

/// The rejection of forced strategy `s`, which does not apply (`why`): the
/// hint points to the automatic strategy, or to those that apply to every
/// query.
fn not_applicable(s: Strategy, auto_verdict: &Verdict, why: String, d: &Dialect) -> Rejected {
    Rejected {
        grounds: Grounds::NotApplicable {
            tractable: auto_verdict.tractable(),
        },
        reason: format!("{} does not apply to this query", d.strategy(s)),
        source: "docs/design.md#forcing-a-strategy",
        witness: why,
        witness_atoms: 0,
        hint: match auto_verdict {
            Verdict::Accepted(auto) => format!(
                "remove the attribute to get the `{}` strategy ({})",
                auto.strategy.keyword(),
                auto.bounds.update
            ),
            Verdict::Rejected(_) => format!(
                "use {} or {}, which apply to every query",
                d.strategy(Strategy::FirstOrder),
                d.strategy(Strategy::Recompute)
            ),
        },
    }
}

/// A forced view tree: over the canonical order of a q-hierarchical
/// query, or over a general order, where the semiring can retract under
/// deletes.
fn forced_view_tree(a: &Analysis, setting: Setting<'_>) -> Result<Accepted, NotApplicable> {
    let s = Strategy::ViewTree;
    let class = setting.semiring;
    let deletes = with_deletes(class, setting.updates);
    if let Err(w) = a.q_hierarchical
        && a.general_order.is_none()
    {
        return Err(NotApplicable(format!(
            "the query is not q-hierarchical ({}), and it has no free-top variable order whose views a change can reach through the atoms beside them (or it has a theta factor)",
            w.describe(&a.hypergraph)
        )));
    }
    if deletes && !class.deletable && !class.ordered_deletes {
        return Err(NotApplicable(format!(
            "`{}` has no way to retract a contribution",
            setting.semiring_name
        )));
    }
    let time = if deletes && !class.deletable {
        Bound::LogN
    } else {
        Bound::constant()
    };
    Ok(match &a.general_order {
        Some(order) if a.q_hierarchical.is_err() => accept(
            s,
            general_update_time(a, order, time),
            "view tree over a general free-top variable order: an update joins its change with the atoms beside each view on its path".to_owned(),
            "F-IVM view trees (higher-order IVM)",
        ),
        _ => accept(
            s,
            time,
            "view tree over the canonical free-top variable order".to_owned(),
            "F-IVM view trees",
        ),
    })
}

/// Why a strategy that maintains inserts only does not apply under
/// deletes.
fn inserts_only(d: &Dialect) -> NotApplicable {
    NotApplicable(format!(
        "it maintains inserts only: use {} over a semiring that is not a ring",
        d.insert_only()
    ))
}

/// Forced two layers: inserts only, a positive semiring and a
/// p-hierarchical query.
fn forced_two_layer(a: &Analysis, setting: Setting<'_>) -> Result<Accepted, NotApplicable> {
    let class = setting.semiring;
    if with_deletes(class, setting.updates) {
        return Err(inserts_only(setting.dialect));
    }
    if !class.positive {
        return Err(NotApplicable(format!(
            "`{}` is not positive",
            setting.semiring_name
        )));
    }
    if let Err(c) = a.p_hierarchical {
        return Err(NotApplicable(format!(
            "the query is not p-hierarchical ({})",
            c.describe(&a.hypergraph)
        )));
    }
    let e = if a.acyclic.is_ok() {
        Ratio::int(0)
    } else {
        let rho = top_cover(a);
        Ratio::new(rho.numer() - rho.denom(), rho.denom())
    };
    Ok(accept(
        Strategy::TwoLayer,
        Bound::Power(e.to_f64()),
        "two layers over the free-dominated subqueries".to_owned(),
        "\"The Role of Semirings in Incremental View Maintenance\", Theorem 1",
    ))
}

/// Forced CROWN, `s` plain or over clusters: inserts only, a free-connex
/// query, and a bounded monotone semiring (or the max-max semiring and no
/// q-core).
fn forced_crown(
    a: &Analysis,
    setting: Setting<'_>,
    s: Strategy,
) -> Result<Accepted, NotApplicable> {
    let class = setting.semiring;
    if with_deletes(class, setting.updates) {
        return Err(inserts_only(setting.dialect));
    }
    if let Err(w) = a.free_connex {
        return Err(NotApplicable(format!(
            "the query is not free-connex ({})",
            w.describe(&a.hypergraph)
        )));
    }
    if s == Strategy::Crown && !class.bounded_monotone {
        return Err(NotApplicable(format!(
            "`{}` is not bounded monotone (CROWN needs `Bool`, `AccessControl` or a semiring declared `bounded_monotone`)",
            setting.semiring_name
        )));
    }
    if s == Strategy::ClusterCrown && (!class.max_max || a.has_q_core()) {
        return Err(NotApplicable(
            "it needs the max-max semiring and a query without a q-core".to_owned(),
        ));
    }
    Ok(accept(
        s,
        Bound::constant(),
        "CROWN over a free-connex join tree".to_owned(),
        "\"Answering Conjunctive Queries with Aggregations under Updates\", section 5",
    ))
}

/// Forced IVMε at `eps`: the triangle count over a counting semiring.
fn forced_ivm_eps(a: &Analysis, setting: Setting<'_>, eps: f64) -> Result<Accepted, NotApplicable> {
    let class = setting.semiring;
    if a.triangle.is_none() {
        return Err(NotApplicable(
            "IVMε maintains the triangle count `Q() = R(a, b) * S(b, c) * T(c, a)`, maybe times nullary factors, only"
                .to_owned(),
        ));
    }
    if !(class.ring || class.counting) {
        return Err(NotApplicable(format!(
            "IVMε needs a counting semiring (`Int`, `Count`, `Real` or a ring), not `{}`",
            setting.semiring_name
        )));
    }
    Ok(ivm_eps(
        a,
        eps,
        format!("the triangle count with heavy/light partitions at ε = {eps}"),
    ))
}

/// The forced factorized baseline: the triangle count over a counting
/// semiring.
fn forced_factorized(a: &Analysis, setting: Setting<'_>) -> Result<Accepted, NotApplicable> {
    let class = setting.semiring;
    if a.triangle.is_none() {
        return Err(NotApplicable("the factorized baseline is implemented for the triangle count only; use `first_order` for other queries".to_owned()));
    }
    if !(class.ring || class.counting) {
        return Err(NotApplicable(format!(
            "the factorized baseline needs a counting semiring (`Int`, `Count`, `Real` or a ring), not `{}`",
            setting.semiring_name
        )));
    }
    let mut v = accept(
        Strategy::Factorized,
        Bound::Power(1.0),
        "factorized IVM: one materialized view V(B, A) = Σ_C S(B, C)·T(C, A); O(1) for updates to the first relation, O(N) for the other two".to_owned()
            + &factors_note(a.triangle.map_or(0, |t| t.factors)),
        "\"Counting Triangles under Updates in Worst-Case Optimal Time\" (factorized IVM)",
    );
    v.bounds.space = Some(Bound::Power(2.0));
    Ok(v)
}

/// Recompute, which applies to every query: O(1) per update, and a read
/// evaluates the join (the AGM bound before the first tuple).
fn recompute(a: &Analysis) -> Accepted {
    let mut v = accept(
        Strategy::Recompute,
        Bound::constant(),
        "recompute: updates only store the tuple; the result is evaluated from scratch with a worst-case-optimal join when read".to_owned(),
        "worst-case-optimal joins",
    );
    let rho = crate::analysis::width::fractional_edge_cover(
        &a.hypergraph.relation_edges(),
        a.hypergraph.vars(),
    );
    v.bounds.delay = Bound::AfterJoin(rho.to_f64());
    v
}

/// The forced range join: a two-atom inequality join over a ring.
fn forced_range_join(a: &Analysis, setting: Setting<'_>) -> Result<Accepted, NotApplicable> {
    if a.inequality_join.is_none() {
        return Err(NotApplicable("it maintains a two-atom inequality join, `Q() = R(.., x, ..) * S(.., y, ..) * { x < y }` (or `<=`, `>`, `>=`), whose atoms share no variable, maybe times nullary factors".to_owned()));
    }
    if !setting.semiring.ring {
        return Err(NotApplicable(format!(
            "`{}` is not a ring: the range sums take a retraction back by adding its inverse",
            setting.semiring_name
        )));
    }
    Ok(range_join(a))
}

/// The update time of a view tree over a general variable order, per
/// relation: each view on an atom's path whose key the change does not fix
/// loops over the sibling atoms that bind the rest, so the atom costs the
/// product of their degrees (`deg_S(c)`: the tuples of `S` with a given
/// `c`), times `per_entry` for each entry changed.
pub fn general_update_time(a: &Analysis, order: &VariableOrder, per_entry: Bound) -> Bound {
    Bound::PerAtom {
        atoms: general_bounds(a, order)
            .into_iter()
            .map(|(atom, degrees)| AtomCost {
                atom: short_label(&a.hypergraph, atom),
                degrees,
            })
            .collect(),
        per_entry: Box::new(per_entry),
    }
}

/// Per atom, the degrees whose product bounds its update in a
/// view tree over `order`: one per loop over a sibling atom, from its
/// lowest variable up to the first free one (or the root).
pub fn general_bounds(a: &Analysis, order: &VariableOrder) -> Vec<(usize, Vec<String>)> {
    let hg = &a.hypergraph;
    order
        .loops(hg)
        .into_iter()
        .map(|(atom, loops)| {
            let degrees = loops
                .iter()
                .map(|&(over, on)| {
                    // A view is named after its variable, as the plan
                    // draws it: `V_n`.
                    let name = match over {
                        Over::Atom(b) => {
                            let label = &hg.atom_labels[b];
                            label.split('(').next().unwrap_or(label).to_owned()
                        }
                        // (a SQL view's variable is named by its first
                        // column, `c_custkey` of `c_custkey = o_custkey`).
                        Over::View(v) => {
                            let var = &hg.var_names[v];
                            format!("V_{}", var.split(" = ").next().unwrap_or(var))
                        }
                    };
                    if on == 0 {
                        format!("|{name}|")
                    } else {
                        format!("deg_{name}({})", hg.names(on))
                    }
                })
                .collect();
            (atom, degrees)
        })
        .collect()
}

/// An atom as a bound names it: its relation, or (where the relation has
/// several atoms) the atom as written.
fn short_label(hg: &crate::analysis::Hypergraph, atom: usize) -> String {
    let relation = |a: usize| {
        let label = &hg.atom_labels[a];
        label.split('(').next().unwrap_or(label).to_owned()
    };
    let name = relation(atom);
    if members(hg.relations())
        .filter(|&b| relation(b) == name)
        .count()
        > 1
    {
        hg.atom_labels[atom].clone()
    } else {
        name
    }
}

#[cfg(test)]
mod tests {
    use super::{Price, Strategy, pick};

    fn price(worst: u32, total: u32) -> Price {
        Price { worst, total }
    }

    #[test]
    fn the_view_tree_wins_only_where_cheaper_and_its_space_pays() {
        // Cheaper in linear space: the 3-path count.
        let tree = Some((price(1, 1), 1.0));
        assert_eq!(pick(tree, price(2, 6), 4.0), Strategy::ViewTree);
        // A tie, worst and total: first order keeps fewer maps.
        assert_eq!(
            pick(Some((price(2, 4), 1.0)), price(2, 4), 4.0),
            Strategy::FirstOrder
        );
        // Equal worst, smaller total.
        assert_eq!(
            pick(Some((price(2, 3), 1.0)), price(2, 4), 4.0),
            Strategy::ViewTree
        );
        // Width 2 saves one degree where its views may hold N^2 = d^2
        // times the input (the 4-cycle): first order.
        assert_eq!(
            pick(Some((price(1, 4), 2.0)), price(2, 8), 4.0),
            Strategy::FirstOrder
        );
        // ... but saving two degrees pays for it.
        assert_eq!(
            pick(Some((price(1, 4), 2.0)), price(3, 12), 6.0),
            Strategy::ViewTree
        );
        // Width 3/2 asks for one degree.
        assert_eq!(
            pick(Some((price(1, 4), 1.5)), price(2, 8), 4.0),
            Strategy::ViewTree
        );
    }

    #[test]
    fn recompute_wins_only_when_strictly_cheaper_than_the_best_delta() {
        assert_eq!(pick(None, price(3, 9), 2.0), Strategy::Recompute);
        assert_eq!(pick(None, price(2, 6), 2.0), Strategy::FirstOrder);
        assert_eq!(
            pick(Some((price(1, 1), 1.0)), price(4, 12), 2.0),
            Strategy::ViewTree
        );
    }
}
