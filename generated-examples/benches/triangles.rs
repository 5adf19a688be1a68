//! The triangle count `Q() = E(a, b) * E(b, c) * E(c, a)` under edge
//! inserts and deletes: IVMε at ε ∈ {0, 0.25, 0.5, 0.75, 1} against the
//! first-order delta, factorized IVM and recomputation on read, on four
//! kinds of graph (uniform, hubs, power-law, and an adversary of IVMε at
//! ε = 1/2), as the number of edges N grows.
//!
//! Each (workload, N) stream is generated beforehand (not timed, see
//! `common/graphs.rs`): N inserts of distinct edges (the build phase), then
//! a mixed phase of inserts and deletes of live edges (10 000 updates, or
//! whole oscillations of the adversarial hub). Each engine runs the whole
//! stream on a fresh instance; after every update it reads the count with
//! `get(&())` (O(1) for the maintained strategies; recompute evaluates the
//! query there). Reported per cell: amortized ns per insert of the build
//! phase, ns per update of the mixed phase, peak resident memory (Linux:
//! the high-water mark is reset before the engine is built; it includes
//! the pre-generated stream), and the final count, which every engine of a
//! cell must agree on (the benchmark panics otherwise); IVMε and
//! factorized also check their invariants at the end of the cell (those
//! of *Counting Triangles under Updates in Worst-Case Optimal Time*, by
//! Kara, Ngo, Nikolic, Olteanu and Zhang: sizes, degrees, views, the count
//! from scratch) unless the
//! check is projected to take more than 60 s (quadratically from the
//! previous size: it recounts the triangles through the hubs).
//!
//! A cell is skipped when its time, projected from the engine's previous
//! sizes along their last log-log slope (1 when there is only one),
//! exceeds the limit (60 s, 10 s with `--quick`; `--limit S`; the 10^7
//! cells 150 s, `--limit-large S`) or its memory, projected linearly,
//! exceeds 80% of what the system has available. Prints a markdown table
//! per workload and phase with the least-squares slope of each curve on a
//! log-log scale, and writes every cell to `triangles.csv`, the tables to
//! `triangles.md` and the plots to `triangles_<workload>.svg` in `$OUT` or
//! `--out DIR` (default `target/triangles/`); `--bench plot_triangles`
//! draws the plots of a CSV into `docs/img/`.
//!
//! Run with `cargo bench -p ivm-generated-examples --bench triangles`
//! (N = 10^4, 10^5, 10^6, and 10^7 for ε = 1/2; recompute at 10^3 and
//! 3·10^3 instead, where it can run). Options after `--`: `--quick`
//! (N = 5·10^3, 2·10^4, 8·10^4 and 2 000 mixed updates, about a minute),
//! `--sizes 10000,100000`, `--engines first_order,ivm_eps_0.5`,
//! `--limit S`, `--limit-large S`, `--no-check`, `--out DIR`, and workload names
//! (`uniform`, `hubs`, `power_law`, `adversarial`) to run only those.

use std::fmt::Write as _;
use std::hint::black_box;
use std::path::PathBuf;
use std::time::Instant;

mod common;
use common::graphs::{Op, Stream, Workload, stream};

#[path = "common/plot.rs"]
mod plot;

#[path = "common/triangle_engines.rs"]
mod engines;
use engines::*;

/// One engine's run of one stream.
struct Measured {
    build_ns: f64,
    mixed_ns: f64,
    count: i64,
    /// The invariant check: its seconds, or why it was not run.
    check: Result<f64, String>,
    seconds: f64,
}

/// Runs the whole stream on a fresh engine, reading the count after every
/// update; then checks the invariants if `check`.
fn run<E: Engine>(s: &Stream, check: bool) -> Measured {
    let start = Instant::now();
    let mut engine = E::make();
    let build = build_phase(&mut engine, &s.build);
    let mixed = mixed_phase(&mut engine, &s.mixed);
    let count = engine.count().0;
    let seconds = start.elapsed().as_secs_f64();
    let check = if check {
        let t = Instant::now();
        match engine.check() {
            Some(Ok(())) => Ok(t.elapsed().as_secs_f64()),
            Some(Err(e)) => panic!("invariant violated: {e}"),
            None => Err("no check".into()),
        }
    } else {
        Err("check skipped".into())
    };
    Measured {
        build_ns: build * 1e9 / s.build.len() as f64,
        mixed_ns: mixed * 1e9 / s.mixed.len() as f64,
        count,
        check,
        seconds,
    }
}

/// The build phase: seconds for all its inserts. Not inlined, so that
/// `valgrind --tool=callgrind --toggle-collect='*mixed_phase*'` can count
/// the instructions of one phase.
#[inline(never)]
fn build_phase<E: Engine>(engine: &mut E, edges: &[(u32, u32)]) -> f64 {
    let start = Instant::now();
    for &(a, b) in edges {
        engine.insert(a, b);
        black_box(engine.count());
    }
    start.elapsed().as_secs_f64()
}

/// The mixed phase: seconds for all its updates.
#[inline(never)]
fn mixed_phase<E: Engine>(engine: &mut E, ops: &[Op]) -> f64 {
    let start = Instant::now();
    for op in ops {
        if op.insert {
            engine.insert(op.src, op.dst);
        } else {
            engine.delete(op.src, op.dst);
        }
        black_box(engine.count());
    }
    start.elapsed().as_secs_f64()
}

/// An engine of the comparison.
struct Spec {
    name: &'static str,
    run: fn(&Stream, bool) -> Measured,
    has_check: bool,
}

const ENGINES: [Spec; 8] = [
    Spec {
        name: "ivm_eps 0",
        run: run::<Eps0>,
        has_check: true,
    },
    Spec {
        name: "ivm_eps 0.25",
        run: run::<Eps25>,
        has_check: true,
    },
    Spec {
        name: "ivm_eps 0.5",
        run: run::<Eps50>,
        has_check: true,
    },
    Spec {
        name: "ivm_eps 0.75",
        run: run::<Eps75>,
        has_check: true,
    },
    Spec {
        name: "ivm_eps 1",
        run: run::<Eps100>,
        has_check: true,
    },
    Spec {
        name: "first_order",
        run: run::<FirstOrder>,
        has_check: false,
    },
    Spec {
        name: "factorized",
        run: run::<Factorized>,
        has_check: true,
    },
    Spec {
        name: "recompute",
        run: run::<Recompute>,
        has_check: false,
    },
];

const EPS_HALF: usize = 2;
const RECOMPUTE: usize = 7;

/// Peak memory, Linux only: the resident set's high-water mark is reset
/// with `/proc/self/clear_refs` and read from `/proc/self/status`.
mod memory {
    /// Resets the high-water mark to the current resident set; false when
    /// the system does not allow it.
    pub fn reset_peak() -> bool {
        std::fs::write("/proc/self/clear_refs", "5").is_ok()
    }

    fn status_kib(field: &str) -> Option<u64> {
        let status = std::fs::read_to_string("/proc/self/status").ok()?;
        let line = status.lines().find(|l| l.starts_with(field))?;
        line[field.len()..]
            .trim()
            .trim_end_matches("kB")
            .trim()
            .parse()
            .ok()
    }

    /// The resident set's high-water mark, in MiB.
    pub fn peak_mib() -> Option<f64> {
        status_kib("VmHWM:").map(|k| k as f64 / 1024.0)
    }

    /// The resident set now, in MiB.
    pub fn rss_mib() -> Option<f64> {
        status_kib("VmRSS:").map(|k| k as f64 / 1024.0)
    }

    /// The memory the system can still give, in MiB.
    pub fn available_mib() -> Option<f64> {
        let info = std::fs::read_to_string("/proc/meminfo").ok()?;
        let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
        let kib: u64 = line["MemAvailable:".len()..]
            .trim()
            .trim_end_matches("kB")
            .trim()
            .parse()
            .ok()?;
        Some(kib as f64 / 1024.0)
    }
}

/// What happened to one (workload, N, engine) cell.
enum Outcome {
    /// Not part of the run at this size (10^7 is for ε = 1/2 only, the
    /// smallest sizes for recompute only).
    NotRun,
    Skipped(String),
    Ran {
        m: Measured,
        peak_mib: Option<f64>,
        start_mib: Option<f64>,
    },
}

/// The least-squares slope of ln t against ln N.
fn slope(points: &[(f64, f64)]) -> Option<f64> {
    if points.len() < 2 {
        return None;
    }
    let xs: Vec<f64> = points.iter().map(|&(n, _)| n.ln()).collect();
    let ys: Vec<f64> = points.iter().map(|&(_, t)| t.ln()).collect();
    let mx = xs.iter().sum::<f64>() / xs.len() as f64;
    let my = ys.iter().sum::<f64>() / ys.len() as f64;
    let num: f64 = xs.iter().zip(&ys).map(|(x, y)| (x - mx) * (y - my)).sum();
    let den: f64 = xs.iter().map(|x| (x - mx) * (x - mx)).sum();
    Some(num / den)
}

/// The slope of the last two points, or 1 with fewer.
fn last_slope(points: &[(f64, f64)]) -> f64 {
    match points {
        [.., a, b] => ((b.1 / a.1).ln() / (b.0 / a.0).ln()).max(0.0),
        _ => 1.0,
    }
}

/// "10^k" for powers of ten, else the number with thin spaces.
fn size_name(n: usize) -> String {
    let mut k = 0;
    let mut p = 1usize;
    while p < n {
        p *= 10;
        k += 1;
    }
    if p == n {
        format!("10^{k}")
    } else {
        grouped(n as f64)
    }
}

/// A number with its thousands separated by spaces, rounded.
fn grouped(x: f64) -> String {
    let s = format!("{:.0}", x);
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) && c != '-' {
            out.push(' ');
        }
        out.push(c);
    }
    out
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let quick = args.iter().any(|a| a == "--quick");
    let value = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1).cloned())
    };
    let limit: f64 = value("--limit").map_or(if quick { 10.0 } else { 60.0 }, |s| {
        s.parse().expect("--limit SECONDS")
    });
    // The 10^7 cells (ε = 1/2 only) get a limit of their own.
    let limit_large: f64 =
        value("--limit-large").map_or(150.0, |s| s.parse().expect("--limit-large SECONDS"));
    let no_check = args.iter().any(|a| a == "--no-check");
    let engines: Option<Vec<String>> = value("--engines").map(|list| {
        list.split(',')
            .map(|e| e.trim().replace('_', " "))
            .collect()
    });
    let workloads: Vec<Workload> = {
        let named: Vec<Workload> = args.iter().filter_map(|a| Workload::from_name(a)).collect();
        if named.is_empty() {
            Workload::ALL.to_vec()
        } else {
            named
        }
    };
    let out: PathBuf = value("--out")
        .or_else(|| std::env::var("OUT").ok())
        .map(PathBuf::from)
        .unwrap_or_else(default_out);
    std::fs::create_dir_all(&out).expect("create the output directory");
    // (N, which engines): the smallest sizes for recompute only, the
    // largest for ε = 1/2 only.
    let only_recompute = [RECOMPUTE];
    let only_half = [EPS_HALF];
    let all: Vec<usize> = (0..ENGINES.len()).collect();
    let sizes: Vec<(usize, &[usize])> = if let Some(list) = value("--sizes") {
        list.split(',')
            .map(|s| (s.trim().parse().expect("--sizes N,N,..."), all.as_slice()))
            .collect()
    } else if quick {
        vec![
            (1_000, &only_recompute[..]),
            (5_000, &all),
            (20_000, &all),
            (80_000, &all),
        ]
    } else {
        vec![
            (1_000, &only_recompute[..]),
            (3_000, &only_recompute[..]),
            (10_000, &all),
            (100_000, &all),
            (1_000_000, &all),
            (10_000_000, &only_half[..]),
        ]
    };
    let ops = if quick { 2_000 } else { 10_000 };
    let peak_ok = memory::reset_peak();
    println!(
        "Triangle count, {} run: every update followed by get(&()); cells projected over {limit} s are skipped; peak memory {}.",
        if quick { "quick" } else { "full" },
        if peak_ok {
            "from VmHWM, reset before each engine (it includes the stream)"
        } else {
            "not available here"
        }
    );
    let run_start = Instant::now();
    let mut csv = String::from(
        "workload,n,engine,status,build_ns_per_insert,mixed_ns_per_update,mixed_ops,peak_mib,start_mib,stream_mib,count,seconds,check_seconds,projected_seconds\n",
    );
    let mut report = String::new();
    for &w in &workloads {
        let mut rows: Vec<(usize, Vec<Outcome>, usize, String)> = Vec::new();
        // Per engine: (N, build ns, mixed ns, mixed ops) measured so far,
        // and the last check's (N, seconds).
        let mut history: Vec<Vec<(f64, f64, f64, f64)>> = vec![Vec::new(); ENGINES.len()];
        let mut last_check: Vec<Option<(f64, f64)>> = vec![None; ENGINES.len()];
        let mut last_peak: Vec<Option<(f64, f64)>> = vec![None; ENGINES.len()];
        for &(n, which) in &sizes {
            let t = Instant::now();
            let s = stream(w, n, ops);
            let stream_mib = s.bytes() as f64 / (1 << 20) as f64;
            println!(
                "\n{w}, N = {n}: stream of {} + {} updates generated in {:.1} s ({})",
                s.build.len(),
                s.mixed.len(),
                t.elapsed().as_secs_f64(),
                s.note
            );
            let mut outcomes = Vec::new();
            for (i, spec) in ENGINES.iter().enumerate() {
                let chosen = engines
                    .as_ref()
                    .is_none_or(|list| list.iter().any(|e| *e == spec.name.replace('_', " ")));
                if !which.contains(&i) || !chosen {
                    outcomes.push(Outcome::NotRun);
                    continue;
                }
                let nf = n as f64;
                let h = &history[i];
                // Time projected along the last slopes of both phases.
                let projected = h.last().map(|&(n0, b0, m0, _)| {
                    let sb = last_slope(&h.iter().map(|p| (p.0, p.1)).collect::<Vec<_>>());
                    let sm = last_slope(&h.iter().map(|p| (p.0, p.2)).collect::<Vec<_>>());
                    let r = nf / n0;
                    (nf * b0 * r.powf(sb) + s.mixed.len() as f64 * m0 * r.powf(sm)) / 1e9
                });
                let cell_limit = if n >= 10_000_000 { limit_large } else { limit };
                if let Some(p) = projected.filter(|&p| p > cell_limit) {
                    println!("  {:<13} skipped (projected {p:.0} s)", spec.name);
                    outcomes.push(Outcome::Skipped(format!("skipped (projected {p:.0} s)")));
                    writeln!(
                        csv,
                        "{w},{n},{},skipped,,,{},,,{stream_mib:.1},,,,{p:.1}",
                        spec.name,
                        s.mixed.len()
                    )
                    .unwrap();
                    continue;
                }
                // Memory: projected linearly from the last size.
                if let (Some((n0, p0)), Some(avail)) = (last_peak[i], memory::available_mib()) {
                    let need = p0 * nf / n0;
                    if need > 0.8 * avail {
                        println!(
                            "  {:<13} skipped (projected {need:.0} MiB of memory, {avail:.0} MiB available)",
                            spec.name
                        );
                        outcomes.push(Outcome::Skipped(format!(
                            "skipped (projected {:.1} GiB)",
                            need / 1024.0
                        )));
                        continue;
                    }
                }
                let check = spec.has_check
                    && !no_check
                    && last_check[i].is_none_or(|(n0, c0)| c0 * (nf / n0).powi(2) <= 60.0);
                memory::reset_peak();
                let start_mib = memory::rss_mib();
                let m = (spec.run)(&s, check);
                let peak_mib = memory::peak_mib();
                if let Ok(c) = m.check {
                    last_check[i] = Some((nf, c));
                }
                if let Some(p) = peak_mib {
                    last_peak[i] = Some((nf, p));
                }
                println!(
                    "  {:<13} build {:>11} ns/insert, mixed {:>11} ns/update, count {}, peak {} MiB (from {} MiB), {:.1} s, check {}",
                    spec.name,
                    grouped(m.build_ns),
                    grouped(m.mixed_ns),
                    m.count,
                    peak_mib.map_or("?".into(), grouped),
                    start_mib.map_or("?".into(), grouped),
                    m.seconds,
                    match (&m.check, spec.has_check) {
                        (Ok(c), _) => format!("ok in {c:.1} s"),
                        (Err(e), true) => e.clone(),
                        (Err(_), false) => "none".into(),
                    }
                );
                writeln!(
                    csv,
                    "{w},{n},{},ok,{:.1},{:.1},{},{},{},{stream_mib:.1},{},{:.3},{},{}",
                    spec.name,
                    m.build_ns,
                    m.mixed_ns,
                    s.mixed.len(),
                    peak_mib.map_or(String::new(), |p| format!("{p:.1}")),
                    start_mib.map_or(String::new(), |p| format!("{p:.1}")),
                    m.count,
                    m.seconds,
                    m.check
                        .as_ref()
                        .map_or(String::new(), |c| format!("{c:.3}")),
                    projected.map_or(String::new(), |p| format!("{p:.1}")),
                )
                .unwrap();
                history[i].push((nf, m.build_ns, m.mixed_ns, s.mixed.len() as f64));
                outcomes.push(Outcome::Ran {
                    m,
                    peak_mib,
                    start_mib,
                });
            }
            // Every engine that ran must end with the same count.
            let counts: Vec<(&str, i64)> = ENGINES
                .iter()
                .zip(&outcomes)
                .filter_map(|(spec, o)| match o {
                    Outcome::Ran { m, .. } => Some((spec.name, m.count)),
                    _ => None,
                })
                .collect();
            assert!(
                counts.windows(2).all(|p| p[0].1 == p[1].1),
                "{w}, N = {n}: the engines disagree on the count: {counts:?}"
            );
            let note = if w == Workload::Adversarial {
                s.note[..s.note.find(',').unwrap_or(s.note.len())].to_owned()
            } else {
                String::new()
            };
            rows.push((n, outcomes, s.mixed.len(), note));
            drop(s);
        }
        let table = tables(w, &rows);
        println!("\n{table}");
        report.push_str(&table);
    }
    let csv_path = out.join("triangles.csv");
    std::fs::write(&csv_path, &csv).expect("write the CSV");
    let points = plot::parse_csv(&csv).expect("parse the CSV just written");
    let names: Vec<&str> = ENGINES.iter().map(|s| s.name).collect();
    for &w in &workloads {
        let path = out.join(format!("triangles_{w}.svg"));
        plot::plot_workload(&points, w.name(), &names, &path).expect("draw the plot");
    }
    std::fs::write(out.join("triangles.md"), &report).expect("write the tables");
    println!(
        "\nCSV, tables and plots in {} ({:.0} s in all).",
        out.display(),
        run_start.elapsed().as_secs_f64()
    );
}

/// `target/triangles`, next to the benchmark's own build directory.
fn default_out() -> PathBuf {
    std::env::current_exe()
        .ok()
        .and_then(|exe| Some(exe.parent()?.parent()?.parent()?.join("triangles")))
        .unwrap_or_else(|| PathBuf::from("target/triangles"))
}

/// The markdown tables of one workload: build phase, mixed phase (each
/// with a slope row), peak memory.
fn tables(w: Workload, rows: &[(usize, Vec<Outcome>, usize, String)]) -> String {
    let mut t = String::new();
    // The sizes most engines ran at: a slope over another range says so.
    let ran = |r: &(usize, Vec<Outcome>, usize, String)| {
        r.1.iter().filter(|o| !matches!(o, Outcome::NotRun)).count()
    };
    let most = rows.iter().map(ran).max().unwrap_or(0);
    let main: Vec<f64> = rows
        .iter()
        .filter(|r| ran(r) == most)
        .map(|r| r.0 as f64)
        .collect();
    let used: Vec<usize> = (0..ENGINES.len())
        .filter(|&i| rows.iter().any(|r| !matches!(r.1[i], Outcome::NotRun)))
        .collect();
    let header = |t: &mut String, first: &str, last: &str| {
        write!(t, "| {first} |").unwrap();
        for &i in &used {
            write!(t, " {} |", ENGINES[i].name).unwrap();
        }
        writeln!(t, " {last} |").unwrap();
        write!(t, "|---:|").unwrap();
        for _ in &used {
            write!(t, "---:|").unwrap();
        }
        writeln!(t, "---:|").unwrap();
    };
    type Field = fn(&Measured) -> f64;
    let phases: [(&str, Field); 2] = [
        ("build phase, ns per insert", |m| m.build_ns),
        ("mixed phase, ns per update", |m| m.mixed_ns),
    ];
    for (title, field) in phases {
        writeln!(t, "\n{w} graph, {title}:\n").unwrap();
        header(&mut t, "N", "triangles");
        for (n, outcomes, ops, note) in rows {
            if used.iter().all(|&i| matches!(outcomes[i], Outcome::NotRun)) {
                continue;
            }
            write!(t, "| {} |", size_name(*n)).unwrap();
            let mut count = None;
            for &i in &used {
                match &outcomes[i] {
                    Outcome::NotRun => write!(t, " |").unwrap(),
                    Outcome::Skipped(why) => write!(t, " {why} |").unwrap(),
                    Outcome::Ran { m, .. } => {
                        count = Some(m.count);
                        write!(t, " {} |", grouped(field(m))).unwrap();
                    }
                }
            }
            let mut last = count.map_or(String::new(), |c| grouped(c as f64));
            if title.starts_with("mixed") {
                write!(last, " ({} updates", grouped(*ops as f64)).unwrap();
                if !note.is_empty() {
                    write!(last, ", {note}").unwrap();
                }
                last.push(')');
            }
            writeln!(t, " {last} |").unwrap();
        }
        write!(t, "| slope |").unwrap();
        for &i in &used {
            let points: Vec<(f64, f64)> = rows
                .iter()
                .filter_map(|(n, o, _, _)| match &o[i] {
                    Outcome::Ran { m, .. } => Some((*n as f64, field(m))),
                    _ => None,
                })
                .collect();
            match slope(&points) {
                Some(s) => {
                    let range = if points.first().map(|p| p.0) == main.first().copied()
                        && points.last().map(|p| p.0) == main.last().copied()
                    {
                        String::new()
                    } else {
                        format!(
                            " ({}–{})",
                            size_name(points[0].0 as usize),
                            size_name(points[points.len() - 1].0 as usize)
                        )
                    };
                    write!(t, " {s:.2}{range} |").unwrap();
                }
                None => write!(t, " |").unwrap(),
            }
        }
        writeln!(t, " |").unwrap();
    }
    writeln!(
        t,
        "\n{w} graph, peak resident memory in MiB (resident at the start of the cell, with the stream):\n"
    )
    .unwrap();
    header(&mut t, "N", "");
    for (n, outcomes, _, _) in rows {
        if used.iter().all(|&i| matches!(outcomes[i], Outcome::NotRun)) {
            continue;
        }
        write!(t, "| {} |", size_name(*n)).unwrap();
        for &i in &used {
            match &outcomes[i] {
                Outcome::Ran {
                    peak_mib: Some(p),
                    start_mib,
                    ..
                } => write!(
                    t,
                    " {} ({}) |",
                    grouped(*p),
                    start_mib.map_or("?".into(), grouped)
                )
                .unwrap(),
                _ => write!(t, " |").unwrap(),
            }
        }
        writeln!(t, " |").unwrap();
    }
    t
}
