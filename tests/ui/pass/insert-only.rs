// The insert-only strategies compile from a user crate: CROWN over Bool,
// two layers over MinPlus (acyclic and cyclic), clusters over MaxMax.
use ivm::semiring::{Bool, MaxMax, MinPlus};

ivm::ivm_query! {
    #[semiring(ivm::semiring::Bool)]
    #[updates(insert_only)]
    pub query Exposed {
        relation Logins(account: u64, device: u64);
        relation Flagged(device: u64);
        Q(account) = Logins(account, device) * Flagged(device);
    }
}

ivm::ivm_query! {
    #[semiring(ivm::semiring::MinPlus)]
    #[updates(insert_only)]
    query Connection {
        relation Feeder(origin: u32, feeder: u32);
        relation Route(origin: u32, hub: u32);
        relation Onward(hub: u32, onward: u32);
        Q(origin, hub) = Feeder(origin, feeder) * Route(origin, hub) * Onward(hub, onward);
    }
}

ivm::ivm_query! {
    #[semiring(ivm::semiring::MinPlus)]
    #[updates(insert_only)]
    query Triangles {
        relation E(src: String, dst: String);
        Q(a, b, c) = E(a, b) * E(b, c) * E(c, a);
    }
}

ivm::ivm_query! {
    #[semiring(ivm::semiring::MaxMax)]
    #[updates(insert_only)]
    query Latest {
        relation R1(x1: u32, x2: u32);
        relation R2(x1: u32);
        relation R3(x2: u32);
        Q() = R1(x1, x2) * R2(x1) * R3(x2);
    }
}

fn main() {
    let mut e = Exposed::new();
    e.insert_logins(7, 1);
    e.insert_flagged(1);
    assert_eq!(e.get(&(7,)), Bool(true));

    let mut c = Connection::new();
    c.update_feeder(1, 10, MinPlus(5));
    c.update_route(1, 2, MinPlus(100));
    c.update_onward(2, 20, MinPlus(7));
    assert_eq!(c.iter().collect::<Vec<_>>(), vec![((1, 2), MinPlus(112))]);

    let mut t = Triangles::new();
    for (a, b) in [("x", "y"), ("y", "z"), ("z", "x")] {
        t.update_e(a.to_owned(), b.to_owned(), MinPlus(1));
    }
    assert_eq!(t.len(), 3);

    let mut l = Latest::new();
    l.update_r1(1, 2, MaxMax(3));
    l.update_r2(1, MaxMax(9));
    assert!(l.is_empty());
    l.update_r3(2, MaxMax(4));
    assert_eq!(l.get(&()), MaxMax(9));
}
