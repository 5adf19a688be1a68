ivm::ivm_query! {
    pub query MatMul {
        relation A(i: u32, j: u32);
        relation B(j: u32, k: u32);
        Q(i, k) = A(i, j) * B(j, k);
    }
}

fn main() {}
