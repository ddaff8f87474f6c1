//! `git checkout` and `git switch`: moving `HEAD` and the files between commits, and putting
//! files back from a commit or the index (which `git restore` shares).

use std::collections::BTreeSet;

use super::super::index::{Entry, Index};
use super::super::objects::{Kind, Oid};
use super::super::refs::Head;
use super::super::repo::{Flat, Repo};
use super::super::worktree::WorkState;
use super::super::{GitError, Output};
use super::args::{Pathspec, option_value, split_dashdash, unknown_option};
use super::branch::{failed, new_branch, one_line};

/// Replace the index and work tree files of commit `from` by those of `to`, keeping local
/// changes to files the two commits agree on (refusing to overwrite others unless `force`,
/// which also discards every local change to tracked files).
pub(super) async fn switch_files(
    repo: &Repo,
    from: Option<Oid>,
    to: Option<Oid>,
    force: bool,
) -> Result<(), GitError> {
    let old = repo.commit_files(from.as_ref()).await?;
    let new = repo.commit_files(to.as_ref()).await?;
    let mut index = repo.index().await?;
    let dirty: std::collections::HashMap<String, bool> = repo
        .work_changes(&mut index, &|_| true)
        .await?
        .into_iter()
        .map(|(p, s)| (p, matches!(s, WorkState::Changed { .. })))
        .collect();
    let entry_of = |index: &Index, p: &str| index.get(p).map(|e| (e.mode, e.oid));
    let mut paths: BTreeSet<String> = old.keys().chain(new.keys()).cloned().collect();
    if force {
        paths.extend(index.entries.iter().map(|e| e.path.clone()));
    }
    let mut overwritten = Vec::new();
    let mut untracked = Vec::new();
    for p in &paths {
        if old.get(p) == new.get(p) && !force {
            continue;
        }
        let staged = entry_of(&index, p);
        let is_dirty = dirty.contains_key(p);
        // Safe: nothing local to lose, or the local state already is the target's.
        let untouched = staged.as_ref() == old.get(p) && !is_dirty;
        let already = staged.as_ref() == new.get(p) && !is_dirty;
        if !force && !untouched && !already {
            overwritten.push(p.clone());
        }
        if !force
            && staged.is_none()
            && new.contains_key(p)
            && repo.files.lstat(&repo.abs(p)).await?.is_some()
        {
            untracked.push(p.clone());
        }
    }
    if !overwritten.is_empty() {
        let list: String = overwritten.iter().map(|p| format!("\t{p}\n")).collect();
        return Err(failed(format!(
            "error: Your local changes to the following files would be overwritten by checkout:\n{list}Please commit your changes or stash them before you switch branches.\nAborting\n"
        )));
    }
    if !untracked.is_empty() {
        let list: String = untracked.iter().map(|p| format!("\t{p}\n")).collect();
        return Err(failed(format!(
            "error: The following untracked working tree files would be overwritten by checkout:\n{list}Please move or remove them before you switch branches.\nAborting\n"
        )));
    }
    // Removals first, so that a file may take the place of a folder that goes.
    let (gone, kept): (Vec<&String>, Vec<&String>) =
        paths.iter().partition(|p| !new.contains_key(*p));
    for p in gone.into_iter().chain(kept) {
        repo.files.tick()?;
        let unchanged = old.get(p) == new.get(p);
        let staged = entry_of(&index, p);
        if !force && (unchanged || (staged.as_ref() == new.get(p) && !dirty.contains_key(p))) {
            continue;
        }
        if force && staged.as_ref() == new.get(p) && !dirty.contains_key(p) && new.contains_key(p) {
            // Also when only the file is missing.
            if repo.files.lstat(&repo.abs(p)).await?.is_some() {
                continue;
            }
        }
        match new.get(p) {
            Some((mode, oid)) => {
                let mut e = Entry::new(p.clone(), *mode, *oid);
                repo.checkout_entry(&mut e).await?;
                index.add(e);
            }
            None => {
                index.remove(p);
                repo.remove_work(p).await?;
            }
        }
    }
    repo.save_index(&index).await
}

/// Switch `HEAD` to branch `name` (full ref) or to a detached commit, with messages.
async fn switch_head(
    repo: &Repo,
    target: Target,
    force: bool,
    quiet: bool,
) -> Result<Output, GitError> {
    let head = repo.head().await?;
    let from = repo.head_commit().await?;
    // `checkout: moving from A to B` in HEAD's log names branches, or ids when detached.
    let from_name = match &head {
        Head::Branch(r) => r.strip_prefix("refs/heads/").unwrap_or(r).to_string(),
        Head::Detached(oid) => oid.hex(),
    };
    let moved = |to: &str| format!("checkout: moving from {from_name} to {to}");
    let mut o = Output::default();
    match target {
        Target::Branch(full) => {
            let name = full
                .strip_prefix("refs/heads/")
                .unwrap_or(&full)
                .to_string();
            if head == Head::Branch(full.clone()) {
                if !quiet {
                    o.err(format!("Already on '{name}'\n"));
                }
                return Ok(o);
            }
            let to = repo.read_ref(&full).await?;
            switch_files(repo, from, to, force).await?;
            repo.set_head_branch(&full).await?;
            if let Some(t) = to {
                repo.log_ref("HEAD", from, t, &moved(&name)).await?;
            }
            if !quiet {
                if let (Head::Detached(old), Some(_)) = (&head, &to) {
                    o.err(format!(
                        "Previous HEAD position was {}\n",
                        one_line(repo, old).await?
                    ));
                }
                o.err(format!("Switched to branch '{name}'\n"));
            }
        }
        Target::New(name, start) => {
            let full = format!("refs/heads/{name}");
            if let Some(start) = start {
                switch_files(repo, from, Some(start), force).await?;
                repo.write_ref(&full, &start).await?;
                repo.log_ref(
                    &full,
                    None,
                    start,
                    &format!("branch: Created from {from_name}"),
                )
                .await?;
            }
            repo.set_head_branch(&full).await?;
            if let Some(start) = start {
                repo.log_ref("HEAD", from, start, &moved(&name)).await?;
            }
            if !quiet {
                o.err(format!("Switched to a new branch '{name}'\n"));
            }
        }
        Target::Detach(oid, spec) => {
            switch_files(repo, from, Some(oid), force).await?;
            repo.set_head_detached(&oid).await?;
            repo.log_ref("HEAD", from, oid, &moved(&spec)).await?;
            if !quiet {
                if let Head::Detached(old) = &head
                    && *old != oid
                {
                    o.err(format!(
                        "Previous HEAD position was {}\n",
                        one_line(repo, old).await?
                    ));
                }
                if !matches!(head, Head::Detached(_)) {
                    o.err(format!(
                        "Note: switching to '{spec}'.\n\nYou are in 'detached HEAD' state. You can look around, make experimental\nchanges and commit them, and you can discard any commits you make in this\nstate without impacting any branches by switching back to a branch.\n\nIf you want to create a new branch to retain commits you create, you may\ndo so (now or later) by using -c with the switch command. Example:\n\n  git switch -c <new-branch-name>\n\nOr undo this operation with:\n\n  git switch -\n\nTurn off this advice by setting config variable advice.detachedHead to false\n\n"
                    ));
                }
                o.err(format!("HEAD is now at {}\n", one_line(repo, &oid).await?));
            }
        }
    }
    Ok(o)
}

/// Where `switch_head` goes.
enum Target {
    Branch(String),
    /// A new branch, started at a commit (`None`: on a branch with no commit yet).
    New(String, Option<Oid>),
    Detach(Oid, String),
}

/// The branch `-` stands for: the one checked out before.
async fn previous(repo: &Repo) -> Result<String, GitError> {
    repo.previous_branch(1).await?.ok_or_else(|| {
        GitError::Fatal("no previous branch (nothing was checked out before)".into())
    })
}

/// `git checkout [-q] [-f] [-b NEW | -B NEW] [--detach] [TARGET] [-- PATHS]`.
pub(super) async fn checkout(repo: &Repo, args: &[String]) -> Result<Output, GitError> {
    let (before, after, dashdash) = split_dashdash(args);
    let (mut quiet, mut force, mut detach) = (false, false, false);
    let (mut new, mut new_force) = (None, false);
    let mut words = Vec::new();
    let mut i = 0;
    while i < before.len() {
        let a = before[i].as_str();
        if let Some(v) = option_value(&before, &mut i, "-b", None)? {
            new = Some(v);
        } else if let Some(v) = option_value(&before, &mut i, "-B", None)? {
            new = Some(v);
            new_force = true;
        } else {
            match a {
                "-q" | "--quiet" => quiet = true,
                "-f" | "--force" => force = true,
                "--detach" => detach = true,
                "--no-track" | "--track" | "-t" | "--progress" | "--no-progress" => {}
                "-p" | "--patch" => {
                    return Err(failed("error: git checkout -p needs an interactive terminal, which this sandbox does not have\n".into()));
                }
                a if a.starts_with('-') && a != "-" => return Err(unknown_option("checkout", a)),
                a => words.push(a.to_string()),
            }
        }
        i += 1;
    }
    if let Some(name) = new {
        let start = new_branch(repo, &name, words.first().map(String::as_str), new_force).await?;
        return switch_head(repo, Target::New(name, start), force, quiet).await;
    }
    // `checkout [REV] -- PATHS`, or `checkout PATHS` when the word names no revision.
    let restore = |rev: Option<String>, paths: Vec<String>| async move {
        let ps = Pathspec::new(repo, &paths)?;
        let source = match &rev {
            Some(r) => Some(repo.resolve_commit(r).await?),
            None => None,
        };
        // git says `Updated N paths from ...` only on a terminal, which this never is.
        restore_paths(repo, &ps, source, source.is_some(), true).await?;
        Ok::<_, GitError>(Output::default())
    };
    if dashdash {
        if words.len() > 1 {
            return Err(GitError::Usage(
                "usage: git checkout [<options>] [<branch>] -- <file>...\n".into(),
            ));
        }
        return restore(words.first().cloned(), after).await;
    }
    let Some(first) = words.first().cloned() else {
        return Err(GitError::Usage(
            "usage: git checkout [<options>] <branch>\n".into(),
        ));
    };
    let first = if first == "-" {
        previous(repo).await?
    } else {
        first
    };
    if let Some(w) = words.first_mut() {
        w.clone_from(&first);
    }
    let branch = format!("refs/heads/{first}");
    if words.len() == 1 && !detach && repo.read_ref(&branch).await?.is_some() {
        return switch_head(repo, Target::Branch(branch), force, quiet).await;
    }
    if let Some(oid) = repo.try_resolve(&first).await? {
        if words.len() > 1 {
            return restore(Some(first), words[1..].to_vec()).await;
        }
        let (commit, kind) = repo.peel(oid).await?;
        if kind != Kind::Commit {
            return Err(GitError::Fatal(format!("reference is not a tree: {first}")));
        }
        return switch_head(repo, Target::Detach(commit, first), force, quiet).await;
    }
    if words.len() == 1
        && !detach
        && repo.head_commit().await?.is_none()
        && repo.branch_name().await?.as_deref() == Some(first.as_str())
    {
        return Ok(Output::default());
    }
    restore(None, words).await
}

/// `git switch [-c NEW | -C NEW] [--detach] [-f] [-q] TARGET`.
pub(super) async fn switch(repo: &Repo, args: &[String]) -> Result<Output, GitError> {
    let (mut quiet, mut force, mut detach) = (false, false, false);
    let (mut new, mut new_force, mut words) = (None, false, Vec::new());
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        if let Some(v) = option_value(args, &mut i, "--create", Some("-c"))? {
            new = Some(v);
        } else if let Some(v) = option_value(args, &mut i, "--force-create", Some("-C"))? {
            new = Some(v);
            new_force = true;
        } else {
            match a {
                "-q" | "--quiet" => quiet = true,
                "-f" | "--force" | "--discard-changes" => force = true,
                "-d" | "--detach" => detach = true,
                "--no-track" | "--track" | "-t" | "--progress" | "--no-progress" => {}
                a if a.starts_with('-') && a != "-" => return Err(unknown_option("switch", a)),
                a => words.push(a.to_string()),
            }
        }
        i += 1;
    }
    if let Some(name) = new {
        let start = new_branch(repo, &name, words.first().map(String::as_str), new_force).await?;
        return switch_head(repo, Target::New(name, start), force, quiet).await;
    }
    let Some(target) = words.first() else {
        return Err(GitError::Fatal("missing branch or commit argument".into()));
    };
    let target = &if target == "-" {
        previous(repo).await?
    } else {
        target.clone()
    };
    if detach {
        let oid = repo.resolve_commit(target).await?;
        return switch_head(repo, Target::Detach(oid, target.clone()), force, quiet).await;
    }
    let branch = format!("refs/heads/{target}");
    if repo.read_ref(&branch).await?.is_none() {
        if repo.try_resolve(target).await?.is_some() {
            return Err(GitError::Fatal(format!(
                "a branch is expected, got '{target}'\nhint: If you want to detach HEAD at the commit, try again with the --detach option."
            )));
        }
        return Err(GitError::Fatal(format!("invalid reference: {target}")));
    }
    switch_head(repo, Target::Branch(branch), force, quiet).await
}

/// Put paths back from the index (`source` None) or a commit, into the index too when
/// `staged`, and into the work tree when `worktree`.
pub(super) async fn restore_paths(
    repo: &Repo,
    ps: &Pathspec,
    source: Option<Oid>,
    staged: bool,
    worktree: bool,
) -> Result<(), GitError> {
    let mut index = repo.index().await?;
    let from: Flat = match source {
        Some(c) => repo.commit_files(Some(&c)).await?,
        None => Repo::index_files(&index),
    };
    // Every pathspec must name something known.
    for (i, given) in ps.given.iter().enumerate() {
        let known = from.keys().any(|p| ps.item_matches(i, p))
            || index.entries.iter().any(|e| ps.item_matches(i, &e.path));
        if !known {
            return Err(failed(format!(
                "error: pathspec '{given}' did not match any file(s) known to git\n"
            )));
        }
    }
    let mut paths: BTreeSet<String> = from.keys().filter(|p| ps.matches(p)).cloned().collect();
    if staged || source.is_some() {
        paths.extend(
            index
                .entries
                .iter()
                .filter(|e| ps.matches(&e.path))
                .map(|e| e.path.clone()),
        );
    }
    let racy = repo.index_time().await?;
    for p in &paths {
        repo.files.tick()?;
        let Some((mode, oid)) = from.get(p) else {
            // Not in the source: unstaged, and (from a commit) gone from the work tree.
            if staged {
                index.remove(p);
            }
            if worktree && source.is_some() {
                repo.remove_work(p).await?;
            }
            continue;
        };
        let current = index.get(p).cloned();
        let staged_same = current
            .as_ref()
            .is_some_and(|c| c.oid == *oid && c.mode == *mode && c.stage == 0);
        if worktree {
            // A file already as wanted is left alone (its stat data stay valid).
            let file_same = match &current {
                Some(c) if staged_same => {
                    matches!(repo.work_state(c, racy).await?.0, WorkState::Same { .. })
                }
                _ => false,
            };
            if !file_same {
                let mut e = Entry::new(p.clone(), *mode, *oid);
                repo.checkout_entry(&mut e).await?;
                // The index keeps its own entry unless it is updated too or already matched.
                if staged || staged_same {
                    index.add(e);
                }
            }
        } else if staged && !staged_same {
            index.add(Entry::new(p.clone(), *mode, *oid));
        }
    }
    repo.save_index(&index).await
}
