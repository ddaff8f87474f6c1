//! Plain-LLM mode: the documents pasted into one prompt, one chat completion, no tools.

use std::time::Instant;

use super::Shared;
use crate::eval::dataset::{Row, TaskSpec};
use crate::eval::report::RowResult;
use crate::eval::score::extract;
use crate::eval::spec::{RewardScript, Scorer};
use crate::llm::{Client, Message};

const LLM_INSTRUCTION: &str = "Solve the task below. Think it through, then give the final \
answer on the last line as `Answer: <answer>` (for math, \\boxed{<answer>} also works).";

/// The plain-LLM prompt: instruction, documents between markers, then the task.
pub fn llm_prompt(task: &TaskSpec, row: &Row) -> String {
    let mut out = task
        .llm_prompt
        .clone()
        .unwrap_or_else(|| LLM_INSTRUCTION.to_string());
    out.push_str("\n\n");
    for (i, (name, content)) in row.input_files.iter().enumerate() {
        let i = i + 1;
        out.push_str(&format!(
            "BEGIN DOCUMENT {i} ({name})\n{content}\nEND DOCUMENT {i}\n\n"
        ));
    }
    out.push_str("Task:\n");
    out.push_str(&row.problem_statement);
    out
}

pub(super) async fn plain_llm(
    shared: &Shared,
    client: Client,
    row: &Row,
    result: &mut RowResult,
    console: &std::sync::Mutex<String>,
) -> Result<Option<String>, String> {
    let (task, settings) = (&shared.task, &shared.settings);
    let prompt = match &task.llm_prompt_py {
        Some(source) => {
            let script = RewardScript {
                source: source.clone(),
                path: task.dir.as_ref().map(|d| d.join("vanilla_llm_prompt.py")),
                host: matches!(&task.scorer, Scorer::Reward(r) if r.host),
                requirements: task.requirements.clone(),
                modules: match &task.scorer {
                    Scorer::Reward(r) => r.modules.clone(),
                    _ => Vec::new(),
                },
            };
            crate::eval::score::create_prompt(&script, row, &shared.runtime).await?
        }
        None => llm_prompt(task, row),
    };
    let t = Instant::now();
    let messages = [Message::text("user", prompt.clone())];
    let mut max_tokens = settings.max_response_len.or(settings.episode.max_tokens);
    // As the reference: a context-length error fits max_tokens to the context the server
    // names (or halves it), not below 8,192.
    let reply = loop {
        match client.chat(&messages, None, max_tokens).await {
            Err(crate::llm::LlmError::ContextLength(msg)) => {
                match crate::agent::context_retry_max_tokens(&msg, max_tokens) {
                    Some(m) => max_tokens = Some(m),
                    None => break Err(crate::llm::LlmError::ContextLength(msg)),
                }
            }
            other => break other,
        }
    };
    result.llm_seconds = t.elapsed().as_secs_f64();
    let reply = reply.map_err(|e| format!("LLM error: {e}"))?;
    result.stop = "answered".into();
    result.steps = 1;
    result.tokens = reply.usage.total_tokens;
    let content = reply.message.content.unwrap_or_default();
    if let Ok(mut c) = console.lock() {
        c.push_str(&format!("Query:\n{prompt}\n\nResponse:\n{content}\n"));
    }
    // With the task's own prompt (and reward.py) the whole reply is the answer, as in the
    // reference; with ours, the part after `Answer:` or in the last \boxed{}.
    Ok(Some(
        if task.llm_prompt_py.is_some() || matches!(task.scorer, Scorer::Reward(_)) {
            content
        } else {
            extract(&content)
        },
    ))
}
