//! What the model sees after `execute_bash`, byte for byte the reference package's text
//! (`llm_in_sandbox/observation.py`, `docker_runtime.py`):
//!
//! ```text
//! Exit code: 0                          (or `Error: Exit code N`, or `-1` on a timeout)
//! Execution output of \[execute_bash]:
//! \[STDOUT]
//! <stdout>
//! \[STDERR]                             (these two only when stderr is not blank)
//! <stderr>
//! ```
//!
//! The backslashes are literal: the reference escapes the brackets for its terminal library
//! and the model receives them that way. Colour codes (`ESC[...m`) and carriage returns are
//! removed from both streams, and a stream of more than 80 lines keeps its first 40 and last 40
//! lines around a three-line marker.

use std::time::Duration;

use super::{CommandOutcome, CommandResult};

/// The line between the kept head and tail of a cut stream, with a line of 50 dashes on each
/// side.
pub const TRUNCATION_NOTE: &str = "<Observation truncated in middle for saving context>";

/// How long streams are cut. Default (the reference's): past 80 lines keep the first 40 and
/// the last 40.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ObservationFormat {
    /// A stream longer than this many lines is cut.
    pub max_lines: usize,
    /// Lines kept from the start of a cut stream.
    pub head_lines: usize,
    /// Lines kept from the end of a cut stream.
    pub tail_lines: usize,
    /// Whether a command that exits 124 by itself (e.g. the model's own `timeout 10 ...`) is
    /// shown as the per-call timeout, output dropped. Default `true`: the reference wraps each
    /// command in `timeout 120` and cannot tell the two apart.
    pub exit_124_is_timeout: bool,
}

impl Default for ObservationFormat {
    fn default() -> Self {
        Self {
            max_lines: 80,
            head_lines: 40,
            tail_lines: 40,
            exit_124_is_timeout: true,
        }
    }
}

/// Python's `str.isspace`: Unicode white space plus the separators U+001C..U+001F.
fn py_isspace(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// Whether Python's `s.strip()` would be empty.
fn is_blank(s: &str) -> bool {
    s.chars().all(py_isspace)
}

/// Python's `str.splitlines()` (no line ends kept, no empty last line for a final newline).
fn splitlines(s: &str) -> Vec<&str> {
    let mut lines = Vec::new();
    let mut start = 0;
    let mut chars = s.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let end = match c {
            '\r' => {
                if let Some((_, '\n')) = chars.peek() {
                    chars.next();
                    i + 2
                } else {
                    i + 1
                }
            }
            '\n' | '\u{0b}' | '\u{0c}' | '\u{1c}' | '\u{1d}' | '\u{1e}' | '\u{85}' | '\u{2028}'
            | '\u{2029}' => i + c.len_utf8(),
            _ => continue,
        };
        lines.push(&s[start..i]);
        start = end;
    }
    if start < s.len() {
        lines.push(&s[start..]);
    }
    lines
}

/// What the reference's runtime removes from command output: colour codes (`ESC[` digits and
/// `;` then `m`) and every carriage return.
pub(crate) fn strip_terminal_codes(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find(['\u{1b}', '\r']) {
        out.push_str(&rest[..i]);
        let tail = &rest[i..];
        if let Some(after) = tail.strip_prefix('\r') {
            rest = after;
            continue;
        }
        // ESC: a colour code is `ESC [ [0-9;]* m`; anything else stays.
        let code = tail
            .strip_prefix("\u{1b}[")
            .map(|t| t.trim_start_matches(|c: char| c.is_ascii_digit() || c == ';'))
            .and_then(|t| t.strip_prefix('m'));
        match code {
            Some(after) => rest = after,
            None => {
                out.push('\u{1b}');
                rest = &tail[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// A stream as the reference shows it: whole when short, else head, marker, tail (the cut
/// stream loses its final newline, as the reference's does).
fn truncate(text: &str, f: &ObservationFormat) -> String {
    let lines = splitlines(text);
    if lines.len() <= f.max_lines {
        return text.to_string();
    }
    let head = f.head_lines.min(lines.len());
    let tail = f.tail_lines.min(lines.len());
    let divider = "-".repeat(50);
    format!(
        "{}\n{divider}\n{TRUNCATION_NOTE}\n{divider}\n{}",
        lines[..head].join("\n"),
        lines[lines.len() - tail..].join("\n")
    )
}

/// Seconds as Python prints the reference's timeout (`120`, or `1.5`).
fn seconds(d: Duration) -> String {
    if d.subsec_nanos() == 0 {
        d.as_secs().to_string()
    } else {
        d.as_secs_f64().to_string()
    }
}

/// The reference's stdout for a command that ran past the limit (its output is dropped).
pub fn timeout_text(limit: Duration) -> String {
    format!(
        "The command took too long to execute (>{}s)",
        seconds(limit)
    )
}

/// The observation text for a shell call.
pub fn observation(r: &CommandResult, f: &ObservationFormat) -> String {
    let timed_out =
        r.outcome == CommandOutcome::Timeout || (f.exit_124_is_timeout && r.exit_code == 124);
    let (code, stdout, stderr) = if timed_out {
        ("-1".to_string(), timeout_text(r.timeout), String::new())
    } else {
        let code = if r.exit_code == 0 {
            "0".to_string()
        } else {
            format!("Error: Exit code {}", r.exit_code)
        };
        (
            code,
            strip_terminal_codes(&r.stdout),
            strip_terminal_codes(&r.stderr),
        )
    };
    let stdout = truncate(&stdout, f);
    let stderr = truncate(&stderr, f);
    let mut parts = vec![
        format!("Exit code: {code}"),
        "Execution output of \\[execute_bash]:".to_string(),
    ];
    if is_blank(&stdout) {
        parts.push("\\[STDOUT]\n".to_string());
    } else {
        parts.push(format!("\\[STDOUT]\n{stdout}"));
    }
    if !is_blank(&stderr) {
        parts.push(format!("\\[STDERR]\n{stderr}"));
    }
    parts.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(exit_code: i32, stdout: &str, stderr: &str) -> CommandResult {
        CommandResult {
            exit_code,
            stdout: stdout.into(),
            stderr: stderr.into(),
            outcome: CommandOutcome::Completed,
            duration: Duration::ZERO,
            timeout: Duration::from_secs(120),
        }
    }

    fn obs(r: &CommandResult) -> String {
        observation(r, &ObservationFormat::default())
    }

    #[test]
    fn short_output_is_kept_whole() {
        assert_eq!(
            obs(&result(0, "a\nb\n", "")),
            "Exit code: 0\nExecution output of \\[execute_bash]:\n\\[STDOUT]\na\nb\n"
        );
    }

    #[test]
    fn blank_stdout_and_stderr_sections() {
        assert_eq!(
            obs(&result(2, " \n", "oops\n")),
            "Exit code: Error: Exit code 2\nExecution output of \\[execute_bash]:\n\\[STDOUT]\n\n\\[STDERR]\noops\n"
        );
        // Python counts U+001C..U+001F as white space.
        assert_eq!(
            obs(&result(0, "", "\u{1f}\t")),
            "Exit code: 0\nExecution output of \\[execute_bash]:\n\\[STDOUT]\n"
        );
    }

    #[test]
    fn long_output_keeps_head_and_tail() {
        let text: String = (1..=100).map(|i| format!("{i}\n")).collect();
        let o = obs(&result(0, &text, ""));
        let dashes = "-".repeat(50);
        assert!(
            o.contains(&format!(
                "\n40\n{dashes}\n{TRUNCATION_NOTE}\n{dashes}\n61\n"
            )),
            "{o}"
        );
        assert!(o.ends_with("\n100"), "{o}");
        let exactly: String = (1..=80).map(|i| format!("{i}\n")).collect();
        assert!(obs(&result(0, &exactly, "")).ends_with("\n80\n"));
    }

    #[test]
    fn python_line_splitting() {
        assert_eq!(
            splitlines("a\nb\r\nc\rd\u{0b}e\u{2028}f\n"),
            ["a", "b", "c", "d", "e", "f"]
        );
        assert_eq!(splitlines("a\n\nb"), ["a", "", "b"]);
        assert!(splitlines("").is_empty());
    }

    #[test]
    fn colour_codes_and_carriage_returns_are_removed() {
        assert_eq!(
            strip_terminal_codes("\u{1b}[1;31mred\u{1b}[0m 50%\r100%\r\n\u{1b}[2K"),
            "red 50%100%\n\u{1b}[2K"
        );
    }

    #[test]
    fn timeout_text_names_the_limit() {
        let mut r = result(124, "partial\n", "");
        r.outcome = CommandOutcome::Timeout;
        assert_eq!(
            obs(&r),
            "Exit code: -1\nExecution output of \\[execute_bash]:\n\\[STDOUT]\nThe command took too long to execute (>120s)"
        );
        r.timeout = Duration::from_millis(1500);
        assert!(obs(&r).ends_with("(>1.5s)"));
    }
}
