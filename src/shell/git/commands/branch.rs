//! `git branch`, `tag`, `reflog`: the refs that name commits.

use super::super::identity::ident;
use super::super::objects::{Kind, Oid};
use super::super::refs::{Head, valid_ref_name};
use super::super::repo::Repo;
use super::super::{GitError, Output};
use super::args::{option_value, unknown_option};
use super::inspect::merge_base;

/// A failure git reports with exit code 1.
pub(super) fn failed(text: String) -> GitError {
    GitError::Failed { text, code: 1 }
}

/// `abc1234 subject` of a commit.
pub(super) async fn one_line(repo: &Repo, oid: &Oid) -> Result<String, GitError> {
    let c = repo.commit(oid).await?;
    Ok(format!("{} {}", repo.abbrev(oid, 7).await?, c.subject()))
}

/// A new branch's name checked, and its start commit.
pub(super) async fn new_branch(
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

/// What `git branch` was asked to do.
#[derive(Default)]
struct BranchOptions {
    delete: bool,
    force_delete: bool,
    rename: bool,
    verbose: bool,
    show_current: bool,
    force: bool,
    list: bool,
    words: Vec<String>,
}

/// `git branch`: list, create, delete, rename.
pub(super) async fn branch(repo: &Repo, args: &[String]) -> Result<Output, GitError> {
    let opts = parse_branch_options(args)?;
    let current = repo.branch_name().await?;
    if opts.show_current {
        return Ok(Output::stdout(
            current.map(|c| format!("{c}\n")).unwrap_or_default(),
        ));
    }
    if opts.delete {
        return delete_branches(repo, &opts, current.as_deref()).await;
    }
    if opts.rename {
        rename_branch(repo, &opts, current.as_deref()).await?;
        return Ok(Output::default());
    }
    if !opts.words.is_empty() && !opts.list {
        create_branch(repo, &opts, current).await?;
        return Ok(Output::default());
    }
    list_branches(repo, &opts, current.as_deref()).await
}

fn parse_branch_options(args: &[String]) -> Result<BranchOptions, GitError> {
    let mut o = BranchOptions::default();
    for a in args {
        match a.as_str() {
            "-d" | "--delete" => o.delete = true,
            "-D" => {
                o.delete = true;
                o.force_delete = true;
            }
            "-m" | "--move" => o.rename = true,
            "-M" => {
                o.rename = true;
                o.force = true;
            }
            "-f" | "--force" => o.force = true,
            "-v" | "-vv" | "--verbose" => o.verbose = true,
            "--show-current" => o.show_current = true,
            "-l" | "--list" | "-a" | "--all" | "-r" | "--remotes" => o.list = true,
            "--no-color" | "--color" | "--no-track" | "--track" | "-t" | "-q" | "--quiet" => {}
            a if a.starts_with('-') => return Err(unknown_option("branch", a)),
            a => o.words.push(a.to_string()),
        }
    }
    Ok(o)
}

/// `git branch -d|-D NAMES`: not the current branch, and (without `-D`) only merged ones.
async fn delete_branches(
    repo: &Repo,
    opts: &BranchOptions,
    current: Option<&str>,
) -> Result<Output, GitError> {
    if opts.words.is_empty() {
        return Err(GitError::Fatal("branch name required".into()));
    }
    let mut o = Output::default();
    let head = repo.head_commit().await?;
    for name in &opts.words {
        let full = format!("refs/heads/{name}");
        let Some(oid) = repo.read_ref(&full).await? else {
            return Err(failed(format!("error: branch '{name}' not found.\n")));
        };
        if current == Some(name.as_str()) {
            return Err(failed(format!(
                "error: Cannot delete branch '{name}' checked out at '{}'\n",
                repo.work_tree
            )));
        }
        if !opts.force_delete {
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
    Ok(o)
}

/// `git branch -m|-M [OLD] NEW`; renaming the current branch moves `HEAD` along.
async fn rename_branch(
    repo: &Repo,
    opts: &BranchOptions,
    current: Option<&str>,
) -> Result<(), GitError> {
    let (old, new) = match opts.words.as_slice() {
        [new] => (
            current.map(str::to_string).ok_or_else(|| {
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
    if !opts.force && old != new && repo.read_ref(&new_full).await?.is_some() {
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
        None if current == Some(old.as_str()) => {}
        None => return Err(GitError::Fatal(format!("no branch named '{old}'"))),
    }
    if current == Some(old.as_str()) {
        repo.set_head_branch(&new_full).await?;
    }
    Ok(())
}

/// `git branch [-f] NAME [START]`.
async fn create_branch(
    repo: &Repo,
    opts: &BranchOptions,
    current: Option<String>,
) -> Result<(), GitError> {
    let words = &opts.words;
    let name = &words[0];
    if current.as_deref() == Some(name.as_str()) && opts.force {
        return Err(GitError::Fatal(format!(
            "cannot force update the branch '{name}' used by worktree at '{}'",
            repo.work_tree
        )));
    }
    let start = new_branch(repo, name, words.get(1).map(String::as_str), opts.force).await?;
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
    repo.write_ref(&full, &start).await
}

/// `git branch [-v] [--list [PATTERN]]`: the branches, the current one starred.
async fn list_branches(
    repo: &Repo,
    opts: &BranchOptions,
    current: Option<&str>,
) -> Result<Output, GitError> {
    let mut o = Output::default();
    let branches = repo.refs_under("refs/heads/").await?;
    let pattern = opts.words.first();
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
        let is_current = current == Some(name.as_str());
        rows.push((name, oid, is_current));
    }
    let width = rows.iter().map(|r| r.0.chars().count()).max().unwrap_or(0);
    for (name, oid, cur) in rows {
        let mark = if cur { "* " } else { "  " };
        if opts.verbose {
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
