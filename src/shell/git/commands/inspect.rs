//! `git diff`, `rev-parse`, `cat-file`, `hash-object`, `write-tree`, `symbolic-ref`, `remote`.

use std::collections::{HashSet, VecDeque};

use super::super::config::Key;
use super::super::objects::{Kind, MODE_TREE, Oid, object_id};
use super::super::refs::{Head, bad_rev};
use super::super::repo::{Invocation, Repo};
use super::super::{GitError, Output};
use super::args::{Pathspec, split_dashdash, unknown_option};
use super::changes::{Show, compare, print, snapshot, work_snapshot};

/// Revision arguments and paths, told apart as git does when there is no `--`: arguments
/// are revisions while they name one; the rest must be paths that exist.
pub(super) async fn revs_and_paths(
    repo: &Repo,
    args: &[String],
) -> Result<(Vec<String>, Vec<String>), GitError> {
    let (before, after, dashdash) = split_dashdash(args);
    let mut revs = Vec::new();
    let mut paths = Vec::new();
    let mut in_paths = false;
    for a in before {
        if !in_paths && rev_exists(repo, &a).await? {
            revs.push(a);
            continue;
        }
        if dashdash {
            return Err(bad_rev(&a));
        }
        in_paths = true;
        let abs = repo.abs(&repo.repo_path(&a)?);
        let known = a.contains(['*', '?', '['])
            || repo.files.lstat(&abs).await?.is_some()
            || repo.index().await?.entries.iter().any(|e| {
                let p = repo.repo_path(&a).unwrap_or_default();
                e.path == p || e.path.starts_with(&format!("{p}/"))
            });
        if !known {
            return Err(bad_rev(&a));
        }
        paths.push(a);
    }
    paths.extend(after);
    Ok((revs, paths))
}

/// Whether an argument names a revision (or a range of them).
async fn rev_exists(repo: &Repo, a: &str) -> Result<bool, GitError> {
    if a.starts_with('-') {
        return Ok(false);
    }
    for part in a.split("...").flat_map(|p| p.split("..")) {
        let part = if part.is_empty() { "HEAD" } else { part };
        if repo.try_resolve(part).await?.is_none() {
            return Ok(false);
        }
    }
    Ok(true)
}

/// The best common ancestor of two commits (the first one met walking back from `b`).
pub(super) async fn merge_base(repo: &Repo, a: Oid, b: Oid) -> Result<Option<Oid>, GitError> {
    let mut seen = HashSet::new();
    let mut queue = VecDeque::from([a]);
    while let Some(c) = queue.pop_front() {
        repo.files.tick()?;
        if seen.insert(c) {
            queue.extend(repo.commit(&c).await?.parents);
        }
    }
    let mut visited = HashSet::new();
    let mut queue = VecDeque::from([b]);
    while let Some(c) = queue.pop_front() {
        repo.files.tick()?;
        if seen.contains(&c) {
            return Ok(Some(c));
        }
        if visited.insert(c) {
            queue.extend(repo.commit(&c).await?.parents);
        }
    }
    Ok(None)
}

/// The files of a revision's tree.
async fn rev_files(repo: &Repo, rev: &str) -> Result<super::changes::Snapshot, GitError> {
    let oid = repo.resolve(rev).await?;
    let (oid, kind) = repo.peel(oid).await?;
    let tree = match kind {
        Kind::Commit => repo.commit(&oid).await?.tree,
        Kind::Tree => oid,
        _ => return Err(GitError::Fatal(format!("'{rev}' is not a tree or commit"))),
    };
    Ok(snapshot(&repo.flatten(&tree).await?))
}

/// `git diff [--cached] [REV [REV]] [-- PATHS]` with the usual output options.
pub(super) async fn diff(repo: &Repo, args: &[String]) -> Result<Output, GitError> {
    let mut show = Show::default();
    let (mut cached, mut quiet, mut exit_code, mut no_index) = (false, false, false, false);
    let mut rest = Vec::new();
    let mut after_dashdash = false;
    for a in args {
        if after_dashdash {
            rest.push(a.clone());
            continue;
        }
        match a.as_str() {
            "--" => {
                after_dashdash = true;
                rest.push(a.clone());
            }
            "--cached" | "--staged" => cached = true,
            "--quiet" => quiet = true,
            "--exit-code" => exit_code = true,
            "--no-index" => no_index = true,
            a if show.option(a)? => {}
            a if a.starts_with('-') && a != "-" => return Err(unknown_option("diff", a)),
            _ => rest.push(a.clone()),
        }
    }
    if no_index {
        return diff_no_index(repo, &rest, &show, quiet).await;
    }
    let (revs, paths) = revs_and_paths(repo, &rest).await?;
    let ps = Pathspec::new(repo, &paths)?;
    let mut index = repo.index().await?;
    let head = repo.head_commit().await?;
    let (old, new) = match (revs.as_slice(), cached) {
        ([], false) => {
            let old = snapshot(&Repo::index_files(&index));
            (old, work_snapshot(repo, &mut index, &ps).await?)
        }
        ([], true) => {
            let old = match head {
                Some(h) => snapshot(&repo.commit_files(Some(&h)).await?),
                None => Default::default(),
            };
            (old, snapshot(&Repo::index_files(&index)))
        }
        ([one], _) if one.contains("..") => {
            let (a, b, three) = match one.split_once("...") {
                Some((a, b)) => (a, b, true),
                None => {
                    let (a, b) = one.split_once("..").unwrap_or((one, ""));
                    (a, b, false)
                }
            };
            let a = if a.is_empty() { "HEAD" } else { a };
            let b = if b.is_empty() { "HEAD" } else { b };
            let old = if three {
                let (ca, cb) = (repo.resolve_commit(a).await?, repo.resolve_commit(b).await?);
                let base = merge_base(repo, ca, cb)
                    .await?
                    .ok_or_else(|| GitError::Fatal(format!("{a}...{b}: no merge base")))?;
                rev_files(repo, &base.hex()).await?
            } else {
                rev_files(repo, a).await?
            };
            (old, rev_files(repo, b).await?)
        }
        ([one], false) => (
            rev_files(repo, one).await?,
            work_snapshot(repo, &mut index, &ps).await?,
        ),
        ([one], true) => (
            rev_files(repo, one).await?,
            snapshot(&Repo::index_files(&index)),
        ),
        ([a, b], _) => (rev_files(repo, a).await?, rev_files(repo, b).await?),
        _ => {
            return Err(GitError::Usage(
                "usage: git diff [<options>] [<commit>] [--] [<path>...]\n".into(),
            ));
        }
    };
    let changes = compare(&old, &new, &ps, true);
    let mut o = Output::default();
    if !quiet {
        print(repo, &changes, &show, &mut o).await?;
    }
    if (quiet || exit_code) && !changes.is_empty() {
        o.code = 1;
    }
    Ok(o)
}

/// `git diff --no-index A B`: two files anywhere in the sandbox's directories.
async fn diff_no_index(
    repo: &Repo,
    args: &[String],
    show: &Show,
    quiet: bool,
) -> Result<Output, GitError> {
    let files: Vec<&String> = args.iter().filter(|a| *a != "--").collect();
    let [a, b] = files.as_slice() else {
        return Err(GitError::Usage(
            "usage: git diff --no-index [<options>] <path> <path>\n".into(),
        ));
    };
    let read = |p: &str| {
        let abs = super::super::files::normalize(&repo.cwd, p);
        async move { repo.files.read(&abs).await }
    };
    let (da, db) = (read(a).await?, read(b).await?);
    let side = |d: Vec<u8>| super::changes::Side {
        mode: 0o100644,
        oid: object_id(Kind::Blob, &d),
        data: Some(d),
    };
    let change = super::changes::Change {
        old_path: a.trim_start_matches("./").to_string(),
        new_path: b.trim_start_matches("./").to_string(),
        old: Some(side(da)),
        new: Some(side(db)),
    };
    let mut o = Output::default();
    if change.old.as_ref().map(|s| s.oid) == change.new.as_ref().map(|s| s.oid) {
        return Ok(o);
    }
    if !quiet {
        // Two unrelated paths are not a rename: show them as a pair.
        let mut bytes = super::changes::render(repo, std::slice::from_ref(&change), show).await?;
        let text = String::from_utf8_lossy(&bytes).replace(
            &format!(
                "similarity index 0%\nrename from {}\nrename to {}\n",
                change.old_path, change.new_path
            ),
            "",
        );
        bytes = text.into_bytes();
        o.out(bytes);
    }
    o.code = 1;
    Ok(o)
}

/// `git rev-parse`: ids of revisions and facts about the repository.
pub(super) async fn rev_parse(repo: &Repo, args: &[String]) -> Result<Output, GitError> {
    let mut o = Output::default();
    let (mut verify, mut quiet, mut short, mut abbrev_ref, mut symbolic) =
        (false, false, None::<usize>, false, false);
    for a in args {
        if let Some(text) = repository_fact(repo, a) {
            o.out(text);
            continue;
        }
        match a.as_str() {
            "--verify" => verify = true,
            "-q" | "--quiet" => quiet = true,
            "--short" => short = Some(7),
            "--abbrev-ref" | "--abbrev-ref=strict" | "--abbrev-ref=loose" => abbrev_ref = true,
            "--symbolic-full-name" => symbolic = true,
            "--" | "--end-of-options" | "--sq" => {}
            a if a.starts_with("--short=") => {
                short = Some(a[8..].parse().map_err(|_| unknown_option("rev-parse", a))?)
            }
            a if a.starts_with('-') => return Err(unknown_option("rev-parse", a)),
            spec if abbrev_ref || symbolic => {
                o.out(symbolic_name(repo, spec, abbrev_ref).await?);
            }
            spec => {
                let (spec, peel_commit) = match spec.strip_suffix("^{commit}") {
                    Some(s) => (s, true),
                    None => (spec, false),
                };
                match resolve_spec(repo, spec, peel_commit).await? {
                    Some(oid) => match short {
                        Some(n) => o.out(format!("{}\n", repo.abbrev(&oid, n).await?)),
                        None => o.out(format!("{}\n", oid.hex())),
                    },
                    None if verify => {
                        if quiet {
                            return Err(GitError::Failed {
                                text: String::new(),
                                code: 1,
                            });
                        }
                        return Err(GitError::Fatal("Needed a single revision".into()));
                    }
                    None => {
                        o.out(format!("{spec}\n"));
                        return Err(with_output(o, bad_rev(spec)));
                    }
                }
            }
        }
    }
    Ok(o)
}

/// What `rev-parse` prints for an option that asks about the repository (`--show-toplevel`,
/// `--git-dir`, ...), or None for any other argument.
fn repository_fact(repo: &Repo, a: &str) -> Option<String> {
    Some(match a {
        "--show-toplevel" => format!("{}\n", repo.work_tree),
        "--git-dir" => {
            let rel = super::super::files::below(&repo.git_dir, &repo.cwd)
                .filter(|r| !r.is_empty() && !r.contains('/'));
            format!("{}\n", rel.unwrap_or(&repo.git_dir))
        }
        "--absolute-git-dir" | "--git-common-dir" => format!("{}\n", repo.git_dir),
        "--is-inside-work-tree" => "true\n".into(),
        "--is-inside-git-dir" | "--is-bare-repository" | "--is-shallow-repository" => {
            "false\n".into()
        }
        "--show-prefix" => {
            let p = repo.prefix().unwrap_or("");
            if p.is_empty() {
                "\n".to_string()
            } else {
                format!("{p}/\n")
            }
        }
        "--show-cdup" => {
            let depth = repo.prefix().map_or(0, |p| {
                if p.is_empty() {
                    0
                } else {
                    p.split('/').count()
                }
            });
            format!("{}\n", "../".repeat(depth))
        }
        _ => return None,
    })
}

/// `--abbrev-ref` (the short name) or `--symbolic-full-name` (the full ref, nothing for a
/// detached `HEAD`) of `spec`.
async fn symbolic_name(repo: &Repo, spec: &str, abbrev_ref: bool) -> Result<String, GitError> {
    let name = if spec == "HEAD" || spec == "@" {
        match repo.head().await? {
            Head::Branch(r) => Some(r),
            Head::Detached(_) => Some("HEAD".to_string()),
        }
    } else {
        repo.dwim_ref(spec).await?.map(|(r, _)| r)
    };
    match name {
        Some(r) if abbrev_ref => {
            let short = r
                .strip_prefix("refs/heads/")
                .or_else(|| r.strip_prefix("refs/tags/"))
                .or_else(|| r.strip_prefix("refs/remotes/"))
                .unwrap_or(&r);
            Ok(format!("{short}\n"))
        }
        Some(r) if r != "HEAD" => Ok(format!("{r}\n")),
        Some(_) => Ok(String::new()),
        None => Err(bad_rev(spec)),
    }
}

/// The object `spec` names, peeled to a commit when `peel_commit` (`REV^{commit}`).
async fn resolve_spec(repo: &Repo, spec: &str, peel_commit: bool) -> Result<Option<Oid>, GitError> {
    let found = repo.try_resolve(spec).await?;
    Ok(match (found, peel_commit) {
        (Some(oid), true) => match repo.peel(oid).await? {
            (c, Kind::Commit) => Some(c),
            _ => None,
        },
        (f, _) => f,
    })
}

/// An error that keeps what was printed before it.
fn with_output(o: Output, e: GitError) -> GitError {
    if o.out.is_empty() {
        return e;
    }
    GitError::Failed {
        text: e.to_string() + "\n",
        code: 128,
    }
}

/// `git cat-file --batch[-check]`: one answer per object named on stdin.
async fn cat_file_batch(
    repo: &Repo,
    contents: bool,
    stdin: Option<Vec<u8>>,
) -> Result<Output, GitError> {
    let mut o = Output::default();
    let input = String::from_utf8_lossy(&stdin.unwrap_or_default()).into_owned();
    for line in input.lines() {
        repo.files.tick()?;
        let spec = line.trim();
        let found = match repo.try_resolve(spec).await {
            Ok(Some(oid)) => Some((oid, repo.read_object(&oid).await?)),
            _ => None,
        };
        match found {
            Some((oid, (kind, data))) => {
                o.out(format!("{} {} {}\n", oid.hex(), kind.name(), data.len()));
                if contents {
                    o.out(data);
                    o.out("\n");
                }
            }
            None => o.out(format!("{spec} missing\n")),
        }
    }
    Ok(o)
}

/// `git cat-file (-t | -s | -e | -p | TYPE) OBJECT` and `--batch`, `--batch-check`.
pub(super) async fn cat_file(
    repo: &Repo,
    args: &[String],
    stdin: Option<Vec<u8>>,
) -> Result<Output, GitError> {
    if let Some(batch) = args.iter().find(|a| a.starts_with("--batch")) {
        return cat_file_batch(repo, !batch.starts_with("--batch-check"), stdin).await;
    }
    let (mode, spec) = match args {
        [m, s] => (m.as_str(), s.as_str()),
        _ => {
            return Err(GitError::Usage(
                "usage: git cat-file (-t | -s | -e | -p | <type>) <object>\n".into(),
            ));
        }
    };
    let oid = match repo.try_resolve(spec).await? {
        Some(o) => o,
        None if mode == "-e" => {
            return Err(GitError::Failed {
                text: String::new(),
                code: 1,
            });
        }
        None => return Err(GitError::Fatal(format!("Not a valid object name {spec}"))),
    };
    let (kind, data) = repo.read_object(&oid).await?;
    let mut o = Output::default();
    match mode {
        "-e" => {}
        "-t" => o.out(format!("{}\n", kind.name())),
        "-s" => o.out(format!("{}\n", data.len())),
        "-p" if kind == Kind::Tree => {
            for e in repo.tree(&oid).await? {
                let what = match e.mode {
                    MODE_TREE => "tree",
                    0o160000 => "commit",
                    _ => "blob",
                };
                o.out(format!(
                    "{:06o} {what} {}\t{}\n",
                    e.mode,
                    e.oid.hex(),
                    e.name
                ));
            }
        }
        "-p" => o.out(data),
        t if t == kind.name() => o.out(data),
        t => {
            return Err(GitError::Fatal(format!(
                "git cat-file {spec}: bad file (it is a {}, not a {t})",
                kind.name()
            )));
        }
    }
    Ok(o)
}

async fn hash_inputs(
    files: &super::super::files::Files,
    cwd: &str,
    args: &[String],
    stdin: Option<Vec<u8>>,
) -> Result<(Vec<Vec<u8>>, bool), GitError> {
    let (mut write, mut use_stdin, mut inputs) = (false, false, Vec::new());
    for a in args {
        match a.as_str() {
            "-w" => write = true,
            "--stdin" => use_stdin = true,
            "-t" | "blob" | "--no-filters" | "--literally" | "--" => {}
            a if a.starts_with('-') => return Err(unknown_option("hash-object", a)),
            path => {
                let abs = super::super::files::normalize(cwd, path);
                inputs.push(files.read(&abs).await?);
            }
        }
    }
    if use_stdin {
        inputs.insert(0, stdin.unwrap_or_default());
    }
    Ok((inputs, write))
}

/// `git hash-object` outside a repository (nothing is written).
pub(super) async fn hash_object_bare(
    inv: &Invocation,
    args: &[String],
    stdin: Option<Vec<u8>>,
) -> Result<Output, GitError> {
    let (inputs, _) = hash_inputs(&inv.files, &inv.cwd, args, stdin).await?;
    let text: String = inputs
        .iter()
        .map(|d| format!("{}\n", object_id(Kind::Blob, d).hex()))
        .collect();
    Ok(Output::stdout(text))
}

/// `git hash-object [-w] [--stdin] FILES`.
pub(super) async fn hash_object(
    repo: &Repo,
    args: &[String],
    stdin: Option<Vec<u8>>,
) -> Result<Output, GitError> {
    let (inputs, write) = hash_inputs(&repo.files, &repo.cwd, args, stdin).await?;
    let mut o = Output::default();
    for d in inputs {
        let oid = if write {
            repo.write_object(Kind::Blob, &d).await?
        } else {
            object_id(Kind::Blob, &d)
        };
        o.out(format!("{}\n", oid.hex()));
    }
    Ok(o)
}

/// `git write-tree`: the index as trees.
pub(super) async fn write_tree(repo: &Repo) -> Result<Output, GitError> {
    let index = repo.index().await?;
    if index.has_conflicts() {
        return Err(GitError::Fatal(
            "git-write-tree: error building trees (unmerged entries)".into(),
        ));
    }
    let oid = repo.write_trees(&Repo::index_files(&index)).await?;
    Ok(Output::stdout(format!("{}\n", oid.hex())))
}

/// `git symbolic-ref [--short] HEAD [REF]`.
pub(super) async fn symbolic_ref(repo: &Repo, args: &[String]) -> Result<Output, GitError> {
    let short = args.iter().any(|a| a == "--short");
    let words: Vec<&String> = args.iter().filter(|a| !a.starts_with('-')).collect();
    match words.as_slice() {
        [name] if name.as_str() == "HEAD" => match repo.head().await? {
            Head::Branch(r) => {
                let shown = if short {
                    r.strip_prefix("refs/heads/").unwrap_or(&r)
                } else {
                    &r
                };
                Ok(Output::stdout(format!("{shown}\n")))
            }
            Head::Detached(_) => Err(GitError::Fatal("ref HEAD is not a symbolic ref".into())),
        },
        [name, target] if name.as_str() == "HEAD" => {
            if !target.starts_with("refs/") {
                return Err(GitError::Fatal(format!(
                    "Refusing to point HEAD outside of refs/: {target}"
                )));
            }
            repo.set_head_branch(target).await?;
            Ok(Output::default())
        }
        _ => Err(GitError::Usage(
            "usage: git symbolic-ref [--short] HEAD [<ref>]\n".into(),
        )),
    }
}

/// `git remote [-v]`, `add`, `remove`, `get-url`: remotes are config only (no network here).
pub(super) async fn remote(repo: &Repo, args: &[String]) -> Result<Output, GitError> {
    let mut names: Vec<(String, String)> = Vec::new();
    let local = repo.local_config().await?;
    for (k, v) in local.entries() {
        if let Some(rest) = k.strip_prefix("remote.")
            && let Some(name) = rest.strip_suffix(".url")
        {
            names.push((name.to_string(), v));
        }
    }
    match args.first().map(String::as_str) {
        None => Ok(Output::stdout(
            names
                .iter()
                .map(|(n, _)| format!("{n}\n"))
                .collect::<String>(),
        )),
        Some("-v" | "--verbose") => Ok(Output::stdout(
            names
                .iter()
                .map(|(n, u)| format!("{n}\t{u} (fetch)\n{n}\t{u} (push)\n"))
                .collect::<String>(),
        )),
        Some("get-url") => {
            let want = args.get(1).cloned().unwrap_or_default();
            match names.iter().find(|(n, _)| *n == want) {
                Some((_, u)) => Ok(Output::stdout(format!("{u}\n"))),
                None => Err(GitError::Failed {
                    text: format!("error: No such remote '{want}'\n"),
                    code: 2,
                }),
            }
        }
        Some("add") => {
            let [_, name, url] = args else {
                return Err(GitError::Usage(
                    "usage: git remote add <name> <url>\n".into(),
                ));
            };
            if names.iter().any(|(n, _)| n == name) {
                return Err(GitError::Failed {
                    text: format!("error: remote {name} already exists.\n"),
                    code: 3,
                });
            }
            let mut f = local;
            let key = |k: &str| {
                Key::parse(&format!("remote.{name}.{k}"))
                    .ok_or_else(|| GitError::Fatal(format!("'{name}' is not a valid remote name")))
            };
            f.set(&key("url")?, url, false);
            f.set(
                &key("fetch")?,
                &format!("+refs/heads/*:refs/remotes/{name}/*"),
                false,
            );
            repo.save_local_config(&f).await?;
            Ok(Output::default())
        }
        Some("remove" | "rm") => {
            let name = args.get(1).cloned().unwrap_or_default();
            if !names.iter().any(|(n, _)| *n == name) {
                return Err(GitError::Failed {
                    text: format!("error: No such remote: '{name}'\n"),
                    code: 2,
                });
            }
            let mut f = local;
            for k in ["url", "fetch", "pushurl"] {
                if let Some(key) = Key::parse(&format!("remote.{name}.{k}")) {
                    f.unset(&key);
                }
            }
            repo.save_local_config(&f).await?;
            Ok(Output::default())
        }
        Some(other) => Err(GitError::Failed {
            text: format!(
                "git: 'remote {other}' is not supported in this sandbox: the sandbox has no network\n"
            ),
            code: 1,
        }),
    }
}
