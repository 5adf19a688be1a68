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
pub fn next_atom(hg: &Hypergraph, bound: Mask, rest: &[usize]) -> usize {
    *rest
        .iter()
        .max_by_key(|&&j| {
            let vars = hg.atoms[j];
            let keyed = hg.keys[j].iter().any(|&key| key & !bound == 0);
            (
                vars & !bound == 0,
                keyed,
                (vars & bound).count_ones(),
                std::cmp::Reverse(j),
            )
        })
        .expect("an atom is left")
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
