//! `ivm-fuzz`: the soak run of the end-to-end fuzzer. Generates random
//! queries, compiles them with `ivm-compiler` into a scratch crate, builds
//! and runs it in batches, drives every query with random update streams
//! against the naive evaluator, and reports queries, updates and
//! mismatches.
//!
//! ```text
//! cargo run --release -p ivm-fuzz -- --queries 2000 --steps 100000 --seed 7
//! ```

use std::path::PathBuf;
use std::time::{Instant, SystemTime};

use clap::Parser;
use ivm_fuzz::soak::{self, Options};

/// Fuzzes the IVM compiler end to end: random queries compiled and run,
/// results compared with the naive evaluator after every update.
#[derive(Parser, Debug)]
#[command(name = "ivm-fuzz", version)]
struct Args {
    /// How many queries to generate and drive.
    #[arg(long, default_value_t = 200)]
    queries: usize,
    /// Updates per query.
    #[arg(long, default_value_t = 10_000)]
    steps: u64,
    /// The seed; a new one from the clock when not given (it is printed).
    #[arg(long)]
    seed: Option<u64>,
    /// The share of the queries that are SQL views, checked against
    /// SQLite (the rest are rules, checked against the naive evaluator).
    #[arg(long, default_value_t = 0.3)]
    sql_share: f64,
    /// Queries per build of the scratch crate.
    #[arg(long, default_value_t = 100)]
    batch: usize,
    /// Threads driving the queries of a batch.
    #[arg(long, default_value_t = 2)]
    threads: usize,
    /// The most calls in one episode (a database built from scratch).
    #[arg(long, default_value_t = 200)]
    max_episode: usize,
    /// Where the scratch crate is built (default: `target/ivm-fuzz`).
    #[arg(long)]
    dir: Option<PathBuf>,
}

fn main() {
    let args = Args::parse();
    let workspace = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the fuzz crate sits in the workspace")
        .to_path_buf();
    let seed = args.seed.unwrap_or_else(|| {
        SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs())
    });
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map_or_else(|| workspace.join("target"), PathBuf::from);
    let opts = Options {
        queries: args.queries,
        steps: args.steps,
        seed,
        batch: args.batch,
        sql_share: args.sql_share,
        threads: args.threads,
        max_episode: args.max_episode,
        dir: args.dir.unwrap_or_else(|| target.join("ivm-fuzz")),
        workspace,
    };
    println!(
        "ivm-fuzz: {} queries, {} updates each, seed {seed}",
        opts.queries, opts.steps
    );
    let started = Instant::now();
    let summary = match soak::soak(&opts, &mut |line| println!("{line}")) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    };
    for report in &summary.mismatches {
        println!("\n{report}");
    }
    let elapsed = started.elapsed();
    println!("\nqueries     {}", summary.queries());
    for (strategy, n) in &summary.per_strategy {
        println!("  {strategy:<40} {n}");
    }
    println!("semirings");
    for (semiring, n) in &summary.per_semiring {
        println!("  {semiring:<40} {n}");
    }
    println!(
        "updates     {} ({:.0} per second of running)",
        summary.updates,
        summary.updates as f64 / summary.running.as_secs_f64().max(1e-9)
    );
    println!(
        "episodes cut short by the evaluator (an overflow, or a database too large to evaluate after every call): {}",
        summary.cut_short
    );
    println!(
        "time        {:.0?} ({:.0?} building, {:.0?} running)",
        elapsed, summary.building, summary.running
    );
    println!("mismatches  {}", summary.mismatches.len());
    if !summary.mismatches.is_empty() {
        std::process::exit(1);
    }
}
