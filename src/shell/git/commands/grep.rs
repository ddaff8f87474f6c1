//! `git grep`: search the tracked files (work tree, or the index with `--cached`).

use regex::bytes::RegexBuilder;

use super::super::diff::{is_binary, lines};
use super::super::objects::{Kind, MODE_GITLINK};
use super::super::repo::Repo;
use super::super::{GitError, Output};
use super::args::{Pathspec, split_dashdash, unknown_option};

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

/// What `git grep` was asked to do.
#[derive(Default)]
struct GrepOptions {
    numbers: bool,
    icase: bool,
    names: bool,
    count: bool,
    word: bool,
    invert: bool,
    extended: bool,
    fixed: bool,
    cached: bool,
    quiet: bool,
    patterns: Vec<String>,
    paths: Vec<String>,
}

/// `git grep [-n] [-i] [-l] [-c] [-w] [-v] [-E|-F] [--cached] [-e] PATTERN [-- PATHS]`.
pub(super) async fn grep(repo: &Repo, args: &[String]) -> Result<Output, GitError> {
    let opts = parse_grep_options(args)?;
    if opts.patterns.is_empty() {
        return Err(GitError::Fatal("no pattern given".into()));
    }
    let re = pattern_regex(&opts)?;
    let ps = Pathspec::new(repo, &opts.paths)?;
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
        let data = if opts.cached {
            repo.read_kind(&e.oid, Kind::Blob).await?
        } else {
            match repo.files.read_opt(&repo.abs(&e.path)).await? {
                Some(d) => d,
                None => continue,
            }
        };
        let hits: Vec<(usize, &[u8])> = lines(&data)
            .into_iter()
            .enumerate()
            .filter(|(_, l)| {
                let l = l.strip_suffix(b"\n").unwrap_or(l);
                re.is_match(l) != opts.invert
            })
            .collect();
        if hits.is_empty() {
            continue;
        }
        any = true;
        if opts.quiet {
            break;
        }
        print_hits(&mut o, &repo.display(&e.path), &hits, &data, &opts);
    }
    if !any {
        o.code = 1;
    }
    Ok(o)
}

fn parse_grep_options(args: &[String]) -> Result<GrepOptions, GitError> {
    let (opts, paths, _) = split_dashdash(args);
    let mut o = GrepOptions {
        paths,
        ..GrepOptions::default()
    };
    let mut i = 0;
    while i < opts.len() {
        let a = opts[i].as_str();
        match a {
            "-e" => {
                i += 1;
                o.patterns.push(opts.get(i).cloned().ok_or_else(|| {
                    GitError::Usage("error: switch `e' requires a value\n".into())
                })?);
            }
            "--cached" => o.cached = true,
            "-q" | "--quiet" => o.quiet = true,
            "-E" | "--extended-regexp" | "-P" | "--perl-regexp" => o.extended = true,
            "-F" | "--fixed-strings" => o.fixed = true,
            "-G" | "--basic-regexp" => o.extended = false,
            "--no-color" | "--color=never" | "-I" | "--full-name" | "-H" => {}
            a if a.starts_with("--") && !a.contains('=') => match a {
                "--line-number" => o.numbers = true,
                "--ignore-case" => o.icase = true,
                "--files-with-matches" | "--name-only" => o.names = true,
                "--count" => o.count = true,
                "--word-regexp" => o.word = true,
                "--invert-match" => o.invert = true,
                _ => return Err(unknown_option("grep", a)),
            },
            a if a.starts_with('-') && a.len() > 1 => {
                for c in a[1..].chars() {
                    match c {
                        'n' => o.numbers = true,
                        'i' => o.icase = true,
                        'l' => o.names = true,
                        'c' => o.count = true,
                        'w' => o.word = true,
                        'v' => o.invert = true,
                        'E' | 'P' => o.extended = true,
                        'F' => o.fixed = true,
                        'q' => o.quiet = true,
                        'I' | 'H' => {}
                        _ => return Err(unknown_option("grep", &format!("-{c}"))),
                    }
                }
            }
            a if o.patterns.is_empty() => o.patterns.push(a.to_string()),
            a => o.paths.push(a.to_string()),
        }
        i += 1;
    }
    Ok(o)
}

/// One regular expression for all the patterns, in the syntax asked for.
fn pattern_regex(opts: &GrepOptions) -> Result<regex::bytes::Regex, GitError> {
    let parts: Vec<String> = opts
        .patterns
        .iter()
        .map(|p| {
            if opts.fixed {
                regex::escape(p)
            } else if opts.extended {
                p.clone()
            } else {
                basic_to_extended(p)
            }
        })
        .collect();
    let mut source = parts.join("|");
    if opts.word {
        source = format!(r"\b(?:{source})\b");
    }
    RegexBuilder::new(&source)
        .case_insensitive(opts.icase)
        .build()
        .map_err(|e| GitError::Fatal(format!("invalid pattern: {e}")))
}

/// One file's matches: its name (`-l`), their count (`-c`), or the lines.
fn print_hits(
    o: &mut Output,
    shown: &str,
    hits: &[(usize, &[u8])],
    data: &[u8],
    opts: &GrepOptions,
) {
    if opts.names {
        o.out(format!("{shown}\n"));
    } else if opts.count {
        o.out(format!("{shown}:{}\n", hits.len()));
    } else if is_binary(data) {
        o.out(format!("Binary file {shown} matches\n"));
    } else {
        for &(n, l) in hits {
            o.out(if opts.numbers {
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
