//! Helpers shared by the test files: building query text from a rule.

#![allow(dead_code, reason = "each test file uses a different subset")]

use std::collections::BTreeMap;

/// Builds a query item from attributes and a rule, declaring each relation
/// the rule uses with `u32` columns named `c0, c1, ...`.
pub fn item(name: &str, attrs: &str, rule: &str) -> String {
    let body = rule.split_once('=').map_or(rule, |(_, b)| b);
    let mut arity: BTreeMap<String, usize> = BTreeMap::new();
    for atom in body.split('*') {
        let atom = atom.trim().trim_end_matches(';');
        if atom.starts_with('{') {
            continue; // a factor, `{ expr }`
        }
        let (rel, args) = atom.split_once('(').expect("atom");
        let n = args.trim_end_matches(')').split(',').count();
        arity.entry(rel.trim().to_owned()).or_insert(n);
    }
    let decls: String = arity
        .iter()
        .map(|(r, n)| {
            let cols: Vec<String> = (0..*n).map(|i| format!("c{i}: u32")).collect();
            format!("    relation {r}({});\n", cols.join(", "))
        })
        .collect();
    format!("{attrs}\nquery {name} {{\n{decls}    {rule};\n}}\n")
}
