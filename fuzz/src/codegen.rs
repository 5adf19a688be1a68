//! The code writer: a query checked by `ivm-compiler`'s own parser and
//! checker, compiled through the same pipeline as `build.rs` and `ivmc
//! compile`, and wrapped in a module with a [`Target`](crate::Target) impl
//! for its struct and its [`Case`](crate::Case) (the naive evaluator's view
//! of the query, taken from the checked query); and a table of every
//! query's [`Entry`](crate::Entry).
//!
//! The queries come from the generator ([`write_cases`]) or from the text
//! of a test suite ([`suite`]), where a query is written once and compiled
//! once per semiring its `over:` doc line lists.

use std::fmt::Write as _;
use std::path::Path;

use ivm_compiler::query::{Arg, ExprFactor, LetKind, Query, UpdateModel, type_string};
use ivm_compiler::{diagnostic, emit, pipeline, syntax};
use quote::ToTokens;

use crate::generate::{self, Generated};

/// A query ready for the harness: the checked query, the strategy the
/// compiler chose, and the generated code.
pub struct Compiled {
    /// The query as the compiler checked it.
    pub query: Query,
    /// The keyword of the strategy the compiler chose.
    pub strategy: &'static str,
    /// Whether it is rejected by default and compiled by
    /// `#[allow(intractable)]`.
    pub intractable: bool,
    /// The generated Rust code.
    pub code: String,
}

impl Compiled {
    /// Compiles a checked query; the compiler's message if it rejects it.
    pub fn new(query: Query) -> Result<Compiled, String> {
        let name = query.name.to_string();
        let report = pipeline::report(query);
        let program =
            pipeline::lower(&report).map_err(|e| format!("query {name} is rejected: {e}"))?;
        let strategy = report
            .verdict
            .strategy()
            .map(|s| s.keyword())
            .ok_or_else(|| format!("query {name} has no strategy"))?;
        let code = emit::to_file_string(emit::emit(&program)).map_err(|e| e.to_string())?;
        Ok(Compiled {
            intractable: !report.verdict.tractable(),
            query: report.query,
            strategy,
            code,
        })
    }
}

/// Every query of `text`, checked by the compiler; errors rendered
/// against the text, under the name `file`.
fn checked(text: &str, file: &str) -> Result<Vec<Query>, String> {
    syntax::parse_str(text)
        .and_then(|parsed| syntax::check(&parsed))
        .map_err(|e| diagnostic::render(&e, file, text))
}

/// The queries of a test suite's text, compiled. A query with a doc line
/// `over: A, B, ...` (catalogue semirings, as in `ivm::semiring`) is
/// compiled once per semiring, named with the semiring appended
/// (`Grouped` over `Covariance<2>` is `GroupedCovariance2`); any other
/// query once, as written.
pub fn suite(text: &str, file: &str) -> Result<Vec<Compiled>, String> {
    let mut out = Vec::new();
    for mut query in checked(text, file)? {
        // The harness names the struct from outside its module.
        query.vis = syn::parse_quote!(pub);
        let over = query
            .docs
            .iter()
            .find_map(|line| line.trim().strip_prefix("over:"))
            .map(split_top_level);
        match over {
            None => out.push(Compiled::new(query)?),
            Some(semirings) => {
                for k in semirings {
                    out.push(Compiled::new(over_semiring(&query, &k)?)?);
                }
            }
        }
    }
    Ok(out)
}

/// The items of a comma-separated list, commas inside `(..)` and `<..>`
/// left alone: `Int, (Int, Count), Covariance<2>`.
fn split_top_level(list: &str) -> Vec<String> {
    let (mut items, mut item, mut depth) = (Vec::new(), String::new(), 0i32);
    for c in list.chars() {
        match c {
            '(' | '<' => depth += 1,
            ')' | '>' => depth -= 1,
            ',' if depth == 0 => {
                items.push(item.trim().to_string());
                item.clear();
                continue;
            }
            _ => {}
        }
        item.push(c);
    }
    items.push(item.trim().to_string());
    items.retain(|i| !i.is_empty());
    items
}

/// `query` over the catalogue semiring `k` (or a tuple of them, `(Int,
/// Count)`), renamed after it.
fn over_semiring(query: &Query, k: &str) -> Result<Query, String> {
    let path = |name: &str| format!("::ivm::semiring::{}", name.trim());
    let text = match k.strip_prefix('(').and_then(|k| k.strip_suffix(')')) {
        Some(inner) => format!(
            "({})",
            split_top_level(inner)
                .iter()
                .map(|c| path(c))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        None => path(k),
    };
    let ty: syn::Type =
        syn::parse_str(&text).map_err(|e| format!("query {}: `{k}`: {e}", query.name))?;
    let spec = syntax::semiring_of(&ty).map_err(|e| format!("query {}: `{k}`: {e}", query.name))?;
    let mut q = query.clone();
    q.semiring = spec;
    q.semiring.span = Some(proc_macro2::Span::call_site());
    let suffix: String = k.chars().filter(char::is_ascii_alphanumeric).collect();
    q.name = syn::Ident::new(&format!("{}{suffix}", query.name), query.name.span());
    Ok(q)
}

/// The Rust source of a module holding `queries`: one submodule per query
/// and `ENTRIES`, the table the harness drives. It expects the crate it is
/// included in to depend on `ivm` and on `ivm-fuzz` (as `ivm_fuzz`).
pub fn module(queries: &[Compiled]) -> String {
    let mut out = String::from(
        "// Written by ivm-fuzz (codegen::module): queries compiled by\n\
         // ivm-compiler, each with the harness's view of its struct.\n\n",
    );
    for c in queries {
        out.push_str(&query_module(c));
    }
    out.push_str(
        "/// Every query above, for the harness.\npub static ENTRIES: &[::ivm_fuzz::Entry] = &[\n",
    );
    for c in queries {
        let name = c.query.name.to_string();
        let m = module_name(&name);
        let _ = writeln!(
            out,
            "    ::ivm_fuzz::Entry {{ case: &{m}::CASE, run: ::ivm_fuzz::harness::run::<{m}::{name}> }},"
        );
    }
    out.push_str("];\n");
    out
}

/// A generated query as the harness takes it: its text checked again by
/// the compiler, for the relations, atoms and head the case describes.
pub fn compiled(g: &Generated) -> Compiled {
    let query = checked(&g.text, &g.spec.name)
        .expect("a generated query checks")
        .remove(0);
    Compiled {
        query,
        strategy: g.strategy,
        intractable: g.intractable,
        code: g.code.clone(),
    }
}

/// Generates `n` queries from `seed` (named `{prefix}{i}`) and writes
/// their [`module`] to `path`; returns the queries.
pub fn write_cases(
    path: &Path,
    seed: u64,
    n: usize,
    prefix: &str,
) -> std::io::Result<Vec<Generated>> {
    let queries = generate::queries(seed, n, prefix);
    let compiled: Vec<Compiled> = queries.iter().map(compiled).collect();
    std::fs::write(path, module(&compiled))?;
    Ok(queries)
}

/// The field path of item `i` of a tuple of `n` items as
/// [`nested_tuple`] builds it: `3`, or `1.3` for item 15 of 16.
fn nested_item(i: usize, n: usize) -> String {
    if n <= 12 {
        i.to_string()
    } else {
        format!("{}.{}", i / 12, i % 12)
    }
}

/// Items as the generated code's tuples: flat up to 12, else nested in
/// chunks of 12.
fn nested_tuple(items: &[&str]) -> String {
    if items.len() <= 12 {
        return match items {
            [one] => format!("({one},)"),
            _ => format!("({})", items.join(", ")),
        };
    }
    let chunks: Vec<String> = items.chunks(12).map(nested_tuple).collect();
    format!("({})", chunks.join(", "))
}

fn module_name(name: &str) -> String {
    name.to_lowercase()
}

/// One query's module: the generated code, the `Target` impl and the case.
fn query_module(c: &Compiled) -> String {
    let q = &c.query;
    let name = q.name.to_string();
    let k = type_string(&q.semiring.ty);
    let deletes = q.updates == UpdateModel::InsertDelete;
    let trusted = q.deletes == ivm_compiler::query::Deletes::Trusted;
    // The declared relations come first; the derived ones of atoms' local
    // steps have no update API.
    let rels = 0..q.declared().count();
    let arity = |r: usize| q.relations[r].columns.len();
    let snake = |r: usize| ivm_compiler::plan::names::snake_case(&q.relations[r].name.to_string());
    // The columns of relation `r` from a `u64` slice named `t`, typed (a
    // text parameter takes any `impl ivm::Text`). With `borrowed`, a text
    // column is lent as a `&str`: updates and inserts lend, deletes own,
    // so every case checks that both forms name the same row.
    let column = |r: usize, c: usize, t: &str, borrowed: bool| -> String {
        let ty = &q.relations[r].columns[c].ty;
        let owned = format!(
            "<{} as ::ivm_fuzz::Column>::from_value({t}[{c}])",
            type_string(ty)
        );
        if borrowed && ivm_compiler::ir::is_string_type(ty) {
            format!("::core::convert::AsRef::<str>::as_ref(&{owned})")
        } else {
            owned
        }
    };
    let args_as = |r: usize, t: &str, borrowed: bool| -> String {
        (0..arity(r))
            .map(|c| column(r, c, t, borrowed))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let args = |r: usize, t: &str| args_as(r, t, false);
    let lent = |r: usize| args_as(r, "t", true);
    // As the generated code spells a tuple: nested in chunks of 12 beyond
    // 12 items.
    let tuple = |items: String, _n: usize| nested_tuple(&items.split(", ").collect::<Vec<_>>());
    let arms = |call: &dyn Fn(usize) -> String| -> String {
        let mut s = String::new();
        for r in rels.clone() {
            let _ = writeln!(s, "            {r} => {},", call(r));
        }
        s.push_str("            _ => ::core::unreachable!(\"no such relation\"),\n");
        s
    };
    // The change enum's variant for a tuple `t` of relation `r` and a
    // borrowed `delta` (a field named like a column has another name).
    let change_of = |r: usize| {
        let columns = &q.relations[r].columns;
        let fields: Vec<String> = columns
            .iter()
            .enumerate()
            .map(|(i, col)| format!("{}: ::ivm_fuzz::Column::from_value(t[{i}])", col.name))
            .collect();
        let delta = if columns.iter().any(|col| col.name == "delta") {
            "delta_payload"
        } else {
            "delta"
        };
        format!(
            "{name}Change::{} {{ {}, {delta}: ::core::clone::Clone::clone(delta) }}",
            q.relations[r].name,
            fields.join(", ")
        )
    };
    let update = arms(&|r| format!("self.update_{}({}, delta)", snake(r), lent(r)));
    let insert = arms(&|r| format!("self.insert_{}({})", snake(r), lent(r)));
    let change_arms = arms(&|r| change_of(r));
    let (delete, retract) = if deletes {
        (
            format!(
                "match rel {{\n{}        }}",
                arms(&|r| format!("self.delete_{}({})", snake(r), args(r, "t")))
            ),
            // Through `ivm::Retract`, which takes the change enum.
            format!(
                "let delta = &delta;\n        let change = match rel {{\n{}        }};\n        ::ivm::Retract::retract(self, change)",
                change_arms
            ),
        )
    } else {
        let never = "let _ = (rel, t); ::core::unreachable!(\"a query without deletes\")";
        (never.to_string(), format!("let _ = delta; {never}"))
    };
    let change = change_arms;
    let load: Vec<String> = rels
        .clone()
        .map(|r| {
            format!(
                "contributions.iter().filter(|c| c.0 == {r}).map(|(_, t, d)| ({}, ::core::clone::Clone::clone(d)))",
                tuple(args(r, "t"), arity(r))
            )
        })
        .collect();
    let head_values: Vec<String> = (0..q.head.len())
        .map(|i| {
            format!(
                "::ivm_fuzz::Column::value(&key.{})",
                nested_item(i, q.head.len())
            )
        })
        .collect();
    let head_key = tuple(
        (0..q.head.len())
            .map(|i| format!("::ivm_fuzz::Column::from_value(key[{i}])"))
            .collect::<Vec<_>>()
            .join(", "),
        q.head.len(),
    );
    let (rows_key, lookup_key) = if q.head.is_empty() {
        ("_key".to_string(), "()".to_string())
    } else {
        ("key".to_string(), head_key)
    };
    let invariants = if matches!(c.strategy, "ivm_eps" | "factorized") {
        "\n    fn invariants(&self) -> ::core::result::Result<(), ::std::string::String> {\n        self.check_invariants()\n    }\n"
    } else {
        ""
    };
    let relations: Vec<String> = rels
        .clone()
        .map(|r| {
            let cols: Vec<String> = q.relations[r]
                .columns
                .iter()
                .map(|col| format!("(\"{}\", \"{}\")", col.name, type_string(&col.ty)))
                .collect();
            format!(
                "::ivm_fuzz::Relation {{ name: \"{}\", snake: \"{}\", columns: &[{}] }}",
                q.relations[r].name,
                snake(r),
                cols.join(", ")
            )
        })
        .collect();
    // The atoms as written: a wildcard or constant column gets a variable of
    // its own, and the constants go to `constants`. Semijoins' atoms are
    // left out, to their own cases.
    let mut fresh = q.variables.len();
    let mut constants: Vec<String> = Vec::new();
    let atoms: Vec<String> = (0..q.atoms.len())
        .filter(|&i| q.semijoins.iter().all(|s| s.atom != i))
        .map(|i| atom_case(q, i, &|r| r, &|v| v, &mut fresh, &mut constants))
        .collect();
    let mut semijoin_defs = String::new();
    let semijoins: Vec<String> = q
        .semijoins
        .iter()
        .enumerate()
        .map(|(j, s)| {
            let body = &s.body;
            // Its variables: the shared ones are the rule's, its own come
            // after the rule's.
            let ids: Vec<usize> = body
                .variables
                .iter()
                .map(|v| match q.variables.iter().position(|w| w.name == v.name && body.head.iter().any(|&h| body.variables[h].name == v.name)) {
                    Some(outer) => outer,
                    None => {
                        fresh += 1;
                        fresh - 1
                    }
                })
                .collect();
            // Its relations are the rule's of the same name.
            let rel = |r: usize| {
                q.relations
                    .iter()
                    .position(|x| x.name == body.relations[r].name)
                    .expect("a semijoin reads the rule's relations")
            };
            let mut own_constants = Vec::new();
            let own_atoms: Vec<String> = (0..body.atoms.len())
                .map(|i| atom_case(body, i, &rel, &|v| ids[v], &mut fresh, &mut own_constants))
                .collect();
            let factors = all_factors(body);
            let condition = if factors.is_empty() {
                "::core::option::Option::None".to_string()
            } else {
                let mut read: Vec<usize> = factors.iter().flat_map(|f| f.vars.clone()).collect();
                read.sort_unstable();
                read.dedup();
                let binds: String = read
                    .iter()
                    .map(|&v| {
                        format!(
                            "    let {}: {} = ::ivm_fuzz::Column::from_value(values[{}]);\n",
                            body.variables[v].name,
                            type_string(&body.variables[v].ty),
                            ids[v]
                        )
                    })
                    .collect();
                let product = factors
                    .iter()
                    .map(|f| {
                        format!(
                            "::ivm::__private::factor::<::ivm::semiring::Int>({})",
                            f.expr.to_token_stream()
                        )
                    })
                    .reduce(|acc, f| format!("::ivm::Semiring::mul(&{acc}, &{f})"))
                    .unwrap_or_default();
                let _ = write!(
                    semijoin_defs,
                    "\nfn semijoin{j}(values: &[u64]) -> bool {{\n{binds}    !::ivm::Semiring::is_zero(&{product})\n}}\n"
                );
                format!("::core::option::Option::Some(semijoin{j})")
            };
            let _ = write!(
                semijoin_defs,
                "\nfn semijoin{j}_constants() -> ::std::vec::Vec<(usize, usize, u64)> {{\n    ::std::vec![{}]\n}}\n",
                own_constants.join(", ")
            );
            format!(
                "::ivm_fuzz::SemijoinCase {{ negated: {}, atoms: &[{}], constants: semijoin{j}_constants, condition: {condition} }}",
                s.negated(),
                own_atoms.join(", ")
            )
        })
        .collect();
    // The computed columns, from the other variables' values, in the order
    // written (a nullary atom's column, always `true`, is the compiler's
    // own: the evaluator multiplies by the atom's tuples without it).
    let lets: Vec<&ivm_compiler::query::Let> = q
        .atoms
        .iter()
        .filter_map(|a| a.local.as_ref())
        .flat_map(|l| &l.lets)
        .filter(|l| l.kind == LetKind::Written)
        .collect();
    let computed: Vec<usize> = lets.iter().map(|l| l.var).collect();
    let (compute_fn, compute_def) = if lets.is_empty() {
        ("|_| {}", String::new())
    } else {
        let mut read: Vec<usize> = lets
            .iter()
            .flat_map(|l| l.value.vars.clone())
            .filter(|v| !computed.contains(v))
            .collect();
        read.sort_unstable();
        read.dedup();
        let mut body = binds(q, &read, "    ");
        for l in &lets {
            let v = &q.variables[l.var];
            body.push_str(&format!(
                "    let {}: {} = {};\n    values[{}] = ::ivm_fuzz::Column::value(&{});\n",
                v.name,
                type_string(&v.ty),
                ivm_compiler::query::expr_text(&l.value.expr),
                l.var,
                v.name
            ));
        }
        (
            "compute_lets",
            format!("\nfn compute_lets(values: &mut [u64]) {{\n{body}}}\n"),
        )
    };
    // The product of every atom's factors and the theta factors, from the
    // variables' values.
    let factors = all_factors(q);
    let factor_fn = if factors.is_empty() {
        String::new()
    } else {
        let mut read: Vec<usize> = factors.iter().flat_map(|f| f.vars.clone()).collect();
        read.sort_unstable();
        read.dedup();
        let binds = binds(q, &read, "        ");
        let product = factors
            .iter()
            .map(|f| {
                format!(
                    "::ivm::__private::factor::<{k}>({})",
                    f.expr.to_token_stream()
                )
            })
            .reduce(|acc, f| format!("::ivm::Semiring::mul(&{acc}, &{f})"))
            .unwrap_or_default();
        format!("\n    fn factor(values: &[u64]) -> {k} {{\n{binds}        {product}\n    }}\n")
    };
    let head_types: Vec<String> = q
        .head
        .iter()
        .map(|&v| format!("{:?}", type_string(&q.variables[v].ty)))
        .collect();
    format!(
        r#"pub mod {module} {{
#![allow(deprecated)]
// What the factors' expressions name (`Int(..)`, `MinPlus(..)`).
#[allow(unused_imports)]
use ::ivm::semiring::*;

{code}
impl ::ivm_fuzz::Target for {name} {{
    type K = {k};

    fn fresh() -> Self {{
        {name}::new()
    }}

    fn load(contributions: &[::ivm_fuzz::stream::Contribution<{k}>]) -> Self {{
        {name}::bulk_load(
            {load}
        )
    }}

    fn update(&mut self, rel: usize, t: &[u64], delta: {k}) {{
        match rel {{
{update}        }}
    }}

    fn insert(&mut self, rel: usize, t: &[u64]) {{
        match rel {{
{insert}        }}
    }}

    fn delete(&mut self, rel: usize, t: &[u64]) -> ::core::result::Result<(), ::ivm::Error> {{
        {delete}
    }}

    fn retract(&mut self, rel: usize, t: &[u64], delta: {k}) -> ::core::result::Result<(), ::ivm::Error> {{
        {retract}
    }}

    fn apply_batch(&mut self, batch: &[::ivm_fuzz::stream::Contribution<{k}>]) {{
        ::ivm::View::apply(self, batch.iter().map(|(rel, t, delta)| match rel {{
{change}        }}));
    }}

    fn rows(&self) -> ::std::vec::Vec<(::std::vec::Vec<u64>, {k})> {{
        ::ivm::View::iter(self).map(|({rows_key}, payload)| (::std::vec![{head_values}], payload)).collect()
    }}

    fn changed(&mut self) -> ::std::vec::Vec<(::std::vec::Vec<u64>, {k}, {k})> {{
        ::ivm::View::changes(self).map(|({rows_key}, old, new)| (::std::vec![{head_values}], old, new)).collect()
    }}

    fn lookup(&self, key: &[u64]) -> {k} {{
        let _ = key;
        ::ivm::View::get(self, &{lookup_key})
    }}

    fn count(&self) -> usize {{
        ::ivm::View::len(self)
    }}

    fn empty(&self) -> bool {{
        ::ivm::View::is_empty(self)
    }}
{invariants}{factor_fn}}}

fn constants() -> ::std::vec::Vec<(usize, usize, u64)> {{
    ::std::vec![{constants}]
}}

/// The query's text and shape, for the harness.
pub static CASE: ::ivm_fuzz::Case = ::ivm_fuzz::Case {{
    name: "{name}",
    text: {text:?},
    strategy: "{strategy}",
    intractable: {intractable},
    semiring: "{k}",
    relations: &[{relations}],
    atoms: &[{atoms}],
    head: &{head:?},
    head_types: &[{head_types}],
    deletes: {deletes},
    trusted: {trusted},
    constants,
    computed: &{computed:?},
    compute: {compute_fn},
    semijoins: &[{semijoins}],
}};
{compute_def}{semijoin_defs}}}

"#,
        module = module_name(&name),
        code = c.code,
        load = load.join(",\n            "),
        head_values = head_values.join(", "),
        text = q.to_text(),
        strategy = c.strategy,
        intractable = c.intractable,
        relations = relations.join(", "),
        atoms = atoms.join(", "),
        head = q.head,
        head_types = head_types.join(", "),
        constants = constants.join(", "),
        semijoins = semijoins.join(", "),
    )
}

/// Every `{ expr }` factor of `q`: each atom's own, then the theta ones.
fn all_factors(q: &Query) -> Vec<&ExprFactor> {
    q.atoms
        .iter()
        .filter_map(|a| a.local.as_ref())
        .flat_map(|l| &l.factors)
        .chain(&q.theta)
        .collect()
}

/// Atom `i` of `q` as a case lists it, `(relation, &[variables])`, with
/// relations numbered by `rel` and variables by `id`: a wildcard or constant column
/// gets a variable of its own (from `fresh`), and a constant goes to
/// `constants` as `(atom, column, value)`.
fn atom_case(
    q: &Query,
    i: usize,
    rel: &dyn Fn(usize) -> usize,
    id: &dyn Fn(usize) -> usize,
    fresh: &mut usize,
    constants: &mut Vec<String>,
) -> String {
    let a = &q.atoms[i];
    let Some(local) = &a.local else {
        let vars: Vec<usize> = a.vars.iter().map(|&v| id(v)).collect();
        return format!("({}, &{vars:?})", rel(a.relation));
    };
    let columns = &q.relations[local.source].columns;
    let vars: Vec<usize> = local
        .args
        .iter()
        .enumerate()
        .map(|(c, arg)| match arg {
            Arg::Var(v) => id(*v),
            Arg::Some(_) => panic!(
                "the naive evaluator reads columns of the fuzzer's types, never `Option`: \
                 a suite query cannot match `Some(v)` (SQL's NULLs are checked against SQLite)"
            ),
            Arg::Wildcard | Arg::Const(_) => {
                if let Arg::Const(e) = arg {
                    let ty = type_string(&columns[c].ty);
                    let value = if ty == "String" {
                        format!("::std::string::String::from({})", e.to_token_stream())
                    } else {
                        e.to_token_stream().to_string()
                    };
                    constants.push(format!(
                        "({i}, {c}, {{ let value: {ty} = {value}; ::ivm_fuzz::Column::value(&value) }})"
                    ));
                }
                *fresh += 1;
                *fresh - 1
            }
        })
        .collect();
    format!("({}, &{vars:?})", rel(local.source))
}

/// `let v: T = ::ivm_fuzz::Column::from_value(values[i]);` for each of
/// `vars`: the variables' values, as the naive evaluator's functions read
/// them.
fn binds(q: &Query, vars: &[usize], indent: &str) -> String {
    vars.iter()
        .map(|&v| {
            format!(
                "{indent}let {}: {} = ::ivm_fuzz::Column::from_value(values[{v}]);\n",
                q.variables[v].name,
                type_string(&q.variables[v].ty)
            )
        })
        .collect()
}
