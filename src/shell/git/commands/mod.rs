//! The subcommands, and `dispatch` that picks one; what they share is in `args` (options,
//! pathspecs, quoted paths) and in `git::identity` (who commits, and when).

mod args;
mod branch;
mod changes;
mod checkout;
mod clean;
mod commit;
mod grep;
mod inspect;
mod log;
mod patch;
mod reset;
mod setup;
mod stage;
mod stash;
mod status;

use super::repo::Invocation;
use super::{GitError, Output};

/// Run subcommand `cmd` (one `check_supported` let through) with its arguments.
pub(super) async fn dispatch(
    inv: Invocation,
    cmd: &str,
    args: &[String],
    stdin: Option<Vec<u8>>,
) -> Result<Output, GitError> {
    // Commands that need no repository.
    match cmd {
        "init" => return setup::init(inv, args).await,
        "config" => return setup::config(inv, args).await,
        "hash-object" if !args.iter().any(|a| a == "-w") => {
            return inspect::hash_object_bare(&inv, args, stdin).await;
        }
        _ => {}
    }
    let known = [
        "add",
        "rm",
        "mv",
        "commit",
        "status",
        "diff",
        "log",
        "show",
        "rev-parse",
        "ls-files",
        "branch",
        "checkout",
        "switch",
        "restore",
        "reset",
        "tag",
        "stash",
        "clean",
        "cat-file",
        "hash-object",
        "remote",
        "write-tree",
        "symbolic-ref",
        "rev-list",
        "apply",
        "reflog",
        "grep",
    ];
    if !known.contains(&cmd) {
        return Err(GitError::Failed {
            text: format!("git: '{cmd}' is not a git command. See 'git --help'.\n"),
            code: 1,
        });
    }
    let repo = inv.open().await?;
    match cmd {
        "add" => stage::add(&repo, args).await,
        "rm" => stage::rm(&repo, args).await,
        "mv" => stage::mv(&repo, args).await,
        "commit" => commit::commit(&repo, args).await,
        "status" => status::status(&repo, args).await,
        "ls-files" => status::ls_files(&repo, args).await,
        "clean" => clean::clean(&repo, args).await,
        "diff" => inspect::diff(&repo, args).await,
        "show" => log::show(&repo, args).await,
        "log" => log::log(&repo, args).await,
        "rev-list" => log::rev_list(&repo, args).await,
        "rev-parse" => inspect::rev_parse(&repo, args).await,
        "cat-file" => inspect::cat_file(&repo, args, stdin).await,
        "hash-object" => inspect::hash_object(&repo, args, stdin).await,
        "write-tree" => inspect::write_tree(&repo).await,
        "symbolic-ref" => inspect::symbolic_ref(&repo, args).await,
        "remote" => inspect::remote(&repo, args).await,
        "branch" => branch::branch(&repo, args).await,
        "checkout" => checkout::checkout(&repo, args).await,
        "switch" => checkout::switch(&repo, args).await,
        "restore" => reset::restore(&repo, args).await,
        "reset" => reset::reset(&repo, args).await,
        "tag" => branch::tag(&repo, args).await,
        "stash" => stash::stash(&repo, args).await,
        "apply" => patch::apply(&repo, args, stdin).await,
        "reflog" => branch::reflog(&repo, args).await,
        "grep" => grep::grep(&repo, args).await,
        _ => Err(GitError::Fatal(format!("'{cmd}' is not handled"))),
    }
}
