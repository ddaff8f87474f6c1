//! The token budget (`max_token_limit`), counted as the reference counts it by default: before
//! each model call, over the messages about to be sent, the episode stops once the count is
//! above the limit. The reference counts with litellm's `token_counter`; where that cannot
//! run (any exception) it falls back to a quarter of the characters of every message's
//! `str(content)`, which is what is done here (see `docs/coming-from-the-reference.md` for how
//! the two compare). `--budget server-usage` counts instead what the server reports after each
//! call (`usage.total_tokens`, reasoning included).

use crate::llm::Message;

/// How the token budget is counted.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Budget {
    /// Before each call, over the messages ([`count_tokens`]); stop when above the limit.
    #[default]
    Reference,
    /// After each call, the server's `usage.total_tokens`; stop when it reaches the limit.
    ServerUsage,
}

/// The conversation's size in tokens as the reference's fallback estimates it: the characters
/// of each message's content (none for an assistant message without text, whose `content`
/// key litellm leaves out), summed, divided by four.
pub fn count_tokens(messages: &[Message]) -> u64 {
    let chars: usize = messages
        .iter()
        .map(|m| m.content.as_deref().map_or(0, |c| c.chars().count()))
        .sum();
    (chars / 4) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_a_quarter_of_the_characters() {
        let mut assistant = Message::text("assistant", "");
        assistant.content = None;
        let messages = vec![
            Message::text("system", "abcdefgh"),
            Message::text("user", "é".repeat(8)),
            assistant,
        ];
        assert_eq!(count_tokens(&messages), 4);
    }
}
