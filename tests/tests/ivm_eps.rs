//! The IVMε strategy against the naive evaluator: every query of
//! `queries/ivm_eps.ivm`, over every semiring its `over:` line lists, under
//! random update streams (see [`ivm_tests::check_suite`]).

use cases::epsgraph50int::EpsGraph50Int;
use ivm::semiring::Int;
use ivm_tests::naive::{Naive, Retraction};

ivm_tests::suite!("ivm_eps");

#[test]
fn ivm_eps_agrees_with_the_naive_evaluator() {
    ivm_tests::check_suite(cases::ENTRIES, "ivm_eps");
}

/// A long run over a graph with hubs: the database grows past several
/// doublings of M and shrinks back, hubs turn heavy and light again, and
/// the invariants and the count are checked along the way.
#[test]
fn ivm_eps_crosses_every_rebalancing_boundary() {
    let mut q = EpsGraph50Int::new();
    let mut naive = Naive::<Int>::new(
        vec![2],
        vec![(0, vec![0, 1]), (0, vec![1, 2]), (0, vec![2, 0])],
        vec![],
        Retraction::ring(),
    );
    let mut rng = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    let mut live: Vec<(u32, u32)> = Vec::new();
    for step in 0..3000 {
        // Grow for 1500 steps, then shrink; a third of the endpoints are
        // one of three hubs.
        let grow = step < 1500 || next().is_multiple_of(4);
        if grow || live.is_empty() {
            let pick = |r: u64| {
                if r.is_multiple_of(3) {
                    (r / 3 % 3) as u32
                } else {
                    (r % 40) as u32
                }
            };
            let (a, b) = (pick(next()), pick(next()));
            q.insert_e(a, b);
            naive.update(0, &[u64::from(a), u64::from(b)], Int(1));
            live.push((a, b));
        } else {
            let i = (next() % live.len() as u64) as usize;
            let (a, b) = live.swap_remove(i);
            q.delete_e(a, b).expect("live");
            naive
                .delete(0, &[u64::from(a), u64::from(b)])
                .expect("live");
        }
        if step % 7 == 0 || step > 2900 {
            q.check_invariants()
                .unwrap_or_else(|e| panic!("step {step}: {e}"));
            assert_eq!(q.get(&()), naive.get(&[]), "step {step}");
        }
    }
}
