//! Query shapes that have a strategy of their own: the triangle count and
//! the two-atom inequality join, each maybe times nullary factors.

use super::hypergraph::{Hypergraph, Mask, members};

/// The *nullary factors* among the atoms: each binds one summed-out
/// variable that no other edge reads, so it multiplies every derivation by
/// the sum of its payloads (an atom that binds no variable reads its
/// tuples as one entry of a single-valued column, `syntax/nullary.rs`).
/// A strategy with a fixed shape keeps each as one sum beside its core.
pub fn nullary_factors(hg: &Hypergraph) -> Mask {
    members(hg.relations())
        .filter(|&e| {
            let vars = hg.atoms[e];
            vars.count_ones() == 1
                && vars & hg.free == 0
                && hg.at(vars.trailing_zeros() as usize) == 1 << e
        })
        .fold(0, |m, e| m | 1 << e)
}

/// The hypergraph without the edges of `drop`: edge indices are kept (a
/// dropped edge is left empty), so atoms keep their numbers.
fn without(hg: &Hypergraph, drop: Mask) -> (Vec<usize>, Hypergraph) {
    let mut core = hg.clone();
    for e in members(drop) {
        core.atoms[e] = 0;
    }
    let kept = (0..hg.atoms.len())
        .filter(|&e| drop & 1 << e == 0)
        .collect();
    (kept, core)
}

/// The triangle count `Q() = R(a, b) * S(b, c) * T(c, a)`, in any naming,
/// column order or atom order, including the self-join `E(a, b) * E(b, c) *
/// E(c, a)`, maybe times nullary factors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Triangle {
    /// The atoms in cycle order: `atoms[i]` and `atoms[(i + 1) % 3]` share
    /// the variable `vars[(i + 1) % 3]`.
    pub atoms: [usize; 3],
    /// The three variables: `atoms[i]` holds `vars[i]` and `vars[(i+1)%3]`.
    pub vars: [usize; 3],
    /// The other atoms, each a nullary factor ([`nullary_factors`]).
    pub factors: Mask,
}

/// Recognizes the triangle count: no free variable and, besides nullary
/// factors, three atoms of two distinct variables each, three variables,
/// each in exactly two atoms.
pub fn triangle(hg: &Hypergraph) -> Option<Triangle> {
    let factors = nullary_factors(hg);
    let (kept, core) = without(hg, factors);
    if hg.free != 0 || kept.len() != 3 || kept.iter().any(|&e| core.atoms[e].count_ones() != 2) {
        return None;
    }
    let vars: Vec<usize> = members(core.vars()).collect();
    if vars.len() != 3 || vars.iter().any(|&v| core.at(v).count_ones() != 2) {
        return None;
    }
    // The first atom holds two variables: call them A and B. The atom
    // holding B besides it comes next, and it holds C.
    let first: Vec<usize> = members(core.atoms[kept[0]]).collect();
    let (a, b) = (first[0], first[1]);
    let second = kept[1..]
        .iter()
        .copied()
        .find(|&e| core.atoms[e] & (1 << b) != 0)?;
    let third = kept[1..].iter().copied().find(|&e| e != second)?;
    let c = members(core.atoms[second]).find(|&v| v != b)?;
    Some(Triangle {
        atoms: [kept[0], second, third],
        vars: [a, b, c],
        factors,
    })
}

/// The inequality join `Q() = R(.., x, ..) * S(.., y, ..) * { x < y }`
/// (also `<=`, `>`, `>=`): no free variable, two atoms with no variable in
/// common, and one theta factor comparing a variable of each; every other
/// variable is summed out within its atom. Maybe times nullary factors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InequalityJoin {
    /// The atom holding the smaller side, then the one holding the larger.
    pub atoms: [usize; 2],
    /// The smaller variable and the larger: `vars[0] < vars[1]`.
    pub vars: [usize; 2],
    /// `<` rather than `<=`.
    pub strict: bool,
    /// The other atoms, each a nullary factor ([`nullary_factors`]).
    pub factors: Mask,
}

/// Recognizes the two-atom inequality join.
pub fn inequality_join(hg: &Hypergraph) -> Option<InequalityJoin> {
    let factors = nullary_factors(hg);
    let relations: Vec<usize> = members(hg.relations() & !factors).collect();
    if hg.free != 0 || relations.len() != 2 || hg.conditions.count_ones() != 1 {
        return None;
    }
    let &[(edge, x, y, strict)] = hg.inequalities.as_slice() else {
        return None;
    };
    if hg.conditions != 1 << edge || hg.atoms[relations[0]] & hg.atoms[relations[1]] != 0 {
        return None;
    }
    let holder = |v: usize| {
        relations
            .iter()
            .copied()
            .find(|&a| hg.atoms[a] & (1 << v) != 0)
    };
    let (a, b) = (holder(x)?, holder(y)?);
    (a != b).then_some(InequalityJoin {
        atoms: [a, b],
        vars: [x, y],
        strict,
        factors,
    })
}
