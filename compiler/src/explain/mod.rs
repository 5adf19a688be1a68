//! `ivmc explain`: what the compiler concludes about each query, for people
//! (indented text with the plan drawn as a tree) and for tools (one JSON
//! object per line).

mod json;
mod text;
mod tree;

pub use json::to_json;
pub use text::to_text;

use crate::pipeline::{self, Report};
use crate::query::Query;

/// For a query kept by first-order deltas, the exponent `k` of their
/// `O(N^k)` bound under its declared keys (`analysis::keys`), where it
/// has keys and `k` is below the bound without them.
pub fn under_keys(r: &Report) -> Option<u32> {
    let hg = &r.analysis.hypergraph;
    let first_order = r
        .verdict
        .accepted()
        .is_some_and(|v| v.strategy == crate::query::Strategy::FirstOrder);
    if !first_order || !crate::analysis::keys::any(hg) {
        return None;
    }
    let k = crate::analysis::hypergraph::members(hg.relations())
        .map(|i| crate::analysis::keys::first_order_delta(hg, i))
        .max()?;
    (f64::from(k) < crate::analysis::width::first_order_exponent(hg).to_f64()).then_some(k)
}

/// What `changes()` costs for the query's generated code (`None` when it
/// is rejected): from the IR it lowers to.
pub fn changes(r: &Report) -> Option<&'static str> {
    let program = pipeline::lower(r).ok()?;
    Some(program.change_tracking().describe(program.head.is_empty()))
}

/// What explain says of one atom's local step.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocalStepView {
    /// The atom as written.
    pub atom: String,
    /// What a tuple must match to enter, per column: `mktsegment =
    /// "BUILDING"`, `b = a` (a repeated variable), `comment summed out
    /// (`_`)`.
    pub matches: Vec<String>,
    /// The columns the atom computes, as written (`{ let y: u32 = a % 3 }`).
    pub computes: Vec<String>,
    /// The factors local to the atom, as written.
    pub factors: Vec<String>,
    /// The derived relation the atom reads, with its columns.
    pub reads: String,
}

/// What explain says of one theta factor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ThetaView {
    /// The factor as written.
    pub factor: String,
    /// Each variable it reads, with the atoms that hold it.
    pub reads: Vec<(String, Vec<String>)>,
}

/// The local steps of a query's atoms, in atom order.
pub fn local_steps(q: &Query) -> Vec<LocalStepView> {
    use crate::query::Arg;
    let mut out = Vec::new();
    for (i, atom) in q.atoms.iter().enumerate() {
        let Some(local) = &atom.local else {
            continue;
        };
        let columns = &q.relations[local.source].columns;
        let mut matches = Vec::new();
        let mut first: Vec<(usize, usize)> = Vec::new();
        for (c, arg) in local.args.iter().enumerate() {
            let column = &columns[c].name;
            match arg {
                Arg::Const(e) => matches.push(format!("{column} = {}", crate::query::expr_text(e))),
                Arg::Wildcard => matches.push(format!("{column} summed out (`_`)")),
                Arg::Var(v) => match first.iter().find(|(w, _)| w == v) {
                    Some(&(_, c0)) => matches.push(format!("{column} = {}", columns[c0].name)),
                    None => first.push((*v, c)),
                },
                Arg::Some(v) => {
                    matches.push(format!("{column} is not NULL (`Some`)"));
                    match first.iter().find(|(w, _)| w == v) {
                        Some(&(_, c0)) => {
                            matches.push(format!("{column} = {}", columns[c0].name));
                        }
                        None => first.push((*v, c)),
                    }
                }
            }
        }
        let vars: Vec<String> = atom
            .vars
            .iter()
            .map(|&v| q.variables[v].name.to_string())
            .collect();
        let (nullary, written): (Vec<_>, Vec<_>) = local
            .lets
            .iter()
            .partition(|l| l.kind == crate::query::LetKind::Nullary);
        let semijoin = q.semijoins.iter().any(|s| s.atom == i);
        matches.extend(nullary.iter().map(|l| {
            let value = if semijoin {
                "correlates on no variable: a nullary factor, the semijoin's indicator"
            } else {
                "binds no variable: a nullary factor, the sum of the payloads of the tuples that enter"
            };
            format!(
                "{value}, kept as one entry at `{} = true` and multiplied into every derivation",
                q.variables[l.var].name
            )
        }));
        out.push(LocalStepView {
            atom: q.atom_label(i),
            matches,
            computes: written.iter().map(|l| q.let_text(l)).collect(),
            factors: local.factors.iter().map(|f| f.text()).collect(),
            reads: format!("{}({})", q.relations[atom.relation].name, vars.join(", ")),
        });
    }
    out
}

/// The theta factors of a query, in the order written.
pub fn theta_factors(q: &Query) -> Vec<ThetaView> {
    q.theta
        .iter()
        .map(|f| ThetaView {
            factor: f.text(),
            reads: f
                .vars
                .iter()
                .map(|&v| {
                    let atoms = (0..q.atoms.len())
                        .filter(|&i| q.atoms[i].vars.contains(&v))
                        .map(|i| q.atom_label(i))
                        .collect();
                    (q.variables[v].name.to_string(), atoms)
                })
                .collect(),
        })
        .collect()
}
