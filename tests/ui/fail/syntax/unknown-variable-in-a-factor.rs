// A factor names a variable the query does not have.
ivm::ivm_query! {
    query Filtered {
        relation E(src: u32, dst: u32);
        Q(x) = E(x, y) * { y < z };
    }
}

fn main() {}
