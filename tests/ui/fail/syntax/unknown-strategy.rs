ivm::ivm_query! {
    #[strategy(view_three)]
    query Q {
        relation R(a: u32);
        Q(a) = R(a);
    }
}

fn main() {}
