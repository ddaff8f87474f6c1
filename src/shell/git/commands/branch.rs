//! `git branch`, `checkout`, `switch`, `restore`, `reset`, `tag`: moving between commits and
//! putting files back.

use std::collections::BTreeSet;

use super::super::index::{Entry, Index};
use super::super::objects::{Kind, Oid};
use super::super::refs::{Head, valid_ref_name};
use super::super::repo::{Flat, Repo};
use super::super::worktree::WorkState;
use super::super::{GitError, Output};
use super::inspect::merge_base;
use super::{Pathspec, ident, option_value, split_dashdash, unknown_option};

fn failed(text: String) -> GitError {
    GitError::Failed { text, code: 1 }
}

/// `abc1234 subject` of a commit.
async fn one_line(repo: &Repo, oid: &Oid) -> Result<String, GitError> {
    let c = repo.commit(oid).await?;
    Ok(format!("{} {}", repo.abbrev(oid, 7).await?, c.subject()))
}

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

enum Target {
    Branch(String),
    /// A new branch, started at a commit (`None`: on a branch with no commit yet).
    New(String, Option<Oid>),
    Detach(Oid, String),
}

/// A new branch's name checked, and its start commit.
async fn new_branch(
    repo: &Repo,
    name: &str,
    start: Option<&str>,
    force: bool,
) -> Result<Option<Oid>, GitError> {
    if !valid_ref_name(name) {
        return Err(GitError::Fatal(format!(
            "'{name}' is not a valid branch name"
        )));
    }
    if !force
        && repo
            .read_ref(&format!("refs/heads/{name}"))
            .await?
            .is_some()
    {
        return Err(GitError::Fatal(format!(
            "a branch named '{name}' already exists"
        )));
    }
    match start {
        Some(s) => Ok(Some(repo.resolve_commit(s).await?)),
        None => Ok(repo.head_commit().await?),
    }
}

/// Put paths back from the index (`source` None) or a commit, into the index too when
/// `staged`, and into the work tree when `worktree`.
async fn restore_paths(
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

/// The branch `-` stands for: the one checked out before.
async fn previous(repo: &Repo) -> Result<String, GitError> {
    repo.previous_branch(1).await?.ok_or_else(|| {
        GitError::Fatal("no previous branch (nothing was checked out before)".into())
    })
}

/// `git reflog [show] [REF]`: where a ref has been, newest first.
pub(super) async fn reflog(repo: &Repo, args: &[String]) -> Result<Output, GitError> {
    let mut limit = usize::MAX;
    let mut words: Vec<&String> = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        if let Some(v) = option_value(args, &mut i, "--max-count", Some("-n"))? {
            limit = v
                .parse()
                .map_err(|_| GitError::Fatal(format!("'{v}': not an integer")))?;
        } else if a.len() > 1 && a.starts_with('-') && a[1..].bytes().all(|b| b.is_ascii_digit()) {
            limit = a[1..].parse().unwrap_or(usize::MAX);
        } else if a != "show" && !a.starts_with('-') {
            words.push(a);
        }
        i += 1;
    }
    let (name, shown) = match words.first() {
        None => ("HEAD".to_string(), "HEAD".to_string()),
        Some(w) if w.as_str() == "HEAD" => ("HEAD".into(), "HEAD".into()),
        Some(w) => match repo.dwim_ref(w).await? {
            Some((full, _)) => (full, w.to_string()),
            None => return Err(super::super::refs::bad_rev(w)),
        },
    };
    let mut o = Output::default();
    for (n, (oid, why)) in repo.reflog(&name).await?.iter().enumerate().take(limit) {
        o.out(format!(
            "{} {shown}@{{{n}}}: {why}\n",
            repo.abbrev(oid, 7).await?
        ));
    }
    Ok(o)
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
    let (mut mode, mut quiet, mut words) = ("mixed", false, Vec::new());
    for a in &before {
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
        let ps = Pathspec::new(repo, &paths)?;
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
        repo.save_index(&index).await?;
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
            repo.save_index(&index).await?;
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

/// `git branch`: list, create, delete, rename.
pub(super) async fn branch(repo: &Repo, args: &[String]) -> Result<Output, GitError> {
    let (mut delete, mut force_delete, mut rename, mut verbose, mut show_current, mut force) =
        (false, false, false, false, false, false);
    let mut list = false;
    let mut words = Vec::new();
    for a in args {
        match a.as_str() {
            "-d" | "--delete" => delete = true,
            "-D" => {
                delete = true;
                force_delete = true;
            }
            "-m" | "--move" => rename = true,
            "-M" => {
                rename = true;
                force = true;
            }
            "-f" | "--force" => force = true,
            "-v" | "-vv" | "--verbose" => verbose = true,
            "--show-current" => show_current = true,
            "-l" | "--list" | "-a" | "--all" | "-r" | "--remotes" => list = true,
            "--no-color" | "--color" | "--no-track" | "--track" | "-t" | "-q" | "--quiet" => {}
            a if a.starts_with('-') => return Err(unknown_option("branch", a)),
            a => words.push(a.to_string()),
        }
    }
    let current = repo.branch_name().await?;
    if show_current {
        return Ok(Output::stdout(
            current.map(|c| format!("{c}\n")).unwrap_or_default(),
        ));
    }
    let mut o = Output::default();
    if delete {
        if words.is_empty() {
            return Err(GitError::Fatal("branch name required".into()));
        }
        let head = repo.head_commit().await?;
        for name in &words {
            let full = format!("refs/heads/{name}");
            let Some(oid) = repo.read_ref(&full).await? else {
                return Err(failed(format!("error: branch '{name}' not found.\n")));
            };
            if current.as_deref() == Some(name.as_str()) {
                return Err(failed(format!(
                    "error: Cannot delete branch '{name}' checked out at '{}'\n",
                    repo.work_tree
                )));
            }
            if !force_delete {
                let merged = match head {
                    Some(h) => merge_base(repo, oid, h).await? == Some(oid),
                    None => false,
                };
                if !merged {
                    return Err(failed(format!(
                        "error: The branch '{name}' is not fully merged.\nIf you are sure you want to delete it, run 'git branch -D {name}'.\n"
                    )));
                }
            }
            repo.delete_ref(&full).await?;
            o.out(format!(
                "Deleted branch {name} (was {}).\n",
                repo.abbrev(&oid, 7).await?
            ));
        }
        return Ok(o);
    }
    if rename {
        let (old, new) = match words.as_slice() {
            [new] => (
                current.clone().ok_or_else(|| {
                    GitError::Fatal("cannot rename the current branch while not on any".into())
                })?,
                new.clone(),
            ),
            [old, new] => (old.clone(), new.clone()),
            _ => {
                return Err(GitError::Fatal(
                    "too many arguments for a rename operation".into(),
                ));
            }
        };
        if !valid_ref_name(&new) {
            return Err(GitError::Fatal(format!(
                "'{new}' is not a valid branch name"
            )));
        }
        let new_full = format!("refs/heads/{new}");
        if !force && old != new && repo.read_ref(&new_full).await?.is_some() {
            return Err(GitError::Fatal(format!(
                "a branch named '{new}' already exists"
            )));
        }
        let old_full = format!("refs/heads/{old}");
        match repo.read_ref(&old_full).await? {
            Some(oid) => {
                repo.delete_ref(&old_full).await?;
                repo.write_ref(&new_full, &oid).await?;
            }
            None if current.as_deref() == Some(old.as_str()) => {}
            None => return Err(GitError::Fatal(format!("no branch named '{old}'"))),
        }
        if current.as_deref() == Some(old.as_str()) {
            repo.set_head_branch(&new_full).await?;
        }
        return Ok(o);
    }
    if !words.is_empty() && !list {
        let name = &words[0];
        if current.as_deref() == Some(name.as_str()) && force {
            return Err(GitError::Fatal(format!(
                "cannot force update the branch '{name}' used by worktree at '{}'",
                repo.work_tree
            )));
        }
        let start = new_branch(repo, name, words.get(1).map(String::as_str), force).await?;
        let Some(start) = start else {
            let base = current.unwrap_or_else(|| "HEAD".into());
            return Err(GitError::Fatal(format!(
                "not a valid object name: '{base}'"
            )));
        };
        let full = format!("refs/heads/{name}");
        let from = words.get(1).map_or("HEAD", String::as_str);
        repo.log_ref(&full, None, start, &format!("branch: Created from {from}"))
            .await?;
        repo.write_ref(&full, &start).await?;
        return Ok(o);
    }
    // Listing.
    let branches = repo.refs_under("refs/heads/").await?;
    let pattern = words.first();
    let mut rows: Vec<(String, Oid, bool)> = Vec::new();
    if let Head::Detached(oid) = repo.head().await? {
        rows.push((
            format!("(HEAD detached at {})", repo.abbrev(&oid, 7).await?),
            oid,
            true,
        ));
    }
    for (full, oid) in branches {
        let name = full.trim_start_matches("refs/heads/").to_string();
        if let Some(p) = pattern
            && !super::super::ignore::wildmatch(p, &name, false)
        {
            continue;
        }
        let is_current = current.as_deref() == Some(name.as_str());
        rows.push((name, oid, is_current));
    }
    let width = rows.iter().map(|r| r.0.chars().count()).max().unwrap_or(0);
    for (name, oid, cur) in rows {
        let mark = if cur { "* " } else { "  " };
        if verbose {
            let line = one_line(repo, &oid).await?;
            o.out(format!("{mark}{name:<width$} {line}\n"));
        } else {
            o.out(format!("{mark}{name}\n"));
        }
    }
    Ok(o)
}

/// `git tag [-l [PATTERN]] | NAME [REV] | -a NAME -m MSG [REV] | -d NAME`.
pub(super) async fn tag(repo: &Repo, args: &[String]) -> Result<Output, GitError> {
    let (mut delete, mut annotate, mut force, mut list) = (false, false, false, false);
    let (mut message, mut words) = (None, Vec::new());
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        if let Some(m) = option_value(args, &mut i, "--message", Some("-m"))? {
            message = Some(m);
            annotate = true;
        } else {
            match a {
                "-d" | "--delete" => delete = true,
                "-a" | "--annotate" => annotate = true,
                "-f" | "--force" => force = true,
                "-l" | "--list" => list = true,
                "-n" => {}
                a if a.starts_with('-') => return Err(unknown_option("tag", a)),
                a => words.push(a.to_string()),
            }
        }
        i += 1;
    }
    let mut o = Output::default();
    if delete {
        for name in &words {
            let full = format!("refs/tags/{name}");
            let Some(oid) = repo.read_ref(&full).await? else {
                return Err(failed(format!("error: tag '{name}' not found.\n")));
            };
            repo.delete_ref(&full).await?;
            o.out(format!(
                "Deleted tag '{name}' (was {})\n",
                repo.abbrev(&oid, 7).await?
            ));
        }
        return Ok(o);
    }
    if words.is_empty() || list {
        for (full, _) in repo.refs_under("refs/tags/").await? {
            let name = full.trim_start_matches("refs/tags/");
            if words
                .first()
                .is_none_or(|p| super::super::ignore::wildmatch(p, name, false))
            {
                o.out(format!("{name}\n"));
            }
        }
        return Ok(o);
    }
    let name = &words[0];
    if !valid_ref_name(name) {
        return Err(GitError::Fatal(format!(
            "'{name}' is not a valid tag name."
        )));
    }
    let full = format!("refs/tags/{name}");
    if !force && repo.read_ref(&full).await?.is_some() {
        return Err(GitError::Fatal(format!("tag '{name}' already exists")));
    }
    let target = repo
        .resolve(words.get(1).map_or("HEAD", String::as_str))
        .await?;
    let oid = if annotate {
        let Some(msg) = message else {
            return Err(failed(
                "error: there is no editor in this sandbox: give the tag message with -m\n".into(),
            ));
        };
        let (kind, _) = repo.read_object(&target).await?;
        let who = ident(repo, "COMMITTER");
        let body = format!(
            "object {}\ntype {}\ntag {name}\ntagger {}\n\n{}",
            target.hex(),
            kind.name(),
            who.to_header(),
            super::super::objects::clean_message(&msg)
        );
        repo.write_object(Kind::Tag, body.as_bytes()).await?
    } else {
        target
    };
    repo.write_ref(&full, &oid).await?;
    Ok(o)
}
