ivm::ivm_query! {
    query Q {
        relation R(a: u32, b: u64);
        relation S(b: u32);
        Q(a) = R(a, b) * S(b);
    }
}

fn main() {}
