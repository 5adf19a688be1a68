//! One worker of a cluster: its instance of the query, the dataflow around
//! it, and what it does in each round.
//!
//! The dataflow is two operators. Worker 0, which runs on the thread that
//! made the [`Cluster`](crate::Cluster), feeds an input with
//! [`Envelope`]s, one per worker and round; `maintain` receives each
//! worker's (an `Exchange` on its address), waits until the input frontier
//! has passed the round, applies it and emits [`Report`]s; `gather`
//! collects every report at worker 0, which reads them once the round is
//! complete everywhere. Every other worker runs the same dataflow on a
//! thread of its own, its own input closed, until worker 0 closes its.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::fs;
use std::io::{BufReader, BufWriter};
use std::path::{Path, PathBuf};
use std::rc::Rc;

use timely::container::CapacityContainerBuilder;
use timely::dataflow::channels::pact::Exchange;
use timely::dataflow::operators::{Capability, Operator, Probe};
use timely::dataflow::{InputHandle, ProbeHandle};
use timely::progress::frontier::MutableAntichain;
use timely::worker::Worker;

use crate::Shard;
use crate::Update;
use crate::manifest::worker_file;
use crate::protocol::{Envelope, Report, Reports, Round};

/// The input of a worker's dataflow.
pub(crate) type Input<Q> =
    InputHandle<u64, CapacityContainerBuilder<Vec<Envelope<<Q as ivm::View>::Change>>>>;

/// The reports of a round, as worker 0 gathers them.
pub(crate) type Gathered<Q> = Rc<RefCell<Reports<Q>>>;

/// A worker's handles on its dataflow.
pub(crate) struct Dataflow<Q: Shard> {
    /// Where worker 0 feeds the rounds.
    pub input: Input<Q>,
    /// How far the rounds are done, on every worker.
    pub probe: ProbeHandle<u64>,
    /// The reports gathered at worker 0.
    pub gathered: Gathered<Q>,
}

/// Builds a worker's dataflow around its instance of the query: empty, or
/// restored from its file of the snapshot in `restore`.
pub(crate) fn dataflow<Q: Shard>(
    worker: &mut Worker,
    restore: Option<&(PathBuf, u64)>,
) -> Dataflow<Q> {
    let shard = Shard_::<Q>::start(worker.index(), restore);
    let gathered: Gathered<Q> = Rc::default();
    let mut input = Input::<Q>::new();
    let probe = ProbeHandle::new();
    let into = Rc::clone(&gathered);
    worker.dataflow::<u64, _, _>(|scope| {
        input
            .to_stream(scope)
            .unary_frontier::<CapacityContainerBuilder<Reports<Q>>, _, _, _>(
                Exchange::new(|envelope: &Envelope<Q::Change>| u64::from(envelope.target)),
                "maintain",
                move |_, _| {
                    let mut shard = shard;
                    let mut stash = Stash::new();
                    move |(input, frontier), output| {
                        input.for_each(|cap, data| {
                            // Every envelope is sent at a round's time.
                            if let Some(cap) = cap.retain_least(0) {
                                stash.keep(cap, data);
                            }
                        });
                        while let Some((cap, envelopes)) = stash.ready(frontier) {
                            let reports = shard.round(envelopes);
                            output.session(&cap).give_iterator(reports.into_iter());
                        }
                    }
                },
            )
            .unary_frontier::<CapacityContainerBuilder<Vec<()>>, _, _, _>(
                Exchange::new(|_: &Report<Q::Key, Q::Payload>| 0),
                "gather",
                move |_, _| {
                    move |(input, _), _| {
                        input.for_each(|_, data| into.borrow_mut().append(data));
                    }
                },
            )
            .probe_with(&probe);
    });
    Dataflow {
        input,
        probe,
        gathered,
    }
}

/// The envelopes a worker has received, by round, until the input
/// frontier passes the round.
struct Stash<C>(BTreeMap<u64, (Capability<u64>, Vec<Envelope<C>>)>);

impl<C> Stash<C> {
    fn new() -> Self {
        Stash(BTreeMap::new())
    }

    /// Keeps envelopes received at `cap`'s time.
    fn keep(&mut self, cap: Capability<u64>, data: &mut Vec<Envelope<C>>) {
        let round = self
            .0
            .entry(*cap.time())
            .or_insert_with(|| (cap, Vec::new()));
        round.1.append(data);
    }

    /// The earliest round that every worker has sent all of, if any:
    /// rounds complete in order, and are applied in turn.
    fn ready(
        &mut self,
        frontier: &MutableAntichain<u64>,
    ) -> Option<(Capability<u64>, Vec<Envelope<C>>)> {
        let round = self.0.first_entry()?;
        (!frontier.less_equal(round.key())).then(|| round.remove())
    }
}

/// Runs a worker other than worker 0: it maintains its share until worker
/// 0 closes the input.
pub(crate) fn serve<Q: Shard>(mut worker: Worker, restore: Option<&(PathBuf, u64)>) {
    let Dataflow { input, probe, .. } = dataflow::<Q>(&mut worker, restore);
    drop(input);
    while !probe.done() {
        worker.step_or_park(None);
    }
}

/// Sends each worker its envelope of a round: the updates whose tuples it
/// holds (every worker, for a replicated relation), in batch order.
pub(crate) fn feed<Q: Shard>(
    input: &mut Input<Q>,
    round: &Round,
    updates: Vec<Update<Q::Change>>,
    peers: usize,
) {
    // Each worker's share, and a little more for replicated relations.
    let share = updates.len() / peers + updates.len() / 16 + 1;
    let mut envelopes: Vec<Envelope<Q::Change>> = (0..peers)
        .map(|target| Envelope {
            target: target as u32,
            round: round.clone(),
            updates: Vec::with_capacity(share),
            retractions: Vec::new(),
        })
        .collect();
    for (position, update) in (0..).zip(updates) {
        match Q::route(update.change()).worker(peers) {
            Some(target) => envelopes[target].push(update, position),
            None => {
                for envelope in &mut envelopes {
                    envelope.push(update.clone(), position);
                }
            }
        }
    }
    for envelope in envelopes {
        input.send(envelope);
    }
}

impl<C> Envelope<C> {
    /// Adds an update at `position` of the batch.
    fn push(&mut self, update: Update<C>, position: u64) {
        if let Update::Retract(_) = update {
            self.retractions.push(position);
        }
        self.updates.push(update);
    }
}

/// One worker's instance of the query, and what it applied in the last
/// guarded round (to take it back if the round is aborted).
struct Shard_<Q: Shard> {
    /// The worker's index in the cluster.
    index: u32,
    /// The maintained struct.
    query: Q,
    /// How to take back each update of the last guarded round, in the
    /// order applied.
    undo: Vec<Update<Q::Change>>,
    /// Why the worker's state could not be restored, reported at `Hello`.
    failed: Option<String>,
}

impl<Q: Shard> Shard_<Q> {
    /// A worker's instance: empty, or restored from its snapshot file.
    fn start(index: usize, restore: Option<&(PathBuf, u64)>) -> Self {
        let (query, failed) = match restore {
            None => (Q::default(), None),
            Some((dir, epoch)) => match read::<Q>(&worker_file(dir, index, *epoch)) {
                Ok(query) => (query, None),
                Err(reason) => (Q::default(), Some(reason)),
            },
        };
        Shard_ {
            index: index as u32,
            query,
            undo: Vec::new(),
            failed,
        }
    }

    /// Does one round, from its envelope (worker 0 sends each worker one
    /// per round).
    fn round(&mut self, envelopes: Vec<Envelope<Q::Change>>) -> Vec<Report<Q::Key, Q::Payload>> {
        let envelope = envelopes
            .into_iter()
            .next()
            .expect("one envelope per round");
        let round = envelope.round;
        let worker = self.index;
        match round {
            Round::Hello => vec![match self.failed.take() {
                None => Report::Done { worker },
                Some(reason) => Report::Failed { worker, reason },
            }],
            Round::Apply { guarded: false } => {
                self.undo.clear();
                self.query
                    .apply(envelope.updates.into_iter().map(|update| match update {
                        Update::Add(change) => change,
                        Update::Retract(_) => unreachable!("an unguarded round retracts nothing"),
                    }));
                Vec::new()
            }
            Round::Apply { guarded: true } => {
                self.apply_guarded(envelope.updates, &envelope.retractions)
            }
            Round::Abort => {
                self.abort();
                Vec::new()
            }
            Round::Pull => self
                .query
                .changes()
                .map(|(key, _, now)| Report::Changed { worker, key, now })
                .collect(),
            Round::Snapshot { dir, epoch } => {
                vec![match write(&self.query, &dir, self.index, epoch) {
                    Ok(()) => Report::Done { worker },
                    Err(reason) => Report::Failed { worker, reason },
                }]
            }
        }
    }

    /// Applies a round that holds retractions (at `retractions` of the
    /// batch), keeping how to take back each update; stops at the first
    /// refused one.
    fn apply_guarded(
        &mut self,
        updates: Vec<Update<Q::Change>>,
        retractions: &[u64],
    ) -> Vec<Report<Q::Key, Q::Payload>> {
        self.undo.clear();
        let mut positions = retractions.iter().copied();
        for update in updates {
            let change = match update {
                Update::Add(change) => {
                    self.undo.push(Update::Retract(change.clone()));
                    self.query.apply([change]);
                    continue;
                }
                Update::Retract(change) => change,
            };
            let position = positions.next().expect("each retraction has its place");
            let reason = match self.query.__retract(change.clone()) {
                Some(Ok(())) => {
                    self.undo.push(Update::Add(change));
                    continue;
                }
                Some(Err(err)) => err.to_string(),
                None => "the query is maintained under inserts only".into(),
            };
            return vec![Report::Refused { position, reason }];
        }
        Vec::new()
    }

    /// Takes back the last guarded round's updates, newest first.
    fn abort(&mut self) {
        while let Some(update) = self.undo.pop() {
            match update {
                Update::Add(change) => self.query.apply([change]),
                Update::Retract(change) => {
                    let taken = self.query.__retract(change);
                    // It was added in this round and not taken back since.
                    assert!(
                        matches!(taken, Some(Ok(()))),
                        "an update applied in the aborted round can be taken back"
                    );
                }
            }
        }
    }
}

/// Reads a worker's state from its snapshot file.
fn read<Q: Shard>(path: &Path) -> Result<Q, String> {
    let file = fs::File::open(path).map_err(|err| format!("{}: {err}", path.display()))?;
    Q::restore(BufReader::new(file)).map_err(|err| format!("{}: {err}", path.display()))
}

/// Writes a worker's state to its snapshot file (through a synced
/// temporary file, renamed).
fn write<Q: Shard>(query: &Q, dir: &Path, worker: u32, epoch: u64) -> Result<(), String> {
    let path = worker_file(dir, worker as usize, epoch);
    let tmp = path.with_extension("tmp");
    let written = (|| {
        let file = fs::File::create(&tmp).map_err(|e| e.to_string())?;
        let mut out = BufWriter::new(file);
        query.snapshot(&mut out).map_err(|e| e.to_string())?;
        let file = out.into_inner().map_err(|e| e.to_string())?;
        file.sync_all().map_err(|e| e.to_string())?;
        fs::rename(&tmp, &path).map_err(|e| e.to_string())
    })();
    written.map_err(|reason| format!("{}: {reason}", path.display()))
}
