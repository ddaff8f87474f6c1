//! One LLM-in-Sandbox episode: the model gets a task, works in the sandbox through the three
//! tools, and ends by calling `submit`, or the episode stops at its step or token budget, or on
//! an LLM error it cannot survive. Everything is recorded as it happens.
//!
//! The conversation is the reference's (`Agent.run` in `llm_in_sandbox/agent.py`): before each
//! model call `\nSteps Remaining: N` is appended to the content of the last message, whatever
//! its role, and stays there; only the first tool call of a reply is run; a reply without one
//! gets [`NO_TOOL_CALL`] as a user message.

pub mod attempts;
pub mod budget;
mod context;
pub mod prompt;
mod reply;
pub mod report;
pub mod setup;
pub mod trajectory;

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::llm::{Client, LlmError, Message, ToolCall, Usage, tool_calls_in_content};
use crate::runtime::executor;
use crate::tools::{EDITOR_HEADER, NO_TOOL_CALL, ToolModes, ToolOutput, Toolbox, schemas};
pub use budget::{Budget, TokenCounter, count_characters, count_tokens};
pub use context::{
    MIN_MAX_TOKENS, context_retry_max_tokens, parse_context_error, steps_remaining_text,
};
pub use prompt::Prompts;
use reply::{assistant_message, calls_of, reasoning_of};
pub use report::Report;
use report::{EXCERPT_CHARS, TEXT_EXCERPT_CHARS, call_excerpt, one_line};
pub use setup::{EpisodeSpec, SandboxSettings, SetupError, setup};
use trajectory::{Action, Recorder, Step, StepMeta};

/// Where an episode may differ from the reference's agent. The default is the reference's
/// behaviour in every respect; each field is a named option of `run` and `benchmark`
/// (`--shell persistent`, `--editor improved`, `--text-tool-calls`, `--budget server-usage`),
/// recorded in `results.json`'s config and in each trajectory.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Deviations {
    /// The shell and the editor.
    #[serde(flatten)]
    pub tools: ToolModes,
    /// Run a tool call written in the reply's text (`<tool_call>{...}</tool_call>`, a bare
    /// JSON object) when the server did not parse it, and let a native call with no argument
    /// text stand for `{}`. Default `false`: the reference nudges such a turn as one without a
    /// call, and keeps a reply's further calls unanswered in the history where we keep only
    /// the one that ran.
    pub text_tool_calls: bool,
    /// How the token budget is counted.
    pub budget: Budget,
    /// A benchmark row whose model call failed (past retries, or refused) is an error row.
    /// Default `false`: as the reference, the episode ends there and its answer file is scored
    /// (the failure is kept as the row's warning).
    pub llm_error_rows: bool,
}

/// Settings of an episode.
#[derive(Debug, Clone)]
pub struct EpisodeSettings {
    /// Model turns before the episode stops. Default 100.
    pub max_steps: u32,
    /// Stop once a call's total tokens (the context in use) reach this. Default 65,536.
    pub max_token_limit: u64,
    /// `max_tokens` per call; `None` leaves it to the server. A context-length error fits it to
    /// the context the server names, or else halves it (not below 8,192), then ends the
    /// episode ([`context_retry_max_tokens`]).
    pub max_tokens: Option<u32>,
    /// Prompts, and the folders they name (input files, the answer file read at the end).
    pub prompts: Prompts,
    /// The `tools` array sent with every call. Default: our own definitions
    /// ([`crate::tools::schemas`]); the commands send the reference's, read from its package
    /// ([`crate::reference::Reference::tools`]).
    pub tools: Value,
    /// Where the episode differs from the reference's agent (nowhere by default).
    pub deviations: Deviations,
}

impl Default for EpisodeSettings {
    fn default() -> Self {
        Self {
            max_steps: 100,
            max_token_limit: 65_536,
            max_tokens: None,
            prompts: Prompts::default(),
            tools: schemas(),
            deviations: Deviations::default(),
        }
    }
}

/// Why an episode ended.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "reason", content = "detail", rename_all = "snake_case")]
#[non_exhaustive]
pub enum StopReason {
    /// The model called `submit`.
    Submitted,
    /// `max_steps` model turns were used.
    MaxSteps,
    /// The token budget was reached.
    TokenLimit,
    /// The conversation no longer fits the model's context.
    ContextLength,
    /// The LLM endpoint failed past retries or refused the request.
    LlmError(String),
    /// The host failed under a tool (not the model's doing); the episode could not go on.
    HostError(String),
}

/// The state of the conversation while an episode runs.
struct Turns {
    messages: Vec<Message>,
    tools: Value,
    usage: Usage,
    llm_time: Duration,
    tool_time: Duration,
    max_tokens: Option<u32>,
    step: u32,
    /// Turns without a recognized tool call.
    no_call: u32,
}

/// What an episode produced.
#[derive(Debug, Clone, serde::Serialize)]
pub struct EpisodeResult {
    /// Why it ended.
    pub stop: StopReason,
    /// The answer file's content, if it exists.
    pub answer: Option<String>,
    /// Model turns taken.
    pub steps: u32,
    /// Of those, turns without a tool call the episode recognized (each got the nudge).
    pub no_call_steps: u32,
    /// Tokens over all calls.
    pub usage: Usage,
    /// Seconds waiting for the model.
    pub llm_seconds: f64,
    /// Seconds running tools.
    pub tool_seconds: f64,
    /// Seconds in all.
    pub total_seconds: f64,
    /// Why `events.jsonl` / `trajectory.json` may be incomplete (a write failed), if so.
    pub record_error: Option<String>,
    /// What `pip install` put into the episode's sandbox (name, version, wheel SHA-256), in
    /// install order; also the `installed` list of `trajectory.json`.
    pub installed: Vec<crate::packages::Locked>,
}

/// Receives what the episode does as it happens (`on_progress`).
pub type Progress = Box<dyn Fn(&Report) + Send + Sync>;

/// Run one episode.
pub struct Episode {
    client: Client,
    tools: Toolbox,
    settings: EpisodeSettings,
    recorder: Recorder,
    progress: Option<Progress>,
}

impl std::fmt::Debug for Episode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Episode")
            .field("settings", &self.settings)
            .finish_non_exhaustive()
    }
}

impl Episode {
    /// An episode with these parts.
    pub fn new(
        client: Client,
        tools: Toolbox,
        settings: EpisodeSettings,
        recorder: Recorder,
    ) -> Self {
        Episode {
            client,
            tools,
            settings,
            recorder,
            progress: None,
        }
    }

    /// The recorder writing this episode's trajectory.
    pub fn recorder(&self) -> &Recorder {
        &self.recorder
    }

    /// The sandbox the tools work in.
    pub fn sandbox(&self) -> &std::sync::Arc<crate::sandbox::Sandbox> {
        self.tools.shell().sandbox()
    }

    /// The settings.
    pub fn settings(&self) -> &EpisodeSettings {
        &self.settings
    }

    /// Receive a [`Report`] of each thing the episode does, as it happens (the model asked,
    /// a tool called and its outcome, a turn without a call, a retry or a failure).
    pub fn on_progress(mut self, f: Progress) -> Self {
        self.progress = Some(f);
        self
    }

    fn say(&self, report: Report) {
        if let Some(p) = &self.progress {
            p(&report);
        }
    }

    fn note(&self, step: u32, text: String) {
        self.say(Report::Note { step, text });
    }

    /// Run the episode on `problem_statement` to its end.
    pub async fn run(mut self, problem_statement: &str) -> EpisodeResult {
        let started = Instant::now();
        let mut state = Turns {
            messages: vec![
                Message::text("system", self.settings.prompts.system()),
                Message::text("user", self.settings.prompts.instance(problem_statement)),
            ],
            tools: self.settings.tools.clone(),
            usage: Usage::default(),
            llm_time: Duration::ZERO,
            tool_time: Duration::ZERO,
            max_tokens: self.settings.max_tokens,
            step: 0,
            no_call: 0,
        };
        let budget = self.settings.deviations.budget;
        let mut counter = TokenCounter::default();
        let stop = loop {
            if state.step >= self.settings.max_steps {
                break StopReason::MaxSteps;
            }
            let remaining = steps_remaining_text(self.settings.max_steps - state.step);
            if let Some(last) = state.messages.last_mut() {
                let content = last.content.get_or_insert_with(String::new);
                content.push('\n');
                content.push_str(&remaining);
            }
            // The reference counts the conversation before each call and stops past the limit.
            if let Some(counted) = budget.before_call(&state.messages, &mut counter)
                && counted > self.settings.max_token_limit
            {
                self.recorder.event(json!({"type": "budget", "step": state.step + 1, "tokens": counted, "limit": self.settings.max_token_limit}));
                self.note(
                    state.step + 1,
                    format!(
                        "the conversation has {} tokens, over the token limit ({}); stopping",
                        report::thousands(counted),
                        report::thousands(self.settings.max_token_limit)
                    ),
                );
                break StopReason::TokenLimit;
            }
            state.step += 1;
            // As the reference: a context-length retry shrinks `max_tokens` for this call only.
            state.max_tokens = self.settings.max_tokens;
            let asked = loop {
                match self.ask(&mut state).await {
                    Ok(Some(reply)) => break Ok(reply),
                    Ok(None) => {} // asked again with a smaller max_tokens
                    Err(stop) => break Err(stop),
                }
            };
            let (msg, total_tokens, turn_time) = match asked {
                Ok(reply) => reply,
                Err(stop) => {
                    // The turn was not taken.
                    state.step -= 1;
                    break stop;
                }
            };
            match self.act(&mut state, msg, turn_time).await {
                Ok(true) => break StopReason::Submitted,
                Ok(false) => {}
                Err(stop) => break stop,
            }
            if budget == Budget::ServerUsage && total_tokens >= self.settings.max_token_limit {
                break StopReason::TokenLimit;
            }
        };
        self.finish(stop, state, started).await
    }

    /// One model call. `Ok(None)`: the context was too long and `max_tokens` was shrunk, so
    /// the same messages are to be sent again.
    async fn ask(
        &mut self,
        st: &mut Turns,
    ) -> Result<Option<(Message, u64, Duration)>, StopReason> {
        let step = st.step;
        self.recorder.event(json!({"type": "request", "step": step, "messages": st.messages.len(), "max_tokens": st.max_tokens}));
        self.say(Report::Asking { step });
        let t = Instant::now();
        let reply = self
            .client
            .chat(&st.messages, Some(&st.tools), st.max_tokens)
            .await;
        let turn_time = t.elapsed();
        st.llm_time += turn_time;
        let reply = match reply {
            Ok(r) => r,
            Err(LlmError::ContextLength(msg)) => {
                self.recorder.event(json!({"type": "error", "step": step, "error": format!("context length: {msg}")}));
                if let Some(smaller) = context_retry_max_tokens(&msg, st.max_tokens) {
                    st.max_tokens = Some(smaller);
                    self.note(
                        step,
                        format!(
                            "the conversation is too long for the model's context; asking again with max_tokens={smaller}"
                        ),
                    );
                    return Ok(None);
                }
                return Err(StopReason::ContextLength);
            }
            Err(e) => {
                self.recorder
                    .event(json!({"type": "error", "step": step, "error": e.to_string()}));
                self.note(step, format!("the model's endpoint failed: {e}"));
                return Err(StopReason::LlmError(e.to_string()));
            }
        };
        st.usage.prompt_tokens += reply.usage.prompt_tokens;
        st.usage.completion_tokens += reply.usage.completion_tokens;
        st.usage.total_tokens += reply.usage.total_tokens;
        self.recorder.event(json!({
            "type": "response", "step": step, "content": reply.message.content,
            "reasoning": reply.message.reasoning, "tool_calls": reply.message.tool_calls,
            "usage": reply.usage, "finish_reason": reply.finish_reason,
            "attempts": reply.attempts, "llm_time": turn_time.as_secs_f64(),
        }));
        Ok(Some((reply.message, reply.usage.total_tokens, turn_time)))
    }

    /// Run the reply's first tool call and answer it. As the reference: the assistant message
    /// keeps every call the model made (only the first is answered); a reply without a call,
    /// or whose first call's arguments are not JSON, gets [`NO_TOOL_CALL`] as a user message
    /// and is a step of its own. With [`Deviations::text_tool_calls`]: a call written in the
    /// text runs too, and only the call that ran is kept. `Ok(true)`: submitted.
    async fn act(
        &mut self,
        st: &mut Turns,
        msg: Message,
        turn_time: Duration,
    ) -> Result<bool, StopReason> {
        let step = st.step;
        let thought = msg.content.clone().unwrap_or_default();
        let reasoning = reasoning_of(&msg);
        let ours = self.settings.deviations.text_tool_calls;
        let native = !msg.tool_calls.is_empty();
        let (calls, call) = calls_of(&msg, step, ours, &thought);
        st.messages
            .push(assistant_message(&msg, native, ours, calls, call.as_ref()));
        // The reference reads a call whose arguments do not parse as no call at all.
        let (call, unparsed) = match call {
            Some(c) if !ours && serde_json::from_str::<Value>(&c.function.arguments).is_err() => {
                (None, Some(c))
            }
            c => (c, None),
        };
        let Some(call) = call else {
            let excerpt = no_call_excerpt(&thought, &reasoning, unparsed.as_ref());
            self.answer_no_call(st, thought, reasoning, turn_time, excerpt);
            return Ok(false);
        };
        self.say(Report::Calling {
            step,
            tool: call.function.name.clone(),
            excerpt: call_excerpt(&call.function.name, &call.function.arguments),
            model_seconds: turn_time.as_secs_f64(),
            tokens: st.usage.total_tokens,
        });
        let out = self.run_tool(step, &call).await?;
        st.tool_time += out.duration;
        self.answer_call(st, native, &call, &out);
        let action = Action {
            function: call.function.name.clone(),
            parameters: serde_json::from_str(&call.function.arguments)
                .unwrap_or_else(|_| Value::String(call.function.arguments.clone())),
        };
        let tool = Some((out.duration, out.exit_code));
        self.record_step(
            step,
            thought,
            reasoning,
            action,
            out.observation,
            turn_time,
            tool,
        );
        Ok(out.submitted)
    }

    /// A reply without a tool call (or with one whose arguments are not JSON): [`NO_TOOL_CALL`]
    /// as a user message, and a step with no action.
    fn answer_no_call(
        &mut self,
        st: &mut Turns,
        thought: String,
        reasoning: String,
        turn_time: Duration,
        excerpt: String,
    ) {
        let step = st.step;
        st.no_call += 1;
        let text_tool_calls = self.settings.deviations.text_tool_calls;
        self.say(Report::NoCall {
            step,
            excerpt,
            written_call: !text_tool_calls && !tool_calls_in_content(&thought).is_empty(),
            turns_without_call: st.no_call,
            text_tool_calls,
            model_seconds: turn_time.as_secs_f64(),
            tokens: st.usage.total_tokens,
        });
        st.messages.push(Message::text("user", NO_TOOL_CALL));
        let action = Action {
            function: String::new(),
            parameters: json!({}),
        };
        self.record_step(
            step,
            thought,
            reasoning,
            action,
            NO_TOOL_CALL.into(),
            turn_time,
            None,
        );
    }

    /// Run `call`. A tool's own failure is its output; a host fault ends the episode.
    async fn run_tool(&mut self, step: u32, call: &ToolCall) -> Result<ToolOutput, StopReason> {
        match self
            .tools
            .call(&call.function.name, &call.function.arguments)
            .await
        {
            Ok(o) => Ok(o),
            Err(fault) => {
                let why = fault.to_string();
                self.recorder.event(
                    json!({"type": "error", "step": step, "error": format!("host fault: {why}")}),
                );
                self.note(step, format!("the sandbox failed on the host: {why}"));
                Err(StopReason::HostError(why))
            }
        }
    }

    /// The tool's observation back to the model (a `tool` message answers a native call, a
    /// user message one written in the text), and the step's progress line.
    fn answer_call(&mut self, st: &mut Turns, native: bool, call: &ToolCall, out: &ToolOutput) {
        let step = st.step;
        if native {
            st.messages
                .push(Message::tool(&call.id, out.observation.clone()));
        } else {
            st.messages.push(Message::text(
                "user",
                format!("Observation ({}):\n{}", call.function.name, out.observation),
            ));
        }
        if !out.submitted {
            self.say(Report::Called {
                step,
                outcome: outcome(out),
                seconds: out.duration.as_secs_f64(),
            });
        }
    }

    /// Write one step to the trajectory; `tool` is the tool's time and exit code when a tool
    /// ran.
    #[allow(clippy::too_many_arguments)]
    fn record_step(
        &mut self,
        step: u32,
        thought: String,
        reasoning: String,
        action: Action,
        observation: String,
        turn_time: Duration,
        tool: Option<(Duration, Option<i32>)>,
    ) {
        self.recorder.step(Step {
            thought,
            reasoning_content: reasoning,
            action,
            observation,
            metadata: StepMeta {
                step,
                exec_time: turn_time.as_secs_f64(),
                llm_time: turn_time.as_secs_f64(),
                tool_time: tool.map_or(0.0, |(d, _)| d.as_secs_f64()),
                exit_code: tool.and_then(|(_, c)| c),
            },
        });
    }

    async fn finish(self, stop: StopReason, st: Turns, started: Instant) -> EpisodeResult {
        let answer = self.read_answer().await;
        let mut result = EpisodeResult {
            stop,
            answer,
            steps: st.step,
            no_call_steps: st.no_call,
            usage: st.usage,
            llm_seconds: st.llm_time.as_secs_f64(),
            tool_seconds: st.tool_time.as_secs_f64(),
            total_seconds: started.elapsed().as_secs_f64(),
            record_error: None,
            installed: self.tools.shell().sandbox().installed(),
        };
        let installed: Vec<Value> = result
            .installed
            .iter()
            .map(|p| json!({"name": p.name, "version": p.version, "sha256": p.sha256}))
            .collect();
        let summary = json!({
            "status": "finished",
            "stop": result.stop,
            "answer": result.answer,
            "num_steps": result.steps,
            "turns_without_tool_call": result.no_call_steps,
            "usage": result.usage,
            "llm_seconds": result.llm_seconds,
            "tool_seconds": result.tool_seconds,
            "total_seconds": result.total_seconds,
            "installed": installed,
            "settings": self.settings.deviations,
            "metadata": {"total_steps": result.steps},
        });
        if let Err(e) = self.recorder.finish(summary).await {
            let why = format!("the trajectory is incomplete: {e}");
            self.note(st.step, format!("warning: {why}"));
            result.record_error = Some(why);
        }
        // Removing the sandbox's folders is file work: not on the caller's threads.
        let tools = self.tools;
        let _ = executor::blocking(move || drop(tools)).await;
        result
    }

    async fn read_answer(&self) -> Option<String> {
        let rel = self
            .settings
            .prompts
            .answer_file
            .strip_prefix(crate::sandbox::GUEST_WORKSPACE)?
            .trim_start_matches('/')
            .to_string();
        let sandbox = self.tools.shell().sandbox().clone();
        executor::blocking(move || sandbox.workspace().read_to_string(&rel).ok())
            .await
            .ok()
            .flatten()
    }
}

/// A tool's outcome in words: `exit 0`, `done`, or `refused: ` and the start of its message.
fn outcome(out: &ToolOutput) -> String {
    if out.error {
        let text = out
            .observation
            .strip_prefix(EDITOR_HEADER)
            .unwrap_or(&out.observation);
        let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
        return format!("refused: {}", one_line(first, EXCERPT_CHARS));
    }
    match out.exit_code {
        Some(c) => format!("exit {c}"),
        None => "done".into(),
    }
}

/// What a turn without a recognized call said, in short: its text (or its reasoning when it
/// wrote none), or the call whose arguments were not JSON.
fn no_call_excerpt(thought: &str, reasoning: &str, unparsed: Option<&ToolCall>) -> String {
    if let Some(c) = unparsed {
        return one_line(
            &format!(
                "a call of {} whose arguments are not JSON: {}",
                c.function.name, c.function.arguments
            ),
            TEXT_EXCERPT_CHARS,
        );
    }
    if thought.trim().is_empty() && !reasoning.trim().is_empty() {
        return one_line(&format!("(only reasoning) {reasoning}"), TEXT_EXCERPT_CHARS);
    }
    one_line(thought, TEXT_EXCERPT_CHARS)
}
