ivm::ivm_query! {
    #[semiring(my::Prov)]
    query Q {
        relation R(a: u32);
        Q(a) = R(a);
    }
}

fn main() {}
