//! `git stash`: `push` (also `-u`), `list`, `show`, `apply`, `pop`, `drop`, `clear`. Stashes
//! are stored as git stores them (a work tree commit whose parents are HEAD and an index
//! commit, `refs/stash` and its log), so another git sees them too. Applying works file by
//! file: a file changed both in the stash and locally is a conflict (no line merging).

use super::super::identity::ident;
use super::super::index::{Entry, Index};
use super::super::objects::{Commit, Kind, Oid};
use super::super::repo::{Flat, Repo};
use super::super::worktree::WorkState;
use super::super::{GitError, Output};
use super::args::{Pathspec, option_value, unknown_option};
use super::changes::{Show, compare, print, snapshot};
use super::checkout::switch_files;

const STASH: &str = "refs/stash";
const LOG: &str = "logs/refs/stash";

fn failed(text: String) -> GitError {
    GitError::Failed { text, code: 1 }
}

/// One line of the stash log: (old id, new id, rest of the line up to the tab, message).
struct LogLine {
    new: Oid,
    message: String,
}

async fn entries(repo: &Repo) -> Result<Vec<(String, LogLine)>, GitError> {
    let Some(text) = repo.files.read_opt(&repo.git_path(LOG)).await? else {
        return Ok(Vec::new());
    };
    let text = String::from_utf8_lossy(&text).into_owned();
    // Newest last in the file; stash@{0} is the newest.
    let mut out: Vec<(String, LogLine)> = text
        .lines()
        .filter_map(|l| {
            let mut parts = l.splitn(3, ' ');
            let _old = parts.next()?;
            let new = Oid::from_hex(parts.next()?)?;
            let message = l.split_once('\t').map_or("", |(_, m)| m).to_string();
            Some((l.to_string(), LogLine { new, message }))
        })
        .collect();
    out.reverse();
    Ok(out)
}

async fn write_log(repo: &Repo, lines: &[(String, LogLine)]) -> Result<(), GitError> {
    if lines.is_empty() {
        repo.delete_ref(STASH).await?;
        if repo.files.lstat(&repo.git_path(LOG)).await?.is_some() {
            repo.files.remove_file(&repo.git_path(LOG)).await?;
        }
        return Ok(());
    }
    let text: String = lines.iter().rev().map(|(l, _)| format!("{l}\n")).collect();
    repo.files.mkdirs(&repo.git_path("logs/refs")).await?;
    repo.files
        .write_atomic(&repo.git_path(LOG), text.as_bytes())
        .await?;
    repo.write_ref(STASH, &lines[0].1.new).await
}

/// Which stash an argument names (`stash@{N}`, `N`, or the newest).
fn which(arg: Option<&String>) -> Result<usize, GitError> {
    let Some(a) = arg else { return Ok(0) };
    let n = a
        .strip_prefix("stash@{")
        .and_then(|r| r.strip_suffix('}'))
        .unwrap_or(a);
    n.parse()
        .map_err(|_| GitError::Fatal(format!("'{a}' is not a stash-like commit")))
}

pub(super) async fn stash(repo: &Repo, args: &[String]) -> Result<Output, GitError> {
    let (sub, rest) = match args.first().map(String::as_str) {
        Some(s) if !s.starts_with('-') => (s, &args[1..]),
        _ => ("push", args),
    };
    match sub {
        "push" | "save" => push(repo, rest, sub == "save").await,
        "list" => {
            let mut o = Output::default();
            for (n, (_, e)) in entries(repo).await?.iter().enumerate() {
                o.out(format!("stash@{{{n}}}: {}\n", e.message));
            }
            Ok(o)
        }
        "show" => {
            let mut show = Show::default();
            let mut target = None;
            for a in rest {
                if !show.option(a)? {
                    if a.starts_with('-') {
                        return Err(unknown_option("stash show", a));
                    }
                    target = Some(a.clone());
                }
            }
            if show.nothing() {
                show.stat = true;
            }
            let (_, w) = pick(repo, target.as_ref()).await?;
            let base = repo.commit_files(w.parents.first()).await?;
            let mine = repo.flatten(&w.tree).await?;
            let changes = compare(
                &snapshot(&base),
                &snapshot(&mine),
                &Pathspec::default(),
                true,
            );
            let mut o = Output::default();
            print(repo, &changes, &show, &mut o).await?;
            Ok(o)
        }
        "apply" | "pop" => {
            let n = which(rest.iter().find(|a| !a.starts_with('-')))?;
            let (oid, w) = pick(repo, rest.iter().find(|a| !a.starts_with('-'))).await?;
            let quiet = rest.iter().any(|a| a == "-q" || a == "--quiet");
            let mut o = apply(repo, &w).await?;
            if quiet {
                o = Output::default();
            }
            if sub == "pop" {
                let mut lines = entries(repo).await?;
                lines.remove(n);
                write_log(repo, &lines).await?;
                if !quiet {
                    o.out(format!("Dropped refs/stash@{{{n}}} ({})\n", oid.hex()));
                }
            }
            Ok(o)
        }
        "drop" => {
            let n = which(rest.iter().find(|a| !a.starts_with('-')))?;
            let mut lines = entries(repo).await?;
            if n >= lines.len() {
                return Err(failed(format!(
                    "error: stash@{{{n}}} is not a valid reference\n"
                )));
            }
            let (_, gone) = lines.remove(n);
            write_log(repo, &lines).await?;
            Ok(Output::stdout(format!(
                "Dropped refs/stash@{{{n}}} ({})\n",
                gone.new.hex()
            )))
        }
        "clear" => {
            write_log(repo, &[]).await?;
            Ok(Output::default())
        }
        "branch" | "create" | "store" => Err(failed(format!(
            "error: git stash {sub} is not supported in this sandbox (push, list, show, apply, pop, drop and clear are)\n"
        ))),
        other => Err(GitError::Usage(format!(
            "error: unknown subcommand: `{other}'\n"
        ))),
    }
}

async fn pick(repo: &Repo, arg: Option<&String>) -> Result<(Oid, Commit), GitError> {
    let n = which(arg)?;
    let lines = entries(repo).await?;
    let Some((_, e)) = lines.get(n) else {
        return Err(if lines.is_empty() {
            failed("No stash entries found.\n".into())
        } else {
            failed(format!("error: stash@{{{n}}} is not a valid reference\n"))
        });
    };
    Ok((e.new, repo.commit(&e.new).await?))
}

/// What `git stash push` (or `save`) was asked to do.
struct PushOptions {
    message: Option<String>,
    untracked: bool,
    quiet: bool,
}

/// The options of `push`; `save` takes its other words as the message.
fn parse_push_options(args: &[String], save: bool) -> Result<PushOptions, GitError> {
    let (mut message, mut untracked, mut quiet) = (None::<String>, false, false);
    let mut i = 0;
    let mut words = Vec::new();
    while i < args.len() {
        let a = args[i].as_str();
        if let Some(m) = option_value(args, &mut i, "--message", Some("-m"))? {
            message = Some(m);
        } else {
            match a {
                "-u" | "--include-untracked" => untracked = true,
                "-q" | "--quiet" => quiet = true,
                "-k" | "--keep-index" | "--no-keep-index" => {}
                "-a" | "--all" => untracked = true,
                "-p" | "--patch" => {
                    return Err(failed("error: git stash -p needs an interactive terminal, which this sandbox does not have\n".into()));
                }
                "--" => {}
                a if a.starts_with('-') => return Err(unknown_option("stash", a)),
                a => words.push(a.to_string()),
            }
        }
        i += 1;
    }
    if save && !words.is_empty() {
        message = Some(words.join(" "));
    } else if !words.is_empty() {
        return Err(failed("error: git stash push with paths is not supported in this sandbox; stash everything or commit first\n".into()));
    }
    Ok(PushOptions {
        message,
        untracked,
        quiet,
    })
}

/// The files of the work tree as a stash records them: the staged ones with each local change
/// written as a blob.
async fn work_tree_files(
    repo: &Repo,
    index: &mut Index,
    staged_files: &Flat,
) -> Result<Flat, GitError> {
    let mut work_files: Flat = staged_files.clone();
    for (path, state) in repo.work_changes(index, &|_| true).await? {
        match state {
            WorkState::Changed { mode, data, .. } => {
                let oid = repo.write_object(Kind::Blob, &data).await?;
                work_files.insert(path, (mode, oid));
            }
            WorkState::Deleted => {
                work_files.remove(&path);
            }
            WorkState::Same { .. } => {}
        }
    }
    Ok(work_files)
}

/// The untracked files that are not ignored (`-u`), written as blobs.
async fn untracked_files(repo: &Repo, index: &Index) -> Result<Flat, GitError> {
    let mut extra = Flat::new();
    for f in repo.scan("", false).await?.files {
        if index.get(&f.path).is_none() {
            let e = repo.stage_file(&f.path, &f.meta).await?;
            extra.insert(f.path, (e.mode, e.oid));
        }
    }
    Ok(extra)
}

/// Put stash commit `w_oid` on top of the stash log (`who` is the committer's header).
async fn record_stash(repo: &Repo, w_oid: Oid, title: &str, who: &str) -> Result<(), GitError> {
    let mut lines = entries(repo).await?;
    let old = lines.first().map_or(Oid::ZERO, |(_, e)| e.new);
    let line = format!("{} {} {}\t{title}", old.hex(), w_oid.hex(), who);
    lines.insert(
        0,
        (
            line,
            LogLine {
                new: w_oid,
                message: title.to_string(),
            },
        ),
    );
    write_log(repo, &lines).await
}

/// `git stash [push] [-u] [-q] [-m MSG]` and `git stash save [MSG]`: record the index and work
/// tree (and with `-u` the untracked files) as a stash, then go back to `HEAD`.
async fn push(repo: &Repo, args: &[String], save: bool) -> Result<Output, GitError> {
    let PushOptions {
        message,
        untracked,
        quiet,
    } = parse_push_options(args, save)?;
    let Some(head) = repo.head_commit().await? else {
        return Err(failed("You do not have the initial commit yet\n".into()));
    };
    let head_commit = repo.commit(&head).await?;
    let mut index = repo.index().await?;
    let staged_files = Repo::index_files(&index);
    let work_files = work_tree_files(repo, &mut index, &staged_files).await?;
    let extra = if untracked {
        untracked_files(repo, &index).await?
    } else {
        Flat::new()
    };
    let head_files = repo.flatten(&head_commit.tree).await?;
    if staged_files == head_files && work_files == staged_files && extra.is_empty() {
        return Ok(Output::stdout("No local changes to save\n"));
    }
    let branch = repo
        .branch_name()
        .await?
        .unwrap_or_else(|| "(no branch)".into());
    let short = format!("{} {}", repo.abbrev(&head, 7).await?, head_commit.subject());
    let (author, who) = (ident(repo, "AUTHOR"), ident(repo, "COMMITTER"));
    let mk = |tree: Oid, parents: Vec<Oid>, msg: String| Commit {
        tree,
        parents,
        author: author.clone(),
        committer: who.clone(),
        message: msg,
    };
    let i_tree = repo.write_trees(&staged_files).await?;
    let i_commit = mk(i_tree, vec![head], format!("index on {branch}: {short}\n"));
    let i_oid = repo
        .write_object(Kind::Commit, &i_commit.to_bytes())
        .await?;
    let mut parents = vec![head, i_oid];
    if !extra.is_empty() {
        let u_tree = repo.write_trees(&extra).await?;
        let u = mk(
            u_tree,
            Vec::new(),
            format!("untracked files on {branch}: {short}\n"),
        );
        parents.push(repo.write_object(Kind::Commit, &u.to_bytes()).await?);
    }
    let title = match &message {
        Some(m) => format!("On {branch}: {m}"),
        None => format!("WIP on {branch}: {short}"),
    };
    let w_tree = repo.write_trees(&work_files).await?;
    let w = mk(w_tree, parents, format!("{title}\n"));
    let w_oid = repo.write_object(Kind::Commit, &w.to_bytes()).await?;
    record_stash(repo, w_oid, &title, &who.to_header()).await?;
    // Back to HEAD, and the stashed untracked files go.
    switch_files(repo, Some(head), Some(head), true).await?;
    for p in extra.keys() {
        repo.remove_work(p).await?;
    }
    let mut o = Output::default();
    if !quiet {
        o.out(format!("Saved working directory and index state {title}\n"));
    }
    Ok(o)
}

/// Apply a stash commit's changes to the work tree (new files also to the index).
async fn apply(repo: &Repo, w: &Commit) -> Result<Output, GitError> {
    let base = repo.commit_files(w.parents.first()).await?;
    let stashed = repo.flatten(&w.tree).await?;
    let untracked = match w.parents.get(2) {
        Some(u) => repo.commit_files(Some(u)).await?,
        None => Flat::new(),
    };
    let staged_new = match w.parents.get(1) {
        Some(i) => repo.commit_files(Some(i)).await?,
        None => Flat::new(),
    };
    let mut index = repo.index().await?;
    let dirty: std::collections::HashSet<String> = repo
        .work_changes(&mut index, &|_| true)
        .await?
        .into_iter()
        .map(|(p, _)| p)
        .collect();
    let mut paths: Vec<&String> = base.keys().chain(stashed.keys()).collect();
    paths.sort();
    paths.dedup();
    let mut conflicts = Vec::new();
    for p in &paths {
        if base.get(*p) == stashed.get(*p) {
            continue;
        }
        let current = index.get(p).map(|e| (e.mode, e.oid));
        let unchanged_here = current.as_ref() == base.get(*p) && !dirty.contains(*p);
        let already = current.as_ref() == stashed.get(*p) && !dirty.contains(*p);
        if !unchanged_here && !already {
            conflicts.push((*p).clone());
        }
    }
    for p in untracked.keys() {
        if repo.files.lstat(&repo.abs(p)).await?.is_some() {
            conflicts.push(p.clone());
        }
    }
    if !conflicts.is_empty() {
        let list: String = conflicts.iter().map(|p| format!("\t{p}\n")).collect();
        return Err(failed(format!(
            "error: Your local changes to the following files would be overwritten by merge:\n{list}Please commit your changes or stash them before you merge.\nAborting\n"
        )));
    }
    for p in paths {
        repo.files.tick()?;
        if base.get(p) == stashed.get(p) {
            continue;
        }
        match stashed.get(p) {
            Some((mode, oid)) => {
                let mut e = Entry::new(p.clone(), *mode, *oid);
                repo.checkout_entry(&mut e).await?;
                // Files the stash added stay staged; changed ones come back unstaged.
                if !base.contains_key(p) && staged_new.contains_key(p) {
                    index.add(e);
                }
            }
            None => repo.remove_work(p).await?,
        }
    }
    for (p, (mode, oid)) in &untracked {
        let mut e = Entry::new(p.clone(), *mode, *oid);
        repo.checkout_entry(&mut e).await?;
    }
    repo.save_index(&index).await?;
    super::status::long_status(repo, false).await
}
