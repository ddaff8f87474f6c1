//! `str_replace_editor`: view, create, str_replace, insert and undo_edit on any text file in the
//! sandbox, by guest path (`/testbed/...`, `/tmp/...`, or relative to `/testbed`). Every access
//! goes through the sandbox's directory capabilities, and writes are charged to its quota.
//!
//! The texts are the reference package's (`Agent._execute_str_replace_editor` in
//! `llm_in_sandbox/agent.py`): `cat -n` renderings numbered `{n:6}\t{line}` after tab
//! expansion, 4-line snippets around an edit, and its error messages. Paths are shown as the
//! model wrote them. Where we do more than the reference (any text file can be viewed, listings
//! show every file, `create` never overwrites, `undo_edit`, paths outside the sandbox), the
//! texts follow its style.

use std::collections::HashMap;

use cap_std::fs::Dir;
use serde_json::{Map, Value};

use crate::sandbox::{GUEST_HOME, GUEST_TMP, GUEST_WORKSPACE, Sandbox};
use crate::shell::strip_terminal_codes;
use crate::tools::pyvalue;

/// Output past this many characters is clipped (as in the reference system).
pub const MAX_OUTPUT_CHARS: usize = 10_000;
/// What follows clipped output (the reference's text).
pub const CLIPPED_NOTE: &str = "<response clipped><NOTE>To save on context only part of this file has been shown to you. You should retry this tool after you have searched inside the file with `grep -n` in order to find the line numbers of what you are looking for.</NOTE>";
const SNIPPET_LINES: usize = 4;
/// Lines a directory listing shows at most (the reference pipes `find` into `head -100`).
const MAX_LISTING_LINES: usize = 100;
const COMMANDS: [&str; 5] = ["view", "create", "str_replace", "insert", "undo_edit"];

/// The improved editor's arguments, read from the call's JSON object by
/// [`EditorArgs::from_object`]. Fields the model adds beyond these are ignored.
#[derive(Debug, Default)]
pub struct EditorArgs {
    /// view | create | str_replace | insert | undo_edit
    pub command: Option<String>,
    /// Absolute guest path (or relative to /testbed).
    pub path: Option<String>,
    /// For `create`.
    pub file_text: Option<String>,
    /// For `str_replace`.
    pub old_str: Option<String>,
    /// For `str_replace` and `insert`.
    pub new_str: Option<String>,
    /// For `insert`: the line after which to insert (0 = at the top, the default).
    pub insert_line: Option<i64>,
    /// For `view`: `[start, end]`, 1-based, `end` = -1 for the end of the file.
    pub view_range: Option<Vec<i64>>,
}

impl EditorArgs {
    /// The arguments of a call, each of the kind the tool's schema says; `null` is the same as
    /// leaving the argument out.
    ///
    /// # Errors
    /// A text for the model naming the argument, the kind it must be and what it was.
    pub fn from_object(args: &Map<String, Value>) -> Result<EditorArgs, String> {
        let wrong = |key: &str, kind: &str, v: &Value| {
            format!(
                "Error: {key} must be {kind}, not {} ({}).",
                pyvalue::type_name(v),
                pyvalue::py_repr(v)
            )
        };
        let text = |key: &str| -> Result<Option<String>, String> {
            match args.get(key) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::String(s)) => Ok(Some(s.clone())),
                Some(v) => Err(wrong(key, "a string", v)),
            }
        };
        let int = |v: &Value| match v {
            Value::Number(n) => n.as_i64(),
            _ => None,
        };
        let insert_line = match args.get("insert_line") {
            None | Some(Value::Null) => None,
            Some(v) => Some(int(v).ok_or_else(|| wrong("insert_line", "an integer", v))?),
        };
        let view_range = match args.get("view_range") {
            None | Some(Value::Null) => None,
            Some(v) => Some(
                v.as_array()
                    .and_then(|a| a.iter().map(int).collect::<Option<Vec<i64>>>())
                    .ok_or_else(|| wrong("view_range", "a list of two integers", v))?,
            ),
        };
        Ok(EditorArgs {
            command: text("command")?,
            path: text("path")?,
            file_text: text("file_text")?,
            old_str: text("old_str")?,
            new_str: text("new_str")?,
            insert_line,
            view_range,
        })
    }
}

/// Why the editor did not do what a call asked, as the model is told.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// The editor's own error text (shown after the tool's header).
    Text(String),
    /// An argument of a kind the reference's editor code cannot handle: the exception its
    /// Python raises, as the last line of a traceback (shown alone, without the header; the
    /// reference's episode ends there).
    Raised(String),
}

impl From<String> for Refusal {
    fn from(s: String) -> Self {
        Refusal::Text(s)
    }
}

impl From<&str> for Refusal {
    fn from(s: &str) -> Self {
        Refusal::Text(s.to_string())
    }
}

impl From<pyvalue::PyError> for Refusal {
    fn from(e: pyvalue::PyError) -> Self {
        Refusal::Raised(e.to_string())
    }
}

/// Which editor the model gets.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EditorMode {
    /// The reference's editor, rule for rule (the default): `view` shows and lists only `.py`
    /// and `.rst` files, `create` overwrites, every write ends with an added newline (the
    /// reference writes through `echo`), `str_replace` and `insert` expand tabs over the whole
    /// file first, files are read as `cat` shows them; no `undo_edit`.
    #[default]
    Reference,
    /// Ours (`--editor improved`): any text file can be viewed and is listed, `create` never
    /// overwrites, files are written exactly as given (no added newline, tabs kept),
    /// `undo_edit` reverts the last edit.
    Improved,
}

/// The editor of one episode (it remembers previous contents for `undo_edit`).
#[derive(Debug, Default)]
pub struct Editor {
    history: HashMap<String, Vec<String>>,
    mode: EditorMode,
}

/// Python's `str.expandtabs()` (tab size 8; the column restarts after `\n` and `\r`).
fn expand_tabs(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut column = 0usize;
    for c in s.chars() {
        match c {
            '\t' => {
                let n = 8 - column % 8;
                out.extend(std::iter::repeat_n(' ', n));
                column += n;
            }
            '\n' | '\r' => {
                out.push(c);
                column = 0;
            }
            c => {
                out.push(c);
                column += 1;
            }
        }
    }
    out
}

/// The reference's `maybe_truncate`: past 10,000 characters, cut and add the note.
fn clip(s: &str) -> String {
    match s.char_indices().nth(MAX_OUTPUT_CHARS) {
        Some((at, _)) => format!("{}{CLIPPED_NOTE}", &s[..at]),
        None => s.to_string(),
    }
}

/// Lines numbered as `cat -n` prints them, joined by `\n` (no final newline).
fn numbered<'a>(lines: impl IntoIterator<Item = &'a str>, first_line: usize) -> String {
    lines
        .into_iter()
        .enumerate()
        .map(|(i, l)| format!("{:6}\t{l}", i + first_line))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The reference's `make_output`: a `cat -n` rendering of `content` (clipped, tabs expanded),
/// ending with a newline.
fn cat_n(content: &str, descriptor: &str, first_line: usize) -> String {
    let content = expand_tabs(&clip(content));
    format!(
        "Here's the result of running `cat -n` on {descriptor}:\n{}\n",
        numbered(content.split('\n'), first_line)
    )
}

/// Python's `[a, b]` for a list of numbers.
fn py_list(v: &[i64]) -> String {
    format!(
        "[{}]",
        v.iter().map(i64::to_string).collect::<Vec<_>>().join(", ")
    )
}

impl Editor {
    /// An editor of this kind.
    pub fn new(mode: EditorMode) -> Self {
        Editor {
            history: HashMap::new(),
            mode,
        }
    }

    /// Which editor this is.
    pub fn mode(&self) -> EditorMode {
        self.mode
    }

    /// Run one editor command on the call's arguments. `Ok` and `Err` are both texts for the
    /// model (the episode goes on); `Err` marks a refused request.
    ///
    /// # Errors
    /// The reference's error text for what was wrong with the request, or the exception its
    /// code raises on an argument of the wrong kind ([`Refusal`]).
    pub fn run(&mut self, sandbox: &Sandbox, args: &Map<String, Value>) -> Result<String, Refusal> {
        if self.mode == EditorMode::Reference {
            return reference::run(sandbox, args);
        }
        let args = EditorArgs::from_object(args)?;
        let command = args.command.clone().unwrap_or_default();
        let path = args.path.clone().unwrap_or_default();
        if command.is_empty() || path.is_empty() {
            return Err("Error: command and path are required.".into());
        }
        if !COMMANDS.contains(&command.as_str()) {
            return Err(format!("Unknown command: {command}").into());
        }
        let (dir, rel, norm) = resolve(sandbox, &path)?;
        let target = Target {
            dir,
            rel: &rel,
            path: &path,
            norm,
        };
        Ok(match command.as_str() {
            "view" => view(dir, &rel, &path, args.view_range.as_deref()),
            "create" => self.create(sandbox, target, args),
            "str_replace" => self.str_replace(sandbox, target, args),
            "insert" => self.insert(sandbox, target, args),
            _ => self.undo_edit(sandbox, target),
        }?)
    }

    /// `create`: a new file (never over an existing one), with its parents.
    fn create(
        &mut self,
        sandbox: &Sandbox,
        target: Target<'_>,
        args: EditorArgs,
    ) -> Result<String, String> {
        let Target {
            dir,
            rel,
            path,
            norm,
        } = target;
        let text = args
            .file_text
            .ok_or("Error: file_text is required for create.")?;
        if dir.symlink_metadata(rel).is_ok() {
            return Err(format!(
                "Error: File already exists at {path}. `create` never overwrites a file: use `str_replace` to change it, or create a new path."
            ));
        }
        sandbox
            .quota()
            .create_parents(dir, std::path::Path::new(rel))
            .map_err(|e| format!("Error creating file: {e}"))?;
        sandbox
            .write_charged(dir, rel, text.as_bytes())
            .map_err(|e| format!("Error creating file: {e}"))?;
        self.history.entry(norm).or_default();
        Ok(format!(
            "File created at {path}. {}Review the file and make sure that it is as expected. Edit the file if necessary.",
            cat_n(&text, path, 1)
        ))
    }

    /// `str_replace`: replace the one occurrence of `old_str`, showing a snippet around it.
    fn str_replace(
        &mut self,
        sandbox: &Sandbox,
        target: Target<'_>,
        args: EditorArgs,
    ) -> Result<String, String> {
        let Target {
            dir,
            rel,
            path,
            norm,
        } = target;
        let old = args
            .old_str
            .filter(|s| !s.is_empty())
            .ok_or("Error: old_str is required for str_replace.")?;
        let new = args.new_str.unwrap_or_default();
        let text = read_text(dir, rel, path)?;
        if text.is_empty() {
            return Err(format!("Error: Could not read file {path}"));
        }
        let at = unique_match(&text, &old, path)?;
        let line = text[..at].matches('\n').count();
        let updated = text.replacen(&old, &new, 1);
        let old_len = old.len();
        let shown = format!(
            "{}{new}{}",
            strip_terminal_codes(&text[..at]),
            strip_terminal_codes(&text[at + old_len..])
        );
        self.save(sandbox, dir, rel, path, norm, text, &updated)?;
        // Lines [line - 4, line + 4 + new lines], as the reference picks them from the
        // file as `cat` showed it (colour codes and carriage returns removed).
        let lines: Vec<&str> = shown.split('\n').collect();
        let start = line.saturating_sub(SNIPPET_LINES);
        let end = (line + SNIPPET_LINES + new.matches('\n').count() + 1).min(lines.len());
        let snippet = lines.get(start..end).unwrap_or_default().join("\n");
        Ok(format!(
            "The file {path} has been edited. {}Review the changes and make sure they are as expected. Edit the file again if necessary.",
            cat_n(
                &expand_tabs(&snippet),
                &format!("a snippet of {path}"),
                start + 1
            )
        ))
    }

    /// `insert`: new lines after line `insert_line`, showing a snippet around them.
    fn insert(
        &mut self,
        sandbox: &Sandbox,
        target: Target<'_>,
        args: EditorArgs,
    ) -> Result<String, String> {
        let Target {
            dir,
            rel,
            path,
            norm,
        } = target;
        let new = args
            .new_str
            .filter(|s| !s.is_empty())
            .ok_or("Error: new_str is required for insert.")?;
        let at = args.insert_line.unwrap_or(0);
        let text = read_text(dir, rel, path)?;
        // The reference's lines: `split('\n')`, none for an empty file.
        let split = |t: &'_ str| -> Vec<String> {
            if t.is_empty() {
                Vec::new()
            } else {
                t.split('\n').map(str::to_string).collect()
            }
        };
        let lines = split(&text);
        let seen = split(&strip_terminal_codes(&text));
        let at = insert_position(at, lines.len())?;
        let new_lines: Vec<String> = new.split('\n').map(str::to_string).collect();
        let updated = [&lines[..at], &new_lines[..], &lines[at..]]
            .concat()
            .join("\n");
        let snippet = [
            &seen[at.saturating_sub(SNIPPET_LINES)..at],
            &new_lines[..],
            &seen[at..(at + SNIPPET_LINES).min(seen.len())],
        ]
        .concat()
        .join("\n");
        self.save(sandbox, dir, rel, path, norm, text, &updated)?;
        Ok(format!(
            "The file {path} has been edited. {}Review the changes and make sure they are as expected (correct indentation, no duplicate lines, etc). Edit the file again if necessary.",
            cat_n(
                &expand_tabs(&snippet),
                "a snippet of the edited file",
                (at + 1).saturating_sub(SNIPPET_LINES).max(1)
            )
        ))
    }

    /// `undo_edit`: put back the file as it was before its last edit.
    fn undo_edit(&mut self, sandbox: &Sandbox, target: Target<'_>) -> Result<String, String> {
        let Target {
            dir,
            rel,
            path,
            norm,
        } = target;
        let previous = self
            .history
            .get_mut(&norm)
            .and_then(Vec::pop)
            .ok_or(format!("Error: No edit history found for {path}."))?;
        sandbox
            .write_charged(dir, rel, previous.as_bytes())
            .map_err(|e| format!("Error writing file: {path}: {e}"))?;
        Ok(format!(
            "Last edit to {path} undone successfully. {}",
            cat_n(&strip_terminal_codes(&previous), path, 1)
        ))
    }

    #[allow(clippy::too_many_arguments)]
    fn save(
        &mut self,
        sandbox: &Sandbox,
        dir: &Dir,
        rel: &str,
        shown: &str,
        key: String,
        old: String,
        new: &str,
    ) -> Result<(), String> {
        sandbox
            .write_charged(dir, rel, new.as_bytes())
            .map_err(|e| format!("Error writing file: {shown}: {e}"))?;
        self.history.entry(key).or_default().push(old);
        self.bound_history();
        Ok(())
    }

    /// Keep the undo history within [`HISTORY_BYTES`]: the oldest edits of every file go
    /// first (a guest editing a large file in a loop must not grow the host's memory).
    fn bound_history(&mut self) {
        let mut total: usize = self.history.values().flatten().map(String::len).sum();
        while total > HISTORY_BYTES {
            let Some(oldest) = self
                .history
                .values_mut()
                .filter(|v| !v.is_empty())
                .max_by_key(|v| v.iter().map(String::len).sum::<usize>())
            else {
                break;
            };
            total -= oldest.remove(0).len();
        }
    }
}

/// The most bytes of earlier file versions the improved editor keeps for `undo_edit`, over
/// all files of one episode.
const HISTORY_BYTES: usize = 32 << 20;

/// The reference's editor (`editor/reference.rs`), which works through shell commands.
mod reference;

/// `insert_line` as a position among `count` lines (0 to `count`), or the reference's error.
fn insert_position(at: i64, count: usize) -> Result<usize, String> {
    usize::try_from(at)
        .ok()
        .filter(|a| *a <= count)
        .ok_or(format!(
            "Error: Invalid insert_line {at}. Must be in [0, {count}]."
        ))
}

/// Where `old` occurs in `text`, if exactly once; else the reference's error for none or many.
fn unique_match(text: &str, old: &str, path: &str) -> Result<usize, String> {
    match text.matches(old).count() {
        0 => Err(format!(
            "Error: No occurrences of old_str found in {path} for replacement."
        )),
        1 => Ok(text.find(old).unwrap_or(0)),
        count => Err(format!(
            "Error: Multiple occurrences ({count}) of old_str found in {path}. Please ensure it is unique before using str_replace."
        )),
    }
}

fn read_text(dir: &Dir, rel: &str, shown: &str) -> Result<String, String> {
    let bytes = crate::fsutil::read_capped(
        dir,
        std::path::Path::new(rel),
        crate::fsutil::GUEST_READ_LIMIT,
    )
    .map_err(|e| match e.kind() {
        std::io::ErrorKind::FileTooLarge => {
            format!("Error: {shown}: {e}; use execute_bash for it.")
        }
        _ => format!("Error: Could not read file {shown}"),
    })?;
    String::from_utf8(bytes)
        .map_err(|_| format!("Error: {shown} is not a UTF-8 text file; use execute_bash for it."))
}

fn view(dir: &Dir, rel: &str, shown: &str, range: Option<&[i64]>) -> Result<String, String> {
    let meta = dir
        .metadata(rel)
        .map_err(|_| format!("Error: Path not found: {shown}"))?;
    if meta.is_dir() {
        return Ok(listing(dir, rel, shown, false));
    }
    let text = strip_terminal_codes(&read_text(dir, rel, shown)?);
    if text.is_empty() {
        return Ok(format!("(empty file: {shown})"));
    }
    numbered_view(&expand_tabs(&text), shown, range)
}

/// `view` of a file's (tab-expanded) text, whole or a `view_range`, clipped.
fn numbered_view(text: &str, shown: &str, range: Option<&[i64]>) -> Result<String, String> {
    let lines: Vec<&str> = text.split('\n').collect();
    let total = lines.len();
    let body = match range {
        Some(v @ [start, end]) => {
            let n = total as i64;
            if !(1..=n).contains(start) {
                return Err(format!(
                    "Error: Invalid view_range {}: start line must be in [1, {total}]",
                    py_list(v)
                ));
            }
            if *end != -1 && (end < start || *end > n) {
                return Err(format!(
                    "Error: Invalid view_range {}: end must be >= start and <= {total}, or -1 to view until end.",
                    py_list(v)
                ));
            }
            // Both are in range now.
            let first = usize::try_from(*start).unwrap_or(1);
            let last = if *end == -1 {
                total
            } else {
                usize::try_from(*end).unwrap_or(total)
            };
            numbered(lines[first - 1..last].iter().copied(), first)
        }
        _ => numbered(lines.iter().copied(), 1),
    };
    Ok(clip(&format!(
        "Here's the result of running `cat -n` on {shown}:\n{body}"
    )))
}

/// The reference lists a folder with `find PATH -maxdepth 2 -not -path '*/.*'`: PATH itself,
/// then every entry two levels deep, each as `PATH/name`, none whose path has a `/.` in it, at
/// most 100 lines. With `code_only` (the reference's editor) only folders and `.py`/`.rst`
/// files are listed, as its `find` does; otherwise every file (the improved editor shows any).
fn listing(dir: &Dir, rel: &str, shown: &str, code_only: bool) -> String {
    let mut lines = vec![shown.to_string()];
    let base = shown.strip_suffix('/').unwrap_or(shown);
    walk(dir, rel, base, 1, code_only, &mut lines);
    lines.retain(|l| !l.contains("/."));
    lines.truncate(MAX_LISTING_LINES);
    if lines.is_empty() {
        return format!("(empty directory: {shown})");
    }
    let mut out = format!(
        "Here's the files and directories up to 2 levels deep in {shown}, excluding hidden:\n"
    );
    for l in lines {
        out.push_str(&l);
        out.push('\n');
    }
    out
}

fn walk(dir: &Dir, rel: &str, shown: &str, depth: usize, code_only: bool, out: &mut Vec<String>) {
    let Ok(entries) = dir.read_dir(rel) else {
        return;
    };
    let mut names: Vec<(String, bool)> = entries
        .flatten()
        .map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let is_dir = e.file_type().map(|t| t.is_dir()).unwrap_or(false);
            (name, is_dir)
        })
        .filter(|(name, _)| !name.starts_with('.'))
        .collect();
    names.sort();
    for (name, is_dir) in names {
        let child_rel = if rel == "." {
            name.clone()
        } else {
            format!("{rel}/{name}")
        };
        let child_shown = format!("{shown}/{name}");
        if is_dir || !code_only || name.ends_with(".py") || name.ends_with(".rst") {
            out.push(child_shown.clone());
        }
        if is_dir && depth < 2 {
            walk(dir, &child_rel, &child_shown, depth + 1, code_only, out);
        }
    }
}

/// The file an editor command works on: its directory capability, its path in it, the path
/// as the model gave it, and the undo history's key.
struct Target<'a> {
    dir: &'a Dir,
    rel: &'a str,
    path: &'a str,
    norm: String,
}

/// Map a guest path to (directory capability, relative path, normalized guest path).
fn resolve<'a>(sandbox: &'a Sandbox, path: &str) -> Result<(&'a Dir, String, String), String> {
    let trimmed = path.trim();
    if trimmed.is_empty() {
        return Err("Error: command and path are required.".into());
    }
    let full = if trimmed.starts_with('/') {
        trimmed.to_string()
    } else {
        format!("{GUEST_WORKSPACE}/{trimmed}")
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
    // `/tmp` and `/root` are opened only when a path is in them.
    let dir_of = |mount: &str| -> Result<&'a Dir, String> {
        match mount {
            GUEST_TMP => sandbox.scratch_dir(),
            GUEST_HOME => sandbox.home_dir(),
            _ => Ok(sandbox.workspace().dir()),
        }
        .map_err(|e| format!("Error: cannot open {mount}: {e}"))
    };
    for mount in [GUEST_WORKSPACE, GUEST_TMP, GUEST_HOME] {
        if norm == mount {
            return Ok((dir_of(mount)?, ".".into(), norm));
        }
        if let Some(rest) = norm.strip_prefix(&format!("{mount}/")) {
            return Ok((dir_of(mount)?, rest.to_string(), norm));
        }
    }
    Err(format!(
        "Error: {path} is outside the sandbox: the editor works on files under {GUEST_WORKSPACE}, {GUEST_TMP} and {GUEST_HOME}."
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tabs_expand_as_python_does() {
        assert_eq!(
            expand_tabs("a\tb\rc\td\n\tx"),
            "a       b\rc       d\n        x"
        );
        assert_eq!(expand_tabs("12345678\t|"), "12345678        |");
    }

    #[test]
    fn cat_n_numbers_every_split_line() {
        assert_eq!(
            cat_n("a\nb\n", "/testbed/f", 1),
            "Here's the result of running `cat -n` on /testbed/f:\n     1\ta\n     2\tb\n     3\t\n"
        );
    }

    #[test]
    fn clipping_counts_characters() {
        let s = "é".repeat(MAX_OUTPUT_CHARS + 1);
        let c = clip(&s);
        assert!(c.ends_with(CLIPPED_NOTE));
        assert_eq!(
            c.chars().count(),
            MAX_OUTPUT_CHARS + CLIPPED_NOTE.chars().count()
        );
        assert_eq!(clip("short"), "short");
    }
}
