//! `git add`, `git rm`, `git mv`: changing what is staged.

use std::collections::BTreeMap;

use bashkit::Metadata;

use super::super::files::join;
use super::super::index::Index;
use super::super::repo::Repo;
use super::super::worktree::WorkState;
use super::super::{GitError, Output};
use super::args::{Pathspec, split_dashdash, unknown_option};

fn no_match(item: &str) -> GitError {
    GitError::Fatal(format!("pathspec '{item}' did not match any files"))
}

/// What `git add` was asked to do.
#[derive(Default)]
struct AddOptions {
    all: bool,
    update: bool,
    force: bool,
    dry: bool,
    verbose: bool,
    no_removal: bool,
    paths: Vec<String>,
}

/// `git add [-A|-u] [-f] [-n] [-v] [--] PATHS`.
pub(super) async fn add(repo: &Repo, args: &[String]) -> Result<Output, GitError> {
    let opts = parse_add_options(args)?;
    if opts.paths.is_empty() && !opts.all && !opts.update {
        let mut o = Output::default();
        o.err("Nothing specified, nothing added.\nhint: Maybe you wanted to say 'git add .'?\n");
        return Ok(o);
    }
    let ps = Pathspec::new(repo, &opts.paths)?;
    let mut index = repo.index().await?;
    let (found, nested) = if opts.update {
        (BTreeMap::new(), Vec::new())
    } else {
        scan_named(repo, &ps, opts.force).await?
    };
    let ignored = ignored_named(repo, &ps, &index, &found, opts.update).await?;
    let (mut updates, removals, mut changed) =
        tracked_changes(repo, &mut index, &ps, &opts).await?;
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
    if !opts.update {
        for (path, meta) in &found {
            if index.get(path).is_none() {
                updates.push((path.clone(), meta.clone()));
            }
        }
    }
    updates.sort_by(|a, b| a.0.cmp(&b.0));
    updates.dedup_by(|a, b| a.0 == b.0);
    let mut o = Output::default();
    let (verbose, dry) = (opts.verbose, opts.dry);
    for (path, meta) in updates {
        repo.files.tick()?;
        if verbose || dry {
            o.out(format!("add '{}'\n", super::args::quote_path(&path)));
        }
        if !dry {
            let entry = repo.stage_file(&path, &meta).await?;
            index.add(entry);
            changed = true;
        }
    }
    for path in removals {
        if verbose || dry {
            o.out(format!("remove '{}'\n", super::args::quote_path(&path)));
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
        report_ignored(&mut o, ignored);
    }
    Ok(o)
}

fn parse_add_options(args: &[String]) -> Result<AddOptions, GitError> {
    let (opts, paths, _) = split_dashdash(args);
    let mut o = AddOptions {
        paths,
        ..AddOptions::default()
    };
    for a in &opts {
        match a.as_str() {
            "-A" | "--all" => o.all = true,
            "-u" | "--update" => o.update = true,
            "-f" | "--force" => o.force = true,
            "-n" | "--dry-run" => o.dry = true,
            "-v" | "--verbose" => o.verbose = true,
            "--no-all" | "--ignore-removal" => o.no_removal = true,
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
                        'A' => o.all = true,
                        'u' => o.update = true,
                        'f' => o.force = true,
                        'n' => o.dry = true,
                        'v' => o.verbose = true,
                        'q' => {}
                        _ => return Err(unknown_option("add", &format!("-{c}"))),
                    }
                }
            }
            a => o.paths.push(a.to_string()),
        }
    }
    Ok(o)
}

/// What the work tree has under the named paths (ignored files only with -f), and the nested
/// repositories met on the way.
async fn scan_named(
    repo: &Repo,
    ps: &Pathspec,
    force: bool,
) -> Result<(BTreeMap<String, Metadata>, Vec<String>), GitError> {
    let mut found: BTreeMap<String, Metadata> = BTreeMap::new();
    let mut nested = Vec::new();
    let roots: Vec<String> =
        if ps.is_empty() || ps.given.iter().any(|g| g.contains(['*', '?', '['])) {
            vec![String::new()]
        } else {
            ps.items().map(str::to_string).collect()
        };
    for root in &roots {
        let scan = repo.scan(root, force).await?;
        for f in scan.files {
            if ps.matches(&f.path) {
                found.insert(f.path, f.meta);
            }
        }
        nested.extend(scan.nested);
    }
    Ok((found, nested))
}

/// Every named path must match something; named files that are ignored are returned, to be
/// reported.
async fn ignored_named(
    repo: &Repo,
    ps: &Pathspec,
    index: &Index,
    found: &BTreeMap<String, Metadata>,
    update: bool,
) -> Result<Vec<String>, GitError> {
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
    Ok(ignored)
}

/// Staged files come first: changed ones are to be updated, deleted ones removed, and
/// unchanged ones with a stale stat refreshed in place. Returns (updates, removals, whether
/// the index changed).
async fn tracked_changes(
    repo: &Repo,
    index: &mut Index,
    ps: &Pathspec,
    opts: &AddOptions,
) -> Result<(Vec<(String, Metadata)>, Vec<String>, bool), GitError> {
    let racy = repo.index_time().await?;
    let tracked: Vec<usize> = (0..index.entries.len())
        .filter(|&i| index.entries[i].stage == 0 && ps.matches(&index.entries[i].path))
        .collect();
    let (mut updates, mut removals, mut changed) = (Vec::new(), Vec::new(), false);
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
                if !opts.no_removal || opts.update {
                    removals.push(e.path.clone());
                }
            }
        }
    }
    Ok((updates, removals, changed))
}

fn report_ignored(o: &mut Output, ignored: Vec<String>) {
    let mut text =
        String::from("The following paths are ignored by one of your .gitignore files:\n");
    for p in ignored {
        text.push_str(&format!("{p}\n"));
    }
    text.push_str("hint: Use -f if you really want to add them.\n");
    o.err(text);
    o.code = 1;
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

/// What `git rm` was asked to do.
#[derive(Default)]
struct RmOptions {
    cached: bool,
    recursive: bool,
    force: bool,
    quiet: bool,
    dry: bool,
    ignore_unmatch: bool,
    paths: Vec<String>,
}

/// `git rm [--cached] [-r] [-f] [-q] [-n] [--ignore-unmatch] [--] PATHS`.
pub(super) async fn rm(repo: &Repo, args: &[String]) -> Result<Output, GitError> {
    let opts = parse_rm_options(args)?;
    if opts.paths.is_empty() {
        return Err(GitError::Usage(
            "usage: git rm [<options>] [--] <file>...\n".into(),
        ));
    }
    let ps = Pathspec::new(repo, &opts.paths)?;
    let mut index = repo.index().await?;
    let targets = rm_targets(&ps, &index, &opts)?;
    if !opts.force {
        check_removable(repo, &index, &targets, opts.cached).await?;
    }
    let mut o = Output::default();
    for t in &targets {
        if !opts.quiet {
            o.out(format!("rm '{}'\n", super::args::quote_path(t)));
        }
        if opts.dry {
            continue;
        }
        index.remove(t);
        if !opts.cached {
            repo.remove_work(t).await?;
        }
    }
    if !opts.dry {
        repo.save_index(&index).await?;
    }
    Ok(o)
}

fn parse_rm_options(args: &[String]) -> Result<RmOptions, GitError> {
    let (opts, paths, _) = split_dashdash(args);
    let mut o = RmOptions {
        paths,
        ..RmOptions::default()
    };
    for a in &opts {
        match a.as_str() {
            "--cached" => o.cached = true,
            "-r" => o.recursive = true,
            "-f" | "--force" => o.force = true,
            "-q" | "--quiet" => o.quiet = true,
            "-n" | "--dry-run" => o.dry = true,
            "--ignore-unmatch" => o.ignore_unmatch = true,
            a if a.starts_with('-') && !a.starts_with("--") && a.len() > 1 => {
                for c in a[1..].chars() {
                    match c {
                        'r' => o.recursive = true,
                        'f' => o.force = true,
                        'q' => o.quiet = true,
                        'n' => o.dry = true,
                        _ => return Err(unknown_option("rm", &format!("-{c}"))),
                    }
                }
            }
            a if a.starts_with('-') => return Err(unknown_option("rm", a)),
            a => o.paths.push(a.to_string()),
        }
    }
    Ok(o)
}

/// The staged paths the pathspec names, sorted; a folder needs `-r`.
fn rm_targets(ps: &Pathspec, index: &Index, opts: &RmOptions) -> Result<Vec<String>, GitError> {
    let mut targets: Vec<String> = Vec::new();
    for (i, given) in ps.given.iter().enumerate() {
        let hits: Vec<String> = index
            .entries
            .iter()
            .filter(|e| ps.item_matches(i, &e.path))
            .map(|e| e.path.clone())
            .collect();
        if hits.is_empty() {
            if opts.ignore_unmatch {
                continue;
            }
            return Err(no_match(given));
        }
        let item = ps.items().nth(i).unwrap_or_default();
        if !opts.recursive && !given.contains(['*', '?', '[']) && hits.iter().any(|h| h != item) {
            return Err(GitError::Fatal(format!(
                "not removing '{given}' recursively without -r"
            )));
        }
        targets.extend(hits);
    }
    targets.sort();
    targets.dedup();
    Ok(targets)
}

/// Without `-f`, refuse to lose staged content or local modifications.
async fn check_removable(
    repo: &Repo,
    index: &Index,
    targets: &[String],
    cached: bool,
) -> Result<(), GitError> {
    let head = repo
        .commit_files(repo.head_commit().await?.as_ref())
        .await?;
    for t in targets {
        let (staged, modified) = staged_and_modified(repo, index, &head, t).await?;
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
    Ok(())
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
        if let Some(p) = move_problem(repo, &src, &to, moved.is_empty(), force).await? {
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
        move_path(repo, &mut index, &src, &to, &moved).await?;
    }
    if !dry {
        repo.save_index(&index).await?;
    }
    Ok(o)
}

/// Why `src` cannot move to `to`, if it cannot.
async fn move_problem(
    repo: &Repo,
    src: &str,
    to: &str,
    untracked: bool,
    force: bool,
) -> Result<Option<&'static str>, GitError> {
    let prefix = format!("{src}/");
    let meta = repo.files.lstat(&repo.abs(src)).await?;
    Ok(if meta.is_none() {
        Some("bad source")
    } else if untracked {
        Some("not under version control")
    } else if to == src || to.starts_with(&prefix) {
        Some("can not move directory into itself")
    } else if repo.files.lstat(&repo.abs(to)).await?.is_some() && !force {
        Some("destination exists")
    } else {
        None
    })
}

/// Rename `src` to `to` in the work tree, and its entries (`moved`) in the index.
async fn move_path(
    repo: &Repo,
    index: &mut Index,
    src: &str,
    to: &str,
    moved: &[usize],
) -> Result<(), GitError> {
    if let Some(m) = repo.files.lstat(&repo.abs(to)).await?
        && !m.file_type.is_dir()
    {
        repo.files.remove_file(&repo.abs(to)).await?;
    }
    repo.files
        .mkdirs(super::super::files::parent_dir(&repo.abs(to)))
        .await?;
    repo.files.rename(&repo.abs(src), &repo.abs(to)).await?;
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
    Ok(())
}
