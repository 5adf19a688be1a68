// The compiler knows a catalogue semiring by its path. A path that names
// another type under a catalogue name (a type of the user's own, or
// another catalogue type) would get strategies meant for the catalogue
// type: the generated code proves the type is the one its path names,
// and fails to compile at the type otherwise.
use ivm::{Deletable, Maintained, Positive, Semiring};

mod my {
    use super::*;

    include!("../../tally.rs");

    pub use Tally as MinPlus;
}

mod renamed {
    pub mod semiring {
        pub use ivm::semiring::Int as MinPlus;
    }
}

use my::MinPlus;

ivm::ivm_query! {
    #[semiring(MinPlus)]
    pub query Mine {
        relation Edge(a: u32, b: u32);
        Q(a) = Edge(a, b);
    }
}

ivm::ivm_query! {
    #[semiring(renamed::semiring::MinPlus)]
    pub query Renamed {
        relation Edge(a: u32, b: u32);
        Q(a) = Edge(a, b);
    }
}

fn main() {}
