//! What the model sees after `execute_bash`: the reference system's format (`Exit code: N`,
//! `[STDOUT]`, `[STDERR]`), each stream cut to its first and last lines when long.

use super::{CommandOutcome, CommandResult};

/// How long streams are cut. Default: past 80 lines keep the first 40 and the last 40.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ObservationFormat {
    /// A stream longer than this many lines is cut.
    pub max_lines: usize,
    /// Lines kept from the start of a cut stream.
    pub head_lines: usize,
    /// Lines kept from the end of a cut stream.
    pub tail_lines: usize,
}

impl Default for ObservationFormat {
    fn default() -> Self {
        Self {
            max_lines: 80,
            head_lines: 40,
            tail_lines: 40,
        }
    }
}

fn clip(text: &str, f: &ObservationFormat) -> String {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    if lines.len() <= f.max_lines {
        return text.to_string();
    }
    let removed = lines.len() - f.head_lines - f.tail_lines.min(lines.len() - f.head_lines);
    let mut out: String = lines[..f.head_lines].concat();
    if !out.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(&format!("... [{removed} lines removed] ...\n"));
    out.push_str(&lines[lines.len() - f.tail_lines..].concat());
    out
}

/// The observation text for a shell call.
pub fn observation(r: &CommandResult, f: &ObservationFormat) -> String {
    let mut out = format!("Exit code: {}\n", r.exit_code);
    if r.outcome == CommandOutcome::Timeout {
        out.push_str(&format!(
            "The command timed out after {:.0} s and was stopped; output up to then is below.\n",
            r.duration.as_secs_f64()
        ));
    }
    out.push_str("[STDOUT]\n");
    out.push_str(&clip(&r.stdout, f));
    if !out.ends_with('\n') {
        out.push('\n');
    }
    out.push_str("[STDERR]\n");
    out.push_str(&clip(&r.stderr, f));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn result(stdout: String) -> CommandResult {
        CommandResult {
            exit_code: 0,
            stdout,
            stderr: String::new(),
            outcome: CommandOutcome::Completed,
            duration: Duration::ZERO,
        }
    }

    #[test]
    fn short_output_is_kept_whole() {
        let r = result("a\nb\n".into());
        assert_eq!(
            observation(&r, &ObservationFormat::default()),
            "Exit code: 0\n[STDOUT]\na\nb\n[STDERR]\n"
        );
    }

    #[test]
    fn long_output_keeps_head_and_tail() {
        let text: String = (1..=100).map(|i| format!("{i}\n")).collect();
        let obs = observation(&result(text), &ObservationFormat::default());
        assert!(
            obs.contains("\n40\n... [20 lines removed] ...\n61\n"),
            "{obs}"
        );
        assert!(obs.contains("[STDOUT]\n1\n2\n"));
        assert!(obs.ends_with("100\n[STDERR]\n"));
        let exactly: String = (1..=80).map(|i| format!("{i}\n")).collect();
        assert!(!observation(&result(exactly), &ObservationFormat::default()).contains("removed"));
    }
}
