//! What an episode tells a person watching it, as it happens: `run` prints each [`Report`] as
//! a line, `benchmark` shows its rows in flight from them and keeps the lines in each row's
//! log. Everything here is in words: the tool and a short excerpt of what it was asked, or of
//! what the model wrote when it made no call.

use serde_json::Value;

use super::StopReason;
use crate::tools::pyvalue::{py_repr, py_str};

/// Characters of a command or of the model's text shown in a line.
pub const EXCERPT_CHARS: usize = 100;
/// Characters of the model's text kept in a [`Report::NoCall`] (the hint shows them all).
pub const TEXT_EXCERPT_CHARS: usize = 300;

/// One thing that happened in an episode.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Report {
    /// Turn `step` asks the model (the request went out).
    Asking {
        /// The turn.
        step: u32,
    },
    /// The model answered turn `step` with a tool call, which runs now.
    Calling {
        /// The turn.
        step: u32,
        /// The tool's name.
        tool: String,
        /// What it was asked, in short ([`call_excerpt`]).
        excerpt: String,
        /// Seconds the model took for this turn.
        model_seconds: f64,
        /// Tokens of the episode so far (as the server reports them).
        tokens: u64,
    },
    /// The tool of turn `step` finished.
    Called {
        /// The turn.
        step: u32,
        /// In words: `exit 0`, `done`, or `refused: ...` with the start of the message.
        outcome: String,
        /// Seconds the tool took.
        seconds: f64,
    },
    /// The model answered turn `step` without a tool call the episode recognized.
    NoCall {
        /// The turn.
        step: u32,
        /// What the model wrote, in short.
        excerpt: String,
        /// Whether the text holds a tool call written out (`<tool_call>{...}</tool_call>`, a
        /// fenced JSON object, `<function=...>`): what `--text-tool-calls` runs.
        written_call: bool,
        /// Turns without a recognized call in this episode so far, this one included.
        turns_without_call: u32,
        /// Whether `--text-tool-calls` is on.
        text_tool_calls: bool,
        /// Seconds the model took for this turn.
        model_seconds: f64,
        /// Tokens of the episode so far.
        tokens: u64,
    },
    /// Anything else worth a line (a context-length retry, the model's endpoint failing, the
    /// token budget reached, the sandbox failing on the host).
    Note {
        /// The turn.
        step: u32,
        /// The line, in words.
        text: String,
    },
}

impl Report {
    /// The turn it is about.
    pub fn step(&self) -> u32 {
        match self {
            Report::Asking { step }
            | Report::Calling { step, .. }
            | Report::Called { step, .. }
            | Report::NoCall { step, .. }
            | Report::Note { step, .. } => *step,
        }
    }

    /// The line a person reads, e.g. `step 3: execute_bash: python3 solve.py (model 41.2 s)`.
    pub fn line(&self) -> String {
        match self {
            Report::Asking { step } => format!("step {step}: asking the model"),
            Report::Calling {
                step,
                tool,
                excerpt,
                model_seconds,
                ..
            } => {
                let what = if excerpt.is_empty() {
                    tool.clone()
                } else {
                    format!("{tool}: {excerpt}")
                };
                format!("step {step}: {what} (model {model_seconds:.1} s)")
            }
            Report::Called {
                step,
                outcome,
                seconds,
            } => format!("step {step}: {outcome} in {seconds:.2} s"),
            Report::NoCall {
                step,
                excerpt,
                model_seconds,
                ..
            } => format!(
                "step {step}: no tool call (model {model_seconds:.1} s); the model wrote: {}",
                quoted(&one_line(excerpt, EXCERPT_CHARS))
            ),
            Report::Note { step, text } => format!("step {step}: {text}"),
        }
    }

    /// For [`Report::NoCall`]: whether it is time to explain why no call was seen (a call
    /// written as text, or the second turn without one).
    pub fn wants_hint(&self) -> bool {
        matches!(self, Report::NoCall { written_call, turns_without_call, .. }
            if *written_call || *turns_without_call >= 2)
    }

    /// For [`Report::NoCall`]: why the model's tool calls are not seen and what to do, in a
    /// few lines (shown once per run).
    pub fn hint(&self) -> Option<String> {
        let Report::NoCall {
            step,
            excerpt,
            written_call,
            turns_without_call,
            text_tool_calls,
            ..
        } = self
        else {
            return None;
        };
        let turns = match turns_without_call {
            1 => "1 turn".to_string(),
            n => format!("{n} turns"),
        };
        let head = format!(
            "note: {turns} of this episode so far without a tool call (step {step}). The model wrote: {}",
            quoted(excerpt)
        );
        let why = match (*text_tool_calls, *written_call) {
            (false, true) => {
                "That looks like a tool call written as text: the server did not return it as \
                 a structured tool call (is its tool-call parser on? e.g. vLLM's \
                 --enable-auto-tool-choice --tool-call-parser NAME). --text-tool-calls runs such \
                 calls; without it each such turn gets the reference's \"You forgot to use a \
                 function call\" nudge, as the reference does."
            }
            (false, false) => {
                "That does not look like a tool call written as text either (none in \
                 <tool_call>...</tool_call>, a fenced JSON object or <function=...>), so \
                 --text-tool-calls would not find one. Each such turn gets the reference's \"You \
                 forgot to use a function call\" nudge, as the reference does."
            }
            (true, _) => {
                "No tool call was found in the server's tool calls or in the text \
                 (--text-tool-calls is on); each such turn gets the reference's \"You forgot to \
                 use a function call\" nudge."
            }
        };
        Some(format!("{head}\n  {why}"))
    }
}

impl StopReason {
    /// How the episode ended, as a phrase: `submitted after 4 steps`, `stopped after the step
    /// limit (8)`, `stopped at the token limit (65,536)`, ...
    pub fn phrase(&self, steps: u32, max_steps: u32, max_token_limit: u64) -> String {
        match self {
            StopReason::Submitted => format!(
                "submitted after {steps} step{}",
                if steps == 1 { "" } else { "s" }
            ),
            StopReason::MaxSteps => format!("stopped after the step limit ({max_steps})"),
            StopReason::TokenLimit => format!(
                "stopped at the token limit ({})",
                thousands(max_token_limit)
            ),
            StopReason::ContextLength => {
                "stopped: the conversation no longer fits the model's context".into()
            }
            StopReason::LlmError(e) => format!("stopped: the model's endpoint failed: {e}"),
            StopReason::HostError(e) => format!("stopped: the sandbox failed on the host: {e}"),
        }
    }
}

/// A stop reason's recorded name (`max_steps`, as in `results.jsonl`) as a short phrase for
/// people (`step limit`); unknown names as they are.
pub fn stop_words(name: &str) -> &str {
    match name {
        "submitted" => "submitted",
        "max_steps" => "step limit",
        "token_limit" => "token limit",
        "context_length" => "context full",
        "llm_error" => "model endpoint failed",
        "host_error" => "sandbox host failed",
        "" => "not run",
        other => other,
    }
}

/// `65536` as `65,536`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Text on one line (runs of white space as one space), cut to `n` characters with `...`.
pub fn one_line(s: &str, n: usize) -> String {
    let line = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if line.chars().count() > n {
        format!("{}...", line.chars().take(n).collect::<String>())
    } else {
        line
    }
}

/// `"text"`, or `(nothing)` for an empty reply.
fn quoted(excerpt: &str) -> String {
    if excerpt.is_empty() {
        "(nothing)".into()
    } else {
        format!("\"{excerpt}\"")
    }
}

/// What a call asks, in short: a command's text, the editor's `command path`, other tools'
/// arguments as JSON.
pub fn call_excerpt(tool: &str, arguments: &str) -> String {
    let args: Value = match serde_json::from_str(arguments) {
        Ok(v) => v,
        Err(_) => return one_line(arguments, EXCERPT_CHARS),
    };
    let field = |k: &str| args.get(k).map(py_str).unwrap_or_default();
    match tool {
        "execute_bash" => one_line(&field("command"), EXCERPT_CHARS),
        "str_replace_editor" => {
            let mut s = format!("{} {}", field("command"), field("path"));
            if let Some(r) = args.get("view_range").filter(|r| !r.is_null()) {
                s.push_str(&format!(" lines {}", py_repr(r)));
            }
            if let Some(l) = args.get("insert_line").filter(|l| !l.is_null()) {
                s.push_str(&format!(" after line {}", py_repr(l)));
            }
            one_line(s.trim(), EXCERPT_CHARS)
        }
        "submit" => String::new(),
        _ => match &args {
            Value::Object(o) if o.is_empty() => String::new(),
            other => one_line(&other.to_string(), EXCERPT_CHARS),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_words() {
        assert_eq!(
            StopReason::MaxSteps.phrase(8, 8, 65_536),
            "stopped after the step limit (8)"
        );
        assert_eq!(
            StopReason::TokenLimit.phrase(3, 8, 65_536),
            "stopped at the token limit (65,536)"
        );
        assert_eq!(
            StopReason::Submitted.phrase(1, 8, 1),
            "submitted after 1 step"
        );
        assert_eq!(thousands(1_234_567), "1,234,567");
        assert_eq!(thousands(12), "12");
        assert_eq!(
            call_excerpt(
                "execute_bash",
                r#"{"command": "cd /testbed &&\n  python3 a.py"}"#
            ),
            "cd /testbed && python3 a.py"
        );
        assert_eq!(
            call_excerpt(
                "str_replace_editor",
                r#"{"command": "insert", "path": "/testbed/a.py", "insert_line": ""}"#
            ),
            "insert /testbed/a.py after line ''"
        );
        let r = Report::Calling {
            step: 3,
            tool: "execute_bash".into(),
            excerpt: "ls".into(),
            model_seconds: 41.24,
            tokens: 10,
        };
        assert_eq!(r.line(), "step 3: execute_bash: ls (model 41.2 s)");
    }
}
