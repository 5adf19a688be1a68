//! The invariants of a lowered [`Program`], checked after every planner
//! (`plan::lower`): a planner's mistake becomes an internal error that
//! names the broken rule, not generated code that does not build or a
//! wrong answer. Typed ids ([`Id`]) already make a map of the wrong kind
//! unrepresentable where the IR names one; these are the rules the types
//! cannot state: links that go both ways, keys that agree, names that do
//! not clash, and one trigger per relation.

use std::collections::HashSet;

use super::{
    Factor, FreeLevel, JoinNode, Linked, MapKind, Message, MessageParent, PathBody, Program,
    Reading, Target,
};

/// Checks `p`; the first broken rule, in words, if any.
pub fn verify(p: &Program) -> Result<(), String> {
    names_are_distinct(p)?;
    relations_have_bases(p)?;
    factors_exist(p)?;
    links_agree::<FreeLevel>(p, "free level")?;
    links_agree::<JoinNode>(p, "top join node")?;
    links_agree::<super::ClusterNode>(p, "cluster node")?;
    messages_agree(p)?;
    bests_feed_the_top_join(p)?;
    levels_are_keyed_by_their_path(p)?;
    triggers_cover_atoms(p)?;
    steps_change_their_targets(p)?;
    routes_shard(p)?;
    reading_is_complete(p)
}

/// A sharded run computes each derivation once: a replicated relation
/// goes with one hash-partitioned on the key, and no relation stays on
/// the first worker while another is spread.
fn routes_shard(p: &Program) -> Result<(), String> {
    let routes: Vec<super::Route> = p.relations.iter().filter_map(|r| r.route()).collect();
    let hashed = routes
        .iter()
        .any(|r| matches!(r, super::Route::Hash { .. }));
    let first = routes.contains(&super::Route::First);
    let every = routes.contains(&super::Route::Every);
    // Either all on the first worker, or some hashed and none there.
    let one_worker = first && !hashed && !every;
    let spread = hashed && !first;
    if !routes.is_empty() && !one_worker && !spread {
        return Err(
            "the relations' routes would compute a derivation on several workers".to_owned(),
        );
    }
    Ok(())
}

/// Every map is a field of the generated struct: no two share a name.
fn names_are_distinct(p: &Program) -> Result<(), String> {
    let mut seen = HashSet::new();
    for map in &p.maps {
        if !seen.insert(map.name.to_string()) {
            return Err(format!("two maps are named `{}`", map.name));
        }
    }
    Ok(())
}

/// Each relation's base map is of that relation.
fn relations_have_bases(p: &Program) -> Result<(), String> {
    for (r, relation) in p.relations.iter().enumerate() {
        if p.get(relation.base).relation != r {
            return Err(format!(
                "the base map of `{}` holds another relation",
                relation.name
            ));
        }
    }
    Ok(())
}

/// Every factor names an atom or a map of the program.
fn factors_exist(p: &Program) -> Result<(), String> {
    for map in &p.maps {
        for &f in map.kind.factors().unwrap_or(&[]) {
            let ok = match f {
                Factor::Atom(a) => a < p.atoms.len(),
                Factor::Map(m) => m < p.maps.len(),
            };
            if !ok {
                return Err(format!("`{}` has a factor that does not exist", map.name));
            }
        }
    }
    Ok(())
}

/// In a tree of maps, a node's parent lists it among its children, and
/// each child names it as its parent.
fn links_agree<K: Linked>(p: &Program, what: &str) -> Result<(), String> {
    for (id, node) in p.all::<K>() {
        if let Some(up) = node.parent()
            && !p.get(up).children().contains(&id)
        {
            return Err(format!(
                "the {what} `{}` is not among the children of its parent `{}`",
                p.maps[id].name, p.maps[up].name
            ));
        }
        for &child in node.children() {
            if p.get(child).parent() != Some(id) {
                return Err(format!(
                    "the {what} `{}` does not name `{}` as its parent",
                    p.maps[child].name, p.maps[id].name
                ));
            }
        }
    }
    Ok(())
}

/// A CROWN message below a child of the head has a parent message (which
/// lists it among its children) over the relation of its index; one below
/// the head feeds a top join node.
fn messages_agree(p: &Program) -> Result<(), String> {
    for (id, message) in p.all::<Message>() {
        let name = &p.maps[id].name;
        match message.parent {
            MessageParent::Message { index } => {
                let Some(up) = p.parent_message(id) else {
                    return Err(format!("the message `{name}` has no parent message"));
                };
                if p.get(index).relation != p.atoms[p.get(up).atom].relation {
                    return Err(format!(
                        "the message `{name}` revisits its parent through an index of another relation"
                    ));
                }
            }
            MessageParent::Join if p.fed_node(id.map()).is_none() => {
                return Err(format!("the message `{name}` feeds no top join node"));
            }
            MessageParent::Join => {}
        }
    }
    Ok(())
}

/// A max-max cluster's best map feeds a node of the top join, and a
/// cyclic top join's supports deliver to the joined map.
fn bests_feed_the_top_join(p: &Program) -> Result<(), String> {
    for (id, _) in p.all::<super::BestMap>() {
        if p.fed_node(id.map()).is_none() {
            return Err(format!(
                "the best map `{}` feeds no top join node",
                p.maps[id].name
            ));
        }
    }
    for (id, support) in p.all::<super::Support>() {
        let joined = support.delta.joined;
        if !p
            .maps
            .get(joined)
            .is_some_and(|m| matches!(m.kind, MapKind::Joined(_)))
        {
            return Err(format!(
                "the support `{}` delivers to no joined map",
                p.maps[id].name
            ));
        }
    }
    Ok(())
}

/// A free level is keyed by the variables of the levels above it, in
/// order: enumeration looks its groups up by the values bound above.
fn levels_are_keyed_by_their_path(p: &Program) -> Result<(), String> {
    for (id, level) in p.all::<FreeLevel>() {
        if level.vars.is_empty() {
            return Err(format!(
                "the free level `{}` has no variable",
                p.maps[id].name
            ));
        }
        let above: Vec<usize> = match level.parent {
            Some(up) => p.level_path(up),
            None => Vec::new(),
        };
        if p.maps[id].key != above {
            return Err(format!(
                "the free level `{}` is not keyed by the variables above it",
                p.maps[id].name
            ));
        }
    }
    Ok(())
}

/// One trigger per relation at most, and every atom's path in its
/// relation's trigger.
fn triggers_cover_atoms(p: &Program) -> Result<(), String> {
    let mut seen = HashSet::new();
    for t in &p.triggers {
        if !seen.insert(t.relation) {
            return Err(format!(
                "`{}` has two triggers",
                p.relations[t.relation].name
            ));
        }
        for path in &t.paths {
            let feeds = matches!(path.body, PathBody::Feed(_) | PathBody::Semijoin { .. });
            if !feeds && p.atoms[path.atom].relation != t.relation {
                return Err(format!(
                    "the trigger of `{}` runs the path of an atom of another relation",
                    p.relations[t.relation].name
                ));
            }
        }
    }
    Ok(())
}

/// A step's changed factor and siblings are the factors of its target.
fn steps_change_their_targets(p: &Program) -> Result<(), String> {
    let steps = p
        .triggers
        .iter()
        .flat_map(|t| &t.paths)
        .flat_map(|path| match &path.body {
            PathBody::Steps { steps, .. } => steps.as_slice(),
            _ => &[],
        });
    for step in steps {
        let factors = target_factors(p, step.target);
        let mut all = step.siblings.clone();
        all.push(step.changed);
        all.sort_unstable_by_key(|f| format!("{f:?}"));
        let mut want = factors.to_vec();
        want.sort_unstable_by_key(|f| format!("{f:?}"));
        if all != want {
            return Err(format!(
                "a step into `{}` does not change one of its factors beside the others",
                p.maps[step.target].name
            ));
        }
    }
    Ok(())
}

/// The factors a step's target multiplies.
fn target_factors(p: &Program, target: Target) -> &[Factor] {
    match target {
        Target::Sum(id) => &p.get(id).factors,
        Target::Free(id) => &p.get(id).factors,
        Target::Join(id) => &p.get(id).factors,
        Target::Support(id) => &p.get(id).factors,
    }
}

/// The reading names maps of the program, and a view tree's reading
/// starts at levels with no parent.
fn reading_is_complete(p: &Program) -> Result<(), String> {
    match &p.reading {
        Reading::Levels { roots, scalars } => {
            // Every query has a variable (an atom that binds none reads a
            // `nullary_` one), so a view tree has a root.
            if roots.is_empty() && scalars.is_empty() {
                return Err("the view tree's reading has no root".to_owned());
            }
            if let Some(&root) = roots.iter().find(|&&r| p.get(r).parent.is_some()) {
                return Err(format!(
                    "the reading starts at `{}`, which has a parent",
                    p.maps[root].name
                ));
            }
            if roots.is_empty() && !p.head.is_empty() {
                return Err("the reading has no free level for a non-empty head".to_owned());
            }
            Ok(())
        }
        Reading::TopJoin(nodes) => match nodes.first() {
            Some(&root) if p.get(root).parent.is_none() => Ok(()),
            _ => Err("the top join's reading does not start at its root".to_owned()),
        },
        Reading::Result { .. }
        | Reading::Triangle { .. }
        | Reading::Joined(_)
        | Reading::Recompute(_) => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::Id;

    /// A program whose free level is keyed wrongly is refused.
    #[test]
    fn a_level_keyed_wrongly_is_refused() {
        let text = "query Q { relation R(a: u32, b: u32); Q(a, b) = R(a, b); }";
        let report = crate::pipeline::report_str(text).expect("parses");
        let mut p = crate::pipeline::lower(&report[0]).expect("lowers");
        assert_eq!(verify(&p), Ok(()));
        let (level, _) = p.all::<FreeLevel>().next().expect("a level");
        let level: Id<FreeLevel> = level;
        p.maps[level.map()].key.push(0);
        assert!(
            verify(&p)
                .unwrap_err()
                .contains("not keyed by the variables above it")
        );
    }
}
