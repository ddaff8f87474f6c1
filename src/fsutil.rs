//! Files on the host: writing a file so that readers (and a crash) see either the old content
//! or the new one, never half of it; and the bounds every host-side reader and writer of a
//! guest's files keeps (docs/security.md): a guest decides what its files hold, how large they
//! claim to be and how deep its folders go, so nothing on the host trusts any of it.

use std::io::{Read, Write};
use std::path::{Component, Path, PathBuf};
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

/// The most bytes the host reads from one guest file into memory (the shell's builtins, the
/// editor, the answer and scorer, the notebook log). A guest can make a file claim any size
/// (a sparse file costs nothing), so every such read is bounded and fails clearly beyond it.
pub const GUEST_READ_LIMIT: u64 = 128 << 20;

/// The most components a path written into a sandbox may have (any writer: the shell, the
/// editor, uploads, archives, package members). Linux itself has no depth limit, but every
/// host-side walk of a folder costs per level.
pub const MAX_PATH_DEPTH: usize = 256;

/// The most bytes a path written into a sandbox may have (Linux's `PATH_MAX`).
pub const MAX_PATH_BYTES: usize = 4096;

/// Refuse a path (relative to a sandbox folder) deeper than [`MAX_PATH_DEPTH`] components or
/// longer than [`MAX_PATH_BYTES`] bytes, with an error a guest (or a client) can act on.
///
/// # Errors
/// `InvalidFilename` naming the limit that was passed.
pub fn check_path_shape(path: &Path) -> std::io::Result<()> {
    let bytes = path.as_os_str().len();
    if bytes > MAX_PATH_BYTES {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidFilename,
            format!("path too long: {bytes} bytes, at most {MAX_PATH_BYTES} are allowed"),
        ));
    }
    let depth = path
        .components()
        .filter(|c| matches!(c, Component::Normal(_)))
        .count();
    if depth > MAX_PATH_DEPTH {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidFilename,
            format!("path too deep: {depth} folders, at most {MAX_PATH_DEPTH} are allowed"),
        ));
    }
    Ok(())
}

/// Read a guest file into memory, at most `limit` bytes: a file that claims or turns out to be
/// larger fails with `FileTooLarge` before anything is reserved; what is reserved is the size
/// the file reports, once checked against `limit`.
///
/// # Errors
/// The OS error; `FileTooLarge` past `limit`; `IsADirectory` for a folder.
pub fn read_capped(dir: &cap_std::fs::Dir, rel: &Path, limit: u64) -> std::io::Result<Vec<u8>> {
    let f = dir.open(rel)?;
    let meta = f.metadata()?;
    let len = meta.len();
    if meta.is_dir() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::IsADirectory,
            "is a directory",
        ));
    }
    let too_large = |len: u64| {
        std::io::Error::new(
            std::io::ErrorKind::FileTooLarge,
            format!("file too large to read: {len} bytes, at most {limit} are read"),
        )
    };
    if len > limit {
        return Err(too_large(len));
    }
    // The reported size is at most `limit` here, so reserving it is bounded; reading into one
    // allocation of the right size avoids copying a large file again at every doubling.
    let mut out = Vec::with_capacity(usize::try_from(len).unwrap_or(0).saturating_add(1));
    advise_huge_pages(&mut out);
    // Through the std file: its `read_to_end` reads into the spare capacity as it is, where
    // cap-std's wrapper first zeroes it (a second pass over every page of a large file).
    f.into_std()
        .take(limit.saturating_add(1))
        .read_to_end(&mut out)?;
    if out.len() as u64 > limit {
        return Err(too_large(out.len() as u64));
    }
    Ok(out)
}

/// Ask the kernel to back a large fresh buffer with transparent huge pages: reading a 50 MB
/// file otherwise takes one page fault per 4 KiB (about 12,000, more time than the copy
/// itself; `wc -l` of 50 MB went from 32 to 16 ms). Advisory: without THP it changes nothing.
fn advise_huge_pages(buf: &mut Vec<u8>) {
    const HUGE: usize = 2 << 20;
    let cap = buf.capacity();
    if cap < 4 * HUGE {
        return;
    }
    let start = buf.as_mut_ptr() as usize;
    let aligned = start.next_multiple_of(HUGE);
    let end = (start + cap) / HUGE * HUGE;
    if end > aligned {
        // SAFETY: the range lies inside `buf`'s own allocation, which nothing else uses yet;
        // MADV_HUGEPAGE changes how its pages are backed, never their contents.
        unsafe {
            libc::madvise(
                aligned as *mut libc::c_void,
                end - aligned,
                libc::MADV_HUGEPAGE,
            );
        }
    }
}

/// [`read_capped`] as UTF-8 text.
///
/// # Errors
/// As [`read_capped`]; `InvalidData` when it is not UTF-8.
pub fn read_capped_string(
    dir: &cap_std::fs::Dir,
    rel: &Path,
    limit: u64,
) -> std::io::Result<String> {
    String::from_utf8(read_capped(dir, rel, limit)?).map_err(|_| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "stream did not contain valid UTF-8",
        )
    })
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

/// Whether a symbolic link about to be made at `link` (relative to `dir`) with `target` could
/// land elsewhere than its lexical reading says: the target climbs (`..`) and a folder on the
/// way to the link is itself a link, so `..` would climb from that link's destination. Such a
/// link is refused by every writer (the shell's `ln -s`, tar uploads, Python's `os.symlink`):
/// the lexical check that keeps targets inside the sandbox holds only over real folders.
pub fn climbs_through_a_link(dir: &cap_std::fs::Dir, link: &Path, target: &Path) -> bool {
    if !target
        .components()
        .any(|c| c == std::path::Component::ParentDir)
    {
        return false;
    }
    let mut prefix = std::path::PathBuf::new();
    let parents: Vec<_> = link
        .parent()
        .map(|p| p.components().collect())
        .unwrap_or_default();
    for c in parents {
        prefix.push(c);
        if prefix.as_os_str().is_empty() || prefix == Path::new("/") {
            continue;
        }
        match dir.symlink_metadata(&prefix) {
            Ok(m) if m.file_type().is_symlink() => return true,
            _ => {}
        }
    }
    false
}

/// Remove the folder `name` in `parent` and everything in it, however deep, with a bounded
/// host stack and two open folders at a time. A guest can nest folders tens of thousands deep
/// (each `mkdir` relative to an open folder handle), where recursive removal (the standard
/// library's and cap-std's `remove_dir_all`) overflows a thread's stack and aborts the process.
/// Here each folder's subfolders are moved up into the folder being emptied, so the tree gets
/// flatter instead of the stack deeper. Links are removed, never followed.
///
/// # Errors
/// The first OS error that stops the removal.
pub fn remove_tree_in(parent: &cap_std::fs::Dir, name: &Path) -> std::io::Result<()> {
    match parent.symlink_metadata(name) {
        Ok(m) if m.is_dir() => {}
        Ok(_) => return parent.remove_file(name),
        Err(e) => return Err(e),
    }
    let top = parent.open_dir(name)?;
    let mut moved = 0u64;
    loop {
        let entries = entries_of(&top, 4096)?;
        if entries.is_empty() {
            break;
        }
        for (entry, is_dir) in entries {
            if !is_dir {
                top.remove_file(&entry)?;
                continue;
            }
            let sub = top.open_dir(&entry)?;
            for (child, child_is_dir) in entries_of(&sub, usize::MAX)? {
                if child_is_dir {
                    moved += 1;
                    sub.rename(&child, &top, format!(".removing-{moved}"))?;
                } else {
                    sub.remove_file(&child)?;
                }
            }
            drop(sub);
            top.remove_dir(&entry)?;
        }
    }
    drop(top);
    parent.remove_dir(name)
}

/// Up to `most` entries of `dir`: each name, and whether it is a folder (links are not).
fn entries_of(
    dir: &cap_std::fs::Dir,
    most: usize,
) -> std::io::Result<Vec<(std::ffi::OsString, bool)>> {
    Ok(dir
        .entries()?
        .filter_map(Result::ok)
        .map(|e| (e.file_name(), e.file_type().is_ok_and(|t| t.is_dir())))
        .take(most)
        .collect())
}

/// [`remove_tree_in`] for a host path.
///
/// # Errors
/// As [`remove_tree_in`]; a missing `path` is not an error.
pub fn remove_tree(path: &Path) -> std::io::Result<()> {
    let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
        return Err(std::io::Error::other("cannot remove a root folder"));
    };
    let parent = match cap_std::fs::Dir::open_ambient_dir(parent, cap_std::ambient_authority()) {
        Ok(d) => d,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e),
    };
    match remove_tree_in(&parent, Path::new(name)) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    #[test]
    fn guest_reads_are_bounded_whatever_size_a_file_claims() {
        let tmp = tempfile::tempdir().unwrap();
        let huge = std::fs::File::create(tmp.path().join("sparse")).unwrap();
        huge.set_len(1 << 40).unwrap();
        std::fs::write(tmp.path().join("small"), b"hello").unwrap();
        let dir =
            cap_std::fs::Dir::open_ambient_dir(tmp.path(), cap_std::ambient_authority()).unwrap();
        let e = super::read_capped(&dir, Path::new("sparse"), 1 << 20).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::FileTooLarge);
        assert!(e.to_string().contains("1099511627776 bytes"), "{e}");
        assert_eq!(
            super::read_capped(&dir, Path::new("small"), 5).unwrap(),
            b"hello"
        );
        assert!(super::read_capped(&dir, Path::new("small"), 4).is_err());
    }

    #[test]
    fn paths_are_bounded_in_depth_and_length() {
        let deep = "a/".repeat(super::MAX_PATH_DEPTH + 1);
        assert!(super::check_path_shape(Path::new(&deep)).is_err());
        let ok = "a/".repeat(super::MAX_PATH_DEPTH);
        assert!(super::check_path_shape(Path::new(&ok)).is_ok());
        let long = "x".repeat(super::MAX_PATH_BYTES + 1);
        assert!(super::check_path_shape(Path::new(&long)).is_err());
    }

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

    #[test]
    fn a_tree_deeper_than_any_stack_is_removed() {
        let tmp = tempfile::tempdir().unwrap();
        let root =
            cap_std::fs::Dir::open_ambient_dir(tmp.path(), cap_std::ambient_authority()).unwrap();
        root.create_dir("t").unwrap();
        let mut d = root.open_dir("t").unwrap();
        d.write("f", b"x").unwrap();
        // 30,000 levels: a recursive removal on a 2 MiB stack overflows well before.
        for _ in 0..30_000 {
            d.create_dir("d").unwrap();
            d = d.open_dir("d").unwrap();
        }
        d.write("leaf", b"y").unwrap();
        d.symlink("leaf", "link").unwrap();
        drop(d);
        // A link to a folder outside the tree: removed, and what it points to stays.
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("kept"), b"z").unwrap();
        std::os::unix::fs::symlink(outside.path(), tmp.path().join("t").join("out")).unwrap();
        let path = tmp.path().join("t");
        let done = std::thread::Builder::new()
            .stack_size(256 << 10)
            .spawn(move || super::remove_tree(&path))
            .unwrap()
            .join()
            .unwrap();
        done.unwrap();
        assert!(!tmp.path().join("t").exists());
        assert!(outside.path().join("kept").exists());
    }
}
