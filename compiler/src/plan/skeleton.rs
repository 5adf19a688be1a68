//! What every strategy's program starts from: the variables, the atoms, and
//! one base map per relation holding its tuples' live contributions; and
//! the secondary indexes of relations that several strategies add.

use proc_macro2::Span;
use syn::Ident;

use super::Verdict;
use super::names::snake_case;
use crate::ir::{
    AtomIr, BaseMap, Derived, Draft, Id, Kept, RelationIndex, RelationIr, RelationKind, Var,
    push_map,
};
use crate::query::{Origin, Query};

/// A program with the query's variables, atoms, relations and base maps,
/// and no views, triggers or output yet.
pub fn skeleton(query: &Query, verdict: &Verdict) -> Draft {
    let vars = query
        .variables
        .iter()
        .map(|v| Var {
            name: v.name.clone(),
            ty: v.ty.clone(),
        })
        .collect();
    let atoms = query
        .atoms
        .iter()
        .enumerate()
        .map(|(i, a)| AtomIr {
            relation: a.relation,
            vars: a.vars.clone(),
            label: query.atom_label(i),
        })
        .collect();
    let mut maps = Vec::new();
    let mut relations = Vec::new();
    for (i, r) in query.relations.iter().enumerate() {
        let snake = snake_case(&r.name.to_string());
        let doc = match r.origin {
            Origin::Declared => format!("`{}`: each tuple's live contributions.", r.name),
            Origin::Local(_) | Origin::Semijoin(_) => format!(
                "{}, by ({}).",
                r.docs.concat().trim(),
                r.columns
                    .iter()
                    .map(|c| c.name.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        let base = BaseMap {
            relation: i,
            kept: Kept::Every,
        };
        let base = push_map(
            &mut maps,
            Ident::new(&snake, r.name.span()),
            doc,
            Vec::new(),
            base,
        );
        relations.push(RelationIr {
            name: r.name.clone(),
            snake,
            docs: r.docs.clone(),
            columns: r
                .columns
                .iter()
                .map(|c| (c.name.clone(), c.ty.clone()))
                .collect(),
            base,
            kind: match r.origin {
                // On one worker until the partition plan says otherwise
                // (`plan::partition::assign`).
                Origin::Declared => RelationKind::Declared {
                    route: crate::ir::Route::First,
                    check: r.check,
                },
                Origin::Semijoin(s) => RelationKind::Indicator(s),
                Origin::Local(atom) => {
                    let local = query.atoms[atom]
                        .local
                        .as_ref()
                        .expect("a derived relation's atom has a local step");
                    RelationKind::Derived(Derived {
                        source: local.source,
                        atom,
                        args: local.args.clone(),
                        lets: local.lets.clone(),
                        factors: local.factors.clone(),
                    })
                }
            },
        });
    }
    Draft {
        name: query.name.clone(),
        vis: query.vis.clone(),
        docs: query.docs.clone(),
        rule: query.rule_text(),
        payload: query.semiring.ty.clone(),
        zero_divisors: !(query.semiring.class.positive || query.semiring.class.counting),
        updates: query.updates,
        deletes: query.deletes,
        claims: query.semiring.claims.clone(),
        catalogue_types: query.semiring.catalogue_types.clone(),
        absorbing: query.updates == crate::query::UpdateModel::InsertOnly
            && query.semiring.class.idempotent
            && !query.semiring.class.ring,
        summary: verdict.accepted().map_or_else(String::new, |v| v.summary()),
        warning: verdict
            .accepted()
            .and_then(|v| v.warning(&query.name, &query.dialect)),
        vars,
        relations,
        atoms,
        theta: query.theta.clone(),
        maps,
        triggers: Vec::new(),
        head: query.head.clone(),
        semijoins: Vec::new(),
    }
}

/// The secondary index of `relation` on `columns` (the lookups of the
/// first-order delta and of CROWN's messages), added if new.
pub fn index_of(p: &mut Draft, relation: usize, columns: Vec<usize>) -> Id<RelationIndex> {
    let same = |m: &Id<RelationIndex>| {
        let index = p.get(*m);
        index.relation == relation && index.columns == columns
    };
    if let Some(m) = (0..p.maps.len()).filter_map(|m| p.id(m)).find(same) {
        return m;
    }
    let r = &p.relations[relation];
    let cols: Vec<String> = columns
        .iter()
        .map(|&c| r.columns[c].0.to_string())
        .collect();
    let name = super::names::fresh_name(
        p,
        &[],
        &format!(
            "{}_by_{}",
            r.snake,
            if cols.is_empty() {
                "nothing".to_owned()
            } else {
                cols.join("_")
            }
        ),
    );
    let doc = format!("The tuples of `{}` by ({}).", r.name, cols.join(", "));
    let index = RelationIndex {
        relation,
        columns,
        while_growing: Vec::new(),
        payloads: false,
    };
    let name = Ident::new(&name, Span::call_site());
    push_map(&mut p.maps, name, doc, Vec::new(), index)
}
