//! One q-hierarchical query over every catalogue semiring.

macro_rules! over {
    ($name:ident, $($k:tt)*) => {
        ivm::ivm_query! {
            #[semiring($($k)*)]
            pub query $name {
                relation R(k: u32, x: u32);
                relation S(k: u32, y: u32);
                Q(k) = R(k, x) * S(k, y);
            }
        }
    };
}

over!(OverBool, ivm::semiring::Bool);
over!(OverCount, ivm::semiring::Count);
over!(OverInt, ivm::semiring::Int);
over!(OverReal, ivm::semiring::Real);
over!(OverMinPlus, ivm::semiring::MinPlus);
over!(OverMaxPlus, ivm::semiring::MaxPlus);
over!(OverMaxMin, ivm::semiring::MaxMin);
over!(OverMinMax, ivm::semiring::MinMax);
over!(OverMaxMax, ivm::semiring::MaxMax);
over!(OverAccess, ivm::semiring::AccessControl);
over!(OverCovariance, ivm::semiring::Covariance<2>);

fn main() {
    let mut q = OverMinPlus::new();
    q.update_r(1, 1, ivm::semiring::MinPlus(5));
    q.update_s(1, 2, ivm::semiring::MinPlus(2));
    assert_eq!(q.get(&(1,)), ivm::semiring::MinPlus(7));
    let mut c = OverCovariance::new();
    c.update_r(1, 1, ivm::semiring::Covariance::lift([1.0, 2.0]));
    c.insert_s(1, 1);
    assert_eq!(c.len(), 1);
}
