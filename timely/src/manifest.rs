//! The files of a cluster's snapshot: one per worker, and a manifest that
//! says which epoch they hold, written last, so that a snapshot cut short
//! leaves the previous one in force.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::ClusterError;

/// The manifest's name in a snapshot directory.
const MANIFEST: &str = "MANIFEST";

/// The first line of every manifest.
const MAGIC: &str = "ivm-timely snapshot 1";

/// What a complete snapshot holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Manifest {
    /// The number of workers whose states it holds.
    pub workers: usize,
    /// The number of epochs applied when it was taken.
    pub epoch: u64,
}

/// The file of worker `worker`'s state at `epoch`.
pub(crate) fn worker_file(dir: &Path, worker: usize, epoch: u64) -> PathBuf {
    dir.join(format!("worker-{worker}-epoch-{epoch}.snap"))
}

impl Manifest {
    /// Commits the snapshot: writes the manifest beside the workers' files
    /// (through a synced temporary file renamed over the old one), then
    /// removes this process's files of other epochs.
    pub(crate) fn commit(&self, dir: &Path) -> Result<(), ClusterError> {
        let tmp = dir.join("MANIFEST.tmp");
        let mut file = fs::File::create(&tmp)?;
        write!(
            file,
            "{MAGIC}\nworkers {}\nepoch {}\n",
            self.workers, self.epoch
        )?;
        file.sync_all()?;
        fs::rename(&tmp, dir.join(MANIFEST))?;
        let keep: Vec<PathBuf> = (0..self.workers)
            .map(|w| worker_file(dir, w, self.epoch))
            .collect();
        for entry in fs::read_dir(dir)? {
            let path = entry?.path();
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if name.starts_with("worker-") && name.ends_with(".snap") && !keep.contains(&path) {
                fs::remove_file(&path)?;
            }
        }
        Ok(())
    }

    /// Reads the manifest of the snapshot in `dir`.
    pub(crate) fn read(dir: &Path) -> Result<Manifest, ClusterError> {
        let text = fs::read_to_string(dir.join(MANIFEST))?;
        let mut lines = text.lines();
        let damaged =
            || ClusterError::Manifest(format!("{} is damaged", dir.join(MANIFEST).display()));
        if lines.next() != Some(MAGIC) {
            return Err(damaged());
        }
        let mut field = |name: &str| {
            lines
                .next()
                .and_then(|line| line.strip_prefix(name))
                .and_then(|rest| rest.trim().parse::<u64>().ok())
                .ok_or_else(damaged)
        };
        let workers = usize::try_from(field("workers")?).map_err(|_| damaged())?;
        let epoch = field("epoch")?;
        Ok(Manifest { workers, epoch })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_manifest_reads_back_and_keeps_only_its_epoch() {
        let dir = std::env::temp_dir().join(format!("ivm-timely-manifest-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        for epoch in [3, 4] {
            for worker in 0..2 {
                fs::write(worker_file(&dir, worker, epoch), b"state").unwrap();
            }
        }
        let manifest = Manifest {
            workers: 2,
            epoch: 4,
        };
        manifest.commit(&dir).unwrap();
        assert_eq!(Manifest::read(&dir).unwrap(), manifest);
        assert!(!worker_file(&dir, 0, 3).exists());
        assert!(worker_file(&dir, 1, 4).exists());
        fs::write(dir.join(MANIFEST), "something else\n").unwrap();
        assert!(matches!(
            Manifest::read(&dir),
            Err(ClusterError::Manifest(_))
        ));
        fs::remove_dir_all(&dir).unwrap();
    }
}
