//! Step texts and context-length errors, as the reference handles them: what is appended
//! before each model call, and the `max_tokens` to retry with when the server says the
//! conversation no longer fits.

/// The smallest `max_tokens` a context-length error may shrink to (as the reference).
pub const MIN_MAX_TOKENS: u32 = 8192;

/// Tokens the reference leaves free when it fits `max_tokens` to a server's context.
const CONTEXT_MARGIN: u64 = 100;

/// What the reference appends (after a newline) to the last message before each model call,
/// with `remaining` = max_steps - steps taken. Its loop never calls the model with none left,
/// so the second text is never sent there, nor here.
pub fn steps_remaining_text(remaining: u32) -> String {
    if remaining > 0 {
        format!("Steps Remaining: {remaining}")
    } else {
        "You have reached the maximum number of steps. Please submit your answer NOW.".into()
    }
}

/// The numbers in a context-length error, read with the reference's two patterns:
/// (the model's context, the prompt's tokens). vLLM says e.g. "maximum context length of 32768
/// tokens. You requested a total of 40000 tokens: 31000 tokens from the input messages and
/// 9000 tokens for the completion".
pub fn parse_context_error(message: &str) -> (Option<u64>, Option<u64>) {
    static PATTERNS: std::sync::OnceLock<Option<(regex::Regex, regex::Regex)>> =
        std::sync::OnceLock::new();
    let patterns = PATTERNS.get_or_init(|| {
        let context = regex::Regex::new(r"(?i)(?:maximum|context)[^\d]*(\d+)\s*tokens").ok()?;
        let input = regex::Regex::new(
            r"(?i)(\d+)\s*tokens?\s*(?:from\s*(?:the\s*)?(?:input|messages?)|in\s*(?:the\s*)?(?:input|prompt|messages?))",
        )
        .ok()?;
        Some((context, input))
    });
    let Some((context, input)) = patterns else {
        return (None, None);
    };
    let number = |re: &regex::Regex| {
        re.captures(message)
            .and_then(|c| c.get(1))
            .and_then(|m| m.as_str().parse::<u64>().ok())
    };
    (number(context), number(input))
}

/// The `max_tokens` to retry with after a context-length error `message`, or `None` to give
/// up, as the reference decides: with both numbers read, context - prompt - 100, if that is at
/// least 8,192 and smaller than the current value; otherwise half the current value, not below
/// 8,192. `None` as the current value (the server's default) counts as 16,384 for halving.
pub fn context_retry_max_tokens(message: &str, current: Option<u32>) -> Option<u32> {
    match parse_context_error(message) {
        (Some(context), Some(input)) if context > 0 && input > 0 => {
            let room = context.saturating_sub(input).saturating_sub(CONTEXT_MARGIN);
            if room < u64::from(MIN_MAX_TOKENS) {
                return None;
            }
            let room = u32::try_from(room).unwrap_or(u32::MAX);
            match current {
                Some(c) if room >= c => None,
                _ => Some(room),
            }
        }
        _ => {
            let current = current.unwrap_or(2 * MIN_MAX_TOKENS);
            (current > MIN_MAX_TOKENS).then(|| (current / 2).max(MIN_MAX_TOKENS))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const VLLM: &str = "This model's maximum context length of 32768 tokens. However, you requested 40000 tokens in the messages, Please reduce the length of the messages.";

    #[test]
    fn reads_vllm_context_errors() {
        assert_eq!(
            parse_context_error(
                "maximum context length of 163840 tokens. You requested a total of 179069 tokens: 113533 tokens from the input messages and 65536 tokens for the completion"
            ),
            (Some(163_840), Some(113_533))
        );
        assert_eq!(parse_context_error(VLLM), (Some(32_768), Some(40_000)));
        assert_eq!(
            parse_context_error(
                "{\"message\": \"Context window is 8192 tokens; 9000 token in prompt\"}"
            ),
            (Some(8192), Some(9000))
        );
        // The older vLLM wording names the prompt's size without "tokens" after it.
        assert_eq!(
            parse_context_error(
                "This model's maximum context length is 32768 tokens. However, you requested 40000 tokens (30000 in the messages, 10000 in the completion)."
            ),
            (Some(32_768), None)
        );
        assert_eq!(parse_context_error("prompt is too long"), (None, None));
    }

    #[test]
    fn fits_max_tokens_to_the_context_or_halves() {
        let vllm = |c: u64, n: u64| {
            format!(
                "maximum context length of {c} tokens. You requested a total of 99 tokens: {n} tokens from the input messages"
            )
        };
        assert_eq!(
            context_retry_max_tokens(&vllm(32_768, 20_000), Some(65_536)),
            Some(12_668)
        );
        assert_eq!(
            context_retry_max_tokens(&vllm(32_768, 20_000), None),
            Some(12_668)
        );
        // Already small enough: the error is not about max_tokens, give up.
        assert_eq!(
            context_retry_max_tokens(&vllm(32_768, 20_000), Some(12_668)),
            None
        );
        // Less than 8,192 would fit.
        assert_eq!(
            context_retry_max_tokens(&vllm(32_768, 24_500), Some(65_536)),
            None
        );
        assert_eq!(
            context_retry_max_tokens(&vllm(32_768, 24_476), Some(65_536)),
            Some(8192)
        );
        // Unreadable: halve, not below 8,192, then give up.
        assert_eq!(
            context_retry_max_tokens("too long", Some(65_536)),
            Some(32_768)
        );
        assert_eq!(
            context_retry_max_tokens("too long", Some(10_000)),
            Some(8192)
        );
        assert_eq!(context_retry_max_tokens("too long", Some(8192)), None);
        assert_eq!(context_retry_max_tokens("too long", None), Some(8192));
    }

    #[test]
    fn steps_text() {
        assert_eq!(steps_remaining_text(3), "Steps Remaining: 3");
        assert_eq!(
            steps_remaining_text(0),
            "You have reached the maximum number of steps. Please submit your answer NOW."
        );
    }
}
