//! One worker of a cluster: its instance of the query, what it does in
//! each round, and the loop that runs it.
//!
//! The dataflow is three operators. The worker threads of process 0 feed
//! an input with [`Envelope`]s, already addressed; `maintain` receives
//! each worker's envelopes (an `Exchange` on the address), stashes a
//! round's until every worker has sent all of them (the input frontier
//! has passed the round), applies them in batch order and emits
//! [`Report`]s; `gather` collects every report at worker 0, where the
//! thread answers the driver once the round is complete everywhere.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::fs;
use std::io::{BufReader, BufWriter};
use std::mem;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::mpsc::{Receiver, Sender};
use std::sync::{Arc, Mutex};

use ivm::View;
use timely::container::CapacityContainerBuilder;
use timely::dataflow::channels::pact::Exchange;
use timely::dataflow::operators::{Capability, Operator, Probe};
use timely::dataflow::{InputHandle, ProbeHandle};
use timely::worker::Worker;

use crate::Shard;
use crate::Update;
use crate::manifest::worker_file;
use crate::protocol::{Body, Command, Envelope, Report, Reports, Round};

/// The channel one worker thread's commands come on.
pub(crate) type Commands<Q> = Receiver<Command<<Q as View>::Change>>;

/// What the worker threads share when they start: the driver's ends of the
/// channels, and where their state comes from.
pub(crate) struct Start<Q: Shard> {
    /// Per worker thread of process 0, the channel its commands come on;
    /// each thread takes its own.
    pub commands: Mutex<Vec<Option<Commands<Q>>>>,
    /// Worker 0's channel to the driver: the reports of each round.
    pub replies: Mutex<Option<Sender<Reports<Q>>>>,
    /// Whether this process feeds the cluster (process 0).
    pub drives: bool,
    /// The snapshot to restore each worker's state from, at an epoch.
    pub restore: Option<(PathBuf, u64)>,
}

/// The reports of a round, as worker 0 gathers them.
type Gathered<Q> = Rc<RefCell<Reports<Q>>>;

/// Runs one worker until the driver shuts the cluster down.
pub(crate) fn run<Q: Shard>(worker: &mut Worker, start: &Arc<Start<Q>>) {
    let index = worker.index();
    let peers = worker.peers();
    let shard = Shard_::<Q>::start(index, start.restore.as_ref());
    let gathered: Gathered<Q> = Rc::default();
    let mut input = InputHandle::<u64, CapacityContainerBuilder<Vec<Envelope<Q::Change>>>>::new();
    let probe = ProbeHandle::new();
    worker.dataflow::<u64, _, _>(|scope| {
        let reports = input
            .to_stream(scope)
            .unary_frontier::<CapacityContainerBuilder<Vec<Report<Q::Key, Q::Payload>>>, _, _, _>(
                Exchange::new(|envelope: &Envelope<Q::Change>| u64::from(envelope.target)),
                "maintain",
                move |_, _| {
                    let mut shard = shard;
                    let mut stash = BTreeMap::<u64, (Capability<u64>, Vec<_>)>::new();
                    move |(input, frontier), output| {
                        input.for_each(|cap, data| {
                            // Every envelope is sent at a round's time.
                            let Some(cap) = cap.retain_least(0) else {
                                return;
                            };
                            let entry = stash
                                .entry(*cap.time())
                                .or_insert_with(|| (cap, Vec::new()));
                            entry.1.append(data);
                        });
                        // Rounds complete in order: apply each in turn.
                        while let Some(entry) = stash.first_entry() {
                            if frontier.less_equal(entry.key()) {
                                break;
                            }
                            let (cap, envelopes) = entry.remove();
                            let reports = shard.round(envelopes);
                            output.session(&cap).give_iterator(reports.into_iter());
                        }
                    }
                },
            );
        let into = Rc::clone(&gathered);
        reports
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
    let commands = start.drives.then(|| {
        start
            .commands
            .lock()
            .expect("no worker panics holding the lock")[index]
            .take()
            .expect("each worker thread takes its own channel")
    });
    let Some(commands) = commands else {
        // Another process's worker: nothing to feed; it maintains its
        // share until process 0 closes the input.
        input.close();
        while !probe.done() {
            worker.step_or_park(None);
        }
        return;
    };
    let replies = (index == 0).then(|| {
        start
            .replies
            .lock()
            .expect("no worker panics holding the lock")
            .take()
    });
    let replies = replies.flatten();
    while let Ok(command) = commands.recv() {
        feed::<Q>(&mut input, command, peers);
        let next = input.time() + 1;
        input.advance_to(next);
        while probe.less_than(input.time()) {
            worker.step_or_park(None);
        }
        if let Some(replies) = &replies {
            let reports = mem::take(&mut *gathered.borrow_mut());
            if replies.send(reports).is_err() {
                break;
            }
        }
    }
    input.close();
    while !probe.done() {
        worker.step_or_park(None);
    }
}

/// Addresses one thread's slice of a round and sends it into the input.
fn feed<Q: Shard>(
    input: &mut InputHandle<u64, CapacityContainerBuilder<Vec<Envelope<Q::Change>>>>,
    command: Command<Q::Change>,
    peers: usize,
) {
    if let Some(round) = command.round {
        for target in 0..peers {
            input.send(Envelope {
                target: target as u32,
                body: Body::Round(round.clone()),
            });
        }
    }
    for (position, update) in command.updates {
        match Q::route(update.change()).worker(peers) {
            Some(target) => input.send(Envelope {
                target: target as u32,
                body: Body::Update(position, update),
            }),
            None => {
                for target in 0..peers {
                    input.send(Envelope {
                        target: target as u32,
                        body: Body::Update(position, update.clone()),
                    });
                }
            }
        }
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

    /// Does one round: its kind comes first among the envelopes, its
    /// updates follow in batch order.
    fn round(&mut self, envelopes: Vec<Envelope<Q::Change>>) -> Vec<Report<Q::Key, Q::Payload>> {
        let mut round = None;
        let mut updates = Vec::with_capacity(envelopes.len());
        for envelope in envelopes {
            match envelope.body {
                Body::Round(kind) => round = Some(kind),
                Body::Update(position, update) => updates.push((position, update)),
            }
        }
        // Threads address their slices in parallel: restore batch order.
        // The slices arrive as sorted runs, which a stable sort merges.
        updates.sort_by_key(|(position, _)| *position);
        let worker = self.index;
        match round.expect("every worker receives the round's kind") {
            Round::Hello => vec![match self.failed.take() {
                None => Report::Done { worker },
                Some(reason) => Report::Failed { worker, reason },
            }],
            Round::Apply { guarded: false } => {
                self.undo.clear();
                self.query
                    .apply(updates.into_iter().map(|(_, update)| match update {
                        Update::Add(change) => change,
                        Update::Retract(_) => unreachable!("an unguarded round retracts nothing"),
                    }));
                Vec::new()
            }
            Round::Apply { guarded: true } => self.apply_guarded(updates),
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

    /// Applies a round that holds retractions, keeping how to take back
    /// each update; stops at the first refused one.
    fn apply_guarded(
        &mut self,
        updates: Vec<(u64, Update<Q::Change>)>,
    ) -> Vec<Report<Q::Key, Q::Payload>> {
        self.undo.clear();
        for (position, update) in updates {
            match update {
                Update::Add(change) => {
                    self.undo.push(Update::Retract(change.clone()));
                    self.query.apply([change]);
                }
                Update::Retract(change) => match self.query.__retract(change.clone()) {
                    Some(Ok(())) => self.undo.push(Update::Add(change)),
                    Some(Err(err)) => {
                        return vec![Report::Refused {
                            position,
                            reason: err.to_string(),
                        }];
                    }
                    None => {
                        return vec![Report::Refused {
                            position,
                            reason: "the query is maintained under inserts only".into(),
                        }];
                    }
                },
            }
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
