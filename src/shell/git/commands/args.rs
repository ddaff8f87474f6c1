//! What the subcommands share: unknown options, option values, `--`, pathspecs and paths
//! as git prints them.

use super::super::GitError;
use super::super::files::normalize;
use super::super::ignore::wildmatch;
use super::super::repo::Repo;

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
    fn unusual_paths_are_quoted() {
        assert_eq!(quote_path("a b.txt"), "a b.txt");
        assert_eq!(quote_path("tab\there"), "\"tab\\there\"");
        assert_eq!(quote_path("é"), "\"\\303\\251\"");
    }
}
