//! The query catalogue: every example of the papers and the shapes users
//! write, with the classes, width and verdict each must get.
//!
//! Classes are written as six flags in the order α-acyclic, free-connex,
//! hierarchical, q-hierarchical, p-hierarchical, strong-connex.

mod common;

use ivm_compiler::pipeline::{self, Report};
use ivm_compiler::plan::verdict::{Accepted, Choice, Rejected, Verdict};

struct Case {
    /// What the query is and where it comes from.
    what: &'static str,
    attrs: &'static str,
    rule: &'static str,
    classes: &'static str,
    fhtw: &'static str,
    /// The strategy keyword, or `reject`.
    strategy: &'static str,
    /// The update time bound, for accepted queries.
    update_time: &'static str,
}

const INT: &str = "";
const COUNT_IO: &str = "#[semiring(ivm::semiring::Count)] #[updates(insert_only)]";
const BOOL_IO: &str = "#[semiring(ivm::semiring::Bool)] #[updates(insert_only)]";
const BOOL: &str = "#[semiring(ivm::semiring::Bool)]";
const MINPLUS: &str = "#[semiring(ivm::semiring::MinPlus)]";
const MINPLUS_IO: &str = "#[semiring(ivm::semiring::MinPlus)] #[updates(insert_only)]";
const MAXMAX_IO: &str = "#[semiring(ivm::semiring::MaxMax)] #[updates(insert_only)]";
const ACCESS_IO: &str = "#[semiring(ivm::semiring::AccessControl)] #[updates(insert_only)]";
const INT_IO: &str = "#[updates(insert_only)]";
const REAL: &str = "#[semiring(ivm::semiring::Real)]";

#[rustfmt::skip]
const CASES: &[Case] = &[
    // "The Role of Semirings in Incremental View Maintenance" (the cases
    // named `Semirings ..`), section 4 (Ex. 11) and section 5 (Ex. 13).
    Case { what: "Semirings Q1: ∃-hierarchy-core", attrs: COUNT_IO, rule: "Q() = R(x) * S(x, y) * T(y)", classes: "110000", fhtw: "1", strategy: "reject", update_time: "" },
    Case { what: "Semirings Q2: q-core", attrs: COUNT_IO, rule: "Q(x) = S(x, y) * T(y)", classes: "111000", fhtw: "1", strategy: "reject", update_time: "" },
    Case { what: "Semirings full Q1", attrs: COUNT_IO, rule: "Q(x, y) = R(x) * S(x, y) * T(y)", classes: "110011", fhtw: "1", strategy: "two_layer", update_time: "O(1)" },
    Case { what: "Semirings full Q1 under deletes", attrs: INT, rule: "Q(x, y) = R(x) * S(x, y) * T(y)", classes: "110011", fhtw: "1", strategy: "reject", update_time: "" },
    Case { what: "Semirings Ex. 13", attrs: MINPLUS_IO, rule: "Q(a, c) = R(a, b) * S(a, c) * T(c, d)", classes: "110011", fhtw: "1", strategy: "two_layer", update_time: "O(1)" },
    Case { what: "Semirings Ex. 13 over Count", attrs: COUNT_IO, rule: "Q(a, c) = R(a, b) * S(a, c) * T(c, d)", classes: "110011", fhtw: "1", strategy: "two_layer", update_time: "O(1)" },
    Case { what: "Semirings Ex. 13 under deletes", attrs: INT, rule: "Q(a, c) = R(a, b) * S(a, c) * T(c, d)", classes: "110011", fhtw: "1", strategy: "reject", update_time: "" },
    // "Answering Conjunctive Queries with Aggregations under Updates" (the
    // cases named `Aggregations ..`), sections 2 to 5.
    Case { what: "Aggregations Q_hier over Count", attrs: COUNT_IO, rule: "Q() = R1(x1, x2) * R2(x1) * R3(x2)", classes: "110000", fhtw: "1", strategy: "reject", update_time: "" },
    Case { what: "Aggregations Q_hier over Bool", attrs: BOOL_IO, rule: "Q() = R1(x1, x2) * R2(x1) * R3(x2)", classes: "110000", fhtw: "1", strategy: "crown", update_time: "O(1)" },
    Case { what: "Aggregations Q_hier over MaxMax (no q-core)", attrs: MAXMAX_IO, rule: "Q() = R1(x1, x2) * R2(x1) * R3(x2)", classes: "110000", fhtw: "1", strategy: "cluster_crown", update_time: "O(1)" },
    Case { what: "Aggregations Q_hier over AccessControl", attrs: ACCESS_IO, rule: "Q() = R1(x1, x2) * R2(x1) * R3(x2)", classes: "110000", fhtw: "1", strategy: "crown", update_time: "O(1)" },
    Case { what: "Aggregations Q_qcore over MaxMax", attrs: MAXMAX_IO, rule: "Q(x) = S(x, y) * T(y)", classes: "111000", fhtw: "1", strategy: "reject", update_time: "" },
    Case { what: "Aggregations Q_qcore over Bool", attrs: BOOL_IO, rule: "Q(x) = S(x, y) * T(y)", classes: "111000", fhtw: "1", strategy: "crown", update_time: "O(1)" },
    Case { what: "Aggregations MaxMax example with ∃-core, no q-core", attrs: MAXMAX_IO, rule: "Q(x3) = R1(x1, x2, x3) * R2(x1, x3) * R3(x2, x3)", classes: "110000", fhtw: "1", strategy: "cluster_crown", update_time: "O(1)" },
    Case { what: "Aggregations path Q_4", attrs: COUNT_IO, rule: "Q() = R1(x1) * R2(x1, x2) * R3(x2, x3) * R4(x3)", classes: "110000", fhtw: "1", strategy: "reject", update_time: "" },
    Case { what: "Aggregations path Q_5", attrs: COUNT_IO, rule: "Q() = R1(x1) * R2(x1, x2) * R3(x2, x3) * R4(x3, x4) * R5(x4)", classes: "110000", fhtw: "1", strategy: "reject", update_time: "" },
    Case { what: "Aggregations path Q_h, h = 3", attrs: COUNT_IO, rule: "Q(x1) = R1(x1, x2) * R2(x2, x3) * R3(x3)", classes: "110000", fhtw: "1", strategy: "reject", update_time: "" },
    Case { what: "Aggregations path Q_h over Bool", attrs: BOOL_IO, rule: "Q(x1) = R1(x1, x2) * R2(x2, x3) * R3(x3)", classes: "110000", fhtw: "1", strategy: "crown", update_time: "O(1)" },
    Case { what: "Aggregations star Q_2", attrs: COUNT_IO, rule: "Q() = R1(x1, x2) * R2(x1) * R3(x2)", classes: "110000", fhtw: "1", strategy: "reject", update_time: "" },
    Case { what: "Aggregations star Q_3", attrs: COUNT_IO, rule: "Q() = R1(x1, x2, x3) * R2(x1) * R3(x2) * R4(x3)", classes: "110000", fhtw: "1", strategy: "reject", update_time: "" },
    Case { what: "Aggregations Q_hier as q-hierarchical full query", attrs: INT, rule: "Q(x1, x2) = R1(x1, x2) * R2(x1) * R3(x2)", classes: "110011", fhtw: "1", strategy: "reject", update_time: "" },
    Case { what: "strong-connex path, all free", attrs: MINPLUS_IO, rule: "Q(x1, x2, x3, x4) = R1(x1) * R2(x1, x2) * R3(x2, x3) * R4(x3, x4) * R5(x4)", classes: "110011", fhtw: "1", strategy: "two_layer", update_time: "O(1)" },
    // q-hierarchical shapes.
    Case { what: "grouped two-relation count", attrs: INT, rule: "Q(k) = R(k, x) * S(k, y)", classes: "111111", fhtw: "1", strategy: "view_tree", update_time: "O(1)" },
    Case { what: "grouped count over MinPlus", attrs: MINPLUS, rule: "Q(k) = R(k, x) * S(k, y)", classes: "111111", fhtw: "1", strategy: "view_tree", update_time: "O(log N)" },
    Case { what: "grouped count over Bool", attrs: BOOL, rule: "Q(k) = R(k, x) * S(k, y)", classes: "111111", fhtw: "1", strategy: "view_tree", update_time: "O(1)" },
    Case { what: "nullary count of a join on one key", attrs: INT, rule: "Q() = R(a, b) * S(a, c)", classes: "111111", fhtw: "1", strategy: "view_tree", update_time: "O(1)" },
    Case { what: "self-join on a key", attrs: INT, rule: "Q(a) = E(a, b) * E(a, c)", classes: "111111", fhtw: "1", strategy: "view_tree", update_time: "O(1)" },
    Case { what: "single atom projection", attrs: INT, rule: "Q(a) = R(a, b, c)", classes: "111111", fhtw: "1", strategy: "view_tree", update_time: "O(1)" },
    Case { what: "single atom count", attrs: REAL, rule: "Q() = R(a)", classes: "111111", fhtw: "1", strategy: "view_tree", update_time: "O(1)" },
    Case { what: "three-level hierarchy", attrs: INT, rule: "Q(a, b) = R(a, b, c) * S(a, b, d) * T(a, e)", classes: "111111", fhtw: "1", strategy: "view_tree", update_time: "O(1)" },
    Case { what: "cartesian product", attrs: INT, rule: "Q(a, b) = R(a) * S(b)", classes: "111111", fhtw: "1", strategy: "view_tree", update_time: "O(1)" },
    Case { what: "q-hierarchical under inserts only: a view tree", attrs: COUNT_IO, rule: "Q(k) = R(k, x) * S(k, y)", classes: "111111", fhtw: "1", strategy: "view_tree", update_time: "O(1)" },
    Case { what: "q-hierarchical over MaxMax under inserts only", attrs: MAXMAX_IO, rule: "Q(k) = R(k, x) * S(k, x)", classes: "111111", fhtw: "1", strategy: "view_tree", update_time: "O(1)" },
    Case { what: "ring under insert_only is treated as deletes", attrs: INT_IO, rule: "Q(k) = R(k, x) * S(k, y)", classes: "111111", fhtw: "1", strategy: "view_tree", update_time: "O(1)" },
    // Acyclic, not free-connex.
    Case { what: "path with free ends", attrs: INT, rule: "Q(x, z) = R(x, y) * S(y, z)", classes: "101000", fhtw: "1", strategy: "reject", update_time: "" },
    Case { what: "path with free ends over Bool", attrs: BOOL_IO, rule: "Q(x, z) = R(x, y) * S(y, z)", classes: "101000", fhtw: "1", strategy: "reject", update_time: "" },
    Case { what: "matrix multiplication", attrs: COUNT_IO, rule: "Q(i, k) = A(i, j) * B(j, k)", classes: "101000", fhtw: "1", strategy: "reject", update_time: "" },
    // Cyclic.
    Case { what: "triangle count", attrs: INT, rule: "Q() = R(a, b) * S(b, c) * T(c, a)", classes: "000000", fhtw: "3/2", strategy: "ivm_eps", update_time: "O(N^0.5)" },
    Case { what: "triangle count, self-join form", attrs: INT, rule: "Q() = E(a, b) * E(b, c) * E(c, a)", classes: "000000", fhtw: "3/2", strategy: "ivm_eps", update_time: "O(N^0.5)" },
    Case { what: "triangle count, other column order", attrs: INT, rule: "Q() = R(b, a) * S(c, b) * T(a, c)", classes: "000000", fhtw: "3/2", strategy: "ivm_eps", update_time: "O(N^0.5)" },
    Case { what: "triangle count over Count, inserts", attrs: COUNT_IO, rule: "Q() = R(a, b) * S(b, c) * T(c, a)", classes: "000000", fhtw: "3/2", strategy: "ivm_eps", update_time: "O(N^0.5)" },
    Case { what: "triangle count over Real", attrs: REAL, rule: "Q() = R(a, b) * S(b, c) * T(c, a)", classes: "000000", fhtw: "3/2", strategy: "ivm_eps", update_time: "O(N^0.5)" },
    Case { what: "triangle over Bool", attrs: BOOL, rule: "Q() = R(a, b) * S(b, c) * T(c, a)", classes: "000000", fhtw: "3/2", strategy: "reject", update_time: "" },
    Case { what: "triangle over MinPlus", attrs: MINPLUS, rule: "Q() = R(a, b) * S(b, c) * T(c, a)", classes: "000000", fhtw: "3/2", strategy: "reject", update_time: "" },
    Case { what: "triangle listing under inserts", attrs: COUNT_IO, rule: "Q(a, b, c) = R(a, b) * S(b, c) * T(c, a)", classes: "000010", fhtw: "3/2", strategy: "two_layer", update_time: "O(N^0.5)" },
    Case { what: "triangle listing under deletes", attrs: INT, rule: "Q(a, b, c) = R(a, b) * S(b, c) * T(c, a)", classes: "000010", fhtw: "3/2", strategy: "reject", update_time: "" },
    Case { what: "triangles per vertex", attrs: INT, rule: "Q(a) = R(a, b) * S(b, c) * T(c, a)", classes: "000000", fhtw: "3/2", strategy: "reject", update_time: "" },
    Case { what: "4-cycle count", attrs: INT, rule: "Q() = R(a, b) * S(b, c) * T(c, d) * U(d, a)", classes: "000000", fhtw: "2", strategy: "reject", update_time: "" },
    Case { what: "4-cycle listing under inserts", attrs: BOOL_IO, rule: "Q(a, b, c, d) = R(a, b) * S(b, c) * T(c, d) * U(d, a)", classes: "000010", fhtw: "2", strategy: "two_layer", update_time: "O(N)" },
    Case { what: "Loomis-Whitney, 4 variables", attrs: INT, rule: "Q() = R(b, c, d) * S(a, c, d) * T(a, b, d) * U(a, b, c)", classes: "000000", fhtw: "4/3", strategy: "reject", update_time: "" },
    Case { what: "Loomis-Whitney listing under inserts", attrs: COUNT_IO, rule: "Q(a, b, c, d) = R(b, c, d) * S(a, c, d) * T(a, b, d) * U(a, b, c)", classes: "000010", fhtw: "4/3", strategy: "two_layer", update_time: "O(N^0.333)" },
    Case { what: "5-cycle count", attrs: INT, rule: "Q() = R(a, b) * S(b, c) * T(c, d) * U(d, e) * V(e, a)", classes: "000000", fhtw: "2", strategy: "reject", update_time: "" },
    Case { what: "triangle with a covering atom is acyclic, not hierarchical", attrs: INT, rule: "Q() = R(a, b) * S(b, c) * T(c, a) * W(a, b, c)", classes: "110000", fhtw: "1", strategy: "reject", update_time: "" },
    Case { what: "covered triangle over Bool, inserts", attrs: BOOL_IO, rule: "Q() = R(a, b) * S(b, c) * T(c, a) * W(a, b, c)", classes: "110000", fhtw: "1", strategy: "crown", update_time: "O(1)" },
];

fn run(case: &Case) -> Report {
    let text = common::item("Q", case.attrs, case.rule);
    let mut reports =
        pipeline::report_str(&text).unwrap_or_else(|e| panic!("{}: {e}\n{text}", case.what));
    reports.remove(0)
}

/// The verdict of the rule under the attributes.
fn verdict(attrs: &'static str, rule: &'static str) -> Verdict {
    let case = Case {
        what: attrs,
        attrs,
        rule,
        classes: "",
        fhtw: "",
        strategy: "",
        update_time: "",
    };
    run(&case).verdict
}

/// The accepted verdict; a panic with the rejection otherwise.
fn accepted(v: Verdict) -> Accepted {
    match v {
        Verdict::Accepted(a) => a,
        Verdict::Rejected(r) => panic!("rejected: {r:?}"),
    }
}

/// The rejection; a panic with the accepted verdict otherwise.
fn rejected(v: Verdict) -> Rejected {
    match v {
        Verdict::Rejected(r) => r,
        Verdict::Accepted(a) => panic!("accepted: {a:?}"),
    }
}

fn flags(r: &Report) -> String {
    let a = &r.analysis;
    [
        a.acyclic.is_ok(),
        a.free_connex.is_ok(),
        a.hierarchical.is_ok(),
        a.q_hierarchical.is_ok(),
        a.p_hierarchical.is_ok(),
        a.strong_connex(),
    ]
    .iter()
    .map(|&b| if b { '1' } else { '0' })
    .collect()
}

#[test]
fn catalogue_has_the_expected_classes_widths_and_verdicts() {
    assert!(CASES.len() >= 40);
    let mut failures = Vec::new();
    for case in CASES {
        let r = run(case);
        let strategy = r.verdict.strategy().map_or("reject", |s| s.keyword());
        let got = (flags(&r), r.analysis.fhtw.value.to_string(), strategy);
        let want = (case.classes.to_owned(), case.fhtw.to_owned(), case.strategy);
        if got != want {
            failures.push(format!(
                "{}: {}\n  got  {got:?}\n  want {want:?}",
                case.what, case.rule
            ));
            continue;
        }
        if let Some(v) = r.verdict.accepted() {
            let update_time = v.bounds.update.to_string();
            if update_time != case.update_time {
                failures.push(format!(
                    "{}: update time {update_time} but want {}",
                    case.what, case.update_time
                ));
            }
            assert!(r.verdict.tractable(), "{}", case.what);
        } else {
            let witness = r.verdict.witness().unwrap_or("");
            assert!(
                !witness.is_empty(),
                "{}: a rejection names its witness",
                case.what
            );
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn witnesses_name_the_cores_of_the_papers() {
    let witness = |attrs, rule| {
        verdict(attrs, rule)
            .witness()
            .unwrap_or_default()
            .to_owned()
    };
    let w = witness(COUNT_IO, "Q(x) = S(x, y) * T(y)");
    assert!(w.starts_with("a q-core"), "{w}");
    assert!(
        w.contains("`y` is summed out") && w.contains("`S(x, y)`") && w.contains("`T(y)`"),
        "{w}"
    );
    let w = witness(COUNT_IO, "Q() = R(x) * S(x, y) * T(y)");
    assert!(w.starts_with("an ∃-hierarchy-core"), "{w}");
    assert!(
        w.contains("`R(x)`") && w.contains("`S(x, y)`") && w.contains("`T(y)`"),
        "{w}"
    );
    let w = witness(BOOL_IO, "Q(x, z) = R(x, y) * S(y, z)");
    assert!(
        w.contains("free variables are joined through summed-out `y`"),
        "{w}"
    );
    let w = witness(BOOL, "Q() = R(a, b) * S(b, c) * T(c, a)");
    assert!(w.contains("not hierarchical"), "{w}");
}

#[test]
fn forced_strategies_are_checked() {
    let triangle = "Q() = R(a, b) * S(b, c) * T(c, a)";
    let v = accepted(verdict("#[strategy(ivm_eps(eps = 0.3))]", triangle));
    assert_eq!(v.strategy.keyword(), "ivm_eps");
    // The views range over pairs of heavy values: O(N) at every ε.
    assert_eq!(
        (
            v.bounds.update.to_string(),
            v.bounds.space.map(|s| s.to_string())
        ),
        ("O(N^0.7)".to_owned(), Some("O(N)".to_owned()))
    );
    for eps in ["0", "1", "0.0", "1.0"] {
        let attrs: &'static str =
            Box::leak(format!("#[strategy(ivm_eps(eps = {eps}))]").into_boxed_str());
        let v = accepted(verdict(attrs, triangle));
        assert_eq!(v.bounds.update.to_string(), "O(N)", "eps = {eps}");
    }
    let v = accepted(verdict("#[strategy(factorized)]", triangle));
    assert_eq!(v.strategy.keyword(), "factorized");
    let v = accepted(verdict("#[strategy(first_order)]", triangle));
    assert_eq!(
        (v.strategy.keyword(), v.bounds.update.to_string()),
        ("first_order", "O(N)".to_owned())
    );
    let v = accepted(verdict("#[strategy(recompute)]", triangle));
    assert_eq!(v.strategy.keyword(), "recompute");
    let delay = v.bounds.delay.to_string();
    assert!(delay.starts_with("O(N^1.5)"), "{delay}");
    // A view tree over a general variable order applies to the triangle
    // too, with each relation's bound.
    let v = accepted(verdict("#[strategy(view_tree)]", triangle));
    assert_eq!(v.strategy.keyword(), "view_tree");
    let update = v.bounds.update.to_string();
    assert!(update.contains("O(deg_T(c))"), "{update}");
    // A strategy that does not fit is a rejection that says why.
    let v = rejected(verdict("#[strategy(two_layer)]", triangle));
    assert!(
        v.reason.contains("does not apply") && v.witness.contains("inserts only"),
        "{v:?}"
    );
    let v = rejected(verdict("#[strategy(ivm_eps)]", "Q(k) = R(k, x) * S(k, y)"));
    assert!(v.witness.contains("triangle count"), "{v:?}");
    let v = rejected(verdict("#[strategy(crown)]", "Q(k) = R(k, x) * S(k, y)"));
    assert!(v.witness.contains("inserts only"), "{v:?}");
}

#[test]
fn allow_intractable_takes_the_cheapest_candidate() {
    // `#[allow(intractable)]` turns a rejection into the cheapest of a
    // view tree over a general variable order, the first-order delta and
    // recompute: for the 3-path count, the view tree (one degree for `T`,
    // where first order pays two for every atom, in linear space); for
    // matrix multiplication (one degree either way), the first-order delta.
    let v = accepted(verdict(
        "#[allow(intractable)]",
        "Q() = R(a, b) * S(b, c) * T(c, d)",
    ));
    assert_eq!(v.strategy.keyword(), "view_tree");
    assert!(matches!(v.choice, Choice::Intractable { .. }));
    assert_eq!(
        v.bounds.update.to_string(),
        "O(deg_S(c)) for `T`, O(1) for `R`, `S`"
    );
    let v = accepted(verdict(
        "#[allow(intractable)]",
        "Q(x, z) = R(x, y) * S(y, z)",
    ));
    assert_eq!(v.strategy.keyword(), "first_order");
    assert_eq!(v.bounds.update.to_string(), "O(N)");
    // The 4-cycle over the order `a → c → {b, d}` pays one degree per
    // update where first order pays two, but its views over opposite
    // corners may hold N^2 entries (width 2): saving one degree does not
    // pay for that, so the opt-in takes first order, and says why.
    let v = accepted(verdict(
        "#[allow(intractable)]",
        "Q() = R(a, b) * S(b, c) * T(c, d) * U(d, a)",
    ));
    assert_eq!(v.strategy.keyword(), "first_order");
    assert!(matches!(v.choice, Choice::Intractable { .. }));
    let weighed = v.weighed.unwrap_or_default();
    assert!(
        weighed.contains("O(N^2) space (its views may outgrow the input by more than it saves)"),
        "{weighed}"
    );
    // Forced, it gets the view tree.
    let v = accepted(verdict(
        "#[strategy(view_tree)]",
        "Q() = R(a, b) * S(b, c) * T(c, d) * U(d, a)",
    ));
    assert_eq!(v.strategy.keyword(), "view_tree");
    assert_eq!(
        v.bounds.update.to_string(),
        "O(deg_S(b)) for `R`, O(deg_R(b)) for `S`, O(deg_U(d)) for `T`, O(deg_T(d)) for `U`"
    );
    // A tractable query is unaffected by it.
    let v = accepted(verdict("#[allow(intractable)]", "Q(k) = R(k, x) * S(k, y)"));
    assert_eq!(
        (v.strategy.keyword(), v.choice),
        ("view_tree", Choice::Automatic)
    );
}

#[test]
fn user_semirings_are_judged_by_their_stated_class() {
    let v = verdict(
        "#[semiring(my::Prov, positive)] #[updates(insert_only)]",
        "Q(a, c) = R(a, b) * S(a, c) * T(c, d)",
    );
    assert_eq!(v.strategy().map(|s| s.keyword()), Some("two_layer"));
    let v = rejected(verdict(
        "#[semiring(my::Prov, positive)]",
        "Q(k) = R(k, x) * S(k, y)",
    ));
    assert!(v.reason.contains("no way to retract"), "{}", v.reason);
    let v = verdict(
        "#[semiring(my::Prov, positive, deletable)]",
        "Q(k) = R(k, x) * S(k, y)",
    );
    assert_eq!(v.strategy().map(|s| s.keyword()), Some("view_tree"));
    let v = verdict(
        "#[semiring(my::Ring, ring)] #[updates(insert_only)]",
        "Q(a, c) = R(a, b) * S(a, c) * T(c, d)",
    );
    assert!(
        v.rejected().is_some(),
        "a ring under insert_only is judged as under deletes"
    );
}

/// Every query of the catalogue, over every catalogue semiring and both
/// update models: whenever the verdict accepts it, the chosen strategy's
/// planner lowers it and the emitted code is a valid Rust file. (The
/// proptests check the generated code's answers; this checks that no
/// accepted combination falls through to an internal error.)
#[test]
fn every_accepted_combination_lowers_and_emits() {
    use ivm_compiler::emit;
    let mut lowered = 0;
    let mut failures = Vec::new();
    for case in CASES {
        for semiring in ivm_compiler::semiring::CATALOGUE {
            for updates in ["insert_delete", "insert_only"] {
                let attrs = if *semiring == "Covariance" {
                    format!("#[semiring(ivm::semiring::Covariance<2>)] #[updates({updates})]")
                } else {
                    format!("#[semiring(ivm::semiring::{semiring})] #[updates({updates})]")
                };
                let text = common::item("Q", &attrs, case.rule);
                let report = pipeline::report_str(&text)
                    .unwrap_or_else(|e| panic!("{}: {e}", case.what))
                    .remove(0);
                if report.verdict.accepted().is_none() {
                    continue;
                }
                match pipeline::lower(&report) {
                    Ok(program) => {
                        if let Err(e) = emit::to_file_string(emit::emit(&program)) {
                            failures.push(format!(
                                "{}: {attrs}: emitted code does not parse: {e}",
                                case.what
                            ));
                        }
                        lowered += 1;
                    }
                    Err(e) => failures.push(format!("{}: {attrs}: {e}", case.what)),
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(lowered > 300, "only {lowered} combinations were accepted");
}
