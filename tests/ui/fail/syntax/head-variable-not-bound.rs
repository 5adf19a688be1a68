ivm::ivm_query! {
    query Q {
        relation R(a: u32);
        Q(a, z) = R(a);
    }
}

fn main() {}
