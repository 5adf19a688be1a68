//! The harness: drives a generated query and the naive evaluator with the
//! same random streams and compares them after every call; shrinks a
//! mismatch to a short stream and prints it as the Rust calls that
//! reproduce it.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::panic::{self, AssertUnwindSafe};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::naive::Naive;
use crate::payload::Payload;
use crate::rng::{self, Rng};
use crate::stream::{self, Contribution, Episode, Op};

/// A generated query seen through generic calls: what
/// [`codegen`](crate) writes for each query's struct. Tuples are `u64`
/// values, mapped to the columns' types by [`Column`](crate::Column);
/// relations are numbered in declaration order.
pub trait Target: ivm::snapshot::Snapshot + 'static {
    /// The payload semiring.
    type K: Payload;
    /// `new()`.
    fn fresh() -> Self;
    /// `bulk_load` of these contributions.
    fn load(contributions: &[Contribution<Self::K>]) -> Self;
    /// `update_<rel>`.
    fn update(&mut self, rel: usize, tuple: &[u64], delta: Self::K);
    /// `insert_<rel>`.
    fn insert(&mut self, rel: usize, tuple: &[u64]);
    /// `delete_<rel>`; never called on a query without deletes.
    fn delete(&mut self, rel: usize, tuple: &[u64]) -> Result<(), ivm::Error>;
    /// `retract_<rel>`; never called on a query without deletes.
    fn retract(&mut self, rel: usize, tuple: &[u64], delta: Self::K) -> Result<(), ivm::Error>;
    /// `apply` of this batch.
    fn apply_batch(&mut self, batch: &[Contribution<Self::K>]);
    /// `iter()`, collected: the head values and the payload of each row.
    fn rows(&self) -> Vec<(Vec<u64>, Self::K)>;
    /// `changes()`, collected: the head values and the payload before and
    /// after of each changed row.
    fn changed(&mut self) -> Vec<(Vec<u64>, Self::K, Self::K)>;
    /// `get` of the head values `key`.
    fn lookup(&self, key: &[u64]) -> Self::K;
    /// `len()`.
    fn count(&self) -> usize;
    /// `is_empty()`.
    fn empty(&self) -> bool;
    /// The strategy's own invariant check, where it has one.
    fn invariants(&self) -> Result<(), String> {
        Ok(())
    }
    /// The product of the rule's `{ expr }` factors for these variable
    /// values (by the case's variable indexes); one for a rule without.
    fn factor(values: &[u64]) -> Self::K {
        let _ = values;
        <Self::K as ivm::Semiring>::one()
    }
}

/// A [`Target`] behind a pointer: the calls a replay makes on the struct
/// under test. The harness drives a `Box<dyn Driven<K>>`, so its replay,
/// comparison and shrinking are compiled once per semiring, not once per
/// query (a suite compiles about a hundred queries).
trait Driven<K> {
    fn update(&mut self, rel: usize, tuple: &[u64], delta: K);
    fn insert(&mut self, rel: usize, tuple: &[u64]);
    fn delete(&mut self, rel: usize, tuple: &[u64]) -> Result<(), ivm::Error>;
    fn retract(&mut self, rel: usize, tuple: &[u64], delta: K) -> Result<(), ivm::Error>;
    fn apply_batch(&mut self, batch: &[Contribution<K>]);
    fn rows(&self) -> Vec<(Vec<u64>, K)>;
    fn changed(&mut self) -> Vec<(Vec<u64>, K, K)>;
    fn lookup(&self, key: &[u64]) -> K;
    fn count(&self) -> usize;
    fn empty(&self) -> bool;
    fn invariants(&self) -> Result<(), String>;
    /// The struct written to a snapshot and restored from it.
    fn round_trip(&self) -> Boxed<K>;
}

impl<T: Target> Driven<T::K> for T {
    fn update(&mut self, rel: usize, tuple: &[u64], delta: T::K) {
        Target::update(self, rel, tuple, delta);
    }
    fn insert(&mut self, rel: usize, tuple: &[u64]) {
        Target::insert(self, rel, tuple);
    }
    fn delete(&mut self, rel: usize, tuple: &[u64]) -> Result<(), ivm::Error> {
        Target::delete(self, rel, tuple)
    }
    fn retract(&mut self, rel: usize, tuple: &[u64], delta: T::K) -> Result<(), ivm::Error> {
        Target::retract(self, rel, tuple, delta)
    }
    fn apply_batch(&mut self, batch: &[Contribution<T::K>]) {
        Target::apply_batch(self, batch);
    }
    fn rows(&self) -> Vec<(Vec<u64>, T::K)> {
        Target::rows(self)
    }
    fn changed(&mut self) -> Vec<(Vec<u64>, T::K, T::K)> {
        Target::changed(self)
    }
    fn lookup(&self, key: &[u64]) -> T::K {
        Target::lookup(self, key)
    }
    fn count(&self) -> usize {
        Target::count(self)
    }
    fn empty(&self) -> bool {
        Target::empty(self)
    }
    fn invariants(&self) -> Result<(), String> {
        Target::invariants(self)
    }
    fn round_trip(&self) -> Boxed<T::K> {
        Box::new(round_trip(self))
    }
}

/// The struct under test, boxed.
type Boxed<K> = Box<dyn Driven<K>>;

/// How a replay builds the struct under test, and its factors: the
/// functions of [`Target`] that take no struct.
struct Build<K> {
    fresh: fn() -> Boxed<K>,
    load: fn(&[Contribution<K>]) -> Boxed<K>,
    factor: fn(&[u64]) -> K,
}

impl<K: Payload> Build<K> {
    fn of<T: Target<K = K>>() -> Build<K> {
        Build {
            fresh: || Box::new(T::fresh()),
            load: |contributions| Box::new(T::load(contributions)),
            factor: T::factor,
        }
    }
}

/// A generated query: its text and the shape the naive evaluator needs.
#[derive(Debug)]
pub struct Case {
    /// The struct's name.
    pub name: &'static str,
    /// The query as written (for reports).
    pub text: &'static str,
    /// The keyword of the strategy the compiler chose.
    pub strategy: &'static str,
    /// Whether it was rejected and compiled by `#[allow(intractable)]`.
    pub intractable: bool,
    /// The semiring's path.
    pub semiring: &'static str,
    /// The relations, in declaration order.
    pub relations: &'static [Relation],
    /// The atoms: relation and the variable of each column.
    pub atoms: &'static [(usize, &'static [usize])],
    /// The head variables.
    pub head: &'static [usize],
    /// The Rust type of each head variable, in head order.
    pub head_types: &'static [&'static str],
    /// Whether the struct has `delete_*` and `retract_*` (insert_delete).
    pub deletes: bool,
    /// Whether its deletes are trusted (`#[deletes(trusted)]`): the stream
    /// then deletes and retracts only live contributions.
    pub trusted: bool,
    /// The constants of the atoms: (atom, column, value). The variable of
    /// such a column in `atoms` is one of its own.
    pub constants: fn() -> Vec<(usize, usize, u64)>,
    /// The variables that are computed columns (`{ let y: T = .. }`),
    /// which no atom of `atoms` binds.
    pub computed: &'static [usize],
    /// Fills in the computed columns' values from the other variables'
    /// (by the case's variable indexes); does nothing without them.
    pub compute: fn(&mut [u64]),
    /// The semijoins (`exists(..)`, `not exists(..)`), which `atoms`
    /// leaves out.
    pub semijoins: &'static [SemijoinCase],
}

/// A semijoin of a [`Case`]: its atoms and constants as `Case::atoms` and
/// `Case::constants` give the rule's (its own variables numbered after
/// the rule's), and its condition.
#[derive(Debug)]
pub struct SemijoinCase {
    /// `not exists`.
    pub negated: bool,
    /// Its atoms: relation and the variable of each column.
    pub atoms: &'static [(usize, &'static [usize])],
    /// The constants of its atoms: (atom, column, value).
    pub constants: fn() -> Vec<(usize, usize, u64)>,
    /// Whether its conditions hold, given every variable's value.
    pub condition: Option<fn(&[u64]) -> bool>,
}

/// A relation of a [`Case`].
#[derive(Debug)]
pub struct Relation {
    /// As declared.
    pub name: &'static str,
    /// `snake_case` of the name: the methods' suffix.
    pub snake: &'static str,
    /// Each column's name and Rust type.
    pub columns: &'static [(&'static str, &'static str)],
}

/// A case and the function that drives it (a [`run`] of its struct).
pub struct Entry {
    /// The case.
    pub case: &'static Case,
    /// `run::<TheStruct>`.
    pub run: fn(&'static Case, &Config) -> Outcome,
}

/// How long and from which seed to drive each case.
#[derive(Clone, Debug)]
pub struct Config {
    /// Updates per case (each `bulk_load` contribution and each update of
    /// an `apply` counts one).
    pub steps: u64,
    /// The run's seed; each case derives its own from it and its name.
    pub seed: u64,
    /// The most calls in one episode.
    pub max_episode: usize,
}

/// What driving one case found.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// The case's name.
    pub name: &'static str,
    /// Its strategy keyword.
    pub strategy: &'static str,
    /// Whether it was compiled through `#[allow(intractable)]`.
    pub intractable: bool,
    /// Whether its deletes are trusted (`#[deletes(trusted)]`).
    pub trusted: bool,
    /// Its semiring's path.
    pub semiring: &'static str,
    /// Updates made.
    pub updates: u64,
    /// Episodes run.
    pub episodes: u64,
    /// Episodes cut short by the evaluator: its arithmetic overflowed, or
    /// the database grew past what it evaluates quickly (the stream, not
    /// the code under test, is at fault).
    pub cut_short: u64,
    /// The report of the first mismatch, shrunk; `None` when all agreed.
    pub failure: Option<String>,
}

/// Drives `T` (the struct of `case`) with random episodes until
/// `cfg.steps` updates are made or a mismatch is found.
pub fn run<T: Target>(case: &'static Case, cfg: &Config) -> Outcome {
    run_built(case, cfg, &Build::<T::K>::of::<T>())
}

/// [`run`], for the struct `build` makes.
fn run_built<K: Payload>(case: &'static Case, cfg: &Config, build: &Build<K>) -> Outcome {
    let mut outcome = Outcome {
        name: case.name,
        strategy: case.strategy,
        intractable: case.intractable,
        trusted: case.trusted,
        semiring: case.semiring,
        updates: 0,
        episodes: 0,
        cut_short: 0,
        failure: None,
    };
    let mut seeds = Rng::new(rng::derive(cfg.seed, name_hash(case.name)));
    while outcome.updates < cfg.steps {
        let seed = seeds.next_u64();
        let episode = stream::episode::<K>(case, &mut Rng::new(seed), cfg.max_episode);
        outcome.episodes += 1;
        match replay(case, build, &episode) {
            Replay::Agreed => outcome.updates += episode.updates(),
            Replay::CutShort(step) => {
                outcome.cut_short += 1;
                outcome.updates += episode.ops[..step].iter().map(Op::updates).sum::<u64>();
            }
            Replay::Mismatch(failure) => {
                let shortened = failure.step.map_or(0, |s| s + 1);
                let (small, failure) = shrink(case, build, episode.clone(), failure);
                outcome.failure = Some(report(
                    case,
                    build.factor,
                    cfg,
                    seed,
                    episode.ops.len(),
                    shortened,
                    &small,
                    &failure,
                ));
                return outcome;
            }
        }
    }
    outcome
}

/// How a replay of an episode ended.
enum Replay {
    /// The query and the evaluator agreed after every call.
    Agreed,
    /// The evaluator's arithmetic overflowed, or its join grew past
    /// [`NAIVE_BUDGET`], before call `.0`: the episode stops there.
    CutShort(usize),
    /// They disagreed.
    Mismatch(Failure),
}

/// A disagreement: after which call, and what differed.
#[derive(Clone, Debug)]
struct Failure {
    /// The index of the call after which they differ; `None` when they
    /// differ right after `new`/`bulk_load`, before any call.
    step: Option<usize>,
    /// What differed.
    message: String,
}

/// The most candidate tuples the evaluator's join may visit to evaluate
/// the result after one call (about a millisecond): past it, a cross
/// product of large relations would make the evaluator, not the code under
/// test, the whole cost of a run.
pub const NAIVE_BUDGET: u64 = 20_000;

/// Replays `episode` on a fresh struct and a fresh evaluator.
fn replay<K: Payload>(case: &Case, build: &Build<K>, episode: &Episode<K>) -> Replay {
    let mut naive = naive_of(case, build.factor);
    let loaded = catch(AssertUnwindSafe(|| {
        for (rel, tuple, delta) in &episode.load {
            naive.update(*rel, tuple, delta.clone());
        }
    }));
    if loaded.is_err() {
        return Replay::CutShort(0);
    }
    let start = None;
    let built = catch(AssertUnwindSafe(|| {
        if episode.load.is_empty() {
            (build.fresh)()
        } else {
            (build.load)(&episode.load)
        }
    }));
    let mut target = match built {
        Ok(t) => t,
        Err(panic) => return mismatch(start, format!("`bulk_load` panicked: {panic}")),
    };
    let Ok(Some(mut want)) = catch(AssertUnwindSafe(|| naive.result_within(NAIVE_BUDGET))) else {
        return Replay::CutShort(0);
    };
    if let Err(message) = read_and_compare(case, &*target, &want) {
        return mismatch(start, message);
    }
    // The result as of the last `changes()` (empty before the first, and
    // after a restore, which starts the tracking afresh).
    let mut reported: BTreeMap<Vec<u64>, K> = BTreeMap::new();
    for (step, op) in episode.ops.iter().enumerate() {
        if matches!(op, Op::Changes) {
            let got = match catch(AssertUnwindSafe(|| target.changed())) {
                Ok(got) => got,
                Err(panic) => {
                    return mismatch(Some(step), format!("`changes()` panicked: {panic}"));
                }
            };
            if let Err(message) = changes_agree(case, got, &reported, &want) {
                return mismatch(Some(step), message);
            }
            reported = want.clone();
            continue;
        }
        if matches!(op, Op::Restore) {
            reported.clear();
        }
        let Ok(expected) = catch(AssertUnwindSafe(|| apply_naive(&mut naive, op))) else {
            return Replay::CutShort(step);
        };
        // A query with trusted deletes is never asked to delete what is not
        // there (the evaluator refused it, and changed nothing).
        if case.trusted && matches!(expected, Some(Err(()))) {
            continue;
        }
        let got = match catch(AssertUnwindSafe(|| apply_target(&mut target, op))) {
            Ok(got) => got,
            Err(panic) => {
                return mismatch(
                    Some(step),
                    format!("`{}` panicked: {panic}", call_expr(case, op)),
                );
            }
        };
        if let Err(message) = outcomes_agree(case, op, expected, got) {
            return mismatch(Some(step), message);
        }
        let Ok(Some(now)) = catch(AssertUnwindSafe(|| naive.result_within(NAIVE_BUDGET))) else {
            return Replay::CutShort(step);
        };
        want = now;
        if let Err(message) = read_and_compare(case, &*target, &want) {
            return mismatch(Some(step), message);
        }
    }
    Replay::Agreed
}

fn mismatch(step: Option<usize>, message: String) -> Replay {
    Replay::Mismatch(Failure { step, message })
}

/// An empty evaluator for the case's query, with its constants and its
/// factors.
fn naive_of<K: Payload>(case: &Case, factor: fn(&[u64]) -> K) -> Naive<K> {
    let mut naive = Naive::new(
        case.relations.iter().map(|r| r.columns.len()).collect(),
        case.atoms
            .iter()
            .map(|&(rel, vars)| (rel, vars.to_vec()))
            .collect(),
        case.head.to_vec(),
        K::retraction(),
    );
    for (atom, column, value) in (case.constants)() {
        naive.set_constant(atom, column, value);
    }
    naive.set_factor(factor);
    if !case.computed.is_empty() {
        naive.set_computed(case.computed, case.compute);
    }
    for s in case.semijoins {
        naive.add_semijoin(crate::naive::Semijoin {
            negated: s.negated,
            atoms: s
                .atoms
                .iter()
                .map(|&(rel, vars)| (rel, vars.to_vec()))
                .collect(),
            constants: (s.constants)(),
            condition: s.condition,
        });
    }
    naive
}

/// What a call returned: `None` for calls without a result, else whether
/// it succeeded.
type Returned = Option<Result<(), ()>>;

fn apply_naive<K: Payload>(naive: &mut Naive<K>, op: &Op<K>) -> Returned {
    match op {
        Op::Update(rel, t, d) => naive.update(*rel, t, d.clone()),
        Op::Insert(rel, t) => naive.update(*rel, t, K::one()),
        Op::Delete(rel, t) => return Some(naive.delete(*rel, t).map_err(drop)),
        Op::Retract(rel, t, d) => return Some(naive.retract(*rel, t, d.clone()).map_err(drop)),
        Op::Apply(batch) => {
            for (rel, t, d) in batch {
                naive.update(*rel, t, d.clone());
            }
        }
        Op::Restore | Op::Changes => {}
    }
    None
}

/// The target's answer: `None` for calls without a result, else its
/// `Result`.
type Answered = Option<Result<(), ivm::Error>>;

fn apply_target<K: Payload>(target: &mut Boxed<K>, op: &Op<K>) -> Answered {
    match op {
        Op::Update(rel, t, d) => target.update(*rel, t, d.clone()),
        Op::Insert(rel, t) => target.insert(*rel, t),
        Op::Delete(rel, t) => return Some(target.delete(*rel, t)),
        Op::Retract(rel, t, d) => return Some(target.retract(*rel, t, d.clone())),
        Op::Apply(batch) => target.apply_batch(batch),
        Op::Restore => *target = target.round_trip(),
        Op::Changes => unreachable!("`replay` reads changes itself"),
    }
    None
}

/// Whether `changes()` reported exactly the rows that differ between the
/// result of its previous call, `before`, and the result now, `now`.
fn changes_agree<K: Payload>(
    case: &Case,
    got: Vec<(Vec<u64>, K, K)>,
    before: &BTreeMap<Vec<u64>, K>,
    now: &BTreeMap<Vec<u64>, K>,
) -> Result<(), String> {
    let mut reported = BTreeMap::new();
    for (key, old, new) in got {
        if old == new {
            return Err(format!(
                "`changes()` yields {key:?} with the same payload {old:?} before and after"
            ));
        }
        if reported.insert(key.clone(), (old, new)).is_some() {
            return Err(format!("`changes()` yields {key:?} twice"));
        }
    }
    let mut expected = BTreeMap::new();
    for key in before.keys().chain(now.keys()) {
        let old = before.get(key).cloned().unwrap_or_else(K::zero);
        let new = now.get(key).cloned().unwrap_or_else(K::zero);
        if old != new {
            expected.insert(key.clone(), (old, new));
        }
    }
    if reported != expected {
        let show = |m: &BTreeMap<Vec<u64>, (K, K)>| {
            let items: Vec<String> = m
                .iter()
                .map(|(k, (o, n))| format!("{}: {o:?} -> {n:?}", key_expr(case, k)))
                .collect();
            format!("{{{}}}", items.join(", "))
        };
        return Err(format!(
            "`changes()` is {}, expected {}",
            show(&reported),
            show(&expected)
        ));
    }
    Ok(())
}

/// `target` written to a snapshot and restored from it; panics (which the
/// harness reports) when either fails.
fn round_trip<T: Target>(target: &T) -> T {
    let mut bytes = Vec::new();
    if let Err(e) = target.snapshot(&mut bytes) {
        panic!("`snapshot` failed: {e}");
    }
    T::restore(&bytes[..]).unwrap_or_else(|e| panic!("`restore` of its own snapshot failed: {e}"))
}

/// Whether the call's result is the one the evaluator expects, with the
/// error naming the relation.
fn outcomes_agree<K: Payload>(
    case: &Case,
    op: &Op<K>,
    want: Returned,
    got: Answered,
) -> Result<(), String> {
    let call = call_expr(case, op);
    match (want, got) {
        (None, None) => Ok(()),
        (Some(Ok(())), Some(Ok(()))) => Ok(()),
        (Some(Err(())), Some(Err(ivm::Error::AbsentTuple { relation })))
            if relation == case.relations[op_relation(op)].name =>
        {
            Ok(())
        }
        (Some(want), Some(got)) => Err(format!(
            "`{call}` returned {got:?}, expected {}",
            if want.is_ok() {
                "Ok(())".to_string()
            } else {
                format!(
                    "Err(AbsentTuple {{ relation: {:?} }})",
                    case.relations[op_relation(op)].name
                )
            }
        )),
        _ => unreachable!("the same call on both sides"),
    }
}

/// [`compare`], with a panic while reading the result reported as a
/// mismatch.
fn read_and_compare<K: Payload>(
    case: &Case,
    target: &dyn Driven<K>,
    want: &BTreeMap<Vec<u64>, K>,
) -> Result<(), String> {
    catch(AssertUnwindSafe(|| compare(case, target, want)))
        .unwrap_or_else(|panic| Err(format!("reading the result panicked: {panic}")))
}

/// Compares everything the generated API reads with the evaluator's
/// result `want`.
fn compare<K: Payload>(
    case: &Case,
    target: &dyn Driven<K>,
    want: &BTreeMap<Vec<u64>, K>,
) -> Result<(), String> {
    let rows = target.rows();
    let mut got = BTreeMap::new();
    for (key, payload) in rows {
        if payload.is_zero() {
            return Err(format!("`iter()` yields {key:?} with a zero payload"));
        }
        if got.insert(key.clone(), payload).is_some() {
            return Err(format!("`iter()` yields {key:?} twice"));
        }
    }
    if got != *want {
        return Err(format!(
            "`iter()` is {}, expected {}",
            show(case, &got),
            show(case, want)
        ));
    }
    let len = target.count();
    if len != want.len() {
        return Err(format!("`len()` is {len}, expected {}", want.len()));
    }
    if target.empty() != want.is_empty() {
        return Err(format!(
            "`is_empty()` is {}, expected {}",
            !want.is_empty(),
            want.is_empty()
        ));
    }
    // Every row's `get` while the result is small; a spread of 64 of them
    // when it is not (`get` costs a whole evaluation under `recompute`).
    let stride = want.len().div_ceil(64).max(1);
    for (key, payload) in want.iter().step_by(stride) {
        let got = target.lookup(key);
        if got != *payload {
            return Err(format!(
                "`get(&{})` is {got:?}, expected {payload:?}",
                key_expr(case, key)
            ));
        }
    }
    // A key no stream draws (values stay below 20).
    let absent = vec![99; case.head.len()];
    if !want.contains_key(&absent) {
        let got = target.lookup(&absent);
        if !got.is_zero() {
            return Err(format!(
                "`get(&{})` is {got:?}, expected zero",
                key_expr(case, &absent)
            ));
        }
    }
    target
        .invariants()
        .map_err(|e| format!("`check_invariants()` fails: {e}"))
}

/// Shrinks a failing episode: cuts it after the failing call, then drops
/// the load, load entries, chunks of calls and single calls, and splits
/// batches into single updates, for as long as it still fails (with any
/// mismatch, not necessarily the first one).
fn shrink<K: Payload>(
    case: &Case,
    build: &Build<K>,
    mut episode: Episode<K>,
    mut failure: Failure,
) -> (Episode<K>, Failure) {
    let fails = |e: &Episode<K>| match replay(case, build, e) {
        Replay::Mismatch(f) => Some(f),
        _ => None,
    };
    let cut = |e: &mut Episode<K>, f: &Failure| e.ops.truncate(f.step.map_or(0, |s| s + 1));
    cut(&mut episode, &failure);
    loop {
        let before = (episode.load.len(), episode.ops.len(), episode.updates());
        // Fewer load entries (all of them first).
        let mut i = 0;
        while i < episode.load.len() {
            let mut tried = episode.clone();
            if i == 0 && tried.load.len() > 1 {
                tried.load.clear();
            } else {
                tried.load.remove(i);
            }
            if let Some(f) = fails(&tried) {
                cut(&mut tried, &f);
                (episode, failure) = (tried, f);
            } else {
                i += 1;
            }
        }
        // Fewer calls: chunks of halving size.
        let mut chunk = episode.ops.len().div_ceil(2).max(1);
        loop {
            let mut start = 0;
            while start < episode.ops.len() {
                let mut tried = episode.clone();
                let end = (start + chunk).min(tried.ops.len());
                tried.ops.drain(start..end);
                match fails(&tried) {
                    Some(f) => {
                        cut(&mut tried, &f);
                        (episode, failure) = (tried, f);
                    }
                    None => start += chunk,
                }
            }
            if chunk == 1 {
                break;
            }
            chunk = chunk.div_ceil(2);
        }
        // Batches into single updates.
        for at in 0..episode.ops.len() {
            let Some(Op::Apply(batch)) = episode.ops.get(at) else {
                continue;
            };
            let singles: Vec<Op<K>> = batch
                .iter()
                .map(|(r, t, d)| Op::Update(*r, t.clone(), d.clone()))
                .collect();
            let mut tried = episode.clone();
            tried.ops.splice(at..=at, singles);
            if let Some(f) = fails(&tried) {
                cut(&mut tried, &f);
                (episode, failure) = (tried, f);
                break;
            }
        }
        if (episode.load.len(), episode.ops.len(), episode.updates()) == before {
            return (episode, failure);
        }
    }
}

/// The report of a shrunk mismatch: the query, the seed, and the calls
/// that reproduce it, with the evaluator's expected results.
#[allow(
    clippy::too_many_arguments,
    reason = "the report's parts, each from elsewhere"
)]
fn report<K: Payload>(
    case: &Case,
    factor: fn(&[u64]) -> K,
    cfg: &Config,
    seed: u64,
    drawn: usize,
    shortened: usize,
    episode: &Episode<K>,
    failure: &Failure,
) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "mismatch in `{}` (strategy {}{}, semiring {}), run seed {}, episode seed {seed}",
        case.name,
        case.strategy,
        if case.intractable {
            ", through #[allow(intractable)]"
        } else {
            ""
        },
        case.semiring,
        cfg.seed
    );
    let _ = writeln!(out, "\n{}", case.text.trim_end());
    let _ = writeln!(
        out,
        "\nThe episode drew {drawn} calls and fails after the first {shortened}; shrunk to {} \
         calls:\n",
        episode.ops.len()
    );
    // The evaluator's results, for the calls that return one.
    let mut naive = naive_of(case, factor);
    for (rel, tuple, delta) in &episode.load {
        naive.update(*rel, tuple, delta.clone());
    }
    if episode.load.is_empty() {
        let _ = writeln!(out, "let mut q = {}::new();", case.name);
    } else {
        let per_relation: Vec<String> = (0..case.relations.len())
            .map(|r| {
                let items: Vec<String> = episode
                    .load
                    .iter()
                    .filter(|c| c.0 == r)
                    .map(|(_, t, d)| format!("({}, {d:?})", tuple_expr(case, r, t)))
                    .collect();
                format!("[{}]", items.join(", "))
            })
            .collect();
        let _ = writeln!(
            out,
            "let mut q = {}::bulk_load({});",
            case.name,
            per_relation.join(", ")
        );
    }
    for op in &episode.ops {
        let want = catch(AssertUnwindSafe(|| apply_naive(&mut naive, op)));
        let call = call_expr(case, op);
        let line = match want {
            _ if matches!(op, Op::Changes) => {
                "let _changes: Vec<_> = q.changes().collect();".to_owned()
            }
            _ if matches!(op, Op::Restore) => format!(
                "q = {{ let mut bytes = Vec::new(); q.snapshot(&mut bytes).unwrap(); {}::restore(&bytes[..]).unwrap() }};",
                case.name
            ),
            Ok(Some(Ok(()))) => format!("q.{call}.unwrap();"),
            Ok(Some(Err(()))) => format!("assert!(q.{call}.is_err());"),
            _ => format!("q.{call};"),
        };
        let _ = writeln!(out, "{line}");
    }
    let _ = writeln!(out, "// {}", failure.message);
    out
}

/// The call as Rust, without the receiver: `update_r(1, Int(2))`.
fn call_expr<K: Payload>(case: &Case, op: &Op<K>) -> String {
    let args = |rel: usize, t: &[u64]| -> Vec<String> {
        case.relations[rel]
            .columns
            .iter()
            .zip(t)
            .map(|(&(_, ty), &v)| crate::column::rust(ty, v))
            .collect()
    };
    let rel_of = |rel: usize| case.relations[rel].snake;
    match op {
        Op::Update(rel, t, d) => {
            format!(
                "update_{}({}, {d:?})",
                rel_of(*rel),
                args(*rel, t).join(", ")
            )
        }
        Op::Insert(rel, t) => format!("insert_{}({})", rel_of(*rel), args(*rel, t).join(", ")),
        Op::Delete(rel, t) => format!("delete_{}({})", rel_of(*rel), args(*rel, t).join(", ")),
        Op::Retract(rel, t, d) => {
            format!(
                "retract_{}({}, {d:?})",
                rel_of(*rel),
                args(*rel, t).join(", ")
            )
        }
        Op::Apply(batch) => {
            let changes: Vec<String> = batch
                .iter()
                .map(|(rel, t, d)| {
                    let r = &case.relations[*rel];
                    let fields: Vec<String> = r
                        .columns
                        .iter()
                        .zip(args(*rel, t))
                        .map(|(&(c, _), v)| format!("{c}: {v}"))
                        .collect();
                    format!(
                        "{}Change::{} {{ {}, delta: {d:?} }}",
                        case.name,
                        r.name,
                        fields.join(", ")
                    )
                })
                .collect();
            format!("apply([{}])", changes.join(", "))
        }
        Op::Restore => "snapshot(..) and restore(..)".to_owned(),
        Op::Changes => "changes()".to_owned(),
    }
}

fn op_relation<K>(op: &Op<K>) -> usize {
    match op {
        Op::Update(rel, ..) | Op::Insert(rel, _) | Op::Delete(rel, _) | Op::Retract(rel, ..) => {
            *rel
        }
        Op::Apply(_) | Op::Restore | Op::Changes => {
            unreachable!("apply, restore and changes return nothing")
        }
    }
}

/// A tuple of relation `rel` as a Rust tuple expression.
fn tuple_expr(case: &Case, rel: usize, t: &[u64]) -> String {
    let items: Vec<String> = case.relations[rel]
        .columns
        .iter()
        .zip(t)
        .map(|(&(_, ty), &v)| crate::column::rust(ty, v))
        .collect();
    rust_tuple(&items)
}

/// Head values as the Rust tuple `get` takes.
fn key_expr(case: &Case, key: &[u64]) -> String {
    let items: Vec<String> = case
        .head_types
        .iter()
        .zip(key)
        .map(|(ty, &v)| crate::column::rust(ty, v))
        .collect();
    rust_tuple(&items)
}

fn rust_tuple(items: &[String]) -> String {
    match items {
        [one] => format!("({one},)"),
        _ => format!("({})", items.join(", ")),
    }
}

/// A result as `{(1, 2): Int(3), ...}`.
fn show<K: Payload>(case: &Case, rows: &BTreeMap<Vec<u64>, K>) -> String {
    let items: Vec<String> = rows
        .iter()
        .map(|(k, p)| format!("{}: {p:?}", key_expr(case, k)))
        .collect();
    format!("{{{}}}", items.join(", "))
}

/// A stable hash of a case name, so that a case's streams depend on the
/// run seed and its name only.
fn name_hash(name: &str) -> u64 {
    name.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    })
}

thread_local! {
    /// Whether this thread is inside [`catch`], and the message of the last
    /// panic caught there, with its location.
    static CAUGHT: RefCell<Option<Option<String>>> = const { RefCell::new(None) };
}

/// Makes the panics the harness catches quiet: it reports their message
/// with the mismatch, so the default hook's output would only be noise
/// (the evaluator's overflows end an episode on purpose). Other panics,
/// such as a failing assertion of a test, go to the hook that was set
/// before.
pub fn quiet_panics() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let before = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            let caught = CAUGHT.with(|c| match &mut *c.borrow_mut() {
                Some(last) => {
                    *last = Some(info.to_string());
                    true
                }
                None => false,
            });
            if !caught {
                before(info);
            }
        }));
    });
}

/// Runs `f`, turning a panic into its message.
pub fn catch<R>(f: impl FnOnce() -> R + panic::UnwindSafe) -> Result<R, String> {
    let outer = CAUGHT.with(|c| c.borrow_mut().replace(None));
    let result = panic::catch_unwind(f);
    let caught = CAUGHT.with(|c| std::mem::replace(&mut *c.borrow_mut(), outer));
    result.map_err(|payload| {
        caught
            .flatten()
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "a panic".to_string())
    })
}

/// Drives every entry on `threads` threads; the outcomes come in entry
/// order. `progress` is told of each outcome as it arrives.
pub fn run_all(
    entries: &[Entry],
    cfg: &Config,
    threads: usize,
    progress: &(dyn Fn(&Outcome) + Sync),
) -> Vec<Outcome> {
    let next = AtomicUsize::new(0);
    let outcomes = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..threads.max(1) {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(entry) = entries.get(i) else {
                        break;
                    };
                    let outcome = (entry.run)(entry.case, cfg);
                    progress(&outcome);
                    outcomes
                        .lock()
                        .expect("no panic holds it")
                        .push((i, outcome));
                }
            });
        }
    });
    let mut outcomes = outcomes.into_inner().expect("no panic holds it");
    outcomes.sort_by_key(|(i, _)| *i);
    outcomes.into_iter().map(|(_, o)| o).collect()
}

/// The `main` of a crate the soak command builds: reads `--steps N --seed
/// S --threads T --max-episode L`, drives every entry, and prints one
/// `case` line per query (and the report of each mismatch) for the soak
/// command to read.
pub fn main(entries: &[Entry]) {
    let failed = drive(entries);
    std::process::exit(i32::from(failed));
}

/// The command line of a soak batch's binary.
#[derive(Clone, Copy, Debug)]
pub struct Args {
    /// `--steps`: updates per case.
    pub steps: u64,
    /// `--seed`: the run's seed.
    pub seed: u64,
    /// `--threads`: threads driving the cases.
    pub threads: usize,
    /// `--max-episode`: the most calls in one episode.
    pub max_episode: usize,
}

impl Args {
    /// Reads `--steps N --seed S --threads T --max-episode L` (any of
    /// them, in any order); exits with 2 on anything else.
    pub fn parse() -> Args {
        let mut out = Args {
            steps: 10_000,
            seed: 0,
            threads: 1,
            max_episode: 200,
        };
        let args: Vec<String> = std::env::args().skip(1).collect();
        for pair in args.chunks(2) {
            let value = pair.get(1).and_then(|v| v.parse::<u64>().ok());
            match (pair[0].as_str(), value) {
                ("--steps", Some(v)) => out.steps = v,
                ("--seed", Some(v)) => out.seed = v,
                ("--threads", Some(v)) => out.threads = v as usize,
                ("--max-episode", Some(v)) => out.max_episode = v as usize,
                _ => {
                    eprintln!("usage: --steps N --seed S --threads T --max-episode L");
                    std::process::exit(2);
                }
            }
        }
        out
    }
}

/// Drives every entry as the command line ([`Args`]) says, printing a
/// `case` line per entry and a report after a mismatch; returns whether
/// any failed.
pub fn drive(entries: &[Entry]) -> bool {
    let args = Args::parse();
    let cfg = Config {
        steps: args.steps,
        seed: args.seed,
        max_episode: args.max_episode,
    };
    let threads = args.threads;
    quiet_panics();
    let print = |o: &Outcome| {
        // One line per case, then the report, in one write so that the
        // threads' outputs do not interleave: `soak` reads both.
        let mut text = format!(
            "case {} strategy={} intractable={} trusted={} semiring={} updates={} episodes={} cut_short={} result={}\n",
            o.name,
            o.strategy,
            o.intractable,
            o.trusted,
            o.semiring,
            o.updates,
            o.episodes,
            o.cut_short,
            if o.failure.is_some() {
                "mismatch"
            } else {
                "ok"
            }
        );
        if let Some(report) = &o.failure {
            text.push_str(&format!("--- report\n{report}--- end\n"));
        }
        print!("{text}");
    };
    let outcomes = run_all(entries, &cfg, threads, &print);
    outcomes.iter().any(|o| o.failure.is_some())
}
