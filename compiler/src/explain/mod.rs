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
use crate::sql;
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
    /// The SQL view the query was lowered from, if it was written in SQL.
    pub sql: Option<String>,
    /// The reports of the queries behind the semijoins, in the order of
    /// `query.semijoins`.
    pub semijoins: Vec<SemijoinReports>,
}

/// The reports of a semijoin's body and (for `not exists`) domain, each a
/// query of its own over `Int`.
#[derive(Debug, Clone)]
pub struct SemijoinReports {
    /// The body's count.
    pub body: Report,
    /// The domain's count, for `not exists`.
    pub domain: Option<Report>,
}

/// What `changes()` costs for the query's generated code (`None` when it
/// is rejected): from the IR it lowers to.
pub fn changes(r: &Report) -> Option<&'static str> {
    let program = crate::driver::lower(r).ok()?;
    Some(
        program
            .change_tracking()
            .describe(program.output.head.is_empty()),
    )
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
    let semijoins = query
        .semijoins
        .iter()
        .map(|s| SemijoinReports {
            body: report((*s.body).clone()),
            domain: s.domain.as_deref().cloned().map(report),
        })
        .collect();
    Report {
        query,
        analysis,
        verdict,
        plan,
        sql: None,
        semijoins,
    }
}

/// Parses, checks, analyses and plans every query in `text`: the rule
/// language, or SQL when the text starts with `CREATE`
/// ([`sql::looks_like_sql`]), one report per view with its SQL.
pub fn explain_str(text: &str) -> syn::Result<Vec<Report>> {
    if sql::looks_like_sql(text) {
        let views = sql::parse(text, &sql::SpanMap::for_text(text))?;
        let mut reports = Vec::new();
        for view in views {
            let file = syntax::ast::File {
                items: vec![view.item],
            };
            for query in syntax::check(&file)? {
                reports.push(Report {
                    sql: Some(view.wrapper.sql.clone()),
                    ..report(query)
                });
            }
        }
        return Ok(reports);
    }
    let file = syntax::parse_str(text)?;
    let queries = syntax::check(&file)?;
    Ok(queries.into_iter().map(report).collect())
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
