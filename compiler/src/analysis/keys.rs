//! Bounds under declared keys: what `PRIMARY KEY` and `UNIQUE` promise
//! about the size of a join, and the order in which a first-order delta
//! joins the other atoms so that it keeps to that size.
//!
//! A key of an atom is a set of its variables no two of its tuples share:
//! once they are bound, at most one tuple matches, and it binds the atom's
//! other variables. So a join's variables are fixed by fewer atoms than
//! it has. If the variables of `k` of the atoms, together with what the
//! keys then determine (the closure), are all of the join's, the join has
//! at most `N^k` tuples for `N` tuples per relation: each choice of those
//! `k` atoms' tuples extends in at most one way. TPC-H Q5's join of six
//! relations, given an update of `region`, is one `lineitem` row's worth
//! of rows per line: `N`, not the `N^3` its hypergraph alone allows.
//!
//! The keys are not enforced. The bounds hold when the data obey them,
//! and `ivmc explain` says so; the generated code is right either way.

use super::Hypergraph;
use super::hypergraph::{Mask, bit, members};

/// The variables `bound` determines through the keys of the atoms in
/// `atoms`: a key wholly bound binds its atom's other variables, again
/// until nothing changes.
pub fn closure(hg: &Hypergraph, bound: Mask, atoms: Mask) -> Mask {
    let mut closed = bound;
    loop {
        let before = closed;
        for j in members(atoms) {
            if hg.keys[j].iter().any(|&key| key & !closed == 0) {
                closed |= hg.atoms[j];
            }
        }
        if closed == before {
            return closed;
        }
    }
}

/// The fewest atoms of `atoms` whose variables, with `fixed` and the
/// closure under the keys of `atoms`, bind every variable of `atoms`: the
/// exponent `k` of the `N^k` bound on their join given `fixed`.
pub fn cover(hg: &Hypergraph, fixed: Mask, atoms: Mask) -> u32 {
    let all = members(atoms).fold(fixed, |m, j| m | hg.atoms[j]);
    let list: Vec<usize> = members(atoms).collect();
    for k in 0..=list.len() {
        let mut chosen: Vec<usize> = (0..k).collect();
        loop {
            let vars = chosen.iter().fold(fixed, |m, &c| m | hg.atoms[list[c]]);
            if closure(hg, vars, atoms) & all == all {
                return k as u32;
            }
            if !next_combination(&mut chosen, list.len()) {
                break;
            }
        }
    }
    list.len() as u32
}

/// Steps `chosen` (increasing indexes below `n`) to the next combination
/// of its size; `false` after the last.
fn next_combination(chosen: &mut [usize], n: usize) -> bool {
    let k = chosen.len();
    for i in (0..k).rev() {
        if chosen[i] < n - k + i {
            chosen[i] += 1;
            for j in i + 1..k {
                chosen[j] = chosen[j - 1] + 1;
            }
            return true;
        }
    }
    false
}

/// The atom of `rest` a first-order delta joins next, given the variables
/// `bound` so far: one it only looks up (every variable bound), then one
/// whose key is bound (at most one tuple), then the one with the most
/// variables bound, the lowest first on a tie.
///
/// Among the lookups, and among the atoms whose key is bound, the one
/// that [`narrows`] the join most comes first: where most rows fail a
/// filter two lookups away (TPC-H Q21's lines, of which one in 25 has a
/// supplier of the nation asked for), they fail before the other lookups.
/// Each of these atoms matches at most one tuple, and all of them are
/// joined before any other, in whatever order, so the order among them
/// leaves [`first_order_delta`]'s bound as it is.
pub fn next_atom(hg: &Hypergraph, bound: Mask, rest: &[usize]) -> usize {
    *rest
        .iter()
        .max_by_key(|&&j| {
            let lookup = hg.atoms[j] & !bound == 0;
            let keyed = is_keyed(hg, j, bound);
            let narrowing = if lookup || keyed {
                narrows(hg, bound, j, rest)
            } else {
                0
            };
            (
                lookup,
                keyed,
                narrowing,
                (hg.atoms[j] & bound).count_ones(),
                std::cmp::Reverse(j),
            )
        })
        .expect("an atom is left")
}

/// Whether a key of atom `j` is wholly `bound`.
fn is_keyed(hg: &Hypergraph, j: usize, bound: Mask) -> bool {
    hg.keys[j].iter().any(|&key| key & !bound == 0)
}

/// How much joining atom `j` next narrows the join, by the weights of
/// [`Hypergraph::narrowing`]: its own filters, the theta conditions it
/// completes, and the filters of the atoms of `rest` that its variables
/// make lookups or keyed (TPC-H Q21's supplier, whose nation is then
/// looked up and matched against a constant).
fn narrows(hg: &Hypergraph, bound: Mask, j: usize, rest: &[usize]) -> u32 {
    let after = bound | hg.atoms[j];
    let completed: u32 = members(hg.conditions)
        .filter(|&c| hg.atoms[c] & !bound != 0 && hg.atoms[c] & !after == 0)
        .map(|c| hg.narrowing[c])
        .sum();
    let reached: u32 = rest
        .iter()
        .filter(|&&k| k != j)
        .filter(|&&k| {
            let before = hg.atoms[k] & !bound == 0 || is_keyed(hg, k, bound);
            let now = hg.atoms[k] & !after == 0 || is_keyed(hg, k, after);
            now && !before
        })
        .map(|&k| hg.narrowing[k])
        .sum();
    hg.narrowing[j] + completed + reached
}

/// Under the declared keys, the exponent `k` of the `N^k` bound on the
/// work of the first-order delta of atom `atom`: the join of the other
/// atoms in the order [`next_atom`] gives, each step's rows bounded by
/// [`cover`] of the atoms joined so far.
pub fn first_order_delta(hg: &Hypergraph, atom: usize) -> u32 {
    let mut rest: Vec<usize> = members(hg.relations() & !bit(atom)).collect();
    let mut bound = hg.atoms[atom];
    let mut joined: Mask = 0;
    let mut worst = 0;
    while !rest.is_empty() {
        let j = next_atom(hg, bound, &rest);
        rest.retain(|&r| r != j);
        joined |= bit(j);
        bound |= hg.atoms[j];
        worst = worst.max(cover(hg, hg.atoms[atom], joined));
    }
    worst
}

/// The most atoms whose bound under keys is computed: [`cover`] tries
/// their subsets, so a query of more is left to its bound without keys.
pub const MAX_ATOMS: u32 = 12;

/// Whether the bound under keys applies: an atom has a declared key, and
/// the query has at most [`MAX_ATOMS`] atoms.
pub fn any(hg: &Hypergraph) -> bool {
    hg.relations().count_ones() <= MAX_ATOMS
        && members(hg.relations()).any(|j| !hg.keys[j].is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// TPC-H Q5's six atoms over its variables, with the schema's keys.
    fn q5() -> Hypergraph {
        // 0 custkey, 1 nationkey, 2 orderkey, 3 orderdate, 4 suppkey,
        // 5 price, 6 n_name, 7 regionkey, 8 r_name
        let names = (0..9).map(|v| format!("v{v}")).collect();
        let atoms = vec![
            ("customer".into(), vec![0, 1]),
            ("orders".into(), vec![2, 0, 3]),
            ("lineitem".into(), vec![2, 4, 5]),
            ("supplier".into(), vec![4, 1]),
            ("nation".into(), vec![1, 6, 7]),
            ("region".into(), vec![7, 8]),
        ];
        let mut hg = Hypergraph::new(names, atoms, &[6]);
        for (atom, key) in [(0, 0), (1, 2), (3, 4), (4, 1), (5, 7)] {
            hg.keys[atom] = vec![bit(key)];
        }
        hg
    }

    /// TPC-H Q21's late line joins its order, the nested views of its
    /// order's suppliers, and its supplier, whose nation is matched
    /// against a constant; each is keyed once the line is bound.
    fn q21() -> Hypergraph {
        // 0 orderkey, 1 suppkey, 2 only, 3 only2, 4 nationkey, 5 s_name
        let names = (0..6).map(|v| format!("v{v}")).collect();
        let atoms = vec![
            ("exists2".into(), vec![0, 3]),
            ("exists".into(), vec![0, 2]),
            ("supplier".into(), vec![1, 5, 4]),
            ("lineitem".into(), vec![0, 1]),
            ("orders".into(), vec![0]),
            ("nation".into(), vec![4]),
            ("{ only <> suppkey }".into(), vec![2, 1]),
        ];
        let mut hg = Hypergraph::new(names, atoms, &[5]);
        hg.conditions = bit(6);
        for (atom, key) in [(0, 0), (1, 0), (2, 1)] {
            hg.keys[atom] = vec![bit(key)];
        }
        hg.narrowing[4] = 2;
        hg.narrowing[5] = 2;
        hg.narrowing[6] = 1;
        hg
    }

    #[test]
    fn a_lookup_whose_filter_it_reaches_goes_first() {
        let hg = q21();
        let mut order = Vec::new();
        let mut rest = vec![0, 1, 2, 4, 5];
        let mut bound = hg.atoms[3];
        while !rest.is_empty() {
            let j = next_atom(&hg, bound, &rest);
            rest.retain(|&r| r != j);
            bound |= hg.atoms[j];
            order.push(j);
        }
        // The order (a lookup), then the supplier, which makes the nation
        // a lookup against a constant, before the nested views; of those,
        // the one whose `<>` test it completes first.
        assert_eq!(order, [4, 2, 5, 1, 0]);
        // Without the filters, the lowest keyed atom comes first, as before.
        let mut plain = q21();
        plain.narrowing = vec![0; 7];
        assert_eq!(next_atom(&plain, plain.atoms[3] | bit(0), &[0, 1, 2]), 0);
        assert_eq!(first_order_delta(&hg, 3), first_order_delta(&plain, 3));
    }

    #[test]
    fn a_line_fixes_its_order_customer_supplier_and_nation() {
        let hg = q5();
        assert_eq!(first_order_delta(&hg, 2), 0);
        assert_eq!(closure(&hg, hg.atoms[2], hg.relations()), (1 << 9) - 1);
    }

    #[test]
    fn every_delta_of_q5_is_linear_under_its_keys() {
        let hg = q5();
        let deltas: Vec<u32> = (0..6).map(|a| first_order_delta(&hg, a)).collect();
        assert_eq!(deltas, vec![1, 1, 0, 1, 1, 1]);
    }

    #[test]
    fn without_keys_a_join_needs_an_atom_per_unbound_part() {
        let mut hg = q5();
        hg.keys = vec![Vec::new(); 6];
        // Given a region: nations, customers and suppliers of a nation,
        // then orders and lines: the cover of all five needs three.
        assert_eq!(cover(&hg, hg.atoms[5], hg.relations() & !bit(5)), 3);
        assert!(!any(&hg));
    }

    #[test]
    fn a_query_of_many_atoms_is_not_searched() {
        // A chain of 13 atoms, each keyed by its first variable.
        let names = (0..14).map(|v| format!("v{v}")).collect();
        let atoms = (0..13).map(|i| (format!("a{i}"), vec![i, i + 1])).collect();
        let mut hg = Hypergraph::new(names, atoms, &[0]);
        for i in 0..13 {
            hg.keys[i] = vec![bit(i)];
        }
        assert!(!any(&hg));
        hg.atoms.truncate(12);
        hg.keys.truncate(12);
        hg.atom_labels.truncate(12);
        assert!(any(&hg));
    }

    #[test]
    fn combinations_are_visited_in_order() {
        let mut c = vec![0, 1];
        let mut seen = vec![c.clone()];
        while next_combination(&mut c, 4) {
            seen.push(c.clone());
        }
        assert_eq!(seen.len(), 6);
        assert_eq!(seen.last(), Some(&vec![2, 3]));
    }
}
