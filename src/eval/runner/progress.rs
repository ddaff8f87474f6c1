//! A run's progress on stderr: a live bar on a terminal, plain lines in a log, or JSON events.
//! Lines come as rows finish and, while rows run, at least every `every` (the rows in flight
//! with their current step), so a slow model never leaves a log silent.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::agent::Report;
use crate::agent::report::{one_line, thousands};
use crate::eval::report::RowResult;

/// How a run reports its progress on stderr.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ProgressOutput {
    /// Nothing.
    Off,
    /// For people: on a terminal a live bar (done/total, rows in flight and their step, rate,
    /// running score, errors, tokens, ETA); elsewhere (a CI log) a plain line every 5% of the
    /// rows, and at least every `every` while rows run. One summary line at the end either way.
    Human {
        /// The longest gap between plain lines while rows run.
        every: Duration,
    },
    /// For machines: one JSON object per line, `{"event":"row",...}` per finished row,
    /// `{"event":"progress",...}` at least every 10 s while rows run, `{"event":"hint",...}`
    /// once when a model's tool calls are not seen, and `{"event":"run",...}` (the summary's
    /// fields) at the end.
    Json,
}

impl ProgressOutput {
    /// Plain lines at least every 10 s (and every 5%).
    pub const DEFAULT_EVERY: Duration = Duration::from_secs(10);

    fn every(self) -> Duration {
        match self {
            ProgressOutput::Human { every } => every,
            _ => Self::DEFAULT_EVERY,
        }
    }
}

/// A row in flight: since when, its current step and what it is doing.
struct InFlight {
    started: Instant,
    step: u32,
    doing: String,
    since: Instant,
    tokens: u64,
}

#[derive(Default)]
struct LiveState {
    rows: BTreeMap<String, InFlight>,
    hint_shown: bool,
}

/// What the rows in flight are doing, shared with their episodes (which report into it) and
/// shown by [`Progress`].
pub(super) struct Live {
    state: Mutex<LiveState>,
    output: ProgressOutput,
    /// The terminal's bar, to print lines above it.
    bar: Option<indicatif::ProgressBar>,
}

impl Live {
    fn lock(&self) -> std::sync::MutexGuard<'_, LiveState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A job started.
    pub(super) fn started(&self, key: &str) {
        let now = Instant::now();
        self.lock().rows.insert(
            key.to_string(),
            InFlight {
                started: now,
                step: 0,
                doing: "starting".into(),
                since: now,
                tokens: 0,
            },
        );
    }

    /// Row `key` is now doing `what` (for rows without steps, e.g. one plain LLM call).
    pub(super) fn doing(&self, key: &str, what: &str) {
        if let Some(row) = self.lock().rows.get_mut(key) {
            row.doing = what.to_string();
            row.since = Instant::now();
        }
    }

    /// A job ended (its row is recorded).
    fn ended(&self, key: &str) {
        self.lock().rows.remove(key);
    }

    /// What row `key`'s episode just did. The first turn of the run that wants it explains,
    /// once, why the model's tool calls are not seen.
    pub(super) fn report(&self, key: &str, r: &Report) {
        let hint = {
            let mut st = self.lock();
            if let Some(row) = st.rows.get_mut(key) {
                row.step = r.step();
                row.since = Instant::now();
                match r {
                    Report::Asking { .. } => row.doing = "waiting for the model".into(),
                    Report::Calling {
                        tool,
                        excerpt,
                        tokens,
                        ..
                    } => {
                        row.doing = if excerpt.is_empty() {
                            tool.clone()
                        } else {
                            format!("{tool}: {}", one_line(excerpt, 30))
                        };
                        row.tokens = *tokens;
                    }
                    Report::NoCall { tokens, .. } => {
                        row.doing = "no tool call".into();
                        row.tokens = *tokens;
                    }
                    Report::Called { .. } | Report::Note { .. } => {}
                }
            }
            let due = r.wants_hint() && !st.hint_shown;
            if due {
                st.hint_shown = true;
            }
            due.then(|| r.hint()).flatten()
        };
        if let Some(text) = hint {
            match self.output {
                ProgressOutput::Off => {}
                ProgressOutput::Json => {
                    eprintln!("{}", json!({"event": "hint", "key": key, "text": text}));
                }
                ProgressOutput::Human { .. } => {
                    self.say(&format!("llm-in-sandbox: row {key}: {text}"));
                }
            }
        }
    }

    /// A line for people, above the bar when there is one.
    fn say(&self, line: &str) {
        match &self.bar {
            Some(bar) => bar.println(line),
            None => eprintln!("{line}"),
        }
    }

    /// Rows in flight, their tokens so far, and a few of them described (the longest running
    /// first): `12#0 step 3 waiting for the model 41s`.
    fn running(&self, shown: usize) -> (usize, u64, Vec<String>, Vec<Value>) {
        let st = self.lock();
        let mut rows: Vec<(&String, &InFlight)> = st.rows.iter().collect();
        rows.sort_by_key(|(_, r)| r.started);
        let tokens = rows.iter().map(|(_, r)| r.tokens).sum();
        let words = rows
            .iter()
            .take(shown)
            .map(|(k, r)| {
                let step = if r.step > 0 {
                    format!(" step {}", r.step)
                } else {
                    String::new()
                };
                format!(
                    "{k}{step} {} {}",
                    r.doing,
                    duration(r.since.elapsed().as_secs_f64())
                )
            })
            .collect();
        let events = rows
            .iter()
            .map(|(k, r)| {
                json!({"key": k, "step": r.step, "doing": r.doing,
                       "seconds": r.started.elapsed().as_secs_f64()})
            })
            .collect();
        (rows.len(), tokens, words, events)
    }
}

pub(super) struct Progress {
    started: Instant,
    total: usize,
    done: usize,
    errors: usize,
    score_sum: f64,
    scored: usize,
    tokens: u64,
    no_call_steps: u64,
    output: ProgressOutput,
    live: Arc<Live>,
    /// When the last line was printed, and at which 5% step.
    last_line: Instant,
    last_step: usize,
}

impl Progress {
    pub(super) fn new(total: usize, output: ProgressOutput) -> Progress {
        use std::io::IsTerminal;
        let bar = match output {
            ProgressOutput::Human { .. } if total > 0 && std::io::stderr().is_terminal() => {
                let bar = indicatif::ProgressBar::with_draw_target(
                    Some(total as u64),
                    indicatif::ProgressDrawTarget::stderr(),
                );
                let style = indicatif::ProgressStyle::with_template(
                    "{pos}/{len} {bar:20.cyan/blue} {wide_msg}",
                )
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
                .progress_chars("##-");
                bar.set_style(style);
                bar.enable_steady_tick(Duration::from_secs(1));
                Some(bar)
            }
            _ => None,
        };
        Progress {
            started: Instant::now(),
            total,
            done: 0,
            errors: 0,
            score_sum: 0.0,
            scored: 0,
            tokens: 0,
            no_call_steps: 0,
            output,
            live: Arc::new(Live {
                state: Mutex::new(LiveState::default()),
                output,
                bar,
            }),
            last_line: Instant::now(),
            last_step: 0,
        }
    }

    /// The rows in flight, for their episodes to report into.
    pub(super) fn live(&self) -> Arc<Live> {
        self.live.clone()
    }

    /// When the next line (or the bar's next refresh) is due while rows run; `None`: never.
    pub(super) fn next_due(&self) -> Option<Instant> {
        match (self.output, &self.live.bar) {
            (ProgressOutput::Off, _) => None,
            (_, Some(_)) => Some(Instant::now() + Duration::from_secs(1)),
            (output, None) => Some(self.last_line + output.every()),
        }
    }

    /// Called when a line may be due while rows run: the bar shows the rows in flight, or a
    /// plain line (a `progress` event) comes when none came for `every`.
    pub(super) fn tick(&mut self) {
        if let Some(bar) = &self.live.bar {
            bar.set_message(self.bar_message());
            return;
        }
        if self.output == ProgressOutput::Off || self.last_line.elapsed() < self.output.every() {
            return;
        }
        self.last_line = Instant::now();
        self.print_line();
    }

    /// Whether a plain line is due now that a row finished (every 5% or every `every`, and
    /// at the end).
    fn line_due(&mut self) -> bool {
        let step = 20 * self.done / self.total.max(1);
        let due = self.done == self.total
            || step > self.last_step
            || self.last_line.elapsed() >= self.output.every();
        if due {
            self.last_step = step;
            self.last_line = Instant::now();
        }
        due
    }

    /// The running mean score, error rows as 0 (as the final `mean_score`).
    fn score(&self) -> String {
        if self.done == 0 {
            return "-".into();
        }
        format!("{:.1}%", 100.0 * self.score_sum / self.done as f64)
    }

    /// `1.2 rows/s`, `3.5 rows/min`, or `290 s/row` when slower; `-` before any row is done.
    fn rate(&self) -> String {
        rate(self.done, self.started.elapsed().as_secs_f64())
    }

    fn eta(&self) -> Option<String> {
        let elapsed = self.started.elapsed().as_secs_f64();
        (self.done > 0 && self.done < self.total)
            .then(|| duration((self.total - self.done) as f64 * elapsed / self.done as f64))
    }

    fn bar_message(&self) -> String {
        let (running, tokens, words, _) = self.live.running(1);
        let mut msg = format!(
            "score {} err {} tok {} {}",
            self.score(),
            self.errors,
            indicatif::HumanCount(self.tokens + tokens),
            self.rate()
        );
        if let Some(eta) = self.eta() {
            msg.push_str(&format!(" eta {eta}"));
        }
        if running > 0 {
            msg.push_str(&format!(" | {running} running"));
            if let Some(w) = words.first() {
                msg.push_str(&format!(": {w}"));
            }
        }
        msg
    }

    /// One plain line (or a `progress` event): rows done, rows in flight and what the oldest
    /// are doing, tokens, elapsed, rate, ETA.
    fn print_line(&self) {
        let (running, tokens, words, events) = self.live.running(2);
        let elapsed = self.started.elapsed().as_secs_f64();
        if self.output == ProgressOutput::Json {
            let event = json!({
                "event": "progress", "done": self.done, "total": self.total,
                "errors": self.errors, "tokens": self.tokens + tokens,
                "elapsed_seconds": elapsed, "running": events,
            });
            eprintln!("{event}");
            return;
        }
        let mut line = format!(
            "llm-in-sandbox: progress {}/{} ({:.0}%) score {} errors {} tokens {} elapsed {} {}",
            self.done,
            self.total,
            100.0 * self.done as f64 / self.total.max(1) as f64,
            self.score(),
            self.errors,
            self.tokens + tokens,
            duration(elapsed),
            self.rate(),
        );
        if let Some(eta) = self.eta() {
            line.push_str(&format!(" eta {eta}"));
        }
        if running > 0 {
            line.push_str(&format!("; {running} running: {}", words.join(", ")));
            if running > words.len() {
                line.push_str(&format!(", +{} more", running - words.len()));
            }
        }
        self.live.say(&line);
    }

    pub(super) fn update(&mut self, r: &RowResult) {
        self.live.ended(&r.key);
        self.done += 1;
        self.tokens += r.tokens;
        self.no_call_steps += u64::from(r.no_call_steps);
        match r.score {
            Some(s) => {
                self.scored += 1;
                self.score_sum += s;
            }
            None => self.errors += 1,
        }
        match self.output {
            ProgressOutput::Off => {}
            ProgressOutput::Json => {
                let event = json!({
                    "event": "row", "key": r.key, "id": r.id, "repeat": r.repeat,
                    "domain": r.domain, "score": r.score, "error": r.error,
                    "seconds": r.llm_seconds + r.sandbox_seconds,
                    "done": self.done, "total": self.total,
                });
                eprintln!("{event}");
                self.last_line = Instant::now();
            }
            ProgressOutput::Human { .. } => {
                if let Some(bar) = &self.live.bar {
                    bar.set_message(self.bar_message());
                    bar.inc(1);
                    return;
                }
                if self.line_due() {
                    self.print_line();
                }
            }
        }
    }

    /// The end of the run: the bar goes, one summary line (or the `run` event) comes.
    pub(super) fn finish(&mut self, summary: &Value, run_dir: &Path, resumed: usize) {
        if let Some(bar) = &self.live.bar {
            bar.finish_and_clear();
        }
        let pct = |v: &Value| {
            v.as_f64()
                .map_or("-".to_string(), |s| format!("{:.1}%", s * 100.0))
        };
        match self.output {
            ProgressOutput::Off => {}
            ProgressOutput::Json => {
                let mut event = json!({"event": "run", "run_dir": run_dir, "ran": self.done,
                                       "resumed": resumed});
                for k in [
                    "task",
                    "total",
                    "mean_score",
                    "mean_score_scored",
                    "num_errors",
                    "elapsed_time_seconds",
                    "tokens",
                    "turns_without_tool_call",
                    "overall",
                    "domains",
                ] {
                    event[k] = summary[k].clone();
                }
                eprintln!("{event}");
            }
            ProgressOutput::Human { .. } => {
                let elapsed = self.started.elapsed().as_secs_f64();
                let mut line = format!(
                    "llm-in-sandbox: finished {} rows in {} ({}): score {} (scored {}), {} errors, {} tokens",
                    self.done,
                    duration(elapsed),
                    rate(self.done, elapsed),
                    pct(&summary["mean_score"]),
                    pct(&summary["mean_score_scored"]),
                    summary["num_errors"].as_u64().unwrap_or(0),
                    thousands(self.tokens)
                );
                if self.no_call_steps > 0 {
                    line.push_str(&format!(
                        ", {} turns without a tool call",
                        thousands(self.no_call_steps)
                    ));
                }
                eprintln!("{line}");
            }
        }
    }
}

/// Rows per unit of time in the unit that reads well: `1.2 rows/s`, `3.5 rows/min`, else
/// `290 s/row`; `-` before any row is done (never `0.00 rows/s`).
fn rate(done: usize, elapsed: f64) -> String {
    if done == 0 {
        return "rate -".into();
    }
    let per_second = done as f64 / elapsed.max(1e-3);
    if per_second >= 1.0 {
        format!("{per_second:.1} rows/s")
    } else if per_second * 60.0 >= 1.0 {
        format!("{:.1} rows/min", per_second * 60.0)
    } else {
        format!("{:.0} s/row", elapsed / done as f64)
    }
}

/// Seconds as `42s`, `4m 10s` or `1h 02m`.
fn duration(seconds: f64) -> String {
    let s = seconds.max(0.0).round() as u64;
    match s {
        0..60 => format!("{s}s"),
        60..3600 => format!("{}m {:02}s", s / 60, s % 60),
        _ => format!("{}h {:02}m", s / 3600, s % 3600 / 60),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_progress_lines_come_every_five_percent_and_at_the_end() {
        let mut p = Progress::new(
            1000,
            ProgressOutput::Human {
                every: Duration::from_secs(3600),
            },
        );
        let lines = (0..1000)
            .filter(|_| {
                p.done += 1;
                p.line_due()
            })
            .count();
        assert_eq!(lines, 20, "one line per 5% (the last one at 100%)");
    }

    #[test]
    fn rates_read_well_at_any_speed() {
        assert_eq!(rate(0, 300.0), "rate -");
        assert_eq!(rate(300, 100.0), "3.0 rows/s");
        assert_eq!(rate(3, 60.0), "3.0 rows/min");
        assert_eq!(rate(1, 290.0), "290 s/row");
        assert_eq!(duration(42.4), "42s");
        assert_eq!(duration(250.0), "4m 10s");
        assert_eq!(duration(3725.0), "1h 02m");
    }
}
