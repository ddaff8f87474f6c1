//! The token budget (`max_token_limit`), counted as the reference counts it by default: before
//! each model call, over the messages about to be sent, the episode stops once the count is
//! above the limit. The reference counts with litellm's `token_counter`, which for a model it
//! does not know (any local one) uses tiktoken's `cl100k_base`: 3 tokens for the reply, then
//! per message 3 plus the tokens of every text field (`role`, `content`, `tool_call_id`,
//! `reasoning_content`; of a tool call only its `arguments`), each text encoded in chunks of
//! 1,024 characters with special tokens read as plain text. [`Budget::Characters`] is the
//! reference's fallback when litellm cannot count (a quarter of the characters of each
//! message's content); `--budget server-usage` counts instead what the server reports after
//! each call (`usage.total_tokens`, reasoning included).

use crate::llm::Message;

/// How the token budget is counted.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Budget {
    /// Before each call, over the messages, as litellm counts ([`count_tokens`]); stop when
    /// above the limit.
    #[default]
    Reference,
    /// Before each call, a quarter of the characters of the messages' contents
    /// ([`count_characters`]): the reference's own estimate when litellm cannot count.
    Characters,
    /// After each call, the server's `usage.total_tokens`; stop when it reaches the limit.
    ServerUsage,
}

impl Budget {
    /// The count before a call, for the kinds counted then (`counter` keeps what was already
    /// counted of the conversation).
    pub fn before_call(self, messages: &[Message], counter: &mut TokenCounter) -> Option<u64> {
        match self {
            Budget::Reference => Some(counter.count(messages)),
            Budget::Characters => Some(count_characters(messages)),
            Budget::ServerUsage => None,
        }
    }
}

/// litellm's chunk size: each text is encoded in pieces of this many characters.
const CHUNK_CHARS: usize = 1024;

/// Tokens of one text as litellm counts them (cl100k_base, plain text, 1,024-character chunks).
fn text_tokens(text: &str) -> u64 {
    let bpe = tiktoken_rs::cl100k_base_singleton();
    let mut total = 0u64;
    let mut rest = text;
    while !rest.is_empty() {
        let end = rest
            .char_indices()
            .nth(CHUNK_CHARS)
            .map_or(rest.len(), |(i, _)| i);
        total += bpe.encode_ordinary(&rest[..end]).len() as u64;
        rest = &rest[end..];
    }
    total
}

/// The conversation's size in tokens as the reference's litellm counts it for a model it does
/// not know (see the module's documentation).
pub fn count_tokens(messages: &[Message]) -> u64 {
    3 + messages.iter().map(message_tokens).sum::<u64>()
}

/// One message's share of [`count_tokens`].
fn message_tokens(m: &Message) -> u64 {
    let mut total = 3 + text_tokens(&m.role);
    for text in [&m.content, &m.tool_call_id, &m.reasoning]
        .into_iter()
        .flatten()
    {
        total += text_tokens(text);
    }
    for call in &m.tool_calls {
        total += text_tokens(&call.function.arguments);
    }
    total
}

/// [`count_tokens`] over a conversation that only grows at its end, without encoding again
/// what was already counted: every message but the last is kept from the previous count (the
/// loop only ever changes the last one, by appending `Steps Remaining`).
#[derive(Debug, Default)]
pub struct TokenCounter {
    counted: Vec<u64>,
}

impl TokenCounter {
    /// The count of `messages`, as [`count_tokens`] gives it.
    pub fn count(&mut self, messages: &[Message]) -> u64 {
        self.counted.truncate(messages.len().saturating_sub(1));
        for m in &messages[self.counted.len()..] {
            self.counted.push(message_tokens(m));
        }
        3 + self.counted.iter().sum::<u64>()
    }
}

/// The reference's fallback estimate: the characters of each message's content (none for an
/// assistant message without text, whose `content` key litellm leaves out), summed, divided by
/// four.
pub fn count_characters(messages: &[Message]) -> u64 {
    let chars: usize = messages
        .iter()
        .map(|m| m.content.as_deref().map_or(0, |c| c.chars().count()))
        .sum();
    (chars / 4) as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::{FunctionCall, ToolCall};

    #[test]
    fn counts_a_quarter_of_the_characters() {
        let mut assistant = Message::text("assistant", "");
        assistant.content = None;
        let messages = vec![
            Message::text("system", "abcdefgh"),
            Message::text("user", "é".repeat(8)),
            assistant,
        ];
        assert_eq!(count_characters(&messages), 4);
    }

    #[test]
    fn the_counter_agrees_with_a_full_count_as_the_conversation_grows() {
        let mut counter = TokenCounter::default();
        let mut messages = vec![Message::text("system", "You are helpful.")];
        for i in 0..5 {
            messages.push(Message::text("user", format!("question {i}")));
            if let Some(last) = messages.last_mut().and_then(|m| m.content.as_mut()) {
                last.push_str("\nSteps Remaining: 3");
            }
            assert_eq!(counter.count(&messages), count_tokens(&messages));
            messages.push(Message::tool("call_1", "x ".repeat(i * 50)));
        }
    }

    /// The counts litellm 1.110's `token_counter(model="openai/some-local-model", ...)` gave.
    #[test]
    fn counts_as_litellm_does() {
        assert_eq!(count_tokens(&[]), 3);
        assert_eq!(count_tokens(&[Message::text("user", "hi")]), 8);
        assert_eq!(count_tokens(&[Message::text("user", "")]), 7);
        let mut none = Message::text("user", "");
        none.content = None;
        assert_eq!(count_tokens(&[none]), 7);
        assert_eq!(
            count_tokens(&[
                Message::text("system", "You are helpful."),
                Message::text("user", "Hello world"),
            ]),
            17
        );
        let mut call = Message::text("assistant", "ok");
        call.tool_calls = vec![ToolCall {
            id: "call_1".into(),
            kind: "function".into(),
            function: FunctionCall {
                name: "execute_bash".into(),
                arguments: r#"{"command": "ls"}"#.into(),
            },
        }];
        assert_eq!(count_tokens(std::slice::from_ref(&call)), 14);
        call.content = None;
        assert_eq!(count_tokens(&[call]), 13);
        assert_eq!(count_tokens(&[Message::tool("call_1", "Exit code: 0")]), 15);
        let mut thought = Message::text("assistant", "ok");
        thought.reasoning = Some("I think so".into());
        assert_eq!(count_tokens(&[thought]), 11);
        assert_eq!(count_tokens(&[Message::text("user", "<|endoftext|>")]), 14);
        // 2,200 characters: three chunks (whole, it would be 799).
        assert_eq!(
            count_tokens(&[Message::text("user", "abcdefghij ".repeat(200))]) - 7,
            801
        );
    }
}
