//! `changes()` of a view tree whose free levels' factors keep journals.
//!
//! A changed factor entry of level `j` fixes the values of `j`'s path (its
//! ancestors and itself): a *changed prefix*. Every output tuple whose
//! payload changed goes through some changed prefix, and is yielded from
//! the first level, in preorder, that has a changed prefix on it: a prefix
//! below a changed prefix of an ancestor is dropped at once, and a tuple
//! through a changed prefix of an earlier level that is no ancestor (a
//! sibling branch) is skipped as it comes. Below and beside the fixed
//! values, the enumeration walks the values with output then or now.
//!
//! The generated code works on *preorder tuples* `__p`: one item per
//! level, in preorder, each a value of that level (a tuple itself where
//! the level holds several variables); `__r` is a changed prefix, one item
//! per level of a path.

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use super::super::{item, level_type};
use crate::ir::{Factor, FreeLevel, Id, LevelStore, MapId, Program, SumView, VarId};

/// Which keys of a factor's journal a walk starts from.
#[derive(Clone, Copy)]
enum Read {
    /// Those whose payload changed: a walk below them costs each tuple
    /// under them, so a key written back to its payload is skipped.
    Changed,
    /// Every key written: each is an output tuple whose payloads `since`
    /// compares anyway.
    Written,
}

/// The free levels in preorder, and the scalar views.
pub(super) struct Chain {
    pub levels: Vec<Id<FreeLevel>>,
    pub scalars: Vec<Id<SumView>>,
}

/// What the pieces of the generated walk share.
struct Levels<'a> {
    p: &'a Program,
    c: &'a Chain,
    /// The variables of each level, in preorder.
    vars: Vec<&'a [VarId]>,
    /// Each level's path, as preorder indexes, root first.
    paths: Vec<Vec<usize>>,
}

/// `changes()`, `changes_since()` and `get_then_and_now()` for free levels
/// with journals.
pub(super) fn methods(p: &Program, c: &Chain) -> TokenStream {
    let levels = Levels::new(p, c);
    let n = c.levels.len();
    let collect = (0..n).map(|j| levels.collect(j));
    let topmost = (0..n).rev().map(|j| levels.topmost(j));
    let shared = levels.shared_sets();
    let mut from_levels = (0..n).map(|j| levels.through_level(j));
    let body = match levels.scalar_changed() {
        None => {
            let first = from_levels.next().expect("a view tree has a free level");
            quote! {
                #(#collect)*
                #(#topmost)*
                #(#shared)*
                let __tuples = #first #(.chain(#from_levels))*;
            }
        }
        Some(scalar_changed) => {
            let everything = levels.walk(None);
            quote! {
                // A changed scalar changes every output tuple.
                let __everything = #scalar_changed;
                #(#collect)*
                #(#topmost)*
                #(#shared)*
                let __tuples = __everything
                    .then(|| #everything)
                    .into_iter()
                    .flatten()
                    #(.chain(#from_levels))*;
            }
        }
    };
    let since = levels.head_tuples();
    let journaled: Vec<&Ident> = levels.journaled().map(|m| &p.maps[m].name).collect();
    let epochs = journaled
        .iter()
        .map(|field| quote! { self.#field.end_epoch(); });
    let written = if journaled.is_empty() {
        quote! { false }
    } else {
        quote! { #(self.#journaled.written())||* }
    };
    super::walking_methods(
        p,
        &[
            "Costs the entries written since the previous call plus the",
            "output tuples through them.",
        ],
        quote! { #(#epochs)* },
        Some(written),
        body,
        since,
        &levels.lookups(),
    )
}

impl<'a> Levels<'a> {
    fn new(p: &'a Program, c: &'a Chain) -> Self {
        let vars: Vec<&[VarId]> = c.levels.iter().map(|&m| &p.get(m).vars[..]).collect();
        let mut levels = Levels {
            p,
            c,
            vars,
            paths: Vec::new(),
        };
        levels.paths = c
            .levels
            .iter()
            .map(|&m| {
                let mut path: Vec<usize> = p
                    .level_path(m)
                    .into_iter()
                    .map(|v| levels.slot(v).0)
                    .collect();
                path.dedup();
                path
            })
            .collect();
        levels
    }

    /// Where a variable lies in a preorder tuple: the level, and the
    /// component of its values when they are tuples.
    fn slot(&self, v: VarId) -> (usize, Option<usize>) {
        self.vars
            .iter()
            .enumerate()
            .find_map(|(i, vars)| {
                let j = vars.iter().position(|&w| w == v)?;
                Some((i, (vars.len() > 1).then_some(j)))
            })
            .expect("a free variable")
    }

    /// A variable's value, cloned out of the preorder tuple `src`.
    fn clone_var(&self, src: TokenStream, v: VarId) -> TokenStream {
        let at = self.var_at(src, v);
        quote! { ::core::clone::Clone::clone(&#at) }
    }

    /// Where a variable's value lies in the preorder tuple `src`: the
    /// place itself, which moves the value out when read.
    fn var_at(&self, src: TokenStream, v: VarId) -> TokenStream {
        let (i, j) = self.slot(v);
        let i = syn::Index::from(i);
        match j.map(syn::Index::from) {
            Some(j) => quote! { #src.#i.#j },
            None => quote! { #src.#i },
        }
    }

    /// The tuple of the items at `positions` of `src`, each cloned.
    fn clone_from(src: &TokenStream, positions: &[usize]) -> TokenStream {
        let items = positions.iter().map(|&i| {
            let i = syn::Index::from(i);
            quote! { ::core::clone::Clone::clone(&#src.#i) }
        });
        quote! { (#(#items,)*) }
    }

    /// Every map with a journal (the scalars and the levels' factors), then
    /// the levels: what a call ends the epoch of.
    fn journaled(&self) -> impl Iterator<Item = MapId> + '_ {
        let mut maps: Vec<MapId> = self.c.scalars.iter().map(|&m| m.map()).collect();
        for &m in &self.c.levels {
            for &f in &self.p.get(m).factors {
                let map = self.p.factor_map(f);
                if !maps.contains(&map) {
                    maps.push(map);
                }
            }
        }
        // A level read off its factor's keys has no map, and its factor's
        // journal says which values lost their output.
        let own = self
            .c
            .levels
            .iter()
            .filter(|&&m| self.p.get(m).store == LevelStore::Own);
        maps.into_iter().chain(own.map(|&m| m.map()))
    }

    /// The type of level `j`'s changed prefixes: its path's values.
    fn path_type(&self, j: usize) -> TokenStream {
        let tys = self.paths[j]
            .iter()
            .map(|&i| level_type(self.p, self.vars[i]));
        quote! { (#(#tys,)*) }
    }

    /// `__changed_j`: the changed prefixes of level `j`, from its factors'
    /// journals (nothing for a level read [`direct`](Self::direct)ly).
    fn collect(&self, j: usize) -> TokenStream {
        if self.direct(j).is_some() {
            return TokenStream::new();
        }
        let set = format_ident!("__changed_{j}");
        let ty = self.path_type(j);
        let per_factor = self.p.get(self.c.levels[j]).factors.iter().map(|&f| {
            self.journal_prefixes(j, f, Read::Changed)
                .unwrap_or_else(|| self.projected_prefixes(j, f))
        });
        match per_factor.reduce(|a, b| quote! { #a.chain(#b) }) {
            Some(keys) => quote! { let #set = ::ivm::__private::key_set(#keys); },
            None => quote! {
                let #set: ::ivm::__private::KeySet<#ty> = ::core::default::Default::default();
            },
        }
    }

    /// The changed prefixes of level `j` as factor `f`'s journal gives
    /// them, when it is keyed by the path itself, in order: the keys whose
    /// payload changed, or every key written where `read` says a caller
    /// compares each output tuple's payloads then and now anyway.
    fn journal_prefixes(&self, j: usize, f: Factor, read: Read) -> Option<TokenStream> {
        let p = self.p;
        let map = &p.maps[p.factor_map(f)].name;
        let key = p.journal_key(f).expect("checked by `change_tracking`");
        let path_vars: Vec<VarId> = self.paths[j]
            .iter()
            .flat_map(|&i| self.vars[i].to_vec())
            .collect();
        let single = self.paths[j].iter().all(|&i| self.vars[i].len() == 1);
        let keys = match read {
            Read::Changed => quote! { changed_then },
            Read::Written => quote! { written_then },
        };
        (single && path_vars == key && key.len() <= 12)
            .then(|| quote! { self.#map.#keys().cloned() })
    }

    /// The changed prefixes of level `j` read off the keys of factor
    /// `f`'s journal, which holds more or other columns: repeats possible.
    fn projected_prefixes(&self, j: usize, f: Factor) -> TokenStream {
        let p = self.p;
        let map = &p.maps[p.factor_map(f)].name;
        let key = p.journal_key(f).expect("checked by `change_tracking`");
        let column = |v: VarId| {
            let col = key.iter().position(|&w| w == v).expect("checked");
            let item = item(&quote! { __key }, col, key.len());
            quote! { ::core::clone::Clone::clone(&#item) }
        };
        let items = self.paths[j].iter().map(|&i| match self.vars[i] {
            [one] => column(*one),
            several if several == key => quote! { ::core::clone::Clone::clone(__key) },
            several => {
                let columns = several.iter().map(|&v| column(v));
                quote! { (#(#columns,)*) }
            }
        });
        quote! { self.#map.changed_then().map(|__key| (#(#items,)*)) }
    }

    /// The changed prefixes of level `j` straight from its one factor's
    /// journal, with no set gathered: for a root level with a single
    /// factor keyed by the level's own variables, whose journal holds each
    /// prefix once, when no other level asks whether a prefix changed and
    /// no scalar can change every tuple. A nested view's rows, or a view
    /// whose window is ranked, are read through `changes()` after each
    /// update, so the set and the list it was copied to cost every update
    /// an allocation.
    fn direct(&self, j: usize) -> Option<TokenStream> {
        let [f] = self.p.get(self.c.levels[j]).factors[..] else {
            return None;
        };
        let n = self.c.levels.len();
        let asked =
            (0..n).any(|k| k != j && (self.paths[k].contains(&j) || self.earlier(k).contains(&j)));
        if self.paths[j].len() != 1 || asked || !self.c.scalars.is_empty() {
            return None;
        }
        // The only level: each prefix is an output tuple, which `since`
        // keeps only if its payload then and now differ.
        let read = if n == 1 { Read::Written } else { Read::Changed };
        self.journal_prefixes(j, f, read)
    }

    /// `__from_j`: the changed prefixes of level `j` under no changed
    /// prefix of an ancestor (none when a scalar changed: every tuple is
    /// walked then).
    fn topmost(&self, j: usize) -> TokenStream {
        let list = format_ident!("__from_{j}");
        if let Some(prefixes) = self.direct(j) {
            return quote! { let #list = #prefixes; };
        }
        let set = format_ident!("__changed_{j}");
        let ancestors = &self.paths[j][..self.paths[j].len() - 1];
        let above = ancestors.iter().enumerate().map(|(depth, &i)| {
            let upper = format_ident!("__changed_{i}");
            let key = Self::clone_from(&quote! { __r }, &(0..=depth).collect::<Vec<_>>());
            quote! { #upper.contains_key(&#key) }
        });
        let keep = (!ancestors.is_empty()).then(|| {
            quote! { #list.retain(|__r| !(#(#above)||*)); }
        });
        // The levels below `j` took their lists already (`methods` emits
        // these from the deepest up), so unless a walk checks `j`'s set
        // later, its list is the set itself, with no copy.
        let source = if self.shared(j) {
            quote! { ::core::clone::Clone::clone(&#set) }
        } else {
            quote! { #set }
        };
        let taken = match &keep {
            Some(keep) => quote! { let mut #list = #source; #keep },
            None => quote! { let #list = #source; },
        };
        if self.c.scalars.is_empty() {
            return taken;
        }
        let kept = match &keep {
            Some(keep) => quote! { let mut #list = #source; #keep #list },
            None => source,
        };
        quote! {
            let #list = if __everything {
                ::ivm::__private::KeySet::default()
            } else {
                #kept
            };
        }
    }

    /// The levels before `j` in preorder that are not on its path: a tuple
    /// of `j`'s walk through one of their changed prefixes is theirs.
    fn earlier(&self, j: usize) -> Vec<usize> {
        (0..j).filter(|i| !self.paths[j].contains(i)).collect()
    }

    /// Whether a later level's walk checks level `i`'s set.
    fn shared(&self, i: usize) -> bool {
        let n = self.c.levels.len();
        (i + 1..n).any(|j| !self.paths[j].contains(&i))
    }

    /// The sets that later levels' walks check, shared by reference count.
    fn shared_sets(&self) -> Vec<TokenStream> {
        let n = self.c.levels.len();
        (0..n)
            .filter(|&i| self.shared(i))
            .map(|i| {
                let set = format_ident!("__changed_{i}");
                quote! { let #set = ::std::rc::Rc::new(#set); }
            })
            .collect()
    }

    /// The output tuples (as preorder tuples `__p`) through the prefix
    /// `__r` of level `fixed` (through anything, when `None`).
    fn walk(&self, fixed: Option<usize>) -> TokenStream {
        let path: &[usize] = fixed.map_or(&[], |j| &self.paths[j]);
        // A prefix of the first levels in preorder starts the tuple as it
        // is; the steps after it read nothing of it.
        let leading = fixed.is_some_and(|j| self.walk_is_prefix(j));
        let steps: Vec<TokenStream> = if leading {
            (path.len()..self.c.levels.len())
                .map(|i| self.step(path, i))
                .collect()
        } else {
            (0..self.c.levels.len())
                .map(|i| self.step(path, i))
                .collect()
        };
        // Tuples through a changed prefix of an earlier level that is no
        // ancestor are that level's.
        let earlier = fixed.map(|j| self.earlier(j)).unwrap_or_default();
        let filter = (!earlier.is_empty()).then(|| {
            let checks = earlier.iter().map(|&i| {
                let set = format_ident!("__changed_{i}");
                let key = Self::clone_from(&quote! { __p }, &self.paths[i]);
                quote! { #set.contains_key(&#key) }
            });
            let sets: Vec<_> = earlier
                .iter()
                .map(|i| format_ident!("__changed_{i}"))
                .collect();
            quote! {
                .filter({
                    #(let #sets = ::std::rc::Rc::clone(&#sets);)*
                    move |__p| !(#(#checks)||*)
                })
            }
        });
        quote! { #(#steps)* #filter }
    }

    /// The step of a walk that appends level `i`'s values: the fixed one
    /// when `i` is on the prefix's `path`, else every value with output
    /// then or now under the values so far.
    fn step(&self, path: &[usize], i: usize) -> TokenStream {
        let source = match path.iter().position(|&x| x == i) {
            Some(depth) => {
                let depth = syn::Index::from(depth);
                quote! { ::core::iter::once(::core::clone::Clone::clone(&__r.#depth)) }
            }
            None => {
                let level = &self.p.maps[self.c.levels[i]];
                let out = &level.name;
                let group = level.key.iter().map(|&v| self.clone_var(quote! { __p }, v));
                quote! { self.#out.values_then_and_now(&(#(#group,)*)).cloned() }
            }
        };
        let kept = (0..i).map(|n| {
            let n = syn::Index::from(n);
            quote! { ::core::clone::Clone::clone(&__p.#n) }
        });
        let extend = quote! { (#(#kept,)* __x) };
        // The record's values are cloned into a step only while a step at
        // or after it reads them.
        let reads_record = path.iter().any(|&x| x >= i);
        if i == 0 {
            quote! { #source.map(|__x| (__x,)) }
        } else if reads_record {
            quote! {
                .flat_map({
                    let __r = ::core::clone::Clone::clone(&__r);
                    move |__p| #source.map(move |__x| #extend)
                })
            }
        } else {
            quote! { .flat_map(move |__p| #source.map(move |__x| #extend)) }
        }
    }

    /// The tuples through level `j`'s topmost changed prefixes; each
    /// closure holds its own handles on the sets it checks.
    fn through_level(&self, j: usize) -> TokenStream {
        let list = format_ident!("__from_{j}");
        let sets: Vec<_> = self
            .earlier(j)
            .into_iter()
            .map(|i| format_ident!("__changed_{i}"))
            .collect();
        let walk = self.walk(Some(j));
        // A prefix of the first levels in preorder is where the tuples
        // start: the walk extends it.
        if self.walk_is_prefix(j) {
            // `chain` takes the list itself when nothing extends it.
            if walk.is_empty() && (j > 0 || !self.c.scalars.is_empty()) {
                return quote! { #list };
            }
            return quote! { #list.into_iter() #walk };
        }
        if sets.is_empty() {
            quote! { #list.into_iter().flat_map(move |__r| #walk) }
        } else {
            quote! {
                #list.into_iter().flat_map({
                    #(let #sets = ::std::rc::Rc::clone(&#sets);)*
                    move |__r| #walk
                })
            }
        }
    }

    /// Whether level `j`'s path is the first levels in preorder.
    fn walk_is_prefix(&self, j: usize) -> bool {
        self.paths[j].iter().enumerate().all(|(d, &i)| d == i)
    }

    /// The output tuples the walks lead to (`__tuples`, in preorder), in
    /// head order.
    fn head_tuples(&self) -> TokenStream {
        let head = &self.p.head;
        let preorder: Vec<VarId> = self.vars.iter().flat_map(|v| v.to_vec()).collect();
        let single = self.vars.iter().all(|v| v.len() == 1);
        if single && preorder == *head && head.len() <= 12 {
            return quote! { __tuples };
        }
        if let [only] = self.vars.as_slice()
            && *only == head.as_slice()
        {
            return quote! { __tuples.map(|(__x,)| __x) };
        }
        // Each variable is moved out of its preorder tuple, which is
        // owned here and read once per head variable.
        let items = head.iter().map(|&v| self.var_at(quote! { __p }, v));
        let tuple = crate::tuple::tuple(items);
        quote! { __tuples.map(|__p| #tuple) }
    }

    /// Whether a scalar changed, when there are scalars.
    fn scalar_changed(&self) -> Option<TokenStream> {
        self.c
            .scalars
            .iter()
            .map(|&m| {
                let map = &self.p.maps[m].name;
                quote! { self.#map.changed_then().next().is_some() }
            })
            .reduce(|a, b| quote! { #a || #b })
    }

    /// Every factor of an output tuple's payload: the scalars, then each
    /// level's factors, each read then and now with one probe.
    fn lookups(&self) -> Vec<TokenStream> {
        let p = self.p;
        // A factor keyed by the whole output tuple is read at `key`, with
        // no key built (a wide key's strings cloned); the variables the
        // others read are bound by name.
        let key = quote! { key };
        let whole = super::super::Whole {
            vars: &p.head,
            tuple: &key,
        };
        self.lookups_at(Some(whole))
    }

    /// [`lookups`](Self::lookups), reading a factor keyed like `whole` at
    /// it.
    fn lookups_at(&self, whole: Option<super::super::Whole>) -> Vec<TokenStream> {
        let p = self.p;
        self.c
            .scalars
            .iter()
            .map(|&m| {
                let map = &p.maps[m].name;
                quote! { self.#map.value_then_and_now(&()) }
            })
            .chain(self.c.levels.iter().flat_map(|&m| {
                p.get(m).factors.iter().map(move |&f| {
                    let map = &p.maps[p.factor_map(f)].name;
                    let key = super::super::key_ref(p, p.journal_key(f).expect("checked"), whole);
                    quote! { self.#map.value_then_and_now(#key) }
                })
            }))
            .collect()
    }
}
