// A claim the type does not back with its trait fails to compile at the
// keyword: `Tally` claims `natural` without implementing `ivm::Natural`.
use ivm::{Deletable, Maintained, Positive, Semiring};

include!("../../tally.rs");

ivm::ivm_query! {
    #[semiring(Tally, positive, deletable, natural)]
    pub query Reach {
        relation Edge(a: u32, b: u32);
        relation Start(a: u32);
        Q(a) = Start(a) * Edge(a, b);
    }
}

fn main() {
    let mut q = Reach::new();
    q.insert_start(1);
    q.update_edge(1, 2, Tally(3));
    assert_eq!(q.get(&(1,)), Tally(3));
    q.delete_start(1).unwrap();
    assert!(q.is_empty());
}
