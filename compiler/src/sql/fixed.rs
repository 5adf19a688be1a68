//! A `SUM` over decimals of a declared scale, in fixed point
//! (docs/design.md#sums-in-fixed-point): the payload component is an
//! `ivm::sql::Fixed<S>`, and a row's term is computed on integer
//! mantissas, each subexpression at the scale its SQL type gives it, so
//! that no `Decimal` is built, aligned or checked per row.
//!
//! `l_extendedprice * (1 - l_discount)` over two `DECIMAL(15, 2)` columns
//! is `fixed::mul(fixed::of(&l_extendedprice, 2), fixed::sub(100,
//! fixed::of(&l_discount, 2)))`, a mantissa at scale 4: the constant `1`
//! is brought to scale 2 here, at compile time.

use proc_macro2::{Literal, TokenStream};
use quote::quote;

use super::expr::{Arith, Column, Scalar};
use super::types::{SqlType, Value};

/// A mantissa: known at compile time, or computed by an expression of
/// type `i128`.
enum Mantissa {
    Const(i128),
    Expr(TokenStream),
    /// `if cond { a } else { b }`: a CASE, kept apart so that scaling
    /// reaches its branches (`if like(..) { 10000 } else { 0 }`).
    Choice(TokenStream, Box<Mantissa>, Box<Mantissa>),
}

/// A mantissa with its scale: the value is the mantissa times 10^(−scale).
pub(super) struct Scaled {
    mantissa: Mantissa,
    scale: u32,
}

impl Mantissa {
    fn tokens(self) -> TokenStream {
        match self {
            Mantissa::Const(c) => {
                let lit = Literal::i128_unsuffixed(c);
                quote! { #lit }
            }
            Mantissa::Expr(e) => e,
            // A CASE of several WHENs reads as the `else if` chain it is.
            Mantissa::Choice(c, a, b) if matches!(*b, Mantissa::Choice(..)) => {
                let (a, b) = (a.tokens(), b.tokens());
                quote! { if #c { #a } else #b }
            }
            Mantissa::Choice(c, a, b) => {
                let (a, b) = (a.tokens(), b.tokens());
                quote! { if #c { #a } else { #b } }
            }
        }
    }

    /// `self` times 10^`by`; `None` where a constant leaves `i128`.
    fn shifted(self, by: u32) -> Option<Mantissa> {
        if by == 0 {
            return Some(self);
        }
        let unit = 10i128.checked_pow(by)?;
        Some(match self {
            Mantissa::Const(c) => Mantissa::Const(c.checked_mul(unit)?),
            Mantissa::Expr(e) => {
                let unit = Literal::i128_unsuffixed(unit);
                Mantissa::Expr(quote! { ::ivm::sql::fixed::mul(#e, #unit) })
            }
            Mantissa::Choice(c, a, b) => {
                Mantissa::Choice(c, Box::new(a.shifted(by)?), Box::new(b.shifted(by)?))
            }
        })
    }

    /// `op` of two mantissas, folded where both are constants.
    fn arith(op: Arith, a: Mantissa, b: Mantissa) -> Option<Mantissa> {
        if let (Mantissa::Const(x), Mantissa::Const(y)) = (&a, &b) {
            return match op {
                Arith::Add => x.checked_add(*y),
                Arith::Sub => x.checked_sub(*y),
                _ => x.checked_mul(*y),
            }
            .map(Mantissa::Const);
        }
        // A factor of one is no factor.
        match (op, &a, &b) {
            (Arith::Mul, Mantissa::Const(1), _) => return Some(b),
            (Arith::Mul, _, Mantissa::Const(1)) => return Some(a),
            _ => {}
        }
        let f = match op {
            Arith::Add => quote! { add },
            Arith::Sub => quote! { sub },
            _ => quote! { mul },
        };
        let (a, b) = (a.tokens(), b.tokens());
        Some(Mantissa::Expr(quote! { ::ivm::sql::fixed::#f(#a, #b) }))
    }
}

impl Scaled {
    /// `op` of two scaled mantissas: a sum or difference at the larger
    /// scale, a product at the sum of the scales.
    fn arith(op: Arith, a: Scaled, b: Scaled) -> Option<Scaled> {
        let (a, b, scale) = match op {
            Arith::Add | Arith::Sub => {
                let scale = a.scale.max(b.scale);
                (
                    a.mantissa.shifted(scale - a.scale)?,
                    b.mantissa.shifted(scale - b.scale)?,
                    scale,
                )
            }
            Arith::Mul => (a.mantissa, b.mantissa, a.scale + b.scale),
            _ => return None,
        };
        Some(Scaled {
            mantissa: Mantissa::arith(op, a, b)?,
            scale,
        })
    }

    /// The product of `factors` at scale `scale`: the term of one row.
    pub(super) fn product_at(factors: Vec<Scaled>, scale: u32) -> Option<TokenStream> {
        let one = Scaled {
            mantissa: Mantissa::Const(1),
            scale: 0,
        };
        let product = factors
            .into_iter()
            .try_fold(one, |acc, f| Scaled::arith(Arith::Mul, acc, f))?;
        let shift = scale.checked_sub(product.scale)?;
        Some(product.mantissa.shifted(shift)?.tokens())
    }
}

/// `e`'s value as a mantissa, computed on integers; `None` for an `e`
/// that can be NULL or is not an exact number (a `DOUBLE`, or a `DECIMAL`
/// of no declared scale).
///
/// Sums, differences and products of decimals are taken apart here; any
/// other exact number (an integer expression, a CASE over decimals) is
/// computed as generated code computes it elsewhere and read at its
/// type's scale, which its values never exceed.
pub(super) fn mantissa(e: &Scalar, name: &dyn Fn(Column) -> syn::Ident) -> Option<Scaled> {
    if e.nullable() {
        return None;
    }
    let scaled = |mantissa, scale| Some(Scaled { mantissa, scale });
    match (e, e.ty()) {
        (Scalar::Const(Value::Int(i)), _) => scaled(Mantissa::Const(i128::from(*i)), 0),
        (Scalar::Const(Value::Decimal { mantissa, scale }), _) => {
            scaled(Mantissa::Const(*mantissa), *scale)
        }
        (
            Scalar::Arith(op @ (Arith::Add | Arith::Sub | Arith::Mul), a, b, _),
            SqlType::Decimal(_),
        ) => Scaled::arith(*op, mantissa(a, name)?, mantissa(b, name)?),
        (Scalar::Neg(a), SqlType::Decimal(_)) => {
            let zero = Scaled {
                mantissa: Mantissa::Const(0),
                scale: 0,
            };
            Scaled::arith(Arith::Sub, zero, mantissa(a, name)?)
        }
        (Scalar::Case(c, a, b, _), _) => {
            let (a, b) = (mantissa(a, name)?, mantissa(b, name)?);
            let scale = a.scale.max(b.scale);
            let (a, b) = (
                a.mantissa.shifted(scale - a.scale)?,
                b.mantissa.shifted(scale - b.scale)?,
            );
            // Taken where the condition is true: not where it is NULL.
            let cond = super::expr::bare(c.truth(name));
            scaled(Mantissa::Choice(cond, Box::new(a), Box::new(b)), scale)
        }
        (Scalar::Column(c), SqlType::Decimal(Some(s))) => {
            let (v, lit) = (name(*c), Literal::u32_unsuffixed(s));
            scaled(
                Mantissa::Expr(quote! { ::ivm::sql::fixed::of(&#v, #lit) }),
                s,
            )
        }
        (_, SqlType::Decimal(Some(s))) => {
            let (v, lit) = (super::expr::bare(e.rust(name)), Literal::u32_unsuffixed(s));
            scaled(
                Mantissa::Expr(quote! { ::ivm::sql::fixed::of(&#v, #lit) }),
                s,
            )
        }
        (_, t) if t.is_integer() => {
            let v = super::expr::bare(e.rust(name));
            scaled(Mantissa::Expr(quote! { i128::from(#v) }), 0)
        }
        _ => None,
    }
}
