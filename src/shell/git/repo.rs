//! One repository as a command sees it: where its `.git` and work tree are, its config,
//! objects (loose and packed), index and paths.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, PoisonError};

use super::GitError;
use super::config::{Config, ConfigFile};
use super::files::{Files, below, join, normalize, root_of};
use super::index::Index;
use super::objects::{
    Commit, Kind, MODE_TREE, Oid, TreeEntry, decode_loose, encode_loose, object_id, parse_tree,
    write_tree,
};
use super::pack::Pack;

/// Deepest folder nesting followed in trees (the sandbox refuses deeper paths anyway).
const MAX_TREE_DEPTH: usize = 256;

/// What every command gets: the shell's state and the global options.
pub(super) struct Invocation {
    pub files: Files,
    pub cwd: String,
    pub env: HashMap<String, String>,
    /// `-c key=value` options.
    pub overrides: Vec<(String, String)>,
    pub git_dir: Option<String>,
    pub work_tree: Option<String>,
}

impl Invocation {
    /// `$HOME/.gitconfig` (the sandbox's `/root` unless HOME says otherwise).
    pub fn global_config_path(&self) -> String {
        let home = self
            .env
            .get("HOME")
            .map_or(crate::sandbox::GUEST_HOME, String::as_str);
        normalize("/", &format!("{home}/.gitconfig"))
    }

    /// The config outside any repository: global file, then `-c` values.
    pub async fn base_config(&self) -> Result<Config, GitError> {
        let mut config = Config::default();
        let path = self.global_config_path();
        if root_of(&path).is_some()
            && let Some(text) = self.files.read_opt(&path).await?
        {
            config.push_file(&ConfigFile::parse(&String::from_utf8_lossy(&text)));
        }
        Ok(config)
    }

    fn add_overrides(&self, config: &mut Config) -> Result<(), GitError> {
        for (k, v) in &self.overrides {
            let key = super::config::Key::parse(k)
                .ok_or_else(|| GitError::Fatal(format!("invalid key: {k}")))?;
            config.push(&key, v.clone());
        }
        Ok(())
    }

    /// The repository around the current directory (or the one `--git-dir` names).
    pub async fn open(self) -> Result<Repo, GitError> {
        let (git_dir, work_tree) = self.find().await?;
        let mut config = self.base_config().await?;
        let local = self
            .files
            .read_opt(&format!("{git_dir}/config"))
            .await?
            .map(|t| ConfigFile::parse(&String::from_utf8_lossy(&t)))
            .unwrap_or_default();
        config.push_file(&local);
        self.add_overrides(&mut config)?;
        if config.get_bool("core.bare") == Some(true) && self.work_tree.is_none() {
            return Err(GitError::Fatal(
                "this operation must be run in a work tree (bare repositories are not supported here)"
                    .into(),
            ));
        }
        Ok(Repo {
            files: self.files,
            git_dir,
            work_tree,
            cwd: self.cwd,
            env: self.env,
            config,
            packs: Mutex::new(None),
        })
    }

    /// (git dir, work tree), both absolute and inside the sandbox's directories.
    pub async fn find(&self) -> Result<(String, String), GitError> {
        let env_dir = self
            .git_dir
            .clone()
            .or_else(|| self.env.get("GIT_DIR").cloned());
        let env_tree = self
            .work_tree
            .clone()
            .or_else(|| self.env.get("GIT_WORK_TREE").cloned());
        if let Some(dir) = env_dir {
            let dir = normalize(&self.cwd, &dir);
            check_inside(&dir)?;
            if !self.files.is_dir(&format!("{dir}/objects")).await? {
                return Err(GitError::Fatal(format!("not a git repository: '{dir}'")));
            }
            let tree = match env_tree {
                Some(t) => normalize(&self.cwd, &t),
                None => self.cwd.clone(),
            };
            check_inside(&tree)?;
            return Ok((dir, tree));
        }
        let not_found = || {
            GitError::Fatal(
                "not a git repository (or any of the parent directories): .git".to_string(),
            )
        };
        let Some(root) = root_of(&self.cwd) else {
            return Err(not_found());
        };
        // Up from the current folder, never above the sandbox directory it is in.
        let mut dir = self.cwd.clone();
        loop {
            let dot = format!("{dir}/.git");
            if let Some(meta) = self.files.lstat(&dot).await? {
                let git_dir = if meta.file_type.is_file() {
                    // A `gitdir: PATH` file (linked work trees, submodules).
                    let text = String::from_utf8_lossy(&self.files.read(&dot).await?).into_owned();
                    let target = text
                        .trim()
                        .strip_prefix("gitdir:")
                        .map(str::trim)
                        .ok_or_else(|| GitError::Fatal(format!("invalid gitfile format: {dot}")))?;
                    let target = normalize(&dir, target);
                    check_inside(&target)?;
                    target
                } else {
                    dot
                };
                let tree = match env_tree {
                    Some(t) => normalize(&self.cwd, &t),
                    None => dir,
                };
                check_inside(&tree)?;
                return Ok((git_dir, tree));
            }
            if dir == root {
                return Err(not_found());
            }
            dir = dir
                .rsplit_once('/')
                .map_or(String::new(), |(p, _)| p.to_string());
        }
    }
}

/// Refuse a repository path outside the sandbox's directories.
pub(super) fn check_inside(path: &str) -> Result<(), GitError> {
    if root_of(path).is_none() {
        return Err(GitError::Outside(path.to_string()));
    }
    Ok(())
}

/// An open repository.
pub(super) struct Repo {
    pub files: Files,
    /// Absolute path of the `.git` folder.
    pub git_dir: String,
    /// Absolute path of the top of the work tree.
    pub work_tree: String,
    pub cwd: String,
    pub env: HashMap<String, String>,
    pub config: Config,
    packs: Mutex<Option<Arc<Vec<Pack>>>>,
}

/// A flattened tree: path to (mode, id), in git's path order.
pub(super) type Flat = BTreeMap<String, (u32, Oid)>;

impl Repo {
    /// Absolute path of a file of the git dir.
    pub fn git_path(&self, rel: &str) -> String {
        format!("{}/{rel}", self.git_dir)
    }

    /// Absolute path of a work tree path.
    pub fn abs(&self, path: &str) -> String {
        if path.is_empty() {
            self.work_tree.clone()
        } else {
            format!("{}/{path}", self.work_tree)
        }
    }

    /// The current folder below the top of the work tree ("" at the top; `None` outside).
    pub fn prefix(&self) -> Option<&str> {
        below(&self.cwd, &self.work_tree)
    }

    /// A command-line path as a path of the work tree.
    pub fn repo_path(&self, arg: &str) -> Result<String, GitError> {
        let abs = normalize(&self.cwd, arg);
        match below(&abs, &self.work_tree) {
            Some(p) if !p.split('/').any(|c| c == ".git") => Ok(p.to_string()),
            Some(_) => Err(GitError::Fatal(format!(
                "'{arg}' is inside the repository's .git folder"
            ))),
            None => Err(GitError::Fatal(format!(
                "{arg}: '{arg}' is outside repository at '{}'",
                self.work_tree
            ))),
        }
    }

    /// A work tree path as seen from the current folder (`../x` when above it).
    pub fn display(&self, path: &str) -> String {
        let Some(prefix) = self.prefix() else {
            return path.to_string();
        };
        if prefix.is_empty() {
            return path.to_string();
        }
        let here: Vec<&str> = prefix.split('/').collect();
        let there: Vec<&str> = path.split('/').collect();
        let common = here.iter().zip(&there).take_while(|(a, b)| a == b).count();
        let mut parts: Vec<&str> = vec![".."; here.len() - common];
        parts.extend(&there[common..]);
        let s = parts.join("/");
        if s.is_empty() { ".".into() } else { s }
    }

    // ---- objects ----------------------------------------------------------------------

    fn loose_path(&self, oid: &Oid) -> String {
        let h = oid.hex();
        self.git_path(&format!("objects/{}/{}", &h[..2], &h[2..]))
    }

    /// The packs of the repository, read once per command.
    async fn packs(&self) -> Result<Arc<Vec<Pack>>, GitError> {
        if let Some(p) = self
            .packs
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .as_ref()
        {
            return Ok(p.clone());
        }
        let mut packs = Vec::new();
        let dir = self.git_path("objects/pack");
        if self.files.is_dir(&dir).await? {
            for e in self.files.read_dir(&dir).await? {
                let Some(stem) = e.name.strip_suffix(".idx") else {
                    continue;
                };
                let idx = self.files.read(&format!("{dir}/{}", e.name)).await?;
                let Some(data) = self.files.read_opt(&format!("{dir}/{stem}.pack")).await? else {
                    continue;
                };
                let pack = Pack::parse(&idx, data)
                    .map_err(|e| GitError::Corrupt(format!("{stem}.pack: {e}")))?;
                packs.push(pack);
            }
        }
        let packs = Arc::new(packs);
        *self.packs.lock().unwrap_or_else(PoisonError::into_inner) = Some(packs.clone());
        Ok(packs)
    }

    pub async fn read_object(&self, oid: &Oid) -> Result<(Kind, Vec<u8>), GitError> {
        if let Some(bytes) = self.files.read_opt(&self.loose_path(oid)).await? {
            return decode_loose(&bytes)
                .map_err(|e| GitError::Corrupt(format!("object {}: {e}", oid.hex())));
        }
        for p in self.packs().await?.iter() {
            if let Some(r) = p.read(oid) {
                return r.map_err(|e| GitError::Corrupt(format!("object {}: {e}", oid.hex())));
            }
        }
        Err(GitError::Fatal(format!("object {} not found", oid.hex())))
    }

    pub async fn has_object(&self, oid: &Oid) -> Result<bool, GitError> {
        if self.files.lstat(&self.loose_path(oid)).await?.is_some() {
            return Ok(true);
        }
        Ok(self.packs().await?.iter().any(|p| p.contains(oid)))
    }

    pub async fn write_object(&self, kind: Kind, data: &[u8]) -> Result<Oid, GitError> {
        let oid = object_id(kind, data);
        if self.has_object(&oid).await? {
            return Ok(oid);
        }
        let path = self.loose_path(&oid);
        self.files.mkdirs(super::files::parent_dir(&path)).await?;
        self.files
            .write_atomic(&path, &encode_loose(kind, data))
            .await?;
        // git makes objects read-only (the sandbox keeps them writable by their owner).
        let _ = self.files.chmod(&path, 0o444).await;
        Ok(oid)
    }

    /// The object `oid`, which must be of kind `want`.
    pub async fn read_kind(&self, oid: &Oid, want: Kind) -> Result<Vec<u8>, GitError> {
        let (kind, data) = self.read_object(oid).await?;
        if kind != want {
            return Err(GitError::Fatal(format!(
                "object {} is a {}, not a {}",
                oid.hex(),
                kind.name(),
                want.name()
            )));
        }
        Ok(data)
    }

    pub async fn commit(&self, oid: &Oid) -> Result<Commit, GitError> {
        let data = self.read_kind(oid, Kind::Commit).await?;
        Commit::parse(&data).map_err(|e| GitError::Corrupt(format!("commit {}: {e}", oid.hex())))
    }

    pub async fn tree(&self, oid: &Oid) -> Result<Vec<TreeEntry>, GitError> {
        let data = self.read_kind(oid, Kind::Tree).await?;
        parse_tree(&data).map_err(|e| GitError::Corrupt(format!("tree {}: {e}", oid.hex())))
    }

    /// Every file of a tree, by path.
    pub async fn flatten(&self, tree: &Oid) -> Result<Flat, GitError> {
        let mut out = Flat::new();
        let mut stack = vec![(String::new(), *tree, 0usize)];
        while let Some((dir, oid, depth)) = stack.pop() {
            self.files.tick()?;
            if depth > MAX_TREE_DEPTH {
                return Err(GitError::Corrupt("trees nested too deep".into()));
            }
            for e in self.tree(&oid).await? {
                let path = join(&dir, &e.name);
                if e.mode == MODE_TREE {
                    stack.push((path, e.oid, depth + 1));
                } else {
                    out.insert(path, (e.mode, e.oid));
                }
            }
        }
        Ok(out)
    }

    /// The files of a commit (or of nothing: an empty map).
    pub async fn commit_files(&self, commit: Option<&Oid>) -> Result<Flat, GitError> {
        match commit {
            Some(c) => {
                let tree = self.commit(c).await?.tree;
                self.flatten(&tree).await
            }
            None => Ok(Flat::new()),
        }
    }

    /// Write the trees for a set of files; the id of the top one.
    pub async fn write_trees(&self, files: &Flat) -> Result<Oid, GitError> {
        // Folders from the deepest up, each written once its children have ids.
        let mut dirs: BTreeMap<String, Vec<TreeEntry>> = BTreeMap::new();
        dirs.insert(String::new(), Vec::new());
        for (path, (mode, oid)) in files {
            let (dir, name) = path.rsplit_once('/').unwrap_or(("", path));
            dirs.entry(dir.to_string()).or_default().push(TreeEntry {
                mode: *mode,
                name: name.to_string(),
                oid: *oid,
            });
            // Make sure every ancestor folder exists.
            let mut d = dir;
            while !d.is_empty() {
                d = d.rsplit_once('/').map_or("", |(p, _)| p);
                dirs.entry(d.to_string()).or_default();
            }
        }
        let mut order: Vec<String> = dirs.keys().cloned().collect();
        order.sort_by_key(|d| {
            std::cmp::Reverse(d.matches('/').count() + usize::from(!d.is_empty()))
        });
        let mut top = None;
        for d in order {
            self.files.tick()?;
            let mut entries = dirs.remove(&d).unwrap_or_default();
            let oid = self
                .write_object(Kind::Tree, &write_tree(&mut entries))
                .await?;
            if d.is_empty() {
                top = Some(oid);
            } else {
                let (parent, name) = d.rsplit_once('/').unwrap_or(("", &d));
                dirs.entry(parent.to_string()).or_default().push(TreeEntry {
                    mode: MODE_TREE,
                    name: name.to_string(),
                    oid,
                });
            }
        }
        top.ok_or_else(|| GitError::Corrupt("no top tree".into()))
    }

    /// Hex digits enough to name `oid` unambiguously (at least `min`).
    pub async fn abbrev(&self, oid: &Oid, min: usize) -> Result<String, GitError> {
        let hex = oid.hex();
        let mut others: Vec<String> = Vec::new();
        let dir = self.git_path(&format!("objects/{}", &hex[..2]));
        if self.files.is_dir(&dir).await? {
            for e in self.files.read_dir(&dir).await? {
                let full = format!("{}{}", &hex[..2], e.name);
                if full != hex && full.len() == 40 && full[..min.min(40)] == hex[..min.min(40)] {
                    others.push(full);
                }
            }
        }
        for p in self.packs().await?.iter() {
            others.extend(
                p.with_prefix(&hex[..min.min(40)])
                    .into_iter()
                    .map(|o| o.hex())
                    .filter(|h| *h != hex),
            );
        }
        let mut n = min.clamp(4, 40);
        while n < 40 && others.iter().any(|o| o[..n] == hex[..n]) {
            n += 1;
        }
        Ok(hex[..n].to_string())
    }

    /// Objects whose id starts with `prefix` (hex, at least 4 digits).
    pub async fn objects_with_prefix(&self, prefix: &str) -> Result<Vec<Oid>, GitError> {
        let mut found = Vec::new();
        let dir = self.git_path(&format!("objects/{}", &prefix[..2]));
        if self.files.is_dir(&dir).await? {
            for e in self.files.read_dir(&dir).await? {
                let full = format!("{}{}", &prefix[..2], e.name);
                if full.starts_with(prefix)
                    && let Some(oid) = Oid::from_hex(&full)
                {
                    found.push(oid);
                }
            }
        }
        for p in self.packs().await?.iter() {
            found.extend(p.with_prefix(prefix));
        }
        found.sort();
        found.dedup();
        Ok(found)
    }

    // ---- index ------------------------------------------------------------------------

    pub async fn index(&self) -> Result<Index, GitError> {
        match self.files.read_opt(&self.git_path("index")).await? {
            Some(bytes) => Index::parse(&bytes).map_err(GitError::Corrupt),
            None => Ok(Index::default()),
        }
    }

    /// When the index was last written (entries changed at or after it need hashing).
    pub async fn index_time(&self) -> Result<Option<(u32, u32)>, GitError> {
        Ok(self
            .files
            .lstat(&self.git_path("index"))
            .await?
            .map(|m| super::index::time_pair(m.modified)))
    }

    pub async fn save_index(&self, index: &Index) -> Result<(), GitError> {
        self.files
            .write_atomic(&self.git_path("index"), &index.to_bytes())
            .await
    }

    /// The index as a flat tree (stage 0 only).
    pub fn index_files(index: &Index) -> Flat {
        index
            .entries
            .iter()
            .filter(|e| e.stage == 0)
            .map(|e| (e.path.clone(), (e.mode, e.oid)))
            .collect()
    }

    /// Write a config file edit back.
    pub async fn save_local_config(&self, f: &ConfigFile) -> Result<(), GitError> {
        self.files
            .write_atomic(&self.git_path("config"), f.text().as_bytes())
            .await
    }

    pub async fn local_config(&self) -> Result<ConfigFile, GitError> {
        Ok(self
            .files
            .read_opt(&self.git_path("config"))
            .await?
            .map(|t| ConfigFile::parse(&String::from_utf8_lossy(&t)))
            .unwrap_or_default())
    }
}
