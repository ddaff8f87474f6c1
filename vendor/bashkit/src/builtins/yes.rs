//! yes builtin - repeatedly output a line

use async_trait::async_trait;

use super::{Builtin, BuiltinHelper, Context};
use crate::error::Result;
use crate::interpreter::ExecResult;

/// The yes builtin - output a string repeatedly.
///
/// Usage: yes [STRING]
///
/// Repeatedly outputs STRING (default: "y") followed by newline.
/// Ends when its reader goes away, or at the request's memory budget or deadline.
pub struct Yes;

/// Bytes per write when streaming into a pipeline (one pipe's capacity).
const STREAM_CHUNK_BYTES: usize = crate::interpreter::pipe::PIPE_CAPACITY;

impl BuiltinHelper for Yes {
    const NAME: &'static str = "yes";
}

#[async_trait]
impl Builtin for Yes {
    async fn execute(&self, ctx: Context<'_>) -> Result<ExecResult> {
        if let Some(r) = Self::check_help(
            ctx.args,
            "Usage: yes [STRING]\nRepeatedly output a line with STRING, or 'y'.\n\n  --help\tdisplay this help and exit\n  --version\toutput version information and exit\n",
            Some("yes (bashkit) 0.1"),
        ) {
            return Ok(r);
        }
        let text = if ctx.args.is_empty() {
            "y".to_string()
        } else {
            ctx.args.join(" ")
        };

        // Like GNU yes, it never ends on its own: a pipeline reader that goes
        // away ends it with 141 (SIGPIPE); otherwise the request's memory
        // budget (what it keeps) or its deadline does.
        let mut line = text.into_bytes();
        line.push(b'\n');
        let mut block = Vec::with_capacity(STREAM_CHUNK_BYTES + line.len());
        while block.len() < STREAM_CHUNK_BYTES {
            block.extend_from_slice(&line);
        }
        let stream = ctx.stdout_stream();
        let budget = ctx.shell.as_ref().map(|s| s.execution_budget);
        let mut kept = crate::limits::BudgetedBytes::new(budget)?;
        loop {
            ctx.consume_budget_work(1)?;
            match &stream {
                Some(stream) => {
                    if !stream.write(&block).await? {
                        return Ok(ExecResult::with_code("", 141));
                    }
                }
                None => {
                    kept.try_extend_from_slice(&block)?;
                    tokio::task::yield_now().await;
                }
            }
        }
    }
}
