//! Every kind of malformed input gets a precise error on the narrowest
//! span, never a panic. Each case shows its rendered diagnostic (message,
//! file:line:col and the underlined source) in a snapshot.

use ivm_compiler::{diagnostic, pipeline};

/// Explains `text`, which must fail, and renders the errors.
fn fail(text: &str) -> String {
    match pipeline::report_str(text) {
        Ok(_) => panic!("expected an error for:\n{text}"),
        Err(e) => diagnostic::render(&e, "q.ivm", text),
    }
}

macro_rules! error_case {
    ($name:ident, $text:expr, $needle:expr) => {
        #[test]
        fn $name() {
            let shown = fail($text);
            assert!(
                shown.contains($needle),
                "missing {:?} in:\n{shown}",
                $needle
            );
            insta::assert_snapshot!(stringify!($name), shown);
        }
    };
}

error_case!(
    unknown_relation,
    "query Q {\n    relation R(a: u32, b: u32);\n    Q(a) = R(a, b) * Rr(b);\n}\n",
    "q.ivm:3:22"
);
error_case!(
    arity_mismatch,
    "query Q {\n    relation R(a: u32, b: u32);\n    Q(a) = R(a, b, c);\n}\n",
    "relation `R` has 2 columns (a: u32, b: u32) but this atom gives 3 arguments"
);
error_case!(
    variable_with_two_types,
    "query Q {\n    relation R(a: u32, b: u64);\n    relation S(b: u32);\n    Q(a) = R(a, b) * S(b);\n}\n",
    "variable `b` binds columns of different types: `R.b` is `u64` but `S.b` is `u32`"
);
error_case!(
    head_variable_not_bound,
    "query Q {\n    relation R(a: u32);\n    Q(a, z) = R(a);\n}\n",
    "head variable `z` is not bound by any atom"
);
error_case!(
    head_variable_twice,
    "query Q {\n    relation R(a: u32);\n    Q(a, a) = R(a);\n}\n",
    "variable `a` is listed twice in the head"
);
error_case!(
    duplicate_relation,
    "query Q {\n    relation R(a: u32);\n    relation R(b: u32);\n    Q(a) = R(a);\n}\n",
    "relation `R` is declared twice"
);
error_case!(
    duplicate_column,
    "query Q {\n    relation R(a: u32, a: u64);\n    Q(x) = R(x, y);\n}\n",
    "relation `R` has two columns named `a`"
);
error_case!(
    constant_of_the_wrong_type,
    "query Q {\n    relation E(src: u32, tag: String);\n    Q(x) = E(x, 7);\n}\n",
    "constant `7` cannot match column `E.tag: String`: an integer constant matches an integer column"
);
error_case!(
    negative_constant_in_an_unsigned_column,
    "query Q {\n    relation E(src: u32, dst: u32);\n    Q(x) = E(x, -1);\n}\n",
    "constant `-1` cannot match column `E.dst: u32`: the column is unsigned"
);
error_case!(
    unknown_variable_in_a_factor,
    "query Q {\n    relation E(src: u32, dst: u32);\n    Q(x) = E(x, y) * { y < z };\n}\n",
    "unknown variable `z` in a factor: the query's variables are `x`, `y`"
);
error_case!(
    computed_column_over_two_atoms,
    "query Q {\n    relation R(a: u32, b: u32);\n    relation S(b: u32, c: u32);\n    Q(y) = R(a, b) * S(b, c) * { let y: u32 = a + c };\n}\n",
    "the value of `y` reads `a`, `c`, which no one atom binds together"
);
error_case!(
    computed_column_named_like_a_column,
    "query Q {\n    relation R(a: u32, b: u32);\n    Q(b) = R(a, b) * { let b: u32 = a % 2 };\n}\n",
    "variable `b` is already bound by `R.b`: a `let` defines a new variable"
);
error_case!(
    computed_column_without_a_type,
    "query Q {\n    relation R(a: u32, b: u32);\n    Q(y) = R(a, b) * { let y = a % 2 };\n}\n",
    "expected `:` and the type of `y`"
);
error_case!(
    computed_column_without_variables,
    "query Q {\n    relation R(a: u32, b: u32);\n    Q(a) = R(a, b) * { let y: u32 = 7 };\n}\n",
    "the value of `y` reads no variable of the query"
);
error_case!(
    computed_column_read_before_it_is_defined,
    "query Q {\n    relation R(a: u32, b: u32);\n    Q(z) = R(a, b) * { let z: u32 = y + 1 } * { let y: u32 = a % 2 };\n}\n",
    "unknown variable `y` in a factor"
);
error_case!(
    factor_without_variables,
    "query Q {\n    relation E(src: u32, dst: u32);\n    Q(x) = E(x, y) * { 1 < 2 };\n}\n",
    "this factor reads no variable of the query"
);
error_case!(
    unknown_attribute,
    "#[semirng(ivm::semiring::Int)]\nquery Q {\n    relation R(a: u32);\n    Q(a) = R(a);\n}\n",
    "unknown attribute `semirng`"
);
error_case!(
    unknown_strategy,
    "#[strategy(view_three)]\nquery Q {\n    relation R(a: u32);\n    Q(a) = R(a);\n}\n",
    "unknown strategy `view_three`"
);
error_case!(
    strategy_parameter_unknown,
    "#[strategy(ivm_eps(epsilon = 0.3))]\nquery Q {\n    relation R(a: u32);\n    Q(a) = R(a);\n}\n",
    "unknown parameter `epsilon` of `ivm_eps`"
);
error_case!(
    strategy_parameter_out_of_range,
    "#[strategy(ivm_eps(eps = 1.5))]\nquery Q {\n    relation R(a: u32);\n    Q(a) = R(a);\n}\n",
    "`eps` must be a number between 0 and 1"
);
error_case!(
    strategy_without_parameters_given_some,
    "#[strategy(first_order(eps = 0.5))]\nquery Q {\n    relation R(a: u32);\n    Q(a) = R(a);\n}\n",
    "strategy `first_order` takes no parameters"
);
error_case!(
    unknown_update_model,
    "#[updates(append_only)]\nquery Q {\n    relation R(a: u32);\n    Q(a) = R(a);\n}\n",
    "unknown update model `append_only`"
);
error_case!(
    unknown_delete_mode,
    "#[deletes(unchecked)]\nquery Q {\n    relation R(a: u32);\n    Q(a) = R(a);\n}\n",
    "unknown delete mode `unchecked`: use `checked` or `trusted`"
);
error_case!(
    trusted_deletes_without_deletes,
    "#[updates(insert_only)]\n#[deletes(trusted)]\nquery Q {\n    relation R(a: u32);\n    Q(a) = R(a);\n}\n",
    "`#[deletes(trusted)]` under `#[updates(insert_only)]`"
);
error_case!(
    unknown_semiring,
    "#[semiring(my::Prov)]\nquery Q {\n    relation R(a: u32);\n    Q(a) = R(a);\n}\n",
    "a semiring of your own must state its class, e.g. `#[semiring(my::Prov, positive)]`"
);
error_case!(
    unknown_semiring_class,
    "#[semiring(my::Prov, postive)]\nquery Q {\n    relation R(a: u32);\n    Q(a) = R(a);\n}\n",
    "unknown semiring class `postive`"
);
error_case!(
    duplicate_attribute,
    "#[updates(insert_only)]\n#[updates(insert_delete)]\nquery Q {\n    relation R(a: u32);\n    Q(a) = R(a);\n}\n",
    "duplicate `#[updates(...)]` attribute"
);
error_case!(
    unknown_allow,
    "#[allow(dead_code)]\nquery Q {\n    relation R(a: u32);\n    Q(a) = R(a);\n}\n",
    "unknown `allow(dead_code)`"
);
error_case!(
    attribute_on_relation,
    "query Q {\n    #[semiring(ivm::semiring::Int)]\n    relation R(a: u32);\n    Q(a) = R(a);\n}\n",
    "only doc comments are allowed on a relation"
);
error_case!(
    missing_rule,
    "query Q {\n    relation R(a: u32);\n}\n",
    "query `Q` has no rule"
);
error_case!(
    two_rules,
    "query Q {\n    relation R(a: u32);\n    Q(a) = R(a);\n    P(a) = R(a);\n}\n",
    "a query has exactly one rule"
);
error_case!(
    relation_after_rule,
    "query Q {\n    relation R(a: u32);\n    Q(a) = R(a);\n    relation S(a: u32);\n}\n",
    "relation declared after the rule"
);
error_case!(
    relation_without_columns,
    "query Q {\n    relation R();\n    Q() = R();\n}\n",
    "relation `R` has no columns"
);
error_case!(
    missing_equals,
    "query Q {\n    relation R(a: u32);\n    Q(a) R(a);\n}\n",
    "expected `=` after the rule's head"
);
error_case!(
    missing_star,
    "query Q {\n    relation R(a: u32);\n    relation S(a: u32);\n    Q(a) = R(a) S(a);\n}\n",
    "expected `*` and another factor (an atom, `{ expr }` or `exists(..)`), or `;` to end the rule"
);
error_case!(
    missing_column_type,
    "query Q {\n    relation R(a, b: u32);\n    Q(a) = R(a, b);\n}\n",
    "expected `:` and a type after column `a`"
);
error_case!(not_a_query_item, "struct Q {}\n", "expected `query`");
error_case!(
    unclosed_brace,
    "query Q {\n    relation R(a: u32);\n    Q(a) = R(a);\n",
    "cannot read the query text"
);
error_case!(empty_input, "// nothing here\n", "no query here");
error_case!(
    reserved_name,
    "query Q {\n    relation R(__tuple: u32);\n    Q(__x) = R(__x);\n}\n",
    "variable `__x` starts with `__`"
);
error_case!(
    duplicate_query_name,
    "query Q {\n    relation R(a: u32);\n    Q(a) = R(a);\n}\nquery Q {\n    relation R(a: u32);\n    Q(a) = R(a);\n}\n",
    "a query named `Q` is already defined"
);

#[test]
fn all_errors_of_a_file_are_reported_together() {
    let text = "query A {\n    relation R(a: u32);\n    A(a) = R(a) * X(a);\n}\nquery B {\n    relation S(a: u32, b: u8);\n    B(z) = S(a, b);\n}\n";
    let shown = fail(text);
    assert!(shown.contains("unknown relation `X`"), "{shown}");
    assert!(shown.contains("head variable `z`"), "{shown}");
    assert_eq!(shown.matches("error:").count(), 2, "{shown}");
    insta::assert_snapshot!(shown);
}

#[test]
fn spans_point_at_the_offending_token() {
    // `Rr` starts at line 3, column 22 (1-based), and the error is on it only.
    let text = "query Q {\n    relation R(a: u32, b: u32);\n    Q(a) = R(a, b) * Rr(b);\n}\n";
    let err = pipeline::report_str(text).unwrap_err();
    let span = err.span();
    assert_eq!((span.start().line, span.start().column), (3, 21));
    assert_eq!((span.end().line, span.end().column), (3, 23));
}

// Semijoins.
const SEMIJOIN_RELATIONS: &str = "    relation R(a: u32, b: u32);\n    relation S(b: u32, c: u32);\n    relation T(c: u32);\n    relation U(b: u64);\n";
error_case!(
    semijoin_compares_across,
    &format!(
        "query Q {{\n{SEMIJOIN_RELATIONS}    Q(a) = R(a, b) * exists(S(b, c) * {{ c > a }});\n}}\n"
    ),
    "`a` is bound outside `exists(..)` and by no atom inside it"
);
error_case!(
    negated_semijoin_without_anchor,
    &format!(
        "query Q {{\n{SEMIJOIN_RELATIONS}    Q(a) = R(a, x) * S(x, b) * not exists(S(a, b));\n}}\n"
    ),
    "which no one atom of the rule binds together"
);
error_case!(
    semijoin_variable_with_two_types,
    &format!("query Q {{\n{SEMIJOIN_RELATIONS}    Q(a) = R(a, b) * exists(U(b));\n}}\n"),
    "variable `b` is `u64` inside `exists(..)` but `u32` in the rule"
);
error_case!(
    nested_semijoin,
    &format!(
        "query Q {{\n{SEMIJOIN_RELATIONS}    Q(a) = R(a, b) * exists(S(b, c) * not exists(T(c)));\n}}\n"
    ),
    "`exists(..)` inside `exists(..)` is not supported yet"
);
error_case!(
    semijoin_unknown_relation,
    &format!("query Q {{\n{SEMIJOIN_RELATIONS}    Q(a) = R(a, b) * exists(X(b));\n}}\n"),
    "unknown relation `X` in query `Q`"
);
error_case!(
    semijoin_computed_column,
    &format!(
        "query Q {{\n{SEMIJOIN_RELATIONS}    Q(a) = R(a, b) * exists(S(b, c) * {{ let d: u32 = c }});\n}}\n"
    ),
    "a computed column (`let`) inside `exists(..)` is not supported yet"
);
error_case!(
    semijoin_without_atom,
    &format!("query Q {{\n{SEMIJOIN_RELATIONS}    Q(a) = R(a, b) * exists({{ b > 2 }});\n}}\n"),
    "`exists(..)` holds no atom"
);

#[test]
fn a_semijoin_body_that_is_rejected_is_the_error_at_its_atoms() {
    let text = "query Q {\n    relation R(a: u32, b: u32);\n    relation S(b: u32, x: u32);\n    relation T(b: u32, y: u32);\n    relation V(b: u32, x: u32, y: u32);\n    Q(a, b) = R(a, b) * exists(S(b, x) * T(b, y) * V(b, x, y));\n}\n";
    let err = ivm_compiler::driver::compile_str(text).unwrap_err();
    let shown = diagnostic::render(&err, "q.ivm", text);
    assert!(
        shown.contains(
            "`exists(S(b, x) * T(b, y) * V(b, x, y))` in query `Q` cannot be maintained efficiently"
        ),
        "{shown}"
    );
    insta::assert_snapshot!(shown);
}

#[test]
fn a_relation_named_exists_is_an_atom() {
    let text = "query Q {\n    relation exists(a: u32, b: u32);\n    Q(a) = exists(a, b);\n}\n";
    let reports = pipeline::report_str(text).unwrap();
    assert!(reports[0].query.semijoins.is_empty());
    assert_eq!(reports[0].query.rule_text(), "Q(a) = exists(a, b)");
}
error_case!(
    negated_semijoin_under_inserts_only,
    &format!(
        "#[semiring(ivm::semiring::Count)]\n#[updates(insert_only)]\nquery Q {{\n{SEMIJOIN_RELATIONS}    Q(a, b) = R(a, b) * not exists(S(b, _));\n}}\n"
    ),
    "`not exists(..)` under `#[updates(insert_only)]` over `Count`"
);
error_case!(
    some_of_a_plain_column,
    "query Q {\n    relation R(a: u32, b: u32);\n    Q(a) = R(a, Some(b));\n}\n",
    "`Some(b)` matches a column of type `Option<T>`, but `R.b` is `u32`"
);
error_case!(
    some_of_a_constant,
    "query Q {\n    relation R(a: u32, b: Option<u32>);\n    Q(a) = R(a, Some(3));\n}\n",
    "`Some(..)` in an atom binds one variable"
);
