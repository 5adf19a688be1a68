//! The JSON form of `ivmc explain --json`: one object per query per line.

use serde_json::{Value, json};

use super::Report;
use crate::plan::verdict::Verdict;

/// The report as a JSON value.
///
/// The fields `name`, `classes` (`acyclic`, `free_connex`, `hierarchical`,
/// `q_hierarchical`, `p_hierarchical`, `strong_connex`), `fhtw` and
/// `verdict` (`tractable`, `strategy`, `update_time`, `delay`, `witness`)
/// are stable; the others may grow (`verdict.changes` says what a call of
/// the generated `changes()` costs, `verdict.update_time_under_keys` the
/// first-order deltas' bound when the declared keys hold). `local_steps` lists each atom's local
/// step (`atom`, `matches`, `factors`, `reads`), `theta` each theta factor
/// (`factor`, and `reads`: each variable with the atoms that hold it),
/// `semijoins` each semijoin (`factor`, `negated`, `reads`, `fanning_out`
/// (the relations an update of which may turn it at many values), and `body`
/// and `domain`: each `rule`, `strategy` and `update_time`).
/// A query written in SQL has `sql`, the view it was lowered from.
pub fn to_json(r: &Report) -> Value {
    let a = &r.analysis;
    let mut verdict = verdict_json(&r.verdict);
    if let Some(changes) = super::changes(r) {
        verdict["changes"] = json!(changes);
    }
    if r.verdict.accepted().is_some() {
        verdict["sharding"] = partition_json(r);
    }
    if let Some(k) = super::under_keys(r) {
        verdict["update_time_under_keys"] = json!(crate::plan::verdict::power(f64::from(k)));
    }
    if let Verdict::Rejected(v) = &r.verdict {
        verdict["hint"] = json!(v.hint);
    }
    let local_steps: Vec<Value> = super::local_steps(&r.query)
        .into_iter()
        .map(|s| json!({"atom": s.atom, "matches": s.matches, "computes": s.computes, "factors": s.factors, "reads": s.reads}))
        .collect();
    let theta: Vec<Value> = super::theta_factors(&r.query)
        .into_iter()
        .map(|t| {
            let reads: Vec<Value> = t
                .reads
                .into_iter()
                .map(|(var, atoms)| json!({"var": var, "atoms": atoms}))
                .collect();
            json!({"factor": t.factor, "reads": reads})
        })
        .collect();
    let semijoins: Vec<Value> = r
        .query
        .semijoins
        .iter()
        .zip(&r.semijoins)
        .map(|(s, reports)| {
            let part = |p: &Report| {
                json!({
                    "rule": p.query.rule_text(),
                    "strategy": strategy(&p.verdict),
                    "update_time": update_time(&p.verdict),
                })
            };
            json!({
                "factor": s.text(),
                "negated": s.negated(),
                "reads": r.query.label_of_relation(s.atom),
                "fanning_out": s.fanning_out(),
                "body": part(&reports.body),
                "domain": reports.domain.as_ref().map(part),
            })
        })
        .collect();
    let mut out = json!({
        "name": r.query.name.to_string(),
        "rule": r.query.rule_text(),
        "semiring": r.query.semiring.name,
        "updates": r.query.updates.keyword(),
        "deletes": r.query.deletes.keyword(),
        "classes": {
            "acyclic": a.acyclic.is_ok(),
            "free_connex": a.free_connex.is_ok(),
            "hierarchical": a.hierarchical.is_ok(),
            "q_hierarchical": a.q_hierarchical.is_ok(),
            "p_hierarchical": a.p_hierarchical.is_ok(),
            "strong_connex": a.strong_connex(),
        },
        "fhtw": a.fhtw.value.to_f64(),
        "fhtw_exact": a.fhtw.exact,
        "fhtw_fraction": a.fhtw.value.to_string(),
        "verdict": verdict,
        "local_steps": local_steps,
        "theta": theta,
        "semijoins": semijoins,
    });
    if let Some(order) = &r.order {
        let rows = match order.rows {
            crate::pipeline::OrderedRows::Sorted => "sorted",
            crate::pipeline::OrderedRows::Window(crate::sql::order::Keeping::Fed) => "window kept",
            crate::pipeline::OrderedRows::Window(crate::sql::order::Keeping::Sorted) => {
                "window cut at reading"
            }
        };
        out["order"] = json!({"clause": order.clause, "rows": rows});
    }
    if let Some(sql) = &r.sql {
        out["sql"] = json!(sql);
    }
    if !r.nested.is_empty() {
        let nested: Vec<Value> = r
            .nested
            .iter()
            .map(|n| {
                json!({
                    "name": n.name,
                    "shape": format!("{:?}", n.shape).to_lowercase(),
                    "read_by": n.read_by,
                    "feeds": n.feeds,
                    "report": to_json(&n.report),
                })
            })
            .collect();
        out["nested"] = json!(nested);
        out["verdict"]["sharding"] =
            json!({"workers": "one", "why": "the view reads nested views"});
    }
    out
}

/// The partition plan: the key and each relation's route, or why the
/// query runs on one worker.
fn partition_json(r: &Report) -> Value {
    use crate::plan::partition::{Partition, Route};
    match &r.partition {
        Partition::Sharded { key, routes } => {
            let routes: Vec<Value> = routes
                .iter()
                .map(|&(rel, route)| {
                    let relation = &r.query.relations[rel];
                    match route {
                        Route::Hash { column } => json!({
                            "relation": relation.name.to_string(),
                            "hash": relation.columns[column].name.to_string(),
                        }),
                        Route::Replicate => json!({
                            "relation": relation.name.to_string(),
                            "replicate": true,
                        }),
                    }
                })
                .collect();
            json!({"key": r.query.var_label(*key), "routes": routes, "text": r.partition.describe(&r.query)})
        }
        Partition::Single(reason) => {
            json!({"one_worker": reason.to_string(), "text": r.partition.describe(&r.query)})
        }
    }
}

/// The verdict's fields, but for `changes` and `hint`: its strategy (or
/// `reject`), bounds, witness, reason and source, and what was weighed.
fn verdict_json(v: &Verdict) -> Value {
    let mut verdict = json!({
        "tractable": v.tractable(),
        "accepted": v.accepted().is_some(),
        "strategy": strategy(v),
        "update_time": update_time(v),
        "delay": match v {
            Verdict::Accepted(v) => v.bounds.delay.to_string(),
            Verdict::Rejected(_) => update_time(v),
        },
        "witness": v.witness(),
        "reason": v.reason(),
        "source": match v {
            Verdict::Accepted(v) => v.source,
            Verdict::Rejected(v) => v.source,
        },
    });
    if let Verdict::Accepted(v) = v {
        if let crate::query::Strategy::IvmEps { eps } = v.strategy {
            verdict["eps"] = json!(eps);
        }
        if let Some(space) = &v.bounds.space {
            verdict["space"] = json!(space.to_string());
        }
        if let Some(weighed) = &v.weighed {
            verdict["weighed"] = json!(weighed);
        }
    }
    verdict
}

/// The strategy's keyword, or `reject`.
fn strategy(v: &Verdict) -> &'static str {
    v.strategy().map_or("reject", |s| s.keyword())
}

/// The update time of an accepted verdict; for a rejection, its lower
/// bound, or `not applicable` where it rests on none.
fn update_time(v: &Verdict) -> String {
    match v {
        Verdict::Accepted(v) => v.bounds.update.to_string(),
        Verdict::Rejected(v) => v
            .lower_bound()
            .map_or_else(|| "not applicable".to_owned(), |b| b.to_string()),
    }
}
