//! `git status` (long, `--short`, `--porcelain`) and `git ls-files`.

use std::collections::BTreeSet;

use super::super::index::Index;
use super::super::refs::Head;
use super::super::repo::Repo;
use super::super::worktree::WorkState;
use super::super::{GitError, Output};
use super::args::{Pathspec, quote_path, split_dashdash, unknown_option};
use super::changes::{Change, compare, snapshot};

/// How untracked files are listed.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Untracked {
    No,
    Normal,
    All,
}

/// Everything `status` reports.
struct State {
    head: Head,
    unborn: bool,
    staged: Vec<Change>,
    /// (path, 'M' | 'D' | 'T')
    unstaged: Vec<(String, char)>,
    untracked: Vec<String>,
    conflicts: Vec<String>,
}

/// Untracked paths: files, or with `Normal` the outermost folder holding no staged file.
async fn untracked(
    repo: &Repo,
    index: &Index,
    ps: &Pathspec,
    mode: Untracked,
) -> Result<Vec<String>, GitError> {
    if mode == Untracked::No {
        return Ok(Vec::new());
    }
    let scan = repo.scan("", false).await?;
    let mut out = BTreeSet::new();
    let paths = scan
        .files
        .iter()
        .map(|f| (f.path.clone(), false))
        .chain(scan.nested.iter().map(|n| (n.clone(), true)));
    for (path, nested) in paths {
        if index.get(&path).is_some() || !ps.matches(&path) {
            continue;
        }
        if nested && index.has_dir(&path) {
            continue;
        }
        let shown = if mode == Untracked::Normal {
            // The first folder from the top that holds nothing staged.
            let mut at = 0;
            let mut found = None;
            while let Some(i) = path[at..].find('/') {
                let dir = &path[..at + i];
                if !index.has_dir(dir) {
                    found = Some(format!("{dir}/"));
                    break;
                }
                at += i + 1;
            }
            found.unwrap_or_else(|| {
                if nested {
                    format!("{path}/")
                } else {
                    path.clone()
                }
            })
        } else if nested {
            format!("{path}/")
        } else {
            path.clone()
        };
        out.insert(shown);
    }
    Ok(out.into_iter().collect())
}

async fn state(repo: &Repo, ps: &Pathspec, mode: Untracked) -> Result<State, GitError> {
    let head = repo.head().await?;
    let head_commit = repo.head_commit().await?;
    let mut index = repo.index().await?;
    let head_files = repo.commit_files(head_commit.as_ref()).await?;
    let conflicts: Vec<String> = {
        let mut c: Vec<String> = index
            .entries
            .iter()
            .filter(|e| e.stage != 0 && ps.matches(&e.path))
            .map(|e| e.path.clone())
            .collect();
        c.dedup();
        c
    };
    let mut staged = compare(
        &snapshot(&head_files),
        &snapshot(&Repo::index_files(&index)),
        ps,
        true,
    );
    staged.retain(|c| !conflicts.contains(&c.path().to_string()));
    let before = index.clone();
    let changes = repo.work_changes(&mut index, &|p| ps.matches(p)).await?;
    let unstaged = changes
        .into_iter()
        .map(|(p, s)| {
            let letter = match s {
                WorkState::Deleted => 'D',
                WorkState::Changed { mode, .. } => {
                    let old = index.get(&p).map_or(mode, |e| e.mode);
                    if old >> 12 != mode >> 12 { 'T' } else { 'M' }
                }
                WorkState::Same { .. } => 'M',
            };
            (p, letter)
        })
        .collect();
    // Like git, keep refreshed stat data so the next look is cheaper.
    if before.entries != index.entries {
        let _ = repo.save_index(&index).await;
    }
    let untracked = untracked(repo, &index, ps, mode).await?;
    Ok(State {
        unborn: head_commit.is_none(),
        head,
        staged,
        unstaged,
        untracked,
        conflicts,
    })
}

fn label(letter: char) -> &'static str {
    match letter {
        'A' => "new file:",
        'D' => "deleted:",
        'R' => "renamed:",
        'T' => "typechange:",
        _ => "modified:",
    }
}

/// The long `git status` text (also what `git commit` prints when there is nothing to commit).
pub(super) async fn long_status(repo: &Repo, for_commit: bool) -> Result<Output, GitError> {
    let st = state(repo, &Pathspec::default(), Untracked::Normal).await?;
    Ok(Output::stdout(long_text(repo, &st, for_commit).await?))
}

async fn long_text(repo: &Repo, st: &State, for_commit: bool) -> Result<String, GitError> {
    let mut s = String::new();
    match &st.head {
        Head::Branch(r) => s.push_str(&format!(
            "On branch {}\n",
            r.strip_prefix("refs/heads/").unwrap_or(r)
        )),
        Head::Detached(oid) => s.push_str(&format!(
            "HEAD detached at {}\n",
            repo.abbrev(oid, 7).await?
        )),
    }
    if st.unborn {
        s.push_str(if for_commit {
            "\nInitial commit\n\n"
        } else {
            "\nNo commits yet\n\n"
        });
    }
    let pad = |l: &str| format!("{l:<12}");
    if !st.staged.is_empty() {
        s.push_str("Changes to be committed:\n");
        s.push_str(if st.unborn {
            "  (use \"git rm --cached <file>...\" to unstage)\n"
        } else {
            "  (use \"git restore --staged <file>...\" to unstage)\n"
        });
        for c in &st.staged {
            let what = if c.renamed() {
                format!(
                    "{} -> {}",
                    quote_path(&repo.display(&c.old_path)),
                    quote_path(&repo.display(&c.new_path))
                )
            } else {
                quote_path(&repo.display(c.path()))
            };
            s.push_str(&format!("\t{}{what}\n", pad(label(c.letter()))));
        }
        s.push('\n');
    }
    if !st.conflicts.is_empty() {
        s.push_str("Unmerged paths:\n  (use \"git add <file>...\" to mark resolution)\n");
        for p in &st.conflicts {
            s.push_str(&format!(
                "\t{}{}\n",
                pad("both modified:"),
                quote_path(&repo.display(p))
            ));
        }
        s.push('\n');
    }
    if !st.unstaged.is_empty() {
        s.push_str("Changes not staged for commit:\n");
        if st.unstaged.iter().any(|(_, l)| *l == 'D') {
            s.push_str("  (use \"git add/rm <file>...\" to update what will be committed)\n");
        } else {
            s.push_str("  (use \"git add <file>...\" to update what will be committed)\n");
        }
        s.push_str("  (use \"git restore <file>...\" to discard changes in working directory)\n");
        for (p, l) in &st.unstaged {
            s.push_str(&format!(
                "\t{}{}\n",
                pad(label(*l)),
                quote_path(&repo.display(p))
            ));
        }
        s.push('\n');
    }
    if !st.untracked.is_empty() {
        s.push_str("Untracked files:\n  (use \"git add <file>...\" to include in what will be committed)\n");
        for p in &st.untracked {
            s.push_str(&format!("\t{}\n", quote_path(&repo.display(p))));
        }
        s.push('\n');
    }
    if st.staged.is_empty() {
        s.push_str(if !st.unstaged.is_empty() {
            "no changes added to commit (use \"git add\" and/or \"git commit -a\")\n"
        } else if !st.untracked.is_empty() {
            "nothing added to commit but untracked files present (use \"git add\" to track)\n"
        } else if st.unborn {
            "nothing to commit (create/copy files and use \"git add\" to track)\n"
        } else {
            "nothing to commit, working tree clean\n"
        });
    }
    Ok(s)
}

/// What `git status` was asked to show.
struct StatusOptions {
    short: bool,
    porcelain: bool,
    branch: bool,
    untracked_mode: Untracked,
    nul: bool,
    paths: Vec<String>,
}

/// `git status [-s | --short | --porcelain] [-b] [-u[MODE]] [-- PATHS]`.
pub(super) async fn status(repo: &Repo, args: &[String]) -> Result<Output, GitError> {
    let opts = parse_status_options(args)?;
    let ps = Pathspec::new(repo, &opts.paths)?;
    let st = state(repo, &ps, opts.untracked_mode).await?;
    if !(opts.short || opts.porcelain) {
        return Ok(Output::stdout(long_text(repo, &st, false).await?));
    }
    Ok(Output::stdout(short_text(repo, &st, &opts)))
}

fn parse_status_options(args: &[String]) -> Result<StatusOptions, GitError> {
    let (opts, paths, _) = split_dashdash(args);
    let mut o = StatusOptions {
        short: false,
        porcelain: false,
        branch: false,
        untracked_mode: Untracked::Normal,
        nul: false,
        paths,
    };
    for a in &opts {
        match a.as_str() {
            "-s" | "--short" => o.short = true,
            "--porcelain" | "--porcelain=v1" => o.porcelain = true,
            "-b" | "--branch" => o.branch = true,
            "-z" => {
                o.nul = true;
                o.porcelain = true;
            }
            "-sb" | "-bs" => {
                o.short = true;
                o.branch = true;
            }
            "--long"
            | "--no-renames"
            | "--renames"
            | "--ignore-submodules"
            | "--no-ahead-behind"
            | "-v"
            | "--verbose"
            | "--show-stash" => {}
            "-u" | "-uall" | "--untracked-files" | "--untracked-files=all" => {
                o.untracked_mode = Untracked::All
            }
            "-uno" | "--untracked-files=no" => o.untracked_mode = Untracked::No,
            "-unormal" | "--untracked-files=normal" => o.untracked_mode = Untracked::Normal,
            a if a.starts_with("--ignored") || a.starts_with("--ignore-submodules") => {}
            "--porcelain=v2" => {
                return Err(GitError::Failed {
                    text: "error: status --porcelain=v2 is not supported in this sandbox (v1 is)\n"
                        .into(),
                    code: 1,
                });
            }
            a if a.starts_with('-') => return Err(unknown_option("status", a)),
            a => o.paths.push(a.to_string()),
        }
    }
    Ok(o)
}

/// `--short` and `--porcelain`: the `##` branch line if asked, then one line per path with its
/// index letter and its work tree letter.
fn short_text(repo: &Repo, st: &State, opts: &StatusOptions) -> String {
    let (porcelain, nul) = (opts.porcelain, opts.nul);
    let end = if nul { "\0" } else { "\n" };
    // Paths relative to the current folder for --short, to the top for --porcelain.
    let show = |p: &str| {
        if porcelain {
            quote_path(p)
        } else {
            quote_path(&repo.display(p))
        }
    };
    let mut out = String::new();
    if opts.branch {
        match &st.head {
            Head::Branch(r) => {
                let name = r.strip_prefix("refs/heads/").unwrap_or(r);
                if st.unborn {
                    out.push_str(&format!("## No commits yet on {name}{end}"));
                } else {
                    out.push_str(&format!("## {name}{end}"));
                }
            }
            Head::Detached(_) => out.push_str(&format!("## HEAD (no branch){end}")),
        }
    }
    let mut rows: std::collections::BTreeMap<String, (char, char, Option<String>)> =
        Default::default();
    for c in &st.staged {
        let from = c.renamed().then(|| c.old_path.clone());
        rows.insert(c.path().to_string(), (c.letter(), ' ', from));
    }
    for (p, l) in &st.unstaged {
        rows.entry(p.clone()).or_insert((' ', ' ', None)).1 = *l;
    }
    for p in &st.conflicts {
        rows.insert(p.clone(), ('U', 'U', None));
    }
    for (p, (x, y, from)) in &rows {
        match from {
            Some(f) if nul => out.push_str(&format!("{x}{y} {}\0{}\0", p, f)),
            Some(f) => out.push_str(&format!("{x}{y} {} -> {}\n", show(f), show(p))),
            None => out.push_str(&format!("{x}{y} {}{end}", show(p))),
        }
    }
    for p in &st.untracked {
        out.push_str(&format!("?? {}{end}", show(p)));
    }
    out
}

/// `git ls-files [-s] [-m] [-d] [-o] [--exclude-standard] [-z] [PATHS]`.
pub(super) async fn ls_files(repo: &Repo, args: &[String]) -> Result<Output, GitError> {
    let (opts, mut paths, _) = split_dashdash(args);
    let (mut stage, mut modified, mut deleted, mut others, mut cached, mut nul, mut ignored_too) =
        (false, false, false, false, false, false, true);
    let mut full_name = false;
    for a in &opts {
        match a.as_str() {
            "-s" | "--stage" => stage = true,
            "-m" | "--modified" => modified = true,
            "-d" | "--deleted" => deleted = true,
            "-o" | "--others" => others = true,
            "-c" | "--cached" => cached = true,
            "-z" => nul = true,
            "--exclude-standard" => ignored_too = false,
            "--full-name" => full_name = true,
            "--directory" | "--no-empty-directory" | "-t" | "-v" | "--error-unmatch" => {}
            a if a.starts_with('-') => return Err(unknown_option("ls-files", a)),
            a => paths.push(a.to_string()),
        }
    }
    if !(modified || deleted || others) {
        cached = true;
    }
    let mut ps = Pathspec::new(repo, &paths)?;
    // Without paths, only what lies below the current folder.
    if ps.is_empty()
        && let Some(prefix) = repo.prefix()
        && !prefix.is_empty()
    {
        ps = Pathspec::new(repo, &[".".to_string()])?;
    }
    let end = if nul { "\0" } else { "\n" };
    let show = |p: &str| {
        if full_name {
            p.to_string()
        } else {
            repo.display(p)
        }
    };
    let mut index = repo.index().await?;
    let mut out = String::new();
    if cached {
        for e in index.entries.iter().filter(|e| ps.matches(&e.path)) {
            if stage {
                out.push_str(&format!(
                    "{:06o} {} {}\t{}{end}",
                    e.mode,
                    e.oid.hex(),
                    e.stage,
                    show(&e.path)
                ));
            } else {
                out.push_str(&format!("{}{end}", show(&e.path)));
            }
        }
    }
    if modified || deleted {
        let changes = repo.work_changes(&mut index, &|p| ps.matches(p)).await?;
        for (p, s) in changes {
            let is_deleted = matches!(s, WorkState::Deleted);
            if modified || (deleted && is_deleted) {
                out.push_str(&format!("{}{end}", show(&p)));
            }
        }
    }
    if others {
        let scan = repo.scan("", ignored_too).await?;
        for f in scan.files {
            if index.get(&f.path).is_none() && ps.matches(&f.path) {
                out.push_str(&format!("{}{end}", show(&f.path)));
            }
        }
    }
    Ok(Output::stdout(out))
}
