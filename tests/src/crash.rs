//! What the crash tests of [`ivm::durable`] share: the query they keep
//! durable, the stream of calls made to it (the same from a seed, so that
//! the child that makes them and the parent that checks them agree), and
//! the naive evaluation the parent checks a reopened directory against.
//!
//! The child is `src/bin/durable_child.rs`; the parent is
//! `tests/durable.rs`.

use ivm::durable::{Durable, DurableError};
use ivm::semiring::Int;
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

/// One call of the stream.
#[derive(Clone)]
pub enum Call {
    /// `apply` of a batch of updates.
    Apply(Vec<LedgerChange>),
    /// `retract` of one contribution, live or not.
    Retract(LedgerChange),
}

/// The `i`-th call of the stream of `seed`: small keys so that
/// retractions often meet live contributions, deltas of both signs.
pub fn call(seed: u64, i: u64) -> Call {
    let mut rng = Rng::new(rng::derive(seed, i));
    let change = |rng: &mut Rng| {
        let (a, x) = (rng.below(6) as u32, rng.below(8) as u32);
        let delta = Int(if rng.chance(0.8) { 1 } else { -1 });
        if rng.chance(0.5) {
            LedgerChange::R { a, b: x, delta }
        } else {
            LedgerChange::S { a, c: x, delta }
        }
    };
    if rng.chance(0.2) {
        let mut c = change(&mut rng);
        match &mut c {
            LedgerChange::R { delta, .. } | LedgerChange::S { delta, .. } => *delta = Int(1),
        }
        Call::Retract(c)
    } else {
        let n = 1 + rng.below(6);
        Call::Apply((0..n).map(|_| change(&mut rng)).collect())
    }
}

/// Makes the call; a refused retraction is a call made (it is logged and
/// changes nothing).
///
/// # Errors
///
/// When the log cannot be written.
pub fn make(d: &mut Durable<Ledger>, call: Call) -> Result<(), DurableError> {
    match call {
        Call::Apply(batch) => d.apply(batch),
        Call::Retract(change) => match d.retract(change) {
            Err(DurableError::Rejected(_)) => Ok(()),
            other => other,
        },
    }
}

/// An empty naive evaluator of [`Ledger`].
pub fn naive() -> Naive<Int> {
    Naive::new(
        vec![2, 2],
        vec![(0, vec![0, 1]), (1, vec![0, 2])],
        vec![0],
        Retraction::ring(),
    )
}

/// Makes the call on the naive evaluator.
pub fn make_naive(n: &mut Naive<Int>, call: &Call) {
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

/// The query's result as the naive evaluator's: head values and payload.
pub fn rows(q: &Ledger) -> Vec<(Vec<u64>, Int)> {
    let mut v: Vec<_> = q.iter().map(|((a,), p)| (vec![u64::from(a)], p)).collect();
    v.sort();
    v
}
