// A theta condition (over variables of two atoms) that the strategy the
// verdict picks cannot apply: the error points at the factor.
ivm::ivm_query! {
    #[semiring(ivm::semiring::Bool)]
    #[updates(insert_only)]
    pub query Ordered {
        relation R(a: u32, b: u32);
        relation S(b: u32, c: u32);
        Q(a, b, c) = R(a, b) * S(b, c) * { a < c };
    }
}

fn main() {}
