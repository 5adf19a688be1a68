//! The checks that turn a syntax tree into [`Query`] values: names resolve,
//! arities match, each variable has one type, attributes make sense.
//!
//! All errors of a file are collected and reported together (as serde's
//! `Ctxt` does), each on the narrowest span.

use std::collections::{HashMap, HashSet};

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{Ident, Lit, Type};

use super::ast::{self, Attribute};
use crate::query::{
    Atom, Column, Query, Relation, SemiringSpec, Strategy, StrategyRequest, UpdateModel, VarId,
    Variable, type_string,
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

#[derive(Default)]
struct Errors(Option<syn::Error>);

impl Errors {
    fn push(&mut self, span: Span, message: impl std::fmt::Display) {
        let e = syn::Error::new(span, message);
        match &mut self.0 {
            Some(all) => all.combine(e),
            None => self.0 = Some(e),
        }
    }

    fn count(&self) -> usize {
        self.0.as_ref().map_or(0, |e| e.into_iter().count())
    }

    fn finish(self) -> syn::Result<()> {
        match self.0 {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

fn check_item(item: &ast::QueryItem, errors: &mut Errors) -> Option<Query> {
    let before = errors.count();
    let span = item
        .query_token
        .join(item.name.span())
        .unwrap_or_else(|| item.name.span());

    // Attributes.
    let mut semiring_spec: Option<SemiringSpec> = None;
    let mut updates: Option<UpdateModel> = None;
    let mut strategy: Option<Option<StrategyRequest>> = None;
    let mut allow_intractable = false;
    let mut seen: HashMap<&'static str, Span> = HashMap::new();
    for attr in &item.attrs {
        let kind = match attr {
            Attribute::Semiring { .. } => "semiring",
            Attribute::Updates { .. } => "updates",
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
            Attribute::Strategy { name, params, .. } => {
                // Errors about the strategy point at its name.
                strategy = check_strategy(name.span(), name, params, errors).map(Some);
            }
            Attribute::AllowIntractable { .. } => allow_intractable = true,
        }
    }
    let semiring = semiring_spec.unwrap_or_else(default_semiring);

    // Names starting with `__` are the generated code's own locals.
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
    for v in item
        .rule
        .head
        .iter()
        .chain(item.rule.atoms.iter().flat_map(|a| a.args.iter()))
    {
        if reported.insert(v.to_string()) {
            reserved(v, "variable", errors);
        }
    }

    // Relations.
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
        });
    }

    // The rule: head first, so free variables come first in `variables`.
    let rule = &item.rule;
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
    let mut typed: Vec<Option<(Type, Span, String)>> = vec![None; variables.len()];

    let mut atoms: Vec<Atom> = Vec::new();
    // Variables of atoms that failed a check: the head check skips them so
    // one mistake does not also report "not bound" for its variables.
    let mut in_failed_atoms: Vec<String> = Vec::new();
    for atom in &rule.atoms {
        let key = atom.relation.to_string();
        let Some(&rel) = relation_index.get(&key) else {
            in_failed_atoms.extend(atom.args.iter().map(Ident::to_string));
            let declared: Vec<String> = relations.iter().map(|r| format!("`{}`", r.name)).collect();
            let hint = if declared.is_empty() {
                format!("declare it with `relation {key}(...);`")
            } else {
                format!(
                    "declared relations are {}; declare it with `relation {key}(...);`",
                    declared.join(", ")
                )
            };
            errors.push(
                atom.relation.span(),
                format!("unknown relation `{key}` in query `{}`: {hint}", item.name),
            );
            continue;
        };
        let relation = &relations[rel];
        if atom.args.len() != relation.columns.len() {
            let cols: Vec<String> = relation
                .columns
                .iter()
                .map(|c| format!("{}: {}", c.name, type_string(&c.ty)))
                .collect();
            errors.push(
                atom.span,
                format!(
                    "relation `{key}` has {} column{} ({}) but this atom gives {} variable{}: bind one variable per column",
                    relation.columns.len(),
                    plural(relation.columns.len()),
                    cols.join(", "),
                    atom.args.len(),
                    plural(atom.args.len()),
                ),
            );
            in_failed_atoms.extend(atom.args.iter().map(Ident::to_string));
            continue;
        }
        let mut vars: Vec<VarId> = Vec::new();
        let mut ok = true;
        for (arg, col) in atom.args.iter().zip(&relation.columns) {
            let name = arg.to_string();
            let v = match var_index.get(&name) {
                Some(&v) => v,
                None => {
                    var_index.insert(name.clone(), variables.len());
                    variables.push(Variable {
                        name: arg.clone(),
                        ty: col.ty.clone(),
                    });
                    typed.push(None);
                    variables.len() - 1
                }
            };
            if vars.contains(&v) {
                errors.push(
                    arg.span(),
                    format!(
                        "variable `{name}` appears twice in one atom of `{key}`: this is not supported yet; use a new variable for one column and join it through another relation"
                    ),
                );
                ok = false;
                continue;
            }
            let col_ty = type_string(&col.ty);
            match &typed[v] {
                None => {
                    typed[v] = Some((col.ty.clone(), arg.span(), format!("{key}.{}", col.name)));
                    variables[v].ty = col.ty.clone();
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
            vars.push(v);
        }
        if ok {
            atoms.push(Atom {
                relation: rel,
                vars,
                span: atom.span,
            });
        }
    }
    for (i, &v) in head.iter().enumerate() {
        if typed[v].is_none() && !in_failed_atoms.contains(&variables[v].name.to_string()) {
            errors.push(
                head_spans[i],
                format!(
                    "head variable `{}` is not bound by any atom: every free variable must occur in the body",
                    variables[v].name
                ),
            );
        }
    }
    if variables.len() > MAX_VARIABLES || atoms.len() > MAX_VARIABLES {
        errors.push(
            span,
            format!("query `{}` is too large: at most {MAX_VARIABLES} variables and {MAX_VARIABLES} atoms are supported", item.name),
        );
    }

    if errors.count() > before {
        return None;
    }
    Some(Query {
        name: item.name.clone(),
        vis: item.vis.clone(),
        docs: item.docs.clone(),
        span,
        semiring,
        updates: updates.unwrap_or(UpdateModel::InsertDelete),
        strategy: strategy.flatten(),
        allow_intractable,
        relations,
        variables,
        head_name: rule.head_name.clone(),
        head,
        atoms,
    })
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
        class,
        claims: Vec::new(),
        span: None,
    }
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
    let Type::Path(path) = ty else {
        errors.push(
            ty.span(),
            "expected a semiring type path such as `ivm::semiring::Int`",
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
    let in_semiring_module = segments.len() == 1 || segments[segments.len() - 2] == "semiring";
    if classes.is_empty() {
        if let Some(known) = semiring::catalogue(&last).filter(|_| in_semiring_module) {
            let name = type_string(&Type::Path(syn::TypePath {
                qself: None,
                path: syn::Path::from(path.path.segments.last().cloned()?),
            }));
            return Some(SemiringSpec {
                ty: ty.clone(),
                name: if known.name == "Covariance" {
                    name
                } else {
                    known.name.to_owned()
                },
                catalogue: true,
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
        "view_tree" => Some(Strategy::ViewTree),
        "two_layer" => Some(Strategy::TwoLayer),
        "crown" => Some(Strategy::Crown),
        "cluster_crown" => Some(Strategy::ClusterCrown),
        "first_order" => Some(Strategy::FirstOrder),
        "factorized" => Some(Strategy::Factorized),
        "recompute" => Some(Strategy::Recompute),
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
        other => {
            let known: Vec<String> = Strategy::KEYWORDS
                .iter()
                .map(|k| format!("`{k}`"))
                .collect();
            errors.push(
                name.span(),
                format!(
                    "unknown strategy `{other}`: the strategies are {}",
                    known.join(", ")
                ),
            );
            return None;
        }
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
