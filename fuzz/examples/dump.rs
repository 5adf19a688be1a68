//! Prints the text, `ivmc explain`'s report, the maintenance IR and the
//! generated code of many generated queries, for checking that a refactor of the compiler leaves
//! what it generates byte-identical:
//!
//! ```text
//! cargo run --release -p ivm-fuzz --example dump -- 900 > before.txt
//! # change the compiler
//! cargo run --release -p ivm-fuzz --example dump -- 900 > after.txt
//! cmp before.txt after.txt
//! ```
//!
//! Arguments: how many queries (default 450) and the seed (default 99).

fn main() {
    let mut args = std::env::args().skip(1);
    let n: usize = args.next().map_or(450, |a| a.parse().expect("a count"));
    let seed: u64 = args.next().map_or(99, |a| a.parse().expect("a seed"));
    for g in ivm_fuzz::generate::queries(seed, n, "D") {
        println!("{}", g.text);
        for report in ivm_compiler::pipeline::report_str(&g.text).expect("a generated query parses")
        {
            println!("{}", ivm_compiler::explain::to_text(&report));
        }
        for program in ivm_compiler::driver::ir_str(&g.text).expect("a generated query parses") {
            println!("{}", program.expect("a generated query lowers"));
        }
        println!("{}", g.code);
    }
}
