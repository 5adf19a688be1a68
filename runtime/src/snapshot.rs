//! Snapshots (the `serde` feature): the whole maintained state of a
//! generated query, written to bytes and read back.
//!
//! Every struct the compiler generates implements [`Snapshot`] and has the
//! inherent methods `snapshot(writer)` and `restore(reader)`. A snapshot
//! holds everything the query maintains: base relations, views, indexes,
//! partitions and their thresholds, so a restored query answers and
//! continues exactly as the original would, and a query that keeps no base
//! relation (inserts only) restores too. Restoring costs one pass over the
//! bytes and one hash insert per entry; no view is recomputed.
//!
//! ```
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
//! let mut q = Revenue::new();
//! q.insert_sales(1, 7);
//! q.update_prices(1, 7, Int(250));
//!
//! let mut bytes = Vec::new();
//! q.snapshot(&mut bytes)?;
//! let mut back = Revenue::restore(&bytes[..])?;
//! assert_eq!(back.get(&(1,)), Int(250));
//!
//! // The restored query goes on where the original stopped.
//! back.insert_sales(1, 7);
//! assert_eq!(back.get(&(1,)), Int(500));
//! # Ok::<(), ivm::snapshot::SnapshotError>(())
//! ```
//!
//! # Format
//!
//! | bytes | what |
//! |---|---|
//! | 8 | `ivm-snap` |
//! | 4 | the format version, [`FORMAT`] (little endian) |
//! | 8 | the plan hash, [`Snapshot::PLAN`] (little endian) |
//! | 8 | the body's length in bytes (little endian) |
//! | length | the body: the struct's fields in declaration order, in postcard's form |
//! | 4 | a CRC-32 of every byte before it (little endian) |
//!
//! The plan hash is computed by the compiler from a canonical text of the
//! query's plan (its maintenance IR and column types, and a version of the
//! state layout the compiler gives that IR), so a snapshot restores only
//! into a struct that keeps the same state, whichever build of the
//! compiler made it: any other is refused with
//! [`SnapshotError::OtherPlan`] before a byte of the body is read. The
//! format version changes whenever a runtime type changes its serialized
//! form. The checksum makes a flipped byte an error, never a silently wrong
//! state.

use std::fmt;
use std::io::{self, Read, Write};

use serde::Serialize;
use serde::de::DeserializeOwned;

/// The version of the snapshot format this runtime writes and reads.
///
/// 2: IVMε's partitions keep each value's tuples in a map of their own,
/// and its views range over pairs of heavy values.
/// 3: a relation kept as fingerprints keeps 96 bits of each, and counts
/// copies in a `u32`.
pub const FORMAT: u32 = 3;

/// The first bytes of every snapshot.
const MAGIC: [u8; 8] = *b"ivm-snap";

/// The header's length: magic, format, plan hash and body length.
const HEADER: u64 = 8 + 4 + 8 + 8;

/// A generated query whose maintained state can be written out and read
/// back: implemented by every struct the compiler generates when `ivm`'s
/// `serde` feature is on.
///
/// Generated structs also have the two methods inherently, so
/// `query.snapshot(writer)` needs no import.
pub trait Snapshot: Serialize + DeserializeOwned {
    /// The query's name, for error messages.
    const QUERY: &'static str;

    /// A hash of the compiled plan (of the code generated for the query):
    /// a snapshot restores only into a struct with the same hash.
    const PLAN: u64;

    /// Writes the whole maintained state to `writer`.
    ///
    /// # Errors
    ///
    /// [`SnapshotError::Io`] when `writer` fails.
    fn snapshot<W: Write>(&self, writer: W) -> Result<(), SnapshotError> {
        write(self, Self::PLAN, writer)
    }

    /// Reads one snapshot, written by [`snapshot`](Self::snapshot) of the
    /// same query, from `reader` (which may hold more bytes after it).
    ///
    /// # Errors
    ///
    /// When the bytes are no snapshot, of another format or another plan,
    /// cut short or damaged: see [`SnapshotError`]. Nothing is restored
    /// then.
    fn restore<R: Read>(reader: R) -> Result<Self, SnapshotError> {
        read(reader, Self::QUERY, Self::PLAN)
    }
}

/// Why a snapshot could not be written or restored. Each variant says
/// where in the bytes the problem is.
#[non_exhaustive]
#[derive(Debug)]
pub enum SnapshotError {
    /// Reading or writing failed.
    Io(io::Error),
    /// The bytes do not start as a snapshot does.
    NotASnapshot,
    /// The snapshot was written in another format version.
    Format {
        /// The version in the snapshot.
        found: u32,
        /// The version this runtime reads, [`FORMAT`].
        expected: u32,
    },
    /// The snapshot was taken of another query, or of the same query
    /// compiled into other code.
    OtherPlan {
        /// The query restoring it.
        query: &'static str,
        /// The plan hash in the snapshot.
        found: u64,
        /// The plan hash of `query`.
        expected: u64,
    },
    /// The bytes end before the snapshot does.
    Truncated {
        /// How many bytes there were.
        at: u64,
        /// How many the snapshot needs.
        needed: u64,
    },
    /// The checksum does not match the bytes: some byte before `at` was
    /// changed.
    Checksum {
        /// Where the checksum is: it covers every byte before.
        at: u64,
    },
    /// The body passed its checksum but is not a state of this query.
    Decode {
        /// What the decoder said.
        reason: String,
    },
}

impl fmt::Display for SnapshotError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SnapshotError::Io(e) => write!(f, "snapshot I/O failed: {e}"),
            SnapshotError::NotASnapshot => write!(
                f,
                "not an ivm snapshot: the first 8 bytes are not `ivm-snap`; restore from bytes \
                 that `snapshot` wrote"
            ),
            SnapshotError::Format { found, expected } => write!(
                f,
                "snapshot format {found} cannot be read by this runtime, which reads format \
                 {expected}; restore with the version of `ivm` that wrote it"
            ),
            SnapshotError::OtherPlan {
                query,
                found,
                expected,
            } => write!(
                f,
                "the snapshot belongs to another plan (hash {found:#018x}) than `{query}`'s \
                 ({expected:#018x}): it was taken of another query, or of this one compiled \
                 differently; restore it with the code that took it"
            ),
            SnapshotError::Truncated { at, needed } => write!(
                f,
                "the snapshot is cut short: it ends at byte {at}, and needs {needed} bytes"
            ),
            SnapshotError::Checksum { at } => write!(
                f,
                "the snapshot is damaged: bytes 0..{at} do not match the checksum at byte {at}"
            ),
            SnapshotError::Decode { reason } => write!(
                f,
                "the snapshot's body is not a state of this query: {reason}"
            ),
        }
    }
}

impl std::error::Error for SnapshotError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            SnapshotError::Io(e) => Some(e),
            _ => None,
        }
    }
}

impl From<io::Error> for SnapshotError {
    fn from(e: io::Error) -> Self {
        SnapshotError::Io(e)
    }
}

/// Writes `state` as a snapshot with plan hash `plan`.
fn write<T: Serialize>(state: &T, plan: u64, mut writer: impl Write) -> Result<(), SnapshotError> {
    let mut bytes = Vec::with_capacity(HEADER as usize);
    bytes.extend_from_slice(&MAGIC);
    bytes.extend_from_slice(&FORMAT.to_le_bytes());
    bytes.extend_from_slice(&plan.to_le_bytes());
    bytes.extend_from_slice(&[0; 8]);
    let mut bytes = postcard::to_extend(state, bytes).map_err(|e| SnapshotError::Decode {
        reason: format!("cannot encode the state: {e}"),
    })?;
    let body = (bytes.len() as u64 - HEADER).to_le_bytes();
    bytes[20..28].copy_from_slice(&body);
    let crc = crc32fast::hash(&bytes);
    bytes.extend_from_slice(&crc.to_le_bytes());
    writer.write_all(&bytes)?;
    writer.flush()?;
    Ok(())
}

/// Reads `buf.len()` bytes, or says how far the bytes went.
fn read_exact(
    reader: &mut impl Read,
    buf: &mut [u8],
    at: u64,
    needed: u64,
) -> Result<(), SnapshotError> {
    let mut filled = 0;
    while filled < buf.len() {
        match reader.read(&mut buf[filled..]) {
            Ok(0) => {
                return Err(SnapshotError::Truncated {
                    at: at + filled as u64,
                    needed,
                });
            }
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e.into()),
        }
    }
    Ok(())
}

/// Reads one snapshot of the query `query` with plan hash `plan`.
fn read<T: DeserializeOwned>(
    mut reader: impl Read,
    query: &'static str,
    plan: u64,
) -> Result<T, SnapshotError> {
    let mut header = [0u8; HEADER as usize];
    // Too few bytes for a header: if those there are do not start as a
    // snapshot, say so rather than that it is short.
    if let Err(e) = read_exact(&mut reader, &mut header, 0, HEADER) {
        if let SnapshotError::Truncated { at, .. } = e {
            let n = at as usize;
            if header[..n.min(8)] != MAGIC[..n.min(8)] {
                return Err(SnapshotError::NotASnapshot);
            }
        }
        return Err(e);
    }
    if header[..8] != MAGIC {
        return Err(SnapshotError::NotASnapshot);
    }
    let word = |at: usize| u64::from_le_bytes(header[at..at + 8].try_into().expect("8 bytes"));
    let format = u32::from_le_bytes(header[8..12].try_into().expect("4 bytes"));
    if format != FORMAT {
        return Err(SnapshotError::Format {
            found: format,
            expected: FORMAT,
        });
    }
    let found = word(12);
    if found != plan {
        return Err(SnapshotError::OtherPlan {
            query,
            found,
            expected: plan,
        });
    }
    let body = word(20);
    let needed = HEADER.saturating_add(body).saturating_add(4);
    // The length is read before the checksum can vouch for it: grow the
    // buffer as bytes arrive rather than trusting it with an allocation.
    let mut rest = Vec::new();
    let got = reader
        .by_ref()
        .take(body.saturating_add(4))
        .read_to_end(&mut rest)?;
    if (got as u64) < body.saturating_add(4) {
        return Err(SnapshotError::Truncated {
            at: HEADER + got as u64,
            needed,
        });
    }
    let (body_bytes, crc_bytes) = rest.split_at(rest.len() - 4);
    let mut hasher = crc32fast::Hasher::new();
    hasher.update(&header);
    hasher.update(body_bytes);
    let crc = u32::from_le_bytes(crc_bytes.try_into().expect("4 bytes"));
    if hasher.finalize() != crc {
        return Err(SnapshotError::Checksum { at: HEADER + body });
    }
    match postcard::take_from_bytes::<T>(body_bytes) {
        Ok((state, [])) => Ok(state),
        Ok((_, left)) => Err(SnapshotError::Decode {
            reason: format!("{} bytes left over after the state", left.len()),
        }),
        Err(e) => Err(SnapshotError::Decode {
            reason: e.to_string(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::semiring::Int;

    ivm::ivm_query! {
        query Paths {
            relation R(a: u32, b: u32);
            relation S(a: u32, c: u32);
            Q(a) = R(a, b) * S(a, c);
        }
    }

    ivm::ivm_query! {
        query Other {
            relation R(a: u32, b: u32);
            Q(a) = R(a, b);
        }
    }

    fn sample() -> (Paths, Vec<u8>) {
        let mut q = Paths::new();
        for i in 0..50 {
            q.insert_r(i % 7, i);
            q.update_s(i % 5, i % 3, Int(i64::from(i) + 1));
        }
        let mut bytes = Vec::new();
        q.snapshot(&mut bytes).unwrap();
        (q, bytes)
    }

    #[test]
    fn round_trip_and_go_on() {
        let (mut q, bytes) = sample();
        let mut back = Paths::restore(&bytes[..]).unwrap();
        let rows = |p: &Paths| {
            let mut v: Vec<_> = p.iter().collect();
            v.sort();
            v
        };
        assert_eq!(rows(&back), rows(&q));
        for i in 0..50 {
            q.delete_r(i % 7, i).unwrap();
            back.delete_r(i % 7, i).unwrap();
            assert_eq!(rows(&back), rows(&q));
        }
        assert!(back.is_empty());
    }

    #[test]
    fn every_flipped_byte_and_every_cut_is_an_error() {
        let (_, bytes) = sample();
        for at in 0..bytes.len() {
            let mut bad = bytes.clone();
            bad[at] ^= 0x20;
            assert!(Paths::restore(&bad[..]).is_err(), "flipped byte {at}");
            assert!(Paths::restore(&bytes[..at]).is_err(), "cut at {at}");
        }
    }

    #[test]
    fn errors_say_what_and_where() {
        let (_, bytes) = sample();
        let err = |b: &[u8]| Paths::restore(b).err().unwrap();
        assert!(matches!(err(b"hello, world"), SnapshotError::NotASnapshot));
        assert!(matches!(
            err(&bytes[..40]),
            SnapshotError::Truncated { at: 40, .. }
        ));
        let mut bad = bytes.clone();
        let last = bad.len() - 5;
        bad[last] ^= 1;
        let at = (bytes.len() - 4) as u64;
        assert!(matches!(err(&bad), SnapshotError::Checksum { at: a } if a == at));
        let mut old = bytes.clone();
        old[8] = 9;
        assert!(matches!(err(&old), SnapshotError::Format { found: 9, .. }));
        match Other::restore(&bytes[..]) {
            Err(e @ SnapshotError::OtherPlan { query: "Other", .. }) => {
                assert!(e.to_string().contains("another plan"));
            }
            other => panic!("restored into another query: {:?}", other.map(|_| ())),
        }
    }

    #[test]
    fn a_reader_may_hold_more_after_the_snapshot() {
        let (q, mut bytes) = sample();
        let len = bytes.len();
        q.snapshot(&mut bytes).unwrap();
        let mut reader = &bytes[..];
        Paths::restore(&mut reader).unwrap();
        assert_eq!(reader.len(), len);
        Paths::restore(&mut reader).unwrap();
        assert!(reader.is_empty());
    }
}
