//! The reading of a nullary result of a strategy with a fixed shape (the
//! triangle count, the range join) times the one-entry views of the
//! nullary factors beside it (`plan/nullary.rs`).

use proc_macro2::TokenStream;
use quote::quote;

use crate::ir::{Id, Program, SumView};

/// `iter`, `get`, `len` and `is_empty` of the one output tuple `()`,
/// whose payload is `core` (an expression over `self`) times each view of
/// `scalars`.
pub fn reading(p: &Program, core: TokenStream, scalars: &[Id<SumView>]) -> TokenStream {
    let k = &p.payload;
    let value = scalars.iter().fold(core, |acc, &m| {
        let field = &p.maps[m].name;
        quote! { ::ivm::Semiring::mul(&#acc, &self.#field.value(&())) }
    });
    let doc = if scalars.is_empty() {
        " The result's one payload (zero when there is none).".to_owned()
    } else {
        let names: Vec<String> = scalars
            .iter()
            .map(|&m| format!("`{}`", p.maps[m].name))
            .collect();
        format!(
            " The result's one payload (zero when there is none): the core result's times the nullary factors {}.",
            names.join(", ")
        )
    };
    quote! {
        #[doc = #doc]
        fn total(&self) -> #k {
            #value
        }

        /// The result: the single output tuple `()` with its payload, when
        /// it is non-zero.
        pub fn iter(&self) -> impl ::core::iter::Iterator<Item = ((), #k)> + '_ {
            let __total = self.total();
            (!::ivm::Semiring::is_zero(&__total)).then_some(((), __total)).into_iter()
        }

        /// The payload of the output tuple `()` (zero when the result is
        /// empty).
        pub fn get(&self, key: &()) -> #k {
            let () = key;
            self.total()
        }

        /// 1 when the payload is non-zero, else 0.
        pub fn len(&self) -> usize {
            usize::from(!self.is_empty())
        }

        /// Whether the payload is zero.
        pub fn is_empty(&self) -> bool {
            ::ivm::Semiring::is_zero(&self.total())
        }
    }
}
