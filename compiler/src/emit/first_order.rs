//! The first-order delta: the materialized result (`MapKind::Result`), the
//! join of the other atoms that an update runs (`PathBody::DeltaJoin`), and the
//! reading over the result's entries (`Reading::Result`).

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::key_expr;
use crate::ir::{Access, AtomIr, DeltaJoin, Id, Program, RelationIndex, ResultMap, SumView, VarId};

/// The first-order delta of one atom: nested loops over the other atoms,
/// and for each derivation found, its old payload replaced by its new one
/// in the result.
pub fn path(p: &Program, atom: usize, join: &DeltaJoin) -> TokenStream {
    let own = &p.atoms[atom];
    let delta = Delta {
        p,
        join,
        own,
        needed: needed_vars(p, join),
    };
    let names: Vec<TokenStream> = own.vars.iter().map(|&v| delta.bind_name(v)).collect();
    let tests = ThetaTests::place(p, join, own);
    // Wrap the derivation in the loops, innermost first, each loop's body
    // in the tests of the theta factors its atom completes.
    let mut body = derivation(p, join, &tests);
    for (i, l) in join.loops.iter().enumerate().rev() {
        body = tests.wrap(p, Level::Loop(i), body);
        body = match &l.access {
            Access::Smaller { index, partners } => {
                delta.intersection(l.atom, *index, partners, body)
            }
            Access::Point => delta.wrap(l.atom, Walk::Point, body),
            Access::Scan => delta.wrap(l.atom, Walk::Scan, body),
            Access::Index(m) => delta.wrap(l.atom, Walk::Index(*m), body),
        };
    }
    let body = tests.wrap(p, Level::Own, body);
    let fields = super::field_refs(&quote! { __tuple }, own.vars.len());
    quote! {
        {
            let (#(#names,)*) = #fields;
            #body
        }
    }
}

/// Where a delta join tests a theta factor: once the updated atom or a
/// loop's atom has bound the last of its variables.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Level {
    /// The updated atom binds them all: tested before the first loop.
    Own,
    /// Tested in the loop at this position of the join, for each of its
    /// tuples, before the loops inside it.
    Loop(usize),
}

/// The theta factors of a delta join, each at its [`Level`]. A factor
/// that fails skips the loops inside it: Q21's tests of the supplier
/// against its order's least and greatest ones drop most lines before
/// their supplier and nation are looked up.
struct ThetaTests {
    /// Each factor of `Program::theta`'s level.
    levels: Vec<Level>,
}

impl ThetaTests {
    /// Each factor at the first level where all its variables are bound.
    fn place(p: &Program, join: &DeltaJoin, own: &AtomIr) -> Self {
        let mut bound: Vec<Vec<VarId>> = vec![own.vars.clone()];
        for l in &join.loops {
            let mut vars = bound.last().cloned().unwrap_or_default();
            vars.extend(&p.atoms[l.atom].vars);
            if let Access::Smaller { partners, .. } = &l.access {
                for &(partner, _) in partners {
                    vars.extend(&p.atoms[partner].vars);
                }
            }
            bound.push(vars);
        }
        let levels = p
            .theta
            .iter()
            .map(|f| {
                let at = bound
                    .iter()
                    .position(|vars| f.vars.iter().all(|v| vars.contains(v)))
                    // The derivation binds every variable.
                    .unwrap_or(join.loops.len());
                match at {
                    0 => Level::Own,
                    i => Level::Loop(i - 1),
                }
            })
            .collect();
        ThetaTests { levels }
    }

    /// The levels that test some factor, outermost first.
    fn used(&self) -> Vec<Level> {
        let mut used = self.levels.clone();
        used.sort_by_key(|l| match l {
            Level::Own => 0,
            Level::Loop(i) => i + 1,
        });
        used.dedup();
        used
    }

    /// `body` where the product of the factors at `level`, named as
    /// [`theta_name`] says, is not zero.
    fn wrap(&self, p: &Program, level: Level, body: TokenStream) -> TokenStream {
        let factors: Vec<crate::query::ExprFactor> = p
            .theta
            .iter()
            .zip(&self.levels)
            .filter(|(_, l)| **l == level)
            .map(|(f, _)| f.clone())
            .collect();
        if factors.is_empty() {
            return body;
        }
        let product = super::local::product(p, &factors);
        let name = theta_name(level);
        quote! {
            if let ::core::option::Option::Some(#name) = #product {
                #body
            }
        }
    }
}

/// The name of the product of the theta factors tested at `level`.
fn theta_name(level: Level) -> proc_macro2::Ident {
    match level {
        Level::Own => format_ident!("__theta"),
        Level::Loop(i) => format_ident!("__theta_{i}"),
    }
}

/// The variables some key, the head or a theta factor reads; the others
/// are bound to `_`.
fn needed_vars(p: &Program, join: &DeltaJoin) -> Vec<VarId> {
    let mut needed: Vec<usize> = p.head.clone();
    needed.extend(p.theta.iter().flat_map(|f| f.vars.iter().copied()));
    for l in &join.loops {
        match &l.access {
            Access::Point => needed.extend(&p.atoms[l.atom].vars),
            Access::Index(m) => needed.extend(index_vars(p, l.atom, *m)),
            // Each side is looked up in the walks of the others.
            Access::Smaller { partners, .. } => {
                needed.extend(&p.atoms[l.atom].vars);
                for &(partner, _) in partners {
                    needed.extend(&p.atoms[partner].vars);
                }
            }
            Access::Scan => {}
        }
    }
    needed
}

/// The variables of `atom` that index `m` is keyed by.
fn index_vars(p: &Program, atom: usize, m: Id<RelationIndex>) -> Vec<VarId> {
    let columns = &p.get(m).columns;
    columns.iter().map(|&c| p.atoms[atom].vars[c]).collect()
}

/// The innermost body of a delta join: the derivation's payloads before
/// and after, one per other atom (an intersection's partner included),
/// times the theta factors, replace each other in the result.
fn derivation(p: &Program, join: &DeltaJoin, tests: &ThetaTests) -> TokenStream {
    let k = &p.payload;
    // The innermost body: the derivation's payloads before and after, one
    // per other atom (an intersection's partner included).
    let others: Vec<usize> = join
        .loops
        .iter()
        .flat_map(|l| match &l.access {
            Access::Smaller { partners, .. } => std::iter::once(l.atom)
                .chain(partners.iter().map(|&(a, _)| a))
                .collect(),
            _ => vec![l.atom],
        })
        .collect();
    let olds = others.iter().map(|a| format_ident!("__old_{a}"));
    let news = others.iter().map(|a| format_ident!("__new_{a}"));
    let result = &p.maps[join.result].name;
    let head = key_expr(p, &p.head);
    let note = super::changes::note(p, result, &head);
    let body = quote! {
        let __old_term: #k = ::core::clone::Clone::clone(__old);
        #(let __old_term = ::ivm::Semiring::mul(&__old_term, &#olds);)*
        let __new_term: #k = ::core::clone::Clone::clone(__new);
        #(let __new_term = ::ivm::Semiring::mul(&__new_term, &#news);)*
        if __old_term != __new_term {
            #note
            self.#result.replace(__result_key, &__old_term, &__new_term);
        }
    };
    // The theta factors, over variables of several atoms, multiply each
    // derivation; the loops around it tested them (`ThetaTests`), and a
    // zero one left the result as it was.
    let thetas = tests.used().into_iter().map(theta_name);
    quote! {
        #(
            let __old = &::ivm::Semiring::mul(__old, &#thetas);
            let __new = &::ivm::Semiring::mul(__new, &#thetas);
        )*
        #body
    }
}

/// How one loop of a delta join reaches its atom's tuples.
#[derive(Debug, Clone, Copy)]
enum Walk {
    /// One lookup of the bound tuple.
    Point,
    /// Every tuple of the relation.
    Scan,
    /// The tuples of an index's group.
    Index(Id<RelationIndex>),
}

/// What the loops of one atom's delta join share.
struct Delta<'a> {
    p: &'a Program,
    join: &'a DeltaJoin,
    /// The updated atom.
    own: &'a AtomIr,
    /// The variables some key, the head or a theta factor reads.
    needed: Vec<VarId>,
}

impl Delta<'_> {
    /// A variable's name where it is read, `_` elsewhere.
    fn bind_name(&self, v: usize) -> TokenStream {
        if self.needed.contains(&v) {
            let name = &self.p.vars[v].name;
            quote! { #name }
        } else {
            quote! { _ }
        }
    }

    fn index_key(&self, atom: usize, m: Id<RelationIndex>) -> Vec<VarId> {
        index_vars(self.p, atom, m)
    }

    /// `body` inside the loop over the tuples of `atom` that `walk` reaches.
    fn wrap(&self, atom: usize, walk: Walk, body: TokenStream) -> TokenStream {
        let p = self.p;
        let k = &p.payload;
        let a = &p.atoms[atom];
        let base = &p.maps[p.relations[a.relation].base].name;
        let old = format_ident!("__old_{atom}");
        let new = format_ident!("__new_{atom}");
        let same = a.relation == self.own.relation;
        let earlier = self.join.earlier_same_relation.contains(&atom);
        // This atom's payload before and after the update: they differ only
        // at the updated tuple of the same relation.
        let payloads = |tuple: TokenStream, value: TokenStream| {
            let skip = earlier.then(|| quote! { if #tuple == *__tuple { continue; } });
            let pick = if same && !earlier {
                quote! {
                    let (#old, #new): (#k, #k) = if #tuple == *__tuple {
                        (::core::clone::Clone::clone(__old), ::core::clone::Clone::clone(__new))
                    } else {
                        let __v: #k = #value;
                        (::core::clone::Clone::clone(&__v), __v)
                    };
                }
            } else {
                quote! {
                    let #new: #k = #value;
                    let #old: #k = ::core::clone::Clone::clone(&#new);
                }
            };
            quote! { #skip #pick }
        };
        match walk {
            Walk::Point => {
                let key = key_expr(p, &a.vars);
                let value = quote! { self.#base.value(&__u) };
                let pay = payloads(quote! { __u }, value);
                quote! {
                    #[allow(clippy::never_loop)]
                    for __u in ::core::iter::once(#key) {
                        #pay
                        if ::ivm::Semiring::is_zero(&#old) && ::ivm::Semiring::is_zero(&#new) {
                            continue;
                        }
                        #body
                    }
                }
            }
            Walk::Scan => {
                let vars = a.vars.iter().map(|&v| self.bind_name(v));
                let fields = super::field_refs(&quote! { __u }, a.vars.len());
                if same && !earlier {
                    // The base map is already updated: a tuple whose
                    // payload has just returned to zero has left it, yet
                    // its derivations with the old payload must still be
                    // taken back. The scan visits it too.
                    let pay = payloads(quote! { *__u }, quote! { __v });
                    quote! {
                        let __left = (!self.#base.contains(__tuple))
                            .then(|| (__tuple, <#k as ::ivm::Semiring>::zero()));
                        let __scan = self.#base.iter();
                        for (__u, __v) in __scan.chain(__left) {
                            let (#(#vars,)*) = #fields;
                            #pay
                            #body
                        }
                    }
                } else {
                    let pay = payloads(quote! { *__u }, quote! { __v });
                    quote! {
                        for (__u, __v) in self.#base.iter() {
                            let (#(#vars,)*) = #fields;
                            #pay
                            #body
                        }
                    }
                }
            }
            Walk::Index(m) => {
                let columns = &p.get(m).columns;
                let index = &p.maps[m].name;
                let key = key_expr(p, &self.index_key(atom, m));
                let binds = (0..a.vars.len())
                    .filter(|c| !columns.contains(c) && self.needed.contains(&a.vars[*c]))
                    .map(|c| {
                        let v = &p.vars[a.vars[c]].name;
                        let f = super::item(&quote! { __u }, c, a.vars.len());
                        quote! { let #v = &#f; }
                    });
                let value = quote! { self.#base.value(__u) };
                let pay = payloads(quote! { *__u }, value);
                quote! {
                    for __u in self.#index.get(&#key) {
                        #(#binds)*
                        #pay
                        #body
                    }
                }
            }
        }
    }

    /// `body` inside the loops of an intersection: every atom of it with its
    /// index; walk the smallest group, look the others up.
    fn intersection(
        &self,
        atom: usize,
        index: Id<RelationIndex>,
        partners: &[(usize, Id<RelationIndex>)],
        body: TokenStream,
    ) -> TokenStream {
        let p = self.p;
        // Every atom of the intersection with its index: walk the
        // smallest group, look the others up.
        let sides: Vec<(usize, Id<RelationIndex>)> = std::iter::once((atom, index))
            .chain(partners.iter().copied())
            .collect();
        let walks: Vec<TokenStream> = sides
            .iter()
            .map(|&(walked, by)| {
                let looked_up = sides
                    .iter()
                    .filter(|&&(a, _)| a != walked)
                    .rev()
                    .fold(body.clone(), |inner, &(a, _)| {
                        self.wrap(a, Walk::Point, inner)
                    });
                self.wrap(walked, Walk::Index(by), looked_up)
            })
            .collect();
        let counts: Vec<TokenStream> = sides
            .iter()
            .map(|&(a, m)| {
                let field = &p.maps[m].name;
                let key = key_expr(p, &self.index_key(a, m));
                quote! { self.#field.count(&#key) }
            })
            .collect();
        match (walks.as_slice(), counts.as_slice()) {
            ([mine, theirs], [count, their_count]) => quote! {
                if #count <= #their_count {
                    #mine
                } else {
                    #theirs
                }
            },
            _ => {
                let arms = walks.iter().enumerate().map(|(i, walk)| {
                    if i + 1 == walks.len() {
                        quote! { _ => { #walk } }
                    } else {
                        quote! { #i => { #walk } }
                    }
                });
                quote! {
                    let __counts = [#(#counts),*];
                    let __smallest = (0..__counts.len())
                        .min_by_key(|&__i| __counts[__i])
                        .unwrap_or(0);
                    match __smallest {
                        #(#arms)*
                    }
                }
            }
        }
    }
}

/// The reading methods over a materialized result.
pub fn reading(p: &Program, result: Id<ResultMap>, scalars: &[Id<SumView>]) -> TokenStream {
    let k = &p.payload;
    let field = &p.maps[result].name;
    if !scalars.is_empty() {
        // Beside a range join: a nullary result times nullary factors.
        return super::nullary::reading(p, quote! { self.#field.value(&()) }, scalars);
    }
    let head_ty = super::head_type(p);
    let doc = [
        " order) with its non-zero payload, read from the materialized",
        " result.",
    ];
    let (iter, len) = entries_reading(p, field, &doc);
    quote! {
        #iter

        /// The payload of one output tuple; zero when it is not in the result.
        pub fn get(&self, key: &#head_ty) -> #k {
            self.#field.value(key)
        }

        #len
    }
}

/// `iter`, and `len` with `is_empty`, of a result that is the entries of
/// the payload map `field`, each an output tuple with its payload; `doc`
/// goes on the first line of `iter`'s doc.
pub fn entries_reading(
    p: &Program,
    field: &syn::Ident,
    doc: &[&str],
) -> (TokenStream, TokenStream) {
    let k = &p.payload;
    let head_ty = super::head_type(p);
    let iter = quote! {
        /// The result: each output tuple (the head variables, in head
        #(#[doc = #doc])*
        pub fn iter(&self) -> impl ::core::iter::Iterator<Item = (#head_ty, #k)> + '_ {
            self.#field
                .iter()
                .map(|(__key, __payload)| (::core::clone::Clone::clone(__key), __payload))
                .filter(|(_, __payload)| !::ivm::Semiring::is_zero(__payload))
        }
    };
    let len = quote! {
        /// The number of output tuples, in O(1): an entry is kept exactly
        /// while its payload is non-zero.
        pub fn len(&self) -> usize {
            self.#field.len()
        }

        /// Whether the result is empty, in O(1).
        pub fn is_empty(&self) -> bool {
            self.#field.is_empty()
        }
    };
    (iter, len)
}
