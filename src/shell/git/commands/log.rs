//! `git log`, `git show`, `git rev-list`: walking history and printing commits.

use std::collections::{BinaryHeap, HashSet};

use super::super::identity::now;
use super::super::objects::{Commit, Kind, MODE_TREE, Oid, Signature};
use super::super::refs::bad_rev;
use super::super::repo::Repo;
use super::super::{GitError, Output};
use super::args::{Pathspec, option_value, unknown_option};
use super::changes::{Show, compare, render, snapshot};
use super::inspect::revs_and_paths;

/// How commits are printed.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Format {
    Medium,
    Short,
    Full,
    Fuller,
    Oneline,
    Raw,
    /// `format:` (separator between commits) or `tformat:` (terminator after each).
    Custom {
        text: String,
        terminator: bool,
    },
}

fn parse_format(s: &str) -> Result<Format, GitError> {
    Ok(match s {
        "medium" => Format::Medium,
        "short" => Format::Short,
        "full" => Format::Full,
        "fuller" => Format::Fuller,
        "oneline" => Format::Oneline,
        "raw" => Format::Raw,
        s if s.starts_with("format:") => Format::Custom {
            text: s[7..].to_string(),
            terminator: false,
        },
        s if s.starts_with("tformat:") => Format::Custom {
            text: s[8..].to_string(),
            terminator: true,
        },
        s if s.contains('%') => Format::Custom {
            text: s.to_string(),
            terminator: true,
        },
        s => return Err(GitError::Fatal(format!("invalid --pretty format: {s}"))),
    })
}

/// Date styles of `--date`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum DateStyle {
    Default,
    Iso,
    IsoStrict,
    Rfc,
    Short,
    Relative,
    Unix,
    Raw,
}

fn parse_date_style(s: &str) -> Result<DateStyle, GitError> {
    Ok(match s {
        "default" | "local" | "default-local" => DateStyle::Default,
        "iso" | "iso8601" => DateStyle::Iso,
        "iso-strict" | "iso8601-strict" => DateStyle::IsoStrict,
        "rfc" | "rfc2822" => DateStyle::Rfc,
        "short" => DateStyle::Short,
        "relative" => DateStyle::Relative,
        "unix" => DateStyle::Unix,
        "raw" => DateStyle::Raw,
        s => return Err(GitError::Fatal(format!("unknown date format {s}"))),
    })
}

fn date(s: &Signature, style: DateStyle) -> String {
    match style {
        DateStyle::Default => s.date_default(),
        DateStyle::Iso => s.date_iso(),
        DateStyle::IsoStrict => {
            let iso = s.date_iso();
            // 2005-04-07 15:13:13 -0700 -> 2005-04-07T15:13:13-07:00
            let (d, rest) = iso.split_once(' ').unwrap_or((&iso, ""));
            let (t, z) = rest.split_once(' ').unwrap_or((rest, "+0000"));
            let z = if z == "+0000" {
                "Z".to_string()
            } else {
                format!("{}:{}", &z[..3], &z[3..])
            };
            format!("{d}T{t}{z}")
        }
        DateStyle::Rfc => s.date_rfc(),
        DateStyle::Short => s.date_short(),
        DateStyle::Relative => s.date_relative(now()),
        DateStyle::Unix => s.time.to_string(),
        DateStyle::Raw => format!("{} {}", s.time, s.tz_text()),
    }
}

/// What `log` and `show` were asked for.
struct LogOptions {
    format: Format,
    date: DateStyle,
    abbrev_commit: bool,
    max: Option<usize>,
    skip: usize,
    reverse: bool,
    all: bool,
    first_parent: bool,
    no_merges: bool,
    author: Option<String>,
    grep: Option<String>,
    show: Show,
    /// Whether changes are shown at all (`-p`, `--stat`, ...; `show` defaults to a patch).
    diff: bool,
}

impl LogOptions {
    fn new(diff_default: bool) -> LogOptions {
        LogOptions {
            format: Format::Medium,
            date: DateStyle::Default,
            abbrev_commit: false,
            max: None,
            skip: 0,
            reverse: false,
            all: false,
            first_parent: false,
            no_merges: false,
            author: None,
            grep: None,
            show: Show::default(),
            diff: diff_default,
        }
    }

    /// Parse options; the arguments left (revisions and paths).
    fn parse(&mut self, cmd: &str, args: &[String]) -> Result<Vec<String>, GitError> {
        let mut rest = Vec::new();
        let mut i = 0;
        let mut explicit_diff = false;
        while i < args.len() {
            let a = args[i].as_str();
            if a == "--" {
                rest.extend(args[i..].iter().cloned());
                break;
            }
            if let Some(v) = option_value(args, &mut i, "--max-count", Some("-n"))? {
                self.max = Some(
                    v.parse()
                        .map_err(|_| GitError::Fatal(format!("'{v}': not an integer")))?,
                );
            } else if let Some(v) = option_value(args, &mut i, "--pretty", None)? {
                self.format = parse_format(&v)?;
            } else if let Some(v) = option_value(args, &mut i, "--format", None)? {
                self.format = match parse_format(&v)? {
                    Format::Custom { text, .. } => Format::Custom {
                        text,
                        terminator: true,
                    },
                    f => f,
                };
            } else if let Some(v) = option_value(args, &mut i, "--date", None)? {
                self.date = parse_date_style(&v)?;
            } else if let Some(v) = option_value(args, &mut i, "--skip", None)? {
                self.skip = v
                    .parse()
                    .map_err(|_| GitError::Fatal(format!("'{v}': not an integer")))?;
            } else if let Some(v) = option_value(args, &mut i, "--author", None)? {
                self.author = Some(v);
            } else if let Some(v) = option_value(args, &mut i, "--grep", None)? {
                self.grep = Some(v);
            } else {
                match a {
                    "--oneline" => {
                        self.format = Format::Oneline;
                        self.abbrev_commit = true;
                    }
                    "--pretty" => self.format = Format::Medium,
                    "--abbrev-commit" => self.abbrev_commit = true,
                    "--no-abbrev-commit" => self.abbrev_commit = false,
                    "--reverse" => self.reverse = true,
                    "--all" | "--branches" => self.all = true,
                    "--first-parent" => self.first_parent = true,
                    "--no-merges" => self.no_merges = true,
                    "-s" | "--no-patch" => {
                        self.diff = false;
                        explicit_diff = true;
                    }
                    "--decorate" | "--no-decorate" | "--graph" | "--no-color" | "--color"
                    | "--topo-order" | "--date-order" | "--no-walk" | "--source" | "--follow"
                    | "--no-renames" | "--cc" | "-m" | "--full-history" | "--no-expand-tabs" => {}
                    a if a.starts_with("--decorate=") || a.starts_with("--color=") => {}
                    a if a.starts_with("--since")
                        || a.starts_with("--until")
                        || a.starts_with("--after")
                        || a.starts_with("--before") => {}
                    a if a.len() > 1
                        && a.starts_with('-')
                        && a[1..].bytes().all(|b| b.is_ascii_digit()) =>
                    {
                        self.max = Some(a[1..].parse().unwrap_or(0));
                    }
                    a if self.show.option(a)? => {
                        self.diff = true;
                        explicit_diff = true;
                    }
                    a if a.starts_with('-') => return Err(unknown_option(cmd, a)),
                    a => rest.push(a.to_string()),
                }
            }
            i += 1;
        }
        if self.diff && !explicit_diff {
            self.show.patch = true;
        }
        Ok(rest)
    }
}

/// Commits reachable from `starts`, newest first (by committer date), honouring the options.
async fn walk(
    repo: &Repo,
    starts: &[Oid],
    hide: &[Oid],
    ps: &Pathspec,
    opts: &LogOptions,
) -> Result<Vec<(Oid, Commit)>, GitError> {
    let mut hidden = HashSet::new();
    let mut stack: Vec<Oid> = hide.to_vec();
    while let Some(c) = stack.pop() {
        repo.files.tick()?;
        if hidden.insert(c) {
            stack.extend(repo.commit(&c).await?.parents);
        }
    }
    // (commit time, order of arrival reversed) so ties keep the order they were met in.
    let mut heap: BinaryHeap<(i64, u64, Oid)> = BinaryHeap::new();
    let mut seen = HashSet::new();
    let mut tick = u64::MAX;
    for s in starts {
        if seen.insert(*s) {
            let c = repo.commit(s).await?;
            heap.push((c.committer.time, tick, *s));
            tick -= 1;
        }
    }
    let mut out = Vec::new();
    let mut skipped = 0;
    while let Some((_, _, oid)) = heap.pop() {
        repo.files.tick()?;
        let c = repo.commit(&oid).await?;
        let parents: Vec<Oid> = if opts.first_parent {
            c.parents.iter().take(1).copied().collect()
        } else {
            c.parents.clone()
        };
        for p in &parents {
            if seen.insert(*p) {
                let pc = repo.commit(p).await?;
                heap.push((pc.committer.time, tick, *p));
                tick = tick.saturating_sub(1);
            }
        }
        if hidden.contains(&oid) {
            continue;
        }
        if opts.no_merges && c.parents.len() > 1 {
            continue;
        }
        if let Some(a) = &opts.author
            && !format!("{} <{}>", c.author.name, c.author.email).contains(a.as_str())
        {
            continue;
        }
        if let Some(g) = &opts.grep
            && !c.message.contains(g.as_str())
        {
            continue;
        }
        if !ps.is_empty() && !touches(repo, &c, ps).await? {
            continue;
        }
        if skipped < opts.skip {
            skipped += 1;
            continue;
        }
        out.push((oid, c));
        if !opts.reverse && opts.max.is_some_and(|m| out.len() >= m) {
            break;
        }
    }
    if opts.reverse {
        if let Some(m) = opts.max {
            out.truncate(m);
        }
        out.reverse();
    }
    Ok(out)
}

/// Whether a commit changes a file the pathspec names (compared with its first parent).
async fn touches(repo: &Repo, c: &Commit, ps: &Pathspec) -> Result<bool, GitError> {
    let mine = repo.flatten(&c.tree).await?;
    let theirs = repo.commit_files(c.parents.first()).await?;
    Ok(!compare(&snapshot(&theirs), &snapshot(&mine), ps, false).is_empty())
}

/// A commit's changes against its first parent.
async fn commit_changes(
    repo: &Repo,
    c: &Commit,
    ps: &Pathspec,
) -> Result<Vec<super::changes::Change>, GitError> {
    let mine = repo.flatten(&c.tree).await?;
    let theirs = repo.commit_files(c.parents.first()).await?;
    Ok(compare(&snapshot(&theirs), &snapshot(&mine), ps, true))
}

/// The text of one commit in a fixed format (without the changes).
async fn header(repo: &Repo, oid: &Oid, c: &Commit, opts: &LogOptions) -> Result<String, GitError> {
    let id = if opts.abbrev_commit {
        repo.abbrev(oid, 7).await?
    } else {
        oid.hex()
    };
    let indent = |text: &str| -> String {
        let mut s = String::new();
        for l in text.trim_end_matches('\n').lines() {
            s.push_str("    ");
            s.push_str(l);
            s.push('\n');
        }
        s
    };
    let merge = if c.parents.len() > 1 {
        let mut s = String::from("Merge:");
        for p in &c.parents {
            s.push(' ');
            s.push_str(&repo.abbrev(p, 7).await?);
        }
        s.push('\n');
        s
    } else {
        String::new()
    };
    let who = |s: &Signature| format!("{} <{}>", s.name, s.email);
    Ok(match &opts.format {
        Format::Oneline => format!("{id} {}\n", c.subject()),
        Format::Short => format!(
            "commit {id}\n{merge}Author: {}\n\n{}",
            who(&c.author),
            indent(c.subject())
        ),
        Format::Medium => format!(
            "commit {id}\n{merge}Author: {}\nDate:   {}\n\n{}",
            who(&c.author),
            date(&c.author, opts.date),
            indent(&c.message)
        ),
        Format::Full => format!(
            "commit {id}\n{merge}Author: {}\nCommit: {}\n\n{}",
            who(&c.author),
            who(&c.committer),
            indent(&c.message)
        ),
        Format::Fuller => format!(
            "commit {id}\n{merge}Author:     {}\nAuthorDate: {}\nCommit:     {}\nCommitDate: {}\n\n{}",
            who(&c.author),
            date(&c.author, opts.date),
            who(&c.committer),
            date(&c.committer, opts.date),
            indent(&c.message)
        ),
        Format::Raw => {
            let raw = String::from_utf8_lossy(&c.to_bytes()).into_owned();
            let (head, msg) = raw.split_once("\n\n").unwrap_or((&raw, ""));
            format!("commit {}\n{head}\n\n{}", oid.hex(), indent(msg))
        }
        Format::Custom { text, .. } => custom(repo, oid, c, text, opts.date).await?,
    })
}

/// A `--format` string filled in for one commit.
async fn custom(
    repo: &Repo,
    oid: &Oid,
    c: &Commit,
    f: &str,
    style: DateStyle,
) -> Result<String, GitError> {
    let mut s = String::new();
    let mut chars = f.chars().peekable();
    while let Some(ch) = chars.next() {
        if ch != '%' {
            s.push(ch);
            continue;
        }
        let Some(k) = chars.next() else {
            s.push('%');
            break;
        };
        match k {
            '%' => s.push('%'),
            'n' => s.push('\n'),
            'H' => s.push_str(&oid.hex()),
            'h' => s.push_str(&repo.abbrev(oid, 7).await?),
            'T' => s.push_str(&c.tree.hex()),
            't' => s.push_str(&repo.abbrev(&c.tree, 7).await?),
            'P' => s.push_str(&c.parents.iter().map(Oid::hex).collect::<Vec<_>>().join(" ")),
            'p' => {
                let mut v = Vec::new();
                for p in &c.parents {
                    v.push(repo.abbrev(p, 7).await?);
                }
                s.push_str(&v.join(" "));
            }
            's' => s.push_str(c.subject()),
            'b' => s.push_str(c.body()),
            'B' => s.push_str(&c.message),
            'd' | 'D' => {}
            'x' => {
                let hex: String = [chars.next(), chars.next()].into_iter().flatten().collect();
                if let Ok(b) = u8::from_str_radix(&hex, 16) {
                    s.push(b as char);
                }
            }
            'a' | 'c' => {
                let who = if k == 'a' { &c.author } else { &c.committer };
                let Some(w) = chars.next() else { break };
                match w {
                    'n' | 'N' => s.push_str(&who.name),
                    'e' | 'E' => s.push_str(&who.email),
                    'l' => s.push_str(who.email.split('@').next().unwrap_or("")),
                    'd' => s.push_str(&date(who, style)),
                    'D' => s.push_str(&who.date_rfc()),
                    'r' => s.push_str(&who.date_relative(now())),
                    't' => s.push_str(&who.time.to_string()),
                    'i' => s.push_str(&who.date_iso()),
                    'I' => s.push_str(&date(who, DateStyle::IsoStrict)),
                    's' => s.push_str(&who.date_short()),
                    other => {
                        s.push('%');
                        s.push(k);
                        s.push(other);
                    }
                }
            }
            other => {
                s.push('%');
                s.push(other);
            }
        }
    }
    Ok(s)
}

/// Print commits one after the other, with their changes when asked.
async fn print_commits(
    repo: &Repo,
    commits: &[(Oid, Commit)],
    ps: &Pathspec,
    opts: &LogOptions,
    o: &mut Output,
) -> Result<(), GitError> {
    for (n, (oid, c)) in commits.iter().enumerate() {
        repo.files.tick()?;
        let text = header(repo, oid, c, opts).await?;
        let custom = match &opts.format {
            Format::Custom { terminator, .. } => Some(*terminator),
            _ => None,
        };
        match custom {
            Some(true) => o.out(format!("{text}\n")),
            Some(false) => {
                if n > 0 {
                    o.out("\n");
                }
                o.out(text);
            }
            None => {
                if n > 0 && opts.format != Format::Oneline {
                    o.out("\n");
                }
                o.out(text);
            }
        }
        if opts.diff && c.parents.len() <= 1 {
            let changes = commit_changes(repo, c, ps).await?;
            let body = render(repo, &changes, &opts.show).await?;
            if !body.is_empty() {
                if opts.format != Format::Oneline {
                    o.out("\n");
                }
                o.out(body);
            }
        }
    }
    Ok(())
}

/// Starting points and hidden commits from revision arguments (`A`, `A..B`, `^A`).
async fn ranges(repo: &Repo, revs: &[String], all: bool) -> Result<(Vec<Oid>, Vec<Oid>), GitError> {
    let (mut starts, mut hide) = (Vec::new(), Vec::new());
    for r in revs {
        if let Some((a, b)) = r.split_once("..") {
            let (a, b) = (a.trim_end_matches('.'), b.trim_start_matches('.'));
            let a = if a.is_empty() { "HEAD" } else { a };
            let b = if b.is_empty() { "HEAD" } else { b };
            hide.push(repo.resolve_commit(a).await?);
            starts.push(repo.resolve_commit(b).await?);
        } else if let Some(x) = r.strip_prefix('^') {
            hide.push(repo.resolve_commit(x).await?);
        } else {
            starts.push(repo.resolve_commit(r).await?);
        }
    }
    if all {
        for (_, oid) in repo.refs_under("refs/heads/").await? {
            starts.push(oid);
        }
        for (_, oid) in repo.refs_under("refs/tags/").await? {
            if let (c, Kind::Commit) = repo.peel(oid).await? {
                starts.push(c);
            }
        }
        if let Some(h) = repo.head_commit().await? {
            starts.push(h);
        }
    }
    if starts.is_empty() && (revs.is_empty() || !hide.is_empty()) && !all {
        match repo.head_commit().await? {
            Some(h) => starts.push(h),
            None => {
                let branch = repo.branch_name().await?.unwrap_or_else(|| "HEAD".into());
                return Err(GitError::Fatal(format!(
                    "your current branch '{branch}' does not have any commits yet"
                )));
            }
        }
    }
    Ok((starts, hide))
}

/// `git log [options] [REVS] [-- PATHS]`.
pub(super) async fn log(repo: &Repo, args: &[String]) -> Result<Output, GitError> {
    let mut opts = LogOptions::new(false);
    let rest = opts.parse("log", args)?;
    let (revs, paths) = revs_and_paths(repo, &rest).await?;
    let ps = Pathspec::new(repo, &paths)?;
    let (starts, hide) = ranges(repo, &revs, opts.all).await?;
    let commits = walk(repo, &starts, &hide, &ps, &opts).await?;
    let mut o = Output::default();
    print_commits(repo, &commits, &ps, &opts, &mut o).await?;
    Ok(o)
}

/// `git rev-list [--count] [--max-count=N] REVS`.
pub(super) async fn rev_list(repo: &Repo, args: &[String]) -> Result<Output, GitError> {
    let count = args.iter().any(|a| a == "--count");
    let args: Vec<String> = args.iter().filter(|a| *a != "--count").cloned().collect();
    let mut opts = LogOptions::new(false);
    let rest = opts.parse("rev-list", &args)?;
    let (revs, paths) = revs_and_paths(repo, &rest).await?;
    if revs.is_empty() && !opts.all {
        return Err(GitError::Usage(
            "usage: git rev-list [<options>] <commit>... [--] [<path>...]\n".into(),
        ));
    }
    let ps = Pathspec::new(repo, &paths)?;
    let (starts, hide) = ranges(repo, &revs, opts.all).await?;
    let commits = walk(repo, &starts, &hide, &ps, &opts).await?;
    if count {
        return Ok(Output::stdout(format!("{}\n", commits.len())));
    }
    let text: String = commits
        .iter()
        .map(|(o, _)| format!("{}\n", o.hex()))
        .collect();
    Ok(Output::stdout(text))
}

/// `git show [options] [OBJECTS] [-- PATHS]`: commits with their patch, files as content
/// (`HEAD:path`), trees as listings.
pub(super) async fn show(repo: &Repo, args: &[String]) -> Result<Output, GitError> {
    let mut opts = LogOptions::new(true);
    let rest = opts.parse("show", args)?;
    let (before, paths, _) = super::args::split_dashdash(&rest);
    let specs = if before.is_empty() {
        vec!["HEAD".to_string()]
    } else {
        before
    };
    let ps = Pathspec::new(repo, &paths)?;
    let mut o = Output::default();
    for (n, spec) in specs.iter().enumerate() {
        let Some(oid) = repo.try_resolve(spec).await? else {
            if spec == "HEAD" && repo.head_commit().await?.is_none() {
                let branch = repo.branch_name().await?.unwrap_or_default();
                return Err(GitError::Fatal(format!(
                    "your current branch '{branch}' does not have any commits yet"
                )));
            }
            return Err(bad_rev(spec));
        };
        let (oid, kind) = repo.peel(oid).await?;
        match kind {
            Kind::Commit => {
                let c = repo.commit(&oid).await?;
                let mut one = Output::default();
                print_commits(repo, &[(oid, c)], &ps, &opts, &mut one).await?;
                if n > 0 && opts.format != Format::Oneline {
                    o.out("\n");
                }
                o.out(one.out);
            }
            Kind::Blob => o.out(repo.read_kind(&oid, Kind::Blob).await?),
            Kind::Tree => {
                o.out(format!("tree {spec}\n\n"));
                for e in repo.tree(&oid).await? {
                    let slash = if e.mode == MODE_TREE { "/" } else { "" };
                    o.out(format!("{}{slash}\n", e.name));
                }
            }
            Kind::Tag => {}
        }
    }
    Ok(o)
}
