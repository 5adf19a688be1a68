// A constant must be able to equal the values of its column.
ivm::ivm_query! {
    query Tagged {
        relation E(src: u32, tag: String);
        Q(x) = E(x, 7);
    }
}

fn main() {}
