//! `git commit`.

use super::super::objects::{Commit, Kind, Signature, clean_message};
use super::super::refs::Head;
use super::super::repo::Repo;
use super::super::worktree::WorkState;
use super::super::{GitError, Output};
use super::changes::{compare, shortstat, snapshot, summary_lines};
use super::{Pathspec, ident, option_value, parse_date, split_dashdash, unknown_option};

/// `git commit -m MSG [-a] [--allow-empty] [--amend] [-q] [--author=...] [PATHS]`.
pub(super) async fn commit(repo: &Repo, args: &[String]) -> Result<Output, GitError> {
    let (opts, mut paths, _) = split_dashdash(args);
    let mut messages: Vec<String> = Vec::new();
    let (mut all, mut allow_empty, mut allow_empty_msg, mut quiet, mut amend, mut no_edit) =
        (false, false, false, false, false, false);
    let (mut signoff, mut author, mut date) = (false, None, None);
    let mut i = 0;
    while i < opts.len() {
        let a = opts[i].as_str();
        if let Some(m) = option_value(&opts, &mut i, "--message", Some("-m"))? {
            messages.push(m);
        } else if let Some(f) = option_value(&opts, &mut i, "--file", Some("-F"))? {
            let abs = super::super::files::normalize(&repo.cwd, &f);
            let text = repo.files.read(&abs).await?;
            messages.push(String::from_utf8_lossy(&text).into_owned());
        } else if let Some(v) = option_value(&opts, &mut i, "--author", None)? {
            author = Some(v);
        } else if let Some(v) = option_value(&opts, &mut i, "--date", None)? {
            date = Some(v);
        } else {
            match a {
                "-a" | "--all" => all = true,
                "--allow-empty" => allow_empty = true,
                "--allow-empty-message" => allow_empty_msg = true,
                "-q" | "--quiet" => quiet = true,
                "--amend" => amend = true,
                "--no-edit" => no_edit = true,
                "-s" | "--signoff" => signoff = true,
                "-n" | "--no-verify" | "-v" | "--verbose" | "--no-gpg-sign" | "--no-status"
                | "-o" | "--only" | "--cleanup=strip" | "--cleanup=default" => {}
                a if a.starts_with("-m") || a.starts_with("--message=") => {}
                a if a.starts_with('-') && !a.starts_with("--") && a.len() > 1 => {
                    // Bundled flags such as `-am MSG` or `-qam MSG`.
                    let flags = &a[1..];
                    for (k, c) in flags.char_indices() {
                        match c {
                            'a' => all = true,
                            'q' => quiet = true,
                            's' => signoff = true,
                            'n' | 'v' => {}
                            'm' => {
                                let inline = &flags[k + 1..];
                                if inline.is_empty() {
                                    i += 1;
                                    let m = opts.get(i).cloned().ok_or_else(|| {
                                        GitError::Usage(
                                            "error: switch `m' requires a value\n".into(),
                                        )
                                    })?;
                                    messages.push(m);
                                } else {
                                    messages.push(inline.to_string());
                                }
                                break;
                            }
                            _ => return Err(unknown_option("commit", &format!("-{c}"))),
                        }
                    }
                }
                a if a.starts_with('-') => return Err(unknown_option("commit", a)),
                a => paths.push(a.to_string()),
            }
        }
        i += 1;
    }
    let head = repo.head_commit().await?;
    let old_commit = match (amend, head) {
        (true, Some(h)) => Some(repo.commit(&h).await?),
        (true, None) => return Err(GitError::Fatal("You have nothing to amend.".into())),
        _ => None,
    };
    if messages.is_empty() && old_commit.is_none() {
        return Err(GitError::Failed {
            text: "error: there is no editor in this sandbox: give the message with -m \"...\" or -F <file>\n".into(),
            code: 1,
        });
    }
    let _ = no_edit;
    let mut index = repo.index().await?;
    if index.has_conflicts() {
        return Err(GitError::Failed {
            text: "error: Committing is not possible because you have unmerged files.\nhint: Fix them up in the work tree, and then use 'git add/rm <file>'\nhint: as appropriate to mark resolution and make a commit.\nfatal: Exiting because of an unresolved conflict.\n".into(),
            code: 128,
        });
    }
    // `-a` stages every change to a tracked file; paths stage (and commit only) those.
    let ps = Pathspec::new(repo, &paths)?;
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
    if all || !ps.is_empty() {
        let changes = repo.work_changes(&mut index, &|p| ps.matches(p)).await?;
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
    }
    let parent_files = match &old_commit {
        Some(c) => match c.parents.first() {
            Some(p) => repo.commit_files(Some(p)).await?,
            None => Default::default(),
        },
        None => repo.commit_files(head.as_ref()).await?,
    };
    // The files committed: all staged ones, or with paths the parent's plus those paths.
    let mut files = Repo::index_files(&index);
    if !ps.is_empty() {
        let head_files = repo.commit_files(head.as_ref()).await?;
        let mut only = head_files.clone();
        only.retain(|p, _| !ps.matches(p));
        for (p, v) in files.iter().filter(|(p, _)| ps.matches(p)) {
            only.insert(p.clone(), *v);
        }
        files = only;
    }
    let changes = compare(
        &snapshot(&parent_files),
        &snapshot(&files),
        &Pathspec::default(),
        true,
    );
    if changes.is_empty() && !allow_empty && old_commit.is_none() {
        let mut o = super::status::long_status(repo, true).await?;
        o.code = 1;
        return Ok(o);
    }
    let mut message = if messages.is_empty() {
        old_commit
            .as_ref()
            .map(|c| c.message.clone())
            .unwrap_or_default()
    } else {
        messages.join("\n\n")
    };
    let committer = ident(repo, "COMMITTER");
    if signoff {
        let line = format!("Signed-off-by: {} <{}>", committer.name, committer.email);
        if !message.contains(&line) {
            message = format!("{}\n\n{line}\n", message.trim_end());
        }
    }
    let message = clean_message(&message);
    if message.is_empty() && !allow_empty_msg {
        return Err(GitError::Failed {
            text: "Aborting commit due to empty commit message.\n".into(),
            code: 1,
        });
    }
    let mut who = match &old_commit {
        Some(c) => c.author.clone(),
        None => ident(repo, "AUTHOR"),
    };
    if let Some(a) = author {
        let parsed = Signature::parse(&format!("{a} 0 +0000")).filter(|s| !s.email.is_empty());
        let s = parsed.ok_or_else(|| {
            GitError::Fatal(format!(
                "--author '{a}' is not 'Name <email>' and matches no existing author"
            ))
        })?;
        who.name = s.name;
        who.email = s.email;
    }
    if let Some(d) = date {
        let (t, tz) =
            parse_date(&d).ok_or_else(|| GitError::Fatal(format!("invalid date format: {d}")))?;
        who.time = t;
        who.tz = tz;
    }
    let tree = repo.write_trees(&files).await?;
    let parents = match &old_commit {
        Some(c) => c.parents.clone(),
        None => head.into_iter().collect(),
    };
    let root = parents.is_empty();
    let c = Commit {
        tree,
        parents,
        author: who,
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
    let mut o = Output::default();
    if !quiet {
        let place = match repo.head().await? {
            Head::Branch(r) => r.strip_prefix("refs/heads/").unwrap_or(&r).to_string(),
            Head::Detached(_) => "detached HEAD".into(),
        };
        let root = if root { " (root-commit)" } else { "" };
        o.out(format!(
            "[{place}{root} {}] {}\n",
            repo.abbrev(&oid, 7).await?,
            c.subject()
        ));
        o.out(shortstat(repo, &changes).await?);
        o.out(summary_lines(&changes));
    }
    Ok(o)
}
