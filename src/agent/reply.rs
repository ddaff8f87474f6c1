//! The model's reply as the episode reads it: the tool calls to keep and the one to run, the
//! reasoning text, and the assistant message the conversation keeps.

use serde_json::Value;

use crate::llm::{Message, ToolCall, tool_calls_in_content};

/// The reply as the conversation keeps it. As the reference: every call the model made (only
/// the first is answered); with [`Deviations::text_tool_calls`](super::Deviations::text_tool_calls), only the call that runs; a
/// call written in the text is not a native call and is not kept.
pub(super) fn assistant_message(
    msg: &Message,
    native: bool,
    ours: bool,
    calls: Vec<ToolCall>,
    call: Option<&ToolCall>,
) -> Message {
    Message {
        role: "assistant".into(),
        content: msg.content.clone(),
        tool_calls: match (native, ours) {
            (false, _) => Vec::new(),
            (true, true) => call.into_iter().cloned().collect(),
            (true, false) => calls,
        },
        tool_call_id: None,
        reasoning: msg.reasoning.clone(),
        provider_fields: msg.provider_fields.clone(),
    }
}

/// The reply's reasoning text: the server's (`reasoning_content`, vLLM's `reasoning`), else a
/// `thinking` field (the one the reference itself records).
pub(super) fn reasoning_of(msg: &Message) -> String {
    msg.reasoning
        .clone()
        .or_else(|| {
            msg.provider_fields
                .as_ref()
                .and_then(|f| f.get("thinking"))
                .and_then(Value::as_str)
                .map(str::to_string)
        })
        .unwrap_or_default()
}

/// The reply's native tool calls (ids filled in where the server left them empty) and the one
/// to run: the first native call, or with text tool calls (`ours`) the first call written in
/// `thought`.
pub(super) fn calls_of(
    msg: &Message,
    step: u32,
    ours: bool,
    thought: &str,
) -> (Vec<ToolCall>, Option<ToolCall>) {
    let with_id = |(i, mut c): (usize, ToolCall)| {
        if c.id.is_empty() {
            c.id = format!("call_{step}_{i}");
        }
        c
    };
    let calls: Vec<ToolCall> = msg
        .tool_calls
        .iter()
        .cloned()
        .enumerate()
        .map(with_id)
        .collect();
    let mut call = calls.first().cloned();
    if call.is_none() && ours {
        call = tool_calls_in_content(thought)
            .into_iter()
            .next()
            .map(|c| with_id((0, c)));
    }
    (calls, call)
}
