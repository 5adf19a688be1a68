//! A SQL view's row fields as Rust: each select item's value
//! ([`Typed`]) read off `__key` (the group key, by reference) and
//! `__payload` (the group's payload, by reference).

use proc_macro2::{Ident, TokenStream};
use quote::quote;

use crate::sql::row::{Pick, RowCond, RowValue, Term, Typed};
use crate::sql::types::Value;
use crate::sql::{Arith, SqlType, SqlView, ViewField, bare, widen};

/// The reader of one view's rows.
pub(super) struct Reader<'a> {
    view: &'a SqlView,
}

impl<'a> Reader<'a> {
    pub(super) fn new(view: &'a SqlView) -> Self {
        Reader { view }
    }

    /// A field's value, `None` where it is SQL's NULL.
    pub(super) fn field(&self, f: &ViewField) -> TokenStream {
        // An argument or a field's value: no parentheses of its own.
        bare(self.value(&f.value))
    }

    /// A reference to a field's value read off the group key `key` and
    /// payload `payload` (references both): a key column where it lies,
    /// anything else computed, so that two groups compare with no clone.
    pub(super) fn field_ref(&self, f: &ViewField, key: &Ident, payload: &Ident) -> TokenStream {
        if let RowValue::Key(k) = f.value.value {
            let item = crate::tuple::item(&quote! { #key }, k, self.view.key_types.len());
            return quote! { &#item };
        }
        let value = self.field(f);
        let text = value.to_string();
        let reads = |name: &str| {
            text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .any(|word| word == name)
        };
        let key = reads("__key").then(|| quote! { let __key = #key; });
        let payload = reads("__payload").then(|| quote! { let __payload = #payload; });
        quote! { &{ #key #payload #value } }
    }

    /// A field's type: an `Option` where it may be NULL.
    pub(super) fn field_type(f: &ViewField) -> TokenStream {
        let ty = f.value.ty.rust();
        if f.value.nullable {
            quote! { ::core::option::Option<#ty> }
        } else {
            ty
        }
    }

    /// The row count of the group: the payload's first component.
    pub(super) fn count(&self) -> TokenStream {
        let p = self.payload_at(0);
        quote! { #p.0 }
    }

    /// Component `i` of `__payload`: the whole of it, when not a tuple.
    fn payload_at(&self, i: usize) -> TokenStream {
        if self.view.components > 1 {
            let index = syn::Index::from(i);
            quote! { __payload.#index }
        } else {
            quote! { __payload }
        }
    }

    /// A value, of type `t.ty`: an `Option` of it where it can be NULL.
    fn value(&self, t: &Typed) -> TokenStream {
        if let Some(lifted) = self.lifted(t) {
            return lifted;
        }
        match &t.value {
            RowValue::Bound(i) => {
                let n = quote::format_ident!("__n{i}");
                quote! { #n }
            }
            RowValue::Key(k) => {
                let key = crate::tuple::item(&quote! { __key }, *k, self.view.key_types.len());
                if t.ty == SqlType::Text {
                    quote! { ::core::clone::Clone::clone(&#key) }
                } else {
                    key
                }
            }
            // A row owns its text: a string constant is a `String` there.
            RowValue::Const(Value::Text(s)) => quote! { ::std::string::String::from(#s) },
            RowValue::Const(v) => v.rust(v.ty()),
            RowValue::Count => self.count(),
            RowValue::Sum { terms, present } => {
                let sum = self.sum(t.ty, terms);
                match present {
                    Some(c) => self.unless_zero(*c, bare(sum)),
                    None => sum,
                }
            }
            RowValue::Avg { sum, terms, count } => {
                let avg = self.avg(*sum, terms, *count);
                if t.nullable {
                    self.unless_zero(*count, bare(avg))
                } else {
                    avg
                }
            }
            RowValue::Best(c) => {
                let best = self.best(*c, t.ty);
                if t.nullable {
                    let p = self.payload_at(*c);
                    quote! {
                        if ::ivm::Semiring::is_zero(&#p) { ::core::option::Option::None } else { ::core::option::Option::Some(#best) }
                    }
                } else {
                    best
                }
            }
            RowValue::Neg(e) => {
                let v = self.value(e);
                if e.ty.is_integer() {
                    let v = widen(v, e.ty, SqlType::BigInt);
                    quote! { ::core::option::Option::expect(i64::checked_neg(#v), "ivm: BIGINT overflow") }
                } else {
                    quote! { (-#v) }
                }
            }
            RowValue::Arith(op, a, b) => self.arith(*op, a, b, t.ty),
            RowValue::Quotient { common, operands }
                if operands.0.nullable || operands.1.nullable =>
            {
                let (a, b) = &**operands;
                let (av, bv) = (bare(self.value(a)), bare(self.value(b)));
                let bound = |t: &Typed, i: usize| Typed {
                    value: RowValue::Bound(i),
                    ty: t.ty,
                    nullable: false,
                };
                let plain = Typed {
                    value: RowValue::Quotient {
                        common: *common,
                        operands: Box::new((bound(a, 0), bound(b, 1))),
                    },
                    ..t.clone()
                };
                let divided = bare(self.value(&plain));
                let some = |x: TokenStream, nullable: bool| {
                    if nullable {
                        x
                    } else {
                        quote! { ::core::option::Option::Some(#x) }
                    }
                };
                let (av, bv) = (some(av, a.nullable), some(bv, b.nullable));
                quote! {
                    match (#av, #bv) {
                        (::core::option::Option::Some(__n0), ::core::option::Option::Some(__n1)) => #divided,
                        _ => ::core::option::Option::None,
                    }
                }
            }
            RowValue::Pick(pick, args) => self.pick(*pick, args, t.ty),
            RowValue::Case { arms, otherwise } => self.case(arms, otherwise.as_deref(), t),
            RowValue::Quotient { common, operands } => {
                let (a, b) = &**operands;
                // Arguments of a call: no parentheses of their own.
                let av = bare(widen(self.value(a), a.ty, *common));
                let bv = bare(widen(self.value(b), b.ty, *common));
                match common {
                    SqlType::BigInt => quote! { i64::checked_div(#av, #bv) },
                    SqlType::Double => quote! { ::ivm::sql::Double::checked_div(#av, #bv) },
                    _ => quote! { ::ivm::sql::Decimal::checked_div(#av, #bv) },
                }
            }
        }
    }

    /// `-e` or `a op b` over operands that can be NULL: each bound
    /// (`__n0`, ..) where it holds a value, NULL where one does not.
    fn lifted(&self, t: &Typed) -> Option<TokenStream> {
        let mut node = t.clone();
        let operands: Vec<&mut Typed> = match &mut node.value {
            RowValue::Neg(e) => vec![&mut **e],
            RowValue::Arith(_, a, b) => vec![&mut **a, &mut **b],
            _ => return None,
        };
        let mut scrutinees = Vec::new();
        for operand in operands {
            if operand.nullable {
                scrutinees.push(bare(self.value(operand)));
                *operand = Typed {
                    value: RowValue::Bound(scrutinees.len() - 1),
                    ty: operand.ty,
                    nullable: false,
                };
            }
        }
        if scrutinees.is_empty() {
            return None;
        }
        node.nullable = false;
        let value = bare(self.value(&node));
        if let [one] = scrutinees.as_slice() {
            return Some(quote! { ::core::option::Option::map(#one, |__n0| #value) });
        }
        Some(quote! {
            match (#(#scrutinees,)*) {
                (::core::option::Option::Some(__n0), ::core::option::Option::Some(__n1)) => ::core::option::Option::Some(#value),
                _ => ::core::option::Option::None,
            }
        })
    }

    /// GREATEST, LEAST or COALESCE of `args`, each brought to `ty`.
    fn pick(&self, pick: Pick, args: &[Typed], ty: SqlType) -> TokenStream {
        let value = |a: &Typed| bare(self.converted(a, ty));
        if pick == Pick::Coalesce {
            // From the last: the first that holds a value, or the rest's.
            let (last, rest) = args.split_last().expect("COALESCE has arguments");
            let (mut acc, mut acc_nullable) = (value(last), last.nullable);
            for a in rest.iter().rev() {
                let v = value(a);
                acc = match (a.nullable, acc_nullable) {
                    (false, _) => v,
                    (true, false) => quote! { ::core::option::Option::unwrap_or(#v, #acc) },
                    (true, true) => quote! { ::core::option::Option::or(#v, #acc) },
                };
                acc_nullable &= a.nullable;
            }
            return acc;
        }
        let (two, or, of) = match pick {
            Pick::Greatest => (
                quote! { greatest },
                quote! { greatest_or },
                quote! { greatest_of },
            ),
            _ => (quote! { least }, quote! { least_or }, quote! { least_of }),
        };
        // The arguments that cannot be NULL first: their extreme is a
        // value, which those that can only move.
        let (plain, nullable): (Vec<&Typed>, Vec<&Typed>) = args.iter().partition(|a| !a.nullable);
        let fold = |acc: Option<TokenStream>, a: &Typed, f: &TokenStream| {
            let v = value(a);
            Some(match acc {
                None => v,
                Some(x) => quote! { ::ivm::sql::#f(#x, #v) },
            })
        };
        let mut acc = plain.iter().fold(None, |acc, a| fold(acc, a, &two));
        let f = if acc.is_some() { or } else { of };
        acc = nullable.iter().fold(acc, |acc, a| fold(acc, a, &f));
        acc.expect("GREATEST and LEAST have arguments")
    }

    /// A CASE over aggregates, of type `t`: an `if` per arm, each value
    /// brought to the CASE's type (an `Option` of it where `t` can be NULL).
    fn case(&self, arms: &[(RowCond, Typed)], otherwise: Option<&Typed>, t: &Typed) -> TokenStream {
        let value = |v: &Typed| {
            let x = bare(self.converted(v, t.ty));
            if t.nullable && !v.nullable {
                quote! { ::core::option::Option::Some(#x) }
            } else {
                x
            }
        };
        let arms = arms.iter().map(|(c, v)| {
            let (c, v) = (bare(self.holds(c)), value(v));
            quote! { if #c { #v } else }
        });
        let otherwise = otherwise.map_or_else(|| quote! { ::core::option::Option::None }, value);
        quote! { (#(#arms)* { #otherwise }) }
    }

    /// Whether a condition is true (neither false nor NULL), as a `bool`.
    fn holds(&self, c: &RowCond) -> TokenStream {
        let truth = self.truth(c);
        if c.nullable() {
            quote! { (#truth == ::core::option::Option::Some(true)) }
        } else {
            truth
        }
    }

    /// A condition's value: a `bool`, or an `Option<bool>` where it can
    /// be NULL (SQL's three-valued logic).
    fn truth(&self, c: &RowCond) -> TokenStream {
        // A side as an `Option<bool>`.
        let maybe = |c: &RowCond| {
            let v = bare(self.truth(c));
            if c.nullable() {
                v
            } else {
                quote! { ::core::option::Option::Some(#v) }
            }
        };
        match c {
            RowCond::Cmp {
                op,
                common,
                operands,
            } => self.compare(*op, *common, &operands.0, &operands.1),
            RowCond::IsNull(v) if v.nullable => {
                let v = self.value(v);
                quote! { ::core::option::Option::is_none(&#v) }
            }
            RowCond::IsNotNull(v) if v.nullable => {
                let v = self.value(v);
                quote! { ::core::option::Option::is_some(&#v) }
            }
            RowCond::IsNull(_) => quote! { false },
            RowCond::IsNotNull(_) => quote! { true },
            RowCond::And(a, b) if !c.nullable() => {
                let (a, b) = (self.truth(a), self.truth(b));
                quote! { (#a && #b) }
            }
            RowCond::Or(a, b) if !c.nullable() => {
                let (a, b) = (self.truth(a), self.truth(b));
                quote! { (#a || #b) }
            }
            RowCond::And(a, b) => {
                let (a, b) = (maybe(a), maybe(b));
                quote! { ::ivm::sql::and(#a, #b) }
            }
            RowCond::Or(a, b) => {
                let (a, b) = (maybe(a), maybe(b));
                quote! { ::ivm::sql::or(#a, #b) }
            }
            RowCond::Not(x) if !x.nullable() => {
                let x = self.truth(x);
                quote! { (!#x) }
            }
            RowCond::Not(x) => {
                let x = self.truth(x);
                quote! { ::core::option::Option::map(#x, |__b: bool| !__b) }
            }
        }
    }

    /// `a op b` in type `common`: a `bool`, or an `Option<bool>` that is
    /// NULL where either side is.
    fn compare(&self, op: crate::sql::Cmp, common: SqlType, a: &Typed, b: &Typed) -> TokenStream {
        let (av, bv) = (
            bare(self.converted(a, common)),
            bare(self.converted(b, common)),
        );
        if !a.nullable && !b.nullable {
            return op.rust(&av, &bv);
        }
        let some = |x: TokenStream, nullable: bool| {
            if nullable {
                x
            } else {
                quote! { ::core::option::Option::Some(#x) }
            }
        };
        let (av, bv) = (some(av, a.nullable), some(bv, b.nullable));
        let cmp = bare(op.rust(&quote! { __c0 }, &quote! { __c1 }));
        quote! {
            match (#av, #bv) {
                (::core::option::Option::Some(__c0), ::core::option::Option::Some(__c1)) => ::core::option::Option::Some(#cmp),
                _ => ::core::option::Option::None,
            }
        }
    }

    /// A value brought to type `ty` (a `DECIMAL` at its scale), under
    /// `Option::map` where it can be NULL.
    fn converted(&self, a: &Typed, ty: SqlType) -> TokenStream {
        let v = self.value(a);
        if a.ty == ty {
            return v;
        }
        let to = |x: TokenStream| {
            let x = bare(widen(x, a.ty, ty));
            match ty {
                SqlType::Decimal(Some(scale)) => {
                    quote! { ::ivm::sql::Decimal::widened(#x, #scale) }
                }
                _ => x,
            }
        };
        if a.nullable {
            let w = to(quote! { __w });
            // `i64::from(__w)` maps by `i64::from` (clippy's
            // `redundant_closure`).
            let f = match syn::parse2::<syn::ExprCall>(w.clone()) {
                Ok(call) if call.args.len() == 1 && call.args[0] == syn::parse_quote!(__w) => {
                    let f = &call.func;
                    quote! { #f }
                }
                _ => quote! { |__w| #w },
            };
            quote! { ::core::option::Option::map(#v, #f) }
        } else {
            to(v)
        }
    }

    /// `value` where the count in component `c` is not zero, else NULL.
    fn unless_zero(&self, c: usize, value: TokenStream) -> TokenStream {
        let p = self.payload_at(c);
        quote! {
            if #p.0 == 0 { ::core::option::Option::None } else { ::core::option::Option::Some(#value) }
        }
    }

    /// `a op b`, both brought to `ty`; checked in `BIGINT`.
    fn arith(&self, op: Arith, a: &Typed, b: &Typed, ty: SqlType) -> TokenStream {
        let av = widen(self.value(a), a.ty, ty);
        let bv = widen(self.value(b), b.ty, ty);
        if ty == SqlType::BigInt {
            let method = op.checked();
            return quote! { ::core::option::Option::expect(i64::#method(#av, #bv), "ivm: BIGINT overflow") };
        }
        match op {
            Arith::Add => quote! { (#av + #bv) },
            Arith::Sub => quote! { (#av - #bv) },
            _ => quote! { (#av * #bv) },
        }
    }

    /// The signed sum of `terms` in `ty`.
    fn sum(&self, ty: SqlType, terms: &[(bool, Term)]) -> TokenStream {
        let mut acc: Option<TokenStream> = None;
        for (negated, term) in terms {
            let value = match term {
                Term::Component(c) => {
                    let p = self.payload_at(*c);
                    match ty {
                        SqlType::BigInt => quote! { #p.0 },
                        SqlType::Double => quote! { ::ivm::sql::Double(#p.0) },
                        // Kept as an `ivm::sql::Fixed` at the sum's scale.
                        _ if ty.fixed_scale().is_some() => {
                            quote! { ::ivm::sql::Decimal::from(#p) }
                        }
                        _ => quote! { #p },
                    }
                }
                Term::PerRow(v) => self.per_row(v, ty),
            };
            acc = Some(match (acc, ty) {
                (None, SqlType::BigInt) if *negated => {
                    quote! { ::core::option::Option::expect(i64::checked_neg(#value), "ivm: BIGINT overflow") }
                }
                (None, _) if *negated => quote! { (-#value) },
                (None, _) => value,
                (Some(a), SqlType::BigInt) => {
                    let method = if *negated {
                        quote! { checked_sub }
                    } else {
                        quote! { checked_add }
                    };
                    quote! { ::core::option::Option::expect(i64::#method(#a, #value), "ivm: BIGINT overflow") }
                }
                (Some(a), _) if *negated => quote! { (#a - #value) },
                (Some(a), _) => quote! { (#a + #value) },
            });
        }
        acc.expect("a sum has a term")
    }

    /// A constant summed once per row: the row count times it.
    fn per_row(&self, v: &Value, ty: SqlType) -> TokenStream {
        let count = self.count();
        match (v, ty) {
            (Value::Int(1), SqlType::BigInt) => count,
            (Value::Int(i), SqlType::BigInt) => quote! {
                ::core::option::Option::expect(i64::checked_mul(#count, #i), "ivm: BIGINT overflow")
            },
            (Value::Double(d), _) => quote! { ::ivm::sql::Double(#count as f64 * #d) },
            _ => {
                let v = v.rust(ty);
                quote! { (::ivm::sql::Decimal::from(#count) * #v) }
            }
        }
    }

    /// `AVG`: the sum (taken in `ty`) over the count in component
    /// `count`.
    fn avg(&self, ty: SqlType, terms: &[(bool, Term)], count: usize) -> TokenStream {
        let s = self.sum(ty, terms);
        let p = self.payload_at(count);
        let count = quote! { #p.0 };
        match ty {
            SqlType::Double => quote! { ::ivm::sql::Double(#s.0 / #count as f64) },
            // As an argument, the sum needs no parentheses of its own.
            SqlType::BigInt => {
                let s = bare(s);
                quote! { ::ivm::sql::Decimal::avg(::ivm::sql::Decimal::from(#s), #count) }
            }
            _ => {
                let s = bare(s);
                quote! { ::ivm::sql::Decimal::avg(#s, #count) }
            }
        }
    }

    /// `MIN` or `MAX`: component `c`, decoded from its order-keeping
    /// `i64` to `ty`.
    fn best(&self, c: usize, ty: SqlType) -> TokenStream {
        let p = self.payload_at(c);
        match ty {
            SqlType::Date => quote! { ::ivm::sql::Date::from_days(#p.0 as i32) },
            SqlType::Decimal(Some(s)) => quote! { ::ivm::sql::Decimal::new(#p.0, #s) },
            SqlType::Double => quote! { ::ivm::sql::Double::from_order_key(#p.0) },
            _ => quote! { #p.0 },
        }
    }
}
