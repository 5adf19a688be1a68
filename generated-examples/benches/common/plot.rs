//! Log-log plots of the triangle benchmark: one SVG per workload, with the
//! build phase (ns per insert) and the mixed phase (ns per update) against
//! N, one line per engine. Reads the CSV the benchmark writes, so the plots
//! can be drawn again without measuring again.

use std::error::Error;
use std::path::Path;

use plotters::prelude::*;

/// One measured cell of the CSV.
pub struct Point {
    pub workload: String,
    pub engine: String,
    pub n: f64,
    pub build_ns: f64,
    pub mixed_ns: f64,
}

/// The measured cells of the CSV the benchmark writes (skipped cells and
/// the header are left out).
pub fn parse_csv(text: &str) -> Result<Vec<Point>, String> {
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().ok_or("empty CSV")?.split(',').collect();
    let col = |name: &str| {
        header
            .iter()
            .position(|h| *h == name)
            .ok_or_else(|| format!("no column {name}"))
    };
    let (w, e, n, st, b, m) = (
        col("workload")?,
        col("engine")?,
        col("n")?,
        col("status")?,
        col("build_ns_per_insert")?,
        col("mixed_ns_per_update")?,
    );
    let mut points = Vec::new();
    for line in lines.filter(|l| !l.trim().is_empty()) {
        let f: Vec<&str> = line.split(',').collect();
        if f.get(st) != Some(&"ok") {
            continue;
        }
        let num = |i: usize| -> Result<f64, String> {
            f.get(i)
                .and_then(|s| s.parse().ok())
                .ok_or_else(|| format!("bad number in line {line:?}"))
        };
        points.push(Point {
            workload: f[w].to_owned(),
            engine: f[e].to_owned(),
            n: num(n)?,
            build_ns: num(b)?,
            mixed_ns: num(m)?,
        });
    }
    Ok(points)
}

/// A colour per engine, stable across plots.
fn colour(i: usize) -> RGBColor {
    const COLOURS: [RGBColor; 8] = [
        RGBColor(255, 127, 14),  // ε = 0
        RGBColor(188, 189, 34),  // ε = 0.25
        RGBColor(214, 39, 40),   // ε = 0.5
        RGBColor(148, 103, 189), // ε = 0.75
        RGBColor(140, 86, 75),   // ε = 1
        RGBColor(31, 119, 180),  // first-order
        RGBColor(44, 160, 44),   // factorized
        RGBColor(127, 127, 127), // recompute
    ];
    COLOURS[i % COLOURS.len()]
}

/// The range of a log axis: whole decades around the values.
fn decades(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let (lo, hi) = values.fold((f64::INFINITY, 0.0f64), |(lo, hi), v| {
        (lo.min(v), hi.max(v))
    });
    if !lo.is_finite() {
        return (1.0, 10.0);
    }
    (
        10f64.powf(lo.log10().floor()),
        10f64.powf(hi.log10().ceil().max(lo.log10().floor() + 1.0)),
    )
}

/// "10^k" for powers of ten, else nothing (log axes get a label at each
/// decade and a tick between).
fn power_label(v: f64) -> String {
    let k = v.log10();
    if (k - k.round()).abs() < 1e-9 {
        format!("10^{}", k.round())
    } else {
        String::new()
    }
}

/// Draws `workload`'s two panels into `path`, one line per engine of
/// `engines` (in that order) that has a measured cell.
pub fn plot_workload(
    points: &[Point],
    workload: &str,
    engines: &[&str],
    path: &Path,
) -> Result<(), Box<dyn Error>> {
    let mine: Vec<&Point> = points.iter().filter(|p| p.workload == workload).collect();
    let root = SVGBackend::new(path, (1200, 460)).into_drawing_area();
    root.fill(&WHITE)?;
    let root = root.titled(
        &format!("Triangle count, {workload} graph (log-log)"),
        ("sans-serif", 20),
    )?;
    // Two panels, and a column on the right for the legend they share.
    let (plots, legend) = root.split_horizontally(1200 - 150);
    let panels = plots.split_evenly((1, 2));
    type Value = fn(&Point) -> f64;
    let phases: [(&str, &str, Value); 2] = [
        ("build phase", "ns per insert", |p| p.build_ns),
        ("mixed phase", "ns per update", |p| p.mixed_ns),
    ];
    let (x0, x1) = decades(mine.iter().map(|p| p.n));
    for (panel, (title, unit, value)) in panels.iter().zip(phases) {
        let (y0, y1) = decades(mine.iter().map(|p| value(p)).filter(|v| *v > 0.0));
        let mut chart = ChartBuilder::on(panel)
            .caption(title, ("sans-serif", 16))
            .margin(12)
            .x_label_area_size(36)
            .y_label_area_size(60)
            .build_cartesian_2d((x0..x1).log_scale(), (y0..y1).log_scale())?;
        chart
            .configure_mesh()
            .x_desc("N (edges)")
            .y_desc(unit)
            .x_label_formatter(&|v| power_label(*v))
            .y_label_formatter(&|v| power_label(*v))
            .light_line_style(RGBColor(235, 235, 235))
            .draw()?;
        for (i, engine) in engines.iter().enumerate() {
            let mut line: Vec<(f64, f64)> = mine
                .iter()
                .filter(|p| p.engine == *engine)
                .map(|p| (p.n, value(p)))
                .collect();
            line.sort_by(|a, b| a.0.total_cmp(&b.0));
            chart.draw_series(LineSeries::new(line, colour(i).stroke_width(2)).point_size(3))?;
        }
    }
    // The legend: the engines that have a measured cell here.
    let mut y = 60;
    for (i, engine) in engines.iter().enumerate() {
        if !mine.iter().any(|p| p.engine == *engine) {
            continue;
        }
        let c = colour(i);
        legend.draw(&PathElement::new(vec![(4, y), (28, y)], c.stroke_width(3)))?;
        legend.draw(&Circle::new((16, y), 3, c.stroke_width(2)))?;
        legend.draw(&Text::new(
            engine.to_string(),
            (36, y - 7),
            ("sans-serif", 14).into_font(),
        ))?;
        y += 24;
    }
    root.present()?;
    Ok(())
}
