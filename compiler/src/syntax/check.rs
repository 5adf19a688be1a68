//! The checks that turn a syntax tree into [`Query`] values: names resolve,
//! arities match, each variable has one type, attributes make sense.
//!
//! All errors of a file are collected and reported together (as serde's
//! `Ctxt` does), each on the narrowest span.

use std::collections::{HashMap, HashSet};

use proc_macro2::Span;
use quote::ToTokens;
use syn::spanned::Spanned;
use syn::{Ident, Lit, Type};

use super::ast::{self, ArgSyntax, Attribute, ExprSyntax, idents};
use super::errors::{Errors, unknown_relation};
use crate::query::{
    Arg, Atom, Column, DeleteCheck, Deletes, ExprFactor, Let, LetKind, LocalStep, Origin, Query,
    Reader, Relation, SemiringSpec, Strategy, StrategyRequest, UpdateModel, VarId, Variable,
    type_string,
};
use crate::semiring::{self, SemiringClass};

/// The most variables (and the most atoms) one query may have: the analysis
/// represents sets of them as 64-bit masks.
pub const MAX_VARIABLES: usize = 64;

/// Checks every item of a parsed file.
///
/// Returns the checked queries, or all the errors found in the file.
pub fn check(file: &ast::File) -> syn::Result<Vec<Query>> {
    let mut errors = Errors::default();
    let mut queries = Vec::new();
    let mut names: HashSet<String> = HashSet::new();
    for item in &file.items {
        let key = item.name.to_string();
        if !names.insert(key.clone()) {
            errors.push(
                item.name.span(),
                format!(
                    "a query named `{key}` is already defined in this input: rename one of them"
                ),
            );
        }
        if let Some(q) = check_item(item, &mut errors) {
            queries.push(q);
        }
    }
    errors.finish()?;
    Ok(queries)
}

/// The semiring a `#[semiring(...)]` type names, as the checker reads it
/// (a catalogue semiring or a tuple of them; no class keywords).
///
/// # Errors
///
/// When the type is neither.
pub fn semiring_of(ty: &Type) -> syn::Result<SemiringSpec> {
    let mut errors = Errors::default();
    let spec = check_semiring(ty.span(), ty, &[], &mut errors);
    errors.finish()?;
    Ok(spec.expect("a semiring when there is no error"))
}

/// Checks one query item (the rule's own, or a semijoin's body or domain,
/// each a query of its own): its attributes, relations, atoms, `let`s,
/// conditions and semijoins. `None` when it has an error (reported in
/// `errors`).
fn check_item(item: &ast::QueryItem, errors: &mut Errors) -> Option<Query> {
    let before = errors.count();
    let span = item
        .query_token
        .join(item.name.span())
        .unwrap_or_else(|| item.name.span());
    let attributes = check_attributes(item, errors);
    check_reserved(item, errors);
    let (mut relations, relation_index) = check_relations(item, errors);
    let rule = &item.rule;
    let mut vars = RuleVars::of_head(rule, errors);
    let mut atoms: Vec<Atom> = Vec::new();
    for atom in &rule.atoms {
        atoms.extend(check_atom(
            item,
            atom,
            &relations,
            &relation_index,
            &mut vars,
            errors,
        ));
    }
    check_lets(
        &rule.exprs,
        &mut Scope {
            variables: &mut vars.variables,
            var_index: &mut vars.var_index,
            typed: &mut vars.typed,
            in_failed_atoms: &vars.in_failed_atoms,
        },
        &mut atoms,
        errors,
    );
    let factors = check_factors(&rule.exprs, &vars.variables, &atoms, errors);
    vars.check_head_bound(errors);
    let outer = super::semijoin::Outer {
        item,
        relation_index: &relation_index,
        bound: vars.bound(),
        atoms: &atoms,
        check_item,
    };
    let checked = super::semijoin::check_all(&outer, errors);
    let semijoins = place_semijoins(checked, &attributes, &mut relations, &mut atoms, errors);
    let variables = vars.variables;
    if variables.len() > MAX_VARIABLES || atoms.len() > MAX_VARIABLES {
        errors.push(
            span,
            format!(
                "{} is too large: at most {MAX_VARIABLES} variables and {MAX_VARIABLES} atoms are supported",
                item.dialect.subject(&item.name)
            ),
        );
    }

    if errors.count() > before {
        return None;
    }
    Some(Query {
        name: item.name.clone(),
        dialect: item.dialect.clone(),
        vis: item.vis.clone(),
        docs: item.docs.clone(),
        span,
        semiring: attributes.semiring,
        updates: attributes.updates,
        deletes: attributes.deletes,
        strategy: attributes.strategy,
        allow_intractable: attributes.allow_intractable,
        relations,
        variables,
        head_name: rule.head_name.clone(),
        head: vars.head,
        atoms,
        theta: Vec::new(),
        semijoins,
        reader: Reader::User,
    })
    .map(|q| super::local::derive(super::nullary::bind(q), factors))
}

/// A query item's attributes, checked, each defaulted where absent (or
/// in error).
struct Attributes {
    /// `#[semiring(..)]`, by default the one of [`default_semiring`].
    semiring: SemiringSpec,
    /// `#[updates(..)]`, by default inserts and deletes.
    updates: UpdateModel,
    /// `#[deletes(..)]`, by default checked.
    deletes: Deletes,
    /// `#[strategy(..)]`, if any.
    strategy: Option<StrategyRequest>,
    /// `#[allow(intractable)]`.
    allow_intractable: bool,
}

/// Checks an item's attributes: each at most once, each well-formed.
fn check_attributes(item: &ast::QueryItem, errors: &mut Errors) -> Attributes {
    let mut semiring_spec: Option<SemiringSpec> = None;
    let mut updates: Option<UpdateModel> = None;
    let mut deletes: Option<(Deletes, Span)> = None;
    let mut strategy: Option<Option<StrategyRequest>> = None;
    let mut allow_intractable = false;
    let mut seen: HashMap<&'static str, Span> = HashMap::new();
    for attr in &item.attrs {
        let kind = match attr {
            Attribute::Semiring { .. } => "semiring",
            Attribute::Updates { .. } => "updates",
            Attribute::Deletes { .. } => "deletes",
            Attribute::Strategy { .. } => "strategy",
            Attribute::AllowIntractable { .. } => "allow",
        };
        if seen.insert(kind, attr.span()).is_some() {
            errors.push(
                attr.span(),
                format!("duplicate `#[{kind}(...)]` attribute: keep one"),
            );
            continue;
        }
        match attr {
            Attribute::Semiring { span, ty, classes } => {
                semiring_spec = check_semiring(*span, ty, classes, errors);
            }
            Attribute::Updates { model, .. } => {
                updates = match model.to_string().as_str() {
                    "insert_delete" => Some(UpdateModel::InsertDelete),
                    "insert_only" => Some(UpdateModel::InsertOnly),
                    other => {
                        errors.push(
                            model.span(),
                            format!("unknown update model `{other}`: use `insert_delete` or `insert_only`"),
                        );
                        None
                    }
                };
            }
            Attribute::Deletes { span, mode } => {
                deletes = match mode.to_string().as_str() {
                    "checked" => Some((Deletes::Checked, *span)),
                    "trusted" => Some((Deletes::Trusted, *span)),
                    other => {
                        errors.push(
                            mode.span(),
                            format!("unknown delete mode `{other}`: use `checked` or `trusted`"),
                        );
                        None
                    }
                };
            }
            Attribute::Strategy { name, params, .. } => {
                // Errors about the strategy point at its name.
                strategy = check_strategy(name.span(), name, params, errors).map(Some);
            }
            Attribute::AllowIntractable { .. } => allow_intractable = true,
        }
    }
    let updates = updates.unwrap_or(UpdateModel::InsertDelete);
    if let Some((Deletes::Trusted, span)) = deletes
        && updates == UpdateModel::InsertOnly
    {
        errors.push(
            span,
            "`#[deletes(trusted)]` under `#[updates(insert_only)]`: an insert-only query takes no deletes; drop one of the two",
        );
    }
    Attributes {
        semiring: semiring_spec.unwrap_or_else(default_semiring),
        updates,
        deletes: deletes.map_or(Deletes::Checked, |(d, _)| d),
        strategy: strategy.flatten(),
        allow_intractable,
    }
}

/// Reports the relations, columns and variables whose names start with
/// `__`: the generated code's own locals.
fn check_reserved(item: &ast::QueryItem, errors: &mut Errors) {
    let reserved = |ident: &Ident, what: &str, errors: &mut Errors| {
        if ident.to_string().starts_with("__") {
            errors.push(
                ident.span(),
                format!("{what} `{ident}` starts with `__`, which generated code reserves for its own names: rename it"),
            );
        }
    };
    for decl in &item.relations {
        reserved(&decl.name, "relation", errors);
        for col in &decl.columns {
            reserved(&col.name, "column", errors);
        }
    }
    let mut reported: HashSet<String> = HashSet::new();
    for v in item.rule.head.iter().chain(
        item.rule
            .atoms
            .iter()
            .flat_map(|a| a.args.iter().filter_map(ArgSyntax::var)),
    ) {
        if reported.insert(v.to_string()) {
            reserved(v, "variable", errors);
        }
    }
}

/// The declared relations, in order, with their positions by name;
/// reports a relation declared twice (and skips it) and a column name
/// used twice.
fn check_relations(
    item: &ast::QueryItem,
    errors: &mut Errors,
) -> (Vec<Relation>, HashMap<String, usize>) {
    let mut relations: Vec<Relation> = Vec::new();
    let mut relation_index: HashMap<String, usize> = HashMap::new();
    for decl in &item.relations {
        let key = decl.name.to_string();
        if relation_index.contains_key(&key) {
            errors.push(
                decl.name.span(),
                format!("relation `{key}` is declared twice: a relation used by several atoms is declared once"),
            );
            continue;
        }
        let mut columns: Vec<Column> = Vec::new();
        for col in &decl.columns {
            if columns.iter().any(|c| c.name == col.name) {
                errors.push(
                    col.name.span(),
                    format!(
                        "relation `{key}` has two columns named `{}`: rename one",
                        col.name
                    ),
                );
                // Keep the column so the relation's arity stays as written
                // and atoms using it are not reported too.
            }
            columns.push(Column {
                name: col.name.clone(),
                ty: col.ty.clone(),
            });
        }
        relation_index.insert(key, relations.len());
        relations.push(Relation {
            name: decl.name.clone(),
            docs: decl.docs.clone(),
            columns,
            origin: Origin::Declared,
            check: DeleteCheck::Own,
            keys: decl.keys.clone(),
        });
    }
    (relations, relation_index)
}

/// The rule's variables as the checker finds them: the head's first, so
/// that free variables come first, then each new one an atom binds.
struct RuleVars {
    /// The variables, in order.
    variables: Vec<Variable>,
    /// Their positions, by name.
    var_index: HashMap<String, VarId>,
    /// Per variable, its type with where it was first bound (`None` while
    /// no column binds it).
    typed: Vec<Option<(Type, Span, String)>>,
    /// The head's variables, in order.
    head: Vec<VarId>,
    /// Where each of the head's variables is written.
    head_spans: Vec<Span>,
    /// Variables of atoms that failed a check: the head check skips them so
    /// one mistake does not also report "not bound" for its variables.
    in_failed_atoms: Vec<String>,
}

impl RuleVars {
    /// The head's variables, each listed once (a repeat is reported and
    /// skipped); their types are filled in by the first column each binds.
    fn of_head(rule: &ast::Rule, errors: &mut Errors) -> Self {
        let mut variables: Vec<Variable> = Vec::new();
        let mut var_index: HashMap<String, VarId> = HashMap::new();
        let mut head: Vec<VarId> = Vec::new();
        let mut head_spans: Vec<Span> = Vec::new();
        for h in &rule.head {
            let key = h.to_string();
            if var_index.contains_key(&key) {
                errors.push(
                    h.span(),
                    format!("variable `{key}` is listed twice in the head `{}`: list each free variable once", rule.head_name),
                );
                continue;
            }
            var_index.insert(key, variables.len());
            head.push(variables.len());
            head_spans.push(h.span());
            // The type is filled in by the first column the variable binds.
            variables.push(Variable {
                name: h.clone(),
                ty: Type::Verbatim(Default::default()),
            });
        }
        RuleVars {
            typed: vec![None; variables.len()],
            variables,
            var_index,
            head,
            head_spans,
            in_failed_atoms: Vec::new(),
        }
    }

    /// The variable `arg` names (a new one if none does yet), bound to
    /// column `col` of relation `key`: typed by the first column it binds,
    /// and an error when a later one has another type.
    fn bind(&mut self, arg: &Ident, col: &Column, key: &str, errors: &mut Errors) -> VarId {
        let name = arg.to_string();
        let v = match self.var_index.get(&name) {
            Some(&v) => v,
            None => {
                self.var_index.insert(name.clone(), self.variables.len());
                self.variables.push(Variable {
                    name: arg.clone(),
                    ty: col.ty.clone(),
                });
                self.typed.push(None);
                self.variables.len() - 1
            }
        };
        let col_ty = type_string(&col.ty);
        match &self.typed[v] {
            None => {
                self.typed[v] = Some((col.ty.clone(), arg.span(), format!("{key}.{}", col.name)));
                self.variables[v].ty = col.ty.clone();
            }
            Some((ty, _, first)) => {
                let first_ty = type_string(ty);
                if first_ty != col_ty {
                    errors.push(
                        arg.span(),
                        format!(
                            "variable `{name}` binds columns of different types: `{first}` is `{first_ty}` but `{key}.{}` is `{col_ty}`; a variable joins columns of one type",
                            col.name
                        ),
                    );
                }
            }
        }
        v
    }

    /// Reports each head variable no atom (or `let`) binds, but for those
    /// of atoms that failed a check.
    fn check_head_bound(&self, errors: &mut Errors) {
        for (i, &v) in self.head.iter().enumerate() {
            if self.typed[v].is_none()
                && !self
                    .in_failed_atoms
                    .contains(&self.variables[v].name.to_string())
            {
                errors.push(
                    self.head_spans[i],
                    format!(
                        "head variable `{}` is not bound by any atom: every free variable must occur in the body",
                        self.variables[v].name
                    ),
                );
            }
        }
    }

    /// The bound variables by name, with their ids and types: those a
    /// semijoin may correlate on.
    fn bound(&self) -> HashMap<String, (VarId, Type)> {
        self.variables
            .iter()
            .enumerate()
            .filter(|&(v, _)| self.typed[v].is_some())
            .map(|(v, var)| (var.name.to_string(), (v, var.ty.clone())))
            .collect()
    }
}

/// Checks one atom of the rule against the declared relations (with
/// their positions by name): its relation is declared, it has one argument
/// per column, each constant fits its column and each variable has one
/// type. `None` when it fails a check; its variables are then recorded in
/// `vars.in_failed_atoms`.
fn check_atom(
    item: &ast::QueryItem,
    atom: &ast::AtomSyntax,
    relations: &[Relation],
    relation_index: &HashMap<String, usize>,
    vars: &mut RuleVars,
    errors: &mut Errors,
) -> Option<Atom> {
    let key = atom.relation.to_string();
    let Some(&rel) = relation_index.get(&key) else {
        vars.in_failed_atoms.extend(arg_names(&atom.args));
        errors.push(atom.relation.span(), unknown_relation(item, &key));
        return None;
    };
    let relation = &relations[rel];
    if atom.args.len() != relation.columns.len() {
        errors.push(atom.span, arity_error(&key, relation, atom.args.len()));
        vars.in_failed_atoms.extend(arg_names(&atom.args));
        return None;
    }
    let mut atom_vars: Vec<VarId> = Vec::new();
    let mut args: Vec<Arg> = Vec::new();
    let mut ok = true;
    for (arg, col) in atom.args.iter().zip(&relation.columns) {
        let arg = match arg {
            ArgSyntax::Var(v) => v,
            ArgSyntax::Wildcard(_) => {
                args.push(Arg::Wildcard);
                continue;
            }
            ArgSyntax::Const { expr, span } => {
                if let Err(message) = constant_fits(expr, &col.ty) {
                    errors.push(
                        *span,
                        format!(
                            "constant `{}` cannot match column `{key}.{}: {}`: {message}",
                            crate::query::expr_text(expr),
                            col.name,
                            type_string(&col.ty)
                        ),
                    );
                    ok = false;
                }
                args.push(Arg::Const(expr.clone()));
                continue;
            }
            ArgSyntax::Some { var, span } => {
                let Some(inner) = option_inner(&col.ty) else {
                    errors.push(
                        *span,
                        format!(
                            "`Some({var})` matches a column of type `Option<T>`, but `{key}.{}` is `{}`: bind the column to a variable instead",
                            col.name,
                            type_string(&col.ty)
                        ),
                    );
                    ok = false;
                    continue;
                };
                let unwrapped = Column {
                    name: col.name.clone(),
                    ty: inner,
                };
                let v = vars.bind(var, &unwrapped, &key, errors);
                args.push(Arg::Some(v));
                if !atom_vars.contains(&v) {
                    atom_vars.push(v);
                }
                continue;
            }
        };
        let v = vars.bind(arg, col, &key, errors);
        args.push(Arg::Var(v));
        if !atom_vars.contains(&v) {
            atom_vars.push(v);
        }
    }
    if !ok {
        return None;
    }
    // A local step unless every column binds a variable of its own;
    // `local::derive` completes it once the factors are placed.
    let plain = args.len() == atom_vars.len() && args.iter().all(|a| matches!(a, Arg::Var(_)));
    Some(Atom {
        relation: rel,
        vars: atom_vars,
        local: (!plain).then(|| LocalStep {
            source: rel,
            args,
            lets: Vec::new(),
            factors: Vec::new(),
        }),
        span: atom.span,
    })
}

/// The error for an atom of relation `key` with `found` arguments, not
/// one per column.
fn arity_error(key: &str, relation: &Relation, found: usize) -> String {
    let cols: Vec<String> = relation
        .columns
        .iter()
        .map(|c| format!("{}: {}", c.name, type_string(&c.ty)))
        .collect();
    format!(
        "relation `{key}` has {} column{} ({}) but this atom gives {} argument{}: bind one variable, constant or `_` per column",
        relation.columns.len(),
        plural(relation.columns.len()),
        cols.join(", "),
        found,
        plural(found),
    )
}

/// The semijoins, each an atom over a relation of its own, placed after
/// the factors so that no factor makes one its home; reports a
/// `not exists` an insert-only query over a semiring that is not a ring
/// cannot maintain.
fn place_semijoins(
    checked: Vec<super::semijoin::Checked>,
    attributes: &Attributes,
    relations: &mut Vec<Relation>,
    atoms: &mut Vec<Atom>,
    errors: &mut Errors,
) -> Vec<crate::query::Semijoin> {
    let semiring = &attributes.semiring;
    let mut semijoins = Vec::new();
    for checked in checked {
        // An insert into its body turns a `not exists` from 1 to 0: a
        // delete, which only a ring takes under inserts only.
        if checked.negated()
            && attributes.updates == UpdateModel::InsertOnly
            && !semiring.class.ring
        {
            errors.push(
                checked.span,
                format!(
                    "`not exists(..)` under `#[updates(insert_only)]` over `{}`: an insert into its body deletes from the result, which an insert-only query over a semiring that is not a ring cannot do; use `#[updates(insert_delete)]`",
                    semiring.name
                ),
            );
        }
        let (relation, vars, semijoin) = checked.placed(semijoins.len(), atoms.len());
        relations.push(relation);
        atoms.push(Atom {
            relation: relations.len() - 1,
            vars,
            local: None,
            span: semijoin.span,
        });
        semijoins.push(semijoin);
    }
    semijoins
}

/// The names of the variables among an atom's arguments.
fn arg_names(args: &[ArgSyntax]) -> Vec<String> {
    args.iter()
        .filter_map(|arg| arg.var().map(Ident::to_string))
        .collect()
}

/// `T` of a column type `Option<T>` (however the path to `Option` is
/// written).
fn option_inner(ty: &Type) -> Option<Type> {
    let Type::Path(path) = ty else {
        return None;
    };
    let last = path.path.segments.last()?;
    if last.ident != "Option" {
        return None;
    }
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    match args.args.first()? {
        syn::GenericArgument::Type(inner) if args.args.len() == 1 => Some(inner.clone()),
        _ => None,
    }
}

/// Whether a constant can equal values of a column of type `ty`; what is
/// wrong when not.
fn constant_fits(expr: &syn::Expr, ty: &Type) -> Result<(), String> {
    let ty = type_string(ty);
    let (lit, negative) = match expr {
        syn::Expr::Lit(l) => (&l.lit, false),
        syn::Expr::Unary(u) => match &*u.expr {
            syn::Expr::Lit(l) => (&l.lit, true),
            _ => return Err("not a literal".to_owned()),
        },
        _ => return Err("not a literal".to_owned()),
    };
    const SIGNED: &[&str] = &["i8", "i16", "i32", "i64", "i128", "isize"];
    const UNSIGNED: &[&str] = &["u8", "u16", "u32", "u64", "u128", "usize"];
    match lit {
        syn::Lit::Str(_) if ty == "String" || ty == "::std::string::String" => Ok(()),
        syn::Lit::Str(_) => Err("a string constant matches a `String` column".to_owned()),
        syn::Lit::Char(_) if ty == "char" => Ok(()),
        syn::Lit::Char(_) => Err("a character constant matches a `char` column".to_owned()),
        syn::Lit::Bool(_) if ty == "bool" => Ok(()),
        syn::Lit::Bool(_) => Err("a boolean constant matches a `bool` column".to_owned()),
        syn::Lit::Int(_) if SIGNED.contains(&ty.as_str()) => Ok(()),
        syn::Lit::Int(_) if UNSIGNED.contains(&ty.as_str()) && !negative => Ok(()),
        syn::Lit::Int(_) if UNSIGNED.contains(&ty.as_str()) => {
            Err("the column is unsigned".to_owned())
        }
        syn::Lit::Int(_) => Err("an integer constant matches an integer column".to_owned()),
        _ => Err("a constant is an integer, a string, a character or a boolean".to_owned()),
    }
}

/// The variables of a rule as the checker builds them.
struct Scope<'s> {
    variables: &'s mut Vec<Variable>,
    var_index: &'s mut HashMap<String, VarId>,
    /// Per variable, its type with where it was first bound.
    typed: &'s mut Vec<Option<(Type, Span, String)>>,
    /// Variables of atoms that failed a check.
    in_failed_atoms: &'s [String],
}

/// The `{ let y: T = expr }` factors: each defines a variable, a column of
/// the first atom that binds every variable its value reads, computed in
/// that atom's local step. Errors for a value over several atoms' columns
/// or none, and for a name some column already binds.
fn check_lets(
    exprs: &[ExprSyntax],
    scope: &mut Scope<'_>,
    atoms: &mut [Atom],
    errors: &mut Errors,
) {
    for e in exprs {
        let Some((name, ty)) = &e.binds else {
            continue;
        };
        // The value is read before the name is defined: a `let` cannot
        // read itself or a later one.
        let vars = reads(&e.expr, scope.variables, errors);
        let key = name.to_string();
        let v = match scope.var_index.get(&key) {
            // A head variable no column binds: this defines it.
            Some(&v) if scope.typed[v].is_none() => v,
            Some(&v) => {
                let (_, _, first) = scope.typed[v].as_ref().expect("typed");
                errors.push(
                    name.span(),
                    format!(
                        "variable `{key}` is already bound by `{first}`: a `let` defines a new variable; give it another name, or compare with `{{ {key} == ... }}`"
                    ),
                );
                continue;
            }
            None => {
                scope.var_index.insert(key.clone(), scope.variables.len());
                scope.variables.push(Variable {
                    name: name.clone(),
                    ty: ty.clone(),
                });
                scope.typed.push(None);
                scope.variables.len() - 1
            }
        };
        // Defined even where its value has an error, so that what reads it
        // reports nothing more.
        scope.variables[v].ty = ty.clone();
        scope.typed[v] = Some((ty.clone(), name.span(), format!("let {key}")));
        let Some(vars) = vars else {
            continue;
        };
        if vars.iter().any(|&v| {
            scope
                .in_failed_atoms
                .contains(&scope.variables[v].name.to_string())
        }) {
            continue;
        }
        if vars.is_empty() {
            errors.push(
                e.span,
                format!("the value of `{name}` reads no variable of the query: a computed column is an expression over the columns of one atom"),
            );
            continue;
        }
        let Some(home) = atoms
            .iter()
            .position(|a| vars.iter().all(|v| a.vars.contains(v)))
        else {
            let names: Vec<String> = vars
                .iter()
                .map(|&v| format!("`{}`", scope.variables[v].name))
                .collect();
            errors.push(
                e.span,
                format!(
                    "the value of `{name}` reads {}, which no one atom binds together: a computed column is an expression over the columns of one atom",
                    names.join(", ")
                ),
            );
            continue;
        };
        let atom = &mut atoms[home];
        let local = atom.local.get_or_insert_with(|| LocalStep {
            source: atom.relation,
            args: atom.vars.iter().map(|&v| Arg::Var(v)).collect(),
            lets: Vec::new(),
            factors: Vec::new(),
        });
        local.lets.push(Let {
            var: v,
            value: ExprFactor {
                expr: e.expr.clone(),
                vars,
                span: e.span,
            },
            kind: LetKind::Written,
        });
        atom.vars.push(v);
    }
}

/// The query variables `expr` reads; `None` (with an error) when it names
/// a variable the query does not have.
fn reads(expr: &syn::Expr, variables: &[Variable], errors: &mut Errors) -> Option<Vec<VarId>> {
    let mut vars: Vec<VarId> = Vec::new();
    let mut unknown: Vec<Ident> = Vec::new();
    idents(expr.to_token_stream(), &mut |ident, standalone| {
        let name = ident.to_string();
        if let Some(v) = variables.iter().position(|v| v.name == name) {
            if !vars.contains(&v) {
                vars.push(v);
            }
        } else if standalone
            && looks_like_a_variable(&name)
            && !name.starts_with("__")
            && name != "_"
        {
            // `__` names are the generated code's own (bound inside the
            // expression, as SQL's NULL handling binds `__n0`), never a
            // variable's: `check_reserved` refuses them there. `_` is a
            // pattern's wildcard.
            unknown.push(ident.clone());
        }
    });
    if let Some(ident) = unknown.first() {
        let known: Vec<String> = variables.iter().map(|v| format!("`{}`", v.name)).collect();
        errors.push(
            ident.span(),
            format!(
                "unknown variable `{ident}` in a factor: the query's variables are {}",
                known.join(", ")
            ),
        );
        return None;
    }
    Some(vars)
}

/// The `{ expr }` factors with the variables each reads and the atom each
/// is local to (`None` for a theta factor, over variables of several
/// atoms); errors for a factor that reads no variable or names one the
/// query does not have.
fn check_factors(
    exprs: &[ExprSyntax],
    variables: &[Variable],
    atoms: &[Atom],
    errors: &mut Errors,
) -> Vec<(Option<usize>, ExprFactor)> {
    let mut out = Vec::new();
    for e in exprs.iter().filter(|e| e.binds.is_none()) {
        let Some(vars) = reads(&e.expr, variables, errors) else {
            continue;
        };
        if vars.is_empty() {
            errors.push(
                e.span,
                "this factor reads no variable of the query: a factor is a condition or a lift over the variables of an atom",
            );
            continue;
        }
        // Local to the first atom that holds all its variables; a theta
        // factor (`None`) when none does.
        let home = atoms
            .iter()
            .position(|a| vars.iter().all(|v| a.vars.contains(v)));
        out.push((
            home,
            ExprFactor {
                expr: e.expr.clone(),
                vars,
                span: e.span,
            },
        ));
    }
    out
}

/// Whether a name is written like a variable: lowercase and no keyword.
fn looks_like_a_variable(name: &str) -> bool {
    const KEYWORDS: &[&str] = &[
        "true", "false", "as", "if", "else", "match", "let", "in", "for", "loop", "while",
        "return", "self", "crate", "super", "move", "ref", "mut", "i8", "i16", "i32", "i64",
        "i128", "isize", "u8", "u16", "u32", "u64", "u128", "usize", "f32", "f64", "bool", "char",
        "str",
    ];
    name.starts_with(|c: char| c.is_lowercase() || c == '_') && !KEYWORDS.contains(&name)
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

fn default_semiring() -> SemiringSpec {
    let class = semiring::catalogue("Int")
        .expect("Int is in the catalogue")
        .class;
    SemiringSpec {
        ty: syn::parse_quote!(::ivm::semiring::Int),
        name: "Int".to_owned(),
        catalogue: true,
        catalogue_types: vec![(syn::parse_quote!(::ivm::semiring::Int), "Int")],
        class,
        claims: Vec::new(),
        span: None,
    }
}

/// A tuple of catalogue semirings, `(Int, Int, Count)`: componentwise
/// ⊕ and ⊗, with the class its components share
/// (`docs/design.md#tuples-of-semirings`).
fn check_tuple_semiring(
    span: Span,
    tuple: &syn::TypeTuple,
    classes: &[Ident],
    errors: &mut Errors,
) -> Option<SemiringSpec> {
    if let Some(kw) = classes.first() {
        errors.push(
            kw.span(),
            "a tuple of semirings takes its class from its components: state no class",
        );
        return None;
    }
    if !(2..=8).contains(&tuple.elems.len()) {
        errors.push(tuple.span(), "a tuple semiring has 2 to 8 components");
        return None;
    }
    let components: Vec<SemiringSpec> = tuple
        .elems
        .iter()
        .map(|elem| check_semiring(span, elem, &[], errors))
        .collect::<Option<_>>()?;
    if let Some(c) = components.iter().find(|c| !c.catalogue) {
        errors.push(
            c.ty.span(),
            "each component of a tuple semiring is a catalogue semiring of `ivm::semiring`",
        );
        return None;
    }
    let all = |f: fn(&SemiringClass) -> bool| components.iter().all(|c| f(&c.class));
    // Componentwise products have zero divisors ((1, 0) ⊗ (0, 1) = 0): a
    // tuple is never positive, and IVMε's counting needs none.
    let class = SemiringClass {
        ring: all(|c| c.ring),
        deletable: all(|c| c.deletable),
        ordered_deletes: all(|c| c.deletable || c.ordered_deletes) && !all(|c| c.deletable),
        idempotent: all(|c| c.idempotent),
        ..SemiringClass::default()
    };
    let names: Vec<String> = components.iter().map(|c| c.name.clone()).collect();
    Some(SemiringSpec {
        ty: Type::Tuple(tuple.clone()),
        name: format!("({})", names.join(", ")),
        catalogue: true,
        catalogue_types: components
            .iter()
            .flat_map(|c| c.catalogue_types.iter().cloned())
            .collect(),
        class,
        claims: Vec::new(),
        span: Some(span),
    })
}

fn check_semiring(
    span: Span,
    ty: &Type,
    classes: &[Ident],
    errors: &mut Errors,
) -> Option<SemiringSpec> {
    // A type passed through a `macro_rules!` fragment arrives wrapped in an
    // invisible group.
    let mut ty = ty;
    while let Type::Group(g) = ty {
        ty = &g.elem;
    }
    if let Type::Tuple(tuple) = ty {
        return check_tuple_semiring(span, tuple, classes, errors);
    }
    let Type::Path(path) = ty else {
        errors.push(
            ty.span(),
            "expected a semiring type path such as `ivm::semiring::Int`, or a tuple of them",
        );
        return None;
    };
    let segments: Vec<String> = path
        .path
        .segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect();
    let last = segments.last().cloned().unwrap_or_default();
    // `Decimal` and `Fixed` live in `ivm::sql`, beside the other SQL types.
    let in_semiring_module = segments.len() == 1
        || segments[segments.len() - 2] == "semiring"
        || (matches!(last.as_str(), "Decimal" | "Fixed") && segments[segments.len() - 2] == "sql");
    if classes.is_empty() {
        if let Some(known) = semiring::catalogue(&last).filter(|_| in_semiring_module) {
            let name = type_string(&Type::Path(syn::TypePath {
                qself: None,
                path: syn::Path::from(path.path.segments.last().cloned()?),
            }));
            return Some(SemiringSpec {
                ty: ty.clone(),
                // A generic type is named with its parameter.
                name: if matches!(known.name, "Covariance" | "Fixed") {
                    name
                } else {
                    known.name.to_owned()
                },
                catalogue: true,
                catalogue_types: vec![(ty.clone(), known.name)],
                class: known.class,
                claims: Vec::new(),
                span: Some(span),
            });
        }
        let catalogue: Vec<String> = semiring::CATALOGUE
            .iter()
            .map(|n| format!("`{n}`"))
            .collect();
        errors.push(
            ty.span(),
            format!(
                "unknown semiring `{}`: the catalogue of `ivm::semiring` has {}; a semiring of your own must state its class, e.g. `#[semiring({}, positive)]`",
                type_string(ty),
                catalogue.join(", "),
                type_string(ty)
            ),
        );
        return None;
    }
    let mut class = SemiringClass::default();
    let mut ok = true;
    for kw in classes {
        if !class.add_keyword(&kw.to_string()) {
            let known: Vec<String> = SemiringClass::KEYWORDS
                .iter()
                .map(|(k, _)| format!("`{k}`"))
                .collect();
            errors.push(
                kw.span(),
                format!(
                    "unknown semiring class `{kw}`: the classes are {}",
                    known.join(", ")
                ),
            );
            ok = false;
        }
    }
    ok.then(|| SemiringSpec {
        ty: ty.clone(),
        name: type_string(ty),
        catalogue: false,
        catalogue_types: Vec::new(),
        class,
        claims: classes.to_vec(),
        span: Some(span),
    })
}

fn check_strategy(
    span: Span,
    name: &Ident,
    params: &[(Ident, Lit)],
    errors: &mut Errors,
) -> Option<StrategyRequest> {
    let keyword = name.to_string();
    let strategy = match keyword.as_str() {
        "auto" => None,
        "ivm_eps" => {
            let mut eps = 0.5;
            for (key, value) in params {
                if key != "eps" {
                    errors.push(
                        key.span(),
                        format!("unknown parameter `{key}` of `ivm_eps`: the only one is `eps`, e.g. `ivm_eps(eps = 0.5)`"),
                    );
                    return None;
                }
                let parsed = match value {
                    Lit::Float(f) => f.base10_parse::<f64>().ok(),
                    Lit::Int(i) => i.base10_parse::<u32>().ok().map(f64::from),
                    _ => None,
                };
                match parsed {
                    Some(e) if (0.0..=1.0).contains(&e) => eps = e,
                    _ => {
                        errors.push(
                            value.span(),
                            "`eps` must be a number between 0 and 1, e.g. `eps = 0.5`",
                        );
                        return None;
                    }
                }
            }
            return Some(StrategyRequest {
                strategy: Strategy::IvmEps { eps },
                span,
            });
        }
        other => match Strategy::from_keyword(other) {
            Some(strategy) => Some(strategy),
            None => {
                let known: Vec<String> = Strategy::keywords().map(|k| format!("`{k}`")).collect();
                errors.push(
                    name.span(),
                    format!(
                        "unknown strategy `{other}`: the strategies are {}",
                        known.join(", ")
                    ),
                );
                return None;
            }
        },
    };
    if let Some((key, _)) = params.first() {
        errors.push(
            key.span(),
            format!("strategy `{keyword}` takes no parameters"),
        );
        return None;
    }
    strategy.map(|strategy| StrategyRequest { strategy, span })
}
