//! Atoms' local steps (`PathBody::Feed`): where a tuple of a relation
//! enters an atom with constants, `_`, repeated variables or factors of its
//! own, it is matched, multiplied by the factors and projected on the
//! atom's variables, and changes the atom's derived relation.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::{key_expr, method};
use crate::ir::{Derived, Program, RelId, is_copy_type};
use crate::query::{Arg, ExprFactor};

/// How the local step of a derived relation binds its source's tuple.
struct Binding<'a> {
    /// The key is the whole tuple, cloned: nothing is bound by name.
    whole: bool,
    /// Per column: the name it is bound to, `None` for `_`.
    names: Vec<Option<TokenStream>>,
    /// What the bound columns must satisfy (constants, repeated variables).
    checks: Vec<TokenStream>,
    /// The `Some(v)` columns: the pattern each must match and its name.
    unwraps: Vec<(TokenStream, syn::Ident)>,
    /// The computed columns the step reads, in order.
    computed: Vec<&'a crate::query::Let>,
}

impl Binding<'_> {
    /// Whether the step reads column `c` of the tuple.
    fn reads(&self, c: usize) -> bool {
        self.whole || self.names[c].is_some()
    }
}

/// The columns of its source's tuple that the local step of derived
/// relation `d` reads: those of the key, the factors, the computed
/// columns, the checks; all of them where the key is the whole tuple.
pub fn read_columns(p: &Program, d: RelId) -> Vec<usize> {
    let binding = binding(p, d);
    (0..binding.names.len())
        .filter(|&c| binding.reads(c))
        .collect()
}

/// The binding of the local step of derived relation `d`: see [`Binding`].
fn binding(p: &Program, d: RelId) -> Binding<'_> {
    let Derived {
        source,
        atom,
        args,
        lets,
        factors,
    } = p.relations[d].derived().expect("a derived relation");
    let columns = &p.relations[*source].columns;
    // Bind each column: a variable's first column by its name, the others
    // as `__c<i>` to compare, wildcards to nothing.
    let vars = &p.atoms[*atom].vars;
    // A key of every column in order is the tuple itself.
    let whole = args.len() == vars.len()
        && args
            .iter()
            .zip(vars)
            .all(|(a, v)| matches!(a, Arg::Var(w) if w == v))
        && (1..vars.len()).all(|i| !vars[..i].contains(&vars[i]));
    // A variable is bound by name where the key (unless it is the whole
    // tuple), a factor, a computed column that is itself read or a
    // repeated column reads it; else its column is summed out like `_`.
    let mut read: Vec<usize> = if whole { Vec::new() } else { vars.clone() };
    read.extend(factors.iter().flat_map(|f| f.vars.iter().copied()));
    let mut computed = Vec::new();
    for l in lets.iter().rev() {
        if read.contains(&l.var) {
            read.extend(l.value.vars.iter().copied());
            computed.push(l);
        }
    }
    computed.reverse();
    let needed = |v: usize| {
        read.contains(&v)
            || args
                .iter()
                .filter(|a| matches!(a, Arg::Var(w) if *w == v))
                .count()
                > 1
    };
    let mut seen = Vec::new();
    let mut names = Vec::new();
    let mut checks = Vec::new();
    let mut unwraps = Vec::new();
    for (i, arg) in args.iter().enumerate() {
        let column = format_ident!("__c{i}");
        let copy = is_copy_type(&columns[i].1);
        match arg {
            Arg::Var(v) if !needed(*v) => names.push(None),
            Arg::Var(v) if !seen.contains(v) => {
                seen.push(*v);
                let name = &p.vars[*v].name;
                names.push(Some(quote! { #name }));
            }
            Arg::Var(v) => {
                let name = &p.vars[*v].name;
                names.push(Some(quote! { #column }));
                checks.push(quote! { #column == #name });
            }
            Arg::Const(c) => {
                names.push(Some(quote! { #column }));
                checks.push(if copy {
                    quote! { *#column == #c }
                } else if is_empty_text(c) {
                    quote! { #column.is_empty() }
                } else {
                    quote! { #column == #c }
                });
            }
            Arg::Wildcard => names.push(None),
            // `Some(v)`: the tuple enters where the column holds a value,
            // which binds `v` (or, bound before, must equal it).
            Arg::Some(v) => {
                names.push(Some(quote! { #column }));
                let name = &p.vars[*v].name;
                if !needed(*v) {
                    checks.push(quote! { #column.is_some() });
                } else if seen.contains(v) {
                    checks.push(quote! { #column.as_ref() == ::core::option::Option::Some(#name) });
                } else {
                    seen.push(*v);
                    unwraps.push((
                        quote! { ::core::option::Option::Some(#name) },
                        column.clone(),
                    ));
                }
            }
        }
    }
    Binding {
        whole,
        names,
        checks,
        unwraps,
        computed,
    }
}

/// The local step of derived relation `d`, run on the source's tuple
/// `__tuple` (borrowed): `body(key, has_factors)` runs for a tuple that
/// enters, with the derived tuple; when the atom has factors, their
/// non-zero product is `__factor`.
fn step(p: &Program, d: RelId, body: impl FnOnce(TokenStream, bool) -> TokenStream) -> TokenStream {
    let Derived {
        source: _,
        atom,
        args,
        lets: _,
        factors,
    } = p.relations[d].derived().expect("a derived relation");
    let vars = &p.atoms[*atom].vars;
    let Binding {
        whole,
        names,
        checks,
        unwraps,
        computed,
    } = binding(p, d);
    let fields = super::field_refs(&quote! { __tuple }, args.len());
    let key = if whole {
        super::cloned_whole(p, vars, &quote! { __tuple })
    } else {
        key_expr(p, vars)
    };
    let body = body(key, !factors.is_empty());
    let body = if factors.is_empty() {
        body
    } else {
        let product = product(p, factors);
        quote! {
            let __factor = #product;
            if let ::core::option::Option::Some(__factor) = __factor {
                #body
            }
        }
    };
    // Computed columns are bound by reference, as the columns are.
    let computed = computed.iter().map(|l| {
        let name = &p.vars[l.var].name;
        let ty = &p.vars[l.var].ty;
        let value = &l.value.expr;
        // A column under another name (`let x = y`) is the reference.
        if let syn::Expr::Path(path) = value
            && let [v] = l.value.vars.as_slice()
            && path.path.is_ident(&p.vars[*v].name)
        {
            return quote! { let #name: &#ty = #value; };
        }
        let by_value = by_value(p, &l.value.vars);
        quote! { let #name: &#ty = &{ #(#by_value)* #value }; }
    });
    let body = quote! {
        #(#computed)*
        #body
    };
    // The `Some(v)` columns are bound first, so that the checks can read
    // what they bind: one pattern for all (a `match` with the checks as
    // its guard, where there are checks), so that no `if` nests another.
    let (patterns, columns): (Vec<TokenStream>, Vec<syn::Ident>) = unwraps.into_iter().unzip();
    let guarded = match (patterns.as_slice(), checks.is_empty()) {
        ([], true) => body,
        ([], false) => quote! {
            if #(#checks)&&* {
                #body
            }
        },
        ([pattern], true) => {
            let column = &columns[0];
            quote! {
                if let #pattern = #column {
                    #body
                }
            }
        }
        (_, true) => quote! {
            if let (#(#patterns,)*) = (#(#columns,)*) {
                #body
            }
        },
        (_, false) => quote! {
            match (#(#columns,)*) {
                (#(#patterns,)*) if #(#checks)&&* => {
                    #body
                }
                _ => {}
            }
        },
    };
    // Nothing to bind when the tuple goes up whole.
    let bind = names.iter().any(Option::is_some).then(|| {
        let names = names
            .iter()
            .map(|n| n.clone().unwrap_or_else(|| quote! { _ }));
        quote! { let (#(#names,)*) = #fields; }
    });
    quote! {{
        #bind
        #guarded
    }}
}

/// The product of `factors` as an `Option` of the payload, `None` when it
/// is zero: a block over the variables, bound by reference as the
/// factors' columns are. The factors read the variables by value
/// (integers, `bool`, `char`) or by reference (the rest). They are
/// evaluated in order, and the first that is zero (a condition that fails)
/// stops the evaluation.
pub fn product(p: &Program, factors: &[ExprFactor]) -> TokenStream {
    let k = &p.payload;
    let mut read: Vec<usize> = factors.iter().flat_map(|f| f.vars.clone()).collect();
    read.sort_unstable();
    read.dedup();
    let by_value = by_value(p, &read);
    let first = &factors[0].expr;
    let rest = factors[1..].iter().map(|f| {
        let e = &f.expr;
        quote! { .and_then(|__f| ::ivm::__private::times(__f, #e)) }
    });
    quote! {{
        #(#by_value)*
        ::ivm::__private::first_factor::<#k>(#first) #(#rest)*
    }}
}

/// The feed of derived relation `d` from its source's trigger: the
/// contribution of the tuple changes from `__old` to `__new` times the
/// atom's factors.
pub fn path(p: &Program, d: RelId) -> TokenStream {
    let feed = method("feed", &p.relations[d].snake);
    step(p, d, |key, has_factors| match has_factors {
        false => quote! {
            self.#feed(#key, __old, __new);
        },
        true => quote! {
            let __from = ::ivm::__private::scaled(__old, &__factor);
            let __to = ::ivm::__private::scaled(__new, &__factor);
            self.#feed(#key, &__from, &__to);
        },
    })
}

/// `bulk_load`'s filling of derived relation `d` from its source's base
/// map, before any view is built.
pub fn bulk_fill(p: &Program, d: RelId) -> TokenStream {
    let Derived { source, .. } = p.relations[d].derived().expect("a derived relation");
    let from = &p.maps[p.relations[*source].base].name;
    let to = &p.maps[p.relations[d].base].name;
    let step = step(p, d, |key, has_factors| match has_factors {
        false => quote! { __db.#to.insert(#key, &__payload); },
        true => quote! {
            let __term = ::ivm::Semiring::mul(&__payload, &__factor);
            if !::ivm::Semiring::is_zero(&__term) {
                __db.#to.insert(#key, &__term);
            }
        },
    });
    quote! {
        for (__tuple, __payload) in __db.#from.iter() {
            #step
        }
    }
}

/// `let v = *v;` for each of `vars` that is read by value (integers,
/// `bool`, `char`): an expression pasted from the query reads those by
/// value and the rest by reference.
fn by_value(p: &Program, vars: &[usize]) -> Vec<TokenStream> {
    vars.iter()
        .filter(|&&v| p.vars[v].is_copy())
        .map(|&v| {
            let name = &p.vars[v].name;
            quote! { let #name = *#name; }
        })
        .collect()
}

/// Whether a constant is the empty string, which generated code tests with
/// `is_empty()`, as a person would.
fn is_empty_text(c: &syn::Expr) -> bool {
    matches!(c, syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }) if s.value().is_empty())
}
