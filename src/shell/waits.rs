//! Commands that only wait, made to stop when the shell's call is stopped (its caller went
//! away, or its per-call limit passed). bashkit's own `sleep` awaits its whole duration and
//! checks the call's cancellation only once it has returned; ours ends at once.
//!
//! (`curl` and `wget` need nothing here: bashkit runs their requests under the call's
//! execution budget, which polls the cancellation flag every 10 ms; `python3` and `pip` watch
//! the same stop signal as `sleep`, see `commands.rs`.)

use std::sync::Arc;
use std::time::Duration;

use bashkit::{Builtin, BuiltinContext, ExecResult};

/// The longest `sleep`, as bashkit's own (its help says so); the shell's time limit applies
/// anyway.
const MAX_SLEEP_SECONDS: f64 = 60.0;

/// Exit status of a command stopped by the shell (128 + SIGINT, as bash reports Ctrl-C).
pub(super) const STOPPED: i32 = 130;

/// `sleep SECONDS...`: GNU's operands (numbers with an optional `s`, `m`, `h` or `d`,
/// summed), at most [`MAX_SLEEP_SECONDS`], ending early when the shell's call is stopped.
pub struct Sleep(
    /// The shell's stop signal (see `Interrupter`).
    pub Arc<tokio::sync::watch::Sender<bool>>,
);

const HELP: &str = "Usage: sleep SECONDS\nPause for SECONDS seconds.\nSECONDS may be a \
    floating-point number. Maximum duration is 60 seconds.\n\n  --help\tdisplay this help and \
    exit\n  --version\toutput version information and exit\n";

fn failed(message: &str) -> ExecResult {
    ExecResult::err(
        format!("sleep: {message}\nTry 'sleep --help' for more information.\n"),
        1,
    )
}

/// Seconds of one GNU `sleep` operand; `None` when it is not one (or negative, or NaN).
fn interval(arg: &str) -> Option<f64> {
    let (number, unit) = match arg.char_indices().last() {
        Some((i, c @ ('s' | 'm' | 'h' | 'd'))) => (&arg[..i], c),
        _ => (arg, 's'),
    };
    let value: f64 = number.trim_start().parse().ok()?;
    if value.is_nan() || value < 0.0 {
        return None;
    }
    let scale = match unit {
        'm' => 60.0,
        'h' => 3600.0,
        'd' => 86400.0,
        _ => 1.0,
    };
    Some(value * scale)
}

/// The duration `args` ask for, or what is wrong with them.
fn duration(args: &[String]) -> Result<Duration, String> {
    let mut operands = Vec::new();
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        if arg == "--" {
            operands.extend(rest.by_ref());
        } else if let Some(long) = arg.strip_prefix("--") {
            return Err(format!("unrecognized option '--{long}'"));
        } else if arg.len() > 1 && arg.starts_with('-') {
            // As GNU's getopt: any `-X` before `--` is an option, even `-1`.
            let c = arg.chars().nth(1).unwrap_or('-');
            return Err(format!("invalid option -- '{c}'"));
        } else {
            operands.push(arg);
        }
    }
    if operands.is_empty() {
        return Err("missing operand".into());
    }
    let mut seconds = 0.0;
    for arg in operands {
        seconds += interval(arg).ok_or_else(|| format!("invalid time interval '{arg}'"))?;
    }
    Ok(Duration::from_secs_f64(seconds.min(MAX_SLEEP_SECONDS)))
}

#[bashkit::async_trait]
impl Builtin for Sleep {
    async fn execute(&self, ctx: BuiltinContext<'_>) -> bashkit::Result<ExecResult> {
        match ctx.args.first().map(String::as_str) {
            Some("--help") => return Ok(ExecResult::ok(HELP.to_string())),
            Some("--version") => {
                return Ok(ExecResult::ok("sleep (llm-in-sandbox)\n".to_string()));
            }
            _ => {}
        }
        let wait = match duration(ctx.args) {
            Ok(d) => d,
            Err(usage) => return Ok(failed(&usage)),
        };
        let mut stop = self.0.subscribe();
        tokio::select! {
            () = tokio::time::sleep(wait) => Ok(ExecResult::ok(String::new())),
            _ = stop.wait_for(|stopped| *stopped) => Ok(ExecResult::err(String::new(), STOPPED)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secs(args: &[&str]) -> Result<f64, String> {
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        duration(&args)
            .map(|d| d.as_secs_f64())
            .map_err(|why| failed(&why).stderr.text_lossy().into_owned())
    }

    #[test]
    fn operands_are_gnu_intervals_summed_and_capped() {
        assert_eq!(secs(&["1.5"]), Ok(1.5));
        assert_eq!(secs(&["0.5s", ".25"]), Ok(0.75));
        assert_eq!(secs(&["1m"]), Ok(60.0));
        assert_eq!(secs(&["2h"]), Ok(60.0), "capped");
        assert_eq!(secs(&["infinity"]), Ok(60.0));
        assert_eq!(secs(&["--", "2"]), Ok(2.0));
        assert_eq!(secs(&["1e-1"]), Ok(0.1));
        for (args, says) in [
            (&["x"][..], "invalid time interval 'x'"),
            (&["-1"][..], "invalid option -- '1'"),
            (&["--", "-1"][..], "invalid time interval '-1'"),
            (&["nan"][..], "invalid time interval 'nan'"),
            (&["1x"][..], "invalid time interval '1x'"),
            (&[][..], "missing operand"),
            (&["-z"][..], "invalid option -- 'z'"),
            (&["--fast"][..], "unrecognized option '--fast'"),
        ] {
            let err = secs(args).expect_err(says);
            assert!(
                err.starts_with(&format!("sleep: {says}\n")),
                "{args:?}: {err}"
            );
        }
    }
}
