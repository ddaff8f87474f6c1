//! What changed between two sets of files (commits, the index, the work tree), and the ways
//! git shows it: patches, `--stat`, `--name-only`, `--name-status`, `--numstat`, summaries.

use std::collections::BTreeMap;

use super::super::diff::{
    StatRow, counts, diff_lines, is_binary, lines, stat, summary_line, unified,
};
use super::super::index::Index;
use super::super::objects::{Kind, MODE_GITLINK, Oid, object_id};
use super::super::repo::{Flat, Repo};
use super::super::worktree::WorkState;
use super::super::{GitError, Output};
use super::args::{Pathspec, quote_path};

/// One side of a changed file.
#[derive(Clone, Debug)]
pub(super) struct Side {
    pub mode: u32,
    pub oid: Oid,
    /// The content when it is not (or not yet) an object (a work tree file).
    pub data: Option<Vec<u8>>,
}

/// A set of files: path to side.
pub(super) type Snapshot = BTreeMap<String, Side>;

pub(super) fn snapshot(flat: &Flat) -> Snapshot {
    flat.iter()
        .map(|(p, (mode, oid))| {
            (
                p.clone(),
                Side {
                    mode: *mode,
                    oid: *oid,
                    data: None,
                },
            )
        })
        .collect()
}

/// The work tree's version of the staged files named by `ps` (stat data refreshed in
/// `index`; deleted files are left out).
pub(super) async fn work_snapshot(
    repo: &Repo,
    index: &mut Index,
    ps: &Pathspec,
) -> Result<Snapshot, GitError> {
    let mut snap = snapshot(&Repo::index_files(index));
    snap.retain(|p, _| ps.matches(p));
    let changes = repo.work_changes(index, &|p| ps.matches(p)).await?;
    for (path, state) in changes {
        match state {
            WorkState::Changed { mode, oid, data } => {
                snap.insert(
                    path,
                    Side {
                        mode,
                        oid,
                        data: Some(data),
                    },
                );
            }
            WorkState::Deleted => {
                snap.remove(&path);
            }
            WorkState::Same { .. } => {}
        }
    }
    Ok(snap)
}

/// One changed file.
#[derive(Clone, Debug)]
pub(super) struct Change {
    pub old_path: String,
    pub new_path: String,
    pub old: Option<Side>,
    pub new: Option<Side>,
}

impl Change {
    pub fn renamed(&self) -> bool {
        self.old.is_some() && self.new.is_some() && self.old_path != self.new_path
    }

    /// `A`, `D`, `M`, `R`, `T` as `--name-status` and `status --short` print them.
    pub fn letter(&self) -> char {
        match (&self.old, &self.new) {
            (None, _) => 'A',
            (_, None) => 'D',
            _ if self.renamed() => 'R',
            (Some(o), Some(n)) if o.mode >> 12 != n.mode >> 12 => 'T',
            _ => 'M',
        }
    }

    /// The path shown for it (the new one).
    pub fn path(&self) -> &str {
        if self.new.is_some() {
            &self.new_path
        } else {
            &self.old_path
        }
    }
}

/// The blob git calls empty.
fn empty_blob() -> Oid {
    object_id(Kind::Blob, b"")
}

/// The files that differ from `old` to `new` (only those `ps` names), with identical files
/// that moved paired up as renames when `renames` is set.
pub(super) fn compare(old: &Snapshot, new: &Snapshot, ps: &Pathspec, renames: bool) -> Vec<Change> {
    let mut out = Vec::new();
    let mut paths: Vec<&String> = old.keys().chain(new.keys()).collect();
    paths.sort();
    paths.dedup();
    for p in paths {
        if !ps.matches(p) {
            continue;
        }
        let (o, n) = (old.get(p), new.get(p));
        if let (Some(o), Some(n)) = (o, n)
            && o.mode == n.mode
            && o.oid == n.oid
        {
            continue;
        }
        out.push(Change {
            old_path: p.clone(),
            new_path: p.clone(),
            old: o.cloned(),
            new: n.cloned(),
        });
    }
    if renames {
        pair_renames(&mut out);
    }
    out
}

/// Pair each deleted file with an added file of the same content (git's exact renames).
fn pair_renames(changes: &mut Vec<Change>) {
    let empty = empty_blob();
    let mut i = 0;
    while i < changes.len() {
        let is_delete = changes[i].new.is_none()
            && changes[i]
                .old
                .as_ref()
                .is_some_and(|o| o.oid != empty && o.mode != MODE_GITLINK);
        if is_delete {
            let oid = changes[i].old.as_ref().map(|o| o.oid);
            let partner = changes
                .iter()
                .position(|c| c.old.is_none() && c.new.as_ref().map(|n| n.oid) == oid);
            if let Some(j) = partner {
                let added = changes.remove(j);
                let i = if j < i { i - 1 } else { i };
                let c = &mut changes[i];
                c.new = added.new;
                c.new_path = added.new_path;
            }
        }
        i += 1;
    }
    changes.sort_by(|a, b| a.path().cmp(b.path()));
}

/// What to show of the changes.
#[derive(Clone, Debug)]
pub(super) struct Show {
    pub patch: bool,
    pub stat: bool,
    pub numstat: bool,
    pub shortstat: bool,
    pub name_only: bool,
    pub name_status: bool,
    pub summary: bool,
    pub raw: bool,
    /// NUL after each path (`-z`, for `--raw`, `--name-only`, `--name-status`).
    pub nul: bool,
    /// Hex digits of ids in `index` and `--raw` lines.
    pub abbrev: usize,
    pub context: usize,
    /// Ignore whitespace: 0 none, 1 changes in amount (`-b`), 2 all (`-w`).
    pub whitespace: u8,
    pub src_prefix: String,
    pub dst_prefix: String,
}

impl Default for Show {
    fn default() -> Self {
        Show {
            patch: false,
            stat: false,
            numstat: false,
            shortstat: false,
            name_only: false,
            name_status: false,
            summary: false,
            raw: false,
            nul: false,
            abbrev: 7,
            context: 3,
            whitespace: 0,
            src_prefix: "a/".into(),
            dst_prefix: "b/".into(),
        }
    }
}

impl Show {
    /// Take one diff-format option; whether it was one.
    pub fn option(&mut self, a: &str) -> Result<bool, GitError> {
        match a {
            "-p" | "-u" | "--patch" => self.patch = true,
            "--stat" => self.stat = true,
            "--numstat" => self.numstat = true,
            "--shortstat" => self.shortstat = true,
            "--name-only" => self.name_only = true,
            "--name-status" => self.name_status = true,
            "--summary" => self.summary = true,
            "--raw" => self.raw = true,
            "-z" => self.nul = true,
            "--full-index" | "--no-abbrev" => self.abbrev = 40,
            "--abbrev" => self.abbrev = 7,
            "--patch-with-stat" => {
                self.patch = true;
                self.stat = true;
            }
            "-w" | "--ignore-all-space" => self.whitespace = 2,
            "-b" | "--ignore-space-change" => self.whitespace = self.whitespace.max(1),
            "--no-prefix" => {
                self.src_prefix.clear();
                self.dst_prefix.clear();
            }
            "--no-color"
            | "--color=never"
            | "--no-ext-diff"
            | "--no-textconv"
            | "--binary"
            | "-M"
            | "--find-renames"
            | "--no-renames"
            | "--ignore-space-at-eol"
            | "--minimal"
            | "--patience"
            | "--histogram"
            | "--indent-heuristic"
            | "--color" => {}
            a if a.starts_with("--stat=") || a.starts_with("--color=") || a.starts_with("-M") => {
                if a.starts_with("--stat") {
                    self.stat = true;
                }
            }
            a if a.starts_with("-U") || a.starts_with("--unified=") => {
                let n = a.trim_start_matches("-U").trim_start_matches("--unified=");
                self.context = n.parse().map_err(|_| {
                    GitError::Usage(format!("error: invalid context length: {a}\n"))
                })?;
                self.patch = true;
            }
            a if a.starts_with("--abbrev=") => {
                self.abbrev = a[9..]
                    .parse::<usize>()
                    .map_err(|_| GitError::Usage(format!("error: invalid --abbrev: {a}\n")))?
                    .clamp(4, 40);
            }
            a if a.starts_with("--src-prefix=") => self.src_prefix = a[13..].to_string(),
            a if a.starts_with("--dst-prefix=") => self.dst_prefix = a[13..].to_string(),
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// Whether nothing was asked for (the caller's default applies).
    pub fn nothing(&self) -> bool {
        !(self.patch
            || self.stat
            || self.numstat
            || self.shortstat
            || self.name_only
            || self.name_status
            || self.summary
            || self.raw)
    }
}

async fn content(repo: &Repo, side: &Option<Side>) -> Result<Vec<u8>, GitError> {
    match side {
        None => Ok(Vec::new()),
        Some(s) if s.mode == MODE_GITLINK => {
            Ok(format!("Subproject commit {}\n", s.oid.hex()).into_bytes())
        }
        Some(Side { data: Some(d), .. }) => Ok(d.clone()),
        Some(s) => repo.read_kind(&s.oid, Kind::Blob).await,
    }
}

fn ws_key(line: &[u8], level: u8) -> Vec<u8> {
    match level {
        2 => line
            .iter()
            .copied()
            .filter(|b| !b.is_ascii_whitespace())
            .collect(),
        _ => {
            let mut out = Vec::new();
            let mut space = false;
            for &b in line {
                if b.is_ascii_whitespace() {
                    space = true;
                } else {
                    if space && !out.is_empty() {
                        out.push(b' ');
                    }
                    space = false;
                    out.push(b);
                }
            }
            out
        }
    }
}

/// One file's text diff: its hunks and line counts (`None` for binary content).
struct FileDiff {
    hunks: Vec<u8>,
    added: usize,
    removed: usize,
    binary: Option<(usize, usize)>,
}

fn file_diff(a: &[u8], b: &[u8], show: &Show) -> FileDiff {
    if is_binary(a) || is_binary(b) {
        return FileDiff {
            hunks: Vec::new(),
            added: 0,
            removed: 0,
            binary: Some((a.len(), b.len())),
        };
    }
    let (la, lb) = (lines(a), lines(b));
    let ch = if show.whitespace > 0 {
        let ka: Vec<Vec<u8>> = la.iter().map(|l| ws_key(l, show.whitespace)).collect();
        let kb: Vec<Vec<u8>> = lb.iter().map(|l| ws_key(l, show.whitespace)).collect();
        let ra: Vec<&[u8]> = ka.iter().map(Vec::as_slice).collect();
        let rb: Vec<&[u8]> = kb.iter().map(Vec::as_slice).collect();
        diff_lines(&ra, &rb)
    } else {
        diff_lines(&la, &lb)
    };
    let (added, removed) = counts(&ch);
    FileDiff {
        hunks: unified(&la, &lb, &ch, show.context),
        added,
        removed,
        binary: None,
    }
}

/// `a/path` as git writes it in headers, quoted when needed.
fn label(prefix: &str, path: &str) -> String {
    quote_path(&format!("{prefix}{path}"))
}

/// The patch of one change (a type change is shown as a deletion and a creation).
async fn patch(
    repo: &Repo,
    c: &Change,
    show: &Show,
    out: &mut Vec<u8>,
) -> Result<FileDiff, GitError> {
    if let (Some(o), Some(n)) = (&c.old, &c.new)
        && o.mode >> 12 != n.mode >> 12
    {
        let del = Change {
            new: None,
            ..c.clone()
        };
        let add = Change {
            old: None,
            ..c.clone()
        };
        let a = Box::pin(patch(repo, &del, show, out)).await?;
        let b = Box::pin(patch(repo, &add, show, out)).await?;
        return Ok(FileDiff {
            hunks: Vec::new(),
            added: b.added,
            removed: a.removed,
            binary: None,
        });
    }
    let (a, b) = (content(repo, &c.old).await?, content(repo, &c.new).await?);
    let fd = file_diff(&a, &b, show);
    if show.whitespace > 0
        && fd.hunks.is_empty()
        && fd.binary.is_none()
        && c.old.is_some()
        && c.new.is_some()
        && !c.renamed()
        && c.old.as_ref().map(|s| s.mode) == c.new.as_ref().map(|s| s.mode)
    {
        return Ok(fd);
    }
    let Some(mut h) = header_lines(c, show) else {
        return Ok(fd);
    };
    h.push_str(&index_lines(repo, c, show, &fd).await?);
    out.extend_from_slice(h.as_bytes());
    out.extend_from_slice(&fd.hunks);
    Ok(fd)
}

/// `diff --git a/x b/y` and the mode and rename lines under it; None when neither side exists.
fn header_lines(c: &Change, show: &Show) -> Option<String> {
    let mut h = format!(
        "diff --git {} {}\n",
        label(&show.src_prefix, &c.old_path),
        label(&show.dst_prefix, &c.new_path)
    );
    match (&c.old, &c.new) {
        (None, Some(n)) => h.push_str(&format!("new file mode {:06o}\n", n.mode)),
        (Some(o), None) => h.push_str(&format!("deleted file mode {:06o}\n", o.mode)),
        (Some(o), Some(n)) => {
            if o.mode != n.mode {
                h.push_str(&format!(
                    "old mode {:06o}\nnew mode {:06o}\n",
                    o.mode, n.mode
                ));
            }
            if c.renamed() {
                let sim = if o.oid == n.oid { 100 } else { 0 };
                h.push_str(&format!(
                    "similarity index {sim}%\nrename from {}\nrename to {}\n",
                    quote_path(&c.old_path),
                    quote_path(&c.new_path)
                ));
            }
        }
        (None, None) => return None,
    }
    Some(h)
}

/// The `index OLD..NEW [MODE]` line and the `---`/`+++` (or `Binary files`) lines, when the
/// content changed.
async fn index_lines(
    repo: &Repo,
    c: &Change,
    show: &Show,
    fd: &FileDiff,
) -> Result<String, GitError> {
    let mut h = String::new();
    let old_oid = c.old.as_ref().map_or(Oid::ZERO, |s| s.oid);
    let new_oid = c.new.as_ref().map_or(Oid::ZERO, |s| s.oid);
    if old_oid != new_oid {
        let short = |o: Oid| async move {
            if o == Oid::ZERO {
                Ok::<_, GitError>("0000000".to_string())
            } else {
                repo.abbrev(&o, show.abbrev).await
            }
        };
        h.push_str(&format!(
            "index {}..{}",
            short(old_oid).await?,
            short(new_oid).await?
        ));
        if let (Some(o), Some(n)) = (&c.old, &c.new)
            && o.mode == n.mode
        {
            h.push_str(&format!(" {:06o}", o.mode));
        }
        h.push('\n');
        let from = if c.old.is_some() {
            label(&show.src_prefix, &c.old_path)
        } else {
            "/dev/null".into()
        };
        let to = if c.new.is_some() {
            label(&show.dst_prefix, &c.new_path)
        } else {
            "/dev/null".into()
        };
        if fd.binary.is_some() {
            h.push_str(&format!("Binary files {from} and {to} differ\n"));
        } else if !fd.hunks.is_empty() {
            h.push_str(&format!("--- {from}\n+++ {to}\n"));
        }
    }
    Ok(h)
}

/// A `--raw` line: modes, ids (zeros for a work tree file git has not stored), letter, paths.
async fn raw_line(repo: &Repo, c: &Change, show: &Show) -> Result<String, GitError> {
    let id = |side: &Option<Side>| {
        let side = side.clone();
        async move {
            match side {
                Some(s) if s.data.is_none() => repo.abbrev(&s.oid, show.abbrev).await,
                _ => Ok("0".repeat(show.abbrev)),
            }
        }
    };
    let mode = |side: &Option<Side>| side.as_ref().map_or(0, |s| s.mode);
    let (sep, end) = if show.nul { ("\0", "\0") } else { ("\t", "\n") };
    let q = |p: &str| {
        if show.nul {
            p.to_string()
        } else {
            quote_path(p)
        }
    };
    let head = format!(
        ":{:06o} {:06o} {} {} ",
        mode(&c.old),
        mode(&c.new),
        id(&c.old).await?,
        id(&c.new).await?
    );
    Ok(if c.renamed() {
        format!(
            "{head}R100{sep}{}{sep}{}{end}",
            q(&c.old_path),
            q(&c.new_path)
        )
    } else {
        format!("{head}{}{sep}{}{end}", c.letter(), q(c.path()))
    })
}

/// The name shown in `--stat` for a change.
fn stat_name(c: &Change) -> String {
    if c.renamed() {
        format!("{} => {}", quote_path(&c.old_path), quote_path(&c.new_path))
    } else {
        quote_path(c.path())
    }
}

/// Line counts of every change (for `--stat` and summaries), without printing patches.
async fn rows(repo: &Repo, changes: &[Change], show: &Show) -> Result<Vec<StatRow>, GitError> {
    let mut rows = Vec::new();
    for c in changes {
        repo.files.tick()?;
        let (a, b) = (content(repo, &c.old).await?, content(repo, &c.new).await?);
        let same_content = c.old.as_ref().map(|s| s.oid) == c.new.as_ref().map(|s| s.oid);
        let fd = if same_content {
            FileDiff {
                hunks: Vec::new(),
                added: 0,
                removed: 0,
                binary: None,
            }
        } else {
            file_diff(&a, &b, show)
        };
        rows.push(StatRow {
            name: stat_name(c),
            added: fd.added,
            removed: fd.removed,
            binary: fd.binary,
        });
    }
    Ok(rows)
}

/// ` create mode 100644 x` lines and the like.
pub(super) fn summary_lines(changes: &[Change]) -> String {
    let mut s = String::new();
    for c in changes {
        match (&c.old, &c.new) {
            (None, Some(n)) => s.push_str(&format!(
                " create mode {:06o} {}\n",
                n.mode,
                quote_path(&c.new_path)
            )),
            (Some(o), None) => s.push_str(&format!(
                " delete mode {:06o} {}\n",
                o.mode,
                quote_path(&c.old_path)
            )),
            (Some(o), Some(n)) => {
                if c.renamed() {
                    s.push_str(&format!(
                        " rename {} => {} (100%)\n",
                        c.old_path, c.new_path
                    ));
                }
                if o.mode != n.mode && o.mode >> 12 == n.mode >> 12 {
                    s.push_str(&format!(
                        " mode change {:06o} => {:06o} {}\n",
                        o.mode,
                        n.mode,
                        quote_path(&c.new_path)
                    ));
                }
            }
            (None, None) => {}
        }
    }
    s
}

/// The ` N files changed, ...` line for the changes.
pub(super) async fn shortstat(repo: &Repo, changes: &[Change]) -> Result<String, GitError> {
    let rows = rows(repo, changes, &Show::default()).await?;
    Ok(summary_line(&rows))
}

/// Show the changes as asked (a patch when nothing was asked).
pub(super) async fn render(
    repo: &Repo,
    changes: &[Change],
    show: &Show,
) -> Result<Vec<u8>, GitError> {
    let mut out = Vec::new();
    if changes.is_empty() {
        return Ok(out);
    }
    let patch_wanted = show.patch || show.nothing();
    let end = if show.nul { "\0" } else { "\n" };
    if show.raw {
        for c in changes {
            out.extend_from_slice(raw_line(repo, c, show).await?.as_bytes());
        }
    }
    if show.name_only {
        for c in changes {
            let name = if show.nul {
                c.path().to_string()
            } else {
                quote_path(c.path())
            };
            out.extend_from_slice(format!("{name}{end}").as_bytes());
        }
    }
    if show.name_status {
        for c in changes {
            let q = |p: &str| {
                if show.nul {
                    p.to_string()
                } else {
                    quote_path(p)
                }
            };
            let sep = if show.nul { "\0" } else { "\t" };
            let line = if c.renamed() {
                format!("R100{sep}{}{sep}{}{end}", q(&c.old_path), q(&c.new_path))
            } else {
                format!("{}{sep}{}{end}", c.letter(), q(c.path()))
            };
            out.extend_from_slice(line.as_bytes());
        }
    }
    if show.stat || show.numstat || show.shortstat {
        let rows = rows(repo, changes, show).await?;
        if show.numstat {
            for r in &rows {
                let line = match r.binary {
                    Some(_) => format!("-\t-\t{}\n", r.name),
                    None => format!("{}\t{}\t{}\n", r.added, r.removed, r.name),
                };
                out.extend_from_slice(line.as_bytes());
            }
        }
        if show.stat {
            out.extend_from_slice(stat(&rows).as_bytes());
        } else if show.shortstat {
            out.extend_from_slice(summary_line(&rows).as_bytes());
        }
    }
    if show.summary {
        out.extend_from_slice(summary_lines(changes).as_bytes());
    }
    if patch_wanted && !(show.name_only || show.name_status) {
        if show.stat || show.numstat || show.shortstat || show.summary {
            out.extend_from_slice(b"\n");
        }
        for c in changes {
            repo.files.tick()?;
            patch(repo, c, show, &mut out).await?;
        }
    }
    Ok(out)
}

/// Print rendered changes into `o`.
pub(super) async fn print(
    repo: &Repo,
    changes: &[Change],
    show: &Show,
    o: &mut Output,
) -> Result<(), GitError> {
    let bytes = render(repo, changes, show).await?;
    o.out(bytes);
    Ok(())
}
