ivm::ivm_query! {
    query Q {
        relation R(a: u32, b: u32);
        Q(a) = R(a, b) * Rr(b);
    }
}

fn main() {}
