//! `git` in the shell: our own implementation of the commands models use in a workspace
//! (`init`, `add`, `commit`, `status`, `diff`, `log`, `show`, `branch`, `checkout`, `reset`,
//! ...), writing the real repository format (loose zlib objects named by SHA-1, index version
//! 2, refs, config) so that any git can read the result. Every file goes through the shell's
//! file system, under the sandbox's own directories only; nothing reaches the network.

mod commands;
mod config;
mod diff;
mod error;
mod files;
mod identity;
mod ignore;
mod index;
mod objects;
mod output;
mod pack;
mod refs;
mod repo;
mod worktree;

use std::collections::HashMap;
use std::time::{Duration, Instant};

use bashkit::{Builtin, BuiltinContext, ExecResult, StreamData};

pub use error::GitError;
use files::{Files, normalize};
pub(super) use output::Output;
use repo::Invocation;

/// The version `git --version` reports: the reference image's (Debian 12's git).
pub(super) const VERSION: &str = "2.39.5";

/// Subcommands that cannot work here, with the reason given.
const UNSUPPORTED: &[(&str, &str)] = &[
    ("clone", "the sandbox has no network"),
    ("fetch", "the sandbox has no network"),
    ("pull", "the sandbox has no network"),
    ("push", "the sandbox has no network"),
    ("ls-remote", "the sandbox has no network"),
    ("submodule", "the sandbox has no network"),
    ("send-email", "the sandbox has no network"),
    ("daemon", "the sandbox has no network"),
    ("instaweb", "the sandbox has no network"),
    ("gc", "this git writes loose objects only"),
    ("repack", "this git writes loose objects only"),
    ("prune", "this git writes loose objects only"),
    ("worktree", "one work tree per repository here"),
    ("merge", "this git does not merge histories"),
    ("rebase", "this git does not merge histories"),
    ("cherry-pick", "this git does not merge histories"),
    ("revert", "this git does not merge histories"),
    ("am", "this git does not merge histories"),
    ("mergetool", "this git does not merge histories"),
];

/// Real git commands this one does not have (they fail saying so, not "not a git command").
const NOT_IMPLEMENTED: &[&str] = &[
    "archive",
    "bisect",
    "blame",
    "bundle",
    "describe",
    "difftool",
    "filter-branch",
    "format-patch",
    "fsck",
    "gui",
    "log-tree",
    "maintenance",
    "merge-base",
    "name-rev",
    "notes",
    "range-diff",
    "read-tree",
    "replace",
    "request-pull",
    "shortlog",
    "show-branch",
    "show-ref",
    "sparse-checkout",
    "update-index",
    "update-ref",
    "whatchanged",
];

/// The `git` builtin.
pub struct Git {
    /// The shell's per-call time limit (a bound when the script's deadline is unknown).
    pub(super) timeout: Duration,
}

#[bashkit::async_trait]
impl Builtin for Git {
    async fn execute(&self, ctx: BuiltinContext<'_>) -> bashkit::Result<ExecResult> {
        let left = ctx
            .remaining_deadline()
            .map_or(self.timeout, |d| d.min(self.timeout));
        let files = Files::new(ctx.fs.clone(), Some(Instant::now() + left));
        let cwd = ctx.cwd.to_string_lossy().into_owned();
        let env: HashMap<String, String> = ctx
            .env
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        let stdin = ctx.stdin_bytes().map(<[u8]>::to_vec);
        let o = match run(files, cwd, env, ctx.args, stdin).await {
            Ok(o) => o,
            Err(e) => {
                let mut o = Output {
                    code: e.code(),
                    ..Output::default()
                };
                let mut text = e.to_string();
                if !text.ends_with('\n') {
                    text.push('\n');
                }
                o.err(text);
                o
            }
        };
        let mut r = ExecResult::ok_bytes(o.out);
        r.stderr = StreamData::from(o.err);
        r.exit_code = o.code;
        Ok(r)
    }
}

/// The words `git help` and a bare `git` print.
fn usage() -> String {
    let mut s = String::from(
        "usage: git [-C <path>] [-c <name>=<value>] [--git-dir=<path>] [--work-tree=<path>]\n\
         \x20          [--no-pager] <command> [<args>]\n\n\
         This sandbox's git (a built-in implementation writing the standard repository format)\n\
         supports:\n",
    );
    for line in [
        "   init, config, add, rm, mv, commit, status, diff, log, show, grep,",
        "   branch, checkout, switch, restore, reset, tag, stash, clean, apply,",
        "   rev-parse, rev-list, ls-files, reflog, cat-file, hash-object, write-tree,",
        "   symbolic-ref, remote (config only), version, help",
        "It has no network (clone, fetch, pull, push) and does not merge histories.",
    ] {
        s.push_str(line);
        s.push('\n');
    }
    s
}

async fn run(
    files: Files,
    cwd: String,
    env: HashMap<String, String>,
    args: &[String],
    stdin: Option<Vec<u8>>,
) -> Result<Output, GitError> {
    let mut inv = Invocation {
        files,
        cwd,
        env,
        overrides: Vec::new(),
        git_dir: None,
        work_tree: None,
    };
    let mut i = 0;
    // Global options, before the subcommand.
    while i < args.len() {
        let a = args[i].as_str();
        let value = |i: &mut usize| -> Result<String, GitError> {
            *i += 1;
            args.get(*i).cloned().ok_or_else(|| {
                GitError::Usage(format!("error: option '{a}' needs a value\n{}", usage()))
            })
        };
        match a {
            "-C" => change_dir(&mut inv, &value(&mut i)?).await?,
            "-c" => {
                let kv = value(&mut i)?;
                let (k, v) = kv.split_once('=').unwrap_or((&kv, "true"));
                inv.overrides.push((k.to_string(), v.to_string()));
            }
            "--git-dir" => inv.git_dir = Some(value(&mut i)?),
            "--work-tree" => inv.work_tree = Some(value(&mut i)?),
            "--no-pager"
            | "-P"
            | "--paginate"
            | "-p"
            | "--no-replace-objects"
            | "--literal-pathspecs"
            | "--no-optional-locks" => {}
            "--version" | "-v" => return Ok(Output::stdout(format!("git version {VERSION}\n"))),
            "--help" | "-h" => return Ok(Output::stdout(usage())),
            "--exec-path" => return Ok(Output::stdout("/usr/lib/git-core\n")),
            a if a.starts_with("--git-dir=") => inv.git_dir = Some(a[10..].to_string()),
            a if a.starts_with("--work-tree=") => inv.work_tree = Some(a[12..].to_string()),
            a if a.starts_with("--namespace") || a.starts_with("--exec-path=") => {
                return Err(GitError::Usage(format!("unknown option: {a}\n{}", usage())));
            }
            a if a.starts_with('-') => {
                return Err(GitError::Usage(format!("unknown option: {a}\n{}", usage())));
            }
            _ => break,
        }
        i += 1;
    }
    // --git-dir and --work-tree must stay inside too.
    for p in [&inv.git_dir, &inv.work_tree].into_iter().flatten() {
        let abs = normalize(&inv.cwd, p);
        repo::check_inside(&abs)?;
    }
    let Some(cmd) = args.get(i) else {
        return Err(GitError::Failed {
            text: usage(),
            code: 1,
        });
    };
    let rest = &args[i + 1..];
    check_supported(cmd)?;
    // The two that need neither a repository nor a subcommand of their own.
    match cmd.as_str() {
        "version" => return Ok(Output::stdout(format!("git version {VERSION}\n"))),
        "help" => return Ok(Output::stdout(usage())),
        _ => {}
    }
    commands::dispatch(inv, cmd, rest, stdin).await
}

/// `-C DIR`: later paths are relative to `DIR`, which must exist inside the sandbox.
async fn change_dir(inv: &mut Invocation, dir: &str) -> Result<(), GitError> {
    let target = normalize(&inv.cwd, dir);
    if files::root_of(&target).is_none() {
        return Err(GitError::Outside(target));
    }
    if !inv.files.is_dir(&target).await? {
        return Err(GitError::Fatal(format!(
            "cannot change to '{dir}': No such file or directory"
        )));
    }
    inv.cwd = target;
    Ok(())
}

/// Commands this git leaves out fail with a reason rather than as unknown.
fn check_supported(cmd: &str) -> Result<(), GitError> {
    if let Some((_, why)) = UNSUPPORTED.iter().find(|(n, _)| *n == cmd) {
        return Err(GitError::Failed {
            text: format!("git: '{cmd}' is not supported in this sandbox: {why}\n"),
            code: 1,
        });
    }
    if NOT_IMPLEMENTED.contains(&cmd) {
        return Err(GitError::Failed {
            text: format!(
                "git: '{cmd}' is not supported in this sandbox: this git implements the everyday \
                 commands only (see 'git help')\n"
            ),
            code: 1,
        });
    }
    Ok(())
}
