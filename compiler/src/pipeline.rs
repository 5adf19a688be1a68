//! The pipeline from text to the IR, stage by stage: parse and check
//! (`syntax`, or `sql` for SQL views), analyse (`analysis`), decide and
//! plan (`plan`), lower (`plan::lower`). A [`Report`] holds what the
//! stages up to the plan concluded; `explain` renders it, and `driver`
//! lowers it and hands the program to `emit`.

use crate::analysis::{self, Analysis, Hypergraph};
use crate::ir::Program;
use crate::plan::partition::{self, Partition};
use crate::plan::verdict::{self, Setting, Verdict};
use crate::plan::{self, Plan, Rejection};
use crate::query::{DeleteCheck, Deletes, Query, Reader};
use crate::sql;
use crate::sql::order::Keeping;
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
    /// What will be built, or why nothing is: the verdict's rejection as
    /// the error ([`Rejection::of`]), or an internal error.
    pub plan: Result<Plan, Rejection>,
    /// How a sharded run spreads the query's updates over workers.
    pub partition: Partition,
    /// The SQL view the query was lowered from, if it was written in SQL.
    pub sql: Option<String>,
    /// The reports of the queries behind the semijoins, in the order of
    /// `query.semijoins`.
    pub semijoins: Vec<SemijoinReports>,
    /// The nested views a SQL view reads (`docs/design.md#nested-sql`),
    /// each after those it reads.
    pub nested: Vec<NestedReport>,
    /// A SQL view's ORDER BY, LIMIT and OFFSET
    /// (`docs/design.md#order-by-and-limit`).
    pub order: Option<OrderReport>,
}

/// A SQL view's ORDER BY, LIMIT and OFFSET, as explain shows them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OrderReport {
    /// The clauses, by the row's field names: `ORDER BY revenue DESC
    /// LIMIT 10`.
    pub clause: String,
    /// How the rows are read in order.
    pub rows: OrderedRows,
}

/// How a view with ORDER BY reads its rows in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OrderedRows {
    /// ORDER BY alone: every row, sorted at reading.
    Sorted,
    /// LIMIT or OFFSET: a window, kept as [`Keeping`] says.
    Window(Keeping),
}

/// A nested view of a SQL view: its report, and what reads it.
#[derive(Debug, Clone)]
pub struct NestedReport {
    /// Its SQL name: the relation its readers read it as.
    pub name: String,
    /// Its shape: how many of its rows one update can change.
    pub shape: sql::ViewShape,
    /// The SQL names of the views that read it (nested ones, or the view).
    pub read_by: Vec<String>,
    /// The nested view whose table its rows go to, where not its own (the
    /// unmatched rows of an outer join).
    pub feeds: Option<String>,
    /// Its own report.
    pub report: Report,
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
            dialect: &query.dialect,
        },
    );
    let plan = plan::plan(&query, &analysis, &verdict);
    let partition = partition::partition(&query, &analysis);
    let semijoins = query
        .semijoins
        .iter()
        .map(|s| SemijoinReports {
            body: report(fed_by_its_parent((*s.body).clone())),
            domain: s.domain().cloned().map(fed_by_its_parent).map(report),
        })
        .collect();
    Report {
        query,
        analysis,
        verdict,
        plan,
        partition,
        sql: None,
        semijoins,
        nested: Vec::new(),
        order: None,
    }
}

/// A semijoin's body or domain, which only its outer query feeds: with
/// trusted deletes. The outer query checks each delete of its own
/// relations before it passes the change on (its base maps, or their
/// fingerprints, say whether the tuple was there), so a second check in
/// the body would hash and look the same row up again for nothing.
fn fed_by_its_parent(mut query: Query) -> Query {
    query.deletes = Deletes::Trusted;
    query
}

/// Parses, checks, analyses and plans every query in `text`: the rule
/// language, or SQL when the text starts with `CREATE`
/// ([`sql::looks_like_sql`]), one report per view with its SQL.
pub fn report_str(text: &str) -> syn::Result<Vec<Report>> {
    if sql::looks_like_sql(text) {
        let views = sql::parse(text, &sql::SpanMap::for_text(text))?;
        let mut reports = Vec::new();
        for view in views {
            let mut nested = Vec::new();
            let checked_before = view.checked_before_parts();
            for (piece, checked_before) in view.pieces.iter().zip(&checked_before) {
                let read_by = view
                    .pieces
                    .iter()
                    .chain(std::iter::once(&view))
                    .filter(|v| {
                        v.wrapper
                            .tables
                            .iter()
                            .any(|t| t.name == piece.table_name())
                    })
                    .map(|v| v.wrapper.sql_name.clone())
                    .collect();
                nested.push(NestedReport {
                    name: piece.wrapper.sql_name.clone(),
                    shape: piece.wrapper.shape,
                    read_by,
                    feeds: piece.feeds.clone(),
                    report: sql_report(
                        &piece.item,
                        checked_before,
                        Reader::Holder,
                        &piece.wrapper.sql,
                    )?,
                });
            }
            let own = checked_before
                .last()
                .expect("the view's own rule is a part");
            let report = sql_report(&view.item, own, Reader::User, &view.wrapper.sql)?;
            let keeping =
                lower(&report).map_or(Keeping::Sorted, |p| Keeping::of(&p.change_tracking()));
            let order = view.wrapper.order.as_ref().map(|o| OrderReport {
                clause: o.describe(&view.wrapper.fields),
                rows: if o.is_window() {
                    OrderedRows::Window(keeping)
                } else {
                    OrderedRows::Sorted
                },
            });
            reports.push(Report {
                nested,
                order,
                ..report
            });
        }
        return Ok(reports);
    }
    let file = syntax::parse_str(text)?;
    let queries = syntax::check(&file)?;
    Ok(queries.into_iter().map(report).collect())
}

/// Checks a SQL view's rule (one query item), given the relations whose
/// deletes the struct that holds it checks first
/// ([`View::checked_before_parts`](sql::View::checked_before_parts)) and
/// who reads its result: a nested view's rule is read by the struct that
/// holds it, through `changes()`.
pub fn sql_rule(
    item: &syntax::ast::QueryItem,
    checked_before: &[String],
    reader: Reader,
) -> syn::Result<Query> {
    let file = syntax::ast::File {
        items: vec![item.clone()],
    };
    let mut query = syntax::check(&file)?.pop().expect("one view, one query");
    query.reader = reader;
    for r in &mut query.relations {
        if !r.is_derived() && checked_before.iter().any(|c| r.name == c) {
            r.check = DeleteCheck::Holder;
        }
    }
    Ok(query)
}

/// The report of a SQL view's rule (one query), with its SQL.
fn sql_report(
    item: &syntax::ast::QueryItem,
    checked_before: &[String],
    reader: Reader,
    sql: &str,
) -> syn::Result<Report> {
    let query = sql_rule(item, checked_before, reader)?;
    Ok(Report {
        sql: Some(sql.to_string()),
        ..report(query)
    })
}

/// Lowers one checked and planned query to the IR, or gives the error of
/// its rejection (at the atoms of the witness, or at the attribute that
/// forced a strategy that does not apply).
pub fn lower(report: &Report) -> Result<Program, syn::Error> {
    let plan = report.plan.as_ref().map_err(Rejection::to_error);
    // A semijoin's body or domain that cannot be maintained is the error,
    // said of the semijoin.
    let mut parts = Vec::new();
    let mut errors: Option<syn::Error> = plan.as_ref().err().cloned();
    for (s, r) in report.query.semijoins.iter().zip(&report.semijoins) {
        let of_semijoin = |e: syn::Error| {
            // The body and the domain are queries of their own, named in
            // their errors as queries are: that name becomes the
            // semijoin's, in the outer query.
            let subject = |q: &Query| q.dialect.subject(&q.name);
            let outer = format!("`{}` in {}", s.text(), subject(&report.query));
            e.into_iter()
                .map(|e| {
                    let message = e.to_string().replace(&subject(&r.body.query), &outer);
                    let message = match &r.domain {
                        Some(d) => message.replace(&subject(&d.query), &outer),
                        None => message,
                    };
                    syn::Error::new(e.span(), message)
                })
                .reduce(|mut all, e| {
                    all.combine(e);
                    all
                })
                .expect("an error has a message")
        };
        let body = lower(&r.body).map_err(of_semijoin);
        let domain = r
            .domain
            .as_ref()
            .map(lower)
            .transpose()
            .map_err(of_semijoin);
        match (body, domain) {
            (Ok(body), Ok(domain)) => parts.push((body, domain)),
            (Err(e), _) | (_, Err(e)) => match &mut errors {
                Some(all) => all.combine(e),
                None => errors = Some(e),
            },
        }
    }
    if let Some(e) = errors {
        return Err(e);
    }
    plan::lower(
        &report.query,
        plan.expect("no error"),
        &report.verdict,
        &report.partition,
        parts,
    )
}
