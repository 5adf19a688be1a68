//! The query's hypergraph: variables as vertices, atoms as hyperedges, and
//! the set of free variables. Every class test works on this, nothing else.
//!
//! Sets of variables and of atoms are 64-bit masks; the checker rejects
//! larger queries. Each atom is its own edge, also when two atoms name the
//! same relation (a self-join) or have the same variables.

use crate::query::{Arg, LocalStep, Query};

/// A set of variables or atoms, one bit per index.
pub type Mask = u64;

/// The indexes of the set bits of a mask, in increasing order.
pub fn members(mask: Mask) -> impl Iterator<Item = usize> {
    let mut rest = mask;
    std::iter::from_fn(move || {
        if rest == 0 {
            None
        } else {
            let i = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            Some(i)
        }
    })
}

/// The mask with only bit `i` set.
pub fn bit(i: usize) -> Mask {
    1u64 << i
}

/// Whether `a` is a subset of `b`.
pub fn subset(a: Mask, b: Mask) -> bool {
    a & !b == 0
}

/// A query's hypergraph with display names for witnesses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hypergraph {
    /// Variable names, by variable index.
    pub var_names: Vec<String>,
    /// How each atom is written (`S(x, y)`), by atom index.
    pub atom_labels: Vec<String>,
    /// The variables of each atom.
    pub atoms: Vec<Mask>,
    /// The free (head) variables.
    pub free: Mask,
    /// The edges that are theta conditions (`{ a < c }` over variables of
    /// several atoms), a bit per edge: hyperedges of their own, after the
    /// atoms, that hold no relation.
    pub conditions: Mask,
    /// The theta conditions that compare two variables of an integer type
    /// (or `bool`, `char`), `{ x < y }` (also `<=`, `>`, `>=`): (edge, the
    /// smaller side, the larger side, strict).
    pub inequalities: Vec<(usize, usize, usize, bool)>,
    /// Per edge, the declared keys of its atom as variable masks: where a
    /// key's variables are bound, at most one tuple of the atom matches
    /// (`analysis::keys`). Empty for a condition and for an atom without.
    pub keys: Vec<Vec<Mask>>,
    /// Per edge, a rough weight of how much the edge narrows a join where
    /// its variables are bound: for an atom, 2 per column matched against
    /// a constant and 1 per comparison among its local factors; 1 for a
    /// theta condition. With no statistics, this is what orders a
    /// first-order delta's lookups (`analysis::keys::next_atom`).
    pub narrowing: Vec<u32>,
}

/// The weight [`Hypergraph::narrowing`] gives an atom's local step: 2 per
/// column matched against a constant (System R's guess for an equality is
/// a tenth of the rows), 1 per factor that compares (a third).
fn narrowing_of(local: &LocalStep) -> u32 {
    let constants = local
        .args
        .iter()
        .filter(|a| matches!(a, Arg::Const(_)))
        .count();
    let comparisons = local
        .factors
        .iter()
        .filter(|f| is_comparison(&f.expr))
        .count();
    (2 * constants + comparisons) as u32
}

/// Whether `expr` is a condition (a comparison, or a `!`, `&&` or `||` of
/// conditions) rather than a lift that computes a payload.
fn is_comparison(expr: &syn::Expr) -> bool {
    match expr {
        syn::Expr::Paren(p) => is_comparison(&p.expr),
        syn::Expr::Unary(u) => matches!(u.op, syn::UnOp::Not(_)),
        syn::Expr::Binary(b) => matches!(
            b.op,
            syn::BinOp::Lt(_)
                | syn::BinOp::Le(_)
                | syn::BinOp::Gt(_)
                | syn::BinOp::Ge(_)
                | syn::BinOp::Eq(_)
                | syn::BinOp::Ne(_)
                | syn::BinOp::And(_)
                | syn::BinOp::Or(_)
        ),
        _ => false,
    }
}

impl Hypergraph {
    /// Builds a hypergraph from plain data: variable names, atoms as
    /// (label, variable indexes), and the free variable indexes.
    ///
    /// ```
    /// use ivm_compiler::analysis::Hypergraph;
    /// let hg = Hypergraph::new(
    ///     ["x", "y"].map(String::from).to_vec(),
    ///     vec![("S(x, y)".into(), vec![0, 1]), ("T(y)".into(), vec![1])],
    ///     &[0],
    /// );
    /// assert_eq!(hg.at(1), 0b11);
    /// ```
    pub fn new(var_names: Vec<String>, atoms: Vec<(String, Vec<usize>)>, free: &[usize]) -> Self {
        assert!(
            var_names.len() <= 64 && atoms.len() <= 64,
            "at most 64 variables and atoms"
        );
        let atoms_len = atoms.len();
        let (atom_labels, atoms) = atoms
            .into_iter()
            .map(|(label, vars)| (label, vars.iter().fold(0, |m, &v| m | bit(v))))
            .unzip();
        Hypergraph {
            var_names,
            atom_labels,
            atoms,
            free: free.iter().fold(0, |m, &v| m | bit(v)),
            conditions: 0,
            inequalities: Vec::new(),
            keys: vec![Vec::new(); atoms_len],
            narrowing: vec![0; atoms_len],
        }
    }

    /// The hypergraph of a checked query: an edge per atom, then one per
    /// theta factor.
    pub fn of(query: &Query) -> Self {
        let atoms = query.atoms.len();
        let mut hg = Hypergraph::new(
            (0..query.variables.len())
                .map(|v| query.var_label(v))
                .collect(),
            query
                .atoms
                .iter()
                .enumerate()
                .map(|(i, a)| (query.atom_label(i), a.vars.clone()))
                .chain(query.theta.iter().map(|f| (f.text(), f.vars.clone())))
                .collect(),
            &query.head,
        );
        hg.conditions = (atoms..hg.atoms.len()).fold(0, |m, e| m | bit(e));
        for (e, narrowing) in hg.narrowing.iter_mut().enumerate() {
            *narrowing = match query.atoms.get(e) {
                Some(atom) => atom.local.as_ref().map_or(0, narrowing_of),
                None => 1,
            };
        }
        for (i, keys) in hg.keys.iter_mut().enumerate().take(atoms) {
            *keys = query
                .atom_keys(i)
                .iter()
                .map(|key| key.iter().fold(0, |m, &v| m | bit(v)))
                .collect();
        }
        const ORDERED: &[&str] = &[
            "u8", "u16", "u32", "u64", "i8", "i16", "i32", "i64", "bool", "char",
        ];
        // A variable, also in parentheses or widened (`i64::from(x)`, as
        // the SQL front end writes integer columns): widening keeps the
        // order.
        fn var(query: &Query, e: &syn::Expr) -> Option<usize> {
            match e {
                syn::Expr::Paren(p) => var(query, &p.expr),
                syn::Expr::Call(c)
                    if c.args.len() == 1
                        && matches!(&*c.func, syn::Expr::Path(f) if f.path.segments.last().is_some_and(|s| s.ident == "from")) =>
                {
                    var(query, &c.args[0])
                }
                syn::Expr::Path(p) => p
                    .path
                    .get_ident()
                    .and_then(|i| query.variables.iter().position(|v| v.name == *i))
                    .filter(|&v| {
                        ORDERED
                            .contains(&crate::query::type_string(&query.variables[v].ty).as_str())
                    }),
                _ => None,
            }
        }
        let same_type = |l: usize, r: usize| {
            crate::query::type_string(&query.variables[l].ty)
                == crate::query::type_string(&query.variables[r].ty)
        };
        for (i, f) in query.theta.iter().enumerate() {
            let mut e = &f.expr;
            while let syn::Expr::Paren(p) = e {
                e = &p.expr;
            }
            if let syn::Expr::Binary(b) = e
                && let (Some(l), Some(r)) = (var(query, &b.left), var(query, &b.right))
                && same_type(l, r)
            {
                let found = match b.op {
                    syn::BinOp::Lt(_) => Some((l, r, true)),
                    syn::BinOp::Le(_) => Some((l, r, false)),
                    syn::BinOp::Gt(_) => Some((r, l, true)),
                    syn::BinOp::Ge(_) => Some((r, l, false)),
                    _ => None,
                };
                if let Some((x, y, strict)) = found {
                    hg.inequalities.push((atoms + i, x, y, strict));
                }
            }
        }
        hg
    }

    /// The edges that hold a relation (every edge but the theta
    /// conditions).
    pub fn relations(&self) -> Mask {
        (0..self.atoms.len()).fold(0, |m, e| m | bit(e)) & !self.conditions
    }

    /// The variables of each edge that holds a relation: what bounds the
    /// size of a join (a theta condition bounds nothing).
    pub fn relation_edges(&self) -> Vec<Mask> {
        members(self.relations()).map(|e| self.atoms[e]).collect()
    }

    /// The number of variables.
    pub fn var_count(&self) -> usize {
        self.var_names.len()
    }

    /// All variables.
    pub fn vars(&self) -> Mask {
        self.atoms.iter().fold(0, |m, a| m | a)
    }

    /// The bound (summed-out) variables.
    pub fn bound(&self) -> Mask {
        self.vars() & !self.free
    }

    /// at(X): the atoms that contain variable `var`.
    pub fn at(&self, var: usize) -> Mask {
        self.atoms
            .iter()
            .enumerate()
            .filter(|(_, a)| *a & bit(var) != 0)
            .fold(0, |m, (i, _)| m | bit(i))
    }

    /// Whether `var` is free.
    pub fn is_free(&self, var: usize) -> bool {
        self.free & bit(var) != 0
    }

    /// Names of the variables in a mask, comma-separated.
    pub fn names(&self, vars: Mask) -> String {
        members(vars)
            .map(|v| self.var_names[v].as_str())
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Labels of the atoms in a mask, comma-separated.
    pub fn labels(&self, atoms: Mask) -> String {
        self.label_list(atoms).join(", ")
    }

    /// Labels of the atoms in a mask.
    pub fn label_list(&self, atoms: Mask) -> Vec<&str> {
        members(atoms)
            .map(|a| self.atom_labels[a].as_str())
            .collect()
    }

    /// Names of the variables in a mask.
    pub fn name_list(&self, vars: Mask) -> Vec<&str> {
        members(vars).map(|v| self.var_names[v].as_str()).collect()
    }
}
