//! What travels between the driver and the workers, and between workers.
//!
//! One round is one timely epoch. Worker 0, on the driver's thread, sorts
//! the round's batch by the worker that holds each update's tuple (every
//! worker, for a replicated relation) and sends each worker one
//! [`Envelope`], which says what the round is ([`Round`]). Workers answer
//! with [`Report`]s, gathered at worker 0.

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

/// What worker 0 sends one worker in one round: the updates whose tuples
/// it holds, in batch order.
#[derive(Clone, Serialize, Deserialize)]
pub(crate) struct Envelope<C> {
    /// The worker it goes to.
    pub target: u32,
    /// The round's kind.
    pub round: Round,
    /// The updates.
    pub updates: Vec<Update<C>>,
    /// The places in the batch of the retractions among `updates`, in
    /// order (to name a refused one).
    pub retractions: Vec<u64>,
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
