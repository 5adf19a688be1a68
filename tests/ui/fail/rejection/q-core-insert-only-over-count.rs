// Under inserts only, a q-core is still hard over a strictly monotone
// semiring such as Count; the message lists the semirings that make it
// tractable.
ivm::ivm_query! {
    #[semiring(ivm::semiring::Count)]
    #[updates(insert_only)]
    pub query Exposed {
        relation Logins(account: u64, device: u64);
        relation Flagged(device: u64);
        Q(account) = Logins(account, device) * Flagged(device);
    }
}

fn main() {}
