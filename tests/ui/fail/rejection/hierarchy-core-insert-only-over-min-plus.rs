// An ∃-hierarchy-core (two summed-out variables that overlap) is hard under
// inserts over MinPlus, though it is free-connex.
ivm::ivm_query! {
    #[semiring(ivm::semiring::MinPlus)]
    #[updates(insert_only)]
    pub query Hier {
        relation R1(x1: u32, x2: u32);
        relation R2(x1: u32);
        relation R3(x2: u32);
        Q() = R1(x1, x2) * R2(x1) * R3(x2);
    }
}

fn main() {}
