//! The reference's editor, which works through shell commands (`cat PATH`, `echo '...' >
//! PATH`): what it reads is the file as `cat` shows it (lossy UTF-8, colour codes and carriage
//! returns removed; a missing file reads as `cat`'s error message, as there), and every write
//! adds a newline.

use super::*;

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

pub(super) fn run(
    sandbox: &Sandbox,
    dir: &Dir,
    rel: &str,
    path: &str,
    command: &str,
    args: EditorArgs,
) -> Result<String, String> {
    match command {
        "view" => view(dir, rel, path, args.view_range.as_deref()),
        "create" => {
            let text = args.file_text.unwrap_or_default();
            sandbox
                .quota()
                .create_parents(dir, std::path::Path::new(rel))
                .map_err(|e| format!("Error creating file: {e}"))?;
            write(sandbox, dir, rel, &text).map_err(|e| format!("Error creating file: {e}"))?;
            Ok(format!(
                "File created at {path}. {}Review the file and make sure that it is as expected. Edit the file if necessary.",
                cat_n(&text, path, 1)
            ))
        }
        "str_replace" => {
            let old = args
                .old_str
                .filter(|s| !s.is_empty())
                .ok_or("Error: old_str is required for str_replace.")?;
            let content = cat(dir, rel, path);
            if content.is_empty() {
                return Err(format!("Error: Could not read file {path}"));
            }
            let content = expand_tabs(&content);
            let old = expand_tabs(&old);
            let new = expand_tabs(&args.new_str.unwrap_or_default());
            let at = unique_match(&content, &old, path)?;
            let line = content[..at].matches('\n').count();
            let updated = content.replacen(&old, &new, 1);
            write(sandbox, dir, rel, &updated)
                .map_err(|_| format!("Error writing file: {path}"))?;
            let lines: Vec<&str> = updated.split('\n').collect();
            let start = line.saturating_sub(SNIPPET_LINES);
            let end = (line + SNIPPET_LINES + new.matches('\n').count() + 1).min(lines.len());
            let snippet = lines.get(start..end).unwrap_or_default().join("\n");
            Ok(format!(
                "The file {path} has been edited. {}Review the changes and make sure they are as expected. Edit the file again if necessary.",
                cat_n(&snippet, &format!("a snippet of {path}"), start + 1)
            ))
        }
        _ => {
            let at = args.insert_line.unwrap_or(0);
            let new = args
                .new_str
                .filter(|s| !s.is_empty())
                .ok_or("Error: new_str is required for insert.")?;
            let content = expand_tabs(&cat(dir, rel, path));
            let new = expand_tabs(&new);
            let lines: Vec<&str> = if content.is_empty() {
                Vec::new()
            } else {
                content.split('\n').collect()
            };
            let at = insert_position(at, lines.len())?;
            let new_lines: Vec<&str> = new.split('\n').collect();
            let updated = [&lines[..at], &new_lines[..], &lines[at..]]
                .concat()
                .join("\n");
            write(sandbox, dir, rel, &updated)
                .map_err(|_| format!("Error writing file: {path}"))?;
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
    }
}

fn view(dir: &Dir, rel: &str, shown: &str, range: Option<&[i64]>) -> Result<String, String> {
    let meta = dir
        .metadata(rel)
        .map_err(|_| format!("Error: Path not found: {shown}"))?;
    if meta.is_dir() {
        return Ok(listing(dir, rel, shown, true));
    }
    if !viewable(shown) {
        return Err(format!(
            "ERROR: Viewing non-Python files is disallowed for saving context. File '{shown}' is not a .py or .rst file."
        ));
    }
    let text = cat(dir, rel, shown);
    if text.is_empty() {
        return Ok(format!("(empty file: {shown})"));
    }
    numbered_view(&expand_tabs(&text), shown, range)
}
