//! [`Durable`] (the `serde` feature): a maintained query whose state
//! survives a crash, kept in a directory as a snapshot and a log.
//!
//! Every batch is appended to the log (and, by the [`SyncPolicy`], synced)
//! before it is applied; [`Durable::checkpoint`] writes a snapshot of the
//! whole state atomically and empties the log; [`Durable::open`] restores
//! the last snapshot and replays the log after it. What was acknowledged
//! (a call that returned `Ok` under [`SyncPolicy::EveryBatch`]) is never
//! lost; a batch whose call had not returned when the process died is
//! either wholly there or wholly absent.
//!
//! ```
//! use ivm::durable::Durable;
//! use ivm::semiring::Int;
//!
//! ivm::ivm_query! {
//!     pub query Revenue {
//!         relation Sales(store: u32, item: u64);
//!         relation Prices(store: u32, item: u64);
//!         Q(store) = Sales(store, item) * Prices(store, item);
//!     }
//! }
//!
//! let dir = std::env::temp_dir().join(format!("ivm-doc-durable-{}", std::process::id()));
//! # let _ = std::fs::remove_dir_all(&dir);
//! {
//!     let mut revenue = Durable::<Revenue>::open(&dir)?;
//!     revenue.apply([
//!         RevenueChange::Sales { store: 1, item: 7, delta: Int(3) },
//!         RevenueChange::Prices { store: 1, item: 7, delta: Int(250) },
//!     ])?;
//!     revenue.checkpoint()?;
//!     revenue.apply([RevenueChange::Sales { store: 1, item: 7, delta: Int(1) }])?;
//! } // The process may stop here, or die.
//!
//! let revenue = Durable::<Revenue>::open(&dir)?;
//! assert_eq!(revenue.get(&(1,)), Int(1000));
//! assert_eq!(revenue.recovery().replayed, 1);
//! # std::fs::remove_dir_all(&dir).unwrap();
//! # Ok::<(), ivm::durable::DurableError>(())
//! ```
//!
//! # Files
//!
//! - `snapshot`: `ivm-dura`, the number of log records it covers (8 bytes,
//!   little endian), a CRC-32 of those 16 bytes, then the query's snapshot
//!   ([`crate::snapshot`], with its own plan hash and checksum).
//! - `log`: `ivm-log1` and the query's plan hash (8 bytes), then one record
//!   per call: its length (4 bytes), the length's complement (4 bytes), a
//!   CRC-32 of the body (4 bytes), and the body: the record's sequence
//!   number and the batch, in postcard's form.
//! - `snapshot.tmp`: a checkpoint being written; removed by `open`.
//!
//! Each record carries its sequence number, so a crash between writing a
//! snapshot and emptying the log is harmless: `open` skips the records the
//! snapshot already covers.
//!
//! # Damage
//!
//! A log that ends inside a record (the process died while appending it)
//! is cut back to the last whole record, and [`Recovery::torn_tail`] says
//! where; nothing acknowledged is in that record. Anything else that does
//! not check out (a changed byte anywhere in either file, a record out of
//! sequence, a log or snapshot of another query) is a [`DurableError`]
//! naming the file and the byte offset, and nothing is opened.
//!
//! A batch whose application panics (an arithmetic overflow of `Int` or
//! `Count`) is taken back out of the log before the panic goes on, so
//! that the directory still opens, at the state before it; the query in
//! memory is then half-updated, and the directory should be reopened. A
//! record that panics at replay (the process died before taking it back)
//! is an error at its offset.

use std::fmt;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::ops::Deref;
use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::snapshot::{Snapshot, SnapshotError};
use crate::{Retract, View};

/// The first bytes of the `snapshot` file.
const SNAPSHOT_MAGIC: [u8; 8] = *b"ivm-dura";
/// The first bytes of the `log` file.
const LOG_MAGIC: [u8; 8] = *b"ivm-log1";
/// The log's header: magic and plan hash.
const LOG_HEADER: u64 = 16;
/// A record's header: length, its complement, checksum.
const RECORD_HEADER: usize = 12;

/// When the log is synced to the disk ([`File::sync_data`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum SyncPolicy {
    /// After every record, before the call returns: an acknowledged batch
    /// survives a crash of the machine, not only of the process.
    #[default]
    EveryBatch,
    /// After every `n`-th record (and at checkpoints): a crash of the
    /// machine may lose up to `n - 1` acknowledged batches, a crash of the
    /// process none.
    Every(u32),
    /// Never by this wrapper (the operating system writes back when it
    /// will): a crash of the machine may lose any suffix of the log; a
    /// crash of the process loses nothing.
    Never,
}

/// What [`Durable::open`] found and did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Recovery {
    /// Whether a snapshot was restored (otherwise the query started empty).
    pub snapshot: bool,
    /// Log records applied after the snapshot.
    pub replayed: u64,
    /// Log records the snapshot already covered, skipped.
    pub skipped: u64,
    /// Where the log ended inside a record, if it did: the offset of that
    /// record and the bytes cut from there.
    pub torn_tail: Option<(u64, u64)>,
}

/// Why a [`Durable`] could not open, log, apply or checkpoint.
#[non_exhaustive]
#[derive(Debug)]
pub enum DurableError {
    /// A file operation failed.
    Io {
        /// The file or directory.
        path: PathBuf,
        /// What the operating system said.
        source: io::Error,
    },
    /// The snapshot in `snapshot` could not be restored.
    Snapshot {
        /// The snapshot file.
        path: PathBuf,
        /// Why (its offsets count from the query snapshot's first byte,
        /// at offset 20 of the file).
        source: SnapshotError,
    },
    /// A file does not check out: a changed byte, a record out of
    /// sequence, or the files of another query.
    Corrupt {
        /// The file.
        path: PathBuf,
        /// The byte offset of the damage (of the record that holds it).
        offset: u64,
        /// What is wrong.
        what: String,
    },
    /// The query refused a retraction ([`Retract::retract`]): the state is
    /// unchanged.
    Rejected(crate::Error),
}

impl fmt::Display for DurableError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DurableError::Io { path, source } => write!(f, "{}: {source}", path.display()),
            DurableError::Snapshot { path, source } => write!(f, "{}: {source}", path.display()),
            DurableError::Corrupt { path, offset, what } => write!(
                f,
                "{} is damaged at byte {offset}: {what}; restore the directory from a backup, \
                 or remove the damaged file to start from what remains",
                path.display()
            ),
            DurableError::Rejected(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for DurableError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            DurableError::Io { source, .. } => Some(source),
            DurableError::Snapshot { source, .. } => Some(source),
            DurableError::Rejected(e) => Some(e),
            DurableError::Corrupt { .. } => None,
        }
    }
}

/// An I/O error at `path`.
fn io_at(path: &Path) -> impl FnOnce(io::Error) -> DurableError + '_ {
    move |source| DurableError::Io {
        path: path.to_owned(),
        source,
    }
}

/// One call, as the log keeps it.
#[derive(Serialize, Deserialize)]
#[serde(bound(serialize = "C: Serialize", deserialize = "C: Deserialize<'de>"))]
enum Call<C> {
    /// [`View::apply`] of a batch.
    Apply(Vec<C>),
    /// [`Retract::retract`] of one change.
    Retract(C),
}

/// A record: its sequence number and its call.
#[derive(Serialize, Deserialize)]
#[serde(bound(serialize = "C: Serialize", deserialize = "C: Deserialize<'de>"))]
struct Record<C> {
    seq: u64,
    call: Call<C>,
}

/// A generated query kept durable in a directory: every batch is logged
/// before it is applied, checkpoints snapshot the whole state, and
/// [`open`](Self::open) brings back exactly what was logged.
///
/// Reads go to the query itself: `Durable<Q>` dereferences to `Q`.
pub struct Durable<Q> {
    query: Q,
    dir: PathBuf,
    log: File,
    log_len: u64,
    /// The sequence number of the next record: the number of calls the
    /// state holds.
    next: u64,
    policy: SyncPolicy,
    /// Records appended since the log was last synced.
    unsynced: u32,
    recovery: Recovery,
}

impl<Q> Durable<Q>
where
    Q: View + Snapshot,
    Q::Change: Serialize + DeserializeOwned,
{
    /// Opens (creating it if need be) the directory `dir` with
    /// [`SyncPolicy::EveryBatch`]: restores the last snapshot and replays
    /// the log after it.
    ///
    /// # Errors
    ///
    /// [`DurableError::Io`] when the files cannot be read or written;
    /// [`DurableError::Snapshot`] or [`DurableError::Corrupt`] when they
    /// are damaged or belong to another query.
    pub fn open(dir: impl AsRef<Path>) -> Result<Self, DurableError> {
        Self::open_with(dir, SyncPolicy::default())
    }

    /// [`open`](Self::open) with the given sync policy.
    ///
    /// # Errors
    ///
    /// As [`open`](Self::open).
    pub fn open_with(dir: impl AsRef<Path>, policy: SyncPolicy) -> Result<Self, DurableError> {
        let dir = dir.as_ref().to_owned();
        fs::create_dir_all(&dir).map_err(io_at(&dir))?;
        let tmp = dir.join("snapshot.tmp");
        match fs::remove_file(&tmp) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(io_at(&tmp)(e)),
            _ => {}
        }
        let mut recovery = Recovery::default();
        let (mut query, covered) = match read_snapshot::<Q>(&dir.join("snapshot"))? {
            Some(found) => {
                recovery.snapshot = true;
                found
            }
            None => (Q::default(), 0),
        };
        let log_path = dir.join("log");
        // Appending: every write goes to the end, wherever a checkpoint or
        // a torn tail last set it.
        let mut log = OpenOptions::new()
            .read(true)
            .append(true)
            .create(true)
            .open(&log_path)
            .map_err(io_at(&log_path))?;
        let mut bytes = Vec::new();
        log.read_to_end(&mut bytes).map_err(io_at(&log_path))?;
        let mut next = covered;
        let log_len = if (bytes.len() as u64) < LOG_HEADER {
            // New, or cut short while its header was written: no record
            // can be in it.
            write_log_header::<Q>(&mut log, &log_path)?;
            LOG_HEADER
        } else {
            check_log_header::<Q>(&bytes, &log_path)?;
            let end = replay(&mut query, &bytes, &log_path, &mut next, &mut recovery)?;
            if end < bytes.len() as u64 {
                recovery.torn_tail = Some((end, bytes.len() as u64 - end));
                log.set_len(end).map_err(io_at(&log_path))?;
                log.sync_all().map_err(io_at(&log_path))?;
            }
            end
        };
        Ok(Durable {
            query,
            dir,
            log,
            log_len,
            next,
            policy,
            unsynced: 0,
            recovery,
        })
    }

    /// Logs the batch, then applies it ([`View::apply`]).
    ///
    /// # Errors
    ///
    /// [`DurableError::Io`] when the log cannot be written; the state is
    /// unchanged then.
    pub fn apply<I: IntoIterator<Item = Q::Change>>(
        &mut self,
        batch: I,
    ) -> Result<(), DurableError> {
        let batch: Vec<Q::Change> = batch.into_iter().collect();
        let start = self.log_len;
        let Call::Apply(batch) = self.append(Call::Apply(batch))? else {
            unreachable!("a batch was logged")
        };
        // A batch that panics (arithmetic overflow in `Int` or `Count`)
        // would panic again at every replay and keep the directory from
        // opening: it leaves the log before the panic goes on. The query
        // in memory is then half-updated; reopen the directory.
        let applied = panic::catch_unwind(AssertUnwindSafe(|| self.query.apply(batch)));
        if let Err(cause) = applied {
            self.take_back(start);
            panic::resume_unwind(cause);
        }
        Ok(())
    }

    /// Takes the last record back out of the log (it starts at `start`).
    fn take_back(&mut self, start: u64) {
        let _ = self.log.set_len(start).and_then(|()| self.log.sync_all());
        self.log_len = start;
        self.next -= 1;
    }

    /// Logs the retraction, then makes it ([`Retract::retract`]).
    ///
    /// # Errors
    ///
    /// [`DurableError::Io`] when the log cannot be written, and
    /// [`DurableError::Rejected`] when the query refuses the retraction (no
    /// such contribution is alive); the state is unchanged either way. A
    /// refused retraction stays in the log and is refused again on replay.
    pub fn retract(&mut self, change: Q::Change) -> Result<(), DurableError>
    where
        Q: Retract,
    {
        let start = self.log_len;
        let Call::Retract(change) = self.append(Call::Retract(change))? else {
            unreachable!("a retraction was logged")
        };
        match panic::catch_unwind(AssertUnwindSafe(|| self.query.retract(change))) {
            Ok(done) => done.map_err(DurableError::Rejected),
            Err(cause) => {
                self.take_back(start);
                panic::resume_unwind(cause)
            }
        }
    }

    /// Writes a snapshot of the whole state atomically (a temporary file,
    /// synced, renamed over the last one) and empties the log.
    ///
    /// # Errors
    ///
    /// [`DurableError::Io`] when a file cannot be written; the last
    /// snapshot and the log are then as they were, and still restore the
    /// current state.
    pub fn checkpoint(&mut self) -> Result<(), DurableError> {
        let tmp = self.dir.join("snapshot.tmp");
        let path = self.dir.join("snapshot");
        let mut file = File::create(&tmp).map_err(io_at(&tmp))?;
        let mut header = Vec::with_capacity(20);
        header.extend_from_slice(&SNAPSHOT_MAGIC);
        header.extend_from_slice(&self.next.to_le_bytes());
        let crc = crc32fast::hash(&header);
        header.extend_from_slice(&crc.to_le_bytes());
        let mut out = io::BufWriter::new(&mut file);
        out.write_all(&header).map_err(io_at(&tmp))?;
        self.query.snapshot(&mut out).map_err(|e| match e {
            SnapshotError::Io(source) => io_at(&tmp)(source),
            source => DurableError::Snapshot {
                path: tmp.clone(),
                source,
            },
        })?;
        drop(out);
        file.sync_all().map_err(io_at(&tmp))?;
        drop(file);
        fs::rename(&tmp, &path).map_err(io_at(&path))?;
        sync_dir(&self.dir)?;
        // The snapshot covers every record: a crash from here on replays
        // none of them (they are skipped by sequence number).
        let log_path = self.dir.join("log");
        self.log.set_len(LOG_HEADER).map_err(io_at(&log_path))?;
        self.log.sync_all().map_err(io_at(&log_path))?;
        self.log_len = LOG_HEADER;
        self.unsynced = 0;
        Ok(())
    }

    /// Syncs the log now, whatever the policy.
    ///
    /// # Errors
    ///
    /// [`DurableError::Io`] when the sync fails.
    pub fn sync(&mut self) -> Result<(), DurableError> {
        self.log.sync_data().map_err(io_at(&self.dir.join("log")))?;
        self.unsynced = 0;
        Ok(())
    }

    /// The output tuples whose payload changed since the previous call
    /// ([`View::changes`]); the first call after `open` reports the whole
    /// result.
    pub fn changes(&mut self) -> impl Iterator<Item = (Q::Key, Q::Payload, Q::Payload)> + '_ {
        self.query.changes()
    }

    /// The number of calls (batches and retractions, refused ones too) the
    /// state holds since the directory was created.
    pub fn sequence(&self) -> u64 {
        self.next
    }

    /// What [`open`](Self::open) found.
    pub fn recovery(&self) -> &Recovery {
        &self.recovery
    }

    /// The bytes of the log: its header and the records since the last
    /// checkpoint.
    pub fn log_len(&self) -> u64 {
        self.log_len
    }

    /// The query, no longer logged.
    pub fn into_inner(self) -> Q {
        self.query
    }

    /// Appends one record and syncs by the policy; gives the call back
    /// to be made.
    fn append(&mut self, call: Call<Q::Change>) -> Result<Call<Q::Change>, DurableError> {
        let log_path = self.dir.join("log");
        let record = Record {
            seq: self.next,
            call,
        };
        let body = postcard::to_stdvec(&record).map_err(|e| DurableError::Corrupt {
            path: log_path.clone(),
            offset: self.log_len,
            what: format!("the batch cannot be encoded: {e}"),
        })?;
        let len = u32::try_from(body.len()).map_err(|_| DurableError::Corrupt {
            path: log_path.clone(),
            offset: self.log_len,
            what: "a batch of 4 GiB or more cannot be logged; split it".to_owned(),
        })?;
        let mut bytes = Vec::with_capacity(RECORD_HEADER + body.len());
        bytes.extend_from_slice(&len.to_le_bytes());
        bytes.extend_from_slice(&(!len).to_le_bytes());
        bytes.extend_from_slice(&crc32fast::hash(&body).to_le_bytes());
        bytes.extend_from_slice(&body);
        if let Err(source) = self.log.write_all(&bytes) {
            // Take back whatever part was written, so that the next record
            // starts where this one did.
            let _ = self.log.set_len(self.log_len);
            return Err(DurableError::Io {
                path: log_path,
                source,
            });
        }
        self.log_len += bytes.len() as u64;
        self.unsynced += 1;
        let due = match self.policy {
            SyncPolicy::EveryBatch => true,
            SyncPolicy::Every(n) => self.unsynced >= n.max(1),
            SyncPolicy::Never => false,
        };
        if due {
            self.sync()?;
        }
        self.next += 1;
        Ok(record.call)
    }
}

impl<Q> Deref for Durable<Q> {
    type Target = Q;

    fn deref(&self) -> &Q {
        &self.query
    }
}

/// Syncs a directory, so that a rename in it is on the disk.
fn sync_dir(dir: &Path) -> Result<(), DurableError> {
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(io_at(dir))
}

/// Reads the `snapshot` file, if there is one: the query and the number of
/// records it covers.
fn read_snapshot<Q: Snapshot>(path: &Path) -> Result<Option<(Q, u64)>, DurableError> {
    let file = match File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io_at(path)(e)),
    };
    let mut reader = io::BufReader::new(file);
    let mut header = [0u8; 20];
    let mut filled = 0;
    while filled < header.len() {
        match reader.read(&mut header[filled..]) {
            Ok(0) => {
                return Err(corrupt(
                    path,
                    filled as u64,
                    "the file ends inside its 20-byte header",
                ));
            }
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(io_at(path)(e)),
        }
    }
    if header[..8] != SNAPSHOT_MAGIC {
        return Err(corrupt(path, 0, "not a snapshot of `ivm::durable`"));
    }
    let crc = u32::from_le_bytes(header[16..20].try_into().expect("4 bytes"));
    if crc32fast::hash(&header[..16]) != crc {
        return Err(corrupt(path, 16, "the header does not match its checksum"));
    }
    let covered = u64::from_le_bytes(header[8..16].try_into().expect("8 bytes"));
    let query = Q::restore(&mut reader).map_err(|source| match source {
        SnapshotError::Io(source) => io_at(path)(source),
        source => DurableError::Snapshot {
            path: path.to_owned(),
            source,
        },
    })?;
    let mut rest = [0u8; 1];
    match reader.read(&mut rest) {
        Ok(0) => Ok(Some((query, covered))),
        Ok(_) => Err(corrupt(
            path,
            20,
            "bytes follow the query's snapshot, which should end the file",
        )),
        Err(e) => Err(io_at(path)(e)),
    }
}

/// A [`DurableError::Corrupt`].
fn corrupt(path: &Path, offset: u64, what: &str) -> DurableError {
    DurableError::Corrupt {
        path: path.to_owned(),
        offset,
        what: what.to_owned(),
    }
}

/// Writes the header of an empty log.
fn write_log_header<Q: Snapshot>(log: &mut File, path: &Path) -> Result<(), DurableError> {
    log.set_len(0).map_err(io_at(path))?;
    let mut header = Vec::with_capacity(LOG_HEADER as usize);
    header.extend_from_slice(&LOG_MAGIC);
    header.extend_from_slice(&Q::PLAN.to_le_bytes());
    log.write_all(&header).map_err(io_at(path))?;
    log.sync_all().map_err(io_at(path))
}

/// Checks that the log is one of this query's.
fn check_log_header<Q: Snapshot>(bytes: &[u8], path: &Path) -> Result<(), DurableError> {
    if bytes[..8] != LOG_MAGIC {
        return Err(corrupt(path, 0, "not a log of `ivm::durable`"));
    }
    let plan = u64::from_le_bytes(bytes[8..16].try_into().expect("8 bytes"));
    if plan != Q::PLAN {
        return Err(corrupt(
            path,
            8,
            &format!(
                "the log belongs to another plan (hash {plan:#018x}) than `{}`'s ({:#018x})",
                Q::QUERY,
                Q::PLAN
            ),
        ));
    }
    Ok(())
}

/// Applies the log's records after the snapshot (`next` is the first
/// sequence number it lacks) and returns where the last whole record ends.
fn replay<Q>(
    query: &mut Q,
    bytes: &[u8],
    path: &Path,
    next: &mut u64,
    recovery: &mut Recovery,
) -> Result<u64, DurableError>
where
    Q: View + Snapshot,
    Q::Change: DeserializeOwned,
{
    let mut at = LOG_HEADER as usize;
    while at < bytes.len() {
        let Some(header) = bytes.get(at..at + RECORD_HEADER) else {
            break;
        };
        let word = |i: usize| u32::from_le_bytes(header[i..i + 4].try_into().expect("4 bytes"));
        let (len, check, crc) = (word(0), word(4), word(8));
        if check != !len {
            return Err(corrupt(
                path,
                at as u64,
                "a record's length does not match its complement",
            ));
        }
        let start = at + RECORD_HEADER;
        let Some(body) = bytes.get(start..start + len as usize) else {
            // The process died while appending this record.
            break;
        };
        if crc32fast::hash(body) != crc {
            return Err(corrupt(
                path,
                at as u64,
                "a record does not match its checksum",
            ));
        }
        let record: Record<Q::Change> = postcard::from_bytes(body).map_err(|e| {
            corrupt(
                path,
                at as u64,
                &format!("a record passed its checksum but is not a call of this query: {e}"),
            )
        })?;
        if record.seq < *next {
            recovery.skipped += 1;
        } else if record.seq == *next {
            // A record whose call panics (it overflowed, and the process
            // died before taking it back) is an error, not a panic.
            let made = panic::catch_unwind(AssertUnwindSafe(|| match record.call {
                Call::Apply(batch) => {
                    query.apply(batch);
                    true
                }
                // Refused when it was made, refused again: the state
                // stays as it was then too.
                Call::Retract(change) => query.__retract(change).is_some(),
            }));
            match made {
                Ok(true) => {}
                Ok(false) => {
                    return Err(corrupt(
                        path,
                        at as u64,
                        "a retraction in the log of a query that takes none",
                    ));
                }
                Err(_) => {
                    return Err(corrupt(
                        path,
                        at as u64,
                        "replaying this record panicked (an arithmetic overflow?)",
                    ));
                }
            }
            *next += 1;
            recovery.replayed += 1;
        } else {
            return Err(corrupt(
                path,
                at as u64,
                &format!(
                    "record {} follows record {}: the records between are missing",
                    record.seq,
                    *next - 1
                ),
            ));
        }
        at = start + len as usize;
    }
    Ok(at as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::semiring::Int;

    ivm::ivm_query! {
        query Ledger {
            relation R(a: u32, b: u32);
            relation S(a: u32, c: u32);
            Q(a) = R(a, b) * S(a, c);
        }
    }

    ivm::ivm_query! {
        #[updates(insert_only)]
        query Seen {
            relation E(a: u32, b: u32);
            Q(a) = E(a, b);
        }
    }

    /// A fresh directory under the system's temporary one.
    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("ivm-durable-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        dir
    }

    fn rows(q: &Ledger) -> Vec<((u32,), Int)> {
        let mut v: Vec<_> = q.iter().collect();
        v.sort();
        v
    }

    /// The `i`-th call of a test stream.
    fn call(d: &mut Durable<Ledger>, i: u32) -> Result<(), DurableError> {
        if i % 5 == 4 {
            d.retract(LedgerChange::R {
                a: i % 3,
                b: (i - 4) % 11,
                delta: Int(1),
            })
        } else {
            d.apply([
                LedgerChange::R {
                    a: i % 3,
                    b: i % 11,
                    delta: Int(1),
                },
                LedgerChange::S {
                    a: i % 3,
                    c: i,
                    delta: Int(i64::from(i % 4) - 1),
                },
            ])
        }
    }

    /// The same calls on a plain query.
    fn plain(calls: u32) -> Ledger {
        let dir = scratch(&format!("plain-{calls}"));
        let mut d = Durable::<Ledger>::open_with(&dir, SyncPolicy::Never).unwrap();
        for i in 0..calls {
            let _ = call(&mut d, i);
        }
        fs::remove_dir_all(&dir).unwrap();
        d.into_inner()
    }

    #[test]
    fn reopen_replays_the_log_after_the_snapshot() {
        let dir = scratch("reopen");
        let mut d = Durable::<Ledger>::open(&dir).unwrap();
        for i in 0..30 {
            let _ = call(&mut d, i);
            if i == 12 {
                d.checkpoint().unwrap();
            }
        }
        let want = rows(&d);
        drop(d);
        let d = Durable::<Ledger>::open(&dir).unwrap();
        assert_eq!(rows(&d), want);
        assert_eq!(rows(&d), rows(&plain(30)));
        assert_eq!(d.sequence(), 30);
        assert_eq!(
            d.recovery(),
            &Recovery {
                snapshot: true,
                replayed: 17,
                skipped: 0,
                torn_tail: None
            }
        );
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_refused_retraction_changes_nothing_then_or_on_replay() {
        let dir = scratch("refused");
        let mut d = Durable::<Ledger>::open(&dir).unwrap();
        let gone = LedgerChange::R {
            a: 9,
            b: 9,
            delta: Int(1),
        };
        assert!(matches!(
            d.retract(gone),
            Err(DurableError::Rejected(crate::Error::AbsentTuple {
                relation: "R"
            }))
        ));
        let _ = call(&mut d, 0);
        let want = rows(&d);
        drop(d);
        let d = Durable::<Ledger>::open(&dir).unwrap();
        assert_eq!(rows(&d), want);
        assert_eq!(d.sequence(), 2);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_crash_between_snapshot_and_log_skips_what_the_snapshot_holds() {
        let dir = scratch("between");
        let mut d = Durable::<Ledger>::open(&dir).unwrap();
        for i in 0..10 {
            let _ = call(&mut d, i);
        }
        // The log as it was before the checkpoint emptied it.
        let log = fs::read(dir.join("log")).unwrap();
        d.checkpoint().unwrap();
        drop(d);
        fs::write(dir.join("log"), &log).unwrap();
        let d = Durable::<Ledger>::open(&dir).unwrap();
        assert_eq!(rows(&d), rows(&plain(10)));
        assert_eq!(d.recovery().skipped, 10);
        assert_eq!(d.recovery().replayed, 0);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_log_cut_anywhere_opens_at_the_last_whole_record() {
        let dir = scratch("cut");
        let mut d = Durable::<Ledger>::open(&dir).unwrap();
        let mut ends = vec![d.log_len()];
        for i in 0..8 {
            let _ = call(&mut d, i);
            ends.push(d.log_len());
        }
        drop(d);
        let log = fs::read(dir.join("log")).unwrap();
        for cut in 0..=log.len() {
            fs::write(dir.join("log"), &log[..cut]).unwrap();
            let d = Durable::<Ledger>::open(&dir).unwrap();
            // Whole records up to the cut, and nothing of a partial one.
            let whole = ends.iter().filter(|&&e| e as usize <= cut).count();
            let calls = whole.saturating_sub(1) as u32;
            assert_eq!(d.sequence(), u64::from(calls), "cut at {cut}");
            assert_eq!(rows(&d), rows(&plain(calls)), "cut at {cut}");
            let torn = cut >= LOG_HEADER as usize && !ends.contains(&(cut as u64));
            assert_eq!(d.recovery().torn_tail.is_some(), torn, "cut at {cut}");
            // The cut was taken back: the next append starts clean.
            assert!(fs::metadata(dir.join("log")).unwrap().len() <= cut.max(16) as u64);
        }
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_flipped_byte_in_the_log_or_the_snapshot_is_an_error() {
        let dir = scratch("flip");
        let mut d = Durable::<Ledger>::open(&dir).unwrap();
        for i in 0..6 {
            let _ = call(&mut d, i);
        }
        d.checkpoint().unwrap();
        for i in 6..10 {
            let _ = call(&mut d, i);
        }
        drop(d);
        for file in ["log", "snapshot"] {
            let good = fs::read(dir.join(file)).unwrap();
            for at in 0..good.len() {
                let mut bad = good.clone();
                bad[at] ^= 0x04;
                fs::write(dir.join(file), &bad).unwrap();
                match Durable::<Ledger>::open(&dir) {
                    Err(
                        DurableError::Corrupt { path, .. } | DurableError::Snapshot { path, .. },
                    ) => {
                        assert!(path.ends_with(file));
                    }
                    Err(e) => panic!("{file} byte {at}: {e}"),
                    Ok(_) => panic!("{file} byte {at}: opened"),
                }
            }
            fs::write(dir.join(file), &good).unwrap();
        }
        // A snapshot cut short is an error too.
        let good = fs::read(dir.join("snapshot")).unwrap();
        for cut in 0..good.len() {
            fs::write(dir.join("snapshot"), &good[..cut]).unwrap();
            assert!(
                Durable::<Ledger>::open(&dir).is_err(),
                "snapshot cut at {cut}"
            );
        }
        fs::remove_dir_all(&dir).unwrap();
    }

    ivm::ivm_query! {
        #[semiring(ivm::semiring::Count)]
        query Tally {
            relation E(a: u32, b: u32);
            Q(a) = E(a, b);
        }
    }

    #[test]
    fn a_batch_that_overflows_leaves_the_log() {
        let dir = scratch("overflow");
        let mut d = Durable::<Tally>::open(&dir).unwrap();
        let big = |n| TallyChange::E {
            a: 1,
            b: 2,
            delta: crate::semiring::Count(n),
        };
        d.apply([big(u64::MAX - 1)]).unwrap();
        let len = d.log_len();
        let overflow = std::panic::catch_unwind(AssertUnwindSafe(|| d.apply([big(5)])));
        assert!(overflow.is_err(), "the overflow panics");
        assert_eq!(d.log_len(), len, "the batch left the log");
        drop(d);
        let d = Durable::<Tally>::open(&dir).unwrap();
        assert_eq!(d.get(&(1,)), crate::semiring::Count(u64::MAX - 1));
        assert_eq!(d.sequence(), 1);
        drop(d);
        // What a process that died before taking such a batch back
        // leaves: the record is an error at its offset, not a panic.
        let log = dir.join("log");
        let mut bytes = fs::read(&log).unwrap();
        let at = bytes.len() as u64;
        let body = postcard::to_stdvec(&Record {
            seq: 1,
            call: Call::Apply(vec![big(5)]),
        })
        .unwrap();
        let len = body.len() as u32;
        bytes.extend_from_slice(&len.to_le_bytes());
        bytes.extend_from_slice(&(!len).to_le_bytes());
        bytes.extend_from_slice(&crc32fast::hash(&body).to_le_bytes());
        bytes.extend_from_slice(&body);
        fs::write(&log, &bytes).unwrap();
        let quiet = std::panic::take_hook();
        std::panic::set_hook(Box::new(|_| {}));
        let opened = Durable::<Tally>::open(&dir);
        std::panic::set_hook(quiet);
        match opened {
            Err(DurableError::Corrupt { offset, what, .. }) => {
                assert_eq!(offset, at);
                assert!(what.contains("panicked"), "{what}");
            }
            Err(e) => panic!("another error: {e}"),
            Ok(_) => panic!("opened"),
        }
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn another_querys_files_are_refused() {
        let dir = scratch("other");
        let mut d = Durable::<Ledger>::open(&dir).unwrap();
        let _ = call(&mut d, 0);
        drop(d);
        let err = Durable::<Seen>::open(&dir).err().unwrap();
        assert!(err.to_string().contains("another plan"), "{err}");
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn an_insert_only_query_keeps_its_state_without_base_relations() {
        let dir = scratch("insert-only");
        let mut d = Durable::<Seen>::open(&dir).unwrap();
        d.apply((0..20).map(|i| SeenChange::E {
            a: i % 4,
            b: i,
            delta: Int(1),
        }))
        .unwrap();
        d.checkpoint().unwrap();
        d.apply([SeenChange::E {
            a: 0,
            b: 99,
            delta: Int(1),
        }])
        .unwrap();
        drop(d);
        let d = Durable::<Seen>::open(&dir).unwrap();
        assert_eq!(d.get(&(0,)), Int(6));
        assert_eq!(d.get(&(3,)), Int(5));
        fs::remove_dir_all(&dir).unwrap();
    }
}
