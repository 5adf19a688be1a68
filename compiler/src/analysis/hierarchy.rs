//! The hierarchical family: hierarchical, q-hierarchical, p-hierarchical,
//! each with a witness when it fails.
//!
//! All three compare the atom sets at(X) of pairs of variables. Witnesses
//! name the two variables and three atoms that break the test, chosen by
//! lowest index so the same query always gives the same message.

use super::hypergraph::{Hypergraph, Mask, bit, members, subset};

/// Two variables whose atom sets overlap without one containing the other.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Overlap {
    /// The first variable.
    pub x: usize,
    /// The second variable.
    pub y: usize,
    /// An atom holding `x` but not `y`.
    pub only_x: usize,
    /// An atom holding both.
    pub both: usize,
    /// An atom holding `y` but not `x`.
    pub only_y: usize,
}

/// A free variable below a bound one: both occur in `both`, and the bound
/// variable also occurs in `only_bound`, which lacks the free one. The
/// q-core of *Answering Conjunctive Queries with Aggregations under
/// Updates* (e.g. `Q(x) = S(x, y) * T(y)`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QCore {
    /// The free variable.
    pub free: usize,
    /// The bound variable.
    pub bound: usize,
    /// An atom holding both.
    pub both: usize,
    /// An atom holding the bound variable but not the free one.
    pub only_bound: usize,
}

/// Why a query is not q-hierarchical.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotQHierarchical {
    /// Two variables overlap without nesting (not hierarchical). When both
    /// are bound this is an ∃-hierarchy-core.
    Overlap(Overlap),
    /// Hierarchical, but a free variable is dominated by a bound one.
    QCore(QCore),
}

/// Why a query is not p-hierarchical: one of the two cores of *Answering
/// Conjunctive Queries with Aggregations under Updates*.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Core {
    /// Two bound variables overlap without nesting (that paper's
    /// ∃-hierarchy-core; e.g. `Q() = R(x) * S(x, y) * T(y)`).
    ExistsHierarchy(Overlap),
    /// A bound variable shares an atom with a free variable but also occurs
    /// without it (a q-core).
    Q(QCore),
}

fn overlap(hg: &Hypergraph, x: usize, y: usize) -> Option<Overlap> {
    let (ax, ay) = (hg.at(x), hg.at(y));
    let both = ax & ay;
    if both == 0 || subset(ax, ay) || subset(ay, ax) {
        return None;
    }
    let first = |m: Mask| members(m).next().expect("non-empty");
    Some(Overlap {
        x,
        y,
        only_x: first(ax & !ay),
        both: first(both),
        only_y: first(ay & !ax),
    })
}

/// A bound variable `bound` that meets the free variable `free` but is not
/// contained in it.
fn q_core(hg: &Hypergraph, free: usize, bound: usize) -> Option<QCore> {
    let (af, ab) = (hg.at(free), hg.at(bound));
    let both = af & ab;
    if both == 0 || subset(ab, af) {
        return None;
    }
    let first = |m: Mask| members(m).next().expect("non-empty");
    Some(QCore {
        free,
        bound,
        both: first(both),
        only_bound: first(ab & !af),
    })
}

fn pairs(n: usize) -> impl Iterator<Item = (usize, usize)> {
    (0..n).flat_map(move |x| (x + 1..n).map(move |y| (x, y)))
}

/// Hierarchical: for all X, Y, at(X) and at(Y) are nested or disjoint.
pub fn hierarchical(hg: &Hypergraph) -> Result<(), Overlap> {
    match pairs(hg.var_count()).find_map(|(x, y)| overlap(hg, x, y)) {
        Some(w) => Err(w),
        None => Ok(()),
    }
}

/// q-hierarchical: hierarchical, and a free X with at(X) ⊊ at(Y) implies Y
/// is free.
pub fn q_hierarchical(hg: &Hypergraph) -> Result<(), NotQHierarchical> {
    hierarchical(hg).map_err(NotQHierarchical::Overlap)?;
    for free in members(hg.free) {
        for bound in members(hg.bound()) {
            // In a hierarchical query, "meets but is not contained" means
            // at(free) ⊊ at(bound).
            if let Some(w) = q_core(hg, free, bound) {
                return Err(NotQHierarchical::QCore(w));
            }
        }
    }
    Ok(())
}

/// p-hierarchical (*The Role of Semirings in Incremental View Maintenance*,
/// Definition 10): bound variables are pairwise nested or disjoint, and a
/// bound variable's atoms are contained in, or disjoint from, each free
/// variable's atoms.
pub fn p_hierarchical(hg: &Hypergraph) -> Result<(), Core> {
    let bound: Vec<usize> = members(hg.bound()).collect();
    for (i, j) in pairs(bound.len()) {
        if let Some(w) = overlap(hg, bound[i], bound[j]) {
            return Err(Core::ExistsHierarchy(w));
        }
    }
    for free in members(hg.free) {
        for &b in &bound {
            if let Some(w) = q_core(hg, free, b) {
                return Err(Core::Q(w));
            }
        }
    }
    Ok(())
}

impl Overlap {
    /// The atoms of the witness.
    pub fn atoms(&self) -> Mask {
        bit(self.only_x) | bit(self.both) | bit(self.only_y)
    }

    /// The witness in words.
    pub fn describe(&self, hg: &Hypergraph) -> String {
        let (x, y) = (&hg.var_names[self.x], &hg.var_names[self.y]);
        let kind = match (hg.is_free(self.x), hg.is_free(self.y)) {
            (false, false) => "both summed out",
            (true, true) => "both free",
            _ => "one free, one summed out",
        };
        format!(
            "`{x}` and `{y}` ({kind}) occur together in `{}`, but `{x}` also occurs in `{}` without `{y}` and `{y}` in `{}` without `{x}`",
            hg.atom_labels[self.both], hg.atom_labels[self.only_x], hg.atom_labels[self.only_y],
        )
    }
}

impl QCore {
    /// The atoms of the witness.
    pub fn atoms(&self) -> Mask {
        bit(self.both) | bit(self.only_bound)
    }

    /// The witness in words.
    pub fn describe(&self, hg: &Hypergraph) -> String {
        let (f, b) = (&hg.var_names[self.free], &hg.var_names[self.bound]);
        format!(
            "`{b}` is summed out and occurs in `{}` and `{}`, but the free variable `{f}` occurs only in the first of them",
            hg.atom_labels[self.both], hg.atom_labels[self.only_bound],
        )
    }
}

impl NotQHierarchical {
    /// The atoms of the witness.
    pub fn atoms(&self) -> Mask {
        match self {
            NotQHierarchical::Overlap(w) => w.atoms(),
            NotQHierarchical::QCore(w) => w.atoms(),
        }
    }

    /// The witness in words.
    pub fn describe(&self, hg: &Hypergraph) -> String {
        match self {
            NotQHierarchical::Overlap(w) => format!("not hierarchical: {}", w.describe(hg)),
            NotQHierarchical::QCore(w) => format!("a q-core: {}", w.describe(hg)),
        }
    }
}

impl Core {
    /// The atoms of the witness.
    pub fn atoms(&self) -> Mask {
        match self {
            Core::ExistsHierarchy(w) => w.atoms(),
            Core::Q(w) => w.atoms(),
        }
    }

    /// The witness in words.
    pub fn describe(&self, hg: &Hypergraph) -> String {
        match self {
            Core::ExistsHierarchy(w) => format!("an ∃-hierarchy-core: {}", w.describe(hg)),
            Core::Q(w) => format!("a q-core: {}", w.describe(hg)),
        }
    }
}
