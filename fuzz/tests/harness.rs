//! The harness against hand-written targets: a correct one passes, and
//! each planted bug is found, shrunk and reported with the calls that
//! reproduce it. (The harness must be able to fail.)

use std::collections::HashMap;

use ivm::Semiring;
use ivm::semiring::Int;
use ivm_fuzz::harness::{self, Config};
use ivm_fuzz::stream::Contribution;
use ivm_fuzz::{Case, Relation, Target};

/// `Q(a) = R(a, b)`: the sum of `R`'s payloads per `a`.
static CASE: Case = Case {
    name: "Sums",
    text: "pub query Sums {\n    relation R(c0: u32, c1: u32);\n    Q(a) = R(a, b);\n}\n",
    strategy: "hand_written",
    intractable: false,
    semiring: "ivm::semiring::Int",
    relations: &[Relation {
        name: "R",
        snake: "r",
        columns: &[("c0", "u32"), ("c1", "u32")],
    }],
    atoms: &[(0, &[0, 1])],
    head: &[0],
    head_types: &["u32"],
    deletes: true,
    trusted: false,
    constants: Vec::new,
    computed: &[],
    compute: |_| {},
    semijoins: &[],
};

/// A bug to plant in [`Sums`].
#[derive(Clone, Copy, PartialEq)]
enum Bug {
    None,
    /// A delete of an absent tuple returns `Ok`.
    DeleteAbsentIsOk,
    /// A sum that returns to zero stays in `iter()`.
    KeepsZeroRows,
    /// `len()` counts tuples of `R`, not output rows.
    LenCountsTuples,
    /// `restore` loses the sums (the snapshot keeps only `R`).
    RestoreLosesSums,
    /// `changes()` leaves out the rows that went.
    ChangesMissRemovals,
}

struct Sums<const BUG: u8> {
    r: HashMap<(u64, u64), i64>,
    out: HashMap<u64, i64>,
    reported: ivm::__private::Changes<u64, Int>,
}

impl<const BUG: u8> Sums<BUG> {
    fn bug() -> Bug {
        [
            Bug::None,
            Bug::DeleteAbsentIsOk,
            Bug::KeepsZeroRows,
            Bug::LenCountsTuples,
            Bug::RestoreLosesSums,
            Bug::ChangesMissRemovals,
        ][BUG as usize]
    }

    fn add(&mut self, t: &[u64], d: i64) {
        let v = self.r.entry((t[0], t[1])).or_default();
        *v += d;
        if *v == 0 {
            self.r.remove(&(t[0], t[1]));
        }
        let o = self.out.entry(t[0]).or_default();
        *o += d;
        if *o == 0 && Self::bug() != Bug::KeepsZeroRows {
            self.out.remove(&t[0]);
        }
    }
}

/// The state as a pair of maps.
impl<const BUG: u8> serde::Serialize for Sums<BUG> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        (&self.r, &self.out).serialize(s)
    }
}

impl<'de, const BUG: u8> serde::Deserialize<'de> for Sums<BUG> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let (r, mut out): (HashMap<(u64, u64), i64>, HashMap<u64, i64>) =
            serde::Deserialize::deserialize(d)?;
        if Self::bug() == Bug::RestoreLosesSums {
            out.clear();
        }
        Ok(Sums {
            r,
            out,
            reported: Default::default(),
        })
    }
}

impl<const BUG: u8> ivm::snapshot::Snapshot for Sums<BUG> {
    const QUERY: &'static str = "Sums";
    const PLAN: u64 = BUG as u64;
}

impl<const BUG: u8> Target for Sums<BUG> {
    type K = Int;

    fn fresh() -> Self {
        Sums {
            r: HashMap::new(),
            out: HashMap::new(),
            reported: Default::default(),
        }
    }

    fn load(contributions: &[Contribution<Int>]) -> Self {
        let mut s = Self::fresh();
        for (_, t, d) in contributions {
            s.add(t, d.0);
        }
        s
    }

    fn update(&mut self, _: usize, t: &[u64], d: Int) {
        self.add(t, d.0);
    }

    fn insert(&mut self, _: usize, t: &[u64]) {
        self.add(t, 1);
    }

    fn delete(&mut self, rel: usize, t: &[u64]) -> Result<(), ivm::Error> {
        self.retract(rel, t, Int(1))
    }

    fn retract(&mut self, _: usize, t: &[u64], d: Int) -> Result<(), ivm::Error> {
        if !self.r.contains_key(&(t[0], t[1])) && Self::bug() != Bug::DeleteAbsentIsOk {
            return Err(ivm::Error::AbsentTuple { relation: "R" });
        }
        self.add(t, -d.0);
        Ok(())
    }

    fn changed(&mut self) -> Vec<(Vec<u64>, Int, Int)> {
        let now: Vec<(u64, Int)> = self.out.iter().map(|(&k, &v)| (k, Int(v))).collect();
        self.reported
            .diff(now.into_iter())
            .into_iter()
            .filter(|(_, _, new)| Self::bug() != Bug::ChangesMissRemovals || !new.is_zero())
            .map(|(k, old, new)| (vec![k], old, new))
            .collect()
    }

    fn apply_batch(&mut self, batch: &[Contribution<Int>]) {
        for (_, t, d) in batch {
            self.add(t, d.0);
        }
    }

    fn rows(&self) -> Vec<(Vec<u64>, Int)> {
        self.out.iter().map(|(&a, &v)| (vec![a], Int(v))).collect()
    }

    fn lookup(&self, key: &[u64]) -> Int {
        self.out.get(&key[0]).map_or_else(Int::zero, |&v| Int(v))
    }

    fn count(&self) -> usize {
        if Self::bug() == Bug::LenCountsTuples {
            self.r.len()
        } else {
            self.out.len()
        }
    }

    fn empty(&self) -> bool {
        self.out.is_empty()
    }
}

fn config() -> Config {
    Config {
        steps: 20_000,
        seed: 5,
        max_episode: 100,
    }
}

#[test]
fn a_correct_target_passes() {
    let outcome = harness::run::<Sums<0>>(&CASE, &config());
    assert!(outcome.failure.is_none(), "{}", outcome.failure.unwrap());
    assert!(outcome.updates >= 20_000);
}

/// Runs a buggy target and returns its report, checking that the shrunk
/// stream is short.
fn found<T: Target<K = Int>>() -> String {
    found_within::<T>(4)
}

/// [`found`], with at most `most` calls left after shrinking.
fn found_within<T: Target<K = Int>>(most: usize) -> String {
    harness::quiet_panics();
    let outcome = harness::run::<T>(&CASE, &config());
    let report = outcome.failure.expect("the planted bug is found");
    let calls = report
        .lines()
        .filter(|l| l.starts_with("q.") || l.starts_with("assert!(q."))
        .count();
    assert!(calls <= most, "not shrunk:\n{report}");
    assert!(report.contains("pub query Sums"), "{report}");
    assert!(report.contains("run seed 5"), "{report}");
    report
}

#[test]
fn a_delete_of_an_absent_tuple_that_succeeds_is_found() {
    let report = found::<Sums<1>>();
    assert!(
        report.contains("returned Ok(()), expected Err(AbsentTuple"),
        "{report}"
    );
}

#[test]
fn a_row_with_a_zero_payload_is_found() {
    let report = found::<Sums<2>>();
    assert!(report.contains("with a zero payload"), "{report}");
}

#[test]
fn a_restore_that_loses_state_is_found() {
    let report = found::<Sums<4>>();
    assert!(report.contains("restore(&bytes[..])"), "{report}");
}

#[test]
fn changes_that_miss_removed_rows_are_found() {
    // Shrinking removes runs of calls; the sum that returns to zero here
    // takes five updates of two tuples, which no single run covers.
    let report = found_within::<Sums<5>>(6);
    assert!(report.contains("`changes()` is"), "{report}");
    assert!(report.contains("q.changes()"), "{report}");
}

#[test]
fn a_wrong_len_is_found() {
    let report = found::<Sums<3>>();
    assert!(report.contains("`len()` is"), "{report}");
}
