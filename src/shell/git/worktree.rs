//! The work tree: walking it (honouring `.gitignore`), reading a file as git sees it (content
//! and mode), telling whether a staged file changed, and writing files back out of objects.

use bashkit::{FileType, Metadata};

use super::GitError;
use super::files::{join, parent};
use super::ignore::Ignores;
use super::index::{Entry, Index};
use super::objects::{Kind, MODE_EXEC, MODE_FILE, MODE_GITLINK, MODE_LINK, Oid, object_id};
use super::repo::Repo;

/// A file found in the work tree.
pub(super) struct Found {
    pub path: String,
    pub meta: Metadata,
}

/// What a walk found: files that are not ignored, and folders that hold another repository.
#[derive(Default)]
pub(super) struct Scan {
    pub files: Vec<Found>,
    pub nested: Vec<String>,
}

/// How a staged file compares with the work tree.
pub(super) enum WorkState {
    /// Unchanged (`refreshed`: its stat data were out of date and are now current).
    Same { refreshed: bool },
    /// Changed: its mode, id and content now.
    Changed { mode: u32, oid: Oid, data: Vec<u8> },
    /// Gone (or a folder now).
    Deleted,
}

/// The mode git records for a file with this metadata.
pub(super) fn mode_of(meta: &Metadata) -> u32 {
    match meta.file_type {
        FileType::Symlink => MODE_LINK,
        _ if meta.mode & 0o100 != 0 => MODE_EXEC,
        _ => MODE_FILE,
    }
}

impl Repo {
    /// The ignore rules that apply at the top (`info/exclude`, the top `.gitignore`).
    pub async fn ignores_for(&self, dir: &str) -> Result<Ignores, GitError> {
        let mut ig = Ignores::default();
        if let Some(t) = self.files.read_opt(&self.git_path("info/exclude")).await? {
            ig.add_file("", &String::from_utf8_lossy(&t));
        }
        // The `.gitignore` of every folder from the top down to `dir`.
        let mut at = String::new();
        let mut parts = dir.split('/').filter(|p| !p.is_empty());
        loop {
            let file = self.abs(&join(&at, ".gitignore"));
            if let Some(t) = self.files.read_opt(&file).await? {
                ig.add_file(&at, &String::from_utf8_lossy(&t));
            }
            match parts.next() {
                Some(p) => at = join(&at, p),
                None => break,
            }
        }
        Ok(ig)
    }

    /// Whether an untracked path is ignored.
    pub async fn is_ignored(&self, path: &str, is_dir: bool) -> Result<bool, GitError> {
        let ig = self.ignores_for(parent(path)).await?;
        Ok(ig.ignored(path, is_dir))
    }

    /// Every file below work tree folder `from` ("" for all) that is not ignored (with
    /// `all`, ignored files too), sorted by path.
    pub async fn scan(&self, from: &str, all: bool) -> Result<Scan, GitError> {
        let mut ig = self.ignores_for(parent(from)).await?;
        let mut scan = Scan::default();
        let start = self.files.lstat(&self.abs(from)).await?;
        match start {
            None => return Ok(scan),
            Some(m) if !m.file_type.is_dir() => {
                if all || !ig.ignored(from, false) {
                    scan.files.push(Found {
                        path: from.to_string(),
                        meta: m,
                    });
                }
                return Ok(scan);
            }
            Some(_) => {}
        }
        if !from.is_empty() && !all && ig.ignored(from, true) {
            return Ok(scan);
        }
        let mut stack = vec![from.to_string()];
        while let Some(dir) = stack.pop() {
            self.files.tick()?;
            let abs = self.abs(&dir);
            let entries = self.files.read_dir(&abs).await?;
            if !dir.is_empty() && entries.iter().any(|e| e.name == ".git") {
                scan.nested.push(dir);
                continue;
            }
            if !dir.is_empty()
                && let Some(e) = entries.iter().find(|e| e.name == ".gitignore")
                && !e.metadata.file_type.is_dir()
                && let Some(t) = self.files.read_opt(&format!("{abs}/.gitignore")).await?
            {
                ig.add_file(&dir, &String::from_utf8_lossy(&t));
            }
            for e in entries {
                if e.name == ".git" {
                    continue;
                }
                let path = join(&dir, &e.name);
                let is_dir = e.metadata.file_type.is_dir();
                if !all && ig.matched(&path, is_dir) {
                    continue;
                }
                match e.metadata.file_type {
                    FileType::Directory => stack.push(path),
                    FileType::File | FileType::Symlink => scan.files.push(Found {
                        path,
                        meta: e.metadata,
                    }),
                    FileType::Fifo => {}
                }
            }
        }
        scan.files
            .sort_by(|a, b| a.path.as_bytes().cmp(b.path.as_bytes()));
        scan.nested.sort();
        Ok(scan)
    }

    /// A work tree file's mode and content as git stores it (a link's target for a link).
    pub async fn read_work(&self, path: &str, meta: &Metadata) -> Result<(u32, Vec<u8>), GitError> {
        let abs = self.abs(path);
        let mode = mode_of(meta);
        let data = if mode == MODE_LINK {
            self.files.read_link(&abs).await?.into_bytes()
        } else {
            self.files.read(&abs).await?
        };
        Ok((mode, data))
    }

    /// Store a work tree file as a blob; its index entry.
    pub async fn stage_file(&self, path: &str, meta: &Metadata) -> Result<Entry, GitError> {
        let (mode, data) = self.read_work(path, meta).await?;
        let mode = self.keep_mode(path, mode, None);
        let oid = self.write_object(Kind::Blob, &data).await?;
        let mut e = Entry::new(path.to_string(), mode, oid);
        e.set_stat(meta);
        Ok(e)
    }

    /// With `core.filemode` false, the executable bit of the file is not trusted.
    fn keep_mode(&self, _path: &str, mode: u32, old: Option<u32>) -> u32 {
        if self.config.get_bool("core.filemode") == Some(false) && mode != MODE_LINK {
            return old.filter(|m| *m != MODE_LINK).unwrap_or(MODE_FILE);
        }
        mode
    }

    /// How staged `entry` compares with the work tree. `racy_from`: when the index was
    /// written (a file changed in that same moment is hashed, as its stat data prove nothing).
    pub async fn work_state(
        &self,
        entry: &Entry,
        racy_from: Option<(u32, u32)>,
    ) -> Result<(WorkState, Option<Metadata>), GitError> {
        if entry.mode == MODE_GITLINK {
            return Ok((WorkState::Same { refreshed: false }, None));
        }
        let Some(meta) = self.files.lstat(&self.abs(&entry.path)).await? else {
            return Ok((WorkState::Deleted, None));
        };
        if meta.file_type.is_dir() {
            return Ok((WorkState::Deleted, None));
        }
        let mode = self.keep_mode(&entry.path, mode_of(&meta), Some(entry.mode));
        let racy = racy_from.is_none_or(|t| entry.mtime >= t);
        if mode == entry.mode && entry.stat_matches(&meta) && !racy {
            return Ok((WorkState::Same { refreshed: false }, Some(meta)));
        }
        let (_, data) = self.read_work(&entry.path, &meta).await?;
        let oid = object_id(Kind::Blob, &data);
        if oid == entry.oid && mode == entry.mode {
            let refreshed = !entry.stat_matches(&meta);
            return Ok((WorkState::Same { refreshed }, Some(meta)));
        }
        Ok((WorkState::Changed { mode, oid, data }, Some(meta)))
    }

    /// Compare every staged file with the work tree; entries whose stat data were refreshed
    /// are updated in `index` (the caller may save it). Paths for which `keep` is false are
    /// not looked at.
    pub async fn work_changes(
        &self,
        index: &mut Index,
        keep: &(dyn Fn(&str) -> bool + Sync),
    ) -> Result<Vec<(String, WorkState)>, GitError> {
        let racy = self.index_time().await?;
        let mut out = Vec::new();
        for i in 0..index.entries.len() {
            self.files.tick()?;
            let e = &index.entries[i];
            if e.stage != 0 || !keep(&e.path) {
                continue;
            }
            let (state, meta) = self.work_state(e, racy).await?;
            match state {
                WorkState::Same { refreshed } => {
                    if refreshed && let Some(m) = meta {
                        index.entries[i].set_stat(&m);
                    }
                }
                other => out.push((index.entries[i].path.clone(), other)),
            }
        }
        Ok(out)
    }

    /// Write blob `oid` to the work tree at `path` with `mode`, replacing what is there.
    pub async fn write_work(&self, path: &str, mode: u32, oid: &Oid) -> Result<Metadata, GitError> {
        if mode == MODE_GITLINK {
            self.files.mkdirs(&self.abs(path)).await?;
            return self
                .files
                .lstat(&self.abs(path))
                .await?
                .ok_or_else(|| GitError::Fatal(format!("cannot create '{path}'")));
        }
        let data = self.read_kind(oid, Kind::Blob).await?;
        let abs = self.abs(path);
        // Folders on the way that are files now, or the path itself as a folder, go first.
        let dir = parent(path);
        if !dir.is_empty() {
            let mut at = String::new();
            for part in dir.split('/') {
                at = join(&at, part);
                if let Some(m) = self.files.lstat(&self.abs(&at)).await?
                    && !m.file_type.is_dir()
                {
                    self.files.remove_file(&self.abs(&at)).await?;
                }
            }
            self.files.mkdirs(&self.abs(dir)).await?;
        }
        match self.files.lstat(&abs).await? {
            Some(m) if m.file_type.is_dir() => {
                return Err(GitError::Failed {
                    text: format!("error: cannot write '{path}': a folder is in the way\n"),
                    code: 1,
                });
            }
            Some(m) if m.file_type == FileType::Symlink || mode == MODE_LINK => {
                self.files.remove_file(&abs).await?;
            }
            _ => {}
        }
        if mode == MODE_LINK {
            self.files
                .symlink(&String::from_utf8_lossy(&data), &abs)
                .await?;
        } else {
            self.files.write(&abs, &data).await?;
            self.files
                .chmod(&abs, if mode == MODE_EXEC { 0o755 } else { 0o644 })
                .await?;
        }
        self.files
            .lstat(&abs)
            .await?
            .ok_or_else(|| GitError::Fatal(format!("cannot create '{path}'")))
    }

    /// Remove a work tree file (if there) and the folders it leaves empty.
    pub async fn remove_work(&self, path: &str) -> Result<(), GitError> {
        let abs = self.abs(path);
        if let Some(m) = self.files.lstat(&abs).await?
            && !m.file_type.is_dir()
        {
            self.files.remove_file(&abs).await?;
        }
        self.files
            .prune_empty(self.abs(parent(path)), &self.work_tree)
            .await;
        Ok(())
    }

    /// Check a staged entry out into the work tree and refresh its stat data.
    pub async fn checkout_entry(&self, entry: &mut Entry) -> Result<(), GitError> {
        let meta = self.write_work(&entry.path, entry.mode, &entry.oid).await?;
        entry.set_stat(&meta);
        Ok(())
    }
}
