//! Query shapes that have a strategy of their own: the triangle count and
//! the two-atom inequality join.

use super::hypergraph::{Hypergraph, members};

/// The triangle count `Q() = R(a, b) * S(b, c) * T(c, a)`, in any naming,
/// column order or atom order, including the self-join `E(a, b) * E(b, c) *
/// E(c, a)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Triangle {
    /// The atoms in cycle order: `atoms[i]` and `atoms[(i + 1) % 3]` share
    /// the variable `vars[(i + 1) % 3]`.
    pub atoms: [usize; 3],
    /// The three variables: `atoms[i]` holds `vars[i]` and `vars[(i+1)%3]`.
    pub vars: [usize; 3],
}

/// Recognizes the triangle count: no free variable, three atoms of two
/// distinct variables each, three variables, each in exactly two atoms.
pub fn triangle(hg: &Hypergraph) -> Option<Triangle> {
    if hg.free != 0 || hg.atoms.len() != 3 || hg.atoms.iter().any(|a| a.count_ones() != 2) {
        return None;
    }
    let vars: Vec<usize> = members(hg.vars()).collect();
    if vars.len() != 3 || vars.iter().any(|&v| hg.at(v).count_ones() != 2) {
        return None;
    }
    // Atom 0 holds two variables: call them A and B. The atom holding B
    // besides atom 0 comes next, and it holds C.
    let first: Vec<usize> = members(hg.atoms[0]).collect();
    let (a, b) = (first[0], first[1]);
    let second = (1..3).find(|&i| hg.atoms[i] & (1 << b) != 0)?;
    let third = 3 - second;
    let c = members(hg.atoms[second]).find(|&v| v != b)?;
    Some(Triangle {
        atoms: [0, second, third],
        vars: [a, b, c],
    })
}

/// The inequality join `Q() = R(.., x, ..) * S(.., y, ..) * { x < y }`
/// (also `<=`, `>`, `>=`): no free variable, two atoms with no variable in
/// common, and one theta factor comparing a variable of each; every other
/// variable is summed out within its atom.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InequalityJoin {
    /// The atom holding the smaller side, then the one holding the larger.
    pub atoms: [usize; 2],
    /// The smaller variable and the larger: `vars[0] < vars[1]`.
    pub vars: [usize; 2],
    /// `<` rather than `<=`.
    pub strict: bool,
}

/// Recognizes the two-atom inequality join.
pub fn inequality_join(hg: &Hypergraph) -> Option<InequalityJoin> {
    let relations: Vec<usize> = members(hg.relations()).collect();
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
    })
}
