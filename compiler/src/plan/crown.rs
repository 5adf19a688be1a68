//! The CROWN planner for free-connex queries under inserts over a bounded
//! monotone semiring (`Bool`, `AccessControl`; *Answering Conjunctive
//! Queries with Aggregations under Updates*, section 5.1, Lemma 18).
//!
//! Take the free-connex join tree rooted at the head node. Every atom sends
//! its parent a *message*: for each value of the variables it shares with
//! the parent, the ⊕ over its tuples with that value of the tuple's payload
//! ⊗ the messages of its own children. Under inserts over a bounded
//! monotone semiring a message entry only grows, and only a bounded number
//! of times (once, from false to true, over `Bool`), so each growth may
//! afford to revisit the parent's tuples that share the key: every tuple is
//! revisited O(1) times and an update costs O(1) amortized.
//!
//! The atoms just below the head share free variables only with it: their
//! messages' supports are the relations of the insert-only top join
//! ([`super::top_join`]), and an output tuple's payload is the
//! product of their messages at it, looked up when it is read.

use proc_macro2::Span;
use syn::Ident;

use super::top_join::{self, TopRelation};
use crate::analysis::JoinTree;
use crate::analysis::hypergraph::members;
use crate::ir::{
    AtomPath, Factor, Id, Message, MessageParent, PathBody, Program, Trigger, VarId, push_map,
};
use crate::plan::{Verdict, skeleton};
use crate::query::Query;

/// Lowers a free-connex query to CROWN; `None` when it is not free-connex
/// or the top join is cyclic.
pub fn lower(query: &Query, tree: &JoinTree, verdict: &Verdict) -> Option<Program> {
    let mut p = skeleton(query, verdict);
    let head = tree.root;
    let atom_of = |node: usize| tree.nodes[node].atom.expect("only the root is the head");
    // The variables a node shares with its parent, in increasing order.
    let shared = |node: usize| -> Vec<VarId> {
        let parent = tree.nodes[node].parent.expect("not the root");
        members(tree.nodes[node].vars & tree.nodes[parent].vars).collect()
    };
    // Message maps, children before parents (reverse preorder).
    let mut preorder = vec![head];
    let mut i = 0;
    while i < preorder.len() {
        preorder.extend(tree.nodes[preorder[i]].children.iter().copied());
        i += 1;
    }
    let mut message_of: Vec<Option<Id<Message>>> = vec![None; tree.nodes.len()];
    for &node in preorder.iter().rev().filter(|&&n| n != head) {
        let atom = atom_of(node);
        let key = shared(node);
        let children: Vec<Id<Message>> = tree.nodes[node]
            .children
            .iter()
            .map(|&c| message_of[c].expect("children first"))
            .collect();
        let label = &p.atoms[atom].label;
        let mut product = vec![format!("`{label}`")];
        product.extend(
            children
                .iter()
                .map(|&c| format!("`{}`", p.factor_label(Factor::Map(c.map())))),
        );
        let name = super::names::fresh_name(
            &p,
            &[],
            &format!("message_{}", p.relations[p.atoms[atom].relation].snake),
        );
        let doc = format!(
            "What `{label}` tells its parent: for each ({}), the ⊕ over its tuples of {}. Grows only.",
            p.var_list(&key),
            product.join(" ⊗ ")
        );
        let message = Message {
            atom,
            children,
            // Set below, once the parents' maps exist.
            parent: MessageParent::Join(usize::MAX),
        };
        let name = Ident::new(&name, Span::call_site());
        message_of[node] = Some(push_map(&mut p.maps, name, doc, key, message));
    }
    // The top join: one relation per child of the head.
    let below_head = tree.nodes[head].children.clone();
    let tops: Vec<TopRelation> = below_head
        .iter()
        .map(|&c| {
            let m = message_of[c].expect("mapped").map();
            let key = p.maps[m].key.clone();
            let name = format!(
                "support_{}",
                p.relations[p.atoms[atom_of(c)].relation].snake
            );
            TopRelation {
                doc: format!(
                    "The ({}) values where `{}` is non-zero, each added once; live once it joins with the relations below it.",
                    p.var_list(&key),
                    p.factor_label(Factor::Map(m))
                ),
                name,
                key,
                factors: vec![Factor::Map(m)],
            }
        })
        .collect();
    // Distinct names among the top relations.
    let mut tops = tops;
    let mut taken: Vec<String> = Vec::new();
    for t in &mut tops {
        t.name = super::names::fresh_name(&p, &taken, &t.name);
        taken.push(t.name.clone());
    }
    let top_maps = top_join::place(&mut p, tops)?;

    // Parents: a join node, or the parent atom's message through an index
    // of its relation on the shared columns.
    for &node in &preorder[1..] {
        let m = message_of[node].expect("mapped");
        let parent = tree.nodes[node].parent.expect("not the root");
        let to = if parent == head {
            let at = below_head.iter().position(|&c| c == node).expect("a child");
            MessageParent::Join(top_maps[at].map())
        } else {
            let patom = atom_of(parent);
            let vars = &p.atoms[patom].vars;
            let columns: Vec<usize> = shared(node)
                .iter()
                .map(|&v| vars.iter().position(|&w| w == v).expect("shared"))
                .collect();
            let relation = p.atoms[patom].relation;
            let r = &p.relations[relation];
            let (key, rest): (Vec<String>, Vec<String>) = {
                let name = |c: usize| r.columns[c].0.to_string();
                (
                    columns.iter().map(|&c| name(c)).collect(),
                    (0..r.columns.len())
                        .filter(|c| !columns.contains(c))
                        .map(name)
                        .collect(),
                )
            };
            let doc = if rest.is_empty() {
                format!(
                    "The tuples of `{}` a message may still revisit, by ({}): one `()` each, the key being the whole tuple.",
                    r.name,
                    key.join(", ")
                )
            } else {
                format!(
                    "The tuples of `{}` a message may still revisit, by ({}): the ({}) of each.",
                    r.name,
                    key.join(", "),
                    rest.join(", ")
                )
            };
            let index = super::skeleton::index_of(&mut p, relation, columns);
            p.maps[index].doc = doc;
            p.get_mut(index).while_growing.push(m);
            MessageParent::Message {
                map: message_of[parent].expect("mapped"),
                index,
            }
        };
        p.get_mut(m).parent = to;
    }

    let triggers = (0..p.relations.len())
        .map(|rel| Trigger {
            relation: rel,
            paths: (0..p.atoms.len())
                .filter(|&a| p.atoms[a].relation == rel)
                .map(|atom| {
                    let node = (0..tree.nodes.len())
                        .find(|&n| tree.nodes[n].atom == Some(atom))
                        .expect("every atom is a node");
                    AtomPath {
                        atom,
                        body: PathBody::Raise(message_of[node].expect("every atom has a message")),
                    }
                })
                .collect(),
        })
        .collect();
    p.triggers = triggers;
    Some(p)
}
