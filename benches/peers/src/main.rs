//! Side-by-side benchmark of the code `ivm` generates against hand-written
//! delta code, differential-dataflow, dbsp and recomputation, on identical
//! pre-generated update streams (issue 6).
//!
//! ```sh
//! cargo run --release --manifest-path benches/peers/Cargo.toml -- [--quick]
//! ```
//!
//! Every (workload, N, engine) cell runs in a child process of its own (the
//! same binary with `--child`), so that its peak resident memory is its own
//! and no engine's allocator state or threads leak into another's figures;
//! the generated and the hand-written code run three children each, in
//! turns, and their rounds are pooled (see `REPEATED`).
//! The parent checks that every engine ended with the same result (the run
//! fails otherwise), skips the cells projected to exceed the time or memory
//! budget, prints the tables, and writes them with log-log plots: on a full
//! run to `benches/peers/target/peers.md` and `docs/img/peers_*.svg`, on a
//! quick run to `benches/peers/target/peers-quick/`.
//!
//! Options: `--quick` (N up to 10^5 and shorter phases), `--only ID,ID`
//! (workloads by id, e.g. `grouped_k1e3`), `--engines ID,ID` (among `ivm`,
//! `hand`, `dd`, `dbsp`, `recompute`).

mod engines;
mod measure;
mod report;
mod workloads;

use std::io::Read;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use engines::dbsp::{DbspConnection, DbspExposed, DbspGrouped, DbspTriangle};
use engines::dd::{DdConnection, DdExposed, DdGrouped, DdTriangle};
use engines::hand::{HandConnection, HandExposed, HandGrouped, HandTriangle};
use engines::ivm::Ivm;
use engines::ivm::queries::*;
use measure::{Budget, Report, measure};
use workloads::{BATCHES, ROUNDS, Workload, pow10};

/// The engines, by id, in table order.
pub const ENGINES: [&str; 5] = ["ivm", "hand", "dd", "dbsp", "recompute"];

/// The engines run in turns, `REPEATS` children each per cell (see
/// `main`): those whose rates are within a small factor of each other.
const REPEATED: [&str; 2] = ["ivm", "hand"];

/// Children per cell of a [`REPEATED`] engine.
const REPEATS: usize = 3;

/// One cell from two of its children: their rounds and samples pooled,
/// the larger peak memory, the smaller load time (the load is untimed
/// work whose spread is the machine's), the first one's untimed time (the
/// projections read it). A failed child fails the cell; both children
/// read the same stream, so their results agree or the run has a bug.
fn pool(first: Outcome, again: Outcome) -> Outcome {
    match (first, again) {
        (
            Outcome::Ran {
                mut report,
                wall_secs,
                skipped,
            },
            Outcome::Ran {
                report: more,
                wall_secs: more_secs,
                ..
            },
        ) => {
            if (report.rows, report.digest) != (more.rows, more.digest) {
                return Outcome::Failed("two children of one engine disagree".to_string());
            }
            for (phase, extra) in report.phases.iter_mut().zip(more.phases) {
                phase.rates.extend(extra.rates);
                phase.samples.extend(extra.samples);
                phase.updates += extra.updates;
            }
            report.load_secs = report.load_secs.min(more.load_secs);
            report.peak_kib = report.peak_kib.max(more.peak_kib);
            Outcome::Ran {
                report,
                wall_secs: wall_secs + more_secs,
                skipped,
            }
        }
        (_, failed @ Outcome::Failed(_)) => failed,
        (first, _) => first,
    }
}

/// The settings of a run.
#[derive(Clone, Copy, Debug)]
pub struct Settings {
    pub quick: bool,
    pub sizes: &'static [usize],
    pub budget: Budget,
    /// A cell is skipped when its child is projected to run longer (s):
    /// for the project's and the hand-written engines, and for the others.
    pub child_secs: (f64, f64),
    /// A child still running after this long is stopped (s).
    pub child_kill_secs: f64,
    /// A cell is skipped when its engine is projected to need more memory
    /// than this above the stream's own (MiB).
    pub memory_mib: f64,
    /// A batch size is skipped when its timed batches (at least
    /// `ROUNDS × MIN_BATCHES`) are projected to take longer (s).
    pub phase_secs: f64,
}

impl Settings {
    pub fn new(quick: bool) -> Settings {
        if quick {
            Settings {
                quick,
                sizes: &[10_000, 100_000],
                budget: Budget {
                    phase: Duration::from_millis(25),
                    hard: Duration::from_millis(400),
                },
                child_secs: (10.0, 6.0),
                child_kill_secs: 30.0,
                memory_mib: 8_192.0,
                phase_secs: 1.5,
            }
        } else {
            Settings {
                quick,
                sizes: &[10_000, 100_000, 1_000_000],
                budget: Budget {
                    phase: Duration::from_millis(150),
                    hard: Duration::from_secs(3),
                },
                child_secs: (120.0, 60.0),
                child_kill_secs: 240.0,
                memory_mib: 12_288.0,
                phase_secs: 12.0,
            }
        }
    }
}

/// What became of one (workload, N, engine) cell.
#[derive(Debug, Clone)]
pub enum Outcome {
    Ran {
        report: Report,
        wall_secs: f64,
        /// Batch sizes not timed, with the reason.
        skipped: Vec<(usize, String)>,
    },
    Skipped(String),
    Failed(String),
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--child") {
        child(&args[1..]);
        return;
    }
    let quick = args.iter().any(|a| a == "--quick");
    let list = |flag: &str| -> Option<Vec<String>> {
        let i = args.iter().position(|a| a == flag)?;
        Some(args.get(i + 1)?.split(',').map(str::to_string).collect())
    };
    let only = list("--only");
    let engines: Vec<&'static str> = match list("--engines") {
        Some(names) => ENGINES
            .into_iter()
            .filter(|e| names.iter().any(|n| n == e))
            .collect(),
        None => ENGINES.to_vec(),
    };
    let workloads: Vec<Workload> = Workload::ALL
        .into_iter()
        .filter(|w| {
            only.as_ref()
                .is_none_or(|o| o.iter().any(|id| id == w.id()))
        })
        .collect();
    let settings = Settings::new(quick);
    let start = Instant::now();
    let mut results = report::Results::default();
    for &workload in &workloads {
        eprintln!("\n== {}", workload.id());
        for &n in settings.sizes {
            let mut digests: Vec<(&str, usize, u64, String)> = Vec::new();
            // The engines whose ratio is close (the generated code and the
            // hand-written delta) run `REPEATS` children each, in turns
            // (ivm, hand, ..., ivm, hand, ...), and their rounds are pooled:
            // on a shared machine the speed drifts between children by
            // more than the difference being measured, and a drift then
            // hits both engines alike.
            let mut cells: Vec<(&str, Outcome)> = Vec::new();
            for turn in 0..REPEATS {
                for &engine in &engines {
                    if turn == 0 {
                        let outcome = match plan(&results, workload, engine, n, &settings) {
                            Err(reason) => Outcome::Skipped(reason),
                            Ok(skipped) => run_child(workload, engine, n, &settings, skipped),
                        };
                        cells.push((engine, outcome));
                        continue;
                    }
                    if !REPEATED.contains(&engine) {
                        continue;
                    }
                    let Some((_, Outcome::Ran { skipped, .. })) =
                        cells.iter().find(|(e, _)| *e == engine)
                    else {
                        continue;
                    };
                    let again = run_child(workload, engine, n, &settings, skipped.clone());
                    let cell = cells.iter_mut().find(|(e, _)| *e == engine).expect("run");
                    cell.1 = pool(
                        std::mem::replace(&mut cell.1, Outcome::Skipped(String::new())),
                        again,
                    );
                }
            }
            for (engine, outcome) in cells {
                match &outcome {
                    Outcome::Ran {
                        report, wall_secs, ..
                    } => {
                        eprintln!(
                            "  N = {:<5} {:<9} {:6.1} s  (load {:.2} s, {} rows, peak {} MiB)",
                            pow10(n),
                            engine,
                            wall_secs,
                            report.load_secs,
                            report.rows,
                            report.peak_kib.saturating_sub(report.base_kib) / 1024
                        );
                        digests.push((engine, report.rows, report.digest, report.first.clone()));
                    }
                    Outcome::Skipped(reason) => {
                        eprintln!("  N = {:<5} {:<9} skipped: {reason}", pow10(n), engine)
                    }
                    Outcome::Failed(reason) => {
                        eprintln!("  N = {:<5} {:<9} FAILED: {reason}", pow10(n), engine)
                    }
                }
                results.insert(workload, n, engine, outcome);
            }
            if let Some((e0, rows0, d0, first0)) = digests.first() {
                for (e, rows, d, first) in &digests[1..] {
                    if (rows, d) != (rows0, d0) {
                        eprintln!(
                            "\nFAILED: {} at N = {}: the engines disagree: {e0} has {rows0} rows \
                             (first: {first0}), {e} has {rows} rows (first: {first})",
                            workload.id(),
                            pow10(n)
                        );
                        std::process::exit(1);
                    }
                }
                eprintln!(
                    "  N = {:<5} results agree: {} engines, {rows0} rows",
                    pow10(n),
                    digests.len()
                );
            }
        }
    }
    let total = start.elapsed().as_secs_f64();
    let out_dir = if quick {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/peers-quick")
    } else {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target")
    };
    let img_dir = if quick {
        out_dir.clone()
    } else {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/img")
    };
    std::fs::create_dir_all(&out_dir).expect("the output directory");
    std::fs::create_dir_all(&img_dir).expect("the image directory");
    let markdown = report::markdown(&results, &workloads, &engines, &settings, total, &img_dir);
    println!("{markdown}");
    let md_path = out_dir.join("peers.md");
    std::fs::write(&md_path, &markdown).expect("writing the tables");
    eprintln!(
        "\ntotal {:.0} s; tables written to {}, plots to {}",
        total,
        md_path.display(),
        img_dir.display()
    );
    if results.any_failed() {
        eprintln!("FAILED: some cells failed (see above)");
        std::process::exit(1);
    }
}

/// Decides whether to run a cell, from the cells of the same workload and
/// engine at smaller N: `Err(reason)` to skip it, or the batch sizes not to
/// time, with the reason.
fn plan(
    results: &report::Results,
    workload: Workload,
    engine: &str,
    n: usize,
    settings: &Settings,
) -> Result<Vec<(usize, String)>, String> {
    let history = results.history(workload, engine, n);
    if let Some((m, _)) = history
        .iter()
        .find(|(_, o)| !matches!(o, Outcome::Ran { .. }))
    {
        return Err(format!("skipped at N = {} already", pow10(*m)));
    }
    // The sizes run so far: N, the report, the batch sizes not timed.
    type Ran<'a> = (usize, &'a Report, &'a [(usize, String)]);
    let ran: Vec<Ran> = history
        .iter()
        .filter_map(|(m, o)| match o {
            Outcome::Ran {
                report, skipped, ..
            } => Some((*m, report, skipped.as_slice())),
            _ => None,
        })
        .collect();
    // The child's time: its untimed work (load, warm-up, the phases'
    // remainders) grows with N; its timed batches stop at the time budget.
    let untimed: Vec<(usize, f64)> = ran
        .iter()
        .map(|(m, r, _)| (*m, r.untimed_secs.max(1e-3)))
        .collect();
    // The project's and the hand-written engines are skipped last: their
    // untimed work is projected to grow at most as N^1.2 (their load is
    // linear; a steeper step between small sizes flattens out), and their
    // cap is higher.
    let (cap, steepest) = if matches!(engine, "ivm" | "hand") {
        (settings.child_secs.0, 1.2)
    } else {
        (settings.child_secs.1, 2.5)
    };
    if let Some(secs) = project(&untimed, n, 1.0, (0.5, steepest)) {
        let timed = (ROUNDS * BATCHES.len()) as f64 * settings.budget.phase.as_secs_f64();
        if secs + timed > cap {
            return Err(format!("projected to take {:.0} s", secs + timed));
        }
    }
    let memory: Vec<(usize, f64)> = ran
        .iter()
        .map(|(m, r, _)| {
            let mib = r.peak_kib.saturating_sub(r.base_kib) as f64 / 1024.0;
            (*m, mib.max(1.0))
        })
        .collect();
    if let Some(mib) = project(&memory, n, 1.0, (1.0, 2.5))
        && mib > settings.memory_mib
    {
        return Err(format!("projected to need {:.1} GiB", mib / 1024.0));
    }
    let mut skip = Vec::new();
    for (slot, &b) in BATCHES.iter().enumerate() {
        if let Some(m) = ran
            .iter()
            .find_map(|(m, _, s)| s.iter().any(|(x, _)| *x == b).then_some(*m))
        {
            skip.push((b, format!("skipped at N = {} already", pow10(m))));
            continue;
        }
        let per_batch: Vec<(usize, f64)> = ran
            .iter()
            .filter_map(|(m, r, _)| {
                measure::median(&r.phases[slot].rates).map(|rate| (*m, b as f64 / rate))
            })
            .collect();
        // Slope 1.5 until two sizes were run: recomputation grows faster
        // than linearly, and a batch of it is what a phase cannot cut short.
        if let Some(secs) = project(&per_batch, n, 1.5, (0.0, 3.0)) {
            let total = secs * (ROUNDS * measure::MIN_BATCHES) as f64;
            if total > settings.phase_secs {
                skip.push((
                    b,
                    format!(
                        "{} batches projected to take {total:.0} s",
                        ROUNDS * measure::MIN_BATCHES
                    ),
                ));
            }
        }
    }
    Ok(skip)
}

/// The value at `n` of the log-log line through the last two points (slope
/// clamped to `range`), or through the last point with slope `default`.
fn project(points: &[(usize, f64)], n: usize, default: f64, range: (f64, f64)) -> Option<f64> {
    let &(n1, v1) = points.last()?;
    let slope = match points.len() {
        1 => default,
        k => {
            let (n0, v0) = points[k - 2];
            ((v1 / v0).ln() / (n1 as f64 / n0 as f64).ln()).clamp(range.0, range.1)
        }
    };
    Some(v1 * (n as f64 / n1 as f64).powf(slope))
}

/// Runs one cell in a child process.
fn run_child(
    workload: Workload,
    engine: &str,
    n: usize,
    settings: &Settings,
    skipped: Vec<(usize, String)>,
) -> Outcome {
    let skip_list: Vec<String> = skipped.iter().map(|(b, _)| b.to_string()).collect();
    let skip_arg = if skip_list.is_empty() {
        "-".to_string()
    } else {
        skip_list.join(",")
    };
    let start = Instant::now();
    let mut child = match Command::new(std::env::current_exe().expect("the benchmark's path"))
        .args([
            "--child",
            workload.id(),
            engine,
            &n.to_string(),
            if settings.quick { "quick" } else { "full" },
            &skip_arg,
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
    {
        Ok(c) => c,
        Err(e) => return Outcome::Failed(format!("could not start: {e}")),
    };
    let mut stdout = child.stdout.take().expect("piped stdout");
    let mut stderr = child.stderr.take().expect("piped stderr");
    let out_reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stdout.read_to_string(&mut s);
        s
    });
    let err_reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stderr.read_to_string(&mut s);
        s
    });
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if start.elapsed().as_secs_f64() > settings.child_kill_secs => {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(e) => return Outcome::Failed(format!("waiting: {e}")),
        }
    };
    let wall_secs = start.elapsed().as_secs_f64();
    let out = out_reader.join().unwrap_or_default();
    let err = err_reader.join().unwrap_or_default();
    match status {
        None => Outcome::Skipped(format!(
            "stopped after {:.0} s (over the time budget)",
            settings.child_kill_secs
        )),
        Some(s) if !s.success() => {
            let tail: Vec<&str> = err.lines().rev().take(6).collect();
            let tail: Vec<&str> = tail.into_iter().rev().collect();
            Outcome::Failed(format!("exit status {s}: {}", tail.join(" | ")))
        }
        Some(_) => match Report::parse(&out) {
            Some(report) => Outcome::Ran {
                report,
                wall_secs,
                skipped,
            },
            None => Outcome::Failed(format!("unreadable report: {out}")),
        },
    }
}

/// The child: generates the stream, measures one engine on it, prints the
/// report.
fn child(args: &[String]) {
    let workload = Workload::from_id(&args[0]).expect("a workload id");
    let engine = args[1].as_str();
    let n: usize = args[2].parse().expect("N");
    let quick = args[3] == "quick";
    let skip: Vec<usize> = args[4].split(',').filter_map(|b| b.parse().ok()).collect();
    let budget = Settings::new(quick).budget;

    macro_rules! run {
        ($stream:expr, [$($name:literal => $ty:ty),* $(,)?]) => {{
            let stream = $stream;
            let base = measure::status_kib("VmRSS:");
            measure::reset_peak();
            let mut report = match engine {
                $($name => measure::<$ty>(&stream, budget, &skip),)*
                other => panic!("unknown engine {other}"),
            };
            report.peak_kib = measure::status_kib("VmHWM:");
            report.base_kib = base;
            report
        }};
    }

    let report = match workload {
        Workload::Grouped { keys } => run!(workloads::grouped(n, keys, quick), [
            "ivm" => Ivm<GroupedCount>,
            "hand" => HandGrouped,
            "dd" => DdGrouped,
            "dbsp" => DbspGrouped,
            "recompute" => Ivm<GroupedCountRecompute>,
        ]),
        Workload::Triangle { graph } => run!(workloads::triangle(n, graph, quick), [
            "ivm" => Ivm<Triangles>,
            "hand" => HandTriangle,
            "dd" => DdTriangle,
            "dbsp" => DbspTriangle,
            "recompute" => Ivm<TrianglesRecompute>,
        ]),
        Workload::Connection => run!(workloads::connection(n, quick), [
            "ivm" => Ivm<CheapestConnection>,
            "hand" => HandConnection,
            "dd" => DdConnection,
            "dbsp" => DbspConnection,
            "recompute" => Ivm<CheapestConnectionRecompute>,
        ]),
        Workload::Exposed => run!(workloads::exposed(n, quick), [
            "ivm" => Ivm<ExposedAccounts>,
            "hand" => HandExposed,
            "dd" => DdExposed,
            "dbsp" => DbspExposed,
            "recompute" => Ivm<ExposedAccountsRecompute>,
        ]),
    };
    print!("{}", report.to_lines());
}
