//! `HEAD`, branches and tags (loose files and `packed-refs`), and revisions as commands take
//! them: `HEAD~2`, `main^`, `abc1234`, `v1.0`, `HEAD:path`, `:path`.

use super::GitError;
use super::objects::{Kind, Oid, tag_target};
use super::repo::Repo;

/// Where `HEAD` points.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Head {
    /// On a branch (`refs/heads/NAME`), which may not have a commit yet.
    Branch(String),
    /// At a commit, on no branch.
    Detached(Oid),
}

/// Symbolic refs followed at most this many times.
const MAX_SYMREF: usize = 5;

/// Whether `name` may be a branch or tag name (git's `check-ref-format` rules).
pub(super) fn valid_ref_name(name: &str) -> bool {
    !(name.is_empty()
        || name == "@"
        || name == "HEAD"
        || name.starts_with('-')
        || name.starts_with('/')
        || name.ends_with('/')
        || name.ends_with('.')
        || name.ends_with(".lock")
        || name.contains("..")
        || name.contains("//")
        || name.contains("@{")
        || name
            .split('/')
            .any(|c| c.starts_with('.') || c.ends_with(".lock"))
        || name
            .chars()
            .any(|c| c.is_control() || " ~^:?*[\\".contains(c)))
}

impl Repo {
    pub async fn head(&self) -> Result<Head, GitError> {
        let text = self
            .files
            .read_opt(&self.git_path("HEAD"))
            .await?
            .ok_or_else(|| GitError::Corrupt("HEAD is missing".into()))?;
        let text = String::from_utf8_lossy(&text);
        let text = text.trim();
        if let Some(r) = text.strip_prefix("ref:") {
            return Ok(Head::Branch(r.trim().to_string()));
        }
        Oid::from_hex(text)
            .map(Head::Detached)
            .ok_or_else(|| GitError::Corrupt("HEAD is not a ref or an id".into()))
    }

    /// The commit `HEAD` is at; `None` on a branch with no commit yet.
    pub async fn head_commit(&self) -> Result<Option<Oid>, GitError> {
        match self.head().await? {
            Head::Detached(oid) => Ok(Some(oid)),
            Head::Branch(r) => self.read_ref(&r).await,
        }
    }

    /// The current branch's short name, if on one.
    pub async fn branch_name(&self) -> Result<Option<String>, GitError> {
        Ok(match self.head().await? {
            Head::Branch(r) => Some(r.strip_prefix("refs/heads/").unwrap_or(&r).to_string()),
            Head::Detached(_) => None,
        })
    }

    async fn packed_refs(&self) -> Result<Vec<(String, Oid)>, GitError> {
        let Some(text) = self.files.read_opt(&self.git_path("packed-refs")).await? else {
            return Ok(Vec::new());
        };
        Ok(String::from_utf8_lossy(&text)
            .lines()
            .filter(|l| !l.starts_with('#') && !l.starts_with('^'))
            .filter_map(|l| {
                let (h, name) = l.split_once(' ')?;
                Some((name.trim().to_string(), Oid::from_hex(h)?))
            })
            .collect())
    }

    /// The id a full ref name (`refs/heads/x`, `HEAD`) points at, following symbolic refs.
    pub async fn read_ref(&self, name: &str) -> Result<Option<Oid>, GitError> {
        let mut name = name.to_string();
        for _ in 0..MAX_SYMREF {
            if !name.split('/').all(super::objects::safe_name) {
                return Ok(None);
            }
            let path = self.git_path(&name);
            if self.files.is_dir(&path).await? {
                return Ok(None);
            }
            match self.files.read_opt(&path).await? {
                Some(bytes) => {
                    let text = String::from_utf8_lossy(&bytes);
                    let text = text.trim();
                    if let Some(target) = text.strip_prefix("ref:") {
                        name = target.trim().to_string();
                        continue;
                    }
                    return Ok(Oid::from_hex(text));
                }
                None => {
                    return Ok(self
                        .packed_refs()
                        .await?
                        .into_iter()
                        .find(|(n, _)| *n == name)
                        .map(|(_, o)| o));
                }
            }
        }
        Ok(None)
    }

    pub async fn write_ref(&self, name: &str, oid: &Oid) -> Result<(), GitError> {
        let path = self.git_path(name);
        self.files.mkdirs(super::files::parent_dir(&path)).await?;
        self.files
            .write_atomic(&path, format!("{}\n", oid.hex()).as_bytes())
            .await
    }

    pub async fn delete_ref(&self, name: &str) -> Result<(), GitError> {
        let path = self.git_path(name);
        if self.files.lstat(&path).await?.is_some() {
            self.files.remove_file(&path).await?;
        }
        let packed = self.packed_refs().await?;
        if packed.iter().any(|(n, _)| n == name) {
            let text: String = packed
                .iter()
                .filter(|(n, _)| n != name)
                .map(|(n, o)| format!("{} {n}\n", o.hex()))
                .collect();
            self.files
                .write_atomic(
                    &self.git_path("packed-refs"),
                    format!("# pack-refs with: peeled fully-peeled sorted \n{text}").as_bytes(),
                )
                .await?;
        }
        Ok(())
    }

    /// Point `HEAD` at a branch (which need not exist yet).
    pub async fn set_head_branch(&self, full: &str) -> Result<(), GitError> {
        self.files
            .write_atomic(&self.git_path("HEAD"), format!("ref: {full}\n").as_bytes())
            .await
    }

    pub async fn set_head_detached(&self, oid: &Oid) -> Result<(), GitError> {
        self.files
            .write_atomic(
                &self.git_path("HEAD"),
                format!("{}\n", oid.hex()).as_bytes(),
            )
            .await
    }

    /// Move what `HEAD` stands for (its branch, or `HEAD` itself) to `oid`, noting `why` in
    /// the logs of both.
    pub async fn move_head(&self, oid: &Oid, why: &str) -> Result<(), GitError> {
        let old = self.head_commit().await?;
        match self.head().await? {
            Head::Branch(r) => {
                self.write_ref(&r, oid).await?;
                self.log_ref(&r, old, *oid, why).await?;
            }
            Head::Detached(_) => self.set_head_detached(oid).await?,
        }
        self.log_ref("HEAD", old, *oid, why).await
    }

    /// Append a line to the log of ref `name` (`HEAD`, `refs/heads/x`), as git keeps them
    /// (`core.logAllRefUpdates`): old id, new id, who, when, why.
    pub async fn log_ref(
        &self,
        name: &str,
        old: Option<Oid>,
        new: Oid,
        why: &str,
    ) -> Result<(), GitError> {
        let who = super::identity::ident(self, "COMMITTER");
        let line = format!(
            "{} {} {}\t{}\n",
            old.unwrap_or(Oid::ZERO).hex(),
            new.hex(),
            who.to_header(),
            why.lines().next().unwrap_or("")
        );
        let path = self.git_path(&format!("logs/{name}"));
        self.files.mkdirs(super::files::parent_dir(&path)).await?;
        self.files.append(&path, line.as_bytes()).await
    }

    /// The log of ref `name`, newest first: (new id, why).
    pub async fn reflog(&self, name: &str) -> Result<Vec<(Oid, String)>, GitError> {
        let Some(text) = self
            .files
            .read_opt(&self.git_path(&format!("logs/{name}")))
            .await?
        else {
            return Ok(Vec::new());
        };
        let mut out: Vec<(Oid, String)> = String::from_utf8_lossy(&text)
            .lines()
            .filter_map(|l| {
                let new = Oid::from_hex(l.get(41..81)?)?;
                let why = l.split_once('\t').map_or("", |(_, w)| w).to_string();
                Some((new, why))
            })
            .collect();
        out.reverse();
        Ok(out)
    }

    /// The branch checked out before the current one, `n` switches back (`@{-n}`, `-`).
    pub async fn previous_branch(&self, n: usize) -> Result<Option<String>, GitError> {
        let moves = self
            .reflog("HEAD")
            .await?
            .into_iter()
            .filter_map(|(_, why)| {
                let rest = why.strip_prefix("checkout: moving from ")?;
                Some(rest.rsplit_once(" to ")?.0.to_string())
            });
        Ok(moves.into_iter().nth(n.saturating_sub(1)))
    }

    /// Full names and ids of the refs under `prefix` (`refs/heads/`), sorted.
    pub async fn refs_under(&self, prefix: &str) -> Result<Vec<(String, Oid)>, GitError> {
        let mut out: Vec<(String, Oid)> = self
            .packed_refs()
            .await?
            .into_iter()
            .filter(|(n, _)| n.starts_with(prefix))
            .collect();
        let mut stack = vec![prefix.trim_end_matches('/').to_string()];
        while let Some(dir) = stack.pop() {
            self.files.tick()?;
            let path = self.git_path(&dir);
            if !self.files.is_dir(&path).await? {
                continue;
            }
            for e in self.files.read_dir(&path).await? {
                let name = format!("{dir}/{}", e.name);
                if e.metadata.file_type.is_dir() {
                    stack.push(name);
                } else if !e.name.ends_with(".lock")
                    && let Some(oid) = self.read_ref(&name).await?
                {
                    out.retain(|(n, _)| *n != name);
                    out.push((name, oid));
                }
            }
        }
        out.sort();
        Ok(out)
    }

    /// The full ref a short name stands for, in git's order of precedence.
    pub async fn dwim_ref(&self, name: &str) -> Result<Option<(String, Oid)>, GitError> {
        if !valid_ref_name(name) && name != "HEAD" {
            return Ok(None);
        }
        for full in [
            name.to_string(),
            format!("refs/{name}"),
            format!("refs/tags/{name}"),
            format!("refs/heads/{name}"),
            format!("refs/remotes/{name}"),
            format!("refs/remotes/{name}/HEAD"),
        ] {
            if let Some(oid) = self.read_ref(&full).await? {
                return Ok(Some((full, oid)));
            }
        }
        Ok(None)
    }

    /// Follow annotated tags down to what they tag.
    pub async fn peel(&self, oid: Oid) -> Result<(Oid, Kind), GitError> {
        let mut oid = oid;
        for _ in 0..MAX_SYMREF {
            let (kind, data) = self.read_object(&oid).await?;
            if kind != Kind::Tag {
                return Ok((oid, kind));
            }
            oid = tag_target(&data).ok_or_else(|| GitError::Corrupt("bad tag".into()))?;
        }
        Err(GitError::Corrupt("tags nested too deep".into()))
    }

    /// A revision as an object id; `None` when it names nothing.
    pub async fn try_resolve(&self, spec: &str) -> Result<Option<Oid>, GitError> {
        if let Some((rev, path)) = spec.split_once(':') {
            return self.resolve_path_in(rev, path).await;
        }
        // The name, then `~N`, `^N`, `^{...}` steps.
        let cut = spec.find(['~', '^']).unwrap_or(spec.len());
        let (base, mut ops) = spec.split_at(cut);
        let Some(mut oid) = self.resolve_base(base).await? else {
            return Ok(None);
        };
        while !ops.is_empty() {
            self.files.tick()?;
            let op = ops.as_bytes()[0];
            ops = &ops[1..];
            if op == b'^' && ops.starts_with('{') {
                let end = ops.find('}').ok_or_else(|| bad_rev(spec))?;
                let want = &ops[1..end];
                ops = &ops[end + 1..];
                let (peeled, kind) = self.peel(oid).await?;
                oid = match (want, kind) {
                    ("" | "object", _) => peeled,
                    ("commit", Kind::Commit) => peeled,
                    ("tree", Kind::Commit) => self.commit(&peeled).await?.tree,
                    ("tree", Kind::Tree) => peeled,
                    _ => return Ok(None),
                };
                continue;
            }
            let digits = ops.bytes().take_while(u8::is_ascii_digit).count();
            let n: usize = if digits == 0 {
                1
            } else {
                ops[..digits].parse().map_err(|_| bad_rev(spec))?
            };
            ops = &ops[digits..];
            let (commit_id, kind) = self.peel(oid).await?;
            if kind != Kind::Commit {
                return Ok(None);
            }
            oid = commit_id;
            if op == b'~' {
                for _ in 0..n {
                    self.files.tick()?;
                    match self.commit(&oid).await?.parents.first() {
                        Some(p) => oid = *p,
                        None => return Ok(None),
                    }
                }
            } else if n > 0 {
                match self.commit(&oid).await?.parents.get(n - 1) {
                    Some(p) => oid = *p,
                    None => return Ok(None),
                }
            }
        }
        Ok(Some(oid))
    }

    async fn resolve_base(&self, base: &str) -> Result<Option<Oid>, GitError> {
        // `@{-N}`, `NAME@{N}`, `@{N}`: from the logs.
        if let Some((name, rest)) = base.split_once("@{")
            && let Some(n) = rest.strip_suffix('}')
        {
            if let Some(back) = n.strip_prefix('-') {
                let Ok(back) = back.parse::<usize>() else {
                    return Ok(None);
                };
                return match self.previous_branch(back).await? {
                    Some(b) => Box::pin(self.resolve_base(&b)).await,
                    None => Ok(None),
                };
            }
            let Ok(n) = n.parse::<usize>() else {
                return Ok(None);
            };
            let full = match name {
                "" => match self.head().await? {
                    Head::Branch(r) => r,
                    Head::Detached(_) => "HEAD".into(),
                },
                "HEAD" => "HEAD".into(),
                other => match self.dwim_ref(other).await? {
                    Some((r, _)) => r,
                    None => return Ok(None),
                },
            };
            return Ok(self.reflog(&full).await?.get(n).map(|(o, _)| *o));
        }
        if base == "HEAD" || base == "@" {
            return self.head_commit().await;
        }
        if let Some(oid) = Oid::from_hex(base) {
            return Ok(Some(oid));
        }
        if let Some((_, oid)) = self.dwim_ref(base).await? {
            return Ok(Some(oid));
        }
        if base.len() >= 4 && base.len() < 40 && base.bytes().all(|b| b.is_ascii_hexdigit()) {
            let found = self.objects_with_prefix(&base.to_ascii_lowercase()).await?;
            return match found.as_slice() {
                [one] => Ok(Some(*one)),
                [] => Ok(None),
                _ => Err(GitError::Fatal(format!(
                    "short object ID {base} is ambiguous"
                ))),
            };
        }
        Ok(None)
    }

    /// `REV:PATH` (a file or folder of a commit) or `:PATH` (a staged file).
    async fn resolve_path_in(&self, rev: &str, path: &str) -> Result<Option<Oid>, GitError> {
        let path = if path.starts_with("./") || path.starts_with("../") {
            self.repo_path(path)?
        } else {
            path.trim_matches('/').to_string()
        };
        if rev.is_empty() || rev == "0" {
            let index = self.index().await?;
            return Ok(index.get(&path).map(|e| e.oid));
        }
        let Some(oid) = Box::pin(self.try_resolve(rev)).await? else {
            return Ok(None);
        };
        let (mut oid, kind) = self.peel(oid).await?;
        if kind == Kind::Commit {
            oid = self.commit(&oid).await?.tree;
        }
        if path.is_empty() {
            return Ok(Some(oid));
        }
        for part in path.split('/') {
            let entries = self.tree(&oid).await?;
            match entries.iter().find(|e| e.name == part) {
                Some(e) => oid = e.oid,
                None => return Ok(None),
            }
        }
        Ok(Some(oid))
    }

    /// A revision that must name something.
    pub async fn resolve(&self, spec: &str) -> Result<Oid, GitError> {
        self.try_resolve(spec).await?.ok_or_else(|| bad_rev(spec))
    }

    /// A revision that must name a commit.
    pub async fn resolve_commit(&self, spec: &str) -> Result<Oid, GitError> {
        let oid = self.resolve(spec).await?;
        match self.peel(oid).await? {
            (c, Kind::Commit) => Ok(c),
            _ => Err(GitError::Fatal(format!("'{spec}' is not a commit"))),
        }
    }
}

/// git's words for a revision that names nothing.
pub(super) fn bad_rev(spec: &str) -> GitError {
    GitError::Fatal(format!(
        "ambiguous argument '{spec}': unknown revision or path not in the working tree.\n\
         Use '--' to separate paths from revisions, like this:\n\
         'git <command> [<revision>...] -- [<file>...]'"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ref_names_follow_check_ref_format() {
        for ok in ["main", "feature/x", "v1.0", "fix-1_2"] {
            assert!(valid_ref_name(ok), "{ok}");
        }
        for bad in [
            "", "-x", "a..b", "a b", "a~1", "x.lock", "a/", ".hidden", "a/.b", "@", "a@{1}", "HEAD",
        ] {
            assert!(!valid_ref_name(bad), "{bad}");
        }
    }
}
