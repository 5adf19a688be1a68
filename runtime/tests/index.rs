//! `ivm::__private::Index` against a model (a list of tuples per key), on
//! random inserts, removes and value changes that move groups across the
//! size where the index starts and stops keeping positions.

use std::collections::BTreeMap;

use ivm::__private::Index;
use proptest::prelude::*;

/// The model: per key, its tuples `(key, n)` with their values.
type Model = BTreeMap<u8, Vec<((u8, u8), i32)>>;

/// One step: a tuple `(key, n)` inserted, removed or given a new value.
#[derive(Debug, Clone)]
enum Step {
    Insert(u8, u8, i32),
    Remove(u8, u8),
    Set(u8, u8, i32),
}

fn step() -> impl Strategy<Value = Step> {
    // Few keys and many tuples per key, so that groups grow past the
    // searched size and shrink back, again and again; removes weigh as
    // much as inserts.
    let key = 0u8..3;
    let n = 0u8..24;
    prop_oneof![
        2 => (key.clone(), n.clone(), any::<i32>()).prop_map(|(k, n, v)| Step::Insert(k, n, v)),
        2 => (key.clone(), n.clone()).prop_map(|(k, n)| Step::Remove(k, n)),
        1 => (key, n, any::<i32>()).prop_map(|(k, n, v)| Step::Set(k, n, v)),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn an_index_holds_what_its_model_holds(steps in prop::collection::vec(step(), 0..400)) {
        let mut index: Index<(u8,), (u8, u8), i32> = Index::default();
        let mut model = Model::new();
        for step in steps {
            match step {
                Step::Insert(k, n, v) => {
                    index.insert_with((k,), (k, n), v);
                    let group = model.entry(k).or_default();
                    if !group.iter().any(|(t, _)| *t == (k, n)) {
                        group.push(((k, n), v));
                    }
                }
                Step::Remove(k, n) => {
                    index.remove(&(k,), &(k, n));
                    let group = model.entry(k).or_default();
                    group.retain(|(t, _)| *t != (k, n));
                }
                Step::Set(k, n, v) => {
                    index.set(&(k,), &(k, n), v);
                    for entry in model.entry(k).or_default().iter_mut() {
                        if entry.0 == (k, n) {
                            entry.1 = v;
                        }
                    }
                }
            }
            for k in 0..3u8 {
                let mut got = index.entries(&(k,)).to_vec();
                let mut want = model.get(&k).cloned().unwrap_or_default();
                got.sort_unstable();
                want.sort_unstable();
                prop_assert_eq!(index.count(&(k,)), want.len());
                prop_assert_eq!(got, want);
            }
        }
    }
}
