//! The tables (markdown) and the log-log plots (SVG) of a run.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

use plotters::prelude::*;

use crate::measure::{Report, median, quantile};
use crate::workloads::{BATCHES, Workload, pow10};
use crate::{Outcome, Settings};

/// Every cell's outcome.
#[derive(Default)]
pub struct Results {
    cells: BTreeMap<(String, usize, String), Outcome>,
}

impl Results {
    pub fn insert(&mut self, workload: Workload, n: usize, engine: &str, outcome: Outcome) {
        self.cells
            .insert((workload.id().to_string(), n, engine.to_string()), outcome);
    }

    pub fn get(&self, workload: Workload, n: usize, engine: &str) -> Option<&Outcome> {
        self.cells
            .get(&(workload.id().to_string(), n, engine.to_string()))
    }

    /// The cells of one workload and engine at sizes below `n`, ascending.
    pub fn history(&self, workload: Workload, engine: &str, n: usize) -> Vec<(usize, Outcome)> {
        self.cells
            .iter()
            .filter(|((w, m, e), _)| w == workload.id() && e == engine && *m < n)
            .map(|((_, m, _), o)| (*m, o.clone()))
            .collect()
    }

    pub fn any_failed(&self) -> bool {
        self.cells.values().any(|o| matches!(o, Outcome::Failed(_)))
    }

    /// The report of a cell that ran, and the reason a batch size was
    /// skipped in it.
    fn ran(
        &self,
        workload: Workload,
        n: usize,
        engine: &str,
    ) -> Option<(&Report, &[(usize, String)])> {
        match self.get(workload, n, engine)? {
            Outcome::Ran {
                report, skipped, ..
            } => Some((report, skipped)),
            _ => None,
        }
    }

    /// Median updates per second of a cell at batch size `b`.
    pub fn rate(&self, workload: Workload, n: usize, engine: &str, b: usize) -> Option<f64> {
        let (report, _) = self.ran(workload, n, engine)?;
        let slot = BATCHES.iter().position(|&x| x == b)?;
        median(&report.phases[slot].rates)
    }
}

pub fn engine_name(engine: &str) -> &'static str {
    match engine {
        "ivm" => "ivm (generated)",
        "hand" => "hand-written",
        "dd" => "differential-dataflow",
        "dbsp" => "dbsp",
        "recompute" => "recompute",
        _ => "?",
    }
}

fn short_name(engine: &str) -> &'static str {
    match engine {
        "ivm" => "ivm",
        "hand" => "hand",
        "dd" => "DD",
        "dbsp" => "dbsp",
        "recompute" => "recompute",
        _ => "?",
    }
}

/// Updates per second, with a unit.
fn rate(r: f64) -> String {
    if r >= 1e6 {
        format!("{:.2} M", r / 1e6)
    } else if r >= 1e3 {
        format!("{:.1} k", r / 1e3)
    } else {
        format!("{r:.0}")
    }
}

/// A duration in ns, with a unit.
fn duration(ns: u64) -> String {
    let ns = ns as f64;
    if ns >= 1e9 {
        format!("{:.2} s", ns / 1e9)
    } else if ns >= 1e6 {
        format!("{:.1} ms", ns / 1e6)
    } else if ns >= 1e4 {
        format!("{:.0} µs", ns / 1e3)
    } else if ns >= 1e3 {
        format!("{:.1} µs", ns / 1e3)
    } else {
        format!("{ns:.0} ns")
    }
}

fn ratio(x: f64) -> String {
    if x >= 100.0 {
        format!("{x:.0}×")
    } else if x >= 10.0 {
        format!("{x:.1}×")
    } else {
        format!("{x:.2}×")
    }
}

/// What a table cell says when a cell has no figure.
fn missing(results: &Results, workload: Workload, n: usize, engine: &str, b: usize) -> String {
    match results.get(workload, n, engine) {
        None => "—".to_string(),
        Some(Outcome::Skipped(_)) => "skipped¹".to_string(),
        Some(Outcome::Failed(_)) => "failed".to_string(),
        Some(Outcome::Ran { skipped, .. }) => {
            if skipped.iter().any(|(x, _)| *x == b) {
                "skipped¹".to_string()
            } else {
                "n/a²".to_string()
            }
        }
    }
}

fn command_output(cmd: &str, args: &[&str]) -> String {
    Command::new(cmd)
        .args(args)
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim_end().to_string())
        .unwrap_or_else(|e| format!("({cmd}: {e})"))
}

/// The machine: `nproc`, the main lines of `lscpu`, `free -g`, rustc.
fn machine() -> String {
    let lscpu = command_output("lscpu", &[]);
    let keep = [
        "Architecture",
        "Model name",
        "CPU(s):",
        "Thread(s) per core",
        "Core(s) per socket",
        "Hypervisor vendor",
        "L1d cache",
        "L2 cache",
        "L3 cache",
    ];
    let lscpu: Vec<String> = lscpu
        .lines()
        .filter(|l| keep.iter().any(|k| l.trim_start().starts_with(k)))
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect();
    format!(
        "```\n$ nproc\n{}\n$ lscpu   (selected lines)\n{}\n$ free -g\n{}\n$ rustc --version\n{}\n```\n",
        command_output("nproc", &[]),
        lscpu.join("\n"),
        command_output("free", &["-g"]),
        command_output("rustc", &["--version"]),
    )
}

/// The section for docs/benchmarks.md: the machine, the command, and per
/// workload the throughput table (with the ratios), the latency table, the
/// memory table and the plot. Also writes the plots to `img_dir`.
pub fn markdown(
    results: &Results,
    workloads: &[Workload],
    engines: &[&str],
    settings: &Settings,
    total_secs: f64,
    img_dir: &Path,
) -> String {
    let mut md = String::new();
    // The options as given, so a partial run says what it left out.
    let options: String = std::env::args().skip(1).map(|a| format!(" {a}")).collect();
    let command =
        format!("cargo run --release --manifest-path benches/peers/Cargo.toml --{options}");
    let _ = writeln!(
        md,
        "Command: `{command}` ({total_secs:.0} s, cold build excluded).\n"
    );
    md += &machine();
    for &w in workloads {
        let section = md.len();
        let _ = writeln!(md, "\n### {}\n", w.title());
        let others: Vec<&str> = engines.iter().copied().filter(|&e| e != "ivm").collect();
        // Throughput and ratios.
        let mut header = "| N | batch |".to_string();
        let mut rule = "|---:|---:|".to_string();
        for e in engines {
            let _ = write!(header, " {} |", engine_name(e));
            rule += "---:|";
        }
        if engines.contains(&"ivm") {
            for e in &others {
                let _ = write!(header, " ivm / {} |", short_name(e));
                rule += "---:|";
            }
        }
        let _ = writeln!(
            md,
            "Updates per second (median of the rounds), and the ratio of ivm's updates per second to each engine's:\n"
        );
        let _ = writeln!(md, "{header}\n{rule}");
        for &n in settings.sizes {
            for &b in &BATCHES {
                let _ = write!(md, "| {} | {} |", pow10(n), b);
                for e in engines {
                    let cell = results
                        .rate(w, n, e, b)
                        .map_or_else(|| missing(results, w, n, e, b), rate);
                    let _ = write!(md, " {cell} |");
                }
                if engines.contains(&"ivm") {
                    let mine = results.rate(w, n, "ivm", b);
                    for e in &others {
                        let cell = match (mine, results.rate(w, n, e, b)) {
                            (Some(a), Some(o)) => ratio(a / o),
                            _ => "—".to_string(),
                        };
                        let _ = write!(md, " {cell} |");
                    }
                }
                md += "\n";
            }
        }
        // Latency.
        let _ = writeln!(md, "\nTime per batch to a fresh result, p50 / p99:\n");
        let mut header = "| N | batch |".to_string();
        let mut rule = "|---:|---:|".to_string();
        for e in engines {
            let _ = write!(header, " {} |", engine_name(e));
            rule += "---:|";
        }
        let _ = writeln!(md, "{header}\n{rule}");
        for &n in settings.sizes {
            for (slot, &b) in BATCHES.iter().enumerate() {
                let _ = write!(md, "| {} | {} |", pow10(n), b);
                for e in engines {
                    let cell = results
                        .ran(w, n, e)
                        .and_then(|(r, _)| {
                            let s = &r.phases[slot].samples;
                            Some(format!(
                                "{} / {}",
                                duration(quantile(s, 0.5)?),
                                duration(quantile(s, 0.99)?)
                            ))
                        })
                        .unwrap_or_else(|| missing(results, w, n, e, b));
                    let _ = write!(md, " {cell} |");
                }
                md += "\n";
            }
        }
        // Memory and load.
        let _ = writeln!(
            md,
            "\nPeak resident memory above the stream's own (MiB), and the time to load N tuples in batches of 10 000:\n"
        );
        let mut header = "| N |".to_string();
        let mut rule = "|---:|".to_string();
        for e in engines {
            let _ = write!(header, " {} |", engine_name(e));
            rule += "---:|";
        }
        let _ = writeln!(md, "{header}\n{rule}");
        for &n in settings.sizes {
            let _ = write!(md, "| {} |", pow10(n));
            for e in engines {
                let cell = match results.ran(w, n, e) {
                    Some((r, _)) => format!(
                        "{} MiB, {:.2} s",
                        r.peak_kib.saturating_sub(r.base_kib) / 1024,
                        r.load_secs
                    ),
                    None => missing(results, w, n, e, 0),
                };
                let _ = write!(md, " {cell} |");
            }
            md += "\n";
        }
        // Notes: skipped cells.
        let mut notes = Vec::new();
        for &n in settings.sizes {
            for e in engines {
                match results.get(w, n, e) {
                    Some(Outcome::Skipped(reason)) => {
                        notes.push(format!("{} at N = {}: {reason}", engine_name(e), pow10(n)))
                    }
                    Some(Outcome::Failed(reason)) => notes.push(format!(
                        "{} at N = {}: failed: {reason}",
                        engine_name(e),
                        pow10(n)
                    )),
                    Some(Outcome::Ran { skipped, .. }) => {
                        for (b, reason) in skipped {
                            notes.push(format!(
                                "{} at N = {}, batch {b}: {reason}",
                                engine_name(e),
                                pow10(n)
                            ));
                        }
                    }
                    None => {}
                }
            }
        }
        if !notes.is_empty() {
            let _ = writeln!(md, "\n¹ Skipped: {}.", notes.join("; "));
        }
        if md[section..].contains("n/a²") {
            let _ = writeln!(
                md,
                "\n² Not measured: the stream's slice for this batch size is shorter than one batch."
            );
        }
        let file = format!("peers_{}.svg", w.id());
        match plot(results, w, engines, settings, &img_dir.join(&file)) {
            Ok(()) => {
                let _ = writeln!(
                    md,
                    "\n![{}: updates per second against N, log-log](img/{file})",
                    w.id()
                );
            }
            Err(e) => {
                let _ = writeln!(md, "\n(plot not written: {e})");
            }
        }
    }
    md
}

/// `10^k` at powers of ten, nothing in between (a log axis has a key point
/// at every multiple).
fn power_label(v: f64) -> String {
    let exp = v.log10();
    if (exp - exp.round()).abs() < 1e-6 {
        format!("1e{}", exp.round() as i32)
    } else {
        String::new()
    }
}

fn color(engine: &str) -> RGBColor {
    match engine {
        "ivm" => RGBColor(214, 39, 40),
        "hand" => RGBColor(31, 119, 180),
        "dd" => RGBColor(44, 160, 44),
        "dbsp" => RGBColor(148, 103, 189),
        _ => RGBColor(127, 127, 127),
    }
}

/// One SVG per workload: a panel per batch size, updates per second
/// against N on log-log axes, a line per engine.
fn plot(
    results: &Results,
    w: Workload,
    engines: &[&str],
    settings: &Settings,
    path: &Path,
) -> Result<(), Box<dyn std::error::Error>> {
    let root = SVGBackend::new(path, (1260, 440)).into_drawing_area();
    root.fill(&WHITE)?;
    let panels = root.split_evenly((1, BATCHES.len()));
    let (xmin, xmax) = (
        settings.sizes[0] as f64 / 1.5,
        settings.sizes[settings.sizes.len() - 1] as f64 * 1.5,
    );
    let mut lo = f64::INFINITY;
    let mut hi = 0.0f64;
    for &n in settings.sizes {
        for e in engines {
            for &b in &BATCHES {
                if let Some(r) = results.rate(w, n, e, b) {
                    lo = lo.min(r);
                    hi = hi.max(r);
                }
            }
        }
    }
    if !lo.is_finite() {
        return Err("no figures to plot".into());
    }
    // Room below the lowest line for the legend.
    let (ymin, ymax) = (lo / 40.0, hi * 2.0);
    for (panel, &b) in panels.iter().zip(&BATCHES) {
        let mut chart = ChartBuilder::on(panel)
            .caption(format!("{} — batch {b}", w.id()), ("sans-serif", 18))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(70)
            .build_cartesian_2d((xmin..xmax).log_scale(), (ymin..ymax).log_scale())?;
        chart
            .configure_mesh()
            .x_desc("N (live tuples)")
            .y_desc("updates / s")
            .light_line_style(WHITE)
            .x_label_formatter(&|x| power_label(*x))
            .y_label_formatter(&|y| power_label(*y))
            .draw()?;
        for &e in engines {
            let points: Vec<(f64, f64)> = settings
                .sizes
                .iter()
                .filter_map(|&n| Some((n as f64, results.rate(w, n, e, b)?)))
                .collect();
            if points.is_empty() {
                continue;
            }
            let c = color(e);
            chart
                .draw_series(LineSeries::new(points.clone(), c.stroke_width(2)))?
                .label(engine_name(e))
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 18, y)], c.stroke_width(2))
                });
            chart.draw_series(points.into_iter().map(|p| Circle::new(p, 3, c.filled())))?;
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::LowerLeft)
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .draw()?;
    }
    root.present()?;
    Ok(())
}
