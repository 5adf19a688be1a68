//! The soak command's engine: batches of generated queries written into a
//! scratch crate, built by cargo in release mode (with debug assertions
//! and overflow checks on, so the runtime's own checks run too), run, and
//! their outcomes gathered.
//!
//! The scratch crate lives under `target/ivm-fuzz/` by default and depends
//! on the workspace's `ivm` and `ivm-fuzz` by path; each batch rewrites its
//! `src/cases.rs` and rebuilds it.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::codegen;
use crate::generate;
use crate::rng;

/// What to run.
#[derive(Clone, Debug)]
pub struct Options {
    /// Queries in all.
    pub queries: usize,
    /// Updates per query.
    pub steps: u64,
    /// The run's seed: the queries of batch `b` come from
    /// `rng::derive(seed, b)`, and every stream from `seed`.
    pub seed: u64,
    /// Queries per build.
    pub batch: usize,
    /// The share of each batch that is SQL views (`sql::views`), checked
    /// against SQLite (`sqlite::drive`, in the scratch crate); the rest are rules
    /// checked against the naive evaluator.
    pub sql_share: f64,
    /// Threads running the queries of a batch.
    pub threads: usize,
    /// The most calls in one episode.
    pub max_episode: usize,
    /// Where the scratch crate and its target directory go.
    pub dir: PathBuf,
    /// The workspace root (the scratch crate's path dependencies are its
    /// `runtime/` and `fuzz/`).
    pub workspace: PathBuf,
}

/// What a soak found.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    /// Queries driven, by strategy keyword (the rejected queries taken on
    /// with `#[allow(intractable)]` under `first_order (allow(intractable))`).
    pub per_strategy: BTreeMap<String, usize>,
    /// Queries driven, by semiring.
    pub per_semiring: BTreeMap<String, usize>,
    /// Updates made.
    pub updates: u64,
    /// Episodes cut short by the evaluator (an overflow, or a database
    /// too large to evaluate after every call).
    pub cut_short: u64,
    /// The report of each mismatch.
    pub mismatches: Vec<String>,
    /// Time spent building the batches.
    pub building: Duration,
    /// Time spent running them.
    pub running: Duration,
}

impl Summary {
    /// Queries driven.
    pub fn queries(&self) -> usize {
        self.per_strategy.values().sum()
    }
}

/// Runs the soak, telling `log` of each step; an error is a batch that
/// failed to build or to run (generated code that does not compile is a
/// compiler bug too, and the error shows it).
pub fn soak(opts: &Options, log: &mut dyn FnMut(&str)) -> Result<Summary, String> {
    let krate = opts.dir.join("soak");
    write_manifest(&krate, &opts.workspace)?;
    let mut summary = Summary::default();
    let batches = opts.queries.div_ceil(opts.batch.max(1));
    for b in 0..batches {
        let n = opts.batch.min(opts.queries - b * opts.batch);
        let views = ((n as f64) * opts.sql_share.clamp(0.0, 1.0)).round() as usize;
        let seed = rng::derive(opts.seed, b as u64);
        let queries = generate::queries(seed, n - views, &format!("B{b}Q"));
        let mut cases = codegen::module(&queries.iter().map(codegen::compiled).collect::<Vec<_>>());
        cases.push_str(&sql_module(rng::derive(seed, u64::MAX), views)?);
        write_if_changed(&krate.join("src/cases.rs"), &cases)?;
        let started = Instant::now();
        build(&krate, &opts.dir.join("target"))?;
        let built = started.elapsed();
        summary.building += built;
        let started = Instant::now();
        let before = (summary.updates, summary.mismatches.len());
        run(opts, &batch_binary(&opts.dir), &mut summary)?;
        summary.running += started.elapsed();
        log(&format!(
            "batch {}/{batches}: {n} queries, {} updates, {} mismatches (built in {:.0?}, ran in {:.0?})",
            b + 1,
            summary.updates - before.0,
            summary.mismatches.len() - before.1,
            built,
            started.elapsed()
        ));
    }
    Ok(summary)
}

/// `n` random SQL views (`sql::views`) compiled into a module `sql` with
/// the schema they read and `all()`, every view fresh.
fn sql_module(seed: u64, n: usize) -> Result<String, String> {
    let text = crate::sql::views(seed, n);
    // No view (`--sql-share 0`): the schema alone, which compiles to nothing.
    let code = if n == 0 {
        Ok(String::new())
    } else {
        ivm_compiler::driver::compile_str(&text)
    };
    let code = code.map_err(|e| {
        format!(
            "a generated SQL view does not compile (a compiler bug):\n{}",
            ivm_compiler::diagnostic::render(&e, "views.sql", &text)
        )
    })?;
    let views: String = (0..n)
        .map(|i| format!("Box::new(Random{i}::new()),\n"))
        .collect();
    Ok(format!(
        "\n/// The batch's SQL views, checked against SQLite.\n\
         #[allow(deprecated, reason = \"views opted in to intractable strategies warn\")]\n\
         pub mod sql {{\n{code}\n\
         /// The tables the views read.\npub const TABLES: &str = {:?};\n\
         /// Every view, fresh.\n\
         pub fn all() -> Vec<Box<dyn ::ivm::sql::TextRetract>> {{\n    vec![{views}]\n}}\n}}\n",
        crate::sql::TABLES
    ))
}

/// The scratch crate's manifest and `main`.
fn write_manifest(krate: &Path, workspace: &Path) -> Result<(), String> {
    std::fs::create_dir_all(krate.join("src")).map_err(|e| format!("{}: {e}", krate.display()))?;
    let runtime = workspace.join("runtime");
    let fuzz = workspace.join("fuzz");
    let manifest = format!(
        r#"# Written by `ivm-fuzz` (soak): a batch of generated queries and the harness.
[package]
name = "ivm-fuzz-soak"
version = "0.0.0"
edition = "2024"
publish = false

[dependencies]
ivm = {{ path = {runtime:?}, default-features = false, features = ["sql"] }}
ivm-fuzz = {{ path = {fuzz:?}, default-features = false, features = ["sqlite"] }}

# Fast to build, and the runtime's debug checks and overflow checks on.
[profile.release]
opt-level = 1
debug-assertions = true
overflow-checks = true

# Not a member of the ivm workspace.
[workspace]
"#
    );
    write_if_changed(&krate.join("Cargo.toml"), &manifest)?;
    write_if_changed(
        &krate.join("src/main.rs"),
        "//! A batch of generated queries and SQL views, driven by the ivm-fuzz\n\
         //! harness and the SQLite oracle.\n\n\
         #[allow(missing_docs, clippy::all)]\nmod cases;\n\n\
         fn main() {\n    let rules = ivm_fuzz::harness::drive(cases::ENTRIES);\n    \
         let views = ivm_fuzz::sqlite::drive(cases::sql::TABLES, cases::sql::all);\n    \
         std::process::exit(i32::from(rules || views));\n}\n",
    )?;
    // The workspace's lock file: the same dependency versions, and no
    // registry lookup.
    let lock = krate.join("Cargo.lock");
    if !lock.exists() {
        let _ = std::fs::copy(workspace.join("Cargo.lock"), &lock);
    }
    Ok(())
}

fn write_if_changed(path: &Path, text: &str) -> Result<(), String> {
    if std::fs::read_to_string(path).is_ok_and(|old| old == text) {
        return Ok(());
    }
    std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
}

/// `cargo build --release` of the scratch crate.
fn build(krate: &Path, target: &Path) -> Result<(), String> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = Command::new(cargo)
        .args(["build", "--release", "--quiet", "--manifest-path"])
        .arg(krate.join("Cargo.toml"))
        .env("CARGO_TARGET_DIR", target)
        .stdout(Stdio::inherit())
        .stderr(Stdio::piped())
        .output()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "the batch does not build (generated code that does not compile is a bug; \
             the crate is in {}):\n{}",
            krate.display(),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(())
}

/// The scratch crate's binary, once built.
fn batch_binary(dir: &Path) -> PathBuf {
    dir.join("target/release/ivm-fuzz-soak")
}

/// Runs a built batch and reads its `case` lines and reports.
fn run(opts: &Options, binary: &Path, summary: &mut Summary) -> Result<(), String> {
    let mut child = Command::new(binary)
        .args(["--steps", &opts.steps.to_string()])
        .args(["--seed", &opts.seed.to_string()])
        .args(["--threads", &opts.threads.to_string()])
        .args(["--max-episode", &opts.max_episode.to_string()])
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run {}: {e}", binary.display()))?;
    let stdout = child.stdout.take().expect("piped");
    let mut report: Option<String> = None;
    for line in BufReader::new(stdout).lines() {
        let line = line.map_err(|e| format!("reading the batch's output: {e}"))?;
        if let Some(r) = &mut report {
            if line == "--- end" {
                summary.mismatches.push(report.take().expect("in a report"));
            } else {
                r.push_str(&line);
                r.push('\n');
            }
        } else if line == "--- report" {
            report = Some(String::new());
        } else if let Some(case) = line.strip_prefix("case ") {
            let field = |name: &str| {
                case.split(' ')
                    .find_map(|kv| kv.strip_prefix(name)?.strip_prefix('='))
                    .unwrap_or("?")
                    .to_string()
            };
            let mut strategy = field("strategy");
            if field("intractable") == "true" {
                strategy.push_str(" (allow(intractable))");
            }
            if field("trusted") == "true" {
                strategy.push_str(" (deletes(trusted))");
            }
            *summary.per_strategy.entry(strategy).or_default() += 1;
            *summary.per_semiring.entry(field("semiring")).or_default() += 1;
            summary.updates += field("updates").parse::<u64>().unwrap_or(0);
            summary.cut_short += field("cut_short").parse::<u64>().unwrap_or(0);
        }
    }
    let status = child.wait().map_err(|e| e.to_string())?;
    // Exit code 1 means mismatches, which are read above.
    if !status.success() && status.code() != Some(1) {
        return Err(format!("the batch crashed: {status}"));
    }
    Ok(())
}
