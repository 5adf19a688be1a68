//! What the crash tests of [`ivm::durable`] share: the queries they keep
//! durable, the stream of calls made to each (the same from a seed, so that
//! the child that makes them and the parent that checks them agree), and
//! the evaluation from scratch the parent checks a reopened directory
//! against. Each query is a [`Subject`]: [`Ledger`], in the rule language,
//! and [`SqlLedger`], a SQL view.
//!
//! The child is `src/bin/durable_child.rs`; the parent is
//! `tests/durable.rs`.

use ivm::View;
use ivm::durable::{Durable, DurableError};
use ivm::semiring::Int;
use ivm::snapshot::Snapshot;
use ivm_fuzz::naive::{Naive, Retraction};
use ivm_fuzz::rng::{self, Rng};

ivm::ivm_query! {
    /// The query kept durable: per `a`, the product of `R`'s and `S`'s
    /// sums (a view tree with two relations and deletes).
    pub query Ledger {
        relation R(a: u32, b: u32);
        relation S(a: u32, c: u32);
        Q(a) = R(a, b) * S(a, c);
    }
}

ivm::ivm_query!(
    r#"
    CREATE TABLE r (a INT, b INT);
    CREATE TABLE s (a INT, c INT);
    CREATE VIEW sql_ledger AS
        SELECT r.a, COUNT(*) AS n, SUM(r.b * s.c) AS total
        FROM r JOIN s ON r.a = s.a
        GROUP BY r.a;
    "#
);

/// One call of a stream.
#[derive(Clone)]
pub enum Call<C> {
    /// `apply` of a batch of updates.
    Apply(Vec<C>),
    /// `retract` of one contribution, live or not.
    Retract(C),
}

/// A query the crash tests keep durable: its stream of calls and how to
/// check a state against them.
pub trait Subject: View + ivm::Retract + Snapshot + Sized
where
    Self::Change: serde::Serialize + serde::de::DeserializeOwned,
{
    /// Its name on the child's command line.
    const NAME: &'static str;
    /// The evaluation from scratch the parent keeps.
    type Model;

    /// The model of the empty database.
    fn model() -> Self::Model;

    /// The `i`-th call of the stream of `seed`.
    fn call(seed: u64, i: u64) -> Call<Self::Change>;

    /// Makes the call on the model.
    fn make_model(model: &mut Self::Model, call: &Call<Self::Change>);

    /// The model's result, one line per output row, sorted.
    fn expected(model: &Self::Model) -> Vec<String>;

    /// The query's result, as [`expected`](Self::expected) writes it.
    fn rows(q: &Self) -> Vec<String>;

    /// Makes the call; a refused retraction is a call made (it is logged
    /// and changes nothing).
    ///
    /// # Errors
    ///
    /// When the log cannot be written.
    fn make(d: &mut Durable<Self>, call: Call<Self::Change>) -> Result<(), DurableError> {
        match call {
            Call::Apply(batch) => d.apply(batch),
            Call::Retract(change) => match d.retract(change) {
                Err(DurableError::Rejected(_)) => Ok(()),
                other => other,
            },
        }
    }
}

/// Small keys, so that retractions often meet live contributions.
fn stream<C>(seed: u64, i: u64, change: impl Fn(&mut Rng, bool) -> C) -> Call<C> {
    let mut rng = Rng::new(rng::derive(seed, i));
    if rng.chance(0.2) {
        Call::Retract(change(&mut rng, true))
    } else {
        let n = 1 + rng.below(6);
        Call::Apply((0..n).map(|_| change(&mut rng, false)).collect())
    }
}

impl Subject for Ledger {
    const NAME: &'static str = "ledger";
    type Model = Naive<Int>;

    fn model() -> Naive<Int> {
        Naive::new(
            vec![2, 2],
            vec![(0, vec![0, 1]), (1, vec![0, 2])],
            vec![0],
            Retraction::ring(),
        )
    }

    /// Deltas of both signs in batches; a retraction takes back one.
    fn call(seed: u64, i: u64) -> Call<LedgerChange> {
        stream(seed, i, |rng, retraction| {
            let (a, x) = (rng.below(6) as u32, rng.below(8) as u32);
            let delta = Int(if retraction || rng.chance(0.8) { 1 } else { -1 });
            if rng.chance(0.5) {
                LedgerChange::R { a, b: x, delta }
            } else {
                LedgerChange::S { a, c: x, delta }
            }
        })
    }

    fn make_model(n: &mut Naive<Int>, call: &Call<LedgerChange>) {
        let parts = |c: &LedgerChange| match *c {
            LedgerChange::R { a, b, delta } => (0, [u64::from(a), u64::from(b)], delta),
            LedgerChange::S { a, c, delta } => (1, [u64::from(a), u64::from(c)], delta),
        };
        match call {
            Call::Apply(batch) => {
                for c in batch {
                    let (rel, t, d) = parts(c);
                    n.update(rel, &t, d);
                }
            }
            Call::Retract(c) => {
                let (rel, t, d) = parts(c);
                let _ = n.retract(rel, &t, d);
            }
        }
    }

    fn expected(n: &Naive<Int>) -> Vec<String> {
        let mut v: Vec<String> = n
            .result()
            .into_iter()
            .map(|(k, p)| format!("{k:?} {}", p.0))
            .collect();
        v.sort();
        v
    }

    fn rows(q: &Ledger) -> Vec<String> {
        let mut v: Vec<String> = q
            .iter()
            .map(|((a,), p)| format!("{:?} {}", [u64::from(a)], p.0))
            .collect();
        v.sort();
        v
    }
}

/// The rows of `r` and `s` alive, each with its number of copies.
#[derive(Default)]
pub struct Tables {
    r: std::collections::BTreeMap<(i32, i32), i64>,
    s: std::collections::BTreeMap<(i32, i32), i64>,
}

impl Subject for SqlLedger {
    const NAME: &'static str = "sql";
    type Model = Tables;

    fn model() -> Tables {
        Tables::default()
    }

    /// Rows inserted in batches; a retraction deletes one, present or not.
    fn call(seed: u64, i: u64) -> Call<SqlLedgerChange> {
        stream(seed, i, |rng, _| {
            let (a, x) = (rng.below(6) as i32, rng.below(8) as i32 - 3);
            if rng.chance(0.5) {
                SqlLedgerChange::R { a, b: x }
            } else {
                SqlLedgerChange::S { a, c: x }
            }
        })
    }

    fn make_model(t: &mut Tables, call: &Call<SqlLedgerChange>) {
        let changes: Vec<(&SqlLedgerChange, bool)> = match call {
            Call::Apply(batch) => batch.iter().map(|c| (c, true)).collect(),
            Call::Retract(c) => vec![(c, false)],
        };
        for (c, insert) in changes {
            let (rows, row) = match *c {
                SqlLedgerChange::R { a, b } => (&mut t.r, (a, b)),
                SqlLedgerChange::S { a, c } => (&mut t.s, (a, c)),
            };
            if insert {
                *rows.entry(row).or_default() += 1;
            } else if let Some(copies) = rows.get_mut(&row) {
                *copies -= 1;
                if *copies == 0 {
                    rows.remove(&row);
                }
            }
        }
    }

    fn expected(t: &Tables) -> Vec<String> {
        let mut groups: std::collections::BTreeMap<i32, (i64, i64)> = Default::default();
        for (&(a, b), &m) in &t.r {
            for (&(_, c), &n) in t.s.range((a, i32::MIN)..=(a, i32::MAX)) {
                let g = groups.entry(a).or_default();
                *g = (g.0 + m * n, g.1 + m * n * i64::from(b) * i64::from(c));
            }
        }
        let mut v: Vec<String> = groups
            .into_iter()
            .map(|(a, (n, total))| format!("{a} {n} {total}"))
            .collect();
        v.sort();
        v
    }

    fn rows(q: &SqlLedger) -> Vec<String> {
        let mut v: Vec<String> = q
            .iter()
            .map(|((a,), row)| format!("{a} {} {}", row.n, row.total))
            .collect();
        v.sort();
        v
    }
}
