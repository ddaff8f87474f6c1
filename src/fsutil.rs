//! Writing a file so that readers (and a crash) see either the old content or the new one,
//! never half of it.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Write `bytes` to `path` through a temporary file in the same folder, synced to disk, then
/// renamed over `path` (and the folder synced, so the rename itself survives a power cut).
/// Concurrent writers of the same path never share a temporary file; the last rename wins.
///
/// # Errors
/// The OS error of the step that failed; the temporary file is removed then.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_via_rename(path, bytes, true)
}

/// Like [`write_atomic`] without syncing to disk: a crashed or killed process still leaves the
/// old or the new content whole (only a power cut may lose the new one). For files written
/// often on busy threads (each sync costs milliseconds), e.g. every episode's trajectory.
///
/// # Errors
/// As [`write_atomic`].
pub fn replace(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_via_rename(path, bytes, false)
}

fn write_via_rename(path: &Path, bytes: &[u8], durable: bool) -> std::io::Result<()> {
    static SEQ: AtomicU64 = AtomicU64::new(0);
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp: PathBuf = path.with_file_name(format!(
        ".{name}.{}-{}.partial",
        std::process::id(),
        SEQ.fetch_add(1, Ordering::Relaxed)
    ));
    let written = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        if durable {
            f.sync_all()?;
        }
        std::fs::rename(&tmp, path)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
        return written;
    }
    if let Some(dir) = path
        .parent()
        .filter(|d| durable && !d.as_os_str().is_empty())
    {
        // Best effort: some file systems cannot sync a directory.
        let _ = std::fs::File::open(dir).and_then(|d| d.sync_all());
    }
    Ok(())
}

/// A kill can leave half a line at the end of an append-only JSON-lines file: cut it so later
/// appends start on a fresh line. Anything but a regular file is left alone.
///
/// # Errors
/// I/O errors truncating the file.
pub fn drop_torn_tail(path: &Path) -> std::io::Result<()> {
    if !std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
        return Ok(());
    }
    let Ok(bytes) = std::fs::read(path) else {
        return Ok(());
    };
    if bytes.is_empty() || bytes.ends_with(b"\n") {
        return Ok(());
    }
    let keep = bytes.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
    std::fs::OpenOptions::new()
        .write(true)
        .open(path)?
        .set_len(keep as u64)
}

/// Call `f(path, is_dir)` for everything under `dir`, children before their folder (so a
/// folder can be changed after its contents); unreadable entries are skipped.
pub fn walk(dir: &Path, f: &mut dyn FnMut(&Path, bool)) {
    if let Ok(entries) = std::fs::read_dir(dir) {
        for e in entries.flatten() {
            let p = e.path();
            let is_dir = e.file_type().map(|t| t.is_dir()).unwrap_or(false);
            if is_dir {
                walk(&p, f);
            }
            f(&p, is_dir);
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn replaces_whole_and_leaves_no_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.json");
        super::write_atomic(&p, b"one").unwrap();
        super::write_atomic(&p, b"two").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"two");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
        assert!(super::write_atomic(&dir.path().join("no/such/dir/x"), b"x").is_err());
    }
}
