//! The macro's path: query tokens (as `ivm_query!` receives them) parse to
//! the same query, with the same analysis, as the same text from a file.

use ivm_compiler::analysis::{self, Hypergraph};
use ivm_compiler::syntax;
use quote::quote;

#[test]
fn tokens_and_text_agree() {
    let tokens = quote! {
        /// Wedges per vertex.
        #[semiring(ivm::semiring::Count)]
        pub query Wedges {
            /// An edge.
            relation Edge(src: u32, dst: u32);
            Q(v) = Edge(v, a) * Edge(v, b);
        }
    };
    let text = tokens.to_string();
    let from_tokens = syntax::check(&syntax::parse_tokens(tokens).unwrap()).unwrap();
    let from_text = syntax::check(&syntax::parse_str(&text).unwrap()).unwrap();
    assert_eq!(from_tokens.len(), 1);
    let (a, b) = (&from_tokens[0], &from_text[0]);
    assert_eq!(a.rule_text(), "Q(v) = Edge(v, a) * Edge(v, b)");
    assert_eq!(a.rule_text(), b.rule_text());
    assert_eq!(a.docs, vec![" Wedges per vertex.".to_owned()]);
    assert_eq!(a.relations[0].docs, vec![" An edge.".to_owned()]);
    assert_eq!(a.semiring.name, "Count");
    let (ha, hb) = (Hypergraph::of(a), Hypergraph::of(b));
    assert_eq!(ha, hb);
    assert_eq!(analysis::analyse(&ha), analysis::analyse(&hb));
}

#[test]
fn token_errors_carry_spans() {
    let tokens = quote! {
        query Q { relation R(a: u32); Q(a) = R(a) * S(a); }
    };
    let err = syntax::check(&syntax::parse_tokens(tokens).unwrap()).unwrap_err();
    assert!(err.to_string().contains("unknown relation `S`"));
}
