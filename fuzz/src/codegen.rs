//! The code writer: each generated query compiled by `ivm-compiler` (the
//! same `driver::compile_str` as `build.rs` and `ivmc compile`), wrapped
//! in a module with a [`Target`](crate::Target) impl for its struct and
//! its [`Case`](crate::Case), and a table of every query's
//! [`Entry`](crate::Entry).

use std::fmt::Write as _;
use std::path::Path;

use crate::generate::{self, Generated, RELATIONS};

/// The Rust source of a module holding `queries`: one submodule per query
/// and `ENTRIES`, the table the harness drives. It expects the crate it is
/// included in to depend on `ivm` and on `ivm-fuzz` (as `ivm_fuzz`).
pub fn module(queries: &[Generated]) -> String {
    let mut out = String::from(
        "// Written by ivm-fuzz (codegen::module): random queries compiled by\n\
         // ivm-compiler, each with the harness's view of its struct.\n\n",
    );
    for g in queries {
        out.push_str(&query_module(g));
    }
    out.push_str(
        "/// Every query above, for the harness.\npub static ENTRIES: &[::ivm_fuzz::Entry] = &[\n",
    );
    for g in queries {
        let m = module_name(&g.spec.name);
        let _ = writeln!(
            out,
            "    ::ivm_fuzz::Entry {{ case: &{m}::CASE, run: ::ivm_fuzz::harness::run::<{m}::{}> }},",
            g.spec.name
        );
    }
    out.push_str("];\n");
    out
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
    std::fs::write(path, module(&queries))?;
    Ok(queries)
}

fn module_name(name: &str) -> String {
    name.to_lowercase()
}

/// One query's module: the generated code, the `Target` impl and the case.
fn query_module(g: &Generated) -> String {
    let spec = &g.spec;
    let name = &spec.name;
    let k = spec.semiring;
    let deletes = !spec.insert_only;
    let rels = 0..spec.relations.len();
    let snake = |r: usize| RELATIONS[r].to_lowercase();
    // The columns of relation `r` from a `u64` slice named `t`.
    let args = |r: usize, t: &str| -> String {
        (0..spec.relations[r].len())
            .map(|c| format!("::ivm_fuzz::Column::from_value({t}[{c}])"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let tuple = |items: String, n: usize| {
        if n == 1 {
            format!("({items},)")
        } else {
            format!("({items})")
        }
    };
    let arms = |call: &dyn Fn(usize) -> String| -> String {
        let mut s = String::new();
        for r in rels.clone() {
            let _ = writeln!(s, "            {r} => {},", call(r));
        }
        s.push_str("            _ => ::core::unreachable!(\"no such relation\"),\n");
        s
    };
    // The change enum's variant for a tuple `t` of relation `r` and a
    // borrowed `delta`.
    let change_of = |r: usize| {
        let fields: Vec<String> = (0..spec.relations[r].len())
            .map(|c| format!("c{c}: ::ivm_fuzz::Column::from_value(t[{c}])"))
            .collect();
        format!(
            "{name}Change::{} {{ {}, delta: ::core::clone::Clone::clone(delta) }}",
            RELATIONS[r],
            fields.join(", ")
        )
    };
    let update = arms(&|r| format!("self.update_{}({}, delta)", snake(r), args(r, "t")));
    let insert = arms(&|r| format!("self.insert_{}({})", snake(r), args(r, "t")));
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
                tuple(args(r, "t"), spec.relations[r].len())
            )
        })
        .collect();
    let head_values: Vec<String> = (0..spec.head.len())
        .map(|i| format!("::ivm_fuzz::Column::value(&key.{i})"))
        .collect();
    let head_key = tuple(
        (0..spec.head.len())
            .map(|i| format!("::ivm_fuzz::Column::from_value(key[{i}])"))
            .collect::<Vec<_>>()
            .join(", "),
        spec.head.len(),
    );
    let (rows_key, lookup_key) = if spec.head.is_empty() {
        ("_key".to_string(), "()".to_string())
    } else {
        ("key".to_string(), head_key)
    };
    let invariants = if matches!(g.strategy, "ivm_eps" | "factorized") {
        "\n    fn invariants(&self) -> ::core::result::Result<(), ::std::string::String> {\n        self.check_invariants()\n    }\n"
    } else {
        ""
    };
    let relations: Vec<String> = rels
        .clone()
        .map(|r| {
            let cols: Vec<String> = spec.relations[r]
                .iter()
                .enumerate()
                .map(|(c, ty)| format!("(\"c{c}\", \"{ty}\")"))
                .collect();
            format!(
                "::ivm_fuzz::Relation {{ name: \"{}\", snake: \"{}\", columns: &[{}] }}",
                RELATIONS[r],
                snake(r),
                cols.join(", ")
            )
        })
        .collect();
    let atoms: Vec<String> = spec
        .atoms
        .iter()
        .map(|(r, vs)| format!("({r}, &{vs:?})"))
        .collect();
    let head_types: Vec<String> = spec
        .head
        .iter()
        .map(|&v| format!("{:?}", spec.var_type(v)))
        .collect();
    format!(
        r#"pub mod {module} {{
#![allow(deprecated)]

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
{invariants}}}

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
}};
}}

"#,
        module = module_name(name),
        code = g.code,
        load = load.join(",\n            "),
        head_values = head_values.join(", "),
        text = g.text,
        strategy = g.strategy,
        intractable = g.intractable,
        relations = relations.join(", "),
        atoms = atoms.join(", "),
        head = spec.head,
        head_types = head_types.join(", "),
    )
}
