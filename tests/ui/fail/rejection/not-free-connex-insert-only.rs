// Not free-connex: hard under inserts even over Bool (Boolean matrix
// multiplication).
ivm::ivm_query! {
    #[semiring(ivm::semiring::Bool)]
    #[updates(insert_only)]
    pub query Reachable {
        relation R(a: u32, b: u32);
        relation S(b: u32, c: u32);
        Q(a, c) = R(a, b) * S(b, c);
    }
}

fn main() {}
