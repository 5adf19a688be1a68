//! Crash tests of `ivm::durable`: a child process makes a seed's stream of
//! calls through `Durable` and acknowledges each; the parent kills it with
//! SIGKILL at a random moment (in a call, in a log write, in a
//! checkpoint), reopens the directory, and checks that the state is the
//! naive evaluation of exactly the calls the log holds, that no
//! acknowledged call is missing, and that at most the one call in flight
//! is there beyond them. The next child goes on from there, in the same
//! directory, for `IVM_CRASH_CYCLES` cycles per sync policy: 200 by
//! default, so that the README's test command stays quick; `.ci/run` runs
//! this file again with 1 000.
//!
//! A killed process loses nothing the kernel has, so without syncs the
//! parent also plays the crash of the machine now and then: it cuts a
//! random number of bytes off the log's end (what was never synced)
//! before reopening, and then checks the state against the naive
//! evaluation of the prefix of calls the log still holds.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use ivm::durable::Durable;
use ivm_fuzz::rng::Rng;
use ivm_tests::crash::{Ledger, SqlLedger, Subject};

/// What the cycles of one run saw.
#[derive(Debug, Default)]
struct Seen {
    cycles: u64,
    /// Calls acknowledged over all cycles.
    acknowledged: u64,
    /// Reopens that found the call in flight at the kill in the log.
    in_flight_kept: u64,
    /// Reopens that found a log ending inside a record.
    torn_tails: u64,
    /// Kills that left a checkpoint half-written (`snapshot.tmp`).
    mid_checkpoint: u64,
    /// Reopens that restored a snapshot.
    from_snapshot: u64,
    /// Logs cut short by the parent (machine crashes played).
    cut: u64,
}

fn cycles() -> u64 {
    std::env::var("IVM_CRASH_CYCLES")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(200)
}

/// Runs the kill-and-reopen cycles over query `Q` with the child's sync
/// policy `policy`.
fn run<Q: Subject>(policy: &str, seed: u64, machine_crashes: bool) -> Seen
where
    Q::Change: serde::Serialize + serde::de::DeserializeOwned,
{
    let dir = std::env::temp_dir().join(format!(
        "ivm-crash-{}-{policy}-{}",
        Q::NAME,
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    let mut rng = Rng::new(seed);
    let mut evaluator = Q::model();
    let mut held = 0u64;
    let mut seen = Seen::default();
    for cycle in 0..cycles() {
        let mut child = Command::new(env!("CARGO_BIN_EXE_durable_child"))
            .arg(Q::NAME)
            .arg(&dir)
            .arg(seed.to_string())
            .arg(policy)
            .arg((5 + rng.below(40)).to_string())
            .stdout(Stdio::piped())
            .spawn()
            .expect("the child starts");
        let stdout = child.stdout.take().expect("piped");
        let reader = std::thread::spawn(move || {
            BufReader::new(stdout)
                .lines()
                .map_while(Result::ok)
                .filter_map(|l| l.parse::<u64>().ok())
                .last()
        });
        // Mostly early (opening, the first calls), sometimes later.
        let wait = if rng.chance(0.7) {
            rng.below(4_000)
        } else {
            rng.below(40_000)
        };
        std::thread::sleep(Duration::from_micros(wait));
        child.kill().expect("the child is killed");
        child.wait().expect("the child is reaped");
        let last = reader.join().expect("the reader ends");
        let acknowledged = last.map_or(held, |i| i + 1);
        assert!(acknowledged >= held, "acknowledgements go forward");
        seen.acknowledged += acknowledged - held;
        if dir.join("snapshot.tmp").exists() {
            seen.mid_checkpoint += 1;
        }
        let cut = machine_crashes && rng.chance(0.1);
        if cut {
            let log = dir.join("log");
            let len = std::fs::metadata(&log).map_or(0, |m| m.len());
            let keep = len.saturating_sub(1 + rng.below(200)).max(16.min(len));
            let file = std::fs::OpenOptions::new()
                .write(true)
                .open(&log)
                .expect("the log");
            file.set_len(keep).expect("the log is cut");
            seen.cut += 1;
        }
        let d = Durable::<Q>::open(&dir)
            .unwrap_or_else(|e| panic!("cycle {cycle}: the directory does not reopen: {e}"));
        let n = d.sequence();
        assert!(
            cut || n >= acknowledged,
            "cycle {cycle}: {} acknowledged calls lost ({n} in the log, {acknowledged} acknowledged)",
            acknowledged - n
        );
        assert!(
            n <= acknowledged + 1,
            "cycle {cycle}: {n} calls in the log, but only {acknowledged} acknowledged and one in flight"
        );
        seen.in_flight_kept += n.saturating_sub(acknowledged);
        if n < held {
            // The cut took calls back: evaluate the prefix from scratch.
            evaluator = Q::model();
            held = 0;
        }
        seen.torn_tails += u64::from(d.recovery().torn_tail.is_some());
        seen.from_snapshot += u64::from(d.recovery().snapshot);
        for i in held..n {
            Q::make_model(&mut evaluator, &Q::call(seed, i));
        }
        let want = Q::expected(&evaluator);
        let got = Q::rows(&d);
        assert_eq!(got, want, "cycle {cycle}: the state after {n} calls");
        held = n;
        seen.cycles += 1;
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(Path::new(env!("CARGO_BIN_EXE_durable_child")).exists());
    seen
}

/// The cycles with a sync per call, and what they must have met.
fn with_syncs<Q: Subject>(seed: u64)
where
    Q::Change: serde::Serialize + serde::de::DeserializeOwned,
{
    let seen = run::<Q>("every", seed, false);
    println!("{}, sync per call: {seen:?}", Q::NAME);
    assert!(
        seen.acknowledged > seen.cycles,
        "the children made calls: {seen:?}"
    );
    assert!(
        seen.from_snapshot > 0,
        "some reopens restored a checkpoint: {seen:?}"
    );
}

/// The cycles without syncs, with machine crashes played: a killed
/// process loses nothing the kernel holds, synced or not; the machine
/// crashes cut into the log's unsynced end.
fn without_syncs<Q: Subject>(seed: u64)
where
    Q::Change: serde::Serialize + serde::de::DeserializeOwned,
{
    let seen = run::<Q>("never", seed, true);
    println!("{}, no syncs: {seen:?}", Q::NAME);
    assert!(
        seen.acknowledged > seen.cycles,
        "the children made calls: {seen:?}"
    );
    assert!(seen.torn_tails > 0, "some cuts tore a record: {seen:?}");
}

#[test]
fn kills_lose_no_acknowledged_call_with_a_sync_per_call() {
    with_syncs::<Ledger>(20_261_202);
}

#[test]
fn kills_lose_no_acknowledged_call_without_syncs_and_cut_logs_open_at_a_prefix() {
    without_syncs::<Ledger>(20_261_203);
}

/// The same kill cycles over a SQL view: `View::apply` inserts rows,
/// `Retract::retract` deletes one (refused, and logged, when absent).
#[test]
fn a_sql_view_loses_no_acknowledged_call() {
    with_syncs::<SqlLedger>(20_261_204);
    without_syncs::<SqlLedger>(20_261_205);
}
