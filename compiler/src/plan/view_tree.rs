//! The view-tree planner (F-IVM): one map per variable of a free-top
//! variable order, lowered to the IR. For a q-hierarchical query the order
//! is the canonical one; for an opted-in query without one it is
//! `VariableOrder::general`, where a view is keyed by the variables above
//! it that its subtree reads (its *dependency set*) and a change can touch
//! many entries of the view above (found through the sibling atoms'
//! indexes, `ir::Bind`).
//!
//! A summed-out variable X becomes a `Sum` map keyed by the variables above
//! it: for each of their values, the ⊕ over X of the product of X's
//! children (the maps of the variables below it and the atoms hung at it).
//! Because the order is canonical, every child is keyed by exactly the
//! variables above X plus X, so the product is an intersection of lookups:
//! an update touches one entry per map on its leaf-to-root path.
//!
//! A free variable becomes a `Free` level instead: it is not summed away,
//! and keeps, per value, whether the product of its summed-out children
//! (its local payload, looked up when read) is non-zero and how many output
//! tuples lie below it, so enumeration never visits a value with no output.

use proc_macro2::Span;
use syn::Ident;

use crate::analysis::VariableOrder;
use crate::ir::{
    AtomIr, Bind, Draft, Factor, FreeLevel, Id, LevelStore, Map, MapId, MapKind, PathBody, Program,
    Reading, RelId, Step, SumView, Target, Trigger, Var, ViewIndex, push_map,
};
use crate::plan::{Verdict, skeleton};
use crate::query::{Query, Reader};

/// Lowers a query to the IR over a free-top variable order (the canonical
/// one, or a general one whose free variables' subtrees read every
/// variable above them).
pub fn lower(query: &Query, order: &VariableOrder, verdict: &Verdict) -> Program {
    let mut program = skeleton(query, verdict);
    let map_of = var_maps(query, order, &mut program);
    let owner = |atom: usize| -> usize {
        (0..order.nodes.len())
            .find(|&v| order.nodes[v].atoms.contains(&atom))
            .expect("every atom hangs below a variable")
    };
    let relation_of: Vec<RelId> = program.atoms.iter().map(|a| a.relation).collect();
    let relation_count = program.relations.len();
    let p = &mut program;
    let triggers = Trigger::per_relation(relation_count, &relation_of, |atom, _, later| {
        let mut steps = Vec::new();
        let mut changed = Factor::Atom(atom);
        let mut at = Some(owner(atom));
        while let Some(v) = at {
            let target = map_of[v].expect("mapped");
            let factors = p.maps[target.map()]
                .kind
                .factors()
                .expect("variables have views")
                .to_vec();
            let siblings: Vec<Factor> = factors.into_iter().filter(|&f| f != changed).collect();
            let binds = binds(p, target.map(), changed, &siblings);
            steps.push(Step {
                target: match target {
                    VarMap::Sum(view) => Target::Sum(view),
                    VarMap::Free(level) => Target::Free(level),
                },
                changed,
                siblings,
                binds,
            });
            match target {
                // Above a free variable the change is a change in tuple
                // counts, which the free levels propagate.
                VarMap::Free(_) => break,
                VarMap::Sum(view) => changed = Factor::Map(view.map()),
            }
            at = order.nodes[v].parent;
        }
        PathBody::Steps {
            steps,
            later_same_relation: later.to_vec(),
        }
    });
    let (mut scalars, mut roots) = (Vec::new(), Vec::new());
    for &r in &order.roots {
        match map_of[r].expect("mapped") {
            VarMap::Sum(view) => scalars.push(view),
            VarMap::Free(level) => roots.push(level),
        }
    }
    program.triggers = triggers;
    if query.reader == Reader::Holder && read_off_its_factor(&mut program, &scalars, &roots) {
        program.summary = verdict
            .accepted()
            .map_or_else(String::new, |v| v.summary_for_holder());
    }
    program.finish(Reading::Levels { scalars, roots })
}

/// For a query whose holder only looks its result up: where the result is
/// one root level of one variable, the head, whose one factor is keyed by
/// that variable alone, the level's live values are that factor's keys,
/// and it keeps no map of its own (`LevelStore::KeysOf`). Whether it did.
fn read_off_its_factor(p: &mut Draft, scalars: &[Id<SumView>], roots: &[Id<FreeLevel>]) -> bool {
    let ([root], []) = (roots, scalars) else {
        return false;
    };
    let level = p.get(*root);
    let [f] = level.factors[..] else {
        return false;
    };
    let alone = level.children.is_empty() && level.vars == p.head;
    let readable = alone
        && p.journal_key(f) == Some(&p.head[..])
        && p.maps[*root].key.is_empty()
        && keyed_as_head(p, f);
    if readable {
        p.get_mut(*root).store = LevelStore::KeysOf(f);
        // Its one step, the last of its factor's path, has nothing to do.
        for trigger in &mut p.triggers {
            trigger.paths.retain_mut(|path| match &mut path.body {
                PathBody::Steps { steps, .. } => {
                    steps.retain(|s| s.target != Target::Free(*root));
                    !steps.is_empty()
                }
                _ => true,
            });
        }
    }
    readable
}

/// Whether factor `f`'s keys have the head's type: a view's always do,
/// and a relation's where each column has its variable's type. A relation
/// must also be fed by others' updates, with no index, so that once the
/// level's step is gone its changes go nowhere but into its map (a
/// declared relation's update methods still call its propagation).
fn keyed_as_head(p: &Draft, f: Factor) -> bool {
    let Factor::Atom(a) = f else {
        return true;
    };
    let r = p.atoms[a].relation;
    let indexed = p
        .maps
        .iter()
        .any(|m| matches!(&m.kind, MapKind::Index(index) if index.relation == r));
    if !p.relations[r].is_fed() || indexed {
        return false;
    }
    let columns = &p.relations[r].columns;
    let same = |(column, &v): (&(Ident, syn::Type), &usize)| {
        let (ty, var) = (&column.1, &p.vars[v].ty);
        quote::quote!(#ty).to_string() == quote::quote!(#var).to_string()
    };
    columns.iter().zip(&p.atoms[a].vars).all(same)
}

/// The map of a variable of the order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum VarMap {
    /// A summed-out variable's view.
    Sum(Id<SumView>),
    /// A free variable's level (which it may share with the free
    /// variables below it).
    Free(Id<FreeLevel>),
}

impl VarMap {
    fn map(self) -> MapId {
        match self {
            VarMap::Sum(view) => view.map(),
            VarMap::Free(level) => level.map(),
        }
    }
}

/// One map per variable, children before parents, named and linked to
/// their parents: each variable's map.
fn var_maps(query: &Query, order: &VariableOrder, p: &mut Draft) -> Vec<Option<VarMap>> {
    let mut map_of: Vec<Option<VarMap>> = vec![None; p.vars.len()];
    let mut post: Vec<usize> = Vec::new();
    for &r in &order.roots {
        post_order(order, r, &mut post);
    }
    for &v in &post {
        map_of[v] = Some(var_map(query, order, p, v, &map_of));
    }
    for v in &post {
        let (field, doc) = describe(p, map_of[*v].expect("mapped").map());
        let map = &mut p.maps[map_of[*v].expect("mapped").map()];
        map.name = Ident::new(&field, Span::call_site());
        map.doc = doc;
    }
    // Parent links of free levels.
    for &v in &post {
        if let (Some(VarMap::Free(level)), Some(up)) = (map_of[v], order.nodes[v].parent)
            && let Some(VarMap::Free(parent)) = map_of[up]
            && parent != level
        {
            p.get_mut(level).parent = Some(parent);
        }
    }
    map_of
}

/// The map of variable `v`, whose children have theirs: a new view or
/// level, or the level of the free variable below it that it joins.
fn var_map(
    query: &Query,
    order: &VariableOrder,
    p: &mut Draft,
    v: usize,
    map_of: &[Option<VarMap>],
) -> VarMap {
    let node = &order.nodes[v];
    // The view's key: the variables above it that its subtree reads,
    // outermost first (all of them in a canonical order, and for a free
    // level).
    let read: Vec<usize> = order
        .subtree_atoms(v)
        .iter()
        .flat_map(|&a| p.atoms[a].vars.iter().copied())
        .collect();
    let mut key = order.path_to_root(v);
    key.remove(0);
    key.reverse();
    key.retain(|a| read.contains(a));
    if let Some(level) = shared_level(query, order, v, map_of) {
        // Nothing at `v` but the free variable below it: one level.
        p.get_mut(level).vars.insert(0, v);
        p.maps[level].key = key;
        return VarMap::Free(level);
    }
    let mut factors: Vec<Factor> = Vec::new();
    let mut children: Vec<Id<FreeLevel>> = Vec::new();
    for &c in &node.children {
        match map_of[c].expect("children first") {
            VarMap::Free(level) => children.push(level),
            VarMap::Sum(view) => factors.push(Factor::Map(view.map())),
        }
    }
    factors.extend(node.atoms.iter().map(|&a| Factor::Atom(a)));
    // Named once the whole tree stands (`describe`).
    let unnamed = Ident::new("unnamed", Span::call_site());
    if query.is_free(v) {
        let level = FreeLevel {
            vars: vec![v],
            factors,
            children,
            parent: None,
            store: LevelStore::Own,
        };
        VarMap::Free(push_map(&mut p.maps, unnamed, String::new(), key, level))
    } else {
        let view = SumView { var: v, factors };
        VarMap::Sum(push_map(&mut p.maps, unnamed, String::new(), key, view))
    }
}

/// The loops of a step whose changed factor does not fix the whole key of
/// its target: over sibling atoms, each through an index of its relation on
/// the variables bound before it, and over sibling views, each through a
/// secondary index on them; the one binding most of the rest first (ties:
/// an atom, then the lowest). (`VariableOrder::general` made sure the
/// siblings bind them all, and `VariableOrder::loops` states the same
/// choice's cost.)
fn binds(p: &mut Draft, target: MapId, changed: Factor, siblings: &[Factor]) -> Vec<Bind> {
    // A free level's tuples also hold its own variables: a changed atom
    // that lacks some (`r(k, b)` under a level of `(g, l, k)` that
    // `s(k, l, g)` reads too) walks a sibling for them.
    let mut key = p.maps[target].key.clone();
    if let Some(level) = p.id::<FreeLevel>(target) {
        key.extend(p.get(level).vars.iter().copied());
    }
    let mut bound = p.factor_key(changed);
    let mut binds = Vec::new();
    while key.iter().any(|v| !bound.contains(v)) {
        let unbound = |f: Factor| {
            p.factor_key(f)
                .iter()
                .filter(|v| key.contains(v) && !bound.contains(v))
                .count()
        };
        // Views are ranked by their variable, as `loops` ranks them: the
        // variable a `Sum` map sums out.
        let preference = |f: Factor| match f {
            Factor::Atom(a) => (true, std::cmp::Reverse(a)),
            Factor::Map(m) => (false, std::cmp::Reverse(sibling_view(p, m).1)),
        };
        let factor = siblings
            .iter()
            .copied()
            .filter(|&f| unbound(f) > 0)
            .max_by_key(|&f| (unbound(f), preference(f)))
            .expect("the siblings bind the key (VariableOrder::general)");
        let vars = p.factor_key(factor);
        let columns: Vec<usize> = (0..vars.len())
            .filter(|&c| bound.contains(&vars[c]))
            .collect();
        let bind = match factor {
            Factor::Atom(atom) => {
                let relation = p.atoms[atom].relation;
                let index = super::skeleton::index_of(p, relation, columns);
                // The loop reads each tuple's payload: keep it in the
                // group the loop walks.
                if !p.get(index).payloads {
                    p.get_mut(index).payloads = true;
                    let doc = &mut p.maps[index].doc;
                    doc.pop();
                    doc.push_str(", each with its payload.");
                }
                Bind::Atom { atom, index }
            }
            Factor::Map(m) => {
                let view = sibling_view(p, m).0;
                let index = view_index(p, view, columns);
                Bind::View { view, index }
            }
        };
        bound.extend(vars);
        binds.push(bind);
    }
    binds
}

/// The secondary index of `view` on the variables at `columns` of its key,
/// added if new.
fn view_index(p: &mut Draft, view: Id<SumView>, columns: Vec<usize>) -> Id<ViewIndex> {
    let same = |m: &Id<ViewIndex>| {
        let index = p.get(*m);
        index.view == view && index.columns == columns
    };
    if let Some(m) = (0..p.maps.len()).filter_map(|m| p.id(m)).find(same) {
        return m;
    }
    let key = &p.maps[view].key;
    let by: Vec<usize> = columns.iter().map(|&c| key[c]).collect();
    let name = format!(
        "{}_by_{}",
        p.maps[view].name,
        by.iter()
            .map(|&v| p.vars[v].name.to_string())
            .collect::<Vec<_>>()
            .join("_")
    );
    let doc = format!(
        "The keys ({}) of `{}` with a non-zero payload, by ({}).",
        p.var_list(key),
        p.maps[view].name,
        p.var_list(&by)
    );
    let name = Ident::new(&name, Span::call_site());
    push_map(&mut p.maps, name, doc, by, ViewIndex { view, columns })
}

/// A view beside a changed factor (which sums a variable out, in a view
/// tree), with the variable, by which `binds` ranks it as `loops` does.
fn sibling_view(p: &Draft, m: MapId) -> (Id<SumView>, usize) {
    let view = p
        .id::<SumView>(m)
        .expect("a view beside a changed factor sums a variable out");
    (view, p.get(view).var)
}

/// The level of the free variable below `v`, when `v` is free and has
/// nothing else: no atom, no other child. Then `v` joins that level (its
/// values are never read apart from the ones below, so a separate level
/// would only add a map and a recount per update).
fn shared_level(
    query: &Query,
    order: &VariableOrder,
    v: usize,
    map_of: &[Option<VarMap>],
) -> Option<Id<FreeLevel>> {
    let node = &order.nodes[v];
    match (
        node.children.as_slice(),
        query.is_free(v),
        node.atoms.is_empty(),
    ) {
        ([c], true, true) => match map_of[*c] {
            Some(VarMap::Free(level)) => Some(level),
            _ => None,
        },
        _ => None,
    }
}

/// The field name and doc comment of a view or a free level.
fn describe(p: &Draft, m: MapId) -> (String, String) {
    let (map, atoms, maps, vars) = (&p.maps[m], &p.atoms[..], &p.maps[..], &p.vars[..]);
    let product = |factors: &[Factor]| {
        if factors.is_empty() {
            "1".to_owned()
        } else {
            let labels: Vec<String> = factors
                .iter()
                .map(|f| label(f, atoms, maps, vars))
                .collect();
            labels.join(" ⊗ ")
        }
    };
    let above = names(&map.key, vars);
    match &map.kind {
        MapKind::Free(FreeLevel {
            vars: level,
            factors,
            ..
        }) => {
            let (field, what) = match level.as_slice() {
                [one] => (
                    format!("out_{}", vars[*one].name),
                    format!("the free variable `{}`", vars[*one].name),
                ),
                [first, .., last] => {
                    let field = if level.len() <= 3 {
                        let parts: Vec<String> =
                            level.iter().map(|&v| vars[v].name.to_string()).collect();
                        format!("out_{}", parts.join("_"))
                    } else {
                        format!("out_{}_to_{}", vars[*first].name, vars[*last].name)
                    };
                    (
                        field,
                        format!("the free variables ({})", names(level, vars)),
                    )
                }
                [] => unreachable!("a level has a variable"),
            };
            let group = if above.is_empty() {
                String::new()
            } else {
                format!(" for each ({above})")
            };
            let doc = format!(
                "The values of {what}{group} whose local payload {} is non-zero, with the number of output tuples below each: what enumeration walks.",
                product(factors)
            );
            (field, doc)
        }
        MapKind::Sum(SumView { var, factors }) => {
            let name = &vars[*var].name;
            let group = if above.is_empty() {
                String::new()
            } else {
                format!("For each ({above}): ")
            };
            (
                format!("sum_over_{name}"),
                format!("{group}⊕ over `{name}` of {}.", product(factors)),
            )
        }
        _ => unreachable!("views and levels only"),
    }
}

fn post_order(order: &VariableOrder, v: usize, out: &mut Vec<usize>) {
    for &c in &order.nodes[v].children {
        post_order(order, c, out);
    }
    out.push(v);
}

fn names(vars: &[usize], all: &[Var]) -> String {
    vars.iter()
        .map(|&v| all[v].name.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

fn label(f: &Factor, atoms: &[AtomIr], maps: &[Map], vars: &[Var]) -> String {
    match *f {
        Factor::Atom(a) => format!("`{}`", atoms[a].label),
        Factor::Map(m) => format!("`{}[{}]`", maps[m].name, names(&maps[m].key, vars)),
    }
}

#[cfg(test)]
mod tests {
    use crate::driver::ir_str;
    use crate::ir::{LevelStore, MapKind, Program};

    /// The one program of `text`.
    fn program(text: &str) -> Program {
        let programs = ir_str(text).expect("parses");
        programs
            .into_iter()
            .next()
            .expect("one query")
            .expect("lowers")
    }

    /// Where each free level of `p` keeps its values.
    fn stores(p: &Program) -> Vec<LevelStore> {
        p.maps
            .iter()
            .filter_map(|m| match &m.kind {
                MapKind::Free(level) => Some(level.store),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn a_semijoin_count_reads_its_one_level_off_its_view() {
        // The count's one level, `b`, would hold the keys of its one
        // factor: the holder only looks counts up, so it keeps no map.
        let filtered = "#[semiring(ivm::semiring::Int)]
            query J { relation R(a: u32, b: u32); relation S(b: u32, c: u32);
                      Q(a, b) = R(a, b) * exists(S(b, c) * { c > 3 }); }";
        let summed = filtered.replace(" * { c > 3 }", "");
        for text in [filtered, &summed] {
            let p = program(text);
            let body = &p.semijoins[0].body.program;
            assert!(
                matches!(stores(body)[..], [LevelStore::KeysOf(_)]),
                "{text}"
            );
            // The outer query's user walks its result with constant delay.
            assert!(stores(&p).iter().all(|&s| s == LevelStore::Own), "{text}");
        }
        // The same shape as a query of its own keeps its level.
        let own = "#[semiring(ivm::semiring::Int)]
            query U { relation S(b: u32, c: u32); Q(b) = S(b, c) * { c > 3 }; }";
        assert_eq!(stores(&program(own)), [LevelStore::Own]);
    }

    #[test]
    fn a_nested_view_reads_its_one_level_off_its_view() {
        // The derived table's groups are read by the view around it, by
        // lookup and `changes()`; the view itself is walked by its user.
        let text = "CREATE TABLE s (b INT NOT NULL, c INT NOT NULL);
            CREATE VIEW big AS SELECT t.b, t.n FROM
                (SELECT b, COUNT(*) AS n FROM s GROUP BY b) AS t WHERE t.n > 2;";
        let reports = crate::pipeline::report_str(text).expect("parses");
        let [report] = &reports[..] else {
            panic!("one view");
        };
        let nested = crate::pipeline::lower(&report.nested[0].report).expect("lowers");
        assert!(matches!(stores(&nested)[..], [LevelStore::KeysOf(_)]));
        let own = crate::pipeline::lower(report).expect("lowers");
        assert!(stores(&own).iter().all(|&s| s == LevelStore::Own));
    }
}
