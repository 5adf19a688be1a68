//! Where a cluster's workers run: threads of this process, or threads of
//! several processes that reach each other over TCP.

/// The workers of a [`Cluster`](crate::Cluster).
///
/// ```
/// use ivm_timely::Topology;
///
/// let local = Topology::threads(2);
/// assert_eq!(local.workers(), 2);
///
/// // Process 0 of two, each with one worker thread; the other process
/// // runs the same program with index 1.
/// let hosts = vec!["127.0.0.1:4000".to_string(), "127.0.0.1:4001".to_string()];
/// let spread = Topology::processes(hosts, 0, 1);
/// assert_eq!(spread.workers(), 2);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Topology {
    /// `n` worker threads in this process (at least one).
    Threads(usize),
    /// One process of several, as timely's cluster configuration has it.
    Processes {
        /// Every process's `host:port`, in process order; the same list in
        /// every process.
        hosts: Vec<String>,
        /// This process's place in `hosts`. Process 0 drives the cluster.
        index: usize,
        /// Worker threads per process (at least one).
        threads: usize,
    },
}

impl Topology {
    /// `n` worker threads in this process.
    pub fn threads(n: usize) -> Topology {
        Topology::Threads(n)
    }

    /// Process `index` of the processes at `hosts`, each running `threads`
    /// worker threads.
    pub fn processes(hosts: Vec<String>, index: usize, threads: usize) -> Topology {
        Topology::Processes {
            hosts,
            index,
            threads,
        }
    }

    /// The number of workers in the whole cluster.
    pub fn workers(&self) -> usize {
        match self {
            Topology::Threads(n) => *n,
            Topology::Processes { hosts, threads, .. } => hosts.len() * threads,
        }
    }

    /// Whether this process drives the cluster (feeds its epochs and reads
    /// its results): process 0, or the only one.
    pub(crate) fn drives(&self) -> bool {
        match self {
            Topology::Threads(_) => true,
            Topology::Processes { index, .. } => *index == 0,
        }
    }

    /// Timely's configuration of the communication between its workers.
    pub(crate) fn communication(&self) -> timely::CommunicationConfig {
        match self {
            Topology::Threads(n) => timely::CommunicationConfig::Process(*n),
            Topology::Processes {
                hosts,
                index,
                threads,
            } => timely::CommunicationConfig::Cluster {
                threads: *threads,
                process: *index,
                addresses: hosts.clone(),
                report: false,
                zerocopy: false,
            },
        }
    }

    /// What is wrong with it, if anything.
    pub(crate) fn check(&self) -> Result<(), String> {
        match self {
            Topology::Threads(0) => Err("a cluster needs at least one worker thread".into()),
            Topology::Threads(_) => Ok(()),
            Topology::Processes { threads: 0, .. } => {
                Err("a cluster needs at least one worker thread per process".into())
            }
            Topology::Processes { hosts, index, .. } if *index >= hosts.len() => Err(format!(
                "process index {index} is outside the {} host(s) given",
                hosts.len()
            )),
            Topology::Processes { .. } => Ok(()),
        }
    }
}
