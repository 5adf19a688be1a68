//! What a cluster's call returns when it fails.

use std::fmt;
use std::io;

/// Why a [`Cluster`](crate::Cluster) call failed, and what state it left.
#[non_exhaustive]
#[derive(Debug)]
pub enum ClusterError {
    /// Timely could not start the workers (a port in use, a host that does
    /// not answer, a topology that makes no sense).
    Start(String),
    /// An update of the epoch was refused: a retraction of a contribution
    /// that is not alive. Nothing of the epoch changed on any worker.
    Refused {
        /// The update's place in the batch given to `apply`, from 0.
        position: usize,
        /// Why, as the maintained struct said it.
        reason: String,
    },
    /// The epoch holds a retraction, and the query is maintained under
    /// inserts only. Nothing changed.
    NoRetractions,
    /// A worker stopped (its thread panicked, or its process or the
    /// connection to it went away). The cluster cannot go on: shut it down
    /// and restore a new one from the last snapshot, then replay the
    /// epochs after it.
    Lost,
    /// The call reads or feeds the cluster, and this process is not
    /// process 0, which drives it: here call only `shutdown`.
    NotDriver,
    /// A worker could not write or read its part of a snapshot; for a
    /// write, the last complete snapshot is still the one that restores.
    Snapshot {
        /// The worker, from 0.
        worker: usize,
        /// What went wrong.
        reason: String,
    },
    /// A snapshot's manifest could not be read or written.
    Io(io::Error),
    /// The snapshot's manifest does not fit this cluster: it is damaged,
    /// or was taken with another number of workers (the partition of the
    /// state depends on it).
    Manifest(String),
}

impl fmt::Display for ClusterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClusterError::Start(why) => write!(f, "cannot start the cluster: {why}"),
            ClusterError::Refused { position, reason } => write!(
                f,
                "update {position} of the epoch was refused, and nothing of the epoch was \
                 applied: {reason}"
            ),
            ClusterError::NoRetractions => write!(
                f,
                "the epoch retracts an update, and the query is maintained under inserts \
                 only; declare it `#[updates(insert_delete)]` to take retractions"
            ),
            ClusterError::Lost => write!(
                f,
                "a worker of the cluster stopped; shut the cluster down, restore it from \
                 the last snapshot and replay the epochs after it"
            ),
            ClusterError::NotDriver => write!(
                f,
                "only process 0 feeds and reads the cluster; in this process call \
                 `shutdown`, which returns when process 0 shuts the cluster down"
            ),
            ClusterError::Snapshot { worker, reason } => {
                write!(f, "worker {worker}'s part of the snapshot failed: {reason}")
            }
            ClusterError::Io(err) => write!(f, "snapshot manifest: {err}"),
            ClusterError::Manifest(why) => write!(f, "snapshot manifest: {why}"),
        }
    }
}

impl std::error::Error for ClusterError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ClusterError::Io(err) => Some(err),
            _ => None,
        }
    }
}

impl From<io::Error> for ClusterError {
    fn from(err: io::Error) -> Self {
        ClusterError::Io(err)
    }
}
