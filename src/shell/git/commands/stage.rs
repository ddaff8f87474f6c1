//! `git add`, `git rm`, `git mv`: changing what is staged.

use std::collections::BTreeMap;

use bashkit::Metadata;

use super::super::files::join;
use super::super::index::Index;
use super::super::repo::Repo;
use super::super::worktree::WorkState;
use super::super::{GitError, Output};
use super::{Pathspec, split_dashdash, unknown_option};

fn no_match(item: &str) -> GitError {
    GitError::Fatal(format!("pathspec '{item}' did not match any files"))
}

/// `git add [-A|-u] [-f] [-n] [-v] [--] PATHS`.
pub(super) async fn add(repo: &Repo, args: &[String]) -> Result<Output, GitError> {
    let (opts, mut paths, _) = split_dashdash(args);
    let (mut all, mut update, mut force, mut dry, mut verbose, mut no_removal) =
        (false, false, false, false, false, false);
    for a in &opts {
        match a.as_str() {
            "-A" | "--all" => all = true,
            "-u" | "--update" => update = true,
            "-f" | "--force" => force = true,
            "-n" | "--dry-run" => dry = true,
            "-v" | "--verbose" => verbose = true,
            "--no-all" | "--ignore-removal" => no_removal = true,
            "-q" | "--quiet" => {}
            "-p" | "--patch" | "-i" | "--interactive" | "-e" | "--edit" => {
                return Err(GitError::Failed {
                    text: format!(
                        "error: git add {a} needs an interactive terminal, which this sandbox does not have; add whole files instead\n"
                    ),
                    code: 1,
                });
            }
            a if a.starts_with('-') && a.len() > 1 => {
                // Bundled short flags (`-Av`).
                if a.starts_with("--") {
                    return Err(unknown_option("add", a));
                }
                for c in a[1..].chars() {
                    match c {
                        'A' => all = true,
                        'u' => update = true,
                        'f' => force = true,
                        'n' => dry = true,
                        'v' => verbose = true,
                        'q' => {}
                        _ => return Err(unknown_option("add", &format!("-{c}"))),
                    }
                }
            }
            a => paths.push(a.to_string()),
        }
    }
    if paths.is_empty() && !all && !update {
        let mut o = Output::default();
        o.err("Nothing specified, nothing added.\nhint: Maybe you wanted to say 'git add .'?\n");
        return Ok(o);
    }
    let ps = Pathspec::new(repo, &paths)?;
    let mut index = repo.index().await?;
    // What the work tree has under the named paths (ignored files only with -f).
    let mut found: BTreeMap<String, Metadata> = BTreeMap::new();
    let mut nested = Vec::new();
    let roots: Vec<String> =
        if ps.is_empty() || ps.given.iter().any(|g| g.contains(['*', '?', '['])) {
            vec![String::new()]
        } else {
            ps.items().map(str::to_string).collect()
        };
    if !update {
        for root in &roots {
            let scan = repo.scan(root, force).await?;
            for f in scan.files {
                if ps.matches(&f.path) {
                    found.insert(f.path, f.meta);
                }
            }
            nested.extend(scan.nested);
        }
    }
    // Every named path must match something; named files that are ignored are reported.
    let mut ignored = Vec::new();
    for i in 0..ps.len() {
        let hit = found.keys().any(|p| ps.item_matches(i, p))
            || index.entries.iter().any(|e| ps.item_matches(i, &e.path));
        if hit {
            continue;
        }
        let item = ps.items().nth(i).unwrap_or_default().to_string();
        let exists = repo.files.lstat(&repo.abs(&item)).await?;
        match exists {
            Some(m) if !update && repo.is_ignored(&item, m.file_type.is_dir()).await? => {
                ignored.push(ps.given[i].clone());
            }
            Some(m) if m.file_type.is_dir() && !update => {}
            _ => return Err(no_match(&ps.given[i])),
        }
    }
    let mut o = Output::default();
    let mut changed = false;
    let racy = repo.index_time().await?;
    // Staged files first: changed or deleted ones are updated.
    let tracked: Vec<usize> = (0..index.entries.len())
        .filter(|&i| index.entries[i].stage == 0 && ps.matches(&index.entries[i].path))
        .collect();
    let mut removals = Vec::new();
    let mut updates = Vec::new();
    for i in tracked {
        repo.files.tick()?;
        let e = &index.entries[i];
        match repo.work_state(e, racy).await? {
            (WorkState::Same { refreshed: true }, Some(m)) => {
                index.entries[i].set_stat(&m);
                changed = true;
            }
            (WorkState::Same { .. }, _) => {}
            (WorkState::Changed { .. }, Some(m)) => updates.push((e.path.clone(), m)),
            (WorkState::Changed { .. }, None) => {}
            (WorkState::Deleted, _) => {
                if !no_removal || update {
                    removals.push(e.path.clone());
                }
            }
        }
    }
    // Conflicted paths named again are resolved by adding them.
    for e in index
        .entries
        .iter()
        .filter(|e| e.stage != 0 && ps.matches(&e.path))
    {
        if let Some(m) = found.get(&e.path) {
            updates.push((e.path.clone(), m.clone()));
        }
    }
    if !update {
        for (path, meta) in &found {
            if index.get(path).is_none() {
                updates.push((path.clone(), meta.clone()));
            }
        }
    }
    updates.sort_by(|a, b| a.0.cmp(&b.0));
    updates.dedup_by(|a, b| a.0 == b.0);
    for (path, meta) in updates {
        repo.files.tick()?;
        if verbose || dry {
            o.out(format!("add '{}'\n", super::quote_path(&path)));
        }
        if !dry {
            let entry = repo.stage_file(&path, &meta).await?;
            index.add(entry);
            changed = true;
        }
    }
    for path in removals {
        if verbose || dry {
            o.out(format!("remove '{}'\n", super::quote_path(&path)));
        }
        if !dry {
            index.remove(&path);
            changed = true;
        }
    }
    for n in nested {
        if ps.matches(&n) {
            o.err(format!(
                "warning: skipping embedded git repository '{n}' (nested repositories are not supported in this sandbox)\n"
            ));
        }
    }
    if changed && !dry {
        repo.save_index(&index).await?;
    }
    if !ignored.is_empty() {
        let mut text =
            String::from("The following paths are ignored by one of your .gitignore files:\n");
        for p in ignored {
            text.push_str(&format!("{p}\n"));
        }
        text.push_str("hint: Use -f if you really want to add them.\n");
        o.err(text);
        o.code = 1;
    }
    Ok(o)
}

/// Whether a staged file differs from HEAD, and whether the work tree differs from it.
async fn staged_and_modified(
    repo: &Repo,
    index: &Index,
    head: &super::super::repo::Flat,
    path: &str,
) -> Result<(bool, bool), GitError> {
    let Some(e) = index.get(path) else {
        return Ok((false, false));
    };
    let staged = head.get(path) != Some(&(e.mode, e.oid));
    let racy = repo.index_time().await?;
    let modified = match repo.work_state(e, racy).await?.0 {
        WorkState::Same { .. } | WorkState::Deleted => false,
        WorkState::Changed { .. } => true,
    };
    Ok((staged, modified))
}

/// `git rm [--cached] [-r] [-f] [-q] [-n] [--ignore-unmatch] [--] PATHS`.
pub(super) async fn rm(repo: &Repo, args: &[String]) -> Result<Output, GitError> {
    let (opts, mut paths, _) = split_dashdash(args);
    let (mut cached, mut recursive, mut force, mut quiet, mut dry, mut ignore_unmatch) =
        (false, false, false, false, false, false);
    for a in &opts {
        match a.as_str() {
            "--cached" => cached = true,
            "-r" => recursive = true,
            "-f" | "--force" => force = true,
            "-q" | "--quiet" => quiet = true,
            "-n" | "--dry-run" => dry = true,
            "--ignore-unmatch" => ignore_unmatch = true,
            a if a.starts_with('-') && !a.starts_with("--") && a.len() > 1 => {
                for c in a[1..].chars() {
                    match c {
                        'r' => recursive = true,
                        'f' => force = true,
                        'q' => quiet = true,
                        'n' => dry = true,
                        _ => return Err(unknown_option("rm", &format!("-{c}"))),
                    }
                }
            }
            a if a.starts_with('-') => return Err(unknown_option("rm", a)),
            a => paths.push(a.to_string()),
        }
    }
    if paths.is_empty() {
        return Err(GitError::Usage(
            "usage: git rm [<options>] [--] <file>...\n".into(),
        ));
    }
    let ps = Pathspec::new(repo, &paths)?;
    let mut index = repo.index().await?;
    let mut targets: Vec<String> = Vec::new();
    for (i, given) in ps.given.iter().enumerate() {
        let hits: Vec<String> = index
            .entries
            .iter()
            .filter(|e| ps.item_matches(i, &e.path))
            .map(|e| e.path.clone())
            .collect();
        if hits.is_empty() {
            if ignore_unmatch {
                continue;
            }
            return Err(no_match(given));
        }
        let item = ps.items().nth(i).unwrap_or_default();
        if !recursive && !given.contains(['*', '?', '[']) && hits.iter().any(|h| h != item) {
            return Err(GitError::Fatal(format!(
                "not removing '{given}' recursively without -r"
            )));
        }
        targets.extend(hits);
    }
    targets.sort();
    targets.dedup();
    if !force {
        let head = repo
            .commit_files(repo.head_commit().await?.as_ref())
            .await?;
        for t in &targets {
            let (staged, modified) = staged_and_modified(repo, &index, &head, t).await?;
            let why = match (staged, modified, cached) {
                (true, true, _) => Some((
                    "has staged content different from both the\nfile and the HEAD",
                    "(use -f to force removal)",
                )),
                (true, false, false) => Some((
                    "has changes staged in the index",
                    "(use --cached to keep the file, or -f to force removal)",
                )),
                (false, true, false) => Some((
                    "has local modifications",
                    "(use --cached to keep the file, or -f to force removal)",
                )),
                _ => None,
            };
            if let Some((what, hint)) = why {
                return Err(GitError::Failed {
                    text: format!("error: the following file {what}:\n    {t}\n{hint}\n"),
                    code: 1,
                });
            }
        }
    }
    let mut o = Output::default();
    for t in &targets {
        if !quiet {
            o.out(format!("rm '{}'\n", super::quote_path(t)));
        }
        if dry {
            continue;
        }
        index.remove(t);
        if !cached {
            repo.remove_work(t).await?;
        }
    }
    if !dry {
        repo.save_index(&index).await?;
    }
    Ok(o)
}

/// `git mv [-f] [-k] [-n] [-v] SOURCE... DESTINATION`.
pub(super) async fn mv(repo: &Repo, args: &[String]) -> Result<Output, GitError> {
    let (opts, mut paths, _) = split_dashdash(args);
    let (mut force, mut skip, mut dry, mut verbose) = (false, false, false, false);
    for a in &opts {
        match a.as_str() {
            "-f" | "--force" => force = true,
            "-k" => skip = true,
            "-n" | "--dry-run" => dry = true,
            "-v" | "--verbose" => verbose = true,
            a if a.starts_with('-') => return Err(unknown_option("mv", a)),
            a => paths.push(a.to_string()),
        }
    }
    if paths.len() < 2 {
        return Err(GitError::Usage(
            "usage: git mv [<options>] <source>... <destination>\n".into(),
        ));
    }
    let dest_arg = paths.pop().unwrap_or_default();
    let dest = repo.repo_path(&dest_arg)?;
    let dest_is_dir = repo.files.is_dir(&repo.abs(&dest)).await?;
    if paths.len() > 1 && !dest_is_dir {
        return Err(GitError::Fatal(format!(
            "destination '{dest_arg}' is not a directory"
        )));
    }
    let mut index = repo.index().await?;
    let mut o = Output::default();
    for src_arg in &paths {
        let src = repo.repo_path(src_arg)?;
        let name = src.rsplit('/').next().unwrap_or(&src);
        let to = if dest_is_dir {
            join(&dest, name)
        } else {
            dest.clone()
        };
        let fail = |what: &str| {
            GitError::Fatal(format!(
                "{what}, source={src_arg}, destination={}",
                repo.display(&to)
            ))
        };
        let prefix = format!("{src}/");
        let moved: Vec<usize> = (0..index.entries.len())
            .filter(|&i| index.entries[i].path == src || index.entries[i].path.starts_with(&prefix))
            .collect();
        let meta = repo.files.lstat(&repo.abs(&src)).await?;
        let problem = if meta.is_none() {
            Some("bad source")
        } else if moved.is_empty() {
            Some("not under version control")
        } else if to == src || to.starts_with(&prefix) {
            Some("can not move directory into itself")
        } else if repo.files.lstat(&repo.abs(&to)).await?.is_some() && !force {
            Some("destination exists")
        } else {
            None
        };
        if let Some(p) = problem {
            if skip {
                continue;
            }
            return Err(fail(p));
        }
        if verbose || dry {
            o.out(format!("Renaming {} to {}\n", src, to));
        }
        if dry {
            continue;
        }
        if let Some(m) = repo.files.lstat(&repo.abs(&to)).await?
            && !m.file_type.is_dir()
        {
            repo.files.remove_file(&repo.abs(&to)).await?;
        }
        repo.files
            .mkdirs(super::super::files::parent_dir(&repo.abs(&to)))
            .await?;
        repo.files.rename(&repo.abs(&src), &repo.abs(&to)).await?;
        let mut entries: Vec<_> = moved.iter().map(|&i| index.entries[i].clone()).collect();
        for e in &entries {
            index.remove(&e.path);
        }
        for e in entries.iter_mut() {
            e.path = format!("{to}{}", &e.path[src.len()..]);
            if let Some(m) = repo.files.lstat(&repo.abs(&e.path)).await? {
                e.set_stat(&m);
            }
            index.add(e.clone());
        }
    }
    if !dry {
        repo.save_index(&index).await?;
    }
    Ok(o)
}
