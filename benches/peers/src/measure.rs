//! Measuring one engine on one stream, in a child process of its own (so
//! that its peak resident memory is its own), and the report it prints for
//! the parent.

use std::fmt::Debug;
use std::hash::{Hash, Hasher};
use std::hint::black_box;
use std::time::{Duration, Instant};

use crate::workloads::{BATCHES, CHUNK, Stream};

/// An engine maintaining one query.
pub trait Engine {
    /// One update of the stream.
    type Update: Copy;
    /// One output tuple with its payload, as compared across engines.
    type Row: Ord + Hash + Debug;

    fn new() -> Self;

    /// Applies a batch of updates and brings the result up to date. With
    /// `read`, also reads the fresh result where the batch names it (the
    /// output tuples whose key an update of the batch carries, or the
    /// count) and returns a checksum of what it read.
    fn apply(&mut self, batch: &[Self::Update], read: bool) -> i64;

    /// The whole result, sorted.
    fn rows(&mut self) -> Vec<Self::Row>;
}

/// The limits of one child's measurement.
#[derive(Clone, Copy, Debug)]
pub struct Budget {
    /// A phase stops timing batches once this much time has passed and at
    /// least [`MIN_BATCHES`] batches were timed.
    pub phase: Duration,
    /// A phase stops timing batches after this long regardless.
    pub hard: Duration,
}

/// Timed batches per phase before the time budget may end it.
pub const MIN_BATCHES: usize = 3;

/// At batch size 1 only every 16th batch is timed on its own (for the
/// percentiles), so that reading the clock adds under 2 ns per update to
/// the throughput; larger batches are each timed.
const SAMPLE_STRIDE_AT_1: usize = 16;

/// What a child measured for one batch size, over all rounds.
#[derive(Debug, Default, Clone)]
pub struct PhaseResult {
    /// Updates per second of each round.
    pub rates: Vec<f64>,
    /// Time of each sampled batch, in ns.
    pub samples: Vec<u64>,
    /// Updates timed in all rounds.
    pub updates: usize,
}

/// Runs the engine over the stream: the load (untimed, chunks of 10 000),
/// then each phase (timed batches of its size, then the rest of its slice
/// untimed), then reads the whole result. `skip` lists batch sizes not to
/// time (their slices are applied untimed).
pub fn measure<E: Engine>(stream: &Stream<E::Update>, budget: Budget, skip: &[usize]) -> Report {
    let mut engine = E::new();
    let start = Instant::now();
    for chunk in stream.load.chunks(CHUNK) {
        black_box(engine.apply(chunk, false));
    }
    let load_secs = start.elapsed().as_secs_f64();
    for chunk in stream.warm_up.chunks(CHUNK) {
        black_box(engine.apply(chunk, false));
    }
    let mut untimed_secs = start.elapsed().as_secs_f64();
    let mut phases: Vec<PhaseResult> = vec![PhaseResult::default(); BATCHES.len()];
    let mut checksum = 0i64;
    for (b, range) in &stream.phases {
        let b = *b;
        let slice = &stream.measured[range.clone()];
        let slot = BATCHES
            .iter()
            .position(|&x| x == b)
            .expect("a measured batch size");
        let mut at = 0;
        if !skip.contains(&b) {
            let result = &mut phases[slot];
            let stride = if b == 1 { SAMPLE_STRIDE_AT_1 } else { 1 };
            let mut timed = 0usize;
            let begin = Instant::now();
            while at + b <= slice.len() {
                let batch = &slice[at..at + b];
                if timed.is_multiple_of(stride) {
                    let t0 = Instant::now();
                    checksum = checksum.wrapping_add(engine.apply(black_box(batch), true));
                    let t1 = Instant::now();
                    result.samples.push((t1 - t0).as_nanos() as u64);
                    at += b;
                    timed += 1;
                    let spent = t1 - begin;
                    if (timed >= MIN_BATCHES && spent >= budget.phase) || spent >= budget.hard {
                        break;
                    }
                } else {
                    checksum = checksum.wrapping_add(engine.apply(black_box(batch), true));
                    at += b;
                    timed += 1;
                }
            }
            let secs = begin.elapsed().as_secs_f64();
            if at > 0 {
                result.rates.push(at as f64 / secs);
                result.updates += at;
            }
        }
        let rest = Instant::now();
        for chunk in slice[at..].chunks(CHUNK) {
            black_box(engine.apply(chunk, false));
        }
        untimed_secs += rest.elapsed().as_secs_f64();
    }
    black_box(checksum);
    // Reading the whole result is untimed too (for recompute it is one
    // more evaluation of the query).
    let read = Instant::now();
    let rows = engine.rows();
    untimed_secs += read.elapsed().as_secs_f64();
    let mut hasher = std::hash::DefaultHasher::new();
    rows.hash(&mut hasher);
    let digest = hasher.finish();
    let first = rows
        .iter()
        .take(3)
        .map(|r| format!("{r:?}"))
        .collect::<Vec<_>>()
        .join(" ");
    drop(engine);
    Report {
        load_secs,
        untimed_secs,
        phases,
        rows: rows.len(),
        digest,
        first,
        peak_kib: 0,
        base_kib: 0,
    }
}

/// What a child reports to the parent.
#[derive(Debug, Default, Clone)]
pub struct Report {
    pub load_secs: f64,
    /// The load, the warm-up, the untimed remainders of the phases and
    /// the final read of the whole result.
    pub untimed_secs: f64,
    /// One per batch size of [`BATCHES`].
    pub phases: Vec<PhaseResult>,
    /// Output tuples at the end, and a hash of the sorted result.
    pub rows: usize,
    pub digest: u64,
    /// The first output tuples, for a message when engines disagree.
    pub first: String,
    /// Peak resident memory of the child, and its resident memory after
    /// generating the stream (before the engine was made), in KiB.
    pub peak_kib: u64,
    pub base_kib: u64,
}

impl Report {
    /// The lines the child prints on stdout.
    pub fn to_lines(&self) -> String {
        let mut out = format!(
            "load {} {}\nresult {} {:016x} {}\nmemory {} {}\n",
            self.load_secs,
            self.untimed_secs,
            self.rows,
            self.digest,
            self.first.replace('\n', " "),
            self.peak_kib,
            self.base_kib
        );
        for (b, p) in BATCHES.iter().zip(&self.phases) {
            let rates: Vec<String> = p.rates.iter().map(|r| r.to_string()).collect();
            let samples: Vec<String> = p.samples.iter().map(|s| s.to_string()).collect();
            out += &format!("rates {b} {} {}\n", p.updates, rates.join(","));
            out += &format!("samples {b} {}\n", samples.join(","));
        }
        out
    }

    pub fn parse(text: &str) -> Option<Report> {
        let mut r = Report {
            phases: vec![PhaseResult::default(); BATCHES.len()],
            ..Report::default()
        };
        let list = |s: Option<&str>| -> Vec<String> {
            s.unwrap_or("")
                .split(',')
                .filter(|x| !x.is_empty())
                .map(str::to_string)
                .collect()
        };
        let mut seen_result = false;
        for line in text.lines() {
            let mut parts = line.splitn(2, ' ');
            let tag = parts.next()?;
            let rest = parts.next().unwrap_or("");
            match tag {
                "load" => {
                    let mut f = rest.split(' ');
                    r.load_secs = f.next()?.parse().ok()?;
                    r.untimed_secs = f.next()?.parse().ok()?;
                }
                "result" => {
                    let mut f = rest.splitn(3, ' ');
                    r.rows = f.next()?.parse().ok()?;
                    r.digest = u64::from_str_radix(f.next()?, 16).ok()?;
                    r.first = f.next().unwrap_or("").to_string();
                    seen_result = true;
                }
                "memory" => {
                    let mut f = rest.split(' ');
                    r.peak_kib = f.next()?.parse().ok()?;
                    r.base_kib = f.next()?.parse().ok()?;
                }
                "rates" => {
                    let mut f = rest.split(' ');
                    let b: usize = f.next()?.parse().ok()?;
                    let slot = BATCHES.iter().position(|&x| x == b)?;
                    r.phases[slot].updates = f.next()?.parse().ok()?;
                    r.phases[slot].rates = list(f.next())
                        .iter()
                        .filter_map(|x| x.parse().ok())
                        .collect();
                }
                "samples" => {
                    let mut f = rest.split(' ');
                    let b: usize = f.next()?.parse().ok()?;
                    let slot = BATCHES.iter().position(|&x| x == b)?;
                    r.phases[slot].samples = list(f.next())
                        .iter()
                        .filter_map(|x| x.parse().ok())
                        .collect();
                }
                _ => {}
            }
        }
        seen_result.then_some(r)
    }
}

/// A field of /proc/self/status, in KiB.
pub fn status_kib(field: &str) -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with(field))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse().ok())
        })
        .unwrap_or(0)
}

/// Resets the peak resident memory (VmHWM) to the current resident memory.
pub fn reset_peak() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

pub fn median(v: &[f64]) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    let mut v = v.to_vec();
    v.sort_by(f64::total_cmp);
    Some(v[v.len() / 2])
}

/// The `q`-quantile (0..1) of the samples, nearest rank.
pub fn quantile(samples: &[u64], q: f64) -> Option<u64> {
    if samples.is_empty() {
        return None;
    }
    let mut v = samples.to_vec();
    v.sort_unstable();
    let rank = ((q * v.len() as f64).ceil() as usize).clamp(1, v.len());
    Some(v[rank - 1])
}
