//! An independent oracle for the query classes and widths of
//! `docs/design.md#classes-of-queries` and the default verdict of
//! `docs/design.md#the-verdict-table`, checked against `ivmc explain --json`.
//!
//! The oracle re-implements every class definition straight from its
//! statement, with algorithms chosen to be different from the compiler's:
//!
//! - α-acyclicity is decided by brute force over all labelled trees on the
//!   atoms (decoded from Prüfer sequences), testing the running-intersection
//!   property directly; the compiler uses the GYO reduction.
//! - free-connexity is the same brute force with one extra node, the atom
//!   over the head variables.
//! - (q-, p-)hierarchy and strong-connexity are checked pairwise on the sets
//!   at(X) of atoms, as bit masks.
//! - the fractional hypertree width is the minimum, over *all* variable
//!   elimination orders (all permutations), of the largest ρ* of a bag of the
//!   elimination game on the primal graph; ρ* is computed exactly, in i128
//!   rationals, by enumerating the vertices of the dual polytope (fractional
//!   vertex packings) with Gaussian elimination on every square subsystem of
//!   its constraints. The compiler uses a subset DP over elimination orders
//!   and a simplex LP.
//!
//! Nothing from `ivm_compiler::analysis` is used: queries go in as text
//! through `explain::explain_str` (and once through the `ivmc` binary), and
//! the JSON of `explain::to_json` is compared with the oracle field by field.
//!
//! The tests: a self-check of the oracle on hand-picked queries with
//! hard-coded expectations; the same queries and a seeded sweep of several
//! thousand random queries against the compiler; a proptest of the same
//! comparison (so a failure shrinks to a small query); and one run of the
//! real binary on a batch file.

use std::cmp::Ordering;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::ops::{Add, Div, Mul, Sub};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::SystemTime;

use ivm_compiler::explain::to_json;
use ivm_compiler::pipeline::report_str;
use proptest::prelude::*;
use serde_json::Value;

// ---------------------------------------------------------------------------
// Exact rationals.

/// A rational number `n / d` in lowest terms with `d > 0`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Frac {
    n: i128,
    d: i128,
}

fn gcd(mut a: i128, mut b: i128) -> i128 {
    a = a.abs();
    b = b.abs();
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

impl Frac {
    const ZERO: Frac = Frac { n: 0, d: 1 };

    fn new(n: i128, d: i128) -> Frac {
        assert!(d != 0, "zero denominator");
        let g = gcd(n, d).max(1);
        let s = if d < 0 { -1 } else { 1 };
        Frac {
            n: s * n / g,
            d: s * d / g,
        }
    }

    fn int(n: i128) -> Frac {
        Frac { n, d: 1 }
    }

    fn to_f64(self) -> f64 {
        self.n as f64 / self.d as f64
    }
}

impl Add for Frac {
    type Output = Frac;
    fn add(self, o: Frac) -> Frac {
        Frac::new(self.n * o.d + o.n * self.d, self.d * o.d)
    }
}

impl Sub for Frac {
    type Output = Frac;
    fn sub(self, o: Frac) -> Frac {
        Frac::new(self.n * o.d - o.n * self.d, self.d * o.d)
    }
}

impl Mul for Frac {
    type Output = Frac;
    fn mul(self, o: Frac) -> Frac {
        Frac::new(self.n * o.n, self.d * o.d)
    }
}

impl Div for Frac {
    type Output = Frac;
    fn div(self, o: Frac) -> Frac {
        Frac::new(self.n * o.d, self.d * o.n)
    }
}

impl Ord for Frac {
    fn cmp(&self, o: &Frac) -> Ordering {
        (self.n * o.d).cmp(&(o.n * self.d))
    }
}

impl PartialOrd for Frac {
    fn partial_cmp(&self, o: &Frac) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}

impl std::fmt::Display for Frac {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.d == 1 {
            write!(f, "{}", self.n)
        } else {
            write!(f, "{}/{}", self.n, self.d)
        }
    }
}

/// Solves the square system `m · y = rhs` (the last column of `m` is the
/// right-hand side) by Gauss–Jordan elimination; `None` when it is singular.
fn solve(mut m: Vec<Vec<Frac>>) -> Option<Vec<Frac>> {
    let k = m.len();
    for col in 0..k {
        let pivot = (col..k).find(|&r| m[r][col] != Frac::ZERO)?;
        m.swap(col, pivot);
        let p = m[col][col];
        for x in m[col].iter_mut().skip(col) {
            *x = *x / p;
        }
        let pivot_row = m[col].clone();
        for (r, row) in m.iter_mut().enumerate() {
            let f = row[col];
            if r == col || f == Frac::ZERO {
                continue;
            }
            for (x, &pv) in row.iter_mut().zip(&pivot_row).skip(col) {
                *x = *x - f * pv;
            }
        }
    }
    Some(m.into_iter().map(|row| row[k]).collect())
}

// ---------------------------------------------------------------------------
// Queries as plain data, and their text.

/// One query: variable names, atoms (relation name and variable indexes),
/// and the head (free variables, in head order).
#[derive(Clone, Debug)]
struct Spec {
    vars: Vec<String>,
    atoms: Vec<(String, Vec<usize>)>,
    head: Vec<usize>,
}

impl Spec {
    /// Builds a query from atoms over raw variable numbers `i` (named `x{i}`);
    /// head variables that occur in no atom are dropped, as are repeats.
    fn from_raw(atoms: &[(String, Vec<usize>)], head: &[usize]) -> Spec {
        let mut raw: Vec<usize> = Vec::new();
        for (_, vs) in atoms {
            for &v in vs {
                if !raw.contains(&v) {
                    raw.push(v);
                }
            }
        }
        let index = |v: usize| raw.iter().position(|&w| w == v);
        let mut h = Vec::new();
        for &v in head {
            if let Some(i) = index(v)
                && !h.contains(&i)
            {
                h.push(i);
            }
        }
        Spec {
            vars: raw.iter().map(|v| format!("x{v}")).collect(),
            atoms: atoms
                .iter()
                .map(|(r, vs)| (r.clone(), vs.iter().map(|&v| index(v).unwrap()).collect()))
                .collect(),
            head: h,
        }
    }

    /// Parses a rule such as `Q(a, c) = R(a, b) * S(a, c)`.
    fn parse(rule: &str) -> Spec {
        fn call(s: &str) -> (String, Vec<String>) {
            let (name, rest) = s.trim().split_once('(').expect("an atom has `(`");
            let args = rest.trim().strip_suffix(')').expect("an atom ends in `)`");
            let args = args
                .split(',')
                .map(|a| a.trim().to_owned())
                .filter(|a| !a.is_empty())
                .collect();
            (name.trim().to_owned(), args)
        }
        let (head, body) = rule.split_once('=').expect("a rule has `=`");
        let mut vars: Vec<String> = Vec::new();
        let mut atoms = Vec::new();
        for atom in body.split('*') {
            let (rel, args) = call(atom);
            let mut ids = Vec::new();
            for a in args {
                let i = match vars.iter().position(|v| *v == a) {
                    Some(i) => i,
                    None => {
                        vars.push(a);
                        vars.len() - 1
                    }
                };
                ids.push(i);
            }
            atoms.push((rel, ids));
        }
        let head = call(head)
            .1
            .iter()
            .map(|a| {
                vars.iter()
                    .position(|v| v == a)
                    .expect("head variable in body")
            })
            .collect();
        Spec { vars, atoms, head }
    }

    fn rule(&self) -> String {
        let names = |vs: &[usize]| {
            vs.iter()
                .map(|&v| self.vars[v].as_str())
                .collect::<Vec<_>>()
                .join(", ")
        };
        let body: Vec<String> = self
            .atoms
            .iter()
            .map(|(r, vs)| format!("{r}({})", names(vs)))
            .collect();
        format!("Q({}) = {}", names(&self.head), body.join(" * "))
    }

    /// The query item named `name`, declaring each relation once.
    fn item(&self, name: &str) -> String {
        let mut s = format!("query {name} {{\n");
        let mut declared: Vec<&str> = Vec::new();
        for (r, vs) in &self.atoms {
            if declared.contains(&r.as_str()) {
                continue;
            }
            declared.push(r);
            let cols: Vec<String> = (0..vs.len()).map(|i| format!("c{i}: u32")).collect();
            writeln!(s, "    relation {r}({});", cols.join(", ")).unwrap();
        }
        writeln!(s, "    {};\n}}", self.rule()).unwrap();
        s
    }
}

// ---------------------------------------------------------------------------
// The oracle.

/// What the oracle expects of a query under the default `Int`,
/// `insert_delete` setting.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Expected {
    acyclic: bool,
    free_connex: bool,
    hierarchical: bool,
    q_hierarchical: bool,
    p_hierarchical: bool,
    strong_connex: bool,
    fhtw: Frac,
    triangle: bool,
}

impl Expected {
    fn strategy(&self) -> &'static str {
        if self.q_hierarchical {
            "view_tree"
        } else if self.triangle {
            "ivm_eps"
        } else {
            "reject"
        }
    }
}

fn bits(mask: u32) -> impl Iterator<Item = usize> {
    (0..32).filter(move |i| mask >> i & 1 == 1)
}

/// Decodes a Prüfer sequence over `n` nodes into the edges of its tree.
fn pruefer_tree(seq: &[usize], n: usize) -> Vec<(usize, usize)> {
    let mut degree = vec![1usize; n];
    for &s in seq {
        degree[s] += 1;
    }
    let mut edges = Vec::with_capacity(n.saturating_sub(1));
    for &s in seq {
        let leaf = (0..n).find(|&i| degree[i] == 1).unwrap();
        edges.push((leaf, s));
        degree[leaf] = 0;
        degree[s] -= 1;
    }
    let last: Vec<usize> = (0..n).filter(|&i| degree[i] == 1).collect();
    if let [a, b] = last[..] {
        edges.push((a, b));
    }
    edges
}

/// Whether some labelled tree on the hyperedges (as variable masks) has the
/// running-intersection property: for each variable, the nodes holding it
/// induce a connected subtree (a sub-forest with |S| − 1 edges).
fn has_join_tree(edges: &[u32]) -> bool {
    let n = edges.len();
    if n <= 2 {
        return true;
    }
    let all_vars = edges.iter().fold(0, |a, &e| a | e);
    let mut seq = vec![0usize; n - 2];
    loop {
        let tree = pruefer_tree(&seq, n);
        let ok = bits(all_vars).all(|v| {
            let holding = |i: usize| edges[i] >> v & 1 == 1;
            let nodes = (0..n).filter(|&i| holding(i)).count();
            let inner = tree
                .iter()
                .filter(|&&(a, b)| holding(a) && holding(b))
                .count();
            inner + 1 == nodes
        });
        if ok {
            return true;
        }
        // Next sequence, as a counter in base n.
        let mut i = 0;
        loop {
            if i == seq.len() {
                return false;
            }
            seq[i] += 1;
            if seq[i] < n {
                break;
            }
            seq[i] = 0;
            i += 1;
        }
    }
}

/// ρ*(bag): the largest fractional vertex packing of the bag's variables,
/// where each atom restricted to the bag may hold total weight at most 1;
/// equal to the smallest fractional edge cover by LP duality. Every vertex
/// of the packing polytope is the solution of |bag| tight constraints, so
/// the maximum is found by trying every square subsystem.
fn rho_star(bag: u32, edges: &[u32]) -> Frac {
    let vars: Vec<usize> = bits(bag).collect();
    let k = vars.len();
    let mut rows: Vec<u32> = edges.iter().map(|&e| e & bag).filter(|&e| e != 0).collect();
    rows.sort_unstable();
    rows.dedup();
    // A row inside another one is implied by it (y ≥ 0): drop it.
    let rows: Vec<u32> = rows
        .iter()
        .copied()
        .filter(|&r| !rows.iter().any(|&o| o != r && r & o == r))
        .collect();
    let m = rows.len();
    let mut best = Frac::ZERO;
    for choice in 0u32..1 << (m + k) {
        if choice.count_ones() as usize != k {
            continue;
        }
        let mut system = Vec::with_capacity(k);
        for c in bits(choice) {
            let (mask, rhs) = if c < m {
                (rows[c], 1)
            } else {
                (1 << vars[c - m], 0)
            };
            let mut row: Vec<Frac> = vars
                .iter()
                .map(|&v| Frac::int(i128::from(mask >> v & 1)))
                .collect();
            row.push(Frac::int(rhs));
            system.push(row);
        }
        let Some(y) = solve(system) else { continue };
        let weight = |mask: u32| {
            vars.iter()
                .zip(&y)
                .filter(|&(&v, _)| mask >> v & 1 == 1)
                .fold(Frac::ZERO, |a, (_, &w)| a + w)
        };
        let feasible =
            y.iter().all(|&w| w >= Frac::ZERO) && rows.iter().all(|&r| weight(r) <= Frac::int(1));
        if feasible {
            best = best.max(weight(bag));
        }
    }
    best
}

fn permutations(items: &mut Vec<usize>, k: usize, out: &mut Vec<Vec<usize>>) {
    if k == items.len() {
        out.push(items.clone());
        return;
    }
    for i in k..items.len() {
        items.swap(k, i);
        permutations(items, k + 1, out);
        items.swap(k, i);
    }
}

/// The fractional hypertree width: the least, over all elimination orders,
/// of the largest ρ* of a bag of the elimination game on the primal graph.
fn fhtw(nvars: usize, edges: &[u32]) -> Frac {
    let mut primal = vec![0u32; nvars];
    for &e in edges {
        for v in bits(e) {
            primal[v] |= e & !(1 << v);
        }
    }
    let mut memo: HashMap<u32, Frac> = HashMap::new();
    let mut orders = Vec::new();
    permutations(&mut (0..nvars).collect(), 0, &mut orders);
    let mut best: Option<Frac> = None;
    for order in orders {
        let mut adj = primal.clone();
        let mut alive: u32 = (1 << nvars) - 1;
        let mut width = Frac::ZERO;
        for v in order {
            let nbrs = adj[v] & alive;
            let bag = nbrs | 1 << v;
            let r = *memo.entry(bag).or_insert_with(|| rho_star(bag, edges));
            width = width.max(r);
            for u in bits(nbrs) {
                adj[u] |= nbrs & !(1 << u);
            }
            alive &= !(1 << v);
        }
        best = Some(best.map_or(width, |b| b.min(width)));
    }
    best.expect("a query has a variable")
}

/// Computes every class, the width and the triangle shape from the
/// definitions.
fn oracle(q: &Spec) -> Expected {
    let n = q.vars.len();
    assert!(n <= 16 && q.atoms.len() <= 16);
    let edges: Vec<u32> = q
        .atoms
        .iter()
        .map(|(_, vs)| vs.iter().fold(0, |m, &v| m | 1 << v))
        .collect();
    let at: Vec<u32> = (0..n)
        .map(|v| {
            (0..edges.len())
                .filter(|&i| edges[i] >> v & 1 == 1)
                .fold(0, |m, i| m | 1 << i)
        })
        .collect();
    let free: u32 = q.head.iter().fold(0, |m, &v| m | 1 << v);
    let is_free = |v: usize| free >> v & 1 == 1;
    let subset = |a: u32, b: u32| a & b == a;
    let nested_or_disjoint = |a: u32, b: u32| subset(a, b) || subset(b, a) || a & b == 0;
    let pairs = || (0..n).flat_map(move |x| (0..n).map(move |y| (x, y)));

    let hierarchical = pairs().all(|(x, y)| nested_or_disjoint(at[x], at[y]));
    let q_hierarchical = hierarchical
        && pairs()
            .all(|(x, y)| !(is_free(x) && subset(at[x], at[y]) && at[x] != at[y]) || is_free(y));
    let p_hierarchical = pairs().all(|(x, y)| match (is_free(x), is_free(y)) {
        (false, false) => nested_or_disjoint(at[x], at[y]),
        (false, true) => subset(at[x], at[y]) || at[x] & at[y] == 0,
        _ => true,
    });
    let acyclic = has_join_tree(&edges);
    let mut with_head = edges.clone();
    with_head.push(free);
    let free_connex = acyclic && has_join_tree(&with_head);
    // The triangle count, maybe times nullary factors: atoms of one
    // summed-out variable that no other atom holds.
    let nullary_factor =
        |e: &u32| e.count_ones() == 1 && at[e.trailing_zeros() as usize].count_ones() == 1;
    let core: Vec<u32> = edges
        .iter()
        .copied()
        .filter(|e| !nullary_factor(e))
        .collect();
    let core_vars = core.iter().fold(0, |m, e| m | e);
    let triangle = free == 0
        && core_vars.count_ones() == 3
        && core.len() == 3
        && core.iter().all(|e| e.count_ones() == 2)
        && (0..n)
            .filter(|&v| core_vars >> v & 1 == 1)
            .all(|v| at[v].count_ones() == 2);
    Expected {
        acyclic,
        free_connex,
        hierarchical,
        q_hierarchical,
        p_hierarchical,
        strong_connex: free_connex && p_hierarchical,
        fhtw: fhtw(n, &edges),
        triangle,
    }
}

/// Compares the compiler's JSON for `q` (named `name`) with the oracle.
fn check(q: &Spec, name: &str, json: &Value) -> Result<(), String> {
    let want = oracle(q);
    let mut diffs: Vec<String> = Vec::new();
    let mut expect = |field: &str, got: &Value, want: String, ok: bool| {
        if !ok {
            diffs.push(format!("{field}: compiler says {got}, oracle says {want}"));
        }
    };
    let got = |path: &str| json.pointer(path).cloned().unwrap_or(Value::Null);
    let name_v = got("/name");
    expect(
        "name",
        &name_v,
        name.to_owned(),
        name_v.as_str() == Some(name),
    );
    for (field, w) in [
        ("acyclic", want.acyclic),
        ("free_connex", want.free_connex),
        ("hierarchical", want.hierarchical),
        ("q_hierarchical", want.q_hierarchical),
        ("p_hierarchical", want.p_hierarchical),
        ("strong_connex", want.strong_connex),
    ] {
        let g = got(&format!("/classes/{field}"));
        expect(field, &g, w.to_string(), g.as_bool() == Some(w));
    }
    let g = got("/fhtw");
    let ok = g
        .as_f64()
        .is_some_and(|f| (f - want.fhtw.to_f64()).abs() < 1e-9);
    expect("fhtw", &g, want.fhtw.to_string(), ok);
    let g = got("/fhtw_exact");
    expect("fhtw_exact", &g, "true".into(), g.as_bool() == Some(true));
    let strategy = want.strategy();
    let tractable = strategy != "reject";
    let g = got("/verdict/tractable");
    expect(
        "verdict.tractable",
        &g,
        tractable.to_string(),
        g.as_bool() == Some(tractable),
    );
    let g = got("/verdict/strategy");
    expect(
        "verdict.strategy",
        &g,
        strategy.into(),
        g.as_str() == Some(strategy),
    );
    if strategy == "reject" {
        let g = got("/verdict/witness");
        expect(
            "verdict.witness",
            &g,
            "a non-empty string".into(),
            g.as_str().is_some_and(|s| !s.trim().is_empty()),
        );
    }
    if diffs.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "query {name}: {}\n  {}\n  compiler JSON: {json}",
            q.rule(),
            diffs.join("\n  ")
        ))
    }
}

/// Runs the compiler on `specs` as one text (names `{prefix}{i}`) and checks
/// every report; returns the mismatches.
fn check_batch(specs: &[Spec], prefix: &str) -> Vec<String> {
    let text: String = specs
        .iter()
        .enumerate()
        .map(|(i, q)| q.item(&format!("{prefix}{i}")))
        .collect();
    let reports =
        report_str(&text).unwrap_or_else(|e| panic!("the compiler rejects the batch: {e}\n{text}"));
    assert_eq!(reports.len(), specs.len(), "one report per query");
    specs
        .iter()
        .zip(&reports)
        .enumerate()
        .filter_map(|(i, (q, r))| check(q, &format!("{prefix}{i}"), &to_json(r)).err())
        .collect()
}

// ---------------------------------------------------------------------------
// Hand-picked queries with hard-coded expectations.

/// A hand-picked rule and its expected classes, in the order acyclic,
/// free-connex, hierarchical, q-, p-hierarchical, strong-connex; then fhtw
/// as (numerator, denominator) and the strategy.
type Case = (&'static str, [bool; 6], (i128, i128), &'static str);

const T: bool = true;
const F: bool = false;

const CASES: &[Case] = &[
    (
        "Q() = R(a, b) * S(b, c) * T(c, a)",
        [F, F, F, F, F, F],
        (3, 2),
        "ivm_eps",
    ),
    (
        "Q() = E(a, b) * E(b, c) * E(c, a)",
        [F, F, F, F, F, F],
        (3, 2),
        "ivm_eps",
    ),
    (
        "Q(a) = R(a, b) * S(b, c) * T(c, a)",
        [F, F, F, F, F, F],
        (3, 2),
        "reject",
    ),
    (
        "Q() = R(a, b) * S(b, c) * T(c, d) * U(d, a)",
        [F, F, F, F, F, F],
        (2, 1),
        "reject",
    ),
    (
        "Q() = R(a, b) * S(b, c) * T(c, d) * U(d, e) * V(e, a)",
        [F, F, F, F, F, F],
        (2, 1),
        "reject",
    ),
    (
        "Q() = R(a, b, c) * S(a, b, d) * T(a, c, d) * U(b, c, d)",
        [F, F, F, F, F, F],
        (4, 3),
        "reject",
    ),
    (
        "Q() = E(a, b) * E(a, c) * E(a, d) * E(b, c) * E(b, d) * E(c, d)",
        [F, F, F, F, F, F],
        (2, 1),
        "reject",
    ),
    ("Q(a) = R(a, b)", [T, T, T, T, T, T], (1, 1), "view_tree"),
    ("Q() = R(a)", [T, T, T, T, T, T], (1, 1), "view_tree"),
    (
        "Q(a, b, c) = R(a, b) * S(b, c)",
        [T, T, T, T, T, T],
        (1, 1),
        "view_tree",
    ),
    (
        "Q() = R(a, b) * S(b, c)",
        [T, T, T, T, T, T],
        (1, 1),
        "view_tree",
    ),
    (
        "Q(a, d) = R(a, b) * S(b, c) * T(c, d)",
        [T, F, F, F, F, F],
        (1, 1),
        "reject",
    ),
    (
        "Q() = R(a, b) * S(b, c) * T(c, d)",
        [T, T, F, F, F, F],
        (1, 1),
        "reject",
    ),
    (
        "Q(x) = R(x, a) * S(x, b) * T(x, c)",
        [T, T, T, T, T, T],
        (1, 1),
        "view_tree",
    ),
    (
        "Q(a) = R(x, a) * S(x, b)",
        [T, T, T, F, F, F],
        (1, 1),
        "reject",
    ),
    (
        "Q(x) = S(x, y) * T(y)",
        [T, T, T, F, F, F],
        (1, 1),
        "reject",
    ),
    (
        "Q() = R(x) * S(x, y) * T(y)",
        [T, T, F, F, F, F],
        (1, 1),
        "reject",
    ),
    (
        "Q(a, c) = R(a, b) * S(a, c) * T(c, d)",
        [T, T, F, F, T, T],
        (1, 1),
        "reject",
    ),
    (
        "Q(x, z) = R(x, y) * S(y, z)",
        [T, F, T, F, F, F],
        (1, 1),
        "reject",
    ),
    (
        "Q(x, y, z) = R(x, y) * S(y, z) * T(x, z)",
        [F, F, F, F, T, F],
        (3, 2),
        "reject",
    ),
];

fn case_spec(case: &Case) -> Spec {
    Spec::parse(case.0)
}

#[test]
fn oracle_self_check() {
    for case in CASES {
        let (rule, classes, (n, d), strategy) = *case;
        let e = oracle(&case_spec(case));
        let got = [
            e.acyclic,
            e.free_connex,
            e.hierarchical,
            e.q_hierarchical,
            e.p_hierarchical,
            e.strong_connex,
        ];
        assert_eq!(got, classes, "classes of {rule}");
        assert_eq!(e.fhtw, Frac::new(n, d), "fhtw of {rule}");
        assert_eq!(e.strategy(), strategy, "strategy of {rule}");
    }
    // The arithmetic and the pieces on their own.
    assert_eq!(Frac::new(2, -4), Frac::new(-1, 2));
    assert_eq!(Frac::new(1, 3) + Frac::new(1, 6), Frac::new(1, 2));
    assert!(Frac::new(4, 3) > Frac::new(5, 4));
    assert_eq!(pruefer_tree(&[3, 3, 3, 4], 6).len(), 5);
    // ρ* of the triangle's full bag, and of a single edge.
    assert_eq!(rho_star(0b111, &[0b011, 0b110, 0b101]), Frac::new(3, 2));
    assert_eq!(rho_star(0b011, &[0b011, 0b110, 0b101]), Frac::int(1));
}

#[test]
fn hand_picked_against_compiler() {
    let specs: Vec<Spec> = CASES.iter().map(case_spec).collect();
    let failures = check_batch(&specs, "Hand");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

// ---------------------------------------------------------------------------
// The seeded sweep.

/// xorshift64*: a tiny deterministic generator.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in `0..n` (n small, bias negligible).
    fn below(&mut self, n: usize) -> usize {
        (self.next() >> 33) as usize % n
    }

    fn shuffle(&mut self, v: &mut [usize]) {
        for i in (1..v.len()).rev() {
            v.swap(i, self.below(i + 1));
        }
    }
}

/// A random query: 1–5 variables, 1–4 atoms of arity 1–3, self-joins in
/// about 30% of the queries, and a random head in random order. Half of the
/// queries are dense (3–5 variables, 3–4 atoms, mostly binary), so that
/// cycles, triangles and widths above 1 come up often.
fn random_spec(rng: &mut Rng) -> Spec {
    let dense = rng.below(2) == 0;
    let (nvars, natoms) = if dense {
        (3 + rng.below(3), 3 + rng.below(2))
    } else {
        (1 + rng.below(5), 1 + rng.below(4))
    };
    let self_joins = rng.below(10) < 3;
    let mut relations: Vec<(String, usize)> = Vec::new();
    let mut atoms = Vec::new();
    for _ in 0..natoms {
        let (rel, arity) = if self_joins && !relations.is_empty() && rng.below(2) == 0 {
            relations[rng.below(relations.len())].clone()
        } else {
            let arity = if dense && rng.below(3) != 0 {
                2
            } else {
                1 + rng.below(nvars.min(3))
            };
            let r = (format!("R{}", relations.len()), arity);
            relations.push(r.clone());
            r
        };
        let mut pool: Vec<usize> = (0..nvars).collect();
        rng.shuffle(&mut pool);
        pool.truncate(arity);
        atoms.push((rel, pool));
    }
    let mut head: Vec<usize> = (0..nvars).collect();
    match rng.below(4) {
        0 => head.clear(),
        1 => {}
        _ => head.retain(|_| rng.below(2) == 0),
    }
    rng.shuffle(&mut head);
    Spec::from_raw(&atoms, &head)
}

const SWEEP: usize = 4000;
const BATCH: usize = 200;

#[test]
fn sweep_against_compiler() {
    let start = std::time::Instant::now();
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let specs: Vec<Spec> = (0..SWEEP).map(|_| random_spec(&mut rng)).collect();
    let mut failures = Vec::new();
    for (b, chunk) in specs.chunks(BATCH).enumerate() {
        failures.extend(check_batch(chunk, &format!("B{b}Q")));
    }
    // Coverage: the sweep must reach every kind of query it is meant to test.
    let expected: Vec<Expected> = specs.iter().map(oracle).collect();
    let count = |f: &dyn Fn(&Expected) -> bool| expected.iter().filter(|e| f(e)).count();
    let stats = [
        ("cyclic", count(&|e| !e.acyclic)),
        (
            "acyclic, not free-connex",
            count(&|e| e.acyclic && !e.free_connex),
        ),
        ("hierarchical", count(&|e| e.hierarchical)),
        ("q-hierarchical", count(&|e| e.q_hierarchical)),
        (
            "p-hierarchical, not hierarchical",
            count(&|e| e.p_hierarchical && !e.hierarchical),
        ),
        ("strong-connex", count(&|e| e.strong_connex)),
        ("fhtw > 1", count(&|e| e.fhtw > Frac::int(1))),
        ("fhtw not an integer", count(&|e| e.fhtw.d != 1)),
        ("triangle", count(&|e| e.triangle)),
    ];
    eprintln!(
        "oracle sweep: {SWEEP} queries in {:?}; {stats:?}",
        start.elapsed()
    );
    assert!(
        failures.is_empty(),
        "{} of {SWEEP} queries disagree with the oracle:\n{}",
        failures.len(),
        failures
            .iter()
            .take(20)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
    for (what, n) in stats {
        assert!(n > 0, "the sweep has no query that is {what}");
    }
}

// ---------------------------------------------------------------------------
// The proptest: same comparison, with shrinking.

fn arb_spec() -> impl Strategy<Value = Spec> {
    let vars: Vec<usize> = (0..5).collect();
    let atom = (
        0usize..3,
        proptest::sample::subsequence(vars.clone(), 1..=3).prop_shuffle(),
    )
        .prop_map(|(r, vs)| (format!("{}{}", ["R", "S", "T"][r], vs.len()), vs));
    (
        proptest::collection::vec(atom, 1..=4),
        proptest::sample::subsequence(vars, 0..=5).prop_shuffle(),
    )
        .prop_map(|(atoms, head)| Spec::from_raw(&atoms, &head))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn proptest_against_compiler(q in arb_spec()) {
        let failures = check_batch(std::slice::from_ref(&q), "P");
        prop_assert!(failures.is_empty(), "{}", failures.join("\n"));
    }
}

// ---------------------------------------------------------------------------
// The binary: `ivmc explain --json FILE` prints what the library gives.

/// The newest modification time under `dir` (recursively).
fn newest(dir: &Path) -> Option<SystemTime> {
    let mut best = None;
    for entry in std::fs::read_dir(dir).ok()?.flatten() {
        let path = entry.path();
        let t = if path.is_dir() {
            newest(&path)
        } else {
            entry.metadata().and_then(|m| m.modified()).ok()
        };
        best = best.max(t);
    }
    best
}

/// The path of a built, up-to-date `ivmc`, building it if needed.
fn ivmc() -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent()?.to_owned();
    let bin = root
        .join("target/debug")
        .join(format!("ivmc{}", std::env::consts::EXE_SUFFIX));
    let built = std::fs::metadata(&bin).and_then(|m| m.modified()).ok();
    let sources = newest(&root.join("compiler")).max(newest(&root.join("cli")));
    if built.is_none() || built < sources {
        let status = Command::new(env!("CARGO"))
            .args(["build", "-p", "ivmc"])
            .current_dir(&root)
            .status()
            .ok()?;
        assert!(status.success(), "cargo build of ivmc failed");
    }
    bin.exists().then_some(bin)
}

#[test]
fn binary_json_matches_library() {
    let Some(bin) = ivmc() else {
        eprintln!("skipped: no ivmc binary at target/debug");
        return;
    };
    let mut rng = Rng(0xD1B5_4A32_D192_ED03);
    let mut specs: Vec<Spec> = CASES.iter().map(case_spec).collect();
    specs.extend((0..BATCH).map(|_| random_spec(&mut rng)));
    let text: String = specs
        .iter()
        .enumerate()
        .map(|(i, q)| q.item(&format!("Bin{i}")))
        .collect();
    let file = std::env::temp_dir().join(format!("ivm-oracle-{}.ivm", std::process::id()));
    std::fs::write(&file, &text).unwrap();
    let out = Command::new(&bin)
        .args(["explain", "--json"])
        .arg(&file)
        .output()
        .unwrap();
    std::fs::remove_file(&file).ok();
    assert!(
        out.status.success(),
        "ivmc failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object per line"))
        .collect();
    let reports = report_str(&text).unwrap();
    assert_eq!(lines.len(), specs.len(), "one line per query");
    let mut failures = Vec::new();
    for (i, ((q, line), r)) in specs.iter().zip(&lines).zip(&reports).enumerate() {
        let (mut bin_json, mut lib_json) = (line.clone(), to_json(r));
        let (fb, fl) = (bin_json["fhtw"].as_f64(), lib_json["fhtw"].as_f64());
        assert!(
            fb.zip(fl).is_some_and(|(a, b)| (a - b).abs() < 1e-12),
            "fhtw of Bin{i}: binary {fb:?}, library {fl:?}"
        );
        bin_json["fhtw"] = Value::Null;
        lib_json["fhtw"] = Value::Null;
        assert_eq!(bin_json, lib_json, "binary and library differ on Bin{i}");
        failures.extend(check(q, &format!("Bin{i}"), line).err());
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
