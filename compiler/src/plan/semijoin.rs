//! Semijoins in the IR: the programs of a semijoin's body and domain go
//! into fields of the outer program, and each relation they read gets a
//! path (`PathBody::Semijoin`) that updates them where a tuple comes or
//! goes and feeds the semijoin's relation where its indicator turns.
//!
//! The outer program's own strategy sees the semijoin as an atom over a
//! relation like any other, so every planner works unchanged; the paths
//! come after the relation's own atoms and derived relations, as a later
//! atom of a self-join does.

use proc_macro2::Ident;

use crate::ir::{
    AtomPath, Draft, KeyColumn, PathBody, Polarity, Program, Semijoin, Subprogram, SubprogramRead,
    Tally, Trigger,
};
use crate::query::{Dialect, Query};

/// The lowered programs of one semijoin: its body's, and its domain's
/// for `not exists`.
pub type Parts = (Program, Option<Program>);

/// Adds each semijoin of `query` to `p`, with its lowered `parts`.
pub fn attach(p: &mut Draft, query: &Query, parts: Vec<Parts>) {
    for (i, (s, (body, domain))) in query.semijoins.iter().zip(parts).enumerate() {
        // The semijoin's own relation: the atom reads it through a local
        // step when it correlates on nothing (`syntax/nullary.rs`).
        let atom = &query.atoms[s.atom];
        let relation = atom.local.as_ref().map_or(atom.relation, |l| l.source);
        let snake = p.relations[relation].snake.clone();
        let sub = |program: Program, q: &Query, what: &str| Subprogram {
            field: Ident::new(&format!("{snake}_{what}"), s.span),
            reads: reads(p, q),
            program: Box::new(program),
        };
        let body = sub(body, &s.body, "count");
        let domain = domain.map(|d| {
            sub(
                d,
                s.domain().expect("a domain's program has a query"),
                "domain",
            )
        });
        // One path per relation read, by the body, the domain or both.
        let mut read: Vec<usize> = body.reads.iter().map(|r| r.relation).collect();
        for r in domain.iter().flat_map(|d| &d.reads) {
            if !read.contains(&r.relation) {
                read.push(r.relation);
            }
        }
        for r in read {
            let path = AtomPath {
                atom: s.atom,
                body: PathBody::Semijoin {
                    semijoin: i,
                    relation: r,
                },
            };
            match p.triggers.iter_mut().find(|t| t.relation == r) {
                Some(trigger) => trigger.paths.push(path),
                None => p.triggers.push(Trigger {
                    relation: r,
                    paths: vec![path],
                }),
            }
        }
        p.semijoins.push(Semijoin {
            relation,
            text: s.text(),
            body,
            polarity: match domain {
                Some(domain) => Polarity::NotExists { domain },
                None => Polarity::Exists,
            },
            tally: if query.semiring.class.positive {
                Tally::Contributions
            } else if matches!(query.dialect, Dialect::Sql { .. }) {
                Tally::Rows
            } else {
                Tally::Turns
            },
        });
    }
}

/// The relations of `outer` that the subquery `q` reads, with the columns
/// of each of its atoms that hold the subquery's head.
fn reads(outer: &Draft, q: &Query) -> Vec<SubprogramRead> {
    let mut out: Vec<SubprogramRead> = Vec::new();
    for atom in 0..q.atoms.len() {
        // The written relation and what each of its columns binds.
        let (source, columns) = q.written_bindings(atom);
        // The columns holding the head, if the atom binds all of it.
        let key: Option<Vec<KeyColumn>> = q
            .head
            .iter()
            .map(|&h| {
                let column = columns
                    .iter()
                    .position(|c| c.is_some_and(|(v, _)| v == h))?;
                let unwrapped = columns[column].is_some_and(|(_, some)| some);
                Some(KeyColumn { column, unwrapped })
            })
            .collect();
        let name = q.relations[source].name.to_string();
        let relation = outer
            .relations
            .iter()
            .position(|r| r.name == name && !r.is_fed())
            .expect("a subquery reads relations of the outer query");
        let read = match out.iter().position(|r| r.relation == relation) {
            Some(i) => &mut out[i],
            None => {
                out.push(SubprogramRead {
                    relation,
                    snake: crate::plan::names::snake_case(&name),
                    keys: Vec::new(),
                    unkeyed: false,
                });
                out.last_mut().expect("just pushed")
            }
        };
        match key {
            Some(key) => read.keys.push(key),
            None => read.unkeyed = true,
        }
    }
    out
}
