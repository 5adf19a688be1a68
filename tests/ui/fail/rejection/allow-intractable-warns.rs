// `#[allow(intractable)]` compiles a rejected query, with a warning that
// says why it is slow; denying warnings shows it as an error here.
#![deny(deprecated)]

ivm::ivm_query! {
    #[allow(intractable)]
    pub query MatMul {
        relation A(i: u32, j: u32);
        relation B(j: u32, k: u32);
        Q(i, k) = A(i, j) * B(j, k);
    }
}

fn main() {}
