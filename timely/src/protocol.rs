//! What travels between the driver and the workers, and between workers.
//!
//! One round is one timely epoch. The driver hands each worker thread of
//! process 0 a [`Command`]: a slice of the batch and, for the first of
//! them, what the round is ([`Round`]). That thread routes each update to
//! the worker that holds its tuple (every worker, for a replicated
//! relation) as an [`Envelope`], and sends the round's kind to every
//! worker. Workers answer with [`Report`]s, gathered at worker 0.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use ivm::View;

use crate::Update;

/// The reports of one round, gathered at worker 0.
pub(crate) type Reports<Q> = Vec<Report<<Q as View>::Key, <Q as View>::Payload>>;

/// What one round does on every worker.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) enum Round {
    /// Confirms that every worker is up (and has restored its state).
    Hello,
    /// Applies the round's updates. `guarded` when the batch holds a
    /// retraction: each worker then keeps what it applied, to take it
    /// back if any worker refuses one.
    Apply { guarded: bool },
    /// Takes back the last round's updates: one of them was refused.
    Abort,
    /// Reports the output tuples whose payload changed since the last
    /// pull (`View::changes`).
    Pull,
    /// Writes each worker's state to `dir`, named for `epoch`.
    Snapshot { dir: PathBuf, epoch: u64 },
}

/// What the driver hands one worker thread of process 0 for one round.
pub(crate) struct Command<C> {
    /// The round's kind, for the first thread to broadcast; `None` for the
    /// others.
    pub round: Option<Round>,
    /// A contiguous slice of the batch, each update with its place in it.
    pub updates: Vec<(u64, Update<C>)>,
}

/// One message of a round to one worker.
#[derive(Clone, Serialize, Deserialize)]
pub(crate) struct Envelope<C> {
    /// The worker it goes to.
    pub target: u32,
    /// What it carries.
    pub body: Body<C>,
}

/// What an [`Envelope`] carries.
#[derive(Clone, Serialize, Deserialize)]
pub(crate) enum Body<C> {
    /// The round's kind: one to each worker.
    Round(Round),
    /// An update, with its place in the batch (updates are applied in
    /// batch order, whichever thread routed them).
    Update(u64, Update<C>),
}

/// A worker's answer in one round, gathered at worker 0.
#[derive(Clone, Serialize, Deserialize)]
pub(crate) enum Report<K, P> {
    /// The worker is up (`Hello`) or wrote its snapshot (`Snapshot`).
    Done { worker: u32 },
    /// The worker refused the update at `position` of the batch, and
    /// stopped applying the batch.
    Refused { position: u64, reason: String },
    /// An output tuple's payload on this worker changed since the last
    /// pull: it is now `now`.
    Changed { worker: u32, key: K, now: P },
    /// The worker could not do what the round asked (restore or write
    /// its state).
    Failed { worker: u32, reason: String },
}
