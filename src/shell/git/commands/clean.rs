//! `git clean`: removing untracked files (and with `-d` folders).

use std::collections::BTreeSet;

use super::super::files::parent;
use super::super::index::Index;
use super::super::repo::Repo;
use super::super::worktree::Scan;
use super::super::{GitError, Output};
use super::args::{Pathspec, quote_path, split_dashdash, unknown_option};

/// What `git clean` was asked to do.
#[derive(Default)]
struct CleanOptions {
    force: bool,
    dry: bool,
    dirs: bool,
    with_ignored: bool,
    only_ignored: bool,
    quiet: bool,
    paths: Vec<String>,
}

/// `git clean [-n] [-f] [-d] [-x] [-X] [-q] [PATHS]`: remove untracked files.
pub(super) async fn clean(repo: &Repo, args: &[String]) -> Result<Output, GitError> {
    let opts = parse_clean_options(args)?;
    if !opts.force && !opts.dry && repo.config.get_bool("clean.requireForce") != Some(false) {
        return Err(GitError::Fatal(
            "clean.requireForce defaults to true and neither -i, -n, nor -f given; refusing to clean".into(),
        ));
    }
    let ps = Pathspec::new(repo, &opts.paths)?;
    let index = repo.index().await?;
    let everything = repo.scan("", true).await?;
    let victims = clean_victims(repo, &ps, &index, &everything, &opts).await?;
    let dry = opts.dry;
    let mut o = Output::default();
    for v in &victims {
        let verb = if dry { "Would remove" } else { "Removing" };
        if !opts.quiet || dry {
            o.out(format!(
                "{verb} {}\n",
                quote_path(&repo.display(v.trim_end_matches('/')))
                    + if v.ends_with('/') { "/" } else { "" }
            ));
        }
        if dry {
            continue;
        }
        let path = v.trim_end_matches('/');
        if v.ends_with('/') {
            let files: Vec<String> = everything
                .files
                .iter()
                .filter(|f| f.path.starts_with(v.as_str()))
                .map(|f| f.path.clone())
                .collect();
            for f in files {
                repo.files.remove_file(&repo.abs(&f)).await?;
            }
            remove_empty_dirs(repo, path).await?;
        } else {
            repo.files.remove_file(&repo.abs(path)).await?;
        }
    }
    Ok(o)
}

fn parse_clean_options(args: &[String]) -> Result<CleanOptions, GitError> {
    let (opts, paths, _) = split_dashdash(args);
    let mut o = CleanOptions {
        paths,
        ..CleanOptions::default()
    };
    for a in &opts {
        if a.starts_with('-') && !a.starts_with("--") && a.len() > 1 {
            for c in a[1..].chars() {
                match c {
                    'f' => o.force = true,
                    'n' => o.dry = true,
                    'd' => o.dirs = true,
                    'x' => o.with_ignored = true,
                    'X' => o.only_ignored = true,
                    'q' => o.quiet = true,
                    'i' => {
                        return Err(GitError::Failed {
                            text: "error: git clean -i needs an interactive terminal\n".into(),
                            code: 1,
                        });
                    }
                    _ => return Err(unknown_option("clean", &format!("-{c}"))),
                }
            }
            continue;
        }
        match a.as_str() {
            "--force" => o.force = true,
            "--dry-run" => o.dry = true,
            "--quiet" => o.quiet = true,
            a if a.starts_with('-') => return Err(unknown_option("clean", a)),
            a => o.paths.push(a.to_string()),
        }
    }
    Ok(o)
}

/// What `clean` removes: untracked files (ignored ones with `-x`, only those with `-X`), and
/// with `-d` whole untracked folders (named with a trailing `/`).
async fn clean_victims(
    repo: &Repo,
    ps: &Pathspec,
    index: &Index,
    everything: &Scan,
    opts: &CleanOptions,
) -> Result<BTreeSet<String>, GitError> {
    let (with_ignored, only_ignored) = (opts.with_ignored, opts.only_ignored);
    let visible: BTreeSet<String> = if with_ignored || only_ignored {
        BTreeSet::new()
    } else {
        repo.scan("", false)
            .await?
            .files
            .into_iter()
            .map(|f| f.path)
            .collect()
    };
    let mut victims: BTreeSet<String> = BTreeSet::new();
    for f in &everything.files {
        if index.get(&f.path).is_some() || !ps.matches(&f.path) {
            continue;
        }
        let ignored = if with_ignored || only_ignored {
            repo.is_ignored(&f.path, false).await?
        } else {
            !visible.contains(&f.path)
        };
        let wanted = if only_ignored {
            ignored
        } else {
            with_ignored || !ignored
        };
        if !wanted {
            continue;
        }
        // Without -d, files in untracked folders stay; with it the folder goes whole.
        match untracked_top_dir(index, &f.path) {
            Some(d) if opts.dirs => {
                victims.insert(format!("{d}/"));
            }
            Some(_) => {}
            None => {
                victims.insert(f.path.clone());
            }
        }
    }
    Ok(victims)
}

/// The outermost folder above `path` that holds nothing staged, if there is one.
fn untracked_top_dir(index: &Index, path: &str) -> Option<String> {
    let mut at = 0;
    while let Some(i) = path[at..].find('/') {
        let dir = &path[..at + i];
        if !index.has_dir(dir) {
            return Some(dir.to_string());
        }
        at += i + 1;
    }
    None
}

/// Remove folder `dir` of the work tree and every empty folder in it.
async fn remove_empty_dirs(repo: &Repo, dir: &str) -> Result<(), GitError> {
    let mut stack = vec![(dir.to_string(), false)];
    while let Some((d, visited)) = stack.pop() {
        repo.files.tick()?;
        let abs = repo.abs(&d);
        if visited {
            if repo.files.read_dir(&abs).await?.is_empty() {
                repo.files.prune_empty(abs, &repo.abs(parent(&d))).await;
            }
            continue;
        }
        stack.push((d.clone(), true));
        for e in repo.files.read_dir(&abs).await? {
            if e.metadata.file_type.is_dir() {
                stack.push((format!("{d}/{}", e.name), false));
            }
        }
    }
    Ok(())
}
