//! `str_replace_editor`: view, create, str_replace, insert and undo_edit on any text file in the
//! sandbox, by guest path (`/testbed/...`, `/tmp/...`, or relative to `/testbed`). Every access
//! goes through the sandbox's directory capabilities.

use std::collections::HashMap;

use cap_std::fs::Dir;
use serde::Deserialize;

use crate::sandbox::{GUEST_TMP, GUEST_WORKSPACE, Sandbox};

/// Output past this many characters is clipped (as in the reference system).
pub const MAX_OUTPUT_CHARS: usize = 10_000;
const SNIPPET_LINES: usize = 4;

/// The tool's arguments.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EditorArgs {
    /// view | create | str_replace | insert | undo_edit
    pub command: String,
    /// Absolute guest path (or relative to /testbed).
    pub path: String,
    /// For `create`.
    #[serde(default)]
    pub file_text: Option<String>,
    /// For `str_replace`.
    #[serde(default)]
    pub old_str: Option<String>,
    /// For `str_replace` and `insert`.
    #[serde(default)]
    pub new_str: Option<String>,
    /// For `insert`: the line after which to insert (0 = at the top).
    #[serde(default)]
    pub insert_line: Option<i64>,
    /// For `view`: `[start, end]`, 1-based, `end` = -1 for the end of the file.
    #[serde(default)]
    pub view_range: Option<Vec<i64>>,
}

/// The editor of one episode (it remembers previous contents for `undo_edit`).
#[derive(Debug, Default)]
pub struct Editor {
    history: HashMap<String, Vec<String>>,
}

fn clip(mut s: String) -> String {
    if s.chars().count() > MAX_OUTPUT_CHARS {
        s = s.chars().take(MAX_OUTPUT_CHARS).collect();
        s.push_str("\n<response clipped: view a smaller range with view_range>\n");
    }
    s
}

fn numbered(text: &str, first_line: usize) -> String {
    text.lines()
        .enumerate()
        .map(|(i, l)| format!("{:6}\t{l}\n", i + first_line))
        .collect()
}

impl Editor {
    /// Run one editor command. `Err` is a message for the model (the episode goes on).
    ///
    /// # Errors
    /// A message saying what was wrong with the request.
    pub fn run(&mut self, sandbox: &Sandbox, args: EditorArgs) -> Result<String, String> {
        let (dir, rel, shown) = resolve(sandbox, &args.path)?;
        match args.command.as_str() {
            "view" => view(dir, &rel, &shown, args.view_range.as_deref()).map(clip),
            "create" => {
                let text = args
                    .file_text
                    .ok_or("`create` needs `file_text`: the whole content of the new file")?;
                if dir.symlink_metadata(&rel).is_ok() {
                    return Err(format!(
                        "{shown} already exists; `create` never overwrites. Use `str_replace` to change it, or write to a new path"
                    ));
                }
                if let Some(parent) = std::path::Path::new(&rel)
                    .parent()
                    .filter(|p| !p.as_os_str().is_empty())
                {
                    dir.create_dir_all(parent)
                        .map_err(|e| format!("cannot create {shown}: {e}"))?;
                }
                sandbox
                    .write_charged(dir, &rel, text.as_bytes())
                    .map_err(|e| format!("cannot create {shown}: {e}"))?;
                self.history.entry(shown.clone()).or_default();
                Ok(format!("File created successfully at: {shown}"))
            }
            "str_replace" => {
                let old = args.old_str.ok_or("`str_replace` needs `old_str`")?;
                let new = args.new_str.unwrap_or_default();
                let text = read_text(dir, &rel, &shown)?;
                let count = text.matches(&old).count();
                if old.is_empty() || count == 0 {
                    return Err(format!(
                        "No replacement was performed: old_str did not appear verbatim in {shown}."
                    ));
                }
                if count > 1 {
                    let lines: Vec<usize> = text
                        .match_indices(&old)
                        .map(|(i, _)| text[..i].matches('\n').count() + 1)
                        .collect();
                    return Err(format!(
                        "No replacement was performed: old_str appears {count} times in {shown} (lines {lines:?}); include more context to make it unique."
                    ));
                }
                let at = text.find(&old).unwrap_or(0);
                let updated = text.replacen(&old, &new, 1);
                self.save(sandbox, dir, &rel, &shown, text, &updated)?;
                let line = updated[..at].matches('\n').count() + 1;
                Ok(format!(
                    "The file {shown} has been edited. Here is a snippet of it:\n{}Review the change and edit again if needed.",
                    snippet(&updated, line, new.matches('\n').count())
                ))
            }
            "insert" => {
                let new = args.new_str.ok_or("`insert` needs `new_str`")?;
                let at = args.insert_line.ok_or("`insert` needs `insert_line`")?;
                let text = read_text(dir, &rel, &shown)?;
                let lines: Vec<&str> = text.split_inclusive('\n').collect();
                let at = usize::try_from(at)
                    .ok()
                    .filter(|a| *a <= lines.len())
                    .ok_or(format!(
                        "insert_line must be between 0 and {} (the number of lines)",
                        lines.len()
                    ))?;
                let mut updated: String = lines[..at].concat();
                if !updated.is_empty() && !updated.ends_with('\n') {
                    updated.push('\n');
                }
                updated.push_str(&new);
                if !new.ends_with('\n') {
                    updated.push('\n');
                }
                updated.push_str(&lines[at..].concat());
                self.save(sandbox, dir, &rel, &shown, text, &updated)?;
                Ok(format!(
                    "The file {shown} has been edited. Here is a snippet of it:\n{}Review the change and edit again if needed.",
                    snippet(&updated, at + 1, new.matches('\n').count())
                ))
            }
            "undo_edit" => {
                let previous = self
                    .history
                    .get_mut(&shown)
                    .and_then(Vec::pop)
                    .ok_or(format!("No edit to undo for {shown}."))?;
                sandbox
                    .write_charged(dir, &rel, previous.as_bytes())
                    .map_err(|e| format!("cannot write {shown}: {e}"))?;
                Ok(format!(
                    "Last edit to {shown} undone. Its content now:\n{}",
                    clip(numbered(&previous, 1))
                ))
            }
            other => Err(format!(
                "Unknown command {other:?}: use one of view, create, str_replace, insert, undo_edit"
            )),
        }
    }

    fn save(
        &mut self,
        sandbox: &Sandbox,
        dir: &Dir,
        rel: &str,
        shown: &str,
        old: String,
        new: &str,
    ) -> Result<(), String> {
        sandbox
            .write_charged(dir, rel, new.as_bytes())
            .map_err(|e| format!("cannot write {shown}: {e}"))?;
        self.history.entry(shown.to_string()).or_default().push(old);
        Ok(())
    }
}

fn snippet(text: &str, line: usize, extra: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let start = line.saturating_sub(SNIPPET_LINES).max(1);
    let end = (line + extra + SNIPPET_LINES).min(lines.len());
    if start > end {
        return String::new();
    }
    numbered(&lines[start - 1..end].join("\n"), start)
}

fn read_text(dir: &Dir, rel: &str, shown: &str) -> Result<String, String> {
    let bytes = dir
        .read(rel)
        .map_err(|e| format!("cannot read {shown}: {e}"))?;
    String::from_utf8(bytes).map_err(|_| format!("{shown} is not a UTF-8 text file"))
}

fn view(dir: &Dir, rel: &str, shown: &str, range: Option<&[i64]>) -> Result<String, String> {
    let meta = dir
        .metadata(rel)
        .map_err(|_| format!("The path {shown} does not exist."))?;
    if meta.is_dir() {
        if range.is_some() {
            return Err("view_range is for files, not directories".into());
        }
        let mut out = format!(
            "Files and directories up to 2 levels deep in {shown}, hidden items excluded:\n"
        );
        list(dir, rel, shown, 0, &mut out);
        return Ok(out);
    }
    let text = read_text(dir, rel, shown)?;
    let lines: Vec<&str> = text.lines().collect();
    let (start, end) = match range {
        None => (1, lines.len()),
        Some([s, e]) => {
            let n = lines.len() as i64;
            let e = if *e == -1 { n } else { *e };
            if *s < 1 || *s > n.max(1) || e < *s || e > n {
                return Err(format!(
                    "Invalid view_range {:?}: {shown} has {n} lines; give [start, end] with 1 <= start <= end <= {n}, or end = -1",
                    [s, &e]
                ));
            }
            (*s as usize, e as usize)
        }
        Some(_) => return Err("view_range must be two numbers: [start, end]".into()),
    };
    let body = if lines.is_empty() {
        String::new()
    } else {
        numbered(&lines[start - 1..end].join("\n"), start)
    };
    Ok(format!(
        "Here's the result of running `cat -n` on {shown}:\n{body}"
    ))
}

fn list(dir: &Dir, rel: &str, shown: &str, depth: usize, out: &mut String) {
    let Ok(entries) = dir.read_dir(rel) else {
        return;
    };
    let mut names: Vec<(String, bool)> = entries
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let is_dir = e.file_type().map(|t| t.is_dir()).unwrap_or(false);
            (!name.starts_with('.')).then_some((name, is_dir))
        })
        .collect();
    names.sort();
    for (name, is_dir) in names {
        let child_rel = if rel == "." {
            name.clone()
        } else {
            format!("{rel}/{name}")
        };
        let child_shown = format!("{}/{name}", shown.trim_end_matches('/'));
        out.push_str(&format!("{child_shown}{}\n", if is_dir { "/" } else { "" }));
        if is_dir && depth < 1 {
            list(dir, &child_rel, &child_shown, depth + 1, out);
        }
    }
}

/// Map a guest path to (directory capability, relative path, normalized guest path).
fn resolve<'a>(sandbox: &'a Sandbox, path: &str) -> Result<(&'a Dir, String, String), String> {
    let path = path.trim();
    if path.is_empty() {
        return Err("`path` is empty: give an absolute path such as /testbed/answer.txt".into());
    }
    let full = if path.starts_with('/') {
        path.to_string()
    } else {
        format!("{GUEST_WORKSPACE}/{path}")
    };
    let mut parts: Vec<&str> = Vec::new();
    for c in full.split('/') {
        match c {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            c => parts.push(c),
        }
    }
    let norm = format!("/{}", parts.join("/"));
    for (mount, dir) in [
        (GUEST_WORKSPACE, sandbox.workspace().dir()),
        (GUEST_TMP, sandbox.scratch_dir()),
    ] {
        if norm == mount {
            return Ok((dir, ".".into(), norm));
        }
        if let Some(rest) = norm.strip_prefix(&format!("{mount}/")) {
            return Ok((dir, rest.to_string(), norm));
        }
    }
    Err(format!(
        "{norm} is outside the sandbox: the editor works on files under {GUEST_WORKSPACE} and {GUEST_TMP}"
    ))
}
