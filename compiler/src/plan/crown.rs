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
    AtomPath, Draft, Factor, Id, Message, MessageParent, PathBody, Program, RelationIndex,
    RelationIr, Trigger, VarId, push_map,
};
use crate::plan::{Verdict, skeleton};
use crate::query::Query;

/// Lowers a free-connex query to CROWN; `None` when it is not free-connex
/// or the top join is cyclic.
pub fn lower(query: &Query, tree: &JoinTree, verdict: &Verdict) -> Option<Program> {
    let mut p = skeleton(query, verdict);
    let mut crown = Crown::new(tree);
    crown.push_messages(&mut p);
    let tops = crown.top_relations(&p);
    let (_, reading) = top_join::place(&mut p, tops)?;
    p.triggers = crown.triggers(&p);
    Some(p.finish(reading))
}

/// The join tree being lowered, with the message map of each atom's node
/// once it exists.
struct Crown<'a> {
    tree: &'a JoinTree,
    /// The head node, the tree's root.
    head: usize,
    /// The nodes in preorder, the head first.
    preorder: Vec<usize>,
    /// The message map of each node but the head.
    message_of: Vec<Option<Id<Message>>>,
}

impl<'a> Crown<'a> {
    /// The tree's nodes in preorder, no message placed yet.
    fn new(tree: &'a JoinTree) -> Self {
        let head = tree.root;
        let mut preorder = vec![head];
        let mut i = 0;
        while i < preorder.len() {
            preorder.extend(tree.nodes[preorder[i]].children.iter().copied());
            i += 1;
        }
        Crown {
            tree,
            head,
            preorder,
            message_of: vec![None; tree.nodes.len()],
        }
    }

    /// The atom of a node other than the head.
    fn atom_of(&self, node: usize) -> usize {
        self.tree.nodes[node]
            .atom
            .expect("only the root is the head")
    }

    /// The variables a node shares with its parent, in increasing order.
    fn shared(&self, node: usize) -> Vec<VarId> {
        let nodes = &self.tree.nodes;
        let parent = nodes[node].parent.expect("not the root");
        members(nodes[node].vars & nodes[parent].vars).collect()
    }

    /// Pushes the message maps, children before parents (reverse
    /// preorder).
    fn push_messages(&mut self, p: &mut Draft) {
        let head = self.head;
        for i in (0..self.preorder.len()).rev() {
            let node = self.preorder[i];
            if node != head {
                self.message_of[node] = Some(self.push_message(p, node));
            }
        }
    }

    /// Pushes the message map of one node, whose children have theirs.
    fn push_message(&self, p: &mut Draft, node: usize) -> Id<Message> {
        let atom = self.atom_of(node);
        let key = self.shared(node);
        let children: Vec<Id<Message>> = self.tree.nodes[node]
            .children
            .iter()
            .map(|&c| self.message_of[c].expect("children first"))
            .collect();
        let label = &p.atoms[atom].label;
        let mut product = vec![format!("`{label}`")];
        product.extend(
            children
                .iter()
                .map(|&c| format!("`{}`", p.factor_label(Factor::Map(c.map())))),
        );
        let name = super::names::fresh_name(
            p,
            &[],
            &format!("message_{}", p.relations[p.atoms[atom].relation].snake),
        );
        let doc = format!(
            "What `{label}` tells its parent: for each ({}), the ⊕ over its tuples of {}. Grows only.",
            p.var_list(&key),
            product.join(" ⊗ ")
        );
        // Below the head, the message revisits its parent atom's tuples
        // through an index of their relation.
        let parent = self.tree.nodes[node].parent.expect("not the root");
        let (parent, index) = if parent == self.head {
            (MessageParent::Join, None)
        } else {
            let index = self.revisit_index(p, node);
            (MessageParent::Message { index }, Some(index))
        };
        let message = Message {
            atom,
            children,
            parent,
        };
        let name = Ident::new(&name, Span::call_site());
        let m = push_map(&mut p.maps, name, doc, key, message);
        if let Some(index) = index {
            p.get_mut(index).while_growing.push(m);
        }
        m
    }

    /// The relations of the top join, one per child of the head: the
    /// support of its message, under distinct names.
    fn top_relations(&self, p: &Draft) -> Vec<TopRelation> {
        let mut tops: Vec<TopRelation> = self.tree.nodes[self.head]
            .children
            .iter()
            .map(|&c| {
                let m = self.message_of[c].expect("mapped").map();
                let key = p.maps[m].key.clone();
                let name = format!(
                    "support_{}",
                    p.relations[p.atoms[self.atom_of(c)].relation].snake
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
        let mut taken: Vec<String> = Vec::new();
        for t in &mut tops {
            t.name = super::names::fresh_name(p, &taken, &t.name);
            taken.push(t.name.clone());
        }
        tops
    }

    /// The index of the parent atom's relation on the columns it shares
    /// with `node`, through which `node`'s message revisits its tuples.
    fn revisit_index(&self, p: &mut Draft, node: usize) -> Id<RelationIndex> {
        let parent = self.tree.nodes[node].parent.expect("not the root");
        let patom = self.atom_of(parent);
        let vars = &p.atoms[patom].vars;
        let columns: Vec<usize> = self
            .shared(node)
            .iter()
            .map(|&v| vars.iter().position(|&w| w == v).expect("shared"))
            .collect();
        let relation = p.atoms[patom].relation;
        let doc = revisit_index_doc(&p.relations[relation], &columns);
        let index = super::skeleton::index_of(p, relation, columns);
        p.maps[index].doc = doc;
        index
    }

    /// One trigger per relation: each of its atoms raises its message.
    fn triggers(&self, p: &Draft) -> Vec<Trigger> {
        let nodes = &self.tree.nodes;
        (0..p.relations.len())
            .map(|rel| Trigger {
                relation: rel,
                paths: (0..p.atoms.len())
                    .filter(|&a| p.atoms[a].relation == rel)
                    .map(|atom| {
                        let node = (0..nodes.len())
                            .find(|&n| nodes[n].atom == Some(atom))
                            .expect("every atom is a node");
                        AtomPath {
                            atom,
                            body: PathBody::Raise(
                                self.message_of[node].expect("every atom has a message"),
                            ),
                        }
                    })
                    .collect(),
            })
            .collect()
    }
}

/// The doc of a relation's index by `columns` that messages revisit.
fn revisit_index_doc(r: &RelationIr, columns: &[usize]) -> String {
    let name = |c: usize| r.columns[c].0.to_string();
    let key: Vec<String> = columns.iter().map(|&c| name(c)).collect();
    let rest: Vec<String> = (0..r.columns.len())
        .filter(|c| !columns.contains(c))
        .map(name)
        .collect();
    if rest.is_empty() {
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
    }
}
