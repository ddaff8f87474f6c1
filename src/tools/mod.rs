//! The tool contract of the reference system: `execute_bash`, `str_replace_editor`, `submit`,
//! with the same names and argument schemas, so prompts and fine-tuned models carry over. The
//! observations are the reference's texts (`llm_in_sandbox/agent.py` `_execute_action`,
//! `observation.py`): `Execution output of \[...]:` headers, `<<< Finished >>>`,
//! `Unknown action: NAME`, and [`NO_TOOL_CALL`] for arguments that are not a JSON object.
//! Anything wrong with a call becomes an observation ([`ToolOutput`]); arguments the model
//! invents beyond a tool's schema are ignored, and arguments of the wrong kind get what the
//! reference's own code answers (its texts, or the Python exception it raises: `pyvalue`),
//! never a parser's message. Only a failure of the host under a tool ([`ToolFault`]) ends the
//! episode, besides `submit`.

pub mod editor;
pub(crate) mod pyvalue;

use std::time::{Duration, Instant};

use serde_json::{Map, Value, json};

use crate::runtime::executor;
use crate::shell::{ObservationFormat, Shell, observation};
pub use editor::EditorMode;
use editor::{Editor, Refusal};

/// How `execute_bash` runs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ShellMode {
    /// The reference's (the default): each call is a fresh shell in `/testbed` (`cd`,
    /// variables and functions do not carry over; files do), and a command that exits 124 by
    /// itself (the model's own `timeout 10 ...`) is shown as the per-call timeout, output
    /// dropped, as the reference's `timeout 120 bash -c` cannot tell them apart.
    #[default]
    Reference,
    /// Ours (`--shell persistent`): one shell for the episode, whose state carries over from
    /// call to call; exit code 124 is shown as what it is.
    Persistent,
}

/// Which tools an episode's model gets.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct ToolModes {
    /// How `execute_bash` runs.
    pub shell: ShellMode,
    /// Which `str_replace_editor`.
    pub editor: EditorMode,
}

/// The reference's tool definitions `tools` with the improved editor's `undo_edit` added to
/// the editor's `command` (its `enum` and the list in its description); other tools as given.
pub fn with_undo_edit(tools: &Value) -> Value {
    let mut tools = tools.clone();
    for t in tools.as_array_mut().into_iter().flatten() {
        if t["function"]["name"] != "str_replace_editor" {
            continue;
        }
        let command = &mut t["function"]["parameters"]["properties"]["command"];
        if let Some(list) = command["enum"].as_array_mut()
            && !list.iter().any(|c| c == "undo_edit")
        {
            list.push(json!("undo_edit"));
        }
        if let Some(d) = command["description"].as_str() {
            let d = d.replace("`insert`.", "`insert`, `undo_edit`.");
            command["description"] = json!(d);
        }
    }
    tools
}

/// The `tools` array sent with every request.
pub fn schemas() -> Value {
    json!([
        {
            "type": "function",
            "function": {
                "name": "execute_bash",
                "description": "Run a bash command in the sandbox (working directory /testbed). \
                    State such as the current directory, variables and functions carries over \
                    between calls. python3 is available with numpy, scipy, sympy, pandas, \
                    matplotlib, scikit-learn and more; there is no network and nothing can be \
                    installed. Long output is cut to its first and last 40 lines.",
                "parameters": {
                    "type": "object",
                    "properties": {
                        "command": {
                            "type": "string",
                            "description": "The bash command or script to run."
                        }
                    },
                    "required": ["command"]
                }
            }
        },
        {
            "type": "function",
            "function": {
                "name": "str_replace_editor",
                "description": "View, create and edit text files. `view` shows a file with \
                    line numbers (optionally `view_range` [start, end], end -1 = to the end) or \
                    lists a directory two levels deep. `create` writes a new file (never \
                    overwrites). `str_replace` replaces `old_str`, which must occur exactly \
                    once, with `new_str`. `insert` puts `new_str` after line `insert_line` \
                    (0 = at the top). `undo_edit` reverts the last edit of `path`. Paths are \
                    absolute, e.g. /testbed/solution.py.",
                "parameters": {
                    "type": "object",
                    "properties": {
                        "command": {
                            "type": "string",
                            "enum": ["view", "create", "str_replace", "insert", "undo_edit"],
                            "description": "The operation."
                        },
                        "path": {"type": "string", "description": "Absolute path of the file or directory."},
                        "file_text": {"type": "string", "description": "Content of the new file (create)."},
                        "old_str": {"type": "string", "description": "Exact text to replace (str_replace)."},
                        "new_str": {"type": "string", "description": "Replacement (str_replace) or text to insert (insert)."},
                        "insert_line": {"type": "integer", "description": "Insert after this line (insert)."},
                        "view_range": {
                            "type": "array",
                            "items": {"type": "integer"},
                            "description": "Lines [start, end] to view; end -1 means to the end (view)."
                        }
                    },
                    "required": ["command", "path"]
                }
            }
        },
        {
            "type": "function",
            "function": {
                "name": "submit",
                "description": "Finish the task. Call it once the answer has been written to \
                    the answer file.",
                "parameters": {"type": "object", "properties": {}, "required": []}
            }
        }
    ])
}

/// The reference's user message for a reply without a usable tool call (its `CONTINUE_MSG`,
/// `llm_in_sandbox/observation.py`), also its answer to arguments that are not a JSON object.
pub const NO_TOOL_CALL: &str = "\nYou forgot to use a function call in your response. \nYOU MUST USE A FUNCTION CALL IN EACH RESPONSE.\n\nIMPORTANT: YOU SHOULD NEVER ASK FOR HUMAN HELP.\n";

/// What `submit` answers.
pub const FINISHED: &str = "<<< Finished >>>";

/// The header of every editor observation.
pub const EDITOR_HEADER: &str = "Execution output of \\[str_replace_editor]:\n";

/// What a tool call produced.
#[derive(Debug, Clone)]
pub struct ToolOutput {
    /// The text the model sees.
    pub observation: String,
    /// Whether this was `submit` (the episode ends).
    pub submitted: bool,
    /// Exit code, for `execute_bash`.
    pub exit_code: Option<i32>,
    /// Whether the call was refused (bad arguments, unknown tool, editor error).
    pub error: bool,
    /// Time spent running it.
    pub duration: Duration,
}

impl ToolOutput {
    /// What `submit` answers: `<<< Finished >>>`, and the episode ends.
    fn finished(started: Instant) -> Self {
        ToolOutput {
            observation: FINISHED.into(),
            submitted: true,
            exit_code: None,
            error: false,
            duration: started.elapsed(),
        }
    }

    fn text(observation: String, error: bool, started: Instant) -> Self {
        ToolOutput {
            observation,
            submitted: false,
            exit_code: None,
            error,
            duration: started.elapsed(),
        }
    }
}

/// A tool call the episode cannot survive: the host failed under it (no Python instance could
/// be had, a panic in our code). Never shown to the model as its own error.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ToolFault {
    /// The sandbox failed on the host side.
    #[error("{0}")]
    Host(String),
}

/// The tools of one episode, over its shell (and through it, its sandbox).
#[derive(Debug)]
pub struct Toolbox {
    shell: Shell,
    /// `None` only while an edit runs on the sandbox threads (or after one panicked).
    editor: Option<Editor>,
    format: ObservationFormat,
}

impl Toolbox {
    /// Our tools over this shell: the improved editor, state carried over between calls, exit
    /// code 124 shown as itself (the server's sessions).
    pub fn new(shell: Shell) -> Self {
        Self::with_modes(
            shell,
            ToolModes {
                shell: ShellMode::Persistent,
                editor: EditorMode::Improved,
            },
        )
    }

    /// Tools of these kinds over this shell.
    pub fn with_modes(mut shell: Shell, modes: ToolModes) -> Self {
        let reference_shell = modes.shell == ShellMode::Reference;
        shell.set_fresh_per_call(reference_shell);
        Toolbox {
            shell,
            editor: Some(Editor::new(modes.editor)),
            format: ObservationFormat {
                exit_124_is_timeout: reference_shell,
                ..ObservationFormat::default()
            },
        }
    }

    /// The shell.
    pub fn shell(&self) -> &Shell {
        &self.shell
    }

    /// The shell, to run commands outside the tool contract (the server's session `exec`).
    pub fn shell_mut(&mut self) -> &mut Shell {
        &mut self.shell
    }

    /// Run one call; `arguments` is the JSON text the model produced. Whatever is wrong with
    /// the call itself is an observation.
    ///
    /// # Errors
    /// [`ToolFault`] when the host failed under the tool: end the episode.
    pub async fn call(&mut self, name: &str, arguments: &str) -> Result<ToolOutput, ToolFault> {
        let started = Instant::now();
        // No arguments at all stand for `{}` (some servers send "" for `submit`); text that
        // is not JSON gets the reference's nudge, as its parse does.
        let args: Value = if arguments.trim().is_empty() {
            json!({})
        } else {
            match serde_json::from_str::<Value>(arguments) {
                Ok(v) => v,
                _ => return Ok(ToolOutput::text(NO_TOOL_CALL.into(), true, started)),
            }
        };
        let Value::Object(args) = args else {
            return Ok(not_an_object(name, started));
        };
        Ok(match name {
            // As the reference: `params.get("command", "")`; a falsy one is no command, and
            // one that is not a string fails in its `shlex.quote`.
            "execute_bash" => match args.get("command") {
                Some(Value::String(c)) if !c.is_empty() => {
                    let r = self
                        .shell
                        .exec(c)
                        .await
                        .map_err(|e| ToolFault::Host(e.to_string()))?;
                    ToolOutput {
                        observation: observation(&r, &self.format),
                        submitted: false,
                        exit_code: Some(r.exit_code),
                        error: false,
                        duration: started.elapsed(),
                    }
                }
                Some(v) if pyvalue::truthy(v) => {
                    ToolOutput::text(pyvalue::PyError::not_a_string(v).to_string(), true, started)
                }
                _ => ToolOutput::text("Error: No command provided.".into(), true, started),
            },
            "str_replace_editor" => match self.edit(args).await? {
                Ok(text) => ToolOutput::text(format!("{EDITOR_HEADER}{text}"), false, started),
                Err(Refusal::Text(text)) => {
                    ToolOutput::text(format!("{EDITOR_HEADER}{text}"), true, started)
                }
                Err(Refusal::Raised(text)) => ToolOutput::text(text, true, started),
            },
            "submit" => ToolOutput::finished(started),
            other => ToolOutput::text(format!("Unknown action: {other}"), true, started),
        })
    }

    /// File work runs on the sandbox's blocking threads, not on the caller's.
    async fn edit(
        &mut self,
        args: Map<String, Value>,
    ) -> Result<Result<String, Refusal>, ToolFault> {
        let mut editor = self
            .editor
            .take()
            .ok_or_else(|| ToolFault::Host("the editor was lost by an earlier failure".into()))?;
        let sandbox = self.shell.sandbox().clone();
        let (editor, out) = executor::blocking(move || {
            let out = editor.run(&sandbox, &args);
            (editor, out)
        })
        .await
        .map_err(|e| ToolFault::Host(e.to_string()))?;
        self.editor = Some(editor);
        Ok(out)
    }
}

/// The reference's answer to arguments that are JSON but not an object (`[1]`, `"ls"`): the
/// tool's header with no output (its observation of an empty result); `submit` still ends.
fn not_an_object(name: &str, started: Instant) -> ToolOutput {
    match name {
        "submit" => ToolOutput::finished(started),
        "execute_bash" => ToolOutput::text(
            "Exit code: 0\nExecution output of \\[execute_bash]:\n".into(),
            true,
            started,
        ),
        other => ToolOutput::text(format!("Execution output of \\[{other}]:\n"), true, started),
    }
}
