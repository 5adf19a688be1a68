//! A sharded run is exact: after every epoch, a cluster's `collect()` and
//! `changes()` equal those of one struct fed the same stream, on 1, 2 and
//! 3 worker threads and on 2 processes; an epoch with a refused
//! retraction changes nothing on any worker; a snapshot restores into a
//! new cluster that goes on as the old one would; and a process killed
//! mid-epoch makes `apply` fail, never answer wrong, and a restore and a
//! replay recover.
//!
//! The queries cover a q-hierarchical view (`RevenueByStore`), a SQL view
//! with a replicated relation (`TpchQ3`), an insert-only view over a
//! positive semiring with a replicated relation (`CheapestConnection` over
//! `MinPlus`), and the triangle count (on one worker).

#[macro_use]
mod support;

use std::collections::HashMap;
use std::fmt::Debug;
use std::hash::Hash;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use ivm::Semiring;
use ivm_generated_examples::append_only::CheapestConnection;
use ivm_generated_examples::graph::Triangles;
use ivm_generated_examples::retail::RevenueByStore;
use ivm_generated_examples::tpch_sql::TpchQ3;
use ivm_timely::{Cluster, ClusterError, Shard, Topology, Update};
use support::Stream;

/// The environment variable that makes [`peer`] a cluster's second
/// process: `query;threads;host0,host1;restore-dir-or-empty`.
const PEER: &str = "IVM_TIMELY_PEER";

/// The longest a two-process test may take before it counts as hung.
const BOUND: Duration = Duration::from_secs(120);

/// Non-zero results as a map.
fn map<K: Hash + Eq, P: Semiring>(rows: impl IntoIterator<Item = (K, P)>) -> HashMap<K, P> {
    rows.into_iter().filter(|(_, p)| !p.is_zero()).collect()
}

/// Changes as a map.
fn changes<K: Hash + Eq, P>(rows: impl IntoIterator<Item = (K, P, P)>) -> HashMap<K, (P, P)> {
    rows.into_iter()
        .map(|(k, old, new)| (k, (old, new)))
        .collect()
}

/// Checks a cluster's result and changes against one struct's.
fn compare<Q: Shard>(cluster: &mut Cluster<Q>, one: &mut Q, epoch: usize)
where
    Q::Key: Debug,
{
    assert_eq!(
        changes(cluster.changes().unwrap()),
        changes(one.changes()),
        "changes after epoch {epoch}"
    );
    assert_eq!(
        map(cluster.collect().unwrap()),
        map(one.iter()),
        "result after epoch {epoch}"
    );
}

/// Feeds `epochs` epochs of `stream` to `cluster` and to `one`, and
/// compares after each; every seventh epoch of a retracting stream holds a
/// retraction of a change never added, which must be refused with nothing
/// changed.
fn drive<Q: Shard>(
    cluster: &mut Cluster<Q>,
    one: &mut Q,
    stream: &mut Stream<Q::Change>,
    epochs: usize,
) where
    Q::Key: Debug,
{
    for epoch in 0..epochs {
        let refused = stream.retracts() && epoch % 7 == 3;
        let batch = stream.epoch(1 + epoch % 40, refused);
        let applied = cluster.apply(batch.clone());
        if refused {
            let at = stream.refused_at;
            assert!(
                matches!(applied, Err(ClusterError::Refused { position, .. }) if position == at),
                "epoch {epoch} retracts what was never added, at {at}: {applied:?}"
            );
        } else {
            applied.unwrap();
            support::apply(one, batch);
        }
        compare(cluster, one, epoch);
    }
}

/// Runs a stream on `workers` threads and on one struct.
fn threads<Q: Shard>(workers: usize, mut stream: Stream<Q::Change>)
where
    Q::Key: Debug,
{
    let mut cluster = Cluster::<Q>::threads(workers).unwrap();
    assert_eq!(cluster.workers(), workers);
    let mut one = Q::default();
    drive(&mut cluster, &mut one, &mut stream, 30);
    cluster.shutdown().unwrap();
}

#[test]
fn q_hierarchical_on_one_two_and_three_threads() {
    for workers in 1..=3 {
        threads::<RevenueByStore>(workers, support::revenue(7 + workers as u64, 6));
    }
}

#[test]
fn sql_view_with_a_replicated_relation_on_one_two_and_three_threads() {
    for workers in 1..=3 {
        threads::<TpchQ3>(workers, support::tpch_q3(3, 0.0005));
    }
}

#[test]
fn insert_only_positive_semiring_on_one_two_and_three_threads() {
    for workers in 1..=3 {
        threads::<CheapestConnection>(workers, support::connections(11 + workers as u64));
    }
}

#[test]
fn triangle_count_on_one_two_and_three_threads() {
    for workers in 1..=3 {
        threads::<Triangles>(workers, support::triangles(5, 24));
    }
}

#[test]
fn a_decimal_key_routes_as_the_sql_view_stores_it() {
    use ivm::View;
    use ivm::sql::Decimal;
    use ivm_generated_examples::tpch_sql::{TpchQ6, TpchQ6Change as Q6};
    // TPC-H Q6 is sharded by `l_quantity`, a DECIMAL(15, 2): a quantity
    // given with three decimals is stored rounded, and a delete of the
    // stored value must reach the worker that holds the row.
    let row =
        ivm_generated_examples::tpch::data::Database::generate(0.0001, 5).lineitems[0].clone();
    let line = |quantity: Decimal| {
        let mut line = line_item!(Q6::Lineitem, &row);
        let Q6::Lineitem { l_quantity, .. } = &mut line;
        *l_quantity = quantity;
        line
    };
    let mut cluster = Cluster::<TpchQ6>::threads(3).unwrap();
    let mut one = TpchQ6::default();
    let given: Vec<_> = (0..12)
        .map(|i| Update::Add(line(Decimal::new(1_995 + 1_000 * i, 3))))
        .collect();
    let stored: Vec<_> = (0..12)
        .map(|i| Update::Retract(line(Decimal::new(200 + 100 * i, 2))))
        .collect();
    for epoch in [given, stored] {
        cluster.apply(epoch.clone()).unwrap();
        support::apply(&mut one, epoch);
        assert_eq!(map(cluster.collect().unwrap()), map(View::iter(&one)));
    }
    cluster.shutdown().unwrap();
}

#[test]
fn a_retraction_into_an_insert_only_query_is_refused() {
    let mut cluster = Cluster::<CheapestConnection>::threads(2).unwrap();
    let mut stream = support::connections(1);
    let Update::Add(change) = stream.epoch(1, false).remove(0) else {
        unreachable!("an insert-only stream adds")
    };
    cluster.apply([change.clone()]).unwrap();
    let before = map(cluster.collect().unwrap());
    let refused = cluster.apply([Update::Add(change.clone()), Update::Retract(change)]);
    assert!(matches!(refused, Err(ClusterError::NoRetractions)));
    assert_eq!(map(cluster.collect().unwrap()), before);
}

#[test]
fn bad_topologies_and_missing_snapshots_are_errors() {
    assert!(matches!(
        Cluster::<RevenueByStore>::threads(0),
        Err(ClusterError::Start(_))
    ));
    let hosts = vec!["127.0.0.1:1".to_string()];
    assert!(matches!(
        Cluster::<RevenueByStore>::processes(hosts, 3, 1),
        Err(ClusterError::Start(_))
    ));
    let nowhere = scratch("missing");
    assert!(matches!(
        Cluster::<RevenueByStore>::restore(&nowhere, Topology::threads(2)),
        Err(ClusterError::Io(_))
    ));
}

/// A fresh directory under the system's temporary one.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ivm-timely-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

#[test]
fn a_snapshot_restores_into_a_new_cluster_that_goes_on_alike() {
    let dir = scratch("restore");
    let mut stream = support::revenue(21, 9);
    let mut one = RevenueByStore::default();
    let mut cluster = Cluster::<RevenueByStore>::threads(2).unwrap();
    drive(&mut cluster, &mut one, &mut stream, 12);
    let epoch = cluster.epoch();
    cluster.snapshot(&dir).unwrap();
    // Epochs after the snapshot are lost with the cluster.
    cluster.apply(stream.epoch(5, false)).unwrap();
    cluster.shutdown().unwrap();

    let mut stream = support::revenue(21, 9);
    let mut one = RevenueByStore::default();
    for e in 0..12 {
        let batch = stream.epoch(1 + e % 40, stream.retracts() && e % 7 == 3);
        if !(stream.retracts() && e % 7 == 3) {
            support::apply(&mut one, batch);
        }
    }
    // Three workers cannot take up two workers' states.
    assert!(matches!(
        Cluster::<RevenueByStore>::restore(&dir, Topology::threads(3)),
        Err(ClusterError::Manifest(_))
    ));
    let mut restored = Cluster::<RevenueByStore>::restore(&dir, Topology::threads(2)).unwrap();
    assert_eq!(restored.epoch(), epoch);
    // The first changes after a restore are the whole result.
    let _ = one.changes();
    assert_eq!(map(restored.collect().unwrap()), map(one.iter()));
    let _ = restored.changes().unwrap();
    drive(&mut restored, &mut one, &mut stream, 10);
    restored.shutdown().unwrap();

    // A worker whose state is missing fails the restore, by name.
    let file = std::fs::read_dir(&dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .find(|path| path.to_string_lossy().contains("worker-1-"))
        .unwrap();
    std::fs::remove_file(file).unwrap();
    assert!(matches!(
        Cluster::<RevenueByStore>::restore(&dir, Topology::threads(2)),
        Err(ClusterError::Snapshot { worker: 1, .. })
    ));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The second process of a two-process cluster: this test binary again,
/// running [`peer`]. Killed when dropped.
struct Peer(Child);

impl Peer {
    fn spawn(query: &str, threads: usize, hosts: &[String], restore: Option<&Path>) -> Peer {
        let restore = restore.map_or(String::new(), |dir| dir.display().to_string());
        let child = Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "peer",
                "--ignored",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(
                PEER,
                format!("{query};{threads};{};{restore}", hosts.join(",")),
            )
            .stdout(Stdio::null())
            .spawn()
            .unwrap();
        Peer(child)
    }

    fn kill(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

impl Drop for Peer {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Process 1 of a two-process cluster, when the two-process tests run
/// this binary with [`PEER`] set; nothing otherwise.
#[test]
#[ignore = "the second process of the two-process tests, which run it themselves"]
fn peer() {
    let Ok(spec) = std::env::var(PEER) else {
        return;
    };
    let [query, threads, hosts, restore] = spec.splitn(4, ';').collect::<Vec<_>>()[..] else {
        panic!("{PEER} is `query;threads;hosts;restore`")
    };
    let threads = threads.parse().expect("a number of threads");
    let topology = Topology::processes(hosts.split(',').map(String::from).collect(), 1, threads);
    let restore = (!restore.is_empty()).then(|| PathBuf::from(restore));
    match query {
        "revenue" => serve::<RevenueByStore>(topology, restore),
        "tpch_q3" => serve::<TpchQ3>(topology, restore),
        "connections" => serve::<CheapestConnection>(topology, restore),
        "triangles" => serve::<Triangles>(topology, restore),
        other => panic!("no query {other}"),
    }
}

/// Runs this process's worker until process 0 shuts the cluster down.
fn serve<Q: Shard>(topology: Topology, restore: Option<PathBuf>) {
    let mut cluster = match restore {
        Some(dir) => Cluster::<Q>::restore(dir, topology),
        None => Cluster::<Q>::start(topology),
    }
    .unwrap();
    // Only process 0 feeds and reads.
    assert!(matches!(cluster.collect(), Err(ClusterError::NotDriver)));
    assert!(matches!(
        cluster.apply(Vec::<Q::Change>::new()),
        Err(ClusterError::NotDriver)
    ));
    cluster.shutdown().unwrap();
}

/// Process 0 of a two-process cluster, with its peer started.
fn two_processes<Q: Shard>(
    query: &str,
    threads: usize,
    restore: Option<&Path>,
) -> (Cluster<Q>, Peer) {
    let hosts = support::hosts();
    let peer = Peer::spawn(query, threads, &hosts, restore);
    let topology = Topology::processes(hosts, 0, threads);
    let cluster = match restore {
        Some(dir) => Cluster::<Q>::restore(dir, topology),
        None => Cluster::<Q>::start(topology),
    }
    .unwrap();
    assert!(matches!(
        Cluster::<Q>::processes(vec!["127.0.0.1:1".into()], 0, 0),
        Err(ClusterError::Start(_))
    ));
    (cluster, peer)
}

/// Runs a stream on two processes of `threads` workers each.
fn processes<Q: Shard>(query: &str, threads: usize, mut stream: Stream<Q::Change>)
where
    Q::Key: Debug,
{
    let start = Instant::now();
    let (mut cluster, _peer) = two_processes::<Q>(query, threads, None);
    assert_eq!(cluster.workers(), 2 * threads);
    let mut one = Q::default();
    drive(&mut cluster, &mut one, &mut stream, 20);
    cluster.shutdown().unwrap();
    assert!(
        start.elapsed() < BOUND,
        "{query} on two processes took {:?}",
        start.elapsed()
    );
}

#[test]
fn every_kind_of_view_on_two_processes() {
    processes::<RevenueByStore>("revenue", 1, support::revenue(31, 6));
    processes::<TpchQ3>("tpch_q3", 1, support::tpch_q3(4, 0.0005));
    processes::<CheapestConnection>("connections", 1, support::connections(32));
    processes::<Triangles>("triangles", 1, support::triangles(33, 24));
}

#[test]
fn two_processes_of_two_worker_threads_each() {
    processes::<RevenueByStore>("revenue", 2, support::revenue(34, 9));
    processes::<TpchQ3>("tpch_q3", 2, support::tpch_q3(5, 0.0005));
}

#[test]
fn a_killed_process_fails_the_epoch_and_a_restore_and_replay_recover() {
    let start = Instant::now();
    let dir = scratch("killed");
    let mut stream = support::revenue(41, 200);
    let mut one = RevenueByStore::default();
    let (mut cluster, mut peer) = two_processes::<RevenueByStore>("revenue", 1, None);
    drive(&mut cluster, &mut one, &mut stream, 8);
    let epoch = cluster.epoch();
    cluster.snapshot(&dir).unwrap();

    // Epochs after the snapshot, kept for the replay; the peer is killed
    // while a large one is under way.
    let mut since = Vec::new();
    for _ in 0..3 {
        since.push(stream.epoch(50, false));
        cluster.apply(since.last().unwrap().clone()).unwrap();
    }
    since.push(stream.epoch(200_000, false));
    let killer = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(5));
        peer.kill();
    });
    let mut failed = cluster.apply(since.last().unwrap().clone());
    killer.join().unwrap();
    // The epoch may have completed before the kill: the next one fails.
    while failed.is_ok() {
        since.push(stream.epoch(10, false));
        failed = cluster.apply(since.last().unwrap().clone());
    }
    assert!(matches!(failed, Err(ClusterError::Lost)), "{failed:?}");
    assert!(matches!(cluster.collect(), Err(ClusterError::Lost)));
    drop(cluster);

    let (mut restored, _peer) = two_processes::<RevenueByStore>("revenue", 1, Some(&dir));
    assert_eq!(restored.epoch(), epoch);
    for epoch in since {
        restored.apply(epoch.clone()).unwrap();
        support::apply(&mut one, epoch);
    }
    assert_eq!(map(restored.collect().unwrap()), map(one.iter()));
    restored.shutdown().unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(start.elapsed() < BOUND, "took {:?}", start.elapsed());
}
