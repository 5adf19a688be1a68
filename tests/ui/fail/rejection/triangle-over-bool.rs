ivm::ivm_query! {
    #[semiring(ivm::semiring::Bool)]
    pub query AnyTriangle {
        relation E(src: u32, dst: u32);
        Q() = E(a, b) * E(b, c) * E(c, a);
    }
}

fn main() {}
