//! What the nesting pass does with sqlparser's expressions: walking them
//! (column references, whether NULL rejects a row), taking scalar
//! subqueries out and putting values in, and building the few nodes it
//! writes (qualified columns, conjunctions, FROM items) with spans that
//! point at the SQL they stand for.

use sqlparser::ast::{
    BinaryOperator, Expr, Ident as SqlIdent, InTarget, ObjectName, ObjectNamePart, Query, Select,
    SelectItem, SetExpr, TableAlias, TableFactor, UnaryOperator,
};
use sqlparser::tokenizer::Span as Loc;

/// Whether `e` holds a subquery anywhere.
pub(super) fn has_subquery(e: &Expr) -> bool {
    let mut found = false;
    visit(e, &mut |e| {
        if matches!(
            e,
            Expr::Subquery(_)
                | Expr::Exists { .. }
                | Expr::In {
                    target: InTarget::Subquery(_),
                    ..
                }
        ) {
            found = true;
        }
    });
    found
}

/// The column references of `e`, outside its subqueries.
pub(super) fn column_refs(e: &Expr) -> Vec<Vec<SqlIdent>> {
    let mut refs = Vec::new();
    visit(e, &mut |e| match e {
        Expr::Identifier(id) => refs.push(vec![id.clone()]),
        Expr::CompoundIdentifier(ids) => refs.push(ids.clone()),
        _ => {}
    });
    refs
}

/// `e` as one column reference, if it is one.
pub(super) fn column_ref(e: &Expr) -> Option<Vec<SqlIdent>> {
    match e {
        Expr::Identifier(id) => Some(vec![id.clone()]),
        Expr::CompoundIdentifier(ids) => Some(ids.clone()),
        Expr::Nested(e) => column_ref(e),
        _ => None,
    }
}

pub(super) fn ident_loc(r: &[SqlIdent]) -> Loc {
    Loc::union_iter(r.iter().map(|i| i.span))
}

/// Whether NULL in an operand of `e` makes `e` NULL or false, so that a
/// conjunct built of such operators drops a row with a NULL.
pub(super) fn keeps_strict(e: &Expr) -> bool {
    match e {
        Expr::BinaryOp { op, .. } => !matches!(op, BinaryOperator::Or),
        Expr::UnaryOp { .. }
        | Expr::Nested(_)
        | Expr::Between { .. }
        | Expr::In { .. }
        | Expr::Like { .. }
        | Expr::Cast { .. }
        | Expr::Extract { .. } => true,
        _ => false,
    }
}

/// Whether select item `e` is an aggregate (not COUNT) of an argument
/// that is NULL where something `reads` is: it reads it under arithmetic
/// only.
pub(super) fn aggregates_strictly(e: &Expr, reads: &dyn Fn(&Expr) -> bool) -> bool {
    use sqlparser::ast::{FunctionArg, FunctionArgExpr, FunctionArguments};
    match e {
        Expr::Nested(e) => aggregates_strictly(e, reads),
        Expr::Function(f) if !f.name.to_string().eq_ignore_ascii_case("count") => {
            let FunctionArguments::List(list) = &f.args else {
                return false;
            };
            matches!(
                list.args.as_slice(),
                [FunctionArg::Unnamed(FunctionArgExpr::Expr(arg))] if strictly_reads(arg, reads)
            )
        }
        _ => false,
    }
}

/// Whether `e` is NULL where something `reads` is: it reads it under
/// arithmetic only.
pub(super) fn strictly_reads(e: &Expr, reads: &dyn Fn(&Expr) -> bool) -> bool {
    if reads(e) {
        return true;
    }
    match e {
        Expr::Nested(e) | Expr::UnaryOp { expr: e, .. } => strictly_reads(e, reads),
        Expr::BinaryOp { left, op, right } => {
            matches!(
                op,
                BinaryOperator::Plus
                    | BinaryOperator::Minus
                    | BinaryOperator::Multiply
                    | BinaryOperator::Divide
            ) && (strictly_reads(left, reads) || strictly_reads(right, reads))
        }
        _ => false,
    }
}

/// Whether `e` is a scalar subquery taken out by [`take_scalars`].
pub(super) fn is_slot(e: &Expr) -> bool {
    matches!(e, Expr::Identifier(id) if id.value.starts_with('\u{0}'))
}

/// Takes each scalar subquery of `e` out, with whether NULL in its place
/// would reject the row; it is put back by [`replace_slot`].
pub(super) fn take_scalars(e: &mut Expr, strict: bool, out: &mut Vec<(usize, Query, bool)>) {
    if let Expr::Subquery(query) = e {
        let slot = out.len();
        out.push(((slot), (**query).clone(), strict));
        *e = Expr::Identifier(SqlIdent::new(slot_name(slot)));
        return;
    }
    if matches!(
        e,
        Expr::Exists { .. }
            | Expr::In {
                target: InTarget::Subquery(_),
                ..
            }
    ) {
        return;
    }
    let keeps = strict && keeps_strict(e);
    children_mut(e, &mut |child| take_scalars(child, keeps, out));
}

pub(super) fn slot_name(slot: usize) -> String {
    format!("\u{0}scalar{slot}")
}

/// Puts `value` where [`take_scalars`] took scalar subquery `slot` out.
pub(super) fn replace_slot(e: &mut Expr, slot: usize, value: Expr) {
    let mut value = Some(value);
    fn go(e: &mut Expr, name: &str, value: &mut Option<Expr>) {
        if let Expr::Identifier(id) = e
            && id.value == name
        {
            if let Some(v) = value.take() {
                *e = v;
            }
            return;
        }
        children_mut(e, &mut |child| go(child, name, value));
    }
    go(e, &slot_name(slot), &mut value);
}

/// Calls `f` on `e` and every expression under it, outside subqueries.
pub(super) fn visit(e: &Expr, f: &mut dyn FnMut(&Expr)) {
    f(e);
    children(e, &mut |child| visit(child, f));
}

/// The operands of the expression forms the SQL front end reads.
pub(super) fn children(e: &Expr, f: &mut dyn FnMut(&Expr)) {
    let mut owned = e.clone();
    children_mut(&mut owned, &mut |child| f(child));
}

/// The operands of the expression forms the SQL front end reads,
/// mutably (a subquery's are its own).
pub(super) fn children_mut(e: &mut Expr, f: &mut dyn FnMut(&mut Expr)) {
    use sqlparser::ast::{FunctionArg, FunctionArgExpr, FunctionArguments};
    match e {
        Expr::BinaryOp { left, right, .. } => {
            f(left);
            f(right);
        }
        Expr::UnaryOp { expr, .. }
        | Expr::Nested(expr)
        | Expr::IsNull(expr)
        | Expr::IsNotNull(expr)
        | Expr::IsTrue(expr)
        | Expr::IsFalse(expr)
        | Expr::Cast { expr, .. }
        | Expr::Extract { expr, .. } => f(expr),
        Expr::In {
            expr,
            target: InTarget::Subquery(_),
            ..
        } => f(expr),
        Expr::Between {
            expr, low, high, ..
        } => {
            f(expr);
            f(low);
            f(high);
        }
        Expr::In {
            expr,
            target: InTarget::List(list),
            ..
        } => {
            f(expr);
            list.iter_mut().for_each(&mut *f);
        }
        Expr::Like { expr, pattern, .. } | Expr::ILike { expr, pattern, .. } => {
            f(expr);
            f(pattern);
        }
        Expr::Case {
            operand,
            conditions,
            else_result,
            ..
        } => {
            if let Some(o) = operand {
                f(o);
            }
            for when in conditions {
                f(&mut when.condition);
                f(&mut when.result);
            }
            if let Some(e) = else_result {
                f(e);
            }
        }
        Expr::Substring {
            expr,
            substring_from,
            substring_for,
            ..
        } => {
            f(expr);
            if let Some(e) = substring_from {
                f(e);
            }
            if let Some(e) = substring_for {
                f(e);
            }
        }
        Expr::Function(func) => {
            if let FunctionArguments::List(list) = &mut func.args {
                for arg in &mut list.args {
                    if let FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) = arg {
                        f(e);
                    }
                }
            }
        }
        _ => {}
    }
}

/// The conjuncts of `e`, its `AND`s (and parentheses) taken apart.
pub(super) fn split_and(e: Expr, out: &mut Vec<Expr>) {
    match e {
        Expr::BinaryOp {
            left,
            op: BinaryOperator::And,
            right,
        } => {
            split_and(*left, out);
            split_and(*right, out);
        }
        Expr::Nested(inner)
            if matches!(
                *inner,
                Expr::BinaryOp {
                    op: BinaryOperator::And,
                    ..
                }
            ) =>
        {
            split_and(*inner, out);
        }
        e => out.push(e),
    }
}

/// The disjuncts of `e`, its `OR`s (and parentheses) taken apart.
fn split_or(e: Expr, out: &mut Vec<Expr>) {
    match e {
        Expr::BinaryOp {
            left,
            op: BinaryOperator::Or,
            right,
        } => {
            split_or(*left, out);
            split_or(*right, out);
        }
        Expr::Nested(inner)
            if matches!(
                *inner,
                Expr::BinaryOp {
                    op: BinaryOperator::Or,
                    ..
                }
            ) =>
        {
            split_or(*inner, out);
        }
        e => out.push(e),
    }
}

/// A condition as conjuncts, with what every disjunct of an `OR` shares
/// taken out of it: `(a = b AND x) OR (a = b AND y)` is `a = b AND (x OR
/// y)`, so that a join written in each branch (TPC-H Q19) is a join, not
/// a condition over the product. Both rewrites hold in SQL's three-valued
/// logic, and a disjunct left with nothing makes the `OR` its shared part
/// alone (`a OR (a AND y)` is `a`).
pub(super) fn factor_or(e: Expr) -> Vec<Expr> {
    let mut disjuncts = Vec::new();
    split_or(e.clone(), &mut disjuncts);
    if disjuncts.len() < 2 {
        return vec![e];
    }
    let mut branches: Vec<Vec<Expr>> = disjuncts
        .into_iter()
        .map(|d| {
            let mut conjuncts = Vec::new();
            split_and(d, &mut conjuncts);
            conjuncts
        })
        .collect();
    let mut shared = Vec::new();
    for c in branches[0].clone() {
        if branches.iter().all(|b| b.contains(&c)) {
            for b in &mut branches {
                let at = b.iter().position(|x| *x == c).expect("contained");
                b.remove(at);
            }
            shared.push(c);
        }
    }
    if shared.is_empty() {
        return vec![e];
    }
    if branches.iter().all(|b| !b.is_empty()) {
        let rest = branches
            .into_iter()
            .filter_map(and_all)
            .map(|b| Expr::Nested(Box::new(b)))
            .reduce(|a, b| Expr::BinaryOp {
                left: Box::new(a),
                op: BinaryOperator::Or,
                right: Box::new(b),
            })
            .expect("two disjuncts or more");
        shared.push(Expr::Nested(Box::new(rest)));
    }
    shared
}

/// The conjunction of `conjuncts`, `None` for none.
pub(super) fn and_all(conjuncts: Vec<Expr>) -> Option<Expr> {
    conjuncts.into_iter().reduce(|a, b| Expr::BinaryOp {
        left: Box::new(a),
        op: BinaryOperator::And,
        right: Box::new(b),
    })
}

/// `alias.column`, placed at `loc`.
pub(super) fn qualified(alias: &str, column: &str, loc: Loc) -> Expr {
    Expr::CompoundIdentifier(vec![
        SqlIdent::with_span(loc, alias.to_string()),
        SqlIdent::with_span(loc, column.to_string()),
    ])
}

pub(super) fn equal(a: Expr, b: Expr) -> Expr {
    Expr::BinaryOp {
        left: Box::new(a),
        op: BinaryOperator::Eq,
        right: Box::new(b),
    }
}

/// A conjunct that is `[NOT] EXISTS (..)` or `lhs [NOT] IN (SELECT ..)`.
pub(super) fn as_semijoin(e: &Expr) -> Option<(bool, Option<Expr>, &Query)> {
    match e {
        Expr::Exists { subquery, negated } => Some((*negated, None, subquery)),
        Expr::In {
            expr,
            target: InTarget::Subquery(subquery),
            negated,
            global: false,
        } => Some((*negated, Some((**expr).clone()), subquery)),
        Expr::Nested(inner) => as_semijoin(inner),
        Expr::UnaryOp {
            op: UnaryOperator::Not,
            expr,
        } => as_semijoin(expr).map(|(negated, lhs, q)| (!negated, lhs, q)),
        _ => None,
    }
}

pub(super) fn object_name(name: &str, loc: Loc) -> ObjectName {
    ObjectName(vec![ObjectNamePart::Identifier(SqlIdent::with_span(
        loc,
        name.to_string(),
    ))])
}

pub(super) fn table_alias(name: SqlIdent) -> TableAlias {
    TableAlias {
        explicit: true,
        name,
        columns: Vec::new(),
        at: None,
    }
}

/// `FROM <piece> AS <alias>`, placed at `loc`.
pub(super) fn table_factor(piece: &str, alias: SqlIdent, loc: Loc) -> TableFactor {
    let mut select = snippet_select("SELECT 1 FROM t AS t", loc);
    let mut factor = select.from.remove(0).relation;
    if let TableFactor::Table { name, alias: a, .. } = &mut factor {
        *name = object_name(piece, loc);
        *a = Some(table_alias(alias));
    }
    factor
}

/// A SELECT parsed from text of our own, to be filled in, its tokens
/// placed at `loc` (so that an error in it points at the SQL it stands
/// for).
pub(super) fn snippet_select(text: &str, loc: Loc) -> Select {
    let dialect = sqlparser::dialect::GenericDialect {};
    let query = sqlparser::parser::Parser::new(&dialect)
        .try_with_sql(text)
        .and_then(|mut p| p.parse_query())
        .expect("a SELECT of the nesting pass parses");
    let SetExpr::Select(select) = *query.body else {
        unreachable!("a SELECT")
    };
    let mut select = *select;
    select.select_token.0.span = loc;
    for item in &mut select.projection {
        match item {
            SelectItem::Wildcard(options) => options.wildcard_token.0.span = loc,
            SelectItem::UnnamedExpr(Expr::Value(v)) => v.span = loc,
            _ => {}
        }
    }
    select
}

/// A query of one SELECT.
pub(super) fn query_of(select: Select) -> Query {
    let dialect = sqlparser::dialect::GenericDialect {};
    let mut query = *sqlparser::parser::Parser::new(&dialect)
        .try_with_sql("SELECT 1")
        .and_then(|mut p| p.parse_query())
        .expect("a SELECT parses");
    query.body = Box::new(SetExpr::Select(Box::new(select)));
    query
}
