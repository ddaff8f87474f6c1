//! `git restore` and `git reset`: putting files and `HEAD` back.

use std::collections::BTreeSet;

use super::super::index::{Entry, Index};
use super::super::objects::Oid;
use super::super::repo::Repo;
use super::super::worktree::WorkState;
use super::super::{GitError, Output};
use super::args::{Pathspec, option_value, split_dashdash, unknown_option};
use super::branch::{failed, one_line};
use super::checkout::{restore_paths, switch_files};

/// `git restore [--staged] [--worktree] [--source=REV] PATHS`.
pub(super) async fn restore(repo: &Repo, args: &[String]) -> Result<Output, GitError> {
    let (before, mut paths, _) = split_dashdash(args);
    let (mut staged, mut worktree, mut source) = (false, false, None);
    let mut i = 0;
    while i < before.len() {
        let a = before[i].as_str();
        if let Some(v) = option_value(&before, &mut i, "--source", Some("-s"))? {
            source = Some(v);
        } else {
            match a {
                "-S" | "--staged" => staged = true,
                "-W" | "--worktree" => worktree = true,
                "-SW" | "-WS" => {
                    staged = true;
                    worktree = true;
                }
                "-q" | "--quiet" | "--progress" | "--no-progress" | "--ignore-unmerged" => {}
                "-p" | "--patch" => {
                    return Err(failed("error: git restore -p needs an interactive terminal, which this sandbox does not have\n".into()));
                }
                a if a.starts_with('-') => return Err(unknown_option("restore", a)),
                a => paths.push(a.to_string()),
            }
        }
        i += 1;
    }
    if paths.is_empty() {
        return Err(GitError::Fatal(
            "you must specify path(s) to restore".into(),
        ));
    }
    if !staged {
        worktree = true;
    }
    let source = match (source, staged) {
        (Some(s), _) => Some(repo.resolve_commit(&s).await?),
        (None, true) => repo.head_commit().await?,
        (None, false) => None,
    };
    let ps = Pathspec::new(repo, &paths)?;
    if staged && source.is_none() {
        // Unstaging on a branch with no commit: the paths leave the index.
        let mut index = repo.index().await?;
        for e in index.entries.clone() {
            if ps.matches(&e.path) {
                index.remove(&e.path);
            }
        }
        repo.save_index(&index).await?;
        return Ok(Output::default());
    }
    restore_paths(repo, &ps, source, staged, worktree).await?;
    Ok(Output::default())
}

/// `git reset [--soft | --mixed | --hard] [-q] [REV]` and `git reset [REV] -- PATHS`.
pub(super) async fn reset(repo: &Repo, args: &[String]) -> Result<Output, GitError> {
    let (before, after, dashdash) = split_dashdash(args);
    let (mode, quiet, words) = parse_reset_options(&before)?;
    let head = repo.head_commit().await?;
    // A first word that is no revision starts the paths.
    let (rev, mut paths) = match words.first() {
        Some(w) if repo.try_resolve(w).await?.is_some() => (Some(w.clone()), words[1..].to_vec()),
        Some(_) if !dashdash => (None, words.clone()),
        Some(w) => return Err(super::super::refs::bad_rev(w)),
        None => (None, Vec::new()),
    };
    paths.extend(after);
    let target = match &rev {
        Some(r) => Some(repo.resolve_commit(r).await?),
        None => head,
    };
    let why = format!("reset: moving to {}", rev.as_deref().unwrap_or("HEAD"));
    let mut o = Output::default();
    if !paths.is_empty() {
        if mode != "mixed" {
            return Err(GitError::Fatal(format!(
                "Cannot do {mode} reset with paths."
            )));
        }
        reset_paths(repo, &paths, target).await?;
        if !quiet {
            o.out(unstaged_list(repo).await?);
        }
        return Ok(o);
    }
    if mode == "keep" {
        return Err(failed("error: git reset --keep/--merge is not supported in this sandbox; use --hard or --mixed\n".into()));
    }
    if let Some(h) = head {
        repo.files
            .write_atomic(
                &repo.git_path("ORIG_HEAD"),
                format!("{}\n", h.hex()).as_bytes(),
            )
            .await?;
    }
    match mode {
        "soft" => {
            if let Some(t) = target {
                repo.move_head(&t, &why).await?;
            }
        }
        "mixed" => {
            reset_index(repo, target).await?;
            if let Some(t) = target {
                repo.move_head(&t, &why).await?;
            }
            if !quiet {
                o.out(unstaged_list(repo).await?);
            }
        }
        _ => {
            switch_files(repo, head, target, true).await?;
            if let Some(t) = target {
                repo.move_head(&t, &why).await?;
                if !quiet {
                    o.out(format!("HEAD is now at {}\n", one_line(repo, &t).await?));
                }
            }
        }
    }
    Ok(o)
}

/// The mode (`soft`, `mixed`, `hard` or `keep`), `-q`, and the other words.
fn parse_reset_options(before: &[String]) -> Result<(&'static str, bool, Vec<String>), GitError> {
    let (mut mode, mut quiet, mut words) = ("mixed", false, Vec::new());
    for a in before {
        match a.as_str() {
            "--soft" => mode = "soft",
            "--mixed" => mode = "mixed",
            "--hard" => mode = "hard",
            "--keep" | "--merge" => mode = "keep",
            "-q" | "--quiet" => quiet = true,
            "--no-refresh" | "--refresh" => {}
            "-p" | "--patch" => {
                return Err(failed("error: git reset -p needs an interactive terminal, which this sandbox does not have\n".into()));
            }
            a if a.starts_with('-') => return Err(unknown_option("reset", a)),
            a => words.push(a.to_string()),
        }
    }
    Ok((mode, quiet, words))
}

/// `git reset [REV] -- PATHS`: the staged entries of those paths become the commit's.
async fn reset_paths(repo: &Repo, paths: &[String], target: Option<Oid>) -> Result<(), GitError> {
    let ps = Pathspec::new(repo, paths)?;
    let from = repo.commit_files(target.as_ref()).await?;
    let mut index = repo.index().await?;
    let mut names: BTreeSet<String> = from.keys().filter(|p| ps.matches(p)).cloned().collect();
    names.extend(
        index
            .entries
            .iter()
            .filter(|e| ps.matches(&e.path))
            .map(|e| e.path.clone()),
    );
    for p in names {
        match from.get(&p) {
            Some((mode, oid)) => {
                if index
                    .get(&p)
                    .is_some_and(|e| e.oid == *oid && e.mode == *mode)
                {
                    continue;
                }
                index.add(Entry::new(p, *mode, *oid));
            }
            None => {
                index.remove(&p);
            }
        }
    }
    repo.save_index(&index).await
}

/// `--mixed`: the index becomes the commit's files, keeping the entries (and their stat data)
/// that already match.
async fn reset_index(repo: &Repo, target: Option<Oid>) -> Result<(), GitError> {
    let files = repo.commit_files(target.as_ref()).await?;
    let old = repo.index().await?;
    let mut index = Index::default();
    for (p, (mode, oid)) in files {
        let e = match old.get(&p) {
            Some(e) if e.oid == oid && e.mode == mode && e.stage == 0 => e.clone(),
            _ => Entry::new(p, mode, oid),
        };
        index.add(e);
    }
    repo.save_index(&index).await
}

/// `Unstaged changes after reset:` and its `M\tpath` lines (nothing when there are none).
async fn unstaged_list(repo: &Repo) -> Result<String, GitError> {
    let mut index = repo.index().await?;
    let changes = repo.work_changes(&mut index, &|_| true).await?;
    if changes.is_empty() {
        return Ok(String::new());
    }
    let mut s = String::from("Unstaged changes after reset:\n");
    for (p, st) in changes {
        let l = if matches!(st, WorkState::Deleted) {
            'D'
        } else {
            'M'
        };
        s.push_str(&format!("{l}\t{}\n", repo.display(&p)));
    }
    Ok(s)
}
