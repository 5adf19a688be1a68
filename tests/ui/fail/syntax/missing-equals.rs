ivm::ivm_query! {
    query Q {
        relation R(a: u32);
        Q(a) R(a);
    }
}

fn main() {}
