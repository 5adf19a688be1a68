//! The naive evaluator: the oracle every maintenance strategy is checked
//! against (`docs/design.md#how-correctness-is-checked`).
//!
//! [`Naive`] keeps a K-database (`docs/design.md#semantics`) in plain ordered
//! maps and evaluates a join-aggregate query over it from scratch on every
//! call to [`Naive::result`]: for every assignment of the variables that
//! joins tuples present in all atoms, it multiplies the atoms' payloads and
//! adds the product to the entry of the head variables' values. Nothing is
//! maintained incrementally, so there is nothing to get wrong incrementally.
//!
//! It also models the update semantics of the generated API
//! (`docs/design.md#the-generated-api`), so a test can compare both the
//! results and the `Ok`/`Err` outcome of every update:
//!
//! - [`update`](Naive::update) adds a payload to a tuple and never fails;
//! - [`retract`](Naive::retract) and [`delete`](Naive::delete) take back an
//!   earlier update, and either succeed or return [`Refused`] with the
//!   state unchanged. What may be taken back depends on the
//!   [`Retraction`] the evaluator was built with: in a ring, anything from
//!   a present tuple; in a positive semiring, exactly one live contribution.
//!
//! Column values are `u64`; tests convert narrower columns.
//!
//! # `Count` and exact retraction
//!
//! Over a positive semiring the evaluator keeps the exact multiset of live
//! contributions of each tuple, and a retraction must name one of them.
//! The runtime's `Count` retracts by truncated subtraction from a sum
//! (its `ivm::Maintained` state), which is looser: after inserting 2 and 3,
//! it also accepts retracting 1 and 4. A test over `Count` either retracts
//! only contributions that are live (or refused by both models), or builds
//! the evaluator with [`Retraction::counted`], which models that rule: a
//! sum and a count of contributions.
//!
//! # Example
//!
//! ```
//! use ivm::semiring::Count;
//! use ivm_fuzz::naive::{Naive, Retraction};
//!
//! // Q(a) = R(a, b) ⋈ S(b): for each a, the number of its S-joined b's.
//! let mut q = Naive::<Count>::new(
//!     vec![2, 1],
//!     vec![(0, vec![0, 1]), (1, vec![1])],
//!     vec![0],
//!     Retraction::Contributions,
//! );
//! q.update(0, &[1, 10], Count(1));
//! q.update(0, &[1, 20], Count(1));
//! q.update(1, &[10], Count(1));
//! q.update(1, &[20], Count(2));
//! assert_eq!(q.get(&[1]), Count(3));
//! // Nothing to delete: S(30) is absent, and S(20) holds one contribution
//! // of 2, not an insert of 1.
//! assert!(q.delete(1, &[30]).is_err());
//! assert!(q.delete(1, &[20]).is_err());
//! q.retract(1, &[20], Count(2)).unwrap();
//! q.delete(1, &[10]).unwrap();
//! assert!(q.is_empty());
//! ```

use std::collections::{BTreeMap, HashMap};
use std::fmt;

use ivm::{Ring, Semiring};

/// How retractions work: the semiring's deletion model.
///
/// Build the ring variant with [`Retraction::ring`], which exists only for
/// `K: ivm::Ring`; that is how ring-only behaviour stays out of reach of
/// positive semirings.
pub enum Retraction<K> {
    /// A ring: a tuple's state is its payload, and a retraction of δ adds
    /// `neg(δ)`. It fails exactly when the tuple is absent. The function is
    /// the additive inverse, `ivm::Ring::neg`.
    Ring(fn(&K) -> K),
    /// A positive semiring: a tuple's state is the multiset of its live
    /// contributions, its payload their ⊕, and a retraction of δ removes
    /// one contribution equal to δ. It fails when there is none.
    Contributions,
    /// A sum and a count of contributions, as the runtime keeps a `Count`
    /// payload: a retraction of δ fails when δ is zero, when nothing is
    /// live, when one contribution is live and it is not δ, or when the sum
    /// is below δ; otherwise it subtracts δ and counts one contribution
    /// less. The function is the checked subtraction, `None` below zero.
    Counted(fn(&K, &K) -> Option<K>),
}

impl<K: Ring> Retraction<K> {
    /// The ring deletion model, with `K`'s additive inverse.
    pub fn ring() -> Self {
        Retraction::Ring(K::neg)
    }
}

impl Retraction<ivm::semiring::Count> {
    /// The deletion model of the runtime's `Count`: a sum and a count of
    /// contributions (see [`Retraction::Counted`]).
    pub fn counted() -> Self {
        Retraction::Counted(|a, b| a.0.checked_sub(b.0).map(ivm::semiring::Count))
    }
}

// Manual impls: derives would demand `K: Clone` / `K: Debug`, which a
// function pointer does not need.
impl<K> Clone for Retraction<K> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<K> Copy for Retraction<K> {}

impl<K> fmt::Debug for Retraction<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Retraction::Ring(_) => f.write_str("Ring"),
            Retraction::Contributions => f.write_str("Contributions"),
            Retraction::Counted(_) => f.write_str("Counted"),
        }
    }
}

/// A refused retraction: the tuple, or the contribution of the tuple, was
/// not alive. The state is unchanged. It corresponds to
/// `ivm::Error::AbsentTuple` of the generated API.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Refused;

impl fmt::Display for Refused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("no live tuple or contribution to retract")
    }
}

impl std::error::Error for Refused {}

/// The state of one present tuple.
#[derive(Clone, Debug, PartialEq)]
struct Entry<K> {
    /// The tuple's payload. In a ring it is the state itself and never
    /// zero (a zero payload removes the entry); with contributions it is
    /// the ⊕ of `live`.
    payload: K,
    /// With [`Retraction::Contributions`], the live contributions (never
    /// empty, none of them zero). Unused, and empty, otherwise.
    live: Vec<K>,
    /// With [`Retraction::Counted`], how many contributions are live (never
    /// zero). Unused, and zero, otherwise.
    count: u64,
}

/// A join-aggregate query over a K-database, evaluated from scratch.
///
/// The query is given as plain data: the arity of each relation, the atoms
/// as (relation index, variable index of each column), and the head
/// variables. Variables are numbered from 0; a variable that occurs twice
/// (in one atom or in several) is a join (or equality) condition. A
/// relation may occur in several atoms (a self-join): each atom contributes
/// its own factor.
///
/// The result maps the head variables' values, in head order, to the
/// non-zero payload
/// ⊕ over joining assignments of ⊗ over atoms of the atom's tuple's payload.
///
/// Arithmetic is `K`'s plain `add`/`mul`, which panic on overflow for
/// `Count` and `Int`: tests keep payloads small.
#[derive(Clone, Debug)]
pub struct Naive<K: Semiring> {
    /// Arity of each relation.
    arities: Vec<usize>,
    /// The atoms: relation index and the variable of each column.
    atoms: Vec<(usize, Vec<usize>)>,
    /// The head variables, in output order.
    head: Vec<usize>,
    /// One more than the largest variable index.
    num_vars: usize,
    /// The deletion model.
    retraction: Retraction<K>,
    /// Each relation's present tuples with their state.
    relations: Vec<BTreeMap<Vec<u64>, Entry<K>>>,
    /// Per atom, the columns that must hold a constant, with its value.
    constants: Vec<Vec<(usize, u64)>>,
    /// The product of the rule's `{ expr }` factors, given the value of
    /// every variable (by index).
    factor: Option<fn(&[u64]) -> K>,
    /// The computed columns (`{ let y: T = .. }`): fills in the values of
    /// the variables they define from the others.
    compute: Option<fn(&mut [u64])>,
    /// The variables `compute` defines.
    computed: Vec<usize>,
    /// The semijoins, each a factor of every derivation.
    semijoins: Vec<Semijoin>,
}

/// A semijoin factor, `exists(..)` or `not exists(..)`: 1 for a
/// derivation where some assignment of its own variables makes each of its
/// atoms read a present tuple (and its condition hold), else 0; the other
/// way round when negated. Its atoms' variables are numbered like the
/// query's: the ones it shares are the query's, its own come after them.
#[derive(Clone, Debug)]
pub struct Semijoin {
    /// `not exists`.
    pub negated: bool,
    /// Its atoms: relation index and the variable of each column.
    pub atoms: Vec<(usize, Vec<usize>)>,
    /// The constants of its atoms: (atom, column, value).
    pub constants: Vec<(usize, usize, u64)>,
    /// Its condition over the variables' values (the query's and its own),
    /// if it has one.
    pub condition: Option<fn(&[u64]) -> bool>,
}

impl<K: Semiring> Naive<K> {
    /// An empty database for the query with relations of the given
    /// `arities`, the given `atoms` (relation index, variable of each
    /// column) and `head` variables, with the given deletion model.
    ///
    /// # Panics
    ///
    /// When the query is malformed: an atom names a relation that does not
    /// exist or has the wrong number of columns. (A head variable that no
    /// atom binds and [`set_computed`](Naive::set_computed) does not
    /// define panics when the result is evaluated.)
    pub fn new(
        arities: Vec<usize>,
        atoms: Vec<(usize, Vec<usize>)>,
        head: Vec<usize>,
        retraction: Retraction<K>,
    ) -> Self {
        for (i, (rel, vars)) in atoms.iter().enumerate() {
            assert!(
                *rel < arities.len(),
                "atom {i} names relation {rel}, but there are {} relations",
                arities.len()
            );
            assert_eq!(
                vars.len(),
                arities[*rel],
                "atom {i} has {} columns, relation {rel} has arity {}",
                vars.len(),
                arities[*rel]
            );
        }
        let num_vars = atoms
            .iter()
            .flat_map(|(_, vars)| vars.iter().copied())
            .max()
            .map_or(0, |v| v + 1);
        let relations = vec![BTreeMap::new(); arities.len()];
        let constants = vec![Vec::new(); atoms.len()];
        Naive {
            arities,
            atoms,
            head,
            num_vars,
            retraction,
            relations,
            constants,
            factor: None,
            compute: None,
            computed: Vec::new(),
            semijoins: Vec::new(),
        }
    }

    /// Every derivation is multiplied by the indicator of `semijoin`.
    pub fn add_semijoin(&mut self, semijoin: Semijoin) {
        for (_, vars) in &semijoin.atoms {
            for &v in vars {
                self.num_vars = self.num_vars.max(v + 1);
            }
        }
        self.semijoins.push(semijoin);
    }

    /// Variables `vars`, which no atom binds, are computed columns:
    /// `compute` fills in their values from the values of the others
    /// before the head and the factors read them.
    pub fn set_computed(&mut self, vars: &[usize], compute: fn(&mut [u64])) {
        self.num_vars = vars.iter().map(|v| v + 1).fold(self.num_vars, usize::max);
        self.compute = Some(compute);
        self.computed = vars.to_vec();
    }

    /// Atom `atom` matches only tuples whose column `column` holds `value`
    /// (a constant in the atom; the atom's variable there is one of its
    /// own, read nowhere else).
    pub fn set_constant(&mut self, atom: usize, column: usize, value: u64) {
        self.constants[atom].push((column, value));
    }

    /// Every derivation's product is multiplied by `factor` of the values of
    /// its variables (the rule's `{ expr }` factors).
    pub fn set_factor(&mut self, factor: fn(&[u64]) -> K) {
        self.factor = Some(factor);
    }

    /// The deletion model this evaluator was built with.
    pub fn retraction(&self) -> Retraction<K> {
        self.retraction
    }

    /// `R(tuple) ⊕= delta` for relation `rel`, the generated `update_*`.
    ///
    /// In a ring the payload becomes `payload ⊕ delta`, and a zero result
    /// removes the tuple. With contributions a non-zero `delta` becomes one
    /// more live contribution, and a zero `delta` changes nothing.
    ///
    /// # Panics
    ///
    /// When `rel` is not a relation or `tuple` has the wrong arity.
    pub fn update(&mut self, rel: usize, tuple: &[u64], delta: K) {
        self.check_tuple(rel, tuple);
        let table = &mut self.relations[rel];
        match self.retraction {
            Retraction::Ring(_) => {
                let payload = match table.get(tuple) {
                    Some(entry) => entry.payload.add(&delta),
                    None => delta,
                };
                set_payload(table, tuple, payload);
            }
            Retraction::Contributions | Retraction::Counted(_) => {
                if delta.is_zero() {
                    return;
                }
                let entry = table.entry(tuple.to_vec()).or_insert_with(|| Entry {
                    payload: K::zero(),
                    live: Vec::new(),
                    count: 0,
                });
                entry.payload.add_assign(&delta);
                if let Retraction::Counted(_) = self.retraction {
                    entry.count += 1;
                } else {
                    entry.live.push(delta);
                }
            }
        }
    }

    /// Takes back an earlier `update(rel, tuple, delta)`, the generated
    /// `retract_*`.
    ///
    /// In a ring it fails when the tuple is absent, and otherwise adds
    /// `neg(delta)` (a zero result removes the tuple). With contributions
    /// it removes one live contribution equal to `delta`, and fails when
    /// there is none (in particular for a zero `delta`, which is never a
    /// contribution). Counted, it follows the rule of
    /// [`Retraction::Counted`]. On failure nothing changes.
    ///
    /// # Panics
    ///
    /// When `rel` is not a relation or `tuple` has the wrong arity.
    pub fn retract(&mut self, rel: usize, tuple: &[u64], delta: K) -> Result<(), Refused> {
        self.check_tuple(rel, tuple);
        let table = &mut self.relations[rel];
        let entry = table.get_mut(tuple).ok_or(Refused)?;
        match self.retraction {
            Retraction::Ring(neg) => {
                let payload = entry.payload.add(&neg(&delta));
                set_payload(table, tuple, payload);
            }
            Retraction::Contributions => {
                let pos = entry.live.iter().position(|c| *c == delta).ok_or(Refused)?;
                entry.live.swap_remove(pos);
                if entry.live.is_empty() {
                    table.remove(tuple);
                } else {
                    entry.payload = entry.live.iter().fold(K::zero(), |sum, c| sum.add(c));
                }
            }
            Retraction::Counted(checked_sub) => {
                if delta.is_zero() || (entry.count == 1 && entry.payload != delta) {
                    return Err(Refused);
                }
                let rest = checked_sub(&entry.payload, &delta).ok_or(Refused)?;
                entry.count -= 1;
                if entry.count == 0 {
                    table.remove(tuple);
                } else {
                    entry.payload = rest;
                }
            }
        }
        Ok(())
    }

    /// Takes back one insert, the generated `delete_*`: `retract` of
    /// `K::one()`.
    ///
    /// # Panics
    ///
    /// When `rel` is not a relation or `tuple` has the wrong arity.
    pub fn delete(&mut self, rel: usize, tuple: &[u64]) -> Result<(), Refused> {
        self.retract(rel, tuple, K::one())
    }

    /// The current payload of `tuple` in relation `rel`: zero when absent.
    ///
    /// # Panics
    ///
    /// When `rel` is not a relation or `tuple` has the wrong arity.
    pub fn payload(&self, rel: usize, tuple: &[u64]) -> K {
        self.check_tuple(rel, tuple);
        self.relations[rel]
            .get(tuple)
            .map_or_else(K::zero, |entry| entry.payload.clone())
    }

    /// The query result, evaluated from scratch: each output tuple (the
    /// head variables' values, in head order; empty for a nullary head)
    /// with its payload. Zero payloads are left out.
    pub fn result(&self) -> BTreeMap<Vec<u64>, K> {
        self.result_within(u64::MAX)
            .expect("an unlimited budget is never exhausted")
    }

    /// [`result`](Naive::result), or `None` when the join would visit more
    /// than `budget` candidate tuples: a cross product of a few large
    /// relations takes the evaluator far longer than the code under test,
    /// and a fuzzer would rather start over from a smaller database.
    pub fn result_within(&self, budget: u64) -> Option<BTreeMap<Vec<u64>, K>> {
        // One index per atom on the columns whose variables earlier atoms
        // have bound: it only narrows the candidates; `bind` checks every
        // column of every candidate anyway.
        for &v in &self.head {
            assert!(
                self.computed.contains(&v) || self.atoms.iter().any(|(_, vars)| vars.contains(&v)),
                "head variable {v} occurs in no atom and is not computed"
            );
        }
        let mut bound = vec![false; self.num_vars];
        let mut indexes = Vec::with_capacity(self.atoms.len());
        for ((rel, vars), constants) in self.atoms.iter().zip(&self.constants) {
            let key_cols: Vec<usize> = (0..vars.len()).filter(|&c| bound[vars[c]]).collect();
            let mut index: HashMap<Vec<u64>, Vec<(&[u64], &K)>> = HashMap::new();
            for (tuple, entry) in &self.relations[*rel] {
                if constants.iter().any(|&(c, v)| tuple[c] != v) {
                    continue;
                }
                let key = key_cols.iter().map(|&c| tuple[c]).collect();
                index.entry(key).or_default().push((tuple, &entry.payload));
            }
            indexes.push((key_cols, index));
            for &v in vars {
                bound[v] = true;
            }
        }

        let mut out = BTreeMap::new();
        let mut binding = vec![None; self.num_vars];
        let mut budget = budget;
        if !self.join(0, &indexes, &mut binding, K::one(), &mut out, &mut budget) {
            return None;
        }
        out.retain(|_, payload: &mut K| !payload.is_zero());
        Some(out)
    }

    /// The payload of one output tuple (the head variables' values, in head
    /// order), zero when absent. Evaluates the whole query.
    pub fn get(&self, head_values: &[u64]) -> K {
        self.result().remove(head_values).unwrap_or_else(K::zero)
    }

    /// The number of output tuples. Evaluates the whole query.
    pub fn len(&self) -> usize {
        self.result().len()
    }

    /// Whether the result is empty. Evaluates the whole query.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The backtracking join: extends `binding` with a tuple of atom `i`
    /// and recurses; after the last atom, adds `product` to the output
    /// tuple of the head variables. Each candidate tuple visited costs one
    /// unit of `budget`; returns `false` when it runs out.
    fn join(
        &self,
        i: usize,
        indexes: &[Index<'_, K>],
        binding: &mut Vec<Option<u64>>,
        product: K,
        out: &mut BTreeMap<Vec<u64>, K>,
        budget: &mut u64,
    ) -> bool {
        let Some((_, vars)) = self.atoms.get(i) else {
            let mut values: Vec<u64> = binding.iter().map(|v| v.unwrap_or(0)).collect();
            if let Some(compute) = self.compute {
                compute(&mut values);
            }
            let key = self.head.iter().map(|&v| values[v]).collect();
            let product = match self.factor {
                Some(factor) => product.mul(&factor(&values)),
                None => product,
            };
            // A semijoin's own variables start unbound.
            let outer: Vec<Option<u64>> = values
                .iter()
                .enumerate()
                .map(|(v, &x)| (binding[v].is_some() || self.computed.contains(&v)).then_some(x))
                .collect();
            let product = if self
                .semijoins
                .iter()
                .all(|s| s.negated != self.witness(s, 0, &mut outer.clone()))
            {
                product
            } else {
                K::zero()
            };
            out.entry(key).or_insert_with(K::zero).add_assign(&product);
            return true;
        };
        let (key_cols, index) = &indexes[i];
        let key: Vec<u64> = key_cols
            .iter()
            .map(|&c| binding[vars[c]].expect("key columns are bound by earlier atoms"))
            .collect();
        let Some(candidates) = index.get(&key) else {
            return true;
        };
        for &(tuple, payload) in candidates {
            let Some(left) = budget.checked_sub(1) else {
                return false;
            };
            *budget = left;
            let mut newly_bound = Vec::new();
            let within = !bind(vars, tuple, binding, &mut newly_bound)
                || self.join(i + 1, indexes, binding, product.mul(payload), out, budget);
            for v in newly_bound {
                binding[v] = None;
            }
            if !within {
                return false;
            }
        }
        true
    }

    /// Whether atoms `i..` of `s` and its condition have a witness that
    /// extends `binding` (which binds every variable of the query).
    fn witness(&self, s: &Semijoin, i: usize, binding: &mut Vec<Option<u64>>) -> bool {
        let Some((rel, vars)) = s.atoms.get(i) else {
            let values: Vec<u64> = binding.iter().map(|v| v.unwrap_or(0)).collect();
            return s.condition.is_none_or(|c| c(&values));
        };
        for (tuple, entry) in &self.relations[*rel] {
            // A tuple is present where its payload is not zero (an entry
            // of `Count` can hold a sum of zero).
            if entry.payload.is_zero()
                || s.constants
                    .iter()
                    .any(|&(a, c, value)| a == i && tuple[c] != value)
            {
                continue;
            }
            let mut newly_bound = Vec::new();
            let found =
                bind(vars, tuple, binding, &mut newly_bound) && self.witness(s, i + 1, binding);
            for v in newly_bound {
                binding[v] = None;
            }
            if found {
                return true;
            }
        }
        false
    }

    /// Asserts that `rel` is a relation and `tuple` has its arity.
    fn check_tuple(&self, rel: usize, tuple: &[u64]) {
        assert!(
            rel < self.arities.len(),
            "relation {rel} does not exist; there are {}",
            self.arities.len()
        );
        assert_eq!(
            tuple.len(),
            self.arities[rel],
            "tuple {tuple:?} does not have the arity of relation {rel}"
        );
    }
}

/// One atom's index for a join: the key columns, and the tuples (with
/// payloads) grouped by their values in those columns.
type Index<'a, K> = (Vec<usize>, HashMap<Vec<u64>, Vec<(&'a [u64], &'a K)>>);

/// Sets a ring tuple's payload, removing the tuple when it is zero.
fn set_payload<K: Semiring>(table: &mut BTreeMap<Vec<u64>, Entry<K>>, tuple: &[u64], payload: K) {
    if payload.is_zero() {
        table.remove(tuple);
    } else {
        table.insert(
            tuple.to_vec(),
            Entry {
                payload,
                live: Vec::new(),
                count: 0,
            },
        );
    }
}

/// Matches `tuple` against the atom's variables `vars` under `binding`:
/// a bound variable must equal its column, an unbound one is bound to it
/// and recorded in `newly_bound`. Returns whether every column matched; the
/// caller unbinds `newly_bound` either way.
fn bind(
    vars: &[usize],
    tuple: &[u64],
    binding: &mut [Option<u64>],
    newly_bound: &mut Vec<usize>,
) -> bool {
    for (&v, &value) in vars.iter().zip(tuple) {
        match binding[v] {
            Some(bound) if bound != value => return false,
            Some(_) => {}
            None => {
                binding[v] = Some(value);
                newly_bound.push(v);
            }
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use ivm::semiring::{Bool, Count, Int, MinPlus};

    /// The triangle query Q() = R(a, b), S(b, c), T(c, a).
    fn triangles<K: Semiring>(retraction: Retraction<K>) -> Naive<K> {
        Naive::new(
            vec![2, 2, 2],
            vec![(0, vec![0, 1]), (1, vec![1, 2]), (2, vec![2, 0])],
            vec![],
            retraction,
        )
    }

    #[test]
    fn triangle_count() {
        let mut q = triangles::<Count>(Retraction::Contributions);
        assert!(q.is_empty());
        assert_eq!(q.get(&[]), Count(0));
        // Triangles 1-2-3 and 1-4-3 share the edges S(·, 3) and T(3, 1).
        for (a, b) in [(1, 2), (1, 4)] {
            q.update(0, &[a, b], Count(1));
        }
        for (b, c) in [(2, 3), (4, 3), (2, 5)] {
            q.update(1, &[b, c], Count(1));
        }
        q.update(2, &[3, 1], Count(1));
        assert_eq!(q.get(&[]), Count(2));
        assert_eq!(q.len(), 1);
        // Doubling one edge doubles the triangles through it.
        q.update(2, &[3, 1], Count(1));
        assert_eq!(q.result(), BTreeMap::from([(vec![], Count(4))]));
        q.delete(0, &[1, 4]).unwrap();
        assert_eq!(q.get(&[]), Count(2));
        q.delete(2, &[3, 1]).unwrap();
        q.delete(2, &[3, 1]).unwrap();
        assert!(q.is_empty());
        assert_eq!(q.delete(2, &[3, 1]), Err(Refused));
    }

    #[test]
    fn grouped_count_with_self_join() {
        // Q(a, c) = E(a, b), E(b, c): paths of length 2 through E, counted.
        let mut q = Naive::<Count>::new(
            vec![2],
            vec![(0, vec![0, 1]), (0, vec![1, 2])],
            vec![0, 2],
            Retraction::Contributions,
        );
        for (a, b) in [(1, 2), (2, 3), (2, 4), (3, 3)] {
            q.update(0, &[a, b], Count(1));
        }
        q.update(0, &[1, 2], Count(1));
        // E(1, 2) has payload 2 and is used once per path; E(3, 3) is a
        // loop joining itself (both atoms count).
        let expected = BTreeMap::from([
            (vec![1, 3], Count(2)),
            (vec![1, 4], Count(2)),
            (vec![2, 3], Count(1)),
            (vec![3, 3], Count(1)),
        ]);
        assert_eq!(q.result(), expected);
        assert_eq!(q.len(), 4);
        assert_eq!(q.get(&[1, 3]), Count(2));
        assert_eq!(q.get(&[4, 1]), Count(0));

        // A repeated variable in one atom: Q(a) = E(a, a).
        let mut loops = Naive::<Count>::new(
            vec![2],
            vec![(0, vec![0, 0])],
            vec![0],
            Retraction::Contributions,
        );
        loops.update(0, &[1, 2], Count(1));
        loops.update(0, &[3, 3], Count(5));
        assert_eq!(loops.result(), BTreeMap::from([(vec![3], Count(5))]));
    }

    #[test]
    fn q_core_over_min_plus() {
        // Q(x) = R(x, y), S(y): the cheapest y per x; the q-core shape of
        // "Answering Conjunctive Queries with Aggregations under Updates"
        // (free x, bound y, an atom with both, one with y only).
        let mut q = Naive::<MinPlus>::new(
            vec![2, 1],
            vec![(0, vec![0, 1]), (1, vec![1])],
            vec![0],
            Retraction::Contributions,
        );
        q.update(0, &[1, 10], MinPlus(1));
        q.update(0, &[1, 20], MinPlus(5));
        q.update(0, &[2, 20], MinPlus(0));
        q.update(1, &[10], MinPlus(7));
        q.update(1, &[20], MinPlus(4));
        q.update(1, &[20], MinPlus(2));
        assert_eq!(q.payload(1, &[20]), MinPlus(2));
        assert_eq!(
            q.result(),
            BTreeMap::from([(vec![1], MinPlus(7)), (vec![2], MinPlus(2))])
        );
        // Retracting the best contribution falls back to the next one.
        q.retract(1, &[20], MinPlus(2)).unwrap();
        assert_eq!(q.payload(1, &[20]), MinPlus(4));
        assert_eq!(q.get(&[1]), MinPlus(8));
        assert_eq!(q.get(&[2]), MinPlus(4));
        // A plain insert is the contribution 1 = MinPlus(0).
        q.update(1, &[10], MinPlus::one());
        q.delete(1, &[10]).unwrap();
        assert_eq!(q.get(&[1]), MinPlus(8));
        q.retract(1, &[20], MinPlus(4)).unwrap();
        assert_eq!(q.result(), BTreeMap::from([(vec![1], MinPlus(8))]));
    }

    #[test]
    fn bool_set_semantics() {
        let mut q = triangles::<Bool>(Retraction::Contributions);
        q.update(0, &[1, 2], Bool(true));
        q.update(1, &[2, 3], Bool(true));
        q.update(2, &[3, 1], Bool(true));
        q.update(2, &[3, 1], Bool(true));
        assert_eq!(q.get(&[]), Bool(true));
        // Two derivations of T(3, 1): one delete leaves the other.
        q.delete(2, &[3, 1]).unwrap();
        assert_eq!(q.get(&[]), Bool(true));
        q.delete(2, &[3, 1]).unwrap();
        assert!(q.is_empty());
        // A zero delta is no contribution.
        q.update(2, &[3, 1], Bool(false));
        assert_eq!(q.payload(2, &[3, 1]), Bool(false));
        assert_eq!(q.retract(2, &[3, 1], Bool(false)), Err(Refused));
    }

    #[test]
    fn refused_retractions_change_nothing() {
        let mut q = triangles::<MinPlus>(Retraction::Contributions);
        q.update(0, &[1, 2], MinPlus(3));
        q.update(0, &[1, 2], MinPlus(5));
        q.update(1, &[2, 3], MinPlus(1));
        let before = q.relations.clone();
        assert_eq!(q.retract(0, &[1, 2], MinPlus(4)), Err(Refused));
        assert_eq!(q.retract(0, &[2, 1], MinPlus(3)), Err(Refused));
        assert_eq!(q.delete(1, &[2, 3]), Err(Refused));
        assert_eq!(q.delete(2, &[3, 1]), Err(Refused));
        assert_eq!(q.relations, before);
        // Each contribution is taken back once.
        q.retract(0, &[1, 2], MinPlus(5)).unwrap();
        assert_eq!(q.retract(0, &[1, 2], MinPlus(5)), Err(Refused));
        assert_eq!(q.payload(0, &[1, 2]), MinPlus(3));

        let mut r = triangles::<Int>(Retraction::ring());
        r.update(0, &[1, 2], Int(2));
        let before = r.relations.clone();
        assert_eq!(r.delete(0, &[2, 1]), Err(Refused));
        assert_eq!(r.retract(1, &[2, 3], Int(-1)), Err(Refused));
        assert_eq!(r.relations, before);
    }

    #[test]
    fn ring_cancellation() {
        // Q(a) = R(a, b), S(b) over Int: contributions of opposite signs
        // cancel in the result, and a payload of zero removes a tuple.
        let mut q = Naive::<Int>::new(
            vec![2, 1],
            vec![(0, vec![0, 1]), (1, vec![1])],
            vec![0],
            Retraction::ring(),
        );
        q.update(0, &[1, 10], Int(3));
        q.update(0, &[1, 20], Int(-3));
        q.update(1, &[10], Int(1));
        q.update(1, &[20], Int(1));
        // 3·1 + (−3)·1 = 0: the output tuple is absent.
        assert!(q.is_empty());
        assert_eq!(q.get(&[1]), Int(0));
        q.update(1, &[20], Int(1));
        assert_eq!(q.result(), BTreeMap::from([(vec![1], Int(-3))]));

        // Retraction subtracts any amount from a present tuple, including
        // more than was inserted; reaching zero removes the tuple.
        q.retract(0, &[1, 10], Int(5)).unwrap();
        assert_eq!(q.payload(0, &[1, 10]), Int(-2));
        q.update(0, &[1, 10], Int(2));
        assert_eq!(q.payload(0, &[1, 10]), Int(0));
        assert_eq!(q.retract(0, &[1, 10], Int(1)), Err(Refused));
        // Deletes of inserts, with a negative payload along the way.
        q.delete(1, &[20]).unwrap();
        q.delete(1, &[20]).unwrap();
        assert_eq!(q.delete(1, &[20]), Err(Refused));
        assert!(q.is_empty());
        assert_eq!(q.relations[1].len(), 1);
    }

    #[test]
    fn a_budget_bounds_the_join() {
        // Q() = R(a) ⋈ S(b): a cross product of 10 × 10 tuples visits 110
        // candidates (10 of R, then 10 of S for each).
        let mut q = Naive::<Count>::new(
            vec![1, 1],
            vec![(0, vec![0]), (1, vec![1])],
            vec![],
            Retraction::Contributions,
        );
        for v in 0..10 {
            q.update(0, &[v], Count(1));
            q.update(1, &[v], Count(1));
        }
        assert_eq!(q.result_within(109), None);
        assert_eq!(
            q.result_within(110),
            Some(BTreeMap::from([(vec![], Count(100))]))
        );
    }

    #[test]
    fn a_few_hundred_tuples_are_quick() {
        // A skewed triangle instance: every edge goes through vertex 0.
        let mut q = triangles::<Count>(Retraction::Contributions);
        let n = 150u64;
        for i in 1..=n {
            q.update(0, &[0, i], Count(1));
            q.update(1, &[i, i + n], Count(1));
            q.update(2, &[i + n, 0], Count(1));
        }
        assert_eq!(q.get(&[]), Count(n));
    }
}
