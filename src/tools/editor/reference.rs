//! The reference's editor, which works through shell commands (`cat PATH`, `echo '...' >
//! PATH`): what it reads is the file as `cat` shows it (lossy UTF-8, colour codes and carriage
//! returns removed; a missing file reads as `cat`'s error message, as there), and every write
//! adds a newline.

use super::*;
use crate::tools::pyvalue::{PyError, as_int, as_number, compare, py_str, truthy};

/// `ERROR: ...` for a file that is not `.py` or `.rst`.
fn viewable(path: &str) -> bool {
    path.ends_with(".py") || path.ends_with(".rst")
}

/// What `cat PATH` prints (stdout and stderr together), as the reference's runtime gives it.
fn cat(dir: &Dir, rel: &str, shown: &str) -> String {
    match dir.metadata(rel) {
        Ok(m) if m.is_dir() => format!("cat: {shown}: Is a directory\n"),
        Ok(_) => match crate::fsutil::read_capped(
            dir,
            std::path::Path::new(rel),
            crate::fsutil::GUEST_READ_LIMIT,
        ) {
            Ok(bytes) => strip_terminal_codes(&String::from_utf8_lossy(&bytes)),
            Err(e) if e.kind() == std::io::ErrorKind::FileTooLarge => {
                format!("cat: {shown}: {e}\n")
            }
            Err(_) => format!("cat: {shown}: Permission denied\n"),
        },
        Err(_) => format!("cat: {shown}: No such file or directory\n"),
    }
}

/// What `echo 'TEXT' > PATH` writes: the text and a newline (`echo` takes a lone word of
/// its own flags, `-n`, `-e`, `-neE`, ..., as flags).
fn echoed(text: &str) -> String {
    let flags = text.len() > 1
        && text.starts_with('-')
        && text[1..].chars().all(|c| matches!(c, 'n' | 'e' | 'E'));
    match (flags, text.contains('n')) {
        (true, true) => String::new(),
        (true, false) => "\n".into(),
        _ => format!("{text}\n"),
    }
}

fn write(sandbox: &Sandbox, dir: &Dir, rel: &str, text: &str) -> Result<(), String> {
    sandbox
        .write_charged(dir, rel, echoed(text).as_bytes())
        .map_err(|e| e.to_string())
}

/// The reference's `_execute_str_replace_editor` on the call's arguments as its Python reads
/// them (`params.get(name, default)`, no type checks): a falsy value counts as missing, a path
/// or a file text that is not a string is used as its `str()`, and an argument its code cannot
/// use raises the exception Python would ([`Refusal::Raised`]).
pub(super) fn run(sandbox: &Sandbox, args: &Map<String, Value>) -> Result<String, Refusal> {
    let empty = Value::String(String::new());
    let get = |key: &str| args.get(key).unwrap_or(&empty);
    let (command, path) = (get("command"), get("path"));
    if !truthy(command) || !truthy(path) {
        return Err("Error: command and path are required.".into());
    }
    let command = match command.as_str() {
        Some(c @ ("view" | "create" | "str_replace" | "insert")) => c,
        _ => return Err(format!("Unknown command: {}", py_str(command)).into()),
    };
    let shown = py_str(path);
    let (dir, rel, _) = resolve(sandbox, &shown)?;
    let (dir, rel, shown) = (dir, rel.as_str(), shown.as_str());
    match command {
        "view" => view(dir, rel, path, shown, args.get("view_range")),
        "create" => {
            // `str(params.get("file_text", ""))`: a null given is "None".
            let text = py_str(args.get("file_text").unwrap_or(&empty));
            sandbox
                .quota()
                .create_parents(dir, std::path::Path::new(rel))
                .map_err(|e| format!("Error creating file: {e}"))?;
            write(sandbox, dir, rel, &text).map_err(|e| format!("Error creating file: {e}"))?;
            Ok(format!(
                "File created at {shown}. {}Review the file and make sure that it is as expected. Edit the file if necessary.",
                cat_n(&text, shown, 1)
            ))
        }
        "str_replace" => str_replace(sandbox, dir, rel, shown, get("old_str"), get("new_str")),
        _ => {
            let zero = Value::from(0);
            let at = args.get("insert_line").unwrap_or(&zero);
            insert(sandbox, dir, rel, shown, at, get("new_str"))
        }
    }
}

fn str_replace(
    sandbox: &Sandbox,
    dir: &Dir,
    rel: &str,
    path: &str,
    old: &Value,
    new: &Value,
) -> Result<String, Refusal> {
    if !truthy(old) {
        return Err("Error: old_str is required for str_replace.".into());
    }
    let content = cat(dir, rel, path);
    if content.is_empty() {
        return Err(format!("Error: Could not read file {path}").into());
    }
    let content = expand_tabs(&content);
    let old = expand_tabs(
        old.as_str()
            .ok_or(PyError::no_attribute(old, "expandtabs"))?,
    );
    let new = if truthy(new) {
        expand_tabs(
            new.as_str()
                .ok_or(PyError::no_attribute(new, "expandtabs"))?,
        )
    } else {
        String::new()
    };
    let at = unique_match(&content, &old, path)?;
    let line = content[..at].matches('\n').count();
    let updated = content.replacen(&old, &new, 1);
    write(sandbox, dir, rel, &updated).map_err(|_| format!("Error writing file: {path}"))?;
    let lines: Vec<&str> = updated.split('\n').collect();
    let start = line.saturating_sub(SNIPPET_LINES);
    let end = (line + SNIPPET_LINES + new.matches('\n').count() + 1).min(lines.len());
    let snippet = lines.get(start..end).unwrap_or_default().join("\n");
    Ok(format!(
        "The file {path} has been edited. {}Review the changes and make sure they are as expected. Edit the file again if necessary.",
        cat_n(&snippet, &format!("a snippet of {path}"), start + 1)
    ))
}

fn insert(
    sandbox: &Sandbox,
    dir: &Dir,
    rel: &str,
    path: &str,
    at: &Value,
    new: &Value,
) -> Result<String, Refusal> {
    if !truthy(new) {
        return Err("Error: new_str is required for insert.".into());
    }
    let content = expand_tabs(&cat(dir, rel, path));
    let new = expand_tabs(
        new.as_str()
            .ok_or(PyError::no_attribute(new, "expandtabs"))?,
    );
    let lines: Vec<&str> = if content.is_empty() {
        Vec::new()
    } else {
        content.split('\n').collect()
    };
    let count = lines.len();
    // `if insert_line < 0 or insert_line > len(lines)`, then `lines[:insert_line]`.
    if compare(at, "<", &Value::from(0))? || compare(at, ">", &Value::from(count))? {
        return Err(format!(
            "Error: Invalid insert_line {}. Must be in [0, {count}].",
            py_str(at)
        )
        .into());
    }
    let at = as_int(at)
        .and_then(|a| usize::try_from(a).ok())
        .ok_or(PyError::slice_index())?;
    let new_lines: Vec<&str> = new.split('\n').collect();
    let updated = [&lines[..at], &new_lines[..], &lines[at..]]
        .concat()
        .join("\n");
    write(sandbox, dir, rel, &updated).map_err(|_| format!("Error writing file: {path}"))?;
    let snippet = [
        &lines[at.saturating_sub(SNIPPET_LINES)..at],
        &new_lines[..],
        &lines[at..(at + SNIPPET_LINES).min(lines.len())],
    ]
    .concat()
    .join("\n");
    Ok(format!(
        "The file {path} has been edited. {}Review the changes and make sure they are as expected (correct indentation, no duplicate lines, etc). Edit the file again if necessary.",
        cat_n(
            &snippet,
            "a snippet of the edited file",
            (at + 1).saturating_sub(SNIPPET_LINES).max(1)
        )
    ))
}

/// `view`; `path` is the argument as given (a path that is not a string fails at its
/// `.endswith`, as there, once it names a file).
fn view(
    dir: &Dir,
    rel: &str,
    path: &Value,
    shown: &str,
    range: Option<&Value>,
) -> Result<String, Refusal> {
    let meta = dir
        .metadata(rel)
        .map_err(|_| format!("Error: Path not found: {shown}"))?;
    if meta.is_dir() {
        return Ok(listing(dir, rel, shown, true));
    }
    if !path.is_string() {
        return Err(PyError::no_attribute(path, "endswith").into());
    }
    if !viewable(shown) {
        return Err(format!(
            "ERROR: Viewing non-Python files is disallowed for saving context. File '{shown}' is not a .py or .rst file."
        )
        .into());
    }
    let text = cat(dir, rel, shown);
    if text.is_empty() {
        return Ok(format!("(empty file: {shown})"));
    }
    let text = expand_tabs(&text);
    let lines: Vec<&str> = text.split('\n').collect();
    let Some(bounds) = view_bounds(range, lines.len())? else {
        return numbered_view(&text, shown, None).map_err(Refusal::from);
    };
    let (first, last) = bounds;
    let body = numbered(lines[first - 1..last].iter().copied(), first);
    Ok(clip(&format!(
        "Here's the result of running `cat -n` on {shown}:\n{body}"
    )))
}

/// The lines (1-based, inclusive) `view_range` selects, as the reference's checks read it:
/// `None` for the whole file (no range, a falsy one, or one whose `len()` is not 2).
fn view_bounds(range: Option<&Value>, total: usize) -> Result<Option<(usize, usize)>, Refusal> {
    let Some(range) = range.filter(|r| truthy(r)) else {
        return Ok(None);
    };
    // `len(view_range) == 2`, then `start, end = view_range`: a string's characters and a
    // dict's keys unpack too.
    let items: Vec<Value> = match range {
        Value::Array(a) => a.clone(),
        Value::String(s) => s.chars().map(|c| Value::String(c.to_string())).collect(),
        Value::Object(o) => o.keys().map(|k| Value::String(k.clone())).collect(),
        other => return Err(PyError::no_len(other).into()),
    };
    let [start, end] = items.as_slice() else {
        return Ok(None);
    };
    let total_v = Value::from(total);
    let shown = py_str(range);
    if !(compare(&Value::from(1), "<=", start)? && compare(start, "<=", &total_v)?) {
        return Err(format!(
            "Error: Invalid view_range {shown}: start line must be in [1, {total}]"
        )
        .into());
    }
    let to_end = as_number(end) == Some(-1.0);
    if !to_end && (compare(end, "<", start)? || compare(end, ">", &total_v)?) {
        return Err(format!(
            "Error: Invalid view_range {shown}: end must be >= start and <= {total}, or -1 to view until end."
        )
        .into());
    }
    // `lines[start-1:end]`: a float bound cannot slice.
    let index = |v: &Value| {
        as_int(v)
            .and_then(|i| usize::try_from(i).ok())
            .ok_or(PyError::slice_index())
    };
    let first = index(start)?;
    let last = if to_end { total } else { index(end)? };
    Ok(Some((first, last)))
}
