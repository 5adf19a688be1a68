//! Property tests of the analysis on random queries: the classes do not
//! depend on names or atom order, the classes nest as the theory says, and
//! every structure and witness the analysis returns is genuine.

use ivm_compiler::analysis::hypergraph::{bit, members, subset};
use ivm_compiler::analysis::{self, Analysis, Core, Hypergraph, NotQHierarchical};
use proptest::prelude::*;

/// A random query: up to `vars` variables, up to `atoms` atoms of arity 1
/// to 3, and a random head.
fn query(vars: usize, atoms: usize) -> impl Strategy<Value = Hypergraph> {
    (1..=vars, 1..=atoms).prop_flat_map(|(n, m)| {
        let atom = proptest::sample::subsequence((0..n).collect::<Vec<_>>(), 1..=n.min(3));
        (
            proptest::collection::vec(atom, m),
            proptest::collection::vec(any::<bool>(), n),
        )
            .prop_map(move |(atoms, head)| build(n, &atoms, &head))
    })
}

fn build(n: usize, atoms: &[Vec<usize>], head: &[bool]) -> Hypergraph {
    // Only variables that occur in some atom exist; renumber them densely.
    let used: Vec<usize> = (0..n)
        .filter(|v| atoms.iter().any(|a| a.contains(v)))
        .collect();
    let index = |v: usize| used.iter().position(|&u| u == v).expect("used");
    let free: Vec<usize> = used
        .iter()
        .filter(|&&v| head[v])
        .map(|&v| index(v))
        .collect();
    Hypergraph::new(
        used.iter().map(|v| format!("x{v}")).collect(),
        atoms
            .iter()
            .enumerate()
            .map(|(i, a)| (format!("R{i}"), a.iter().map(|&v| index(v)).collect()))
            .collect(),
        &free,
    )
}

/// The classes and width as one comparable value.
fn signature(a: &Analysis) -> (bool, bool, bool, bool, bool, bool, String) {
    (
        a.acyclic.is_ok(),
        a.free_connex.is_ok(),
        a.hierarchical.is_ok(),
        a.q_hierarchical.is_ok(),
        a.p_hierarchical.is_ok(),
        a.strong_connex(),
        a.fhtw.to_string(),
    )
}

/// The same query with variables renumbered by `vperm` and atoms reordered
/// by `aperm`.
fn permute(hg: &Hypergraph, vperm: &[usize], aperm: &[usize]) -> Hypergraph {
    let n = hg.var_count();
    let mut names = vec![String::new(); n];
    for v in 0..n {
        names[vperm[v]] = format!("renamed{v}");
    }
    let atoms = aperm
        .iter()
        .map(|&i| {
            let vars = members(hg.atoms[i]).map(|v| vperm[v]).collect();
            (hg.atom_labels[i].clone(), vars)
        })
        .collect();
    let free: Vec<usize> = members(hg.free).map(|v| vperm[v]).collect();
    Hypergraph::new(names, atoms, &free)
}

fn permutation(n: usize) -> impl Strategy<Value = Vec<usize>> {
    Just((0..n).collect::<Vec<_>>()).prop_shuffle()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn classes_ignore_names_and_atom_order(
        (hg, vperm, aperm) in query(6, 5).prop_flat_map(|hg| {
            let (n, m) = (hg.var_count(), hg.atoms.len());
            (Just(hg), permutation(n), permutation(m))
        })
    ) {
        let a = analysis::analyse(&hg);
        let b = analysis::analyse(&permute(&hg, &vperm, &aperm));
        prop_assert_eq!(signature(&a), signature(&b));
        prop_assert_eq!(a.triangle.is_some(), b.triangle.is_some());
    }

    #[test]
    fn classes_nest(hg in query(6, 5)) {
        let a = analysis::analyse(&hg);
        let (acyclic, free_connex, hier, q, p, strong, _) = signature(&a);
        // q-hierarchical ⊆ p-hierarchical ∩ α-acyclic ⊆ free-connex ⊆ α-acyclic.
        prop_assert!(!q || (p && acyclic && hier));
        prop_assert!(!(p && acyclic) || free_connex);
        prop_assert!(!free_connex || acyclic);
        prop_assert_eq!(strong, free_connex && p);
        // Hierarchical queries are α-acyclic.
        prop_assert!(!hier || acyclic);
        // fhtw is 1 exactly for α-acyclic queries, and at least 1.
        prop_assert_eq!(a.fhtw.value.to_string() == "1", acyclic);
        prop_assert!(a.fhtw.exact && a.fhtw.value.to_f64() >= 1.0);
        // A full query is p-hierarchical; a query without free variables is
        // free-connex exactly when it is α-acyclic.
        if hg.bound() == 0 { prop_assert!(p); }
        if hg.free == 0 { prop_assert_eq!(free_connex, acyclic); }
    }

    #[test]
    fn structures_are_genuine(hg in query(6, 5)) {
        let a = analysis::analyse(&hg);
        let all_atoms = (0..hg.atoms.len()).fold(0, |m, i| m | bit(i));
        if a.q_hierarchical.is_ok() {
            let order = a.variable_order.as_ref().expect("q-hierarchical has an order");
            prop_assert!(order.is_valid(&hg, all_atoms));
            // Free variables are on top.
            for v in members(hg.free) {
                for u in order.path_to_root(v) {
                    prop_assert!(hg.is_free(u));
                }
            }
        }
        if a.free_connex.is_ok() {
            let tree = a.join_tree.as_ref().expect("free-connex has a join tree");
            prop_assert!(tree.is_valid());
            prop_assert_eq!(tree.nodes[tree.root].atom, None);
            prop_assert_eq!(tree.nodes.len(), hg.atoms.len() + 1);
        }
        if a.p_hierarchical.is_ok() {
            let subs = a.decomposition.as_ref().expect("p-hierarchical has a decomposition");
            let mut covered = 0;
            for s in subs {
                prop_assert_eq!(covered & s.atoms, 0, "subqueries are disjoint");
                covered |= s.atoms;
                for at in members(s.atoms) {
                    prop_assert!(subset(s.free, hg.atoms[at]), "free-dominated");
                }
                prop_assert!(s.order.is_valid(&hg, s.atoms));
            }
            prop_assert_eq!(covered, all_atoms);
        } else {
            prop_assert!(a.decomposition.is_none());
        }
    }

    #[test]
    fn witnesses_are_genuine(hg in query(6, 5)) {
        let a = analysis::analyse(&hg);
        let overlap_ok = |w: &analysis::Overlap| {
            let (ax, ay) = (hg.at(w.x), hg.at(w.y));
            ax & bit(w.only_x) != 0 && ay & bit(w.only_x) == 0
                && ax & ay & bit(w.both) != 0
                && ay & bit(w.only_y) != 0 && ax & bit(w.only_y) == 0
        };
        let q_core_ok = |w: &analysis::QCore| {
            let (af, ab) = (hg.at(w.free), hg.at(w.bound));
            hg.is_free(w.free) && !hg.is_free(w.bound)
                && af & ab & bit(w.both) != 0
                && ab & bit(w.only_bound) != 0 && af & bit(w.only_bound) == 0
        };
        match a.q_hierarchical {
            Err(NotQHierarchical::Overlap(w)) => prop_assert!(overlap_ok(&w)),
            Err(NotQHierarchical::QCore(w)) => prop_assert!(q_core_ok(&w)),
            Ok(()) => {}
        }
        match a.p_hierarchical {
            Err(Core::ExistsHierarchy(w)) => {
                prop_assert!(overlap_ok(&w) && !hg.is_free(w.x) && !hg.is_free(w.y));
            }
            Err(Core::Q(w)) => prop_assert!(q_core_ok(&w)),
            Ok(()) => {}
        }
        if let Err(c) = a.acyclic {
            // Every variable left by GYO occurs in at least two atoms left.
            for v in members(c.vars) {
                prop_assert!((hg.at(v) & c.atoms).count_ones() >= 2);
            }
            prop_assert!(c.atoms.count_ones() >= 3);
        }
    }
}
