//! Scalar SQL expressions over one row of the join: typed, with constants
//! folded, and written out as the Rust expressions of the rule's `{ .. }`
//! factors.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use sqlparser::ast::{
    BinaryOperator, CastKind, DateTimeField, Expr, InTarget, UnaryOperator, Value as SqlValue,
};
use sqlparser::tokenizer::Span as Loc;

use super::types::{SqlType, Value, add_months, parse_date};

/// A column of the join: the rule variable that holds it after the
/// lowering, and its declared type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Column {
    /// The FROM item it belongs to.
    pub item: usize,
    /// Its position in the table.
    pub column: usize,
    /// Its declared type.
    pub ty: SqlType,
    /// Whether it can hold NULL: declared `NULL`, and not unwrapped by an
    /// equality with another column (`docs/design.md#null`).
    pub nullable: bool,
}

/// Arithmetic operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arith {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/`
    Div,
    /// `%` (of integers: the remainder of the truncating division, with
    /// the dividend's sign, as in SQLite and PostgreSQL)
    Rem,
}

impl Arith {
    /// The `i64` method that computes it, `None` on overflow (or a zero
    /// divisor): `checked_add`, ...
    pub fn checked(self) -> syn::Ident {
        format_ident!(
            "{}",
            match self {
                Arith::Add => "checked_add",
                Arith::Sub => "checked_sub",
                Arith::Mul => "checked_mul",
                Arith::Div => "checked_div",
                Arith::Rem => "checked_rem",
            }
        )
    }
}

/// Comparison operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cmp {
    /// `=`
    Eq,
    /// `<>`, `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
}

impl Cmp {
    /// The comparison SQL's operator `op` is, if it is one.
    pub fn of(op: &BinaryOperator) -> Option<Cmp> {
        Some(match op {
            BinaryOperator::Eq => Cmp::Eq,
            BinaryOperator::NotEq => Cmp::Ne,
            BinaryOperator::Lt => Cmp::Lt,
            BinaryOperator::LtEq => Cmp::Le,
            BinaryOperator::Gt => Cmp::Gt,
            BinaryOperator::GtEq => Cmp::Ge,
            _ => return None,
        })
    }

    /// The comparison that holds where this one fails (and is NULL
    /// where it is).
    pub fn negated(self) -> Cmp {
        match self {
            Cmp::Eq => Cmp::Ne,
            Cmp::Ne => Cmp::Eq,
            Cmp::Lt => Cmp::Ge,
            Cmp::Le => Cmp::Gt,
            Cmp::Gt => Cmp::Le,
            Cmp::Ge => Cmp::Lt,
        }
    }

    /// `a op b` in Rust, of two operands of one type.
    pub fn rust(self, a: &TokenStream, b: &TokenStream) -> TokenStream {
        match self {
            Cmp::Eq => quote! { (#a == #b) },
            Cmp::Ne => quote! { (#a != #b) },
            Cmp::Lt => quote! { (#a < #b) },
            Cmp::Le => quote! { (#a <= #b) },
            Cmp::Gt => quote! { (#a > #b) },
            Cmp::Ge => quote! { (#a >= #b) },
        }
    }
}

/// A typed scalar expression.
#[derive(Debug, Clone, PartialEq)]
pub enum Scalar {
    /// A column.
    Column(Column),
    /// A folded constant.
    Const(Value),
    /// Arithmetic, in the operands' common type.
    Arith(Arith, Box<Scalar>, Box<Scalar>, SqlType),
    /// Negation.
    Neg(Box<Scalar>),
    /// A comparison, in the operands' common type.
    Cmp(Cmp, Box<Scalar>, Box<Scalar>),
    /// `AND`
    And(Box<Scalar>, Box<Scalar>),
    /// `OR`
    Or(Box<Scalar>, Box<Scalar>),
    /// `NOT`
    Not(Box<Scalar>),
    /// `[NOT] LIKE 'pattern'`
    Like(Box<Scalar>, String, bool),
    /// `EXTRACT(YEAR|MONTH|DAY FROM date)`
    Extract(&'static str, Box<Scalar>),
    /// `CASE WHEN c THEN a ELSE b END`, in the branches' common type (a
    /// CASE of several WHENs nests).
    Case(Box<Scalar>, Box<Scalar>, Box<Scalar>, SqlType),
    /// `SUBSTRING(text FROM start [FOR length])`, with constant positions.
    Substring(Box<Scalar>, usize, Option<usize>),
    /// SQL's NULL, of the type its context gives it.
    Null(SqlType),
    /// `e IS NULL`, or (`true`) `e IS NOT NULL`.
    IsNull(Box<Scalar>, bool),
    /// `COALESCE(a, b, ..)`: the first that is not NULL, in their common
    /// type.
    Coalesce(Vec<Scalar>, SqlType),
    /// A nullable operand known not to be NULL, as generated code binds it
    /// (`__n0`) to compute an operator that is NULL wherever an operand is.
    Bound(usize, SqlType),
}

impl Scalar {
    /// The expression's type (integers as `BIGINT`).
    pub fn ty(&self) -> SqlType {
        match self {
            Scalar::Column(c) => c.ty.computed(),
            Scalar::Const(v) => v.ty(),
            Scalar::Arith(.., t) => *t,
            Scalar::Neg(e) => e.ty(),
            Scalar::Cmp(..)
            | Scalar::And(..)
            | Scalar::Or(..)
            | Scalar::Not(_)
            | Scalar::Like(..) => SqlType::Bool,
            Scalar::Extract(..) => SqlType::BigInt,
            Scalar::Case(.., t)
            | Scalar::Coalesce(_, t)
            | Scalar::Null(t)
            | Scalar::Bound(_, t) => *t,
            Scalar::Substring(..) => SqlType::Text,
            Scalar::IsNull(..) => SqlType::Bool,
        }
    }

    /// Whether it can be NULL: a nullable column or NULL itself, read
    /// through operators that are NULL where an operand is; a CASE with
    /// a branch that can be; a COALESCE of only such values.
    pub fn nullable(&self) -> bool {
        match self {
            Scalar::Column(c) => c.nullable,
            Scalar::Null(_) => true,
            Scalar::Const(_) | Scalar::Bound(..) | Scalar::IsNull(..) => false,
            Scalar::Arith(_, a, b, _)
            | Scalar::Cmp(_, a, b)
            | Scalar::And(a, b)
            | Scalar::Or(a, b)
            | Scalar::Case(_, a, b, _) => a.nullable() || b.nullable(),
            Scalar::Neg(e)
            | Scalar::Not(e)
            | Scalar::Like(e, ..)
            | Scalar::Extract(_, e)
            | Scalar::Substring(e, ..) => e.nullable(),
            Scalar::Coalesce(args, _) => args.iter().all(Scalar::nullable),
        }
    }

    /// Whether it is NULL exactly where a nullable column it reads is:
    /// read through operators that are NULL where an operand is, and
    /// nothing else that can be NULL. Then a row's value is not NULL
    /// exactly where each of its FROM items' nullable columns holds a
    /// value, a condition per item.
    pub fn null_by_columns(&self) -> bool {
        match self {
            Scalar::Column(_) => true,
            Scalar::Arith(_, a, b, _) | Scalar::Cmp(_, a, b) => {
                a.null_by_columns() && b.null_by_columns()
            }
            Scalar::Neg(e)
            | Scalar::Not(e)
            | Scalar::Like(e, ..)
            | Scalar::Extract(_, e)
            | Scalar::Substring(e, ..) => e.null_by_columns(),
            e => !e.nullable(),
        }
    }

    /// The nullable columns whose NULL makes it NULL: those read through
    /// operators that are NULL where an operand is, not those under
    /// `COALESCE`, `CASE` or `IS NULL`.
    pub fn strict_columns(&self) -> Vec<Column> {
        match self {
            Scalar::Column(c) if c.nullable => vec![*c],
            Scalar::Arith(_, a, b, _) | Scalar::Cmp(_, a, b) => {
                let mut out = a.strict_columns();
                for c in b.strict_columns() {
                    if !out.contains(&c) {
                        out.push(c);
                    }
                }
                out
            }
            Scalar::Neg(e)
            | Scalar::Not(e)
            | Scalar::Like(e, ..)
            | Scalar::Extract(_, e)
            | Scalar::Substring(e, ..) => e.strict_columns(),
            _ => Vec::new(),
        }
    }

    /// Each column it reads, mutably (to settle which are nullable).
    pub fn columns_mut(&mut self, f: &mut impl FnMut(&mut Column)) {
        match self {
            Scalar::Column(c) => f(c),
            Scalar::Const(_) | Scalar::Null(_) | Scalar::Bound(..) => {}
            Scalar::Arith(_, a, b, _)
            | Scalar::Cmp(_, a, b)
            | Scalar::And(a, b)
            | Scalar::Or(a, b) => {
                a.columns_mut(f);
                b.columns_mut(f);
            }
            Scalar::Neg(e)
            | Scalar::Not(e)
            | Scalar::Like(e, ..)
            | Scalar::Extract(_, e)
            | Scalar::Substring(e, ..)
            | Scalar::IsNull(e, _) => e.columns_mut(f),
            Scalar::Case(c, a, b, _) => {
                c.columns_mut(f);
                a.columns_mut(f);
                b.columns_mut(f);
            }
            Scalar::Coalesce(args, _) => args.iter_mut().for_each(|a| a.columns_mut(f)),
        }
    }

    /// The operands of an operator that is NULL wherever one of them is
    /// (arithmetic, comparison, `NOT`, `LIKE`, `EXTRACT`, `SUBSTRING`),
    /// mutably; `None` for the rest.
    fn strict_operands(&mut self) -> Option<Vec<&mut Scalar>> {
        match self {
            Scalar::Arith(_, a, b, _) | Scalar::Cmp(_, a, b) => Some(vec![&mut **a, &mut **b]),
            Scalar::Neg(e)
            | Scalar::Not(e)
            | Scalar::Like(e, ..)
            | Scalar::Extract(_, e)
            | Scalar::Substring(e, ..) => Some(vec![&mut **e]),
            _ => None,
        }
    }

    /// The columns it reads, each once, in order of first reading.
    pub fn columns(&self) -> Vec<Column> {
        let mut out = Vec::new();
        self.visit(&mut |c| {
            if !out.contains(&c) {
                out.push(c);
            }
        });
        out
    }

    fn visit(&self, f: &mut impl FnMut(Column)) {
        match self {
            Scalar::Column(c) => f(*c),
            Scalar::Const(_) => {}
            Scalar::Arith(_, a, b, _)
            | Scalar::Cmp(_, a, b)
            | Scalar::And(a, b)
            | Scalar::Or(a, b) => {
                a.visit(f);
                b.visit(f);
            }
            Scalar::Neg(e)
            | Scalar::Not(e)
            | Scalar::Like(e, ..)
            | Scalar::Extract(_, e)
            | Scalar::Substring(e, ..) => e.visit(f),
            Scalar::Case(c, a, b, _) => {
                c.visit(f);
                a.visit(f);
                b.visit(f);
            }
            Scalar::IsNull(e, _) => e.visit(f),
            Scalar::Coalesce(args, _) => args.iter().for_each(|a| a.visit(f)),
            Scalar::Null(_) | Scalar::Bound(..) => {}
        }
    }

    /// The Rust `bool` of it as a condition: true where it is true, not
    /// where it is false or NULL.
    pub fn truth(&self, name: &dyn Fn(Column) -> syn::Ident) -> TokenStream {
        // A comparison (or another operator that is NULL where an
        // operand is) holds where its operands hold values that satisfy
        // it: `Option::is_some_and(x, |__n0| __n0 > 2)`. (Not `matches!`:
        // the formatter leaves a macro's arguments on one long line.)
        if let Some((scrutinees, value)) = self.bind_operands(name) {
            return scrutinees
                .iter()
                .enumerate()
                .rev()
                .fold(value, |inner, (i, scrutinee)| {
                    let n = format_ident!("__n{i}");
                    quote! { ::core::option::Option::is_some_and(#scrutinee, |#n| #inner) }
                });
        }
        let e = self.rust(name);
        if self.nullable() {
            let e = bare(e);
            quote! { (#e == ::core::option::Option::Some(true)) }
        } else {
            e
        }
    }

    /// An operator that is NULL wherever an operand is, over nullable
    /// operands: each bound (`__n0`, ..) where it holds a value, and the
    /// operator computed over the bound values.
    fn lifted(&self, name: &dyn Fn(Column) -> syn::Ident) -> TokenStream {
        let (scrutinees, value) = self.bind_operands(name).expect("a strict operator");
        if let [one] = scrutinees.as_slice() {
            return quote! { ::core::option::Option::map(#one, |__n0| #value) };
        }
        let bound = (0..scrutinees.len()).map(|i| {
            let n = format_ident!("__n{i}");
            quote! { ::core::option::Option::Some(#n) }
        });
        quote! {
            match (#(#scrutinees,)*) {
                (#(#bound,)*) => ::core::option::Option::Some(#value),
                _ => ::core::option::Option::None,
            }
        }
    }

    /// For an operator that is NULL wherever an operand is, over nullable
    /// operands: each such operand (an `Option`), and the operator over
    /// them bound as `__n0`, `__n1`, ..; `None` for anything else.
    fn bind_operands(
        &self,
        name: &dyn Fn(Column) -> syn::Ident,
    ) -> Option<(Vec<TokenStream>, TokenStream)> {
        let mut node = self.clone();
        let mut scrutinees = Vec::new();
        for operand in node.strict_operands()? {
            if operand.nullable() {
                scrutinees.push(bare(operand.rust(name)));
                *operand = Scalar::Bound(scrutinees.len() - 1, operand.ty());
            }
        }
        if scrutinees.is_empty() {
            return None;
        }
        Some((scrutinees, bare(node.rust(name))))
    }

    /// A nullable column's value as an `Option` of what a column of its
    /// type reads as (`i64`, `&str`, ..).
    fn nullable_column(c: Column, v: &syn::Ident) -> TokenStream {
        match c.ty {
            SqlType::SmallInt | SqlType::Int => {
                quote! { ::core::option::Option::map(#v, i64::from) }
            }
            SqlType::Text => quote! { ::core::option::Option::as_deref(#v) },
            _ => quote! { #v },
        }
    }

    /// `CASE WHEN c THEN a ELSE b END` in type `ty`: `b` where `c` is
    /// false or NULL, an `Option` where a branch can be NULL.
    fn case_rust(
        c: &Scalar,
        a: &Scalar,
        b: &Scalar,
        ty: SqlType,
        name: &dyn Fn(Column) -> syn::Ident,
    ) -> TokenStream {
        let c = bare(c.truth(name));
        let nullable = a.nullable() || b.nullable();
        let branch = |e: &Scalar| {
            let v = bare(cast(e, ty, name));
            if nullable && !e.nullable() {
                quote! { ::core::option::Option::Some(#v) }
            } else {
                v
            }
        };
        let (a, b) = (branch(a), branch(b));
        // A CASE of several WHENs (and GREATEST, LEAST) nests: `else if`
        // reads as the chain it is, and clippy refuses `else { if .. }`
        // where the formatting breaks a line before the brace.
        let chained = matches!(
            b.clone().into_iter().next(),
            Some(proc_macro2::TokenTree::Ident(i)) if i == "if"
        );
        if chained {
            quote! { if #c { #a } else #b }
        } else {
            quote! { if #c { #a } else { #b } }
        }
    }

    /// `COALESCE(args)` in type `ty`: each in turn until one holds a
    /// value; an `Option` where the last can be NULL.
    fn coalesce_rust(
        args: &[Scalar],
        ty: SqlType,
        name: &dyn Fn(Column) -> syn::Ident,
    ) -> TokenStream {
        let mut rest = args.iter().rev();
        let last = rest.next().expect("COALESCE has arguments");
        let mut acc = bare(cast(last, ty, name));
        let mut acc_nullable = last.nullable();
        for arg in rest {
            let v = bare(cast(arg, ty, name));
            acc = match (arg.nullable(), acc_nullable) {
                (false, _) => {
                    acc_nullable = false;
                    v
                }
                (true, false) => quote! { ::core::option::Option::unwrap_or_else(#v, || #acc) },
                (true, true) => quote! { ::core::option::Option::or_else(#v, || #acc) },
            };
        }
        acc
    }

    /// The Rust expression computing it, with `name(column)` the rule
    /// variable holding a column (bound by value for `Copy` types, by
    /// reference for strings).
    ///
    /// An expression that can be NULL is an `Option` of its value.
    pub fn rust(&self, name: &dyn Fn(Column) -> syn::Ident) -> TokenStream {
        let mut probe = self.clone();
        if probe
            .strict_operands()
            .is_some_and(|ops| ops.iter().any(|o| o.nullable()))
        {
            return self.lifted(name);
        }
        match self {
            Scalar::Column(c) if c.nullable => Scalar::nullable_column(*c, &name(*c)),
            Scalar::Null(_) => quote! { ::core::option::Option::None },
            Scalar::Bound(i, _) => {
                let n = format_ident!("__n{i}");
                quote! { #n }
            }
            Scalar::IsNull(e, not) => {
                // A column is tested as it is held (by value or by
                // reference), not as it is read.
                if let Scalar::Column(c) = &**e
                    && c.nullable
                {
                    let v = name(*c);
                    return if *not {
                        quote! { #v.is_some() }
                    } else {
                        quote! { #v.is_none() }
                    };
                }
                let v = bare(e.rust(name));
                match (e.nullable(), not) {
                    (true, false) => quote! { ::core::option::Option::is_none(&#v) },
                    (true, true) => quote! { ::core::option::Option::is_some(&#v) },
                    // A value that cannot be NULL (a column unwrapped by a
                    // join): still read, so that the factor has a variable.
                    (false, false) => {
                        quote! { ::core::option::Option::is_none(&::core::option::Option::Some(#v)) }
                    }
                    (false, true) => {
                        quote! { ::core::option::Option::is_some(&::core::option::Option::Some(#v)) }
                    }
                }
            }
            Scalar::Coalesce(args, ty) => Scalar::coalesce_rust(args, *ty, name),
            Scalar::And(a, b) | Scalar::Or(a, b) if self.nullable() => {
                let operand = |e: &Scalar| {
                    let v = bare(e.rust(name));
                    if e.nullable() {
                        v
                    } else {
                        quote! { ::core::option::Option::Some(#v) }
                    }
                };
                let (a_v, b_v) = (operand(a), operand(b));
                if matches!(self, Scalar::And(..)) {
                    quote! { ::ivm::sql::and(#a_v, #b_v) }
                } else {
                    quote! { ::ivm::sql::or(#a_v, #b_v) }
                }
            }
            Scalar::Column(c) => {
                let v = name(*c);
                match c.ty {
                    SqlType::SmallInt | SqlType::Int => quote! { i64::from(#v) },
                    SqlType::Text => quote! { #v.as_str() },
                    _ => quote! { #v },
                }
            }
            Scalar::Const(v) => v.rust(v.ty()),
            Scalar::Arith(op, a, b, ty) => arith_rust(*op, a, b, *ty, name),
            Scalar::Neg(e) => {
                let inner = e.rust(name);
                if e.ty() == SqlType::BigInt {
                    quote! {
                        ::core::option::Option::expect(
                            i64::checked_neg(#inner),
                            "ivm: BIGINT overflow in a SQL expression",
                        )
                    }
                } else {
                    quote! { (-#inner) }
                }
            }
            Scalar::Cmp(op, a, b) => {
                let ty = a.ty().common(b.ty()).unwrap_or(a.ty());
                op.rust(&cast(a, ty, name), &cast(b, ty, name))
            }
            // `x BETWEEN lo AND hi`, as clippy would have it written.
            Scalar::And(a, b)
                if let (Scalar::Cmp(Cmp::Ge, x, lo), Scalar::Cmp(Cmp::Le, y, hi)) =
                    (&**a, &**b)
                    && x == y
                    && !self.nullable()
                    && let Some(ty) = x.ty().common(lo.ty()).and_then(|t| t.common(hi.ty())) =>
            {
                let (x, lo, hi) = (cast(x, ty, name), cast(lo, ty, name), cast(hi, ty, name));
                quote! { (#lo..=#hi).contains(&#x) }
            }
            Scalar::And(a, b) => {
                let (a, b) = (a.rust(name), b.rust(name));
                quote! { (#a && #b) }
            }
            Scalar::Or(a, b) => {
                let (a, b) = (a.rust(name), b.rust(name));
                quote! { (#a || #b) }
            }
            Scalar::Not(e) => {
                let e = e.rust(name);
                quote! { (!#e) }
            }
            Scalar::Like(e, pattern, negated) => {
                let e = e.rust(name);
                let like = quote! { ::ivm::sql::like(#e, #pattern) };
                if *negated {
                    quote! { (!#like) }
                } else {
                    like
                }
            }
            Scalar::Extract(field, e) => {
                let e = e.rust(name);
                let method = format_ident!("{field}");
                quote! { i64::from(#e.#method()) }
            }
            Scalar::Case(c, a, b, ty) => Scalar::case_rust(c, a, b, *ty, name),
            Scalar::Substring(e, start, length) => {
                let e = e.rust(name);
                let length = match length {
                    Some(n) => quote! { ::core::option::Option::Some(#n) },
                    None => quote! { ::core::option::Option::None },
                };
                quote! { ::ivm::sql::substring(#e, #start, #length) }
            }
        }
    }
}

/// The Rust expression computing `a op b` in type `ty`: checked in
/// `BIGINT`, where an overflow panics.
fn arith_rust(
    op: Arith,
    a: &Scalar,
    b: &Scalar,
    ty: SqlType,
    name: &dyn Fn(Column) -> syn::Ident,
) -> TokenStream {
    // A product of decimals has the sum of their scales: each
    // operand keeps its own.
    let (ta, tb) = match (op, ty) {
        (Arith::Mul, SqlType::Decimal(_)) => {
            (SqlType::Decimal(scale(a)), SqlType::Decimal(scale(b)))
        }
        _ => (ty, ty),
    };
    let (a, b) = (cast(a, ta, name), cast(b, tb, name));
    if ty == SqlType::BigInt {
        let method = op.checked();
        quote! {
            ::core::option::Option::expect(
                i64::#method(#a, #b),
                "ivm: BIGINT overflow in a SQL expression",
            )
        }
    } else {
        match op {
            Arith::Add => quote! { (#a + #b) },
            Arith::Sub => quote! { (#a - #b) },
            Arith::Mul => quote! { (#a * #b) },
            Arith::Div => quote! { (#a / #b) },
            Arith::Rem => quote! { (#a % #b) },
        }
    }
}

/// An expression without the parentheses that only an enclosing operator
/// needs: for a condition of `if`, or a whole factor.
pub fn bare(tokens: TokenStream) -> TokenStream {
    match syn::parse2(tokens.clone()) {
        Ok(syn::Expr::Paren(p)) => {
            let inner = &p.expr;
            quote! { #inner }
        }
        _ => tokens,
    }
}

/// `e` as a value of type `ty` (a numeric widening), an `Option` of it
/// where `e` can be NULL. A value that becomes a `DECIMAL` of scale `s`
/// gets `s` digits after the point, so that the values of one expression
/// print alike.
pub fn cast(e: &Scalar, ty: SqlType, name: &dyn Fn(Column) -> syn::Ident) -> TokenStream {
    if let Scalar::Const(v) = e
        && let Some(v) = v.cast(ty)
    {
        return v.rust(ty);
    }
    let narrower = match (e.ty(), ty) {
        (SqlType::Decimal(Some(a)), SqlType::Decimal(Some(b))) => a < b,
        (from, SqlType::Decimal(Some(b))) => from.is_integer() && b > 0,
        _ => false,
    };
    if let (true, SqlType::Decimal(Some(scale))) = (narrower, ty) {
        let as_decimal = cast(e, SqlType::Decimal(None), name);
        return if e.nullable() {
            quote! { ::core::option::Option::map(#as_decimal, |__w| ::ivm::sql::Decimal::widened(__w, #scale)) }
        } else {
            quote! { ::ivm::sql::Decimal::widened(#as_decimal, #scale) }
        };
    }
    if e.nullable() {
        let widened = widen(quote! { __w }, e.ty(), ty);
        let v = bare(e.rust(name));
        if widened.to_string() == "__w" {
            return v;
        }
        // `Decimal::from(__w)` maps as `Decimal::from`, as clippy would
        // have it.
        if let Ok(syn::Expr::Call(call)) = syn::parse2::<syn::Expr>(widened.clone())
            && call.args.len() == 1
            && call
                .args
                .first()
                .is_some_and(|a| quote! { #a }.to_string() == "__w")
        {
            let f = &call.func;
            return quote! { ::core::option::Option::map(#v, #f) };
        }
        return quote! { ::core::option::Option::map(#v, |__w| #widened) };
    }
    widen(e.rust(name), e.ty(), ty)
}

/// A value `v` of type `from` as a value of type `to`: integers widen to
/// `i64` (a `SMALLINT` or `INT` column's `i16` or `i32` first), to
/// decimals and to doubles, decimals to doubles; anything else is left as
/// it is.
pub fn widen(v: TokenStream, from: SqlType, to: SqlType) -> TokenStream {
    let (v, from) = match from {
        SqlType::SmallInt | SqlType::Int if to != from => {
            (quote! { i64::from(#v) }, SqlType::BigInt)
        }
        _ => (v, from),
    };
    match (from, to) {
        (SqlType::BigInt, SqlType::Decimal(_)) => quote! { ::ivm::sql::Decimal::from(#v) },
        (SqlType::BigInt, SqlType::Double) => quote! { ::ivm::sql::Double(#v as f64) },
        (SqlType::Decimal(_), SqlType::Double) => {
            quote! { ::ivm::sql::Double(::ivm::sql::Decimal::to_f64(&#v)) }
        }
        _ => v,
    }
}

/// Resolves a column reference (`alias.column` or `column`) to a column.
pub type Resolve<'a> = dyn Fn(&[sqlparser::ast::Ident], Loc) -> Result<Column, (Loc, String)> + 'a;

/// Types and folds `expr`; `resolve` finds columns.
///
/// # Errors
///
/// The location and message of the first construct outside the fragment,
/// or of a type mismatch.
pub fn scalar(expr: &Expr, resolve: &Resolve<'_>) -> Result<Scalar, (Loc, String)> {
    use sqlparser::ast::Spanned;
    let loc = expr.span();
    let e = match expr {
        Expr::Identifier(id) => Scalar::Column(resolve(std::slice::from_ref(id), loc)?),
        Expr::CompoundIdentifier(ids) => Scalar::Column(resolve(ids, loc)?),
        Expr::Nested(e) => scalar(e, resolve)?,
        Expr::Value(v) if v.value == SqlValue::Null => Scalar::Null(SqlType::Bool),
        Expr::Value(v) => Scalar::Const(literal(&v.value).ok_or_else(|| {
            (
                loc,
                format!("the literal `{}` is not supported here", v.value),
            )
        })?),
        Expr::TypedString(ts) => typed_string(ts, loc)?,
        Expr::UnaryOp { op, expr } => unary(*op, scalar(expr, resolve)?, loc)?,
        Expr::BinaryOp { left, op, right } => {
            let a = scalar(left, resolve)?;
            // An interval is no value of its own: `binary` folds it into
            // the date it moves.
            let b = match &**right {
                Expr::Interval(_) => Scalar::Const(Value::Bool(false)),
                right => scalar(right, resolve)?,
            };
            binary(op, a, b, loc, right)?
        }
        Expr::Between {
            expr,
            negated,
            low,
            high,
        } => {
            let e = scalar(expr, resolve)?;
            let lo = compare(Cmp::Ge, e.clone(), scalar(low, resolve)?, loc)?;
            let hi = compare(Cmp::Le, e, scalar(high, resolve)?, loc)?;
            let both = Scalar::And(Box::new(lo), Box::new(hi));
            if *negated {
                Scalar::Not(Box::new(both))
            } else {
                both
            }
        }
        Expr::In {
            expr,
            target: InTarget::List(list),
            negated,
            global: false,
        } => in_list(expr, list, *negated, loc, resolve)?,
        Expr::Like {
            negated,
            any: false,
            expr,
            pattern,
            escape_char: None,
        } => like(scalar(expr, resolve)?, pattern, *negated, loc, resolve)?,
        Expr::Extract { field, expr, .. } => extract(field, scalar(expr, resolve)?, loc)?,
        Expr::Substring {
            expr,
            substring_from,
            substring_for,
            ..
        } => substring(
            scalar(expr, resolve)?,
            substring_from.as_deref(),
            substring_for.as_deref(),
            loc,
            resolve,
        )?,
        Expr::Case {
            operand,
            conditions,
            else_result,
            ..
        } => case(
            operand.as_deref(),
            conditions,
            else_result.as_deref(),
            loc,
            resolve,
        )?,
        Expr::IsNull(e) => is_null(scalar(e, resolve)?, false),
        Expr::IsNotNull(e) => is_null(scalar(e, resolve)?, true),
        Expr::Function(f) if f.name.to_string().eq_ignore_ascii_case("coalesce") => {
            coalesce(f, loc, resolve)?
        }
        Expr::Function(f) if extreme_of(f).is_some() => extreme(f, loc, resolve)?,
        Expr::Function(f) if f.name.to_string().eq_ignore_ascii_case("date_part") => {
            date_part(f, loc, resolve)?
        }
        Expr::Cast {
            kind: CastKind::Cast | CastKind::DoubleColon,
            expr,
            data_type,
            format: None,
            ..
        } => sql_cast(scalar(expr, resolve)?, data_type, loc)?,
        other => return Err(unsupported(other, loc)),
    };
    Ok(e)
}

/// A typed literal: only `DATE 'yyyy-mm-dd'`.
fn typed_string(ts: &sqlparser::ast::TypedString, loc: Loc) -> Result<Scalar, (Loc, String)> {
    let text = match &ts.value.value {
        SqlValue::SingleQuotedString(s) => s.clone(),
        other => return Err((loc, format!("expected a quoted string, found `{other}`"))),
    };
    match ts.data_type {
        sqlparser::ast::DataType::Date => Ok(Scalar::Const(Value::Date(
            parse_date(&text).ok_or_else(|| {
                (
                    loc,
                    format!("`{text}` is not a date: write DATE 'yyyy-mm-dd'"),
                )
            })?,
        ))),
        ref other => Err((
            loc,
            format!("typed literals of type `{other}` are not supported: only DATE 'yyyy-mm-dd'"),
        )),
    }
}

/// `NOT e`, `-e` (a constant negated in place) or `+e`.
fn unary(op: UnaryOperator, e: Scalar, loc: Loc) -> Result<Scalar, (Loc, String)> {
    match op {
        UnaryOperator::Not => {
            bool_operand(&e, loc)?;
            Ok(negate(e))
        }
        UnaryOperator::Minus | UnaryOperator::Plus if matches!(e, Scalar::Null(_)) => Ok(e),
        UnaryOperator::Minus => {
            if !e.ty().is_number() {
                return Err((loc, format!("cannot negate a {}", e.ty().name())));
            }
            Ok(match e {
                Scalar::Const(Value::Int(i)) => Scalar::Const(Value::Int(
                    i.checked_neg()
                        .ok_or((loc, "the constant overflows BIGINT".to_string()))?,
                )),
                Scalar::Const(Value::Decimal { mantissa, scale }) => {
                    Scalar::Const(Value::Decimal {
                        mantissa: -mantissa,
                        scale,
                    })
                }
                Scalar::Const(Value::Double(d)) => Scalar::Const(Value::Double(-d)),
                e => Scalar::Neg(Box::new(e)),
            })
        }
        UnaryOperator::Plus => Ok(e),
        other => Err((loc, format!("the operator `{other}` is not supported"))),
    }
}

/// `expr [NOT] IN (a, b, ..)`: `expr = a OR expr = b ..`, negated.
fn in_list(
    expr: &Expr,
    list: &[Expr],
    negated: bool,
    loc: Loc,
    resolve: &Resolve<'_>,
) -> Result<Scalar, (Loc, String)> {
    let e = scalar(expr, resolve)?;
    let mut any: Option<Scalar> = None;
    for item in list {
        let eq = compare(Cmp::Eq, e.clone(), scalar(item, resolve)?, loc)?;
        any = Some(match any {
            None => eq,
            Some(a) => Scalar::Or(Box::new(a), Box::new(eq)),
        });
    }
    let any = any.ok_or((loc, "an empty IN list".to_string()))?;
    Ok(if negated {
        Scalar::Not(Box::new(any))
    } else {
        any
    })
}

/// `e [NOT] LIKE pattern`: a string against a constant pattern.
fn like(
    e: Scalar,
    pattern: &Expr,
    negated: bool,
    loc: Loc,
    resolve: &Resolve<'_>,
) -> Result<Scalar, (Loc, String)> {
    use sqlparser::ast::Spanned;
    if matches!(e, Scalar::Null(_)) {
        return Ok(Scalar::Null(SqlType::Bool));
    }
    if e.ty() != SqlType::Text {
        return Err((
            loc,
            format!("LIKE needs a string, found a {}", e.ty().name()),
        ));
    }
    match scalar(pattern, resolve)? {
        Scalar::Const(Value::Text(p)) => Ok(Scalar::Like(Box::new(e), p, negated)),
        _ => Err((
            pattern.span(),
            "the pattern of LIKE must be a string constant".to_string(),
        )),
    }
}

/// `SUBSTRING(e FROM start FOR length)` of a string, with constant
/// positions of at least 1 (where PostgreSQL and SQLite agree).
fn substring(
    e: Scalar,
    from: Option<&Expr>,
    length: Option<&Expr>,
    loc: Loc,
    resolve: &Resolve<'_>,
) -> Result<Scalar, (Loc, String)> {
    if matches!(e, Scalar::Null(_)) {
        return Ok(Scalar::Null(SqlType::Text));
    }
    if e.ty() != SqlType::Text {
        return Err((
            loc,
            format!("SUBSTRING needs a string, found a {}", e.ty().name()),
        ));
    }
    let position = |e: Option<&Expr>, least: i64| -> Result<Option<usize>, (Loc, String)> {
        let Some(e) = e else { return Ok(None) };
        match scalar(e, resolve)? {
            Scalar::Const(Value::Int(n)) if n >= least => Ok(usize::try_from(n).ok()),
            _ => Err((
                loc,
                format!("SUBSTRING takes constant positions and lengths of at least {least}"),
            )),
        }
    };
    let start = position(from, 1)?.unwrap_or(1);
    Ok(Scalar::Substring(Box::new(e), start, position(length, 0)?))
}

/// `EXTRACT(YEAR|MONTH|DAY FROM e)` of a date.
fn extract(field: &DateTimeField, e: Scalar, loc: Loc) -> Result<Scalar, (Loc, String)> {
    if matches!(e, Scalar::Null(_)) {
        return Ok(Scalar::Null(SqlType::BigInt));
    }
    if e.ty() != SqlType::Date {
        return Err((
            loc,
            format!("EXTRACT needs a DATE, found a {}", e.ty().name()),
        ));
    }
    let field = match field {
        DateTimeField::Year => "year",
        DateTimeField::Month => "month",
        DateTimeField::Day => "day",
        other => {
            return Err((
                loc,
                format!("EXTRACT({other} ..) is not supported: use YEAR, MONTH or DAY"),
            ));
        }
    };
    Ok(Scalar::Extract(field, Box::new(e)))
}

/// `CASE [operand] WHEN .. THEN .. ELSE else_result END`, built from the
/// last branch up, with branches of constant conditions folded away.
fn case(
    operand: Option<&Expr>,
    conditions: &[sqlparser::ast::CaseWhen],
    else_result: Option<&Expr>,
    loc: Loc,
    resolve: &Resolve<'_>,
) -> Result<Scalar, (Loc, String)> {
    use sqlparser::ast::Spanned;
    let operand = operand.map(|o| scalar(o, resolve)).transpose()?;
    // Without ELSE, NULL.
    let mut out = match else_result {
        Some(e) => scalar(e, resolve)?,
        None => Scalar::Null(SqlType::Bool),
    };
    for when in conditions.iter().rev() {
        let condition = scalar(&when.condition, resolve)?;
        let condition = match &operand {
            Some(o) => compare(Cmp::Eq, o.clone(), condition, loc)?,
            None => {
                bool_operand(&condition, when.condition.span())?;
                condition
            }
        };
        let result = scalar(&when.result, resolve)?;
        let (result, rest) = typed_nulls(result, out);
        out = rest;
        let ty = result.ty().common(out.ty()).ok_or_else(|| {
            (
                loc,
                format!(
                    "the branches of a CASE are a {} and a {}",
                    result.ty().name(),
                    out.ty().name()
                ),
            )
        })?;
        out = match condition {
            Scalar::Const(Value::Bool(true)) => result,
            Scalar::Const(Value::Bool(false)) => out,
            condition => Scalar::Case(Box::new(condition), Box::new(result), Box::new(out), ty),
        };
    }
    Ok(out)
}

/// Two operands with a NULL among them: a NULL takes the other's type.
fn typed_nulls(a: Scalar, b: Scalar) -> (Scalar, Scalar) {
    match (a, b) {
        (Scalar::Null(_), b) if !matches!(b, Scalar::Null(_)) => (Scalar::Null(b.ty()), b),
        (a, Scalar::Null(_)) if !matches!(a, Scalar::Null(_)) => {
            let ty = a.ty();
            (a, Scalar::Null(ty))
        }
        pair => pair,
    }
}

/// `e IS [NOT] NULL`, folded where `e` cannot be NULL or always is.
pub fn is_null(e: Scalar, not: bool) -> Scalar {
    match e {
        Scalar::Null(_) => Scalar::Const(Value::Bool(!not)),
        e if !e.nullable() && e.columns().is_empty() => Scalar::Const(Value::Bool(not)),
        e => Scalar::IsNull(Box::new(e), not),
    }
}

/// The arguments of a function call, each an expression.
pub(super) fn arguments(
    f: &sqlparser::ast::Function,
    loc: Loc,
) -> Result<Vec<&Expr>, (Loc, String)> {
    use sqlparser::ast::{FunctionArg, FunctionArgExpr, FunctionArguments};
    let FunctionArguments::List(list) = &f.args else {
        return Err((loc, format!("{} needs an argument list", f.name)));
    };
    list.args
        .iter()
        .map(|arg| match arg {
            FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) => Ok(e),
            _ => Err((loc, format!("{} takes expressions", f.name))),
        })
        .collect()
}

/// Which of GREATEST and LEAST a call is (DBToaster's `LISTMAX` and
/// `LISTMIN` name them too).
fn extreme_of(f: &sqlparser::ast::Function) -> Option<Cmp> {
    match f.name.to_string().to_lowercase().as_str() {
        "greatest" | "listmax" => Some(Cmp::Ge),
        "least" | "listmin" => Some(Cmp::Le),
        _ => None,
    }
}

/// `GREATEST(a, b, ..)` or `LEAST(a, b, ..)` as PostgreSQL reads them:
/// the largest (smallest) argument that is not NULL, NULL when all are;
/// in their common type. Written as CASEs, left to right.
fn extreme(
    f: &sqlparser::ast::Function,
    loc: Loc,
    resolve: &Resolve<'_>,
) -> Result<Scalar, (Loc, String)> {
    let cmp = extreme_of(f).expect("GREATEST or LEAST");
    let mut args = Vec::new();
    for e in arguments(f, loc)? {
        match scalar(e, resolve)? {
            Scalar::Null(_) => {}
            e => args.push(e),
        }
    }
    let mut args = args.into_iter();
    let Some(mut out) = args.next() else {
        return Ok(Scalar::Null(SqlType::BigInt));
    };
    for b in args {
        let ty = out.ty().common(b.ty()).ok_or_else(|| {
            (
                loc,
                format!(
                    "the arguments of {} are a {} and a {}",
                    f.name,
                    out.ty().name(),
                    b.ty().name()
                ),
            )
        })?;
        let a = out;
        // `CASE WHEN b IS NULL OR a >= b THEN a ELSE b END`: a NULL
        // argument is passed over, since `a >= b` is not true where `a`
        // is NULL. Two branches, not one per NULL: each value once.
        let mut wins = compare(cmp, a.clone(), b.clone(), loc)?;
        if b.nullable() {
            wins = Scalar::Or(Box::new(is_null(b.clone(), false)), Box::new(wins));
        }
        out = Scalar::Case(Box::new(wins), Box::new(a), Box::new(b), ty);
    }
    Ok(out)
}

/// `DATE_PART('year', d)`: `EXTRACT(YEAR FROM d)`, and so for `'month'`
/// and `'day'`.
fn date_part(
    f: &sqlparser::ast::Function,
    loc: Loc,
    resolve: &Resolve<'_>,
) -> Result<Scalar, (Loc, String)> {
    let args = arguments(f, loc)?;
    let [field, date] = args.as_slice() else {
        return Err((
            loc,
            "DATE_PART takes a field and a date: DATE_PART('year', d)".to_string(),
        ));
    };
    let field = match field {
        Expr::Value(v) => match &v.value {
            SqlValue::SingleQuotedString(s) => s.to_lowercase(),
            _ => String::new(),
        },
        _ => String::new(),
    };
    let field = match field.as_str() {
        "year" => DateTimeField::Year,
        "month" => DateTimeField::Month,
        "day" => DateTimeField::Day,
        _ => {
            return Err((
                loc,
                "DATE_PART takes 'year', 'month' or 'day' as its first argument".to_string(),
            ));
        }
    };
    extract(&field, scalar(date, resolve)?, loc)
}

/// SQL's `CAST(e AS type)` where it loses nothing: an integer to any integer
/// type (all are computed as `BIGINT`), to a DECIMAL or a DOUBLE; a
/// DECIMAL to a DOUBLE or to a scale at least its own; a type to itself;
/// a text constant to a DATE. Rounding and text conversions differ from
/// one database to another, and are errors.
fn sql_cast(
    e: Scalar,
    data_type: &sqlparser::ast::DataType,
    loc: Loc,
) -> Result<Scalar, (Loc, String)> {
    let target = SqlType::of(data_type).map_err(|m| (loc, m))?.computed();
    let source = e.ty().computed();
    let zero = |v: Value| arithmetic(&BinaryOperator::Plus, e.clone(), Scalar::Const(v), loc);
    match (source, target) {
        _ if matches!(e, Scalar::Null(_)) => Ok(Scalar::Null(target)),
        (s, t) if s == t => Ok(e),
        (SqlType::BigInt, SqlType::BigInt) => Ok(e),
        (SqlType::BigInt, SqlType::Decimal(scale)) => zero(Value::Decimal {
            mantissa: 0,
            scale: scale.unwrap_or(0),
        }),
        (SqlType::Decimal(Some(from)), SqlType::Decimal(Some(to))) if to >= from => {
            zero(Value::Decimal {
                mantissa: 0,
                scale: to,
            })
        }
        (SqlType::Decimal(_), SqlType::Decimal(None)) => Ok(e),
        (SqlType::BigInt | SqlType::Decimal(_), SqlType::Double) => zero(Value::Double(0.0)),
        (SqlType::Text, SqlType::Date) => match e {
            Scalar::Const(Value::Text(text)) => parse_date(&text)
                .map(|d| Scalar::Const(Value::Date(d)))
                .ok_or_else(|| (loc, format!("`{text}` is not a date (yyyy-mm-dd)"))),
            _ => Err((
                loc,
                "CAST of a text column to DATE is not supported: store the column as a DATE"
                    .to_string(),
            )),
        },
        (s, t) => Err((
            loc,
            format!(
                "CAST from {} to {} is not supported: a cast that rounds or converts text differs between databases; casts that lose nothing are (an integer to a DECIMAL or DOUBLE, a DECIMAL to a wider scale or a DOUBLE, text constants to DATE)",
                s.name(),
                t.name()
            ),
        )),
    }
}

/// `COALESCE(a, b, ..)`: its arguments in their common type, up to the
/// first that cannot be NULL (the rest are never read).
fn coalesce(
    f: &sqlparser::ast::Function,
    loc: Loc,
    resolve: &Resolve<'_>,
) -> Result<Scalar, (Loc, String)> {
    use sqlparser::ast::{FunctionArg, FunctionArgExpr, FunctionArguments};
    let FunctionArguments::List(list) = &f.args else {
        return Err((loc, "COALESCE needs an argument list".to_string()));
    };
    let mut args = Vec::new();
    for arg in &list.args {
        let FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) = arg else {
            return Err((loc, "COALESCE takes expressions".to_string()));
        };
        let e = scalar(e, resolve)?;
        if matches!(e, Scalar::Null(_)) {
            continue;
        }
        let last = !e.nullable();
        args.push(e);
        if last {
            break;
        }
    }
    let mut ty: Option<SqlType> = None;
    for a in &args {
        ty = Some(match ty {
            None => a.ty(),
            Some(t) => t.common(a.ty()).ok_or_else(|| {
                (
                    loc,
                    format!(
                        "the arguments of COALESCE are a {} and a {}",
                        t.name(),
                        a.ty().name()
                    ),
                )
            })?,
        });
    }
    Ok(match (args.len(), ty) {
        (_, None) => Scalar::Null(SqlType::Bool),
        (1, _) => args.pop().expect("one argument"),
        (_, Some(ty)) => Scalar::Coalesce(args, ty),
    })
}

/// The error for an expression outside the fragment, saying what is
/// supported instead where there is something.
fn unsupported(expr: &Expr, loc: Loc) -> (Loc, String) {
    match expr {
        Expr::Interval(_) => (
            loc,
            "an INTERVAL may only be added to or subtracted from a DATE constant".to_string(),
        ),
        Expr::Subquery(_) | Expr::In { .. } | Expr::Exists { .. } => (
            loc,
            "a subquery is supported only as a condition of WHERE joined by AND: `[NOT] EXISTS (SELECT ..)` or `col [NOT] IN (SELECT col ..)`; scalar subqueries, and subqueries under OR or in the select list, are not".to_string(),
        ),
        Expr::Function(f) => (
            loc,
            format!(
                "the function `{}` is not supported here (aggregates belong in the select list, over columns)",
                f.name
            ),
        ),
        other => (loc, format!("`{other}` is not supported in a view")),
    }
}

/// `NOT e`, folded into a constant or a comparison where it can be.
pub fn negate(e: Scalar) -> Scalar {
    match e {
        Scalar::Const(Value::Bool(b)) => Scalar::Const(Value::Bool(!b)),
        Scalar::Cmp(op, a, b) => Scalar::Cmp(op.negated(), a, b),
        Scalar::Not(e) => *e,
        Scalar::Null(t) => Scalar::Null(t),
        e => Scalar::Not(Box::new(e)),
    }
}

fn literal(v: &SqlValue) -> Option<Value> {
    match v {
        SqlValue::Number(n, _) => Value::number(n),
        SqlValue::SingleQuotedString(s) => Some(Value::Text(s.clone())),
        SqlValue::Boolean(b) => Some(Value::Bool(*b)),
        _ => None,
    }
}

fn bool_operand(e: &Scalar, loc: Loc) -> Result<(), (Loc, String)> {
    if e.ty() == SqlType::Bool || matches!(e, Scalar::Null(_)) {
        Ok(())
    } else {
        Err((
            loc,
            format!("expected a condition, found a {}", e.ty().name()),
        ))
    }
}

/// `a op b`, of the SQL expression whose right operand is `right`: a
/// connective, a comparison, a date moved by an interval, or arithmetic.
fn binary(
    op: &BinaryOperator,
    a: Scalar,
    b: Scalar,
    loc: Loc,
    right: &Expr,
) -> Result<Scalar, (Loc, String)> {
    Ok(match op {
        BinaryOperator::And | BinaryOperator::Or => connective(op, a, b, loc)?,
        BinaryOperator::Eq => compare(Cmp::Eq, a, b, loc)?,
        BinaryOperator::NotEq => compare(Cmp::Ne, a, b, loc)?,
        BinaryOperator::Lt => compare(Cmp::Lt, a, b, loc)?,
        BinaryOperator::LtEq => compare(Cmp::Le, a, b, loc)?,
        BinaryOperator::Gt => compare(Cmp::Gt, a, b, loc)?,
        BinaryOperator::GtEq => compare(Cmp::Ge, a, b, loc)?,
        BinaryOperator::Plus | BinaryOperator::Minus
            if a.ty() == SqlType::Date && matches!(right, Expr::Interval(_)) =>
        {
            let Expr::Interval(interval) = right else {
                unreachable!()
            };
            move_date(op, a, interval, loc)?
        }
        _ if matches!(right, Expr::Interval(_)) => {
            return Err((
                loc,
                "an INTERVAL may only be added to or subtracted from a DATE constant".to_string(),
            ));
        }
        BinaryOperator::Plus
        | BinaryOperator::Minus
        | BinaryOperator::Multiply
        | BinaryOperator::Divide
        | BinaryOperator::Modulo => arithmetic(op, a, b, loc)?,
        other => return Err((loc, format!("the operator `{other}` is not supported"))),
    })
}

/// `a AND b` or `a OR b`, with a constant operand that decides nothing
/// folded away.
fn connective(
    op: &BinaryOperator,
    a: Scalar,
    b: Scalar,
    loc: Loc,
) -> Result<Scalar, (Loc, String)> {
    bool_operand(&a, loc)?;
    bool_operand(&b, loc)?;
    Ok(match (op, a, b) {
        (BinaryOperator::And, Scalar::Const(Value::Bool(false)), _)
        | (BinaryOperator::And, _, Scalar::Const(Value::Bool(false))) => {
            Scalar::Const(Value::Bool(false))
        }
        (BinaryOperator::Or, Scalar::Const(Value::Bool(true)), _)
        | (BinaryOperator::Or, _, Scalar::Const(Value::Bool(true))) => {
            Scalar::Const(Value::Bool(true))
        }
        (BinaryOperator::And, Scalar::Const(Value::Bool(true)), e)
        | (BinaryOperator::And, e, Scalar::Const(Value::Bool(true)))
        | (BinaryOperator::Or, Scalar::Const(Value::Bool(false)), e)
        | (BinaryOperator::Or, e, Scalar::Const(Value::Bool(false))) => e,
        (BinaryOperator::And, a, b) => Scalar::And(Box::new(a), Box::new(b)),
        (_, a, b) => Scalar::Or(Box::new(a), Box::new(b)),
    })
}

/// A date constant `a` plus or minus (`op`) an interval of days, months
/// or years, folded into the date it gives.
fn move_date(
    op: &BinaryOperator,
    a: Scalar,
    interval: &sqlparser::ast::Interval,
    loc: Loc,
) -> Result<Scalar, (Loc, String)> {
    let Scalar::Const(Value::Date(days)) = a else {
        return Err((
            loc,
            "an INTERVAL may only be added to a DATE constant, not to a column".to_string(),
        ));
    };
    let sign = if matches!(op, BinaryOperator::Minus) {
        -1
    } else {
        1
    };
    let amount = match &*interval.value {
        Expr::Value(v) => match &v.value {
            SqlValue::SingleQuotedString(s) | SqlValue::Number(s, _) => {
                s.trim().parse::<i32>().ok()
            }
            _ => None,
        },
        _ => None,
    }
    .ok_or((
        loc,
        "write an interval as INTERVAL 'n' DAY, MONTH or YEAR".to_string(),
    ))?;
    let moved = match interval.leading_field {
        Some(DateTimeField::Day) => days.checked_add(sign * amount),
        Some(DateTimeField::Month) => add_months(days, sign * amount),
        Some(DateTimeField::Year) => add_months(days, sign * amount * 12),
        _ => {
            return Err((
                loc,
                "write an interval as INTERVAL 'n' DAY, MONTH or YEAR".to_string(),
            ));
        }
    }
    .ok_or((loc, "the date leaves the calendar".to_string()))?;
    Ok(Scalar::Const(Value::Date(moved)))
}

/// `a op b` for `+`, `-`, `*`, `/` or `%`: in the operands' common
/// numeric type, folded where both are constants; a row expression divides
/// only by a non-zero constant.
fn arithmetic(
    op: &BinaryOperator,
    a: Scalar,
    b: Scalar,
    loc: Loc,
) -> Result<Scalar, (Loc, String)> {
    // NULL of the other operand's type, whatever the operator.
    match (&a, &b) {
        (Scalar::Null(_), Scalar::Null(_)) => return Ok(Scalar::Null(SqlType::BigInt)),
        (Scalar::Null(_), e) | (e, Scalar::Null(_)) if e.ty().is_number() => {
            return Ok(Scalar::Null(e.ty().computed()));
        }
        _ => {}
    }
    let arith = match op {
        BinaryOperator::Plus => Arith::Add,
        BinaryOperator::Minus => Arith::Sub,
        BinaryOperator::Multiply => Arith::Mul,
        BinaryOperator::Divide => Arith::Div,
        _ => Arith::Rem,
    };
    let ty = a
        .ty()
        .common(b.ty())
        .filter(|t| t.is_number())
        .ok_or_else(|| {
            (
                loc,
                format!(
                    "cannot compute `{op}` of a {} and a {}",
                    a.ty().name(),
                    b.ty().name()
                ),
            )
        })?;
    let ty = match (arith, ty) {
        (Arith::Mul, SqlType::Decimal(_)) => {
            SqlType::Decimal(scale(&a).zip(scale(&b)).map(|(x, y)| x + y))
        }
        _ => ty,
    };
    if arith == Arith::Rem && ty != SqlType::BigInt {
        return Err((loc, format!("`%` takes integers, found a {}", ty.name())));
    }
    if let (Scalar::Const(x), Scalar::Const(y)) = (&a, &b)
        && let Some(v) = fold(arith, x, y, ty)
    {
        return Ok(Scalar::Const(v));
    }
    if matches!(arith, Arith::Div | Arith::Rem) && !matches!(&b, Scalar::Const(v) if !v.is_zero()) {
        return Err((
            loc,
            format!(
                "{} in a row expression is supported by a non-zero constant only",
                if arith == Arith::Div {
                    "division"
                } else {
                    "`%`"
                }
            ),
        ));
    }
    if arith == Arith::Div && matches!(ty, SqlType::Decimal(_)) {
        return Err((
            loc,
            "division of a DECIMAL in a row expression is not supported yet".to_string(),
        ));
    }
    Ok(Scalar::Arith(arith, Box::new(a), Box::new(b), ty))
}

fn scale(e: &Scalar) -> Option<u32> {
    match e.ty() {
        SqlType::Decimal(s) => s,
        t if t.is_integer() => Some(0),
        _ => None,
    }
}

/// Folds arithmetic of two constants in type `ty`.
fn fold(op: Arith, x: &Value, y: &Value, ty: SqlType) -> Option<Value> {
    match ty {
        SqlType::BigInt => {
            let (Value::Int(x), Value::Int(y)) = (x, y) else {
                return None;
            };
            Some(Value::Int(match op {
                Arith::Add => x.checked_add(*y)?,
                Arith::Sub => x.checked_sub(*y)?,
                Arith::Mul => x.checked_mul(*y)?,
                Arith::Div => x.checked_div(*y)?,
                Arith::Rem => x.checked_rem(*y)?,
            }))
        }
        SqlType::Decimal(_) => {
            let as_decimal = |v: &Value| match v {
                Value::Int(i) => Some((i128::from(*i), 0u32)),
                Value::Decimal { mantissa, scale } => Some((*mantissa, *scale)),
                _ => None,
            };
            let ((xm, xs), (ym, ys)) = (as_decimal(x)?, as_decimal(y)?);
            let s = xs.max(ys);
            let xm = xm.checked_mul(10i128.checked_pow(s - xs)?)?;
            let ym = ym.checked_mul(10i128.checked_pow(s - ys)?)?;
            let (mantissa, scale) = match op {
                Arith::Add => (xm.checked_add(ym)?, s),
                Arith::Sub => (xm.checked_sub(ym)?, s),
                Arith::Mul => (as_decimal(x)?.0.checked_mul(as_decimal(y)?.0)?, xs + ys),
                Arith::Div | Arith::Rem => return None,
            };
            (scale <= 18 && i64::try_from(mantissa).is_ok())
                .then_some(Value::Decimal { mantissa, scale })
        }
        SqlType::Double => {
            let (Value::Double(x), Value::Double(y)) = (x.cast(ty)?, y.cast(ty)?) else {
                return None;
            };
            Some(Value::Double(match op {
                Arith::Add => x + y,
                Arith::Sub => x - y,
                Arith::Mul => x * y,
                Arith::Div => x / y,
                Arith::Rem => return None,
            }))
        }
        _ => None,
    }
}

/// `a op b`, where the operands' types have a common one.
pub fn compare(op: Cmp, a: Scalar, b: Scalar, loc: Loc) -> Result<Scalar, (Loc, String)> {
    if matches!(a, Scalar::Null(_)) || matches!(b, Scalar::Null(_)) {
        return Ok(Scalar::Null(SqlType::Bool));
    }
    if a.ty().common(b.ty()).is_none() {
        return Err((
            loc,
            format!(
                "cannot compare a {} with a {}",
                a.ty().name(),
                b.ty().name()
            ),
        ));
    }
    // Two constants are compared now (a SELECT without FROM leaves such
    // conditions behind: `WHERE 2 > 1`).
    if let (Scalar::Const(x), Scalar::Const(y)) = (&a, &b)
        && let Some(order) = const_order(x, y)
    {
        use std::cmp::Ordering::{Equal, Greater, Less};
        let holds = match op {
            Cmp::Eq => order == Equal,
            Cmp::Ne => order != Equal,
            Cmp::Lt => order == Less,
            Cmp::Le => order != Greater,
            Cmp::Gt => order == Greater,
            Cmp::Ge => order != Less,
        };
        return Ok(Scalar::Const(Value::Bool(holds)));
    }
    Ok(Scalar::Cmp(op, Box::new(a), Box::new(b)))
}

/// The order of two constants of comparable types, exactly (integers and
/// decimals as fractions); `None` for doubles and mixed types.
fn const_order(x: &Value, y: &Value) -> Option<std::cmp::Ordering> {
    let fraction = |v: &Value| match v {
        Value::Int(i) => Some((i128::from(*i), 0u32)),
        Value::Decimal { mantissa, scale } => Some((*mantissa, *scale)),
        _ => None,
    };
    match (x, y) {
        (Value::Text(a), Value::Text(b)) => Some(a.cmp(b)),
        (Value::Date(a), Value::Date(b)) => Some(a.cmp(b)),
        (Value::Bool(a), Value::Bool(b)) => Some(a.cmp(b)),
        _ => {
            let ((a, sa), (b, sb)) = (fraction(x)?, fraction(y)?);
            let scale = sa.max(sb);
            let up = |m: i128, s: u32| m.checked_mul(10i128.checked_pow(scale - s)?);
            Some(up(a, sa)?.cmp(&up(b, sb)?))
        }
    }
}
