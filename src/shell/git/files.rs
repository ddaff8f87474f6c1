//! Every file `git` touches goes through here: the shell's own file system (so the sandbox's
//! quota and cap-std confinement apply), and only under the sandbox's own directories
//! (`/testbed`, `/tmp`, `/root`), never bashkit's in-memory `/etc` and the like. Paths are guest
//! paths, absolute, made lexically clean before use.

use std::io::ErrorKind;
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use bashkit::{DirEntry, FileSystem, Metadata};

use super::GitError;
use crate::sandbox::{GUEST_HOME, GUEST_TMP, GUEST_WORKSPACE};

/// The directories a repository (its work tree, its `.git`, a global config) may live in.
pub(super) const ROOTS: [&str; 3] = [GUEST_WORKSPACE, GUEST_TMP, GUEST_HOME];

/// `path` made absolute against `cwd`, with `.` and `..` resolved lexically (as git does for
/// its arguments) and no trailing slash.
pub(super) fn normalize(cwd: &str, path: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    let joined = if path.starts_with('/') {
        path.to_string()
    } else {
        format!("{cwd}/{path}")
    };
    for c in joined.split('/') {
        match c {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            c => parts.push(c),
        }
    }
    format!("/{}", parts.join("/"))
}

/// The sandbox directory `path` (absolute, normalized) lies in, if any.
pub(super) fn root_of(path: &str) -> Option<&'static str> {
    ROOTS
        .iter()
        .find(|r| path == **r || path.strip_prefix(**r).is_some_and(|t| t.starts_with('/')))
        .copied()
}

/// `path` relative to `base` when it is `base` itself ("") or below it.
pub(super) fn below<'a>(path: &'a str, base: &str) -> Option<&'a str> {
    if path == base {
        return Some("");
    }
    if base == "/" {
        return path.strip_prefix('/');
    }
    path.strip_prefix(base)?.strip_prefix('/')
}

/// `a/b` joined the way git paths are (either side may be empty).
pub(super) fn join(a: &str, b: &str) -> String {
    match (a.is_empty(), b.is_empty()) {
        (true, _) => b.to_string(),
        (_, true) => a.to_string(),
        _ => format!("{a}/{b}"),
    }
}

/// The parent of a git path ("" at the top).
pub(super) fn parent(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(p, _)| p)
}

/// The folder holding an absolute path.
pub(super) fn parent_dir(path: &str) -> &str {
    match path.rsplit_once('/') {
        Some(("", _)) | None => "/",
        Some((p, _)) => p,
    }
}

fn is_missing(e: &bashkit::Error) -> bool {
    match e {
        bashkit::Error::Io(io) => matches!(
            io.kind(),
            ErrorKind::NotFound | ErrorKind::NotADirectory | ErrorKind::IsADirectory
        ),
        _ => false,
    }
}

/// The shell's file system, limited to the sandbox's directories and to the call's deadline.
pub(super) struct Files {
    fs: Arc<dyn FileSystem>,
    deadline: Option<Instant>,
}

impl Files {
    pub(super) fn new(fs: Arc<dyn FileSystem>, deadline: Option<Instant>) -> Files {
        Files { fs, deadline }
    }

    /// Fails once the call's time is up (long walks call it as they go).
    pub(super) fn tick(&self) -> Result<(), GitError> {
        match self.deadline {
            Some(d) if Instant::now() >= d => Err(GitError::Deadline),
            _ => Ok(()),
        }
    }

    /// `path` as a `Path`, once it is known to lie in a sandbox directory.
    fn guard<'a>(&self, path: &'a str) -> Result<&'a Path, GitError> {
        self.tick()?;
        if root_of(path).is_none() || path.split('/').any(|c| c == "..") {
            return Err(GitError::Outside(path.to_string()));
        }
        Ok(Path::new(path))
    }

    fn io(what: &str, e: bashkit::Error) -> GitError {
        GitError::Io {
            what: what.to_string(),
            source: e,
        }
    }

    pub(super) async fn read(&self, path: &str) -> Result<Vec<u8>, GitError> {
        let p = self.guard(path)?;
        self.fs
            .read_file(p)
            .await
            .map_err(|e| Self::io(&format!("cannot read '{path}'"), e))
    }

    /// The file's bytes, `None` when it does not exist.
    pub(super) async fn read_opt(&self, path: &str) -> Result<Option<Vec<u8>>, GitError> {
        let p = self.guard(path)?;
        match self.fs.read_file(p).await {
            Ok(b) => Ok(Some(b)),
            Err(e) if is_missing(&e) => Ok(None),
            Err(e) => Err(Self::io(&format!("cannot read '{path}'"), e)),
        }
    }

    pub(super) async fn write(&self, path: &str, data: &[u8]) -> Result<(), GitError> {
        let p = self.guard(path)?;
        self.fs
            .write_file(p, data)
            .await
            .map_err(|e| Self::io(&format!("cannot write '{path}'"), e))
    }

    pub(super) async fn append(&self, path: &str, data: &[u8]) -> Result<(), GitError> {
        let p = self.guard(path)?;
        self.fs
            .append_file(p, data)
            .await
            .map_err(|e| Self::io(&format!("cannot write '{path}'"), e))
    }

    /// Write through `PATH.lock` and a rename, as git does, so a reader never sees half a file.
    pub(super) async fn write_atomic(&self, path: &str, data: &[u8]) -> Result<(), GitError> {
        let lock = format!("{path}.lock");
        self.write(&lock, data).await?;
        self.rename(&lock, path).await
    }

    pub(super) async fn mkdirs(&self, path: &str) -> Result<(), GitError> {
        let p = self.guard(path)?;
        self.fs
            .mkdir(p, true)
            .await
            .map_err(|e| Self::io(&format!("cannot create directory '{path}'"), e))
    }

    /// Metadata of the entry itself (a symlink is not followed), `None` when it is missing.
    pub(super) async fn lstat(&self, path: &str) -> Result<Option<Metadata>, GitError> {
        let p = self.guard(path)?;
        match self.fs.lstat(p).await {
            Ok(m) => Ok(Some(m)),
            Err(e) if is_missing(&e) => Ok(None),
            Err(e) => Err(Self::io(&format!("cannot stat '{path}'"), e)),
        }
    }

    pub(super) async fn is_dir(&self, path: &str) -> Result<bool, GitError> {
        Ok(self
            .lstat(path)
            .await?
            .is_some_and(|m| m.file_type.is_dir()))
    }

    pub(super) async fn read_dir(&self, path: &str) -> Result<Vec<DirEntry>, GitError> {
        let p = self.guard(path)?;
        let mut entries = self
            .fs
            .read_dir(p)
            .await
            .map_err(|e| Self::io(&format!("cannot read directory '{path}'"), e))?;
        entries.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(entries)
    }

    pub(super) async fn remove_file(&self, path: &str) -> Result<(), GitError> {
        let p = self.guard(path)?;
        self.fs
            .remove(p, false)
            .await
            .map_err(|e| Self::io(&format!("cannot remove '{path}'"), e))
    }

    /// Remove the empty folders from `dir` up to (not including) `stop`, as git does after
    /// removing a file.
    pub(super) async fn prune_empty(&self, mut dir: String, stop: &str) {
        while dir.len() > stop.len() && dir.starts_with(stop) {
            match self.read_dir(&dir).await {
                Ok(e) if e.is_empty() => {}
                _ => return,
            }
            let Ok(p) = self.guard(&dir) else { return };
            if self.fs.remove(p, false).await.is_err() {
                return;
            }
            dir = dir
                .rsplit_once('/')
                .map_or(String::new(), |(p, _)| p.to_string());
        }
    }

    pub(super) async fn rename(&self, from: &str, to: &str) -> Result<(), GitError> {
        let (f, t) = (self.guard(from)?, self.guard(to)?);
        self.fs
            .rename(f, t)
            .await
            .map_err(|e| Self::io(&format!("cannot rename '{from}' to '{to}'"), e))
    }

    pub(super) async fn read_link(&self, path: &str) -> Result<String, GitError> {
        let p = self.guard(path)?;
        self.fs
            .read_link(p)
            .await
            .map(|t| t.to_string_lossy().into_owned())
            .map_err(|e| Self::io(&format!("cannot read link '{path}'"), e))
    }

    pub(super) async fn symlink(&self, target: &str, path: &str) -> Result<(), GitError> {
        let p = self.guard(path)?;
        self.fs
            .symlink(Path::new(target), p)
            .await
            .map_err(|e| Self::io(&format!("cannot make link '{path}'"), e))
    }

    pub(super) async fn chmod(&self, path: &str, mode: u32) -> Result<(), GitError> {
        let p = self.guard(path)?;
        self.fs
            .chmod(p, mode)
            .await
            .map_err(|e| Self::io(&format!("cannot change mode of '{path}'"), e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_made_absolute_and_clean() {
        assert_eq!(normalize("/testbed", "a/./b/../c"), "/testbed/a/c");
        assert_eq!(normalize("/testbed/x", "../../etc"), "/etc");
        assert_eq!(normalize("/testbed", "/"), "/");
        assert_eq!(normalize("/", "../.."), "/");
        assert_eq!(normalize("/testbed", "."), "/testbed");
    }

    #[test]
    fn only_the_sandbox_directories_are_roots() {
        assert_eq!(root_of("/testbed"), Some("/testbed"));
        assert_eq!(root_of("/testbed/a"), Some("/testbed"));
        assert_eq!(root_of("/testbedx"), None);
        assert_eq!(root_of("/etc"), None);
        assert_eq!(root_of("/"), None);
        assert_eq!(root_of("/root/.gitconfig"), Some("/root"));
    }

    #[test]
    fn below_gives_the_relative_part() {
        assert_eq!(below("/testbed/a/b", "/testbed"), Some("a/b"));
        assert_eq!(below("/testbed", "/testbed"), Some(""));
        assert_eq!(below("/testbedx", "/testbed"), None);
        assert_eq!(parent("a/b/c"), "a/b");
        assert_eq!(parent("a"), "");
        assert_eq!(join("", "a"), "a");
        assert_eq!(join("a", "b"), "a/b");
    }
}
