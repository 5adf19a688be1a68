//! The child of the crash tests (`tests/durable.rs`): opens a durable
//! [`Subject`](ivm_tests::crash::Subject) (the rule-language ledger or the
//! SQL view) in a directory, then makes the
//! calls of a seed's stream from where the directory left off, printing
//! the number of each call once it returned (its acknowledgement) and
//! checkpointing now and then, until it is killed.
//!
//! `durable_child ledger|sql DIR SEED every|never CHECKPOINT_EVERY`

use std::io::Write;

use ivm::durable::{Durable, SyncPolicy};
use ivm_tests::crash::{Ledger, SqlLedger, Subject};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, subject, dir, seed, policy, every] = &args[..] else {
        eprintln!("usage: durable_child ledger|sql DIR SEED every|never CHECKPOINT_EVERY");
        std::process::exit(2);
    };
    let seed: u64 = seed.parse().expect("a seed");
    let every: u64 = every.parse().expect("a number of calls");
    let policy = match policy.as_str() {
        "every" => SyncPolicy::EveryBatch,
        _ => SyncPolicy::Never,
    };
    if subject == SqlLedger::NAME {
        calls::<SqlLedger>(dir, seed, policy, every);
    } else {
        calls::<Ledger>(dir, seed, policy, every);
    }
}

/// Makes the calls of `seed`'s stream from where `dir` left off.
fn calls<Q: Subject>(dir: &str, seed: u64, policy: SyncPolicy, every: u64)
where
    Q::Change: serde::Serialize + serde::de::DeserializeOwned,
{
    let mut d = Durable::<Q>::open_with(dir, policy).expect("the directory opens");
    let mut out = std::io::stdout().lock();
    // A bound in case the parent never kills it.
    for _ in 0..1_000_000 {
        let i = d.sequence();
        Q::make(&mut d, Q::call(seed, i)).expect("the call is logged");
        // Acknowledged: the parent may count on call `i` from now on.
        if writeln!(out, "{i}").and_then(|()| out.flush()).is_err() {
            return;
        }
        if (i + 1).is_multiple_of(every) {
            d.checkpoint().expect("the checkpoint is written");
        }
    }
}
