//! Random update streams: what the harness feeds a generated query and the
//! naive evaluator alike.
//!
//! A query is driven by a sequence of short *episodes*, each from an empty
//! database or a `bulk_load`, so that every episode starts from a state the
//! strategies build in different ways, payloads stay small (no overflow),
//! and a failure shrinks to a few steps. Each episode draws its own value
//! domain (as small as one value), its skew towards a hot value, its cap on
//! live tuples per relation and its mix of operations, so that both sparse
//! and dense, uniform and skewed, insert-heavy and delete-heavy states
//! occur.

use crate::harness::Case;
use crate::payload::Payload;
use crate::rng::Rng;

/// One update of relation `.0` at tuple `.1` by payload `.2`.
pub type Contribution<K> = (usize, Vec<u64>, K);

/// One call of the generated API.
#[derive(Clone, Debug, PartialEq)]
pub enum Op<K> {
    /// `update_<rel>(tuple, delta)`: zero and negative deltas included.
    Update(usize, Vec<u64>, K),
    /// `insert_<rel>(tuple)`.
    Insert(usize, Vec<u64>),
    /// `delete_<rel>(tuple)`, of a present or an absent tuple.
    Delete(usize, Vec<u64>),
    /// `retract_<rel>(tuple, delta)`, of a live contribution or not.
    Retract(usize, Vec<u64>, K),
    /// `apply(batch)`.
    Apply(Vec<Contribution<K>>),
    /// `snapshot` into bytes and `restore` from them: the restored struct
    /// takes the original's place.
    Restore,
    /// `changes()`: the output tuples whose payload changed since the
    /// previous call (or since the start, or the last `Restore`).
    Changes,
}

impl<K> Op<K> {
    /// How many single-tuple updates the call makes.
    pub fn updates(&self) -> u64 {
        match self {
            Op::Apply(batch) => batch.len() as u64,
            Op::Restore | Op::Changes => 0,
            _ => 1,
        }
    }
}

/// A database built from scratch (`new()` when `load` is empty, else
/// `bulk_load(load)`) and the calls made to it.
#[derive(Clone, Debug, PartialEq)]
pub struct Episode<K> {
    /// The contributions of the initial `bulk_load`; empty for `new()`.
    pub load: Vec<Contribution<K>>,
    /// The calls, in order.
    pub ops: Vec<Op<K>>,
}

impl<K> Episode<K> {
    /// How many single-tuple updates the episode makes.
    pub fn updates(&self) -> u64 {
        self.load.len() as u64 + self.ops.iter().map(Op::updates).sum::<u64>()
    }
}

/// What the stream remembers of the database to aim its deletes at: each
/// relation's tuples with the contributions it added (a guide only; the
/// naive evaluator says what each call must return).
type Mirror<K> = Vec<Vec<(Vec<u64>, Vec<K>)>>;

/// The knobs one episode draws.
struct Knobs {
    /// Values are drawn from `0..domain`.
    domain: u64,
    /// The probability that a value is the hot value 0.
    skew: f64,
    /// Past this many tuples in a relation, deletes are preferred.
    cap: usize,
    /// Weights of update, insert, delete, retract and apply.
    weights: [u32; 5],
}

/// A random episode of at most `max_len` calls for `case`.
pub fn episode<K: Payload>(case: &Case, rng: &mut Rng, max_len: usize) -> Episode<K> {
    let deletes = case.deletes;
    let knobs = Knobs {
        // Mostly small domains, where tuples collide and cancel; now and
        // then a wider one, where a hot value reaches a high degree (IVMε
        // moves values between its light and heavy parts).
        domain: *rng.pick(&[1, 2, 2, 3, 3, 4, 5, 7, 12, 20]),
        skew: *rng.pick(&[0.0, 0.0, 0.4, 0.8]),
        cap: *rng.pick(&[3, 6, 12, 24, 48]),
        weights: [
            rng.range(1, 6) as u32,
            rng.range(0, 4) as u32,
            if deletes { rng.range(0, 5) as u32 } else { 0 },
            if deletes { rng.range(0, 4) as u32 } else { 0 },
            rng.range(0, 2) as u32,
        ],
    };
    // Without deletes a database only grows: shorter episodes keep
    // payloads small.
    let max_len = if deletes {
        max_len
    } else {
        max_len.div_ceil(3)
    };
    let len = 1 + rng.index(max_len.max(1));
    let mut mirror: Mirror<K> = vec![Vec::new(); case.relations.len()];
    let mut load = Vec::new();
    if rng.chance(0.25) {
        for _ in 0..rng.range(1, 8) {
            let c = contribution(case, &knobs, rng);
            remember(&mut mirror, &c);
            load.push(c);
        }
    }
    let ops = (0..len)
        .map(|_| op(case, &knobs, rng, &mut mirror))
        .collect();
    Episode { load, ops }
}

/// One random call, aimed with the mirror.
fn op<K: Payload>(case: &Case, knobs: &Knobs, rng: &mut Rng, mirror: &mut Mirror<K>) -> Op<K> {
    if rng.chance(0.03) {
        return Op::Restore;
    }
    if rng.chance(0.12) {
        return Op::Changes;
    }
    let crowded = case.deletes && mirror.iter().any(|tuples| tuples.len() > knobs.cap);
    let kind = if crowded && rng.chance(0.7) {
        2 + rng.index(2)
    } else {
        rng.weighted(&knobs.weights)
    };
    match kind {
        0 => {
            let c = contribution(case, knobs, rng);
            remember(mirror, &c);
            Op::Update(c.0, c.1, c.2)
        }
        1 => {
            let (rel, tuple) = tuple(case, knobs, rng);
            let c = (rel, tuple, K::one());
            remember(mirror, &c);
            Op::Insert(c.0, c.1)
        }
        2 | 3 => {
            let delta = if kind == 2 { K::one() } else { K::sample(rng) };
            let present: Vec<usize> = (0..mirror.len())
                .filter(|&r| !mirror[r].is_empty())
                .collect();
            // A trusted query is never asked to delete what is not there.
            if case.trusted && present.is_empty() {
                let c = contribution(case, knobs, rng);
                remember(mirror, &c);
                return Op::Update(c.0, c.1, c.2);
            }
            let (rel, tuple, delta) = if present.is_empty() || (!case.trusted && rng.chance(0.2)) {
                // Most likely absent, or absent with that contribution.
                let (rel, tuple) = tuple(case, knobs, rng);
                (rel, tuple, delta)
            } else {
                let rel = *rng.pick(&present);
                let at = rng.index(mirror[rel].len());
                let (tuple, live) = &mut mirror[rel][at];
                let tuple = tuple.clone();
                // A live contribution mostly; else whatever was drawn.
                let delta = if kind == 3 && !live.is_empty() && (case.trusted || rng.chance(0.75)) {
                    live[rng.index(live.len())].clone()
                } else {
                    delta
                };
                if let Some(pos) = live.iter().position(|c| *c == delta) {
                    live.swap_remove(pos);
                }
                if live.is_empty() {
                    mirror[rel].swap_remove(at);
                }
                (rel, tuple, delta)
            };
            if kind == 2 {
                Op::Delete(rel, tuple)
            } else {
                Op::Retract(rel, tuple, delta)
            }
        }
        _ => {
            let batch: Vec<Contribution<K>> = (0..rng.range(1, 6))
                .map(|_| contribution(case, knobs, rng))
                .collect();
            for c in &batch {
                remember(mirror, c);
            }
            Op::Apply(batch)
        }
    }
}

/// A random update: a tuple and a delta (zero now and then; negative ones
/// in a ring).
fn contribution<K: Payload>(case: &Case, knobs: &Knobs, rng: &mut Rng) -> Contribution<K> {
    let (rel, tuple) = tuple(case, knobs, rng);
    let delta = if rng.chance(0.06) {
        K::zero()
    } else {
        K::sample(rng)
    };
    (rel, tuple, delta)
}

/// A random relation and tuple of it.
fn tuple(case: &Case, knobs: &Knobs, rng: &mut Rng) -> (usize, Vec<u64>) {
    let rel = rng.index(case.relations.len());
    let tuple = (0..case.relations[rel].columns.len())
        .map(|_| {
            if rng.chance(knobs.skew) {
                0
            } else {
                rng.below(knobs.domain)
            }
        })
        .collect();
    (rel, tuple)
}

/// Records a contribution in the mirror.
fn remember<K: Payload>(mirror: &mut Mirror<K>, c: &Contribution<K>) {
    if c.2.is_zero() {
        return;
    }
    let tuples = &mut mirror[c.0];
    match tuples.iter_mut().find(|(t, _)| *t == c.1) {
        Some((_, live)) => live.push(c.2.clone()),
        None => tuples.push((c.1.clone(), vec![c.2.clone()])),
    }
}
