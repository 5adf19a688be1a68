// An insert-only query's struct has no `delete` or `retract`: a program that
// deletes does not compile.
ivm::ivm_query! {
    #[semiring(ivm::semiring::Bool)]
    #[updates(insert_only)]
    pub query Exposed {
        relation Logins(account: u64, device: u64);
        relation Flagged(device: u64);
        Q(account) = Logins(account, device) * Flagged(device);
    }
}

fn main() {
    let mut q = Exposed::new();
    q.insert_flagged(1);
    q.delete_flagged(1).unwrap();
}
