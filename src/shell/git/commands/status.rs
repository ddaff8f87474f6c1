//! `git status` (long, `--short`, `--porcelain`), `git ls-files`, `git clean`.

use std::collections::BTreeSet;

use super::super::files::parent;
use super::super::index::Index;
use super::super::refs::Head;
use super::super::repo::Repo;
use super::super::worktree::WorkState;
use super::super::{GitError, Output};
use super::changes::{Change, compare, snapshot};
use super::{Pathspec, quote_path, split_dashdash, unknown_option};

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

/// `git status [-s | --short | --porcelain] [-b] [-u[MODE]] [-- PATHS]`.
pub(super) async fn status(repo: &Repo, args: &[String]) -> Result<Output, GitError> {
    let (opts, mut paths, _) = split_dashdash(args);
    let (mut short, mut porcelain, mut branch, mut untracked_mode, mut nul) =
        (false, false, false, Untracked::Normal, false);
    for a in &opts {
        match a.as_str() {
            "-s" | "--short" => short = true,
            "--porcelain" | "--porcelain=v1" => porcelain = true,
            "-b" | "--branch" => branch = true,
            "-z" => {
                nul = true;
                porcelain = true;
            }
            "-sb" | "-bs" => {
                short = true;
                branch = true;
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
                untracked_mode = Untracked::All
            }
            "-uno" | "--untracked-files=no" => untracked_mode = Untracked::No,
            "-unormal" | "--untracked-files=normal" => untracked_mode = Untracked::Normal,
            a if a.starts_with("--ignored") || a.starts_with("--ignore-submodules") => {}
            "--porcelain=v2" => {
                return Err(GitError::Failed {
                    text: "error: status --porcelain=v2 is not supported in this sandbox (v1 is)\n"
                        .into(),
                    code: 1,
                });
            }
            a if a.starts_with('-') => return Err(unknown_option("status", a)),
            a => paths.push(a.to_string()),
        }
    }
    let ps = Pathspec::new(repo, &paths)?;
    let st = state(repo, &ps, untracked_mode).await?;
    if !(short || porcelain) {
        return Ok(Output::stdout(long_text(repo, &st, false).await?));
    }
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
    if branch {
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
    // One line per path: index letter, work tree letter.
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
    Ok(Output::stdout(out))
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

/// `git clean [-n] [-f] [-d] [-x] [-X] [-q] [PATHS]`: remove untracked files.
pub(super) async fn clean(repo: &Repo, args: &[String]) -> Result<Output, GitError> {
    let (opts, mut paths, _) = split_dashdash(args);
    let (mut force, mut dry, mut dirs, mut with_ignored, mut only_ignored, mut quiet) =
        (false, false, false, false, false, false);
    for a in &opts {
        if a.starts_with('-') && !a.starts_with("--") && a.len() > 1 {
            for c in a[1..].chars() {
                match c {
                    'f' => force = true,
                    'n' => dry = true,
                    'd' => dirs = true,
                    'x' => with_ignored = true,
                    'X' => only_ignored = true,
                    'q' => quiet = true,
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
            "--force" => force = true,
            "--dry-run" => dry = true,
            "--quiet" => quiet = true,
            a if a.starts_with('-') => return Err(unknown_option("clean", a)),
            a => paths.push(a.to_string()),
        }
    }
    if !force && !dry && repo.config.get_bool("clean.requireForce") != Some(false) {
        return Err(GitError::Fatal(
            "clean.requireForce defaults to true and neither -i, -n, nor -f given; refusing to clean".into(),
        ));
    }
    let ps = Pathspec::new(repo, &paths)?;
    let index = repo.index().await?;
    let everything = repo.scan("", true).await?;
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
        let mut top_dir = None;
        let mut at = 0;
        while let Some(i) = f.path[at..].find('/') {
            let dir = &f.path[..at + i];
            if !index.has_dir(dir) {
                top_dir = Some(dir.to_string());
                break;
            }
            at += i + 1;
        }
        match top_dir {
            Some(d) if dirs => {
                victims.insert(format!("{d}/"));
            }
            Some(_) => {}
            None => {
                victims.insert(f.path.clone());
            }
        }
    }
    let mut o = Output::default();
    for v in &victims {
        let verb = if dry { "Would remove" } else { "Removing" };
        if !quiet || dry {
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
