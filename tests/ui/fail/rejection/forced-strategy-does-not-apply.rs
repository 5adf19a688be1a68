ivm::ivm_query! {
    #[strategy(crown)]
    pub query Path {
        relation R(a: u32, b: u32);
        relation S(b: u32, c: u32);
        Q(a) = R(a, b) * S(b, c);
    }
}

fn main() {}
