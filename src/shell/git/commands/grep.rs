//! `git grep`: search the tracked files (work tree, or the index with `--cached`).

use regex::bytes::RegexBuilder;

use super::super::diff::{is_binary, lines};
use super::super::objects::{Kind, MODE_GITLINK};
use super::super::repo::Repo;
use super::super::{GitError, Output};
use super::{Pathspec, split_dashdash, unknown_option};

/// A basic regular expression (grep's default) in the extended syntax `regex` reads: `+ ? |
/// ( ) { }` are literal unless escaped, and the other way round.
fn basic_to_extended(p: &str) -> String {
    let mut out = String::new();
    let mut chars = p.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some(e @ ('+' | '?' | '|' | '(' | ')' | '{' | '}')) => out.push(e),
                Some(e) => {
                    out.push('\\');
                    out.push(e);
                }
                None => out.push_str("\\\\"),
            },
            '+' | '?' | '|' | '(' | ')' | '{' | '}' => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}

/// `git grep [-n] [-i] [-l] [-c] [-w] [-v] [-E|-F] [--cached] [-e] PATTERN [-- PATHS]`.
pub(super) async fn grep(repo: &Repo, args: &[String]) -> Result<Output, GitError> {
    let (opts, mut paths, _) = split_dashdash(args);
    let (mut numbers, mut icase, mut names, mut count, mut word, mut invert) =
        (false, false, false, false, false, false);
    let (mut extended, mut fixed, mut cached, mut quiet) = (false, false, false, false);
    let mut patterns: Vec<String> = Vec::new();
    let mut i = 0;
    while i < opts.len() {
        let a = opts[i].as_str();
        match a {
            "-e" => {
                i += 1;
                patterns.push(opts.get(i).cloned().ok_or_else(|| {
                    GitError::Usage("error: switch `e' requires a value\n".into())
                })?);
            }
            "--cached" => cached = true,
            "-q" | "--quiet" => quiet = true,
            "-E" | "--extended-regexp" | "-P" | "--perl-regexp" => extended = true,
            "-F" | "--fixed-strings" => fixed = true,
            "-G" | "--basic-regexp" => extended = false,
            "--no-color" | "--color=never" | "-I" | "--full-name" | "-H" => {}
            a if a.starts_with("--") && !a.contains('=') => match a {
                "--line-number" => numbers = true,
                "--ignore-case" => icase = true,
                "--files-with-matches" | "--name-only" => names = true,
                "--count" => count = true,
                "--word-regexp" => word = true,
                "--invert-match" => invert = true,
                _ => return Err(unknown_option("grep", a)),
            },
            a if a.starts_with('-') && a.len() > 1 => {
                for c in a[1..].chars() {
                    match c {
                        'n' => numbers = true,
                        'i' => icase = true,
                        'l' => names = true,
                        'c' => count = true,
                        'w' => word = true,
                        'v' => invert = true,
                        'E' | 'P' => extended = true,
                        'F' => fixed = true,
                        'q' => quiet = true,
                        'I' | 'H' => {}
                        _ => return Err(unknown_option("grep", &format!("-{c}"))),
                    }
                }
            }
            a if patterns.is_empty() => patterns.push(a.to_string()),
            a => paths.push(a.to_string()),
        }
        i += 1;
    }
    if patterns.is_empty() {
        return Err(GitError::Fatal("no pattern given".into()));
    }
    let parts: Vec<String> = patterns
        .iter()
        .map(|p| {
            if fixed {
                regex::escape(p)
            } else if extended {
                p.clone()
            } else {
                basic_to_extended(p)
            }
        })
        .collect();
    let mut source = parts.join("|");
    if word {
        source = format!(r"\b(?:{source})\b");
    }
    let re = RegexBuilder::new(&source)
        .case_insensitive(icase)
        .build()
        .map_err(|e| GitError::Fatal(format!("invalid pattern: {e}")))?;
    let ps = Pathspec::new(repo, &paths)?;
    let index = repo.index().await?;
    let mut o = Output::default();
    let mut any = false;
    for e in index
        .entries
        .iter()
        .filter(|e| e.stage == 0 && ps.matches(&e.path))
    {
        repo.files.tick()?;
        if e.mode == MODE_GITLINK {
            continue;
        }
        let data = if cached {
            repo.read_kind(&e.oid, Kind::Blob).await?
        } else {
            match repo.files.read_opt(&repo.abs(&e.path)).await? {
                Some(d) => d,
                None => continue,
            }
        };
        let shown = repo.display(&e.path);
        let hits: Vec<(usize, &[u8])> = lines(&data)
            .into_iter()
            .enumerate()
            .filter(|(_, l)| {
                let l = l.strip_suffix(b"\n").unwrap_or(l);
                re.is_match(l) != invert
            })
            .collect();
        if hits.is_empty() {
            continue;
        }
        any = true;
        if quiet {
            break;
        }
        if names {
            o.out(format!("{shown}\n"));
        } else if count {
            o.out(format!("{shown}:{}\n", hits.len()));
        } else if is_binary(&data) {
            o.out(format!("Binary file {shown} matches\n"));
        } else {
            for (n, l) in hits {
                o.out(if numbers {
                    format!("{shown}:{}:", n + 1)
                } else {
                    format!("{shown}:")
                });
                o.out(l);
                if !l.ends_with(b"\n") {
                    o.out("\n");
                }
            }
        }
    }
    if !any {
        o.code = 1;
    }
    Ok(o)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn basic_patterns_become_extended() {
        assert_eq!(basic_to_extended(r"a+b\+c"), r"a\+b+c");
        assert_eq!(basic_to_extended(r"f(x)\|g"), r"f\(x\)|g");
        assert_eq!(basic_to_extended(r"a\.b*"), r"a\.b*");
    }
}
