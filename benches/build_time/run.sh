#!/usr/bin/env bash
# The debug build time of a crate holding 100 SQL views: the 34 of
# employee.sql, the 57 of tests/queries/sql.sql and the 9 of
# generated-examples/queries/tpch_sql.sql, compiled by a build script with
# `ivm_compiler::build::compile_files`, plus a binary that drives every
# view through `ivm::sql::TextRetract` (so that the methods generated code
# marks `#[inline]` are compiled too). Prints the cold build (compiler and
# dependencies included) and the crate alone. See docs/benchmarks.md.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
dir="$root/target/build-time"
rm -rf "$dir/crate"
mkdir -p "$dir/crate/src/bin" "$dir/crate/queries"
cp "$root/benches/build_time/employee.sql" "$dir/crate/queries/employee.sql"
cp "$root/tests/queries/sql.sql" "$dir/crate/queries/sql.sql"
cp "$root/generated-examples/queries/tpch_sql.sql" "$dir/crate/queries/tpch.sql"
cd "$dir/crate"
cat > Cargo.toml <<TOML
[package]
name = "views100"
version = "0.1.0"
edition = "2024"
[dependencies]
ivm = { path = "$root/runtime", default-features = false, features = ["sql"] }
[build-dependencies]
ivm-compiler = { path = "$root/compiler" }
[workspace]
TOML
cat > build.rs <<'RS'
fn main() {
    let files = ["queries/employee.sql", "queries/sql.sql", "queries/tpch.sql"];
    ivm_compiler::build::compile_files(&files).unwrap();
}
RS
cat > src/lib.rs <<'RS'
#![allow(missing_docs, dead_code, deprecated)]
pub mod employee { include!(concat!(env!("OUT_DIR"), "/employee.rs")); }
pub mod sql { include!(concat!(env!("OUT_DIR"), "/sql.rs")); }
pub mod tpch { include!(concat!(env!("OUT_DIR"), "/tpch.rs")); }
RS
{
  echo 'use ivm::sql::TextRetract;'
  echo 'fn main() {'
  echo '    let mut views: Vec<Box<dyn TextRetract>> = Vec::new();'
  for m in employee sql tpch; do
    q="queries/$m.sql"
    grep -io 'create view [a-z0-9_]*' "$q" | awk '{print $3}' | while read -r v; do
      s=$(echo "$v" | sed -E 's/(^|_)([a-z0-9])/\U\2/g')
      echo "    views.push(Box::new(views100::$m::$s::default()));"
    done
  done
  echo '    for v in &mut views {'
  echo '        for t in v.tables() {'
  echo '            let _ = v.insert_text(t, &["1", "2", "3"]);'
  echo '            let _ = v.delete_text(t, &["1", "2", "3"]);'
  echo '        }'
  echo '        println!("{} {}", v.name(), v.text_rows().len());'
  echo '    }'
  echo '}'
} > src/bin/all.rs
export CARGO_TARGET_DIR="$dir/target"
rm -rf "$CARGO_TARGET_DIR"
start=$(date +%s.%N)
cargo build --quiet 2>/dev/null
cold=$(echo "$(date +%s.%N) - $start" | bc)
cargo clean --quiet -p views100
start=$(date +%s.%N)
cargo build --quiet 2>/dev/null
own=$(echo "$(date +%s.%N) - $start" | bc)
lines=$(cat "$CARGO_TARGET_DIR"/debug/build/views100-*/out/*.rs | wc -l)
views=$(cargo run --quiet --bin all 2>/dev/null | wc -l)
echo "views: $views, generated lines: $lines"
echo "cold debug build (compiler and dependencies included): ${cold} s"
echo "the crate alone (build script, generated code, the driver): ${own} s"
