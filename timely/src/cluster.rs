//! [`Cluster`]: the driver's handle on a sharded query.

use std::any::Any;
use std::fs;
use std::mem;
use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use timely::communication::{Allocator, AllocatorBuilder};
use timely::worker::Worker;

use crate::combine::Combined;
use crate::manifest::Manifest;
use crate::protocol::{Report, Reports, Round};
use crate::worker::{Dataflow, dataflow, feed, serve};
use crate::{Changes, ClusterError, Rows, Shard, Topology, Update};

/// How long worker 0 parks at most while it waits for the other workers,
/// before it looks whether one of them has stopped.
const WATCH: Duration = Duration::from_millis(50);

/// A query sharded over timely workers: threads of this process, or of
/// several processes.
///
/// Each [`apply`](Cluster::apply) is one epoch: it returns once every
/// worker has applied its share, so [`collect`](Cluster::collect) and
/// [`changes`](Cluster::changes) read a consistent cut. Results are the ⊕
/// of the workers' partial results per output tuple.
///
/// The thread that makes the cluster is its worker 0 (in process 0): it
/// routes each epoch and applies its own share within the call, while the
/// other workers run on threads of their own. So a cluster stays on the
/// thread that made it (it is not `Send`).
///
/// Every call costs at least one timely round (about 3 µs with one
/// worker, 13–30 µs between two threads, 120–170 µs over loopback TCP):
/// batch updates into epochs of ten thousand or more for sharding to pay
/// (`docs/sharding.md`).
pub struct Cluster<Q: Shard> {
    /// Where the workers run.
    topology: Topology,
    /// Worker 0 and its dataflow, in process 0.
    driver: Option<Driver<Q>>,
    /// The other workers of this process.
    threads: Vec<JoinHandle<()>>,
    /// Timely's network threads, for a cluster of processes: dropped
    /// after the workers.
    network: Option<Box<dyn Any + Send>>,
    /// The workers' results, as of the last pull.
    combined: Combined<Q::Key, Q::Payload>,
    /// The number of epochs applied, counting those before the snapshot
    /// the cluster was restored from.
    epoch: u64,
    /// Whether the query takes retractions, once known.
    retracts: Option<bool>,
    /// Whether a worker has stopped.
    lost: bool,
}

/// Worker 0, on the thread that made the cluster.
struct Driver<Q: Shard> {
    /// Timely's worker.
    worker: Worker,
    /// Its handles on the dataflow.
    dataflow: Dataflow<Q>,
}

impl<Q: Shard> Cluster<Q> {
    /// A cluster of `n` worker threads in this process, each with an empty
    /// state.
    ///
    /// # Errors
    ///
    /// [`ClusterError::Start`] when `n` is 0 or timely cannot start.
    pub fn threads(n: usize) -> Result<Self, ClusterError> {
        Self::start(Topology::threads(n))
    }

    /// Process `index` of a cluster of processes, one per `host:port` of
    /// `hosts`, each with `threads` worker threads and an empty state.
    /// Every process calls it with the same `hosts`; it returns once all
    /// of them have connected. Process 0 drives the cluster; every other
    /// process calls only [`shutdown`](Cluster::shutdown), which returns
    /// when process 0 shuts the cluster down.
    ///
    /// # Errors
    ///
    /// [`ClusterError::Start`] when the topology makes no sense or the
    /// processes cannot connect.
    pub fn processes(
        hosts: Vec<String>,
        index: usize,
        threads: usize,
    ) -> Result<Self, ClusterError> {
        Self::start(Topology::processes(hosts, index, threads))
    }

    /// A cluster with an empty state on `topology`.
    ///
    /// # Errors
    ///
    /// As [`threads`](Cluster::threads) and
    /// [`processes`](Cluster::processes).
    pub fn start(topology: Topology) -> Result<Self, ClusterError> {
        Self::launch(topology, None)
    }

    /// A cluster on `topology` whose workers take up their states from
    /// the last complete [`snapshot`](Cluster::snapshot) in `dir`. The
    /// topology must have as many workers as the one that took it (the
    /// partition of the state depends on their number). Every process
    /// reads `dir` on its own machine.
    ///
    /// # Errors
    ///
    /// [`ClusterError::Io`] or [`ClusterError::Manifest`] when `dir` holds
    /// no complete snapshot for this many workers, and
    /// [`ClusterError::Snapshot`] when a worker cannot read its state.
    pub fn restore(dir: impl AsRef<Path>, topology: Topology) -> Result<Self, ClusterError> {
        let dir = dir.as_ref();
        let manifest = Manifest::read(dir)?;
        if manifest.workers != topology.workers() {
            return Err(ClusterError::Manifest(format!(
                "the snapshot holds {} workers' states, and the cluster has {} workers; \
                 restore on as many workers as took it",
                manifest.workers,
                topology.workers()
            )));
        }
        let mut cluster = Self::launch(topology, Some((dir.to_path_buf(), manifest.epoch)))?;
        cluster.epoch = manifest.epoch;
        Ok(cluster)
    }

    /// Starts the workers and, in process 0, waits until every one is up.
    fn launch(topology: Topology, restore: Option<(PathBuf, u64)>) -> Result<Self, ClusterError> {
        topology.check().map_err(ClusterError::Start)?;
        // For processes, this connects them: it returns once all are up.
        let (builders, network) = topology
            .communication()
            .try_build()
            .map_err(ClusterError::Start)?;
        let restore = Arc::new(restore);
        let mut builders = builders.into_iter();
        let first = if topology.drives() {
            builders.next()
        } else {
            None
        };
        let threads = builders
            .map(|builder| {
                let restore = Arc::clone(&restore);
                thread::Builder::new()
                    .name("ivm-timely worker".into())
                    .spawn(move || serve::<Q>(new_worker(builder), restore.as_ref().as_ref()))
                    .map_err(|err| ClusterError::Start(err.to_string()))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let driver = first.map(|builder| {
            let mut worker = new_worker(builder);
            let dataflow = dataflow::<Q>(&mut worker, restore.as_ref().as_ref());
            Driver { worker, dataflow }
        });
        let mut cluster = Cluster {
            topology,
            driver,
            threads,
            network: Some(network),
            combined: Combined::new(),
            epoch: 0,
            retracts: None,
            lost: false,
        };
        if cluster.driver.is_some() {
            let reports = cluster.round(Round::Hello, Vec::new())?;
            cluster.confirm(reports)?;
        }
        Ok(cluster)
    }

    /// The number of workers in the whole cluster.
    pub fn workers(&self) -> usize {
        self.topology.workers()
    }

    /// The number of epochs applied, counting those before the snapshot
    /// the cluster was restored from.
    pub fn epoch(&self) -> u64 {
        self.epoch
    }

    /// Applies one epoch: a batch of updates (plain changes are
    /// [`Update::Add`]), each routed to the worker that holds its tuple,
    /// applied in batch order there. Returns once every worker has applied
    /// its share.
    ///
    /// # Errors
    ///
    /// - [`ClusterError::Refused`] when a retraction is refused (no such
    ///   contribution is alive): nothing of the epoch is applied on any
    ///   worker.
    /// - [`ClusterError::NoRetractions`] when the batch retracts and the
    ///   query is maintained under inserts only: nothing changes.
    /// - [`ClusterError::Lost`] when a worker stopped; the cluster cannot
    ///   go on.
    /// - [`ClusterError::NotDriver`] outside process 0.
    pub fn apply<I, U>(&mut self, batch: I) -> Result<(), ClusterError>
    where
        I: IntoIterator<Item = U>,
        U: Into<Update<Q::Change>>,
    {
        self.driver()?;
        let updates: Vec<Update<Q::Change>> = batch.into_iter().map(Into::into).collect();
        let first_retraction = updates.iter().find_map(|update| match update {
            Update::Retract(change) => Some(change),
            Update::Add(_) => None,
        });
        let guarded = match first_retraction {
            Some(change) if !self.takes_retractions(change) => {
                return Err(ClusterError::NoRetractions);
            }
            Some(_) => true,
            None => false,
        };
        let reports = self.round(Round::Apply { guarded }, updates)?;
        let refused = reports
            .into_iter()
            .filter_map(|report| match report {
                Report::Refused { position, reason } => Some((position, reason)),
                _ => None,
            })
            .min_by_key(|(position, _)| *position);
        if let Some((position, reason)) = refused {
            self.round(Round::Abort, Vec::new())?;
            return Err(ClusterError::Refused {
                position: position as usize,
                reason,
            });
        }
        self.epoch += 1;
        Ok(())
    }

    /// The result: each output tuple with the ⊕ of the workers' payloads,
    /// non-zero only, in no particular order.
    ///
    /// It reads the workers' changes since the last read (one round), and
    /// keeps each worker's part of the result in this process.
    ///
    /// # Errors
    ///
    /// [`ClusterError::Lost`] and [`ClusterError::NotDriver`].
    pub fn collect(&mut self) -> Result<Rows<Q>, ClusterError> {
        self.pull()?;
        Ok(self.combined.rows())
    }

    /// The output tuples whose payload changed since the previous call,
    /// each with its payload then and now (zero for a tuple not in the
    /// result), as [`ivm::View::changes`] reports them for one struct: the
    /// first call reports the whole result, and a tuple that changed and
    /// changed back is not among them.
    ///
    /// # Errors
    ///
    /// [`ClusterError::Lost`] and [`ClusterError::NotDriver`].
    pub fn changes(&mut self) -> Result<Changes<Q>, ClusterError> {
        self.pull()?;
        Ok(self.combined.changes())
    }

    /// Writes every worker's state at this epoch boundary under `dir` (on
    /// each process's own machine), then a manifest that makes the
    /// snapshot the one [`restore`](Cluster::restore) reads. Files of
    /// earlier snapshots in `dir` are removed once it is complete.
    ///
    /// # Errors
    ///
    /// [`ClusterError::Snapshot`] when a worker cannot write its state,
    /// [`ClusterError::Io`] when the manifest cannot be written (the
    /// previous snapshot then still restores), and
    /// [`ClusterError::Lost`] and [`ClusterError::NotDriver`].
    pub fn snapshot(&mut self, dir: impl AsRef<Path>) -> Result<(), ClusterError> {
        self.driver()?;
        let dir = dir.as_ref();
        fs::create_dir_all(dir)?;
        let round = Round::Snapshot {
            dir: dir.to_path_buf(),
            epoch: self.epoch,
        };
        let reports = self.round(round, Vec::new())?;
        self.confirm(reports)?;
        Manifest {
            workers: self.workers(),
            epoch: self.epoch,
        }
        .commit(dir)
    }

    /// Stops the workers: in process 0 at once, elsewhere when process 0
    /// shuts down.
    ///
    /// # Errors
    ///
    /// [`ClusterError::Lost`] when a worker of this process had stopped on
    /// its own.
    pub fn shutdown(mut self) -> Result<(), ClusterError> {
        self.stop()
    }

    /// Closes the input, lets every worker finish, and waits for them.
    fn stop(&mut self) -> Result<(), ClusterError> {
        if let Some(Driver {
            mut worker,
            dataflow,
        }) = self.driver.take()
        {
            let Dataflow { input, probe, .. } = dataflow;
            drop(input);
            if !self.lost {
                let threads = &mut self.threads;
                let done = panic::catch_unwind(AssertUnwindSafe(|| {
                    while !probe.done() {
                        if failed(threads) {
                            return false;
                        }
                        worker.step_or_park(Some(WATCH));
                    }
                    true
                }));
                self.lost = !matches!(done, Ok(true));
            }
            if self.lost {
                // Timely's channels of a failed worker panic when dropped.
                mem::forget(worker);
            }
        }
        let joined = self
            .threads
            .drain(..)
            .map(JoinHandle::join)
            .all(|done| done.is_ok());
        // After a lost connection, timely's network guard panics as it is
        // dropped (its threads did): that is the loss already reported.
        let network = self.network.take();
        let dropped = panic::catch_unwind(AssertUnwindSafe(|| drop(network))).is_ok();
        if joined && dropped && !self.lost {
            Ok(())
        } else {
            Err(ClusterError::Lost)
        }
    }

    /// Reads the workers' changes since the last pull into `combined`.
    fn pull(&mut self) -> Result<(), ClusterError> {
        for report in self.round(Round::Pull, Vec::new())? {
            if let Report::Changed { worker, key, now } = report {
                self.combined.record(worker, key, now);
            }
        }
        Ok(())
    }

    /// Checks that every worker did what the round asked.
    fn confirm(&mut self, reports: Reports<Q>) -> Result<(), ClusterError> {
        let mut done = 0;
        for report in reports {
            match report {
                Report::Done { .. } => done += 1,
                Report::Failed { worker, reason } => {
                    return Err(ClusterError::Snapshot {
                        worker: worker as usize,
                        reason,
                    });
                }
                Report::Refused { .. } | Report::Changed { .. } => {}
            }
        }
        if done == self.workers() {
            Ok(())
        } else {
            self.lost = true;
            Err(ClusterError::Lost)
        }
    }

    /// Whether the query takes retractions: asked once, of an empty
    /// instance (which refuses a retraction it takes, and ignores one it
    /// cannot take).
    fn takes_retractions(&mut self, change: &Q::Change) -> bool {
        *self
            .retracts
            .get_or_insert_with(|| Q::default().__retract(change.clone()).is_some())
    }

    /// This process's driver, or why there is none.
    fn driver(&self) -> Result<&Driver<Q>, ClusterError> {
        if self.lost {
            return Err(ClusterError::Lost);
        }
        self.driver.as_ref().ok_or(ClusterError::NotDriver)
    }

    /// Runs one round: sends each worker its share of `updates`, and steps
    /// worker 0 until every worker has done the round.
    fn round(
        &mut self,
        round: Round,
        updates: Vec<Update<Q::Change>>,
    ) -> Result<Reports<Q>, ClusterError> {
        self.driver()?;
        let peers = self.workers();
        let Some(Driver { worker, dataflow }) = self.driver.as_mut() else {
            return Err(ClusterError::NotDriver);
        };
        let threads = &mut self.threads;
        let done = panic::catch_unwind(AssertUnwindSafe(|| {
            feed::<Q>(&mut dataflow.input, &round, updates, peers);
            let next = dataflow.input.time() + 1;
            dataflow.input.advance_to(next);
            while dataflow.probe.less_than(dataflow.input.time()) {
                if failed(threads) {
                    return false;
                }
                worker.step_or_park(Some(WATCH));
            }
            true
        }));
        if matches!(done, Ok(true)) {
            Ok(mem::take(&mut *dataflow.gathered.borrow_mut()))
        } else {
            // A worker of this process stopped, or worker 0 met a failed
            // connection (timely panics then).
            self.lost = true;
            Err(ClusterError::Lost)
        }
    }
}

/// A timely worker over one of the allocators timely's configuration
/// made, on the thread that calls it (as `timely::execute` does on a
/// thread of its own).
fn new_worker(builder: AllocatorBuilder) -> Worker {
    let allocator = match builder {
        AllocatorBuilder::Thread(_) => Allocator::Thread(Default::default()),
        AllocatorBuilder::Process(process) => Allocator::Process(process.build()),
        AllocatorBuilder::Tcp(tcp) => Allocator::Tcp(tcp.build()),
    };
    Worker::new(
        timely::WorkerConfig::default(),
        allocator,
        Some(Instant::now()),
    )
}

/// Whether a worker thread has failed: joins those that have ended, and
/// says whether one of them panicked.
fn failed(threads: &mut Vec<JoinHandle<()>>) -> bool {
    let mut panicked = false;
    let mut running = Vec::with_capacity(threads.len());
    for thread in threads.drain(..) {
        if thread.is_finished() {
            panicked |= thread.join().is_err();
        } else {
            running.push(thread);
        }
    }
    *threads = running;
    panicked
}

impl<Q: Shard> Drop for Cluster<Q> {
    fn drop(&mut self) {
        if thread::panicking() {
            // A second panic while stopping would abort: leave the other
            // threads to end with the process.
            mem::forget(self.driver.take());
            mem::forget(self.network.take());
            return;
        }
        // A worker that stopped has reported it already.
        let _ = self.stop();
    }
}
