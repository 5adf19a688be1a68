ivm::ivm_query! {
    #[semirng(ivm::semiring::Int)]
    query Q {
        relation R(a: u32);
        Q(a) = R(a);
    }
}

fn main() {}
