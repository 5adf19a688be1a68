//! Column values: the harness and the naive evaluator work in `u64`, and
//! [`Column`] maps those to each column type a generated query uses and
//! back.
//!
//! The maps are not the identity, so that a wrong column or a lost
//! conversion shows: an `i64` column holds `v − 2` (so small values
//! include negatives), a `String` column holds `"s{v}"` (a heap value that
//! must be cloned, never copied).

/// A column type of the generated queries.
pub trait Column: Sized {
    /// The column's name in Rust, as the query declares it.
    const TYPE: &'static str;

    /// The column value standing for `v`.
    fn from_value(v: u64) -> Self;

    /// The `v` this column value stands for.
    fn value(&self) -> u64;

    /// The value standing for `v` as a Rust expression, for reproductions.
    fn rust(v: u64) -> String;
}

/// The unsigned columns hold `v` itself.
macro_rules! unsigned {
    ($($ty:ident)*) => {$(
        impl Column for $ty {
            const TYPE: &'static str = stringify!($ty);

            fn from_value(v: u64) -> $ty {
                $ty::try_from(v).expect("a small value")
            }

            fn value(&self) -> u64 {
                u64::from(*self)
            }

            fn rust(v: u64) -> String {
                v.to_string()
            }
        }
    )*};
}

unsigned!(u32 u8 u64);

impl Column for i32 {
    const TYPE: &'static str = "i32";

    fn from_value(v: u64) -> i32 {
        i32::try_from(v).expect("a small value") - 2
    }

    fn value(&self) -> u64 {
        u64::try_from(*self + 2).expect("a value from `from_value`")
    }

    fn rust(v: u64) -> String {
        i32::from_value(v).to_string()
    }
}

impl Column for i64 {
    const TYPE: &'static str = "i64";

    fn from_value(v: u64) -> i64 {
        i64::try_from(v).expect("a small value") - 2
    }

    fn value(&self) -> u64 {
        u64::try_from(*self + 2).expect("a value from `from_value`")
    }

    fn rust(v: u64) -> String {
        i64::from_value(v).to_string()
    }
}

impl Column for String {
    const TYPE: &'static str = "String";

    fn from_value(v: u64) -> String {
        format!("s{v}")
    }

    fn value(&self) -> u64 {
        self.strip_prefix('s')
            .and_then(|v| v.parse().ok())
            .expect("a value from `from_value`")
    }

    fn rust(v: u64) -> String {
        format!("{:?}.to_string()", String::from_value(v))
    }
}

/// The Rust expression of value `v` in a column of type `ty` (one of the
/// [`Column::TYPE`]s).
pub fn rust(ty: &str, v: u64) -> String {
    match ty {
        "u32" => u32::rust(v),
        "u8" => u8::rust(v),
        "u64" => u64::rust(v),
        "i64" => i64::rust(v),
        "i32" => i32::rust(v),
        "String" => String::rust(v),
        other => panic!("no column type `{other}` in the fuzzer"),
    }
}

/// The value `v` of a column of type `ty` as a literal, as a constant in an
/// atom or a condition writes it (`3`, `-1`, `"s3"`).
pub fn literal(ty: &str, v: u64) -> String {
    match ty {
        "String" => format!("{:?}", String::from_value(v)),
        _ => rust(ty, v),
    }
}

/// The column types the generator draws from.
pub const TYPES: [&str; 4] = [u32::TYPE, u8::TYPE, i64::TYPE, String::TYPE];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_round_trip() {
        for v in [0, 1, 2, 7, 99] {
            assert_eq!(u32::from_value(v).value(), v);
            assert_eq!(u8::from_value(v).value(), v);
            assert_eq!(i64::from_value(v).value(), v);
            assert_eq!(String::from_value(v).value(), v);
        }
        assert_eq!(i64::from_value(0), -2);
        assert_eq!(rust("i64", 1), "-1");
        assert_eq!(rust("String", 3), "\"s3\".to_string()");
    }
}
