//! `git commit`.

use super::super::identity::{ident, parse_date};
use super::super::index::Index;
use super::super::objects::{Commit, Kind, Oid, Signature, clean_message};
use super::super::refs::Head;
use super::super::repo::{Flat, Repo};
use super::super::worktree::WorkState;
use super::super::{GitError, Output};
use super::args::{Pathspec, option_value, split_dashdash, unknown_option};
use super::changes::{Change, compare, shortstat, snapshot, summary_lines};

/// What `git commit` was asked to do.
#[derive(Default)]
struct CommitOptions {
    messages: Vec<String>,
    all: bool,
    allow_empty: bool,
    allow_empty_msg: bool,
    quiet: bool,
    amend: bool,
    signoff: bool,
    author: Option<String>,
    date: Option<String>,
    paths: Vec<String>,
}

/// `git commit -m MSG [-a] [--allow-empty] [--amend] [-q] [--author=...] [PATHS]`.
pub(super) async fn commit(repo: &Repo, args: &[String]) -> Result<Output, GitError> {
    let o = parse_options(repo, args).await?;
    let head = repo.head_commit().await?;
    let old_commit = match (o.amend, head) {
        (true, Some(h)) => Some(repo.commit(&h).await?),
        (true, None) => return Err(GitError::Fatal("You have nothing to amend.".into())),
        _ => None,
    };
    if o.messages.is_empty() && old_commit.is_none() {
        return Err(GitError::Failed {
            text: "error: there is no editor in this sandbox: give the message with -m \"...\" or -F <file>\n".into(),
            code: 1,
        });
    }
    let mut index = repo.index().await?;
    if index.has_conflicts() {
        return Err(GitError::Failed {
            text: "error: Committing is not possible because you have unmerged files.\nhint: Fix them up in the work tree, and then use 'git add/rm <file>'\nhint: as appropriate to mark resolution and make a commit.\nfatal: Exiting because of an unresolved conflict.\n".into(),
            code: 128,
        });
    }
    let ps = Pathspec::new(repo, &o.paths)?;
    stage_for_commit(repo, &mut index, &ps, o.all).await?;
    let parent_files = match &old_commit {
        Some(c) => match c.parents.first() {
            Some(p) => repo.commit_files(Some(p)).await?,
            None => Default::default(),
        },
        None => repo.commit_files(head.as_ref()).await?,
    };
    let files = committed_files(repo, &index, &ps, head.as_ref()).await?;
    let changes = compare(
        &snapshot(&parent_files),
        &snapshot(&files),
        &Pathspec::default(),
        true,
    );
    if changes.is_empty() && !o.allow_empty && old_commit.is_none() {
        let mut o = super::status::long_status(repo, true).await?;
        o.code = 1;
        return Ok(o);
    }
    let committer = ident(repo, "COMMITTER");
    let message = commit_message(&o, old_commit.as_ref(), &committer)?;
    let author = commit_author(repo, &o, old_commit.as_ref())?;
    let tree = repo.write_trees(&files).await?;
    let parents = match &old_commit {
        Some(c) => c.parents.clone(),
        None => head.into_iter().collect(),
    };
    let root = parents.is_empty();
    let c = Commit {
        tree,
        parents,
        author,
        committer,
        message,
    };
    let oid = repo.write_object(Kind::Commit, &c.to_bytes()).await?;
    let kind = match (root, &old_commit) {
        (true, _) => " (initial)",
        (_, Some(_)) => " (amend)",
        _ => "",
    };
    repo.move_head(&oid, &format!("commit{kind}: {}", c.subject()))
        .await?;
    repo.save_index(&index).await?;
    if o.quiet {
        return Ok(Output::default());
    }
    commit_summary(repo, &oid, &c, root, &changes).await
}

/// Read the options and paths; `-F FILE` is read here, as git does while parsing.
async fn parse_options(repo: &Repo, args: &[String]) -> Result<CommitOptions, GitError> {
    let (opts, paths, _) = split_dashdash(args);
    let mut o = CommitOptions {
        paths,
        ..CommitOptions::default()
    };
    let mut i = 0;
    while i < opts.len() {
        let a = opts[i].as_str();
        if let Some(m) = option_value(&opts, &mut i, "--message", Some("-m"))? {
            o.messages.push(m);
        } else if let Some(f) = option_value(&opts, &mut i, "--file", Some("-F"))? {
            let abs = super::super::files::normalize(&repo.cwd, &f);
            let text = repo.files.read(&abs).await?;
            o.messages.push(String::from_utf8_lossy(&text).into_owned());
        } else if let Some(v) = option_value(&opts, &mut i, "--author", None)? {
            o.author = Some(v);
        } else if let Some(v) = option_value(&opts, &mut i, "--date", None)? {
            o.date = Some(v);
        } else {
            match a {
                "-a" | "--all" => o.all = true,
                "--allow-empty" => o.allow_empty = true,
                "--allow-empty-message" => o.allow_empty_msg = true,
                "-q" | "--quiet" => o.quiet = true,
                "--amend" => o.amend = true,
                // There is no editor, so `--no-edit` is what happens anyway.
                "--no-edit" => {}
                "-s" | "--signoff" => o.signoff = true,
                "-n" | "--no-verify" | "-v" | "--verbose" | "--no-gpg-sign" | "--no-status"
                | "-o" | "--only" | "--cleanup=strip" | "--cleanup=default" => {}
                a if a.starts_with("-m") || a.starts_with("--message=") => {}
                a if a.starts_with('-') && !a.starts_with("--") && a.len() > 1 => {
                    parse_bundled(&a[1..], &opts, &mut i, &mut o)?;
                }
                a if a.starts_with('-') => return Err(unknown_option("commit", a)),
                a => o.paths.push(a.to_string()),
            }
        }
        i += 1;
    }
    Ok(o)
}

/// Bundled flags such as `-am MSG` or `-qam MSG`; `m` takes the rest or the next argument.
fn parse_bundled(
    flags: &str,
    opts: &[String],
    i: &mut usize,
    o: &mut CommitOptions,
) -> Result<(), GitError> {
    for (k, c) in flags.char_indices() {
        match c {
            'a' => o.all = true,
            'q' => o.quiet = true,
            's' => o.signoff = true,
            'n' | 'v' => {}
            'm' => {
                let inline = &flags[k + 1..];
                if inline.is_empty() {
                    *i += 1;
                    let m = opts.get(*i).cloned().ok_or_else(|| {
                        GitError::Usage("error: switch `m' requires a value\n".into())
                    })?;
                    o.messages.push(m);
                } else {
                    o.messages.push(inline.to_string());
                }
                break;
            }
            _ => return Err(unknown_option("commit", &format!("-{c}"))),
        }
    }
    Ok(())
}

/// `-a` stages every change to a tracked file; paths stage (and commit only) those, and each
/// must name a tracked file.
async fn stage_for_commit(
    repo: &Repo,
    index: &mut Index,
    ps: &Pathspec,
    all: bool,
) -> Result<(), GitError> {
    if !ps.is_empty() {
        for (k, given) in ps.given.iter().enumerate() {
            if !index.entries.iter().any(|e| ps.item_matches(k, &e.path)) {
                return Err(GitError::Failed {
                    text: format!(
                        "error: pathspec '{given}' did not match any file(s) known to git\n"
                    ),
                    code: 1,
                });
            }
        }
    }
    if !all && ps.is_empty() {
        return Ok(());
    }
    let changes = repo.work_changes(index, &|p| ps.matches(p)).await?;
    for (path, state) in changes {
        match state {
            WorkState::Changed { .. } => {
                let abs = repo.abs(&path);
                if let Some(meta) = repo.files.lstat(&abs).await? {
                    let e = repo.stage_file(&path, &meta).await?;
                    index.add(e);
                }
            }
            WorkState::Deleted => {
                index.remove(&path);
            }
            WorkState::Same { .. } => {}
        }
    }
    Ok(())
}

/// The files committed: all staged ones, or with paths the parent's plus those paths.
async fn committed_files(
    repo: &Repo,
    index: &Index,
    ps: &Pathspec,
    head: Option<&Oid>,
) -> Result<Flat, GitError> {
    let files = Repo::index_files(index);
    if ps.is_empty() {
        return Ok(files);
    }
    let mut only = repo.commit_files(head).await?;
    only.retain(|p, _| !ps.matches(p));
    for (p, v) in files.iter().filter(|(p, _)| ps.matches(p)) {
        only.insert(p.clone(), *v);
    }
    Ok(only)
}

/// The message given (or the amended commit's), signed off if asked, cleaned up.
fn commit_message(
    o: &CommitOptions,
    old_commit: Option<&Commit>,
    committer: &Signature,
) -> Result<String, GitError> {
    let mut message = if o.messages.is_empty() {
        old_commit.map(|c| c.message.clone()).unwrap_or_default()
    } else {
        o.messages.join("\n\n")
    };
    if o.signoff {
        let line = format!("Signed-off-by: {} <{}>", committer.name, committer.email);
        if !message.contains(&line) {
            message = format!("{}\n\n{line}\n", message.trim_end());
        }
    }
    let message = clean_message(&message);
    if message.is_empty() && !o.allow_empty_msg {
        return Err(GitError::Failed {
            text: "Aborting commit due to empty commit message.\n".into(),
            code: 1,
        });
    }
    Ok(message)
}

/// The author: the amended commit's or the environment's, with `--author` and `--date` on top.
fn commit_author(
    repo: &Repo,
    o: &CommitOptions,
    old_commit: Option<&Commit>,
) -> Result<Signature, GitError> {
    let mut who = match old_commit {
        Some(c) => c.author.clone(),
        None => ident(repo, "AUTHOR"),
    };
    if let Some(a) = &o.author {
        let parsed = Signature::parse(&format!("{a} 0 +0000")).filter(|s| !s.email.is_empty());
        let s = parsed.ok_or_else(|| {
            GitError::Fatal(format!(
                "--author '{a}' is not 'Name <email>' and matches no existing author"
            ))
        })?;
        who.name = s.name;
        who.email = s.email;
    }
    if let Some(d) = &o.date {
        let (t, tz) =
            parse_date(d).ok_or_else(|| GitError::Fatal(format!("invalid date format: {d}")))?;
        who.time = t;
        who.tz = tz;
    }
    Ok(who)
}

/// `[main (root-commit) abc1234] subject`, then the stat and the created/deleted lines.
async fn commit_summary(
    repo: &Repo,
    oid: &Oid,
    c: &Commit,
    root: bool,
    changes: &[Change],
) -> Result<Output, GitError> {
    let mut o = Output::default();
    let place = match repo.head().await? {
        Head::Branch(r) => r.strip_prefix("refs/heads/").unwrap_or(&r).to_string(),
        Head::Detached(_) => "detached HEAD".into(),
    };
    let root = if root { " (root-commit)" } else { "" };
    o.out(format!(
        "[{place}{root} {}] {}\n",
        repo.abbrev(oid, 7).await?,
        c.subject()
    ));
    o.out(shortstat(repo, changes).await?);
    o.out(summary_lines(changes));
    Ok(o)
}
