//! View trees (`MapKind::Sum` views and `MapKind::Free` levels): the steps
//! that carry a change up the tree (`PathBody::Steps`), the reading along
//! the free levels (`Reading::Levels`), and `bulk_load` in one pass per view
//! ("The Role of Semirings in Incremental View Maintenance", section 5.4).
//!
//! The result is the product, along the free variables of the variable
//! order, of each value's local payload, times the nullary views of the
//! summed-out roots. Enumeration walks the free levels top-down through
//! values that have output only, so each tuple costs O(1).

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::{factor_value, key_expr, key_type, product_value};
use crate::ir::{
    AtomId, Bind, Factor, FreeLevel, Id, LevelStore, Map, MapKind, Product, Program, Step, SumView,
    Target, VarId, ViewIndex,
};

/// Up a view tree: each step replaces the changed factor's old payload by
/// its new one in the product at one key of its target.
pub fn path(p: &Program, atom_id: AtomId, steps: &[Step], later: &[AtomId]) -> TokenStream {
    let block = atom_label(p, atom_id);
    // Variables no key on the path needs are bound to `_`.
    let used = used_vars(p, steps);
    let bind = tuple_binding(p, atom_id, &used);
    let mut climb = Climb {
        p,
        later,
        // The changed factor's payloads: the tuple's, borrowed, at the
        // first step; a view's, owned, after it.
        changed: Payloads {
            old: quote! { __old },
            new: quote! { __new },
        },
        exit: Exit::Block(block.clone()),
        breaks: false,
        walked: Vec::new(),
    };
    let last = steps.len() - 1;
    let blocks: Vec<TokenStream> = steps
        .iter()
        .enumerate()
        .map(|(s, step)| climb.step(s, step, s == last))
        .collect();
    let body = nest_loops(p, steps, blocks, &used);
    let body = quote! {
        #bind
        #body
    };
    if climb.breaks {
        quote! { #block: { #body } }
    } else {
        quote! { { #body } }
    }
}

/// The columns of the updated tuple that a path of `steps` from atom
/// `atom_id` reads: those [`tuple_binding`] binds by name.
pub fn read_columns(p: &Program, atom_id: AtomId, steps: &[Step]) -> Vec<usize> {
    let used = used_vars(p, steps);
    let vars = &p.atoms[atom_id].vars;
    (0..vars.len())
        .filter(|&c| used.contains(&vars[c]))
        .collect()
}

/// The label of a path's block, named after the atom (`'edge_v_a` for
/// `Edge(v, a)`), so a reader sees which atom each early exit leaves.
fn atom_label(p: &Program, atom_id: AtomId) -> syn::Lifetime {
    let atom = &p.atoms[atom_id];
    let mut label_name = p.relations[atom.relation].snake.clone();
    for &v in &atom.vars {
        label_name.push('_');
        label_name.push_str(&p.vars[v].name.to_string());
    }
    syn::Lifetime::new(&format!("'{label_name}"), proc_macro2::Span::call_site())
}

/// The `let` binding the atom's variables to the tuple's columns all at
/// once, so a variable named like another column cannot shadow it; those
/// not in `used` are bound to `_`.
fn tuple_binding(p: &Program, atom_id: AtomId, used: &[VarId]) -> TokenStream {
    let atom = &p.atoms[atom_id];
    let names = atom.vars.iter().map(|&v| {
        if used.contains(&v) {
            let name = &p.vars[v].name;
            quote! { #name }
        } else {
            quote! { _ }
        }
    });
    let fields = super::field_refs(&quote! { __tuple }, atom.vars.len());
    quote! { let (#(#names,)*) = #fields; }
}

/// A factor's payloads before and after a change, as expressions.
#[derive(Clone)]
struct Payloads {
    old: TokenStream,
    new: TokenStream,
}

/// Where a step with nothing left to change goes: out of the path's
/// block, or, inside the loops of a step that changes several entries, on
/// to the loops' next combination.
enum Exit {
    /// `break` out of the block labelled after the atom.
    Block(syn::Lifetime),
    /// `continue` the innermost loop of a step.
    Loop(syn::Lifetime),
}

impl quote::ToTokens for Exit {
    fn to_tokens(&self, tokens: &mut TokenStream) {
        tokens.extend(match self {
            Exit::Block(label) => quote! { break #label },
            Exit::Loop(label) => quote! { continue #label },
        });
    }
}

/// What the steps of one path share as they climb the tree.
struct Climb<'a> {
    p: &'a Program,
    /// The later atoms of the updated atom's relation (a self-join).
    later: &'a [AtomId],
    /// The changed factor's payloads at the current step.
    changed: Payloads,
    /// Where a step with nothing left to change goes.
    exit: Exit,
    /// Whether some step leaves the path's block early.
    breaks: bool,
    /// The atoms whose tuples the loops so far walk with their payloads: a
    /// step reads such a sibling from the loop instead of its base map.
    walked: Vec<AtomId>,
}

impl Climb<'_> {
    /// The code of step `s` (without its loops), which is the path's last
    /// when `is_last`.
    fn step(&mut self, s: usize, step: &Step, is_last: bool) -> TokenStream {
        let p = self.p;
        self.walked
            .extend(step.binds.iter().filter_map(|b| b.walked_atom(p)));
        if !step.binds.is_empty() {
            let label = step_label(s);
            self.exit = Exit::Loop(label);
        }
        let exits_block = matches!(self.exit, Exit::Block(_));
        let sib_product = self.sibling_product(step);
        if sib_product.is_some() {
            self.breaks |= exits_block;
        }
        // The changed factor times the siblings, before and after.
        let terms = if sib_product.is_some() {
            let Payloads { old, new } = &self.changed;
            Payloads {
                old: quote! { &::ivm::Semiring::mul(#old, &__sib) },
                new: quote! { &::ivm::Semiring::mul(#new, &__sib) },
            }
        } else {
            self.changed.clone()
        };
        let target = &p.maps[step.target];
        match step.target {
            Target::Sum(view) => {
                let field = &target.name;
                let key = key_expr(p, &target.key);
                let Payloads { old, new } = terms;
                if is_last {
                    // A root view: nothing above it to tell.
                    return quote! {
                        #sib_product
                        self.#field.replace(#key, #old, #new);
                    };
                }
                self.breaks |= exits_block;
                let upkeep = view_index_upkeep(p, view);
                let exit = &self.exit;
                self.changed = Payloads {
                    old: quote! { &__changed_old },
                    new: quote! { &__changed_new },
                };
                quote! {
                    #sib_product
                    let ::core::option::Option::Some((__changed_old, __changed_new)) =
                        self.#field.replace_changed(#key, #old, #new)
                    else {
                        #exit;
                    };
                    #upkeep
                }
            }
            // A level read off its factor's keys has nothing to note.
            Target::Free(level) if p.get(level).store != LevelStore::Own => TokenStream::new(),
            Target::Free(level) => self.free_level_step(level, sib_product, terms),
            Target::Join(_) | Target::Support(_) => {
                // Over a positive semiring a non-zero payload stays
                // non-zero under inserts, and a product of non-zero
                // factors is non-zero: only a factor that was zero can
                // bring a new value into the support.
                let key = key_expr(p, &target.key);
                let reach = super::names::reach(p, step.target.map());
                let old = &self.changed.old;
                let new_term = &terms.new;
                quote! {
                    #sib_product
                    if ::ivm::Semiring::is_zero(#old) && !::ivm::Semiring::is_zero(#new_term) {
                        self.#reach(#key);
                    }
                }
            }
        }
    }

    /// `__sib`, the product of a step's siblings at the current key, and
    /// the exit when it is zero; `None` without siblings.
    fn sibling_product(&self, step: &Step) -> Option<TokenStream> {
        let k = &self.p.payload;
        let sibs: Vec<TokenStream> = step
            .siblings
            .iter()
            .map(|&f| self.sibling_value(f))
            .collect();
        let (first, rest) = sibs.split_first()?;
        let exit = &self.exit;
        Some(quote! {
            let __sib: #k = #first;
            #(let __sib = ::ivm::Semiring::mul(&__sib, &#rest);)*
            if ::ivm::Semiring::is_zero(&__sib) {
                #exit;
            }
        })
    }

    /// The payload of one sibling at the current key. A sibling that is a
    /// later atom of the same relation, read at the updated tuple, must
    /// still show its old payload (the self-join delta rule).
    fn sibling_value(&self, f: Factor) -> TokenStream {
        let p = self.p;
        let value = match f {
            Factor::Atom(a) if self.walked.contains(&a) => {
                let payload = loop_payload(p, a);
                quote! { ::core::clone::Clone::clone(#payload) }
            }
            _ => factor_value(p, f, None),
        };
        match f {
            Factor::Atom(a) if self.later.contains(&a) => {
                let key = key_expr(p, &p.atoms[a].vars);
                quote! {
                    if #key == *__tuple {
                        ::core::clone::Clone::clone(__old)
                    } else {
                        #value
                    }
                }
            }
            _ => value,
        }
    }

    /// A step into a free level, which only records whether the local
    /// payload is non-zero (the payload itself is looked up when read): a
    /// change between non-zero payloads stops here.
    fn free_level_step(
        &self,
        level: Id<FreeLevel>,
        sib_product: Option<TokenStream>,
        terms: Payloads,
    ) -> TokenStream {
        let p = self.p;
        let k = &p.payload;
        let target = &p.maps[level];
        let field = &target.name;
        let group = key_expr(p, &target.key);
        let x = super::level_value(p, &p.get(level).vars);
        let recount = recount(p, level);
        // Without zero divisors the product's liveness follows the
        // changed factor's: the siblings are looked up only when it turns
        // zero or non-zero.
        let shortcut = sib_product.is_some().then(|| {
            let Payloads { old, new } = &self.changed;
            let exit = &self.exit;
            quote! {
                if <#k as ::ivm::Semiring>::ZERO_DIVISOR_FREE
                    && ::ivm::Semiring::is_zero(#old) == ::ivm::Semiring::is_zero(#new)
                {
                    #exit;
                }
            }
        });
        let Payloads { old, new } = terms;
        // The value's key is built (cloned) only when its liveness changes.
        let turned = quote! { ::ivm::__private::turned(#old, #new) };
        let apply = if recount.is_empty() {
            quote! {
                if let ::core::option::Option::Some(__live) = #turned {
                    self.#field.set_live(#group, #x, __live);
                }
            }
        } else {
            quote! {
                if #turned.is_some_and(|__live| self.#field.set_live(#group, #x, __live)) {
                    #recount
                }
            }
        };
        quote! {
            #shortcut
            #sib_product
            #apply
        }
    }
}

/// The steps' code wrapped in their loops: each step that changes several
/// entries runs itself and the steps above it once per combination of its
/// loops.
fn nest_loops(
    p: &Program,
    steps: &[Step],
    blocks: Vec<TokenStream>,
    used: &[VarId],
) -> TokenStream {
    let mut body = TokenStream::new();
    for (s, (step, tokens)) in steps.iter().zip(blocks).enumerate().rev() {
        body = quote! { #tokens #body };
        for (j, b) in step.binds.iter().enumerate().rev() {
            let label = (j == step.binds.len() - 1).then(|| {
                let label = step_label(s);
                quote! { #label: }
            });
            body = bind_loop(p, b, used, label, body);
        }
    }
    body
}

/// The label of the innermost loop of step `s`.
fn step_label(s: usize) -> syn::Lifetime {
    syn::Lifetime::new(&format!("'step_{s}"), proc_macro2::Span::call_site())
}

/// A loop of a step over the tuples of a sibling atom (through an index of
/// its relation) or the entries of a sibling view (through a secondary
/// index of the view) that agree with the variables bound so far, binding
/// its other variables that the path reads, by reference.
fn bind_loop(
    p: &Program,
    b: &Bind,
    used: &[usize],
    label: Option<TokenStream>,
    body: TokenStream,
) -> TokenStream {
    let (columns, vars) = b.columns(p);
    let index = &p.maps[b.index()].name;
    let key_vars: Vec<usize> = columns.iter().map(|&c| vars[c]).collect();
    let key = key_expr(p, &key_vars);
    let element = match b.walked_atom(p) {
        Some(a) => {
            let payload = loop_payload(p, a);
            quote! { (__u, #payload) in self.#index.entries(&#key) }
        }
        None => quote! { __u in self.#index.get(&#key) },
    };
    let binds = (0..vars.len())
        .filter(|c| !columns.contains(c) && used.contains(&vars[*c]))
        .map(|c| {
            let v = &p.vars[vars[c]].name;
            let f = super::item(&quote! { __u }, c, vars.len());
            quote! { let #v = &#f; }
        });
    quote! {
        #label for #element {
            #(#binds)*
            #body
        }
    }
}

/// The name a loop gives the payload of the tuple of atom `a` it is at:
/// `__s_payload` for an atom of `S`, `__s_1_payload` for the second atom
/// of `S` in a self-join.
fn loop_payload(p: &Program, a: AtomId) -> syn::Ident {
    let relation = p.atoms[a].relation;
    let snake = &p.relations[relation].snake;
    let same: Vec<AtomId> = (0..p.atoms.len())
        .filter(|&b| p.atoms[b].relation == relation)
        .collect();
    if same.len() == 1 {
        format_ident!("__{snake}_payload")
    } else {
        let nth = same.iter().position(|&b| b == a).unwrap_or(0);
        format_ident!("__{snake}_{nth}_payload")
    }
}

/// The field type of a view's secondary index: the grouping variables'
/// values to the view's keys.
pub fn view_index_type(p: &Program, map: &Map, index: &ViewIndex) -> TokenStream {
    let by = key_type(p, &map.key);
    let all = key_type(p, &p.maps[index.view].key);
    quote! { ::ivm::__private::Index<#by, #all> }
}

/// After an entry of `view` changed from `__changed_old` to
/// `__changed_new` at the key in scope: a key whose payload turned non-zero
/// enters the view's secondary indexes, one that turned zero leaves them.
fn view_index_upkeep(p: &Program, view: Id<SumView>) -> Option<TokenStream> {
    let k = &p.payload;
    let indexes: Vec<(&syn::Ident, &Vec<usize>)> = p
        .maps
        .iter()
        .filter_map(|m| match &m.kind {
            MapKind::ViewIndex(ViewIndex { view: v, .. }) if *v == view => Some((&m.name, &m.key)),
            _ => None,
        })
        .collect();
    if indexes.is_empty() {
        return None;
    }
    let key = key_expr(p, &p.maps[view].key);
    let (enter, leave): (Vec<TokenStream>, Vec<TokenStream>) = indexes
        .iter()
        .map(|(name, by)| {
            let by = key_expr(p, by);
            (
                quote! { self.#name.insert(#by, #key); },
                quote! { self.#name.remove(&#by, &#key); },
            )
        })
        .unzip();
    Some(quote! {
        if <#k as ::ivm::Semiring>::is_zero(&__changed_old) {
            #(#enter)*
        } else if <#k as ::ivm::Semiring>::is_zero(&__changed_new) {
            #(#leave)*
        }
    })
}

/// The variables the keys along a path's steps read.
fn used_vars(p: &Program, steps: &[Step]) -> Vec<usize> {
    let mut used = Vec::new();
    for step in steps {
        let target = &p.maps[step.target];
        used.extend(&target.key);
        for &f in &step.siblings {
            used.extend(p.factor_key(f));
        }
        // A loop's index is looked up at variables bound before it.
        for b in &step.binds {
            let (columns, vars) = b.columns(p);
            used.extend(columns.iter().map(|&c| vars[c]));
        }
        if let Target::Free(level) = step.target {
            used.extend(&p.get(level).vars);
            // The recount walks up the free levels, whose keys are a prefix
            // of this one: nothing new.
        }
    }
    used
}

/// After the count of output tuples under one group of a free level
/// changed, refresh the level above (and so on up to the root).
fn recount(p: &Program, level: Id<FreeLevel>) -> TokenStream {
    let Some(parent) = p.get(level).parent else {
        return quote! {};
    };
    let pm = &p.maps[parent];
    let FreeLevel { vars, children, .. } = p.get(parent);
    let field = &pm.name;
    let owned_x = super::level_value(p, vars);
    let group = key_expr(p, &pm.key);
    let mut child_key = pm.key.clone();
    child_key.extend(vars);
    let child_group = key_expr(p, &child_key);
    let totals = children.iter().map(|&c| {
        let child = &p.maps[c].name;
        quote! { self.#child.total(&__below_key) }
    });
    let above = recount(p, parent);
    let set = quote! { self.#field.set_below(#group, #owned_x, __below) };
    let then = if above.is_empty() {
        quote! { #set; }
    } else {
        quote! {
            if #set {
                #above
            }
        }
    };
    quote! {
        let __below_key = #child_group;
        let __below = ::ivm::__private::count_product([#(#totals),*]);
        #then
    }
}

/// The reading of a view tree: the product of the scalars and of the free
/// levels below the roots.
pub fn reading(p: &Program, scalars: &[Id<SumView>], roots: &[Id<FreeLevel>]) -> TokenStream {
    let reading = Levels { p, scalars, roots };
    let get = reading.get();
    if let [root] = roots
        && let LevelStore::KeysOf(f) = p.get(*root).store
    {
        let (iter, len) = keys_reading(p, f);
        return quote! {
            #iter
            #get
            #len
        };
    }
    let iter = reading.iter();
    let len = reading.len();
    let scalar = reading.scalar();
    quote! {
        #iter
        #get
        #len
        #scalar
    }
}

/// `iter`, `len` and `is_empty` of a result whose one level is read off
/// the keys of its one factor `f` (`LevelStore::KeysOf`): that factor's
/// entries, each an output tuple with its payload. Walking a hash map's
/// entries has no constant delay, which only a holder that never walks
/// the result can do without.
fn keys_reading(p: &Program, f: Factor) -> (TokenStream, TokenStream) {
    let field = &p.maps[p.factor_map(f)].name;
    let doc = [
        " order) with its non-zero payload, read off the entries of the",
        " one view it is.",
    ];
    super::first_order::entries_reading(p, field, &doc)
}

/// What the methods of a view tree's reading share: the nullary views of
/// the summed-out roots and the root free levels.
struct Levels<'a> {
    p: &'a Program,
    scalars: &'a [Id<SumView>],
    roots: &'a [Id<FreeLevel>],
}

impl Levels<'_> {
    /// Whether there is a scalar: the scalar is one when no variable is
    /// summed out at the root, and then it is left out rather than
    /// multiplied in.
    fn has_scalar(&self) -> bool {
        !self.scalars.is_empty()
    }

    /// The `scalar` method, the product of the scalars; `None` without
    /// any.
    fn scalar(&self) -> Option<TokenStream> {
        let p = self.p;
        let k = &p.payload;
        let factors = self.scalars.iter().map(|&m| {
            let field = &p.maps[m].name;
            quote! { self.#field.value(&()) }
        });
        let product = factors.reduce(|acc, v| quote! { ::ivm::Semiring::mul(&#acc, &#v) })?;
        Some(quote! {
            /// The factor every output tuple's payload is multiplied by:
            /// the views of the summed-out root variables.
            fn scalar(&self) -> #k {
                #product
            }
        })
    }

    /// The `iter` method: enumeration, a product over the root levels.
    fn iter(&self) -> TokenStream {
        let (p, roots) = (self.p, self.roots);
        let k = &p.payload;
        let head_ty = key_type(p, &p.head);
        let tuples = self.tuples();
        let filter = p.zero_divisors.then(|| {
            quote! { .filter(|(_, __payload)| !::ivm::Semiring::is_zero(__payload)) }
        });
        let body = if !self.has_scalar() {
            quote! { #tuples #filter }
        } else if roots.is_empty() {
            // `once(((), __scalar))` unless the scalar is zero.
            quote! {
                let __scalar = self.scalar();
                (!::ivm::Semiring::is_zero(&__scalar)).then_some(((), __scalar)).into_iter()
            }
        } else {
            quote! {
                let __scalar = self.scalar();
                (!::ivm::Semiring::is_zero(&__scalar))
                    .then_some(__scalar)
                    .into_iter()
                    .flat_map(move |__scalar| #tuples)
                    #filter
            }
        };
        quote! {
            /// The result: each output tuple (the head variables, in head
            /// order) with its non-zero payload, with constant delay.
            pub fn iter(&self) -> impl ::core::iter::Iterator<Item = (#head_ty, #k)> + '_ {
                #body
            }
        }
    }

    /// The output tuples with their payloads, the scalar (`__scalar`, when
    /// there is one) multiplied in, zero payloads not filtered out.
    fn tuples(&self) -> TokenStream {
        let (p, roots) = (self.p, self.roots);
        let k = &p.payload;
        let acc = self.has_scalar().then(|| quote! { __scalar });
        match chain(p, roots) {
            // A nullary head: the scalar is the one output tuple's payload.
            None if roots.is_empty() => {
                let acc = acc.unwrap_or_else(|| quote! { <#k as ::ivm::Semiring>::one() });
                quote! { ::core::iter::once(((), #acc)) }
            }
            // One level under another: the innermost closure has every head
            // variable in scope and builds the output tuple itself.
            Some(levels) => chain_product(p, &levels, acc),
            None => {
                let acc = acc.unwrap_or_else(|| quote! { <#k as ::ivm::Semiring>::one() });
                let (tuples, pattern) = levels_product(p, roots, quote! { () }, acc);
                let head = crate::tuple::tuple(p.head.iter().map(|&v| {
                    let name = &p.vars[v].name;
                    quote! { #name }
                }));
                quote! {
                    #tuples.map(|(#pattern, __payload)| (#head, __payload))
                }
            }
        }
    }

    /// The factors of `get`: the scalar, then each level's local payload.
    fn get_factors(&self, whole: Option<super::Whole>) -> Vec<TokenStream> {
        let p = self.p;
        let mut factors: Vec<TokenStream> = Vec::new();
        if self.has_scalar() {
            factors.push(quote! { self.scalar() });
        }
        for m in p.free_levels(self.roots) {
            let local = &p.get(m).factors;
            if !local.is_empty() {
                factors.push(super::product_value_at(p, local, whole));
            }
        }
        factors
    }

    /// The `get` method: lookup, the product of the scalar and the local
    /// payloads along the key, stopping at the first zero.
    fn get(&self) -> TokenStream {
        let p = self.p;
        let k = &p.payload;
        let head_ty = key_type(p, &p.head);
        let key = quote! { key };
        // A factor keyed by the whole output tuple is read at `key`, with
        // no key built; the variables the others read are bound by name.
        let whole = super::Whole {
            vars: &p.head,
            tuple: &key,
        };
        let factors = self.get_factors(Some(whole));
        let bind = super::head_binding(p, &factors);
        let lookup = match factors.as_slice() {
            [] => quote! { <#k as ::ivm::Semiring>::one() },
            [only] => only.clone(),
            [first, rest @ ..] => quote! {
                let mut __payload: #k = #first;
                #(
                    if ::ivm::Semiring::is_zero(&__payload) {
                        return __payload;
                    }
                    __payload = ::ivm::Semiring::mul(&__payload, &#rest);
                )*
                __payload
            },
        };
        quote! {
            /// The payload of one output tuple; zero when it is not in the result.
            pub fn get(&self, key: &#head_ty) -> #k {
                #bind
                #lookup
            }
        }
    }

    /// The `len` and `is_empty` methods: by enumerating when the semiring
    /// has zero divisors, else from the root levels' counts in O(1).
    fn len(&self) -> TokenStream {
        if self.p.zero_divisors {
            return quote! {
                /// The number of output tuples. The semiring has zero divisors,
                /// so a product of non-zero payloads can vanish: this counts by
                /// enumerating, in time linear in the result.
                pub fn len(&self) -> usize {
                    self.iter().count()
                }

                /// Whether the result is empty.
                pub fn is_empty(&self) -> bool {
                    self.iter().next().is_none()
                }
            };
        }
        let count = self.count();
        quote! {
            /// The number of output tuples, in O(1).
            pub fn len(&self) -> usize {
                #count
            }

            /// Whether the result is empty, in O(1).
            pub fn is_empty(&self) -> bool {
                self.len() == 0
            }
        }
    }

    /// The body of an O(1) `len`: the product of the root levels' counts,
    /// zero when the scalar is.
    fn count(&self) -> TokenStream {
        let (p, roots) = (self.p, self.roots);
        let mut totals = roots.iter().map(|&m| {
            let field = &p.maps[m].name;
            quote! { self.#field.total(&()) }
        });
        let count = if roots.len() == 1 {
            totals.next().expect("one root")
        } else {
            quote! { ::ivm::__private::count_product([#(#totals),*]) }
        };
        if roots.is_empty() {
            // One output tuple, whose payload is the scalar.
            quote! { usize::from(!::ivm::Semiring::is_zero(&self.scalar())) }
        } else if self.has_scalar() {
            quote! {
                if ::ivm::Semiring::is_zero(&self.scalar()) {
                    return 0;
                }
                usize::try_from(#count).expect("ivm: more output tuples than fit in usize")
            }
        } else {
            quote! { usize::try_from(#count).expect("ivm: more output tuples than fit in usize") }
        }
    }
}

/// The free levels as one chain, top-down, when there is at most one root
/// and no level has two children.
fn chain(p: &Program, roots: &[Id<FreeLevel>]) -> Option<Vec<Id<FreeLevel>>> {
    p.free_chain(roots)
}

/// The output tuples of a chain of free levels: nested closures over each
/// level's values, the innermost building the head tuple. `acc` is the
/// payload above the chain (one when `None`).
fn chain_product(p: &Program, levels: &[Id<FreeLevel>], acc: Option<TokenStream>) -> TokenStream {
    let k = &p.payload;
    let (&m, below) = levels.split_first().expect("a chain has a level");
    let map = &p.maps[m];
    let FreeLevel { vars, factors, .. } = p.get(m);
    let field = &map.name;
    let x = super::level_pattern(p, vars);
    let group = key_expr(p, &map.key);
    // The local payload is looked up here, at enumeration; the level only
    // lists the values whose local payload is non-zero and has output below.
    let local = (!factors.is_empty()).then(|| {
        let local = product_value(p, factors);
        match &acc {
            None => quote! { let __acc: #k = #local; },
            Some(acc) => quote! { let __acc = ::ivm::Semiring::mul(&#acc, &#local); },
        }
    });
    // A lone level of the whole output tuple hands out the tuple itself.
    if below.is_empty() && acc.is_none() && map.key.is_empty() && *vars == p.head && vars.len() > 1
    {
        let x = quote! { __x };
        let whole = super::Whole { vars, tuple: &x };
        let local = super::product_value_at(p, factors, Some(whole));
        if !super::reads_head(p, &local) {
            let head = super::cloned_whole(p, vars, &x);
            return quote! {
                self.#field.values(&()).map(move |__x| (#head, #local))
            };
        }
    }
    if below.is_empty() {
        // The payload moves out only if this closure computed it.
        let head = key_expr(p, &p.head);
        let item = match (factors.is_empty(), acc) {
            (false, None) => {
                let local = product_value(p, factors);
                quote! { (#head, #local) }
            }
            (false, Some(_)) => quote! { #local (#head, __acc) },
            (true, Some(acc)) => quote! { (#head, ::core::clone::Clone::clone(&#acc)) },
            (true, None) => quote! { (#head, <#k as ::ivm::Semiring>::one()) },
        };
        quote! {
            self.#field.values(&#group).map(move |#x| { #item })
        }
    } else {
        let acc = if local.is_some() {
            Some(quote! { __acc })
        } else {
            acc
        };
        let inner = chain_product(p, below, acc);
        quote! {
            self.#field.values(&#group).flat_map(move |#x| {
                #local
                #inner
            })
        }
    }
}

/// An iterator over the combinations of the levels' values under `group`
/// (an expression of the group key), each with the payload `acc` times their
/// local payloads, and the pattern that destructures its items' tuples.
fn levels_product(
    p: &Program,
    levels: &[Id<FreeLevel>],
    group: TokenStream,
    acc: TokenStream,
) -> (TokenStream, TokenStream) {
    let k = &p.payload;
    match levels {
        [] => (quote! { ::core::iter::once(((), #acc)) }, quote! { () }),
        [one] => level(p, *one, group, acc),
        [first, rest @ ..] => {
            let (a, pa) = level(p, *first, group.clone(), acc);
            let (b, pb) = levels_product(p, rest, group, quote! { <#k as ::ivm::Semiring>::one() });
            (
                quote! {
                    ::ivm::__private::product(#a, #b).map(|((__a, __pa), (__b, __pb))| {
                        ((__a, __b), ::ivm::Semiring::mul(&__pa, &__pb))
                    })
                },
                quote! { (#pa, #pb) },
            )
        }
    }
}

/// The values of one free level under `group`, with what lies below them.
fn level(
    p: &Program,
    m: Id<FreeLevel>,
    group: TokenStream,
    acc: TokenStream,
) -> (TokenStream, TokenStream) {
    let map = &p.maps[m];
    let FreeLevel {
        vars,
        children,
        factors,
        ..
    } = p.get(m);
    let k = &p.payload;
    let field = &map.name;
    let x = super::level_pattern(p, vars);
    let owned_x = super::level_value(p, vars);
    let mut key = map.key.clone();
    key.extend(vars);
    let below_group = key_expr(p, &key);
    let (below, below_pat) = levels_product(p, children, below_group, quote! { __acc });
    // The local payload is looked up here, at enumeration; the level only
    // lists the values whose local payload is non-zero and has output below.
    let acc_expr = if factors.is_empty() {
        quote! { let __acc = ::core::clone::Clone::clone(&#acc); }
    } else {
        let local = product_value(p, factors);
        quote! {
            let __local: #k = #local;
            let __acc = ::ivm::Semiring::mul(&#acc, &__local);
        }
    };
    (
        quote! {
            self.#field.values(&#group).flat_map(move |#x| {
                #acc_expr
                #below.map(move |(__below, __payload)| ((#owned_x, __below), __payload))
            })
        },
        quote! { (#x, #below_pat) },
    )
}

/// `bulk_load` of a view tree that keeps every relation: the base maps
/// filled first, then every view, children before parents, computed from
/// the entries of its first factor, looking the other factors up. Each
/// view is a projection or an intersection, so each pass is linear in the
/// size of the map it reads.
pub fn bulk_load(p: &Program) -> TokenStream {
    let k = &p.payload;
    let params = p.declared().map(|r| {
        let name = format_ident!("{}", r.snake);
        let ty = super::relation_type(p, r);
        quote! { #name: impl ::core::iter::IntoIterator<Item = (#ty, #k)> }
    });
    let fill = p.declared().map(|r| {
        let name = format_ident!("{}", r.snake);
        let base = &p.maps[r.base].name;
        quote! { __db.#base.load(#name); }
    });
    // The atoms' derived relations, from their sources.
    let derived = (0..p.relations.len())
        .filter(|&d| p.relations[d].derived().is_some())
        .map(|d| super::local::bulk_fill(p, d));
    let views = p.maps.iter().filter_map(|map| {
        let field = &map.name;
        // A level read off its factor's keys has nothing to build.
        if let MapKind::Free(FreeLevel {
            store: LevelStore::KeysOf(_),
            ..
        }) = map.kind
        {
            return None;
        }
        match map.kind.product()? {
            // Only view trees are built in one pass, and they have no top
            // join.
            Product::Reach { .. } => None,
            Product::Sum { factors, .. } => {
                let key = key_expr(p, &map.key);
                let (source, bind) = scan(p, factors, &map.key);
                let term = scanned_product(p, factors);
                // A single factor's payload is never zero: a map keeps
                // live contributions only.
                Some(quote! {
                    for #source {
                        #bind
                        let __term: #k = #term;
                        if !::ivm::Semiring::is_zero(&__term) {
                            self.#field.insert(#key, &__term);
                        }
                    }
                })
            }
            Product::Free {
                vars,
                factors,
                children,
            } => {
                let mut full = map.key.clone();
                full.extend(vars);
                let group = key_expr(p, &map.key);
                let owned_x = super::level_value(p, vars);
                let live = (!factors.is_empty()).then(|| {
                    let (source, bind) = scan(p, factors, &full);
                    let local = scanned_product(p, factors);
                    quote! {
                        for #source {
                            #bind
                            if !::ivm::Semiring::is_zero(&#local) {
                                self.#field.set_live(#group, #owned_x, true);
                            }
                        }
                    }
                });
                // Values with output below: every group of the levels
                // under this one, with the product of their totals.
                let below = children.iter().map(|&c| {
                    let child = &p.maps[c].name;
                    let totals = children.iter().map(|&c2| {
                        let other = &p.maps[c2].name;
                        quote! { self.#other.total(__g) }
                    });
                    let names = full.iter().map(|&v| &p.vars[v].name);
                    quote! {
                        for __g in self.#child.groups() {
                            let __below = ::ivm::__private::count_product([#(#totals),*]);
                            let (#(#names,)*) = __g;
                            self.#field.set_below(#group, #owned_x, __below);
                        }
                    }
                });
                Some(quote! { #live #(#below)* })
            }
        }
    });
    quote! {
        /// A database holding these contributions (each `(tuple, payload)` one
        /// `update`), built in one pass per view.
        pub fn bulk_load(#(#params),*) -> Self {
            let mut __db = Self::new();
            #(#fill)*
            #(#derived)*
            __db.build_views();
            __db
        }

        /// Computes every view from the base maps, children before parents.
        fn build_views(&mut self) {
            #(#views)*
        }
    }
}

/// The product of `factors` inside a [`scan`] of the first, whose payload
/// the scan has in `__first`.
fn scanned_product(p: &Program, factors: &[Factor]) -> TokenStream {
    factors[1..].iter().map(|&f| factor_value(p, f, None)).fold(
        quote! { __first },
        |acc, v| quote! { ::ivm::Semiring::mul(&#acc, &#v) },
    )
}

/// A `for` pattern over the entries of `factors[0]` (the payload in
/// `__first`), binding as references the variables of its key that `key`
/// or the other factors read.
fn scan(p: &Program, factors: &[Factor], key: &[VarId]) -> (TokenStream, TokenStream) {
    let mut used: Vec<VarId> = key.to_vec();
    for &f in &factors[1..] {
        used.extend(p.factor_key(f));
    }
    let (source, vars) = match factors[0] {
        Factor::Atom(a) => {
            let atom = &p.atoms[a];
            let base = &p.maps[p.relations[atom.relation].base].name;
            (quote! { self.#base }, &atom.vars)
        }
        Factor::Map(m) => {
            let field = &p.maps[m].name;
            (quote! { self.#field }, &p.maps[m].key)
        }
    };
    if !vars.iter().any(|v| used.contains(v)) {
        return (quote! { (_, __first) in #source.iter() }, quote! {});
    }
    let names = vars.iter().map(|v| {
        if used.contains(v) {
            let n = &p.vars[*v].name;
            quote! { #n }
        } else {
            quote! { _ }
        }
    });
    let fields = super::field_refs(&quote! { __key }, vars.len());
    (
        quote! { (__key, __first) in #source.iter() },
        quote! { let (#(#names,)*) = #fields; },
    )
}

/// The field type of a free level, and its empty value.
pub fn level_field(p: &Program, map: &Map, level: &FreeLevel) -> (TokenStream, TokenStream) {
    let key = key_type(p, &map.key);
    let x = super::level_type(p, &level.vars);
    let below = if level.children.is_empty() {
        quote! { ::ivm::__private::Below::Nothing }
    } else {
        quote! { ::ivm::__private::Below::Levels }
    };
    let local = if level.factors.is_empty() {
        quote! { ::ivm::__private::Local::One }
    } else {
        quote! { ::ivm::__private::Local::Factors }
    };
    (
        quote! { ::ivm::__private::FreeLevel<#key, #x> },
        quote! { ::ivm::__private::FreeLevel::new(#below, #local) },
    )
}
