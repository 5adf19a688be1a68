ivm::ivm_query! {
    query Loops {
        relation E(src: u32, dst: u32);
        Q() = E(x, x);
    }
}

fn main() {}
