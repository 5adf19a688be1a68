//! [`Cluster`]: the driver's handle on a sharded query.

use std::fs;
use std::mem;
use std::panic::{self, AssertUnwindSafe};
use std::path::Path;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use timely::communication::WorkerGuards;

use crate::combine::Combined;
use crate::manifest::Manifest;
use crate::protocol::{Command, Report, Reports, Round};
use crate::worker::{Start, run};
use crate::{Changes, ClusterError, Rows, Shard, Topology, Update};

/// How often a driver waiting for a round looks whether a worker thread
/// has stopped (its reply would then never come).
const WATCH: Duration = Duration::from_millis(50);

/// A query sharded over timely workers: threads of this process, or of
/// several processes.
///
/// Each [`apply`](Cluster::apply) is one epoch: it returns once every
/// worker has applied its share, so [`collect`](Cluster::collect) and
/// [`changes`](Cluster::changes) read a consistent cut. Results are the ⊕
/// of the workers' partial results per output tuple.
///
/// Every call costs at least one timely round (a few microseconds between
/// threads, about a hundred over loopback TCP): batch updates into epochs
/// of a thousand or more for sharding to pay (`docs/sharding.md`).
pub struct Cluster<Q: Shard> {
    /// Where the workers run.
    topology: Topology,
    /// The driver's ends of the channels; `None` in a process that does
    /// not drive.
    driver: Option<Driver<Q>>,
    /// The worker threads of this process.
    guards: Option<WorkerGuards<()>>,
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

/// Process 0's ends of the channels to its worker threads.
struct Driver<Q: Shard> {
    /// One per worker thread of this process.
    commands: Vec<Sender<Command<Q::Change>>>,
    /// From worker 0: every round's reports, once it is complete.
    replies: Receiver<Reports<Q>>,
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
    fn launch(
        topology: Topology,
        restore: Option<(std::path::PathBuf, u64)>,
    ) -> Result<Self, ClusterError> {
        topology.check().map_err(ClusterError::Start)?;
        let drives = topology.drives();
        let threads = if drives { topology.local() } else { 0 };
        let (commands, receivers): (Vec<_>, Vec<_>) = (0..threads).map(|_| mpsc::channel()).unzip();
        let (replies_in, replies) = mpsc::channel();
        let start = Arc::new(Start::<Q> {
            commands: Mutex::new(receivers.into_iter().map(Some).collect()),
            replies: Mutex::new(Some(replies_in)),
            drives,
            restore,
        });
        let guards = timely::execute(topology.config(), move |worker| run::<Q>(worker, &start))
            .map_err(ClusterError::Start)?;
        let mut cluster = Cluster {
            topology,
            driver: drives.then_some(Driver { commands, replies }),
            guards: Some(guards),
            combined: Combined::new(),
            epoch: 0,
            retracts: None,
            lost: false,
        };
        if drives {
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

    /// Closes the channels to the workers and waits for their threads.
    fn stop(&mut self) -> Result<(), ClusterError> {
        self.driver = None;
        let Some(guards) = self.guards.take() else {
            return Ok(());
        };
        // After a lost connection, timely's communication guard panics
        // as it is dropped (its network threads did): that is the loss
        // already reported, not a new failure.
        let joined = panic::catch_unwind(AssertUnwindSafe(|| guards.join()));
        let stopped = matches!(&joined, Ok(threads) if threads.iter().all(Result::is_ok));
        if stopped && !self.lost {
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

    /// Runs one round: hands each worker thread of this process its slice
    /// of `updates` (contiguous, so that each thread routes its own), and
    /// waits for the reports.
    fn round(
        &mut self,
        round: Round,
        updates: Vec<Update<Q::Change>>,
    ) -> Result<Reports<Q>, ClusterError> {
        let driver = self.driver()?;
        let per_thread = updates.len().div_ceil(driver.commands.len()).max(1);
        let mut positioned = updates
            .into_iter()
            .enumerate()
            .map(|(position, update)| (position as u64, update));
        let mut sent = true;
        for (thread, commands) in driver.commands.iter().enumerate() {
            let command = Command {
                round: (thread == 0).then(|| round.clone()),
                updates: positioned.by_ref().take(per_thread).collect(),
            };
            sent &= commands.send(command).is_ok();
        }
        let reports = if sent { self.wait() } else { None };
        reports.ok_or_else(|| {
            self.lost = true;
            ClusterError::Lost
        })
    }

    /// Worker 0's reports of the round, or `None` when a worker thread of
    /// this process stopped before the round completed.
    fn wait(&self) -> Option<Reports<Q>> {
        let driver = self.driver.as_ref()?;
        loop {
            match driver.replies.recv_timeout(WATCH) {
                Ok(reports) => return Some(reports),
                Err(RecvTimeoutError::Disconnected) => return None,
                Err(RecvTimeoutError::Timeout) => {
                    let guards = self.guards.as_ref()?;
                    if guards.guards().iter().any(|thread| thread.is_finished()) {
                        return None;
                    }
                }
            }
        }
    }
}

impl<Q: Shard> Drop for Cluster<Q> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            // Closing the channels lets the threads end on their own; a
            // second panic while joining them would abort.
            self.driver = None;
            mem::forget(self.guards.take());
            return;
        }
        // A worker that stopped has reported it already.
        let _ = self.stop();
    }
}
