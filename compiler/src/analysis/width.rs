//! The fractional hypertree width (fhtw), computed exactly.
//!
//! fhtw is the least, over tree decompositions, of the largest fractional
//! edge cover number ρ* of a bag. Every tree decomposition can be refined
//! into one induced by an elimination order whose bags are subsets of the
//! original bags (its triangulation's maximal cliques), and ρ* is monotone,
//! so the minimum over elimination orders is exact. A dynamic program over
//! the set of eliminated variables finds it in O(2^n · n) bag evaluations;
//! each ρ* is a small linear program solved in exact rational arithmetic.

use std::cmp::Ordering;
use std::collections::HashMap;
use std::fmt;

use super::acyclicity::is_acyclic;
use super::hypergraph::{Hypergraph, Mask, bit, members};

/// Queries with at most this many variables get the exact width; larger
/// cyclic ones get an upper bound from a greedy elimination order.
pub const EXACT_LIMIT: usize = 12;

/// An exact non-negative rational number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Ratio {
    num: i128,
    den: i128,
}

fn gcd(a: i128, b: i128) -> i128 {
    if b == 0 { a.abs() } else { gcd(b, a % b) }
}

impl Ratio {
    /// `num / den`, reduced. Panics if `den` is zero.
    pub fn new(num: i128, den: i128) -> Ratio {
        assert!(den != 0, "zero denominator");
        let g = gcd(num, den).max(1);
        let s = if den < 0 { -1 } else { 1 };
        Ratio {
            num: s * num / g,
            den: s * den / g,
        }
    }

    /// The integer `n`.
    pub fn int(n: i128) -> Ratio {
        Ratio { num: n, den: 1 }
    }

    /// The numerator (reduced).
    pub fn numer(&self) -> i128 {
        self.num
    }

    /// The denominator (reduced, positive).
    pub fn denom(&self) -> i128 {
        self.den
    }

    /// The value as a float.
    pub fn to_f64(self) -> f64 {
        self.num as f64 / self.den as f64
    }

    fn sub(self, o: Ratio) -> Ratio {
        Ratio::new(self.num * o.den - o.num * self.den, self.den * o.den)
    }

    fn mul(self, o: Ratio) -> Ratio {
        Ratio::new(self.num * o.num, self.den * o.den)
    }

    fn div(self, o: Ratio) -> Ratio {
        Ratio::new(self.num * o.den, self.den * o.num)
    }

    fn is_zero(self) -> bool {
        self.num == 0
    }

    fn is_positive(self) -> bool {
        self.num > 0
    }
}

impl Ord for Ratio {
    fn cmp(&self, o: &Ratio) -> Ordering {
        (self.num * o.den).cmp(&(o.num * self.den))
    }
}

impl PartialOrd for Ratio {
    fn partial_cmp(&self, o: &Ratio) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}

impl fmt::Display for Ratio {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.den == 1 {
            write!(f, "{}", self.num)
        } else {
            write!(f, "{}/{}", self.num, self.den)
        }
    }
}

/// The fractional hypertree width of a query, and whether it is exact.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Width {
    /// The width (an upper bound when not `exact`).
    pub value: Ratio,
    /// Whether `value` is the exact width.
    pub exact: bool,
}

/// The fractional edge cover number ρ* of `bag`: the least total weight on
/// the edges such that every variable of `bag` is covered with weight ≥ 1.
///
/// Solved through its dual, the fractional vertex packing (maximize Σ y_v
/// with Σ_{v ∈ e} y_v ≤ 1 per edge), whose origin is feasible, so a plain
/// simplex with Bland's rule needs no first phase. Every variable of `bag`
/// must occur in some edge.
pub fn fractional_edge_cover(edges: &[Mask], bag: Mask) -> Ratio {
    let vars: Vec<usize> = members(bag).collect();
    let n = vars.len();
    if n == 0 {
        return Ratio::int(0);
    }
    let mut rows: Vec<Mask> = edges.iter().map(|e| e & bag).filter(|&e| e != 0).collect();
    rows.sort_unstable();
    rows.dedup();
    let m = rows.len();
    let width = n + m + 1;
    let zero = Ratio::int(0);
    let one = Ratio::int(1);
    let mut t: Vec<Vec<Ratio>> = rows
        .iter()
        .enumerate()
        .map(|(i, &row)| {
            let mut r = vec![zero; width];
            for (j, &v) in vars.iter().enumerate() {
                if row & bit(v) != 0 {
                    r[j] = one;
                }
            }
            r[n + i] = one;
            r[width - 1] = one;
            r
        })
        .collect();
    let mut obj = vec![zero; width];
    obj[..n].iter_mut().for_each(|c| *c = Ratio::int(-1));
    let mut basis: Vec<usize> = (n..n + m).collect();
    loop {
        let Some(enter) = (0..width - 1).find(|&j| obj[j] < zero) else {
            return obj[width - 1];
        };
        let mut leave: Option<(usize, Ratio)> = None;
        for i in 0..m {
            if t[i][enter].is_positive() {
                let r = t[i][width - 1].div(t[i][enter]);
                let better = match leave {
                    None => true,
                    Some((l, best)) => r < best || (r == best && basis[i] < basis[l]),
                };
                if better {
                    leave = Some((i, r));
                }
            }
        }
        let (row, _) = leave
            .expect("every variable of a bag is covered by an edge, so the packing is bounded");
        let p = t[row][enter];
        for c in t[row].iter_mut() {
            *c = c.div(p);
        }
        let pivot_row = t[row].clone();
        for (i, r) in t.iter_mut().enumerate() {
            if i != row && !r[enter].is_zero() {
                let f = r[enter];
                for (c, &pv) in r.iter_mut().zip(&pivot_row) {
                    *c = c.sub(f.mul(pv));
                }
            }
        }
        let f = obj[enter];
        for (c, &pv) in obj.iter_mut().zip(&pivot_row) {
            *c = c.sub(f.mul(pv));
        }
        basis[row] = enter;
    }
}

/// The fractional hypertree width of the query's hypergraph.
///
/// 1 for α-acyclic queries (of any size), 3/2 for the triangle, 2 for the
/// 4-cycle. Exact up to [`EXACT_LIMIT`] variables; beyond that an upper
/// bound.
pub fn fhtw(hg: &Hypergraph) -> Width {
    if hg.atoms.is_empty() {
        return Width {
            value: Ratio::int(0),
            exact: true,
        };
    }
    if is_acyclic(hg) {
        return Width {
            value: Ratio::int(1),
            exact: true,
        };
    }
    let vars: Vec<usize> = members(hg.vars()).collect();
    // Compact indexes so the subset table has 2^n entries.
    let index: HashMap<usize, usize> = vars.iter().enumerate().map(|(i, &v)| (v, i)).collect();
    let edges: Vec<Mask> = hg
        .atoms
        .iter()
        .map(|&a| members(a).fold(0, |m, v| m | bit(index[&v])))
        .collect();
    let n = vars.len();
    let neighbours: Vec<Mask> = (0..n)
        .map(|v| {
            edges
                .iter()
                .filter(|&&e| e & bit(v) != 0)
                .fold(0, |m, e| m | e)
                & !bit(v)
        })
        .collect();
    let mut cache: HashMap<Mask, Ratio> = HashMap::new();
    let mut rho = |bag: Mask| {
        *cache
            .entry(bag)
            .or_insert_with(|| fractional_edge_cover(&edges, bag))
    };

    if n > EXACT_LIMIT {
        // Greedy: eliminate the variable whose bag is cheapest each time.
        let mut eliminated: Mask = 0;
        let mut worst = Ratio::int(0);
        for _ in 0..n {
            let (bag_cost, v) = (0..n)
                .filter(|&v| eliminated & bit(v) == 0)
                .map(|v| (rho(bag_of(&neighbours, eliminated, v)), v))
                .min()
                .expect("a variable is left");
            worst = worst.max(bag_cost);
            eliminated |= bit(v);
        }
        return Width {
            value: worst,
            exact: false,
        };
    }

    let full: usize = (1 << n) - 1;
    let mut best = vec![Ratio::int(0); full + 1];
    for s in 1..=full {
        let s_mask = s as Mask;
        let mut b: Option<Ratio> = None;
        for v in members(s_mask) {
            let rest = s_mask & !bit(v);
            let cost = best[rest as usize].max(rho(bag_of(&neighbours, rest, v)));
            if b.is_none_or(|b| cost < b) {
                b = Some(cost);
            }
        }
        best[s] = b.expect("non-empty set");
    }
    Width {
        value: best[full],
        exact: true,
    }
}

/// The exponent k of the first-order delta's cost O(N^k): for an update to
/// one atom, the worst-case size of the join of the other atoms over the
/// variables the update does not fix (the AGM bound, ρ* of those variables),
/// maximized over the atoms. 0 when a single atom is the whole query.
/// Theta conditions bound nothing (they hold no relation): only atoms
/// count.
pub fn first_order_exponent(hg: &Hypergraph) -> Ratio {
    let relations = hg.relations();
    members(relations)
        .map(|i| {
            let others: Vec<Mask> = members(relations & !bit(i)).map(|j| hg.atoms[j]).collect();
            fractional_edge_cover(&others, hg.vars() & !hg.atoms[i])
        })
        .max()
        .unwrap_or(Ratio::int(0))
}

/// The bag created by eliminating `v` after the variables in `eliminated`:
/// `v` and every not-yet-eliminated variable reachable from it through
/// eliminated ones.
fn bag_of(neighbours: &[Mask], eliminated: Mask, v: usize) -> Mask {
    let mut bag = bit(v);
    let mut visited = bit(v);
    let mut stack = vec![v];
    while let Some(u) = stack.pop() {
        for w in members(neighbours[u] & !visited) {
            visited |= bit(w);
            if eliminated & bit(w) != 0 {
                stack.push(w);
            } else {
                bag |= bit(w);
            }
        }
    }
    bag
}

impl fmt::Display for Width {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.exact {
            write!(f, "{}", self.value)
        } else {
            write!(f, "at most {}", self.value)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hg(atoms: &[&[usize]]) -> Hypergraph {
        let n = atoms
            .iter()
            .flat_map(|a| a.iter())
            .max()
            .map_or(0, |m| m + 1);
        Hypergraph::new(
            (0..n).map(|i| format!("x{i}")).collect(),
            atoms
                .iter()
                .enumerate()
                .map(|(i, a)| (format!("R{i}"), a.to_vec()))
                .collect(),
            &[],
        )
    }

    #[test]
    fn known_widths() {
        let w = |a: &[&[usize]]| fhtw(&hg(a)).value;
        assert_eq!(w(&[&[0, 1], &[1, 2], &[2, 0]]), Ratio::new(3, 2));
        assert_eq!(w(&[&[0, 1], &[1, 2], &[2, 3], &[3, 0]]), Ratio::int(2));
        assert_eq!(w(&[&[0, 1], &[1, 2]]), Ratio::int(1));
        // Loomis-Whitney with 4 variables: each atom misses one variable.
        assert_eq!(
            w(&[&[1, 2, 3], &[0, 2, 3], &[0, 1, 3], &[0, 1, 2]]),
            Ratio::new(4, 3)
        );
        // The 5-cycle.
        assert_eq!(
            w(&[&[0, 1], &[1, 2], &[2, 3], &[3, 4], &[4, 0]]),
            Ratio::int(2)
        );
        // K4 as binary edges: ρ*(K4) = 2.
        assert_eq!(
            w(&[&[0, 1], &[0, 2], &[0, 3], &[1, 2], &[1, 3], &[2, 3]]),
            Ratio::int(2)
        );
    }

    #[test]
    fn edge_cover_of_triangle() {
        let edges = [0b011, 0b110, 0b101];
        assert_eq!(fractional_edge_cover(&edges, 0b111), Ratio::new(3, 2));
        assert_eq!(fractional_edge_cover(&edges, 0b011), Ratio::int(1));
    }
}
