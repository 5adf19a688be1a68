//! Draws the triangle benchmark's log-log plots from its CSV, without
//! measuring again: one SVG per workload, `triangles_<workload>.svg`.
//!
//! `cargo bench -p ivm-generated-examples --bench plot_triangles` reads
//! `target/triangles/triangles.csv` (written by `--bench triangles`) and
//! writes into `docs/img/`; `-- CSV DIR` reads and writes elsewhere.

use std::path::PathBuf;

#[path = "common/plot.rs"]
mod plot;

/// The engines in the order of the legend (the benchmark's order).
const ENGINES: [&str; 8] = [
    "ivm_eps 0",
    "ivm_eps 0.25",
    "ivm_eps 0.5",
    "ivm_eps 0.75",
    "ivm_eps 1",
    "first_order",
    "factorized",
    "recompute",
];

fn main() {
    // `cargo bench` passes `--bench`; the paths are the other arguments.
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let csv = args.first().map(PathBuf::from).unwrap_or_else(|| {
        std::env::current_exe()
            .ok()
            .and_then(|exe| Some(exe.parent()?.parent()?.parent()?.join("triangles")))
            .unwrap_or_else(|| manifest.join("../target/triangles"))
            .join("triangles.csv")
    });
    let dir = args
        .get(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| manifest.join("../docs/img"));
    let text = std::fs::read_to_string(&csv)
        .unwrap_or_else(|e| panic!("read {}: {e} (run --bench triangles first)", csv.display()));
    let points = plot::parse_csv(&text).expect("the benchmark's CSV");
    std::fs::create_dir_all(&dir).expect("create the plot directory");
    let mut workloads: Vec<&str> = Vec::new();
    for p in &points {
        if !workloads.contains(&p.workload.as_str()) {
            workloads.push(&p.workload);
        }
    }
    for w in workloads {
        let path = dir.join(format!("triangles_{w}.svg"));
        plot::plot_workload(&points, w, &ENGINES, &path).expect("draw the plot");
        println!("{}", path.display());
    }
}
