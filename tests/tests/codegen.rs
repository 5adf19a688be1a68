//! Snapshots of the generated code for the example queries, pretty-printed
//! (as `ivmc compile` shows it) and of their maintenance IR (as `ivmc
//! explain --ir` shows it). A reviewer reads the diff.

use ivm_compiler::driver;

fn example(name: &str) -> String {
    let path = format!(
        "{}/../generated-examples/queries/{name}.ivm",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(path).expect("example query file")
}

#[test]
fn generated_code() {
    for name in ["retail", "graph", "security", "append_only", "tpch"] {
        let code = driver::compile_str(&example(name)).expect("example compiles");
        insta::assert_snapshot!(format!("{name}_rs"), code);
    }
}

#[test]
fn maintenance_ir() {
    for name in ["retail", "graph", "security", "append_only", "tpch"] {
        let text: Vec<String> = driver::ir_str(&example(name))
            .expect("example parses")
            .into_iter()
            .map(|p| p.expect("example lowers").to_string())
            .collect();
        insta::assert_snapshot!(format!("{name}_ir"), text.join("\n"));
    }
}
