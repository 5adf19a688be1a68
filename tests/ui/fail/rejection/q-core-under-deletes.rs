ivm::ivm_query! {
    #[semiring(ivm::semiring::Count)]
    pub query Exposed {
        relation Logins(account: u64, device: u64);
        relation Flagged(device: u64);
        Q(account) = Logins(account, device) * Flagged(device);
    }
}

fn main() {
    // The struct still exists, so this call adds no error of its own.
    let mut q = Exposed::new();
    q.insert_flagged(1);
}
