//! `git apply`: unified diffs (git's or plain `diff -u`) applied to the work tree and/or the
//! index, all files or none. Hunks must match exactly (they may have moved: the nearest
//! matching place is used); binary patches and three-way merges are not supported.

use super::super::diff::lines;
use super::super::files::normalize;
use super::super::index::{Entry, Index};
use super::super::objects::{Kind, MODE_FILE};
use super::super::repo::Repo;
use super::super::{GitError, Output};
use super::args::unknown_option;

fn failed(text: String) -> GitError {
    GitError::Failed { text, code: 1 }
}

#[derive(Clone, Debug, Default)]
struct Hunk {
    old_start: usize,
    /// (marker, line with its end) where marker is ' ', '-' or '+'.
    lines: Vec<(u8, Vec<u8>)>,
}

#[derive(Clone, Debug, Default)]
struct FilePatch {
    old: Option<String>,
    new: Option<String>,
    new_mode: Option<u32>,
    hunks: Vec<Hunk>,
}

/// A path from a `---`/`+++`/`diff --git` line with `strip` leading components removed.
fn strip_path(raw: &str, strip: usize) -> Option<String> {
    let raw = raw.split('\t').next().unwrap_or(raw).trim_end();
    let raw = raw.trim_matches('"');
    if raw == "/dev/null" {
        return None;
    }
    let mut parts = raw.split('/');
    for _ in 0..strip {
        parts.next();
    }
    let p: Vec<&str> = parts.collect();
    if p.is_empty() {
        return None;
    }
    Some(p.join("/"))
}

fn parse_range(s: &str) -> Option<(usize, usize)> {
    let s = &s[1..];
    match s.split_once(',') {
        Some((a, b)) => Some((a.parse().ok()?, b.parse().ok()?)),
        None => Some((s.parse().ok()?, 1)),
    }
}

fn parse(text: &[u8], strip: usize) -> Result<Vec<FilePatch>, GitError> {
    let all = lines(text);
    let mut out: Vec<FilePatch> = Vec::new();
    let mut cur: Option<FilePatch> = None;
    let mut i = 0;
    while i < all.len() {
        let line = String::from_utf8_lossy(all[i]);
        let l = line.trim_end_matches(['\n', '\r']);
        if let Some(rest) = l.strip_prefix("diff --git ") {
            if let Some(c) = cur.take() {
                out.push(c);
            }
            let mut f = FilePatch::default();
            if let Some((a, b)) = rest.split_once(' ') {
                f.old = strip_path(a, strip);
                f.new = strip_path(b, strip);
            }
            cur = Some(f);
        } else if l.starts_with("Binary files ") || l == "GIT binary patch" {
            return Err(failed(
                "error: binary patches are not supported in this sandbox\n".into(),
            ));
        } else if let Some(m) = l
            .strip_prefix("new file mode ")
            .or_else(|| l.strip_prefix("new mode "))
        {
            let f = cur.get_or_insert_with(FilePatch::default);
            f.new_mode = u32::from_str_radix(m.trim(), 8).ok();
            if l.starts_with("new file") {
                f.old = None;
            }
        } else if l.starts_with("deleted file mode ") {
            cur.get_or_insert_with(FilePatch::default).new = None;
        } else if let Some(p) = l.strip_prefix("rename from ") {
            cur.get_or_insert_with(FilePatch::default).old = Some(p.to_string());
        } else if let Some(p) = l.strip_prefix("rename to ") {
            cur.get_or_insert_with(FilePatch::default).new = Some(p.to_string());
        } else if let Some(p) = l.strip_prefix("--- ") {
            let next = all
                .get(i + 1)
                .map(|b| String::from_utf8_lossy(b).into_owned());
            if let Some(n) = next.as_deref().and_then(|n| n.strip_prefix("+++ ")) {
                // A plain diff starts a file here; a git one already did.
                let mut f = match cur.take() {
                    Some(f) if f.hunks.is_empty() => f,
                    Some(f) => {
                        out.push(f);
                        FilePatch::default()
                    }
                    None => FilePatch::default(),
                };
                f.old = strip_path(p, strip);
                f.new = strip_path(n.trim_end_matches(['\n', '\r']), strip);
                cur = Some(f);
                i += 1;
            }
        } else if l.starts_with("@@ ") {
            let f = cur
                .as_mut()
                .ok_or_else(|| corrupt(i, "hunk outside a file"))?;
            let h = parse_hunk(&all, &mut i, l)?;
            f.hunks.push(h);
            continue;
        }
        i += 1;
    }
    if let Some(c) = cur {
        out.push(c);
    }
    out.retain(|f| !f.hunks.is_empty() || f.old != f.new || f.new_mode.is_some());
    Ok(out)
}

fn corrupt(n: usize, why: &str) -> GitError {
    failed(format!("error: corrupt patch at line {}: {why}\n", n + 1))
}

/// The hunk whose `@@` header `header` is at `all[*i]`, leaving `*i` after its last line (and
/// after any `\ No newline at end of file`).
fn parse_hunk(all: &[&[u8]], i: &mut usize, header: &str) -> Result<Hunk, GitError> {
    let mut words = header.split(' ');
    words.next();
    let old = words
        .next()
        .and_then(parse_range)
        .ok_or_else(|| corrupt(*i, "bad hunk header"))?;
    let new = words
        .next()
        .and_then(parse_range)
        .ok_or_else(|| corrupt(*i, "bad hunk header"))?;
    let (mut need_old, mut need_new) = (old.1, new.1);
    let mut h = Hunk {
        old_start: old.0,
        lines: Vec::new(),
    };
    *i += 1;
    while *i < all.len() && (need_old > 0 || need_new > 0) {
        let raw = all[*i];
        let (mark, body) = match raw.first() {
            Some(b' ') | Some(b'-') | Some(b'+') => (raw[0], raw[1..].to_vec()),
            // An empty context line whose space was lost.
            Some(b'\n') => (b' ', b"\n".to_vec()),
            Some(b'\\') => {
                *i += 1;
                continue;
            }
            _ => return Err(corrupt(*i, "unexpected line in hunk")),
        };
        match mark {
            b' ' => {
                need_old = need_old.saturating_sub(1);
                need_new = need_new.saturating_sub(1);
            }
            b'-' => need_old = need_old.saturating_sub(1),
            _ => need_new = need_new.saturating_sub(1),
        }
        h.lines.push((mark, body));
        *i += 1;
    }
    // `\ No newline at end of file` after the hunk's last line.
    while *i < all.len() && all[*i].starts_with(b"\\") {
        if let Some(last) = h.lines.last_mut()
            && last.1.ends_with(b"\n")
        {
            last.1.pop();
        }
        *i += 1;
    }
    Ok(h)
}

fn reverse(f: &FilePatch) -> FilePatch {
    FilePatch {
        old: f.new.clone(),
        new: f.old.clone(),
        new_mode: f.new_mode,
        hunks: f
            .hunks
            .iter()
            .map(|h| Hunk {
                old_start: h.old_start,
                lines: h
                    .lines
                    .iter()
                    .map(|(m, l)| {
                        let m = match m {
                            b'-' => b'+',
                            b'+' => b'-',
                            m => *m,
                        };
                        (m, l.clone())
                    })
                    .collect(),
            })
            .collect(),
    }
}

/// `content` with the hunks applied; `Err(line)` names where a hunk did not fit.
fn apply_hunks(content: &[u8], hunks: &[Hunk]) -> Result<Vec<u8>, usize> {
    let mut lines: Vec<Vec<u8>> = lines(content).into_iter().map(<[u8]>::to_vec).collect();
    let mut offset: isize = 0;
    for h in hunks {
        let old: Vec<&Vec<u8>> = h
            .lines
            .iter()
            .filter(|(m, _)| *m != b'+')
            .map(|(_, l)| l)
            .collect();
        let new: Vec<Vec<u8>> = h
            .lines
            .iter()
            .filter(|(m, _)| *m != b'-')
            .map(|(_, l)| l.clone())
            .collect();
        // A hunk with no old lines inserts after line `old_start`.
        let base = if old.is_empty() {
            h.old_start
        } else {
            h.old_start.saturating_sub(1)
        };
        let want = (base as isize + offset).max(0) as usize;
        let fits = |at: usize| {
            at + old.len() <= lines.len()
                && old.iter().enumerate().all(|(k, l)| lines[at + k] == **l)
        };
        let max = lines.len().saturating_sub(old.len());
        // The stated place first, then the nearest one above or below.
        let at = (0..=lines.len())
            .flat_map(|d| [want.checked_sub(d), want.checked_add(d).filter(|_| d > 0)])
            .flatten()
            .find(|&at| at <= max && fits(at))
            .ok_or(h.old_start)?;
        lines.splice(at..at + old.len(), new.iter().cloned());
        offset = at as isize - base as isize + new.len() as isize - old.len() as isize;
    }
    Ok(lines.concat())
}

/// One file's result: where it was, where it goes, its new content and mode.
struct Outcome {
    old: Option<String>,
    new: Option<String>,
    content: Option<Vec<u8>>,
    mode: u32,
}

/// What `git apply` was asked to do.
#[derive(Default)]
struct ApplyOptions {
    check: bool,
    cached: bool,
    index_too: bool,
    rev: bool,
    strip: usize,
    verbose: bool,
}

/// `git apply [--check] [--cached | --index] [-R] [-pN] [-v] [PATCH...]`.
pub(super) async fn apply(
    repo: &Repo,
    args: &[String],
    stdin: Option<Vec<u8>>,
) -> Result<Output, GitError> {
    let (opts, inputs) = parse_apply_options(repo, args, stdin).await?;
    let mut o = Output::default();
    let mut index = repo.index().await?;
    // Every result first, then every write: all or nothing.
    let mut results: Vec<Outcome> = Vec::new();
    for (name, text) in &inputs {
        let patches = parse(text, opts.strip)?;
        if patches.is_empty() {
            return Err(failed(format!(
                "error: No valid patches in input (allow with \"--allow-empty\")\n{name}\n"
            )));
        }
        for p in patches {
            let p = if opts.rev { reverse(&p) } else { p };
            let shown = p.new.clone().or_else(|| p.old.clone()).unwrap_or_default();
            if opts.verbose {
                o.err(format!("Checking patch {shown}...\n"));
            }
            results.push(outcome(repo, &index, &p, &opts).await?);
        }
    }
    if opts.check {
        return Ok(o);
    }
    for r in results {
        repo.files.tick()?;
        write_outcome(repo, &mut index, r, &opts, &mut o).await?;
    }
    if opts.cached || opts.index_too {
        repo.save_index(&index).await?;
    }
    Ok(o)
}

/// The options, and the patches to read as (name, text): the files named, `-` or nothing for
/// standard input.
async fn parse_apply_options(
    repo: &Repo,
    args: &[String],
    stdin: Option<Vec<u8>>,
) -> Result<(ApplyOptions, Vec<(String, Vec<u8>)>), GitError> {
    let mut o = ApplyOptions {
        strip: 1,
        ..ApplyOptions::default()
    };
    let mut inputs: Vec<(String, Vec<u8>)> = Vec::new();
    for a in args {
        match a.as_str() {
            "--check" => o.check = true,
            "--cached" => o.cached = true,
            "--index" => o.index_too = true,
            "-R" | "--reverse" => o.rev = true,
            "-v" | "--verbose" => o.verbose = true,
            "--allow-empty" | "--unidiff-zero" | "--recount" | "--inaccurate-eof" => {}
            "-3" | "--3way" | "--reject" => {
                return Err(failed(format!(
                    "error: git apply {a} is not supported in this sandbox\n"
                )));
            }
            a if a.starts_with("--whitespace")
                || a.starts_with("--exclude")
                || a.starts_with("--include") => {}
            a if a.starts_with("-p") && a[2..].parse::<usize>().is_ok() => {
                o.strip = a[2..].parse().unwrap_or(1)
            }
            "-" => inputs.push(("<stdin>".into(), stdin.clone().unwrap_or_default())),
            a if a.starts_with('-') => return Err(unknown_option("apply", a)),
            path => {
                let abs = normalize(&repo.cwd, path);
                inputs.push((path.to_string(), repo.files.read(&abs).await?));
            }
        }
    }
    if inputs.is_empty() {
        inputs.push(("<stdin>".into(), stdin.unwrap_or_default()));
    }
    Ok((o, inputs))
}

/// What applying one file's patch gives, without writing anything.
async fn outcome(
    repo: &Repo,
    index: &Index,
    p: &FilePatch,
    opts: &ApplyOptions,
) -> Result<Outcome, GitError> {
    let old_path = p
        .old
        .as_deref()
        .map(|x| repo.repo_path(&normalize(&repo.work_tree, x)))
        .transpose()?;
    let new_path = p
        .new
        .as_deref()
        .map(|x| repo.repo_path(&normalize(&repo.work_tree, x)))
        .transpose()?;
    let (current, mode) = match &old_path {
        Some(op) => patched_file(repo, index, op, opts).await?,
        None => {
            if let Some(np) = &new_path
                && (repo.files.lstat(&repo.abs(np)).await?.is_some() && !opts.cached
                    || index.get(np).is_some() && (opts.cached || opts.index_too))
            {
                return Err(failed(format!(
                    "error: {np}: already exists in working directory\n"
                )));
            }
            (Vec::new(), MODE_FILE)
        }
    };
    let new_content = apply_hunks(&current, &p.hunks).map_err(|line| {
        failed(format!(
            "error: patch failed: {}:{line}\nerror: {}: patch does not apply\n",
            old_path.clone().unwrap_or_default(),
            old_path.clone().unwrap_or_default()
        ))
    })?;
    let mode = p.new_mode.unwrap_or(mode);
    let content = new_path.as_ref().map(|_| new_content);
    Ok(Outcome {
        old: old_path,
        new: new_path,
        content,
        mode,
    })
}

/// The content and mode of the file a patch changes: from the index with `--cached`, else
/// from the work tree (which with `--index` must be staged too).
async fn patched_file(
    repo: &Repo,
    index: &Index,
    op: &str,
    opts: &ApplyOptions,
) -> Result<(Vec<u8>, u32), GitError> {
    let from_index = index.get(op).map(|e| (e.oid, e.mode));
    if opts.cached {
        let (oid, mode) =
            from_index.ok_or_else(|| failed(format!("error: {op}: does not exist in index\n")))?;
        return Ok((repo.read_kind(&oid, Kind::Blob).await?, mode));
    }
    let abs = repo.abs(op);
    let Some(meta) = repo.files.lstat(&abs).await? else {
        return Err(failed(format!("error: {op}: No such file or directory\n")));
    };
    if opts.index_too && from_index.is_none() {
        return Err(failed(format!("error: {op}: does not exist in index\n")));
    }
    let (mode, data) = repo.read_work(op, &meta).await?;
    Ok((data, mode))
}

/// Write one result to the work tree (unless `--cached`) and the index (with `--cached` or
/// `--index`).
async fn write_outcome(
    repo: &Repo,
    index: &mut Index,
    r: Outcome,
    opts: &ApplyOptions,
    o: &mut Output,
) -> Result<(), GitError> {
    let Outcome {
        old,
        new,
        content,
        mode,
    } = r;
    let (cached, staged) = (opts.cached, opts.cached || opts.index_too);
    if let Some(op) = &old
        && new.as_ref() != Some(op)
    {
        if !cached {
            repo.remove_work(op).await?;
        }
        if staged {
            index.remove(op);
        }
    }
    if let (Some(np), Some(data)) = (&new, content) {
        let oid = repo.write_object(Kind::Blob, &data).await?;
        let mut e = Entry::new(np.clone(), mode, oid);
        if !cached {
            repo.checkout_entry(&mut e).await?;
        }
        if staged {
            index.add(e);
        }
    }
    if opts.verbose {
        o.err(format!(
            "Applied patch {} cleanly.\n",
            new.or(old).unwrap_or_default()
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hunks_apply_where_their_context_is() {
        let patch = b"--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n";
        let files = parse(patch, 1).unwrap();
        assert_eq!(files.len(), 1);
        assert_eq!(files[0].new.as_deref(), Some("f"));
        assert_eq!(
            apply_hunks(b"a\nb\nc\n", &files[0].hunks).unwrap(),
            b"a\nB\nc\n"
        );
        // Moved down by two lines.
        assert_eq!(
            apply_hunks(b"x\ny\na\nb\nc\n", &files[0].hunks).unwrap(),
            b"x\ny\na\nB\nc\n"
        );
        assert!(apply_hunks(b"a\nq\nc\n", &files[0].hunks).is_err());
        let back = reverse(&files[0]);
        assert_eq!(
            apply_hunks(b"a\nB\nc\n", &back.hunks).unwrap(),
            b"a\nb\nc\n"
        );
    }

    #[test]
    fn new_files_and_missing_newlines() {
        let patch = b"diff --git a/n b/n\nnew file mode 100755\nindex 0000000..1111111\n--- /dev/null\n+++ b/n\n@@ -0,0 +1 @@\n+x\n\\ No newline at end of file\n";
        let files = parse(patch, 1).unwrap();
        assert_eq!(files[0].old, None);
        assert_eq!(files[0].new_mode, Some(0o100755));
        assert_eq!(apply_hunks(b"", &files[0].hunks).unwrap(), b"x");
    }
}
