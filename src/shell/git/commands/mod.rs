//! The subcommands, and what they share: pathspecs, identities, option values.

mod branch;
mod changes;
mod commit;
mod grep;
mod inspect;
mod log;
mod patch;
mod setup;
mod stage;
mod stash;
mod status;

use super::files::normalize;
use super::ignore::wildmatch;
use super::objects::Signature;
use super::repo::{Invocation, Repo};
use super::{GitError, Output};

pub(super) async fn dispatch(
    inv: Invocation,
    cmd: &str,
    args: &[String],
    stdin: Option<Vec<u8>>,
) -> Result<Output, GitError> {
    // Commands that need no repository.
    match cmd {
        "init" => return setup::init(inv, args).await,
        "version" => return Ok(Output::stdout(format!("git version {}\n", super::VERSION))),
        "help" => return Ok(Output::stdout(super::usage())),
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
        "clean" => status::clean(&repo, args).await,
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
        "checkout" => branch::checkout(&repo, args).await,
        "switch" => branch::switch(&repo, args).await,
        "restore" => branch::restore(&repo, args).await,
        "reset" => branch::reset(&repo, args).await,
        "tag" => branch::tag(&repo, args).await,
        "stash" => stash::stash(&repo, args).await,
        "apply" => patch::apply(&repo, args, stdin).await,
        "reflog" => branch::reflog(&repo, args).await,
        "grep" => grep::grep(&repo, args).await,
        _ => Err(GitError::Fatal(format!("'{cmd}' is not handled"))),
    }
}

/// An unknown option, as git reports it.
pub(super) fn unknown_option(cmd: &str, a: &str) -> GitError {
    let name = a.trim_start_matches('-');
    let text = if a.starts_with("--") {
        format!("error: unknown option `{name}'\nusage: git {cmd} [<options>]\n")
    } else {
        format!("error: unknown switch `{name}'\nusage: git {cmd} [<options>]\n")
    };
    GitError::Usage(text)
}

/// The value of option `name` at `args[*i]`: `--name=V`, `--name V`, `-xV` or `-x V`.
pub(super) fn option_value(
    args: &[String],
    i: &mut usize,
    long: &str,
    short: Option<&str>,
) -> Result<Option<String>, GitError> {
    let a = &args[*i];
    if let Some(v) = a.strip_prefix(&format!("{long}=")) {
        return Ok(Some(v.to_string()));
    }
    let is_short = short.is_some_and(|s| a == s);
    if a == long || is_short {
        *i += 1;
        return args.get(*i).cloned().map(Some).ok_or_else(|| {
            GitError::Usage(format!(
                "error: option `{}' requires a value\n",
                long.trim_start_matches('-')
            ))
        });
    }
    if let Some(s) = short
        && let Some(v) = a.strip_prefix(s)
        && !v.is_empty()
    {
        return Ok(Some(v.to_string()));
    }
    Ok(None)
}

/// Paths given on the command line, as work tree paths, with git's glob rules.
#[derive(Clone, Debug, Default)]
pub(super) struct Pathspec {
    items: Vec<(String, bool)>,
    /// The arguments as given, for messages.
    pub given: Vec<String>,
}

impl Pathspec {
    pub fn new(repo: &Repo, args: &[String]) -> Result<Pathspec, GitError> {
        let mut items = Vec::new();
        for a in args {
            let a = a
                .strip_prefix(":/")
                .map_or_else(|| a.clone(), |rest| normalize(&repo.work_tree, rest));
            let glob = a.contains(['*', '?', '[']);
            items.push((repo.repo_path(&a)?, glob));
        }
        Ok(Pathspec {
            items,
            given: args.to_vec(),
        })
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Whether `path` is named (itself, a folder above it, or a glob matching it).
    pub fn matches(&self, path: &str) -> bool {
        self.items.is_empty()
            || self
                .items
                .iter()
                .any(|(p, glob)| item_matches(p, *glob, path))
    }

    /// Whether item `i` names `path`.
    pub fn item_matches(&self, i: usize, path: &str) -> bool {
        let (p, glob) = &self.items[i];
        item_matches(p, *glob, path)
    }

    pub fn items(&self) -> impl Iterator<Item = &str> {
        self.items.iter().map(|(p, _)| p.as_str())
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }
}

fn item_matches(p: &str, glob: bool, path: &str) -> bool {
    p.is_empty()
        || path == p
        || (path.starts_with(p) && path.as_bytes().get(p.len()) == Some(&b'/'))
        || (glob && wildmatch(p, path, false))
}

/// Split arguments at `--`: (before, after, whether `--` was there).
pub(super) fn split_dashdash(args: &[String]) -> (Vec<String>, Vec<String>, bool) {
    match args.iter().position(|a| a == "--") {
        Some(i) => (args[..i].to_vec(), args[i + 1..].to_vec(), true),
        None => (args.to_vec(), Vec::new(), false),
    }
}

/// Now, in seconds since the epoch.
pub(super) fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

/// A date as `GIT_AUTHOR_DATE` gives it: `@SECONDS [+ZZZZ]`, `SECONDS +ZZZZ`, or
/// `YYYY-MM-DD[ T]HH:MM:SS [+ZZZZ]`.
pub(super) fn parse_date(s: &str) -> Option<(i64, i32)> {
    let s = s.trim();
    let (main, tz) = match s.rsplit_once(' ') {
        Some((m, z)) if super::objects::parse_tz(z).is_some() => {
            (m.trim(), super::objects::parse_tz(z)?)
        }
        _ => (s, 0),
    };
    if let Ok(t) = main.trim_start_matches('@').parse::<i64>() {
        return Some((t, tz));
    }
    let fmt = if main.contains('T') {
        "%Y-%m-%dT%H:%M:%S"
    } else {
        "%Y-%m-%d %H:%M:%S"
    };
    let naive = chrono::NaiveDateTime::parse_from_str(main, fmt).ok()?;
    Some((naive.and_utc().timestamp() - i64::from(tz) * 60, tz))
}

/// Who is making a commit, in role `who` ("AUTHOR" or "COMMITTER"): the environment, then
/// the config, then `root <root@localhost>`.
pub(super) fn ident(repo: &Repo, who: &str) -> Signature {
    let env = |k: &str| repo.env.get(k).filter(|v| !v.is_empty()).cloned();
    let name = env(&format!("GIT_{who}_NAME"))
        .or_else(|| repo.config.get("user.name").map(str::to_string))
        .unwrap_or_else(|| "root".into());
    let email = env(&format!("GIT_{who}_EMAIL"))
        .or_else(|| repo.config.get("user.email").map(str::to_string))
        .or_else(|| env("EMAIL"))
        .unwrap_or_else(|| "root@localhost".into());
    let (time, tz) = env(&format!("GIT_{who}_DATE"))
        .and_then(|d| parse_date(&d))
        .unwrap_or((now(), 0));
    Signature {
        name,
        email,
        time,
        tz,
    }
}

/// A path as git prints it: in double quotes with C escapes when it has unusual bytes.
pub(super) fn quote_path(p: &str) -> String {
    let needs = p
        .bytes()
        .any(|b| b < 0x20 || b == b'"' || b == b'\\' || b >= 0x7f);
    if !needs {
        return p.to_string();
    }
    let mut s = String::from("\"");
    for b in p.bytes() {
        match b {
            b'"' => s.push_str("\\\""),
            b'\\' => s.push_str("\\\\"),
            b'\t' => s.push_str("\\t"),
            b'\n' => s.push_str("\\n"),
            b'\r' => s.push_str("\\r"),
            0x07 => s.push_str("\\a"),
            0x08 => s.push_str("\\b"),
            0x0c => s.push_str("\\f"),
            0x0b => s.push_str("\\v"),
            b if (0x20..0x7f).contains(&b) => s.push(b as char),
            b => s.push_str(&format!("\\{b:03o}")),
        }
    }
    s.push('"');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_from_the_environment() {
        assert_eq!(parse_date("@1700000000 +0100"), Some((1_700_000_000, 60)));
        assert_eq!(parse_date("1700000000"), Some((1_700_000_000, 0)));
        assert_eq!(
            parse_date("2005-04-07T22:13:13 +0200"),
            Some((1_112_904_793, 120))
        );
        assert_eq!(parse_date("yesterday"), None);
    }

    #[test]
    fn unusual_paths_are_quoted() {
        assert_eq!(quote_path("a b.txt"), "a b.txt");
        assert_eq!(quote_path("tab\there"), "\"tab\\there\"");
        assert_eq!(quote_path("é"), "\"\\303\\251\"");
    }
}
