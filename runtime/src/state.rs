//! serde for generated structs and change enums (the `serde` feature), by
//! `macro_rules!` that generated code calls with the names of its fields:
//! `impl_state!(Query { field, .. })` and `impl_change_state!(QueryChange
//! { Variant = 0 { field, .. }, .. })`.
//!
//! Why macros and not `#[derive]`: generated code cannot test a feature of
//! `ivm`, so `ivm` decides, and a macro of `ivm` that expands to nothing
//! without the feature is the only way. A derive would have to wrap the
//! whole struct in such a macro, where no formatter reaches it; these keep
//! the struct as it is, and take one line.
//!
//! A struct is a tuple of its fields in declaration order (postcard writes
//! no names); a change is an enum whose variants are tuples of their
//! fields.

/// Reads the listed fields, in order, from a serde `SeqAccess`, each into
/// a local of its name; too few elements is serde's `invalid_length`
/// error, from the visitor `$visitor`'s expectation.
#[cfg(feature = "serde")]
#[doc(hidden)]
#[macro_export]
macro_rules! __read_fields {
    ($visitor:ident, $seq:ident, $($field:ident),*) => {
        let mut read = 0;
        $(
            let $field = match $seq.next_element()? {
                ::core::option::Option::Some(value) => value,
                ::core::option::Option::None => {
                    return ::core::result::Result::Err(
                        ::ivm::__private::serde::de::Error::invalid_length(read, &$visitor),
                    );
                }
            };
            read += 1;
        )*
    };
}

/// Implements serde's `Serialize` and `Deserialize` for a generated
/// struct, as the tuple of the listed fields (in declaration order); the
/// fields after `fresh` are not written, and restore as their default
/// (what `changes()` tracks), after which the function in `then(..)`, if
/// any, rebuilds what they hold from the rest. Nothing without the
/// `serde` feature.
#[cfg(feature = "serde")]
#[doc(hidden)]
#[macro_export]
macro_rules! __impl_state {
    ($query:ident { $($field:ident),* $(,)? }) => {
        $crate::__impl_state!($query { $($field),* } fresh {});
    };
    ($query:ident { $($field:ident),* $(,)? } fresh { $($fresh:ident),* $(,)? } $(then($hook:path))?) => {
        impl ::ivm::__private::serde::Serialize for $query {
            fn serialize<S: ::ivm::__private::serde::Serializer>(
                &self,
                serializer: S,
            ) -> ::core::result::Result<S::Ok, S::Error> {
                use ::ivm::__private::serde::ser::SerializeTuple as _;
                let mut out = serializer.serialize_tuple([$(::core::stringify!($field)),*].len())?;
                $( out.serialize_element(&self.$field)?; )*
                out.end()
            }
        }

        impl<'de> ::ivm::__private::serde::Deserialize<'de> for $query {
            fn deserialize<D: ::ivm::__private::serde::Deserializer<'de>>(
                deserializer: D,
            ) -> ::core::result::Result<Self, D::Error> {
                struct Fields;
                impl<'de> ::ivm::__private::serde::de::Visitor<'de> for Fields {
                    type Value = $query;
                    fn expecting(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                        f.write_str(::core::concat!("the state of `", ::core::stringify!($query), "`"))
                    }
                    #[allow(unused_mut, unused_variables, unused_assignments)]
                    fn visit_seq<A: ::ivm::__private::serde::de::SeqAccess<'de>>(
                        self,
                        mut seq: A,
                    ) -> ::core::result::Result<$query, A::Error> {
                        $crate::__read_fields!(self, seq, $($field),*);
                        let mut value = $query {
                            $($field,)*
                            $($fresh: ::core::default::Default::default(),)*
                        };
                        $($hook(&mut value);)?
                        ::core::result::Result::Ok(value)
                    }
                }
                deserializer.deserialize_tuple([$(::core::stringify!($field)),*].len(), Fields)
            }
        }
    };
}

/// Without the `serde` feature: nothing.
#[cfg(not(feature = "serde"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __impl_state {
    ($($tokens:tt)*) => {};
}

/// Implements serde's `Serialize` and `Deserialize` for a generated change
/// enum, each variant (with its index) a tuple of the listed fields.
/// Nothing without the `serde` feature.
#[cfg(feature = "serde")]
#[doc(hidden)]
#[macro_export]
macro_rules! __impl_change_state {
    ($change:ident { $($variant:ident = $index:literal { $($field:ident),* $(,)? }),* $(,)? }) => {
        impl ::ivm::__private::serde::Serialize for $change {
            fn serialize<S: ::ivm::__private::serde::Serializer>(
                &self,
                serializer: S,
            ) -> ::core::result::Result<S::Ok, S::Error> {
                use ::ivm::__private::serde::ser::SerializeTupleVariant as _;
                match self {
                    $(
                        $change::$variant { $($field),* } => {
                            let mut out = serializer.serialize_tuple_variant(
                                ::core::stringify!($change),
                                $index,
                                ::core::stringify!($variant),
                                [$(::core::stringify!($field)),*].len(),
                            )?;
                            $( out.serialize_field($field)?; )*
                            out.end()
                        }
                    )*
                }
            }
        }

        impl<'de> ::ivm::__private::serde::Deserialize<'de> for $change {
            fn deserialize<D: ::ivm::__private::serde::Deserializer<'de>>(
                deserializer: D,
            ) -> ::core::result::Result<Self, D::Error> {
                const VARIANTS: &[&str] = &[$(::core::stringify!($variant)),*];
                struct Which;
                impl<'de> ::ivm::__private::serde::de::Visitor<'de> for Which {
                    type Value = $change;
                    fn expecting(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                        f.write_str(::core::concat!("a change of `", ::core::stringify!($change), "`"))
                    }
                    fn visit_enum<A: ::ivm::__private::serde::de::EnumAccess<'de>>(
                        self,
                        data: A,
                    ) -> ::core::result::Result<$change, A::Error> {
                        let (index, variant) = data.variant_seed(::ivm::__private::Variant(VARIANTS))?;
                        match index {
                            $(
                                $index => {
                                    struct Fields;
                                    impl<'de> ::ivm::__private::serde::de::Visitor<'de> for Fields {
                                        type Value = $change;
                                        fn expecting(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                                            f.write_str(::core::concat!("the fields of `", ::core::stringify!($variant), "`"))
                                        }
                                        #[allow(unused_mut, unused_variables, unused_assignments)]
                                        fn visit_seq<S: ::ivm::__private::serde::de::SeqAccess<'de>>(
                                            self,
                                            mut seq: S,
                                        ) -> ::core::result::Result<$change, S::Error> {
                                            $crate::__read_fields!(self, seq, $($field),*);
                                            ::core::result::Result::Ok($change::$variant { $($field),* })
                                        }
                                    }
                                    ::ivm::__private::serde::de::VariantAccess::tuple_variant(
                                        variant,
                                        [$(::core::stringify!($field)),*].len(),
                                        Fields,
                                    )
                                }
                            )*
                            _ => ::core::unreachable!("`Variant` yields only the indexes of `VARIANTS`"),
                        }
                    }
                }
                deserializer.deserialize_enum(::core::stringify!($change), VARIANTS, Which)
            }
        }
    };
}

/// Without the `serde` feature: nothing.
#[cfg(not(feature = "serde"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __impl_change_state {
    ($($tokens:tt)*) => {};
}

/// Reads which variant of a change enum follows, by index (compact
/// formats) or by name (self-describing ones), as an index into the names.
#[cfg(feature = "serde")]
#[doc(hidden)]
pub struct Variant(pub &'static [&'static str]);

#[cfg(feature = "serde")]
impl<'de> serde::de::DeserializeSeed<'de> for Variant {
    type Value = u32;

    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<u32, D::Error> {
        deserializer.deserialize_identifier(self)
    }
}

#[cfg(feature = "serde")]
impl<'de> serde::de::Visitor<'de> for Variant {
    type Value = u32;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "one of the variants {:?}", self.0)
    }

    fn visit_u64<E: serde::de::Error>(self, index: u64) -> Result<u32, E> {
        match u32::try_from(index) {
            Ok(i) if (i as usize) < self.0.len() => Ok(i),
            _ => Err(E::invalid_value(
                serde::de::Unexpected::Unsigned(index),
                &self,
            )),
        }
    }

    fn visit_str<E: serde::de::Error>(self, name: &str) -> Result<u32, E> {
        match self.0.iter().position(|&v| v == name) {
            Some(i) => Ok(i as u32),
            None => Err(E::unknown_variant(name, self.0)),
        }
    }
}

#[cfg(all(test, feature = "serde"))]
mod tests {
    use crate::semiring::Int;

    ivm::ivm_query! {
        query Orders {
            relation Lines(order: u64, item: u32);
            relation Items(order: u64, item: u32);
            Q(order) = Lines(order, item) * Items(order, item);
        }
    }

    #[test]
    fn changes_round_trip_in_a_compact_and_a_self_describing_format() {
        let changes = vec![
            OrdersChange::Lines {
                order: 7,
                item: 3,
                delta: Int(2),
            },
            OrdersChange::Items {
                order: 7,
                item: 3,
                delta: Int(-1),
            },
        ];
        let same = |a: &[OrdersChange], b: &[OrdersChange]| {
            format!("{:?}", a.iter().map(describe).collect::<Vec<_>>())
                == format!("{:?}", b.iter().map(describe).collect::<Vec<_>>())
        };
        let bytes = postcard::to_stdvec(&changes).unwrap();
        let back: Vec<OrdersChange> = postcard::from_bytes(&bytes).unwrap();
        assert!(same(&changes, &back));
        let json = serde_json::to_string(&changes).unwrap();
        assert_eq!(json, r#"[{"Lines":[7,3,2]},{"Items":[7,3,-1]}]"#);
        let back: Vec<OrdersChange> = serde_json::from_str(&json).unwrap();
        assert!(same(&changes, &back));
        let err = serde_json::from_str::<OrdersChange>(r#"{"Prices":[1]}"#)
            .err()
            .unwrap();
        assert!(
            err.to_string().contains("unknown variant `Prices`"),
            "{err}"
        );
        let err = serde_json::from_str::<OrdersChange>(r#"{"Lines":[7]}"#)
            .err()
            .unwrap();
        assert!(err.to_string().contains("invalid length 1"), "{err}");
    }

    fn describe(c: &OrdersChange) -> (u64, u32, i64) {
        match *c {
            OrdersChange::Lines { order, item, delta } => (order, item, delta.0),
            OrdersChange::Items { order, item, delta } => (order, item, -delta.0),
        }
    }
}
