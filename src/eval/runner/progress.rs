//! A run's progress on stderr: a live bar on a terminal, plain lines in a log, or JSON events.

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::eval::report::RowResult;

/// How a run reports its progress on stderr.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ProgressOutput {
    /// Nothing.
    Off,
    /// For people: on a terminal a live bar (done/total, rate, running score, errors, tokens,
    /// ETA); elsewhere (a CI log) a plain line every `every` or every 5% of the rows,
    /// whichever comes first. One summary line at the end either way.
    Human {
        /// The longest gap between plain lines.
        every: Duration,
    },
    /// For machines: one JSON object per line, `{"event":"row",...}` per finished row and
    /// `{"event":"run",...}` (the summary's fields) at the end.
    Json,
}

impl ProgressOutput {
    /// Plain lines at most every 10 s (and every 5%).
    pub const DEFAULT_EVERY: Duration = Duration::from_secs(10);
}

pub(super) struct Progress {
    started: Instant,
    total: usize,
    done: usize,
    errors: usize,
    score_sum: f64,
    scored: usize,
    tokens: u64,
    output: ProgressOutput,
    /// The live bar, on a terminal only (a CI log must not get one `\r` line per row).
    bar: Option<indicatif::ProgressBar>,
    /// When the last plain line was printed, and at which 5% step.
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
                    "{pos}/{len} {wide_bar:.cyan/blue} {msg} eta {eta}",
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
            output,
            bar,
            last_line: Instant::now(),
            last_step: 0,
        }
    }

    /// Whether a plain line is due now (every 5% or every `every`, and at the end).
    fn line_due(&mut self) -> bool {
        let every = match self.output {
            ProgressOutput::Human { every } => every,
            _ => ProgressOutput::DEFAULT_EVERY,
        };
        let step = 20 * self.done / self.total.max(1);
        let due =
            self.done == self.total || step > self.last_step || self.last_line.elapsed() >= every;
        if due {
            self.last_step = step;
            self.last_line = Instant::now();
        }
        due
    }

    /// The running mean score, error rows as 0 (as the final `mean_score`).
    fn score(&self) -> f64 {
        100.0 * self.score_sum / self.done.max(1) as f64
    }

    pub(super) fn update(&mut self, r: &RowResult) {
        self.done += 1;
        self.tokens += r.tokens;
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
            }
            ProgressOutput::Human { .. } => {
                if let Some(bar) = &self.bar {
                    let rate = self.done as f64 / self.started.elapsed().as_secs_f64().max(1e-3);
                    bar.set_message(format!(
                        "{rate:.1}/s score {:.1}% err {} tok {}",
                        self.score(),
                        self.errors,
                        indicatif::HumanCount(self.tokens)
                    ));
                    bar.inc(1);
                    return;
                }
                if self.line_due() {
                    let counts = format!(
                        "score {:.1}% errors {} tokens {}",
                        self.score(),
                        self.errors,
                        self.tokens
                    );
                    let elapsed = self.started.elapsed().as_secs_f64();
                    let rate = self.done as f64 / elapsed.max(1e-3);
                    let eta = (self.total - self.done) as f64 / rate.max(1e-9);
                    eprintln!(
                        "llm-in-sandbox: progress {}/{} ({:.0}%) {counts} {rate:.2} rows/s elapsed {elapsed:.0}s eta {eta:.0}s",
                        self.done,
                        self.total,
                        100.0 * self.done as f64 / self.total.max(1) as f64,
                    );
                }
            }
        }
    }

    /// The end of the run: the bar goes, one summary line (or the `run` event) comes.
    pub(super) fn finish(&mut self, summary: &Value, run_dir: &Path, resumed: usize) {
        if let Some(bar) = self.bar.take() {
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
                    "overall",
                    "domains",
                ] {
                    event[k] = summary[k].clone();
                }
                eprintln!("{event}");
            }
            ProgressOutput::Human { .. } => {
                let elapsed = self.started.elapsed().as_secs_f64();
                eprintln!(
                    "llm-in-sandbox: finished {} rows in {elapsed:.1}s ({:.2} rows/s): score {} (scored {}), {} errors, {} tokens",
                    self.done,
                    self.done as f64 / elapsed.max(1e-3),
                    pct(&summary["mean_score"]),
                    pct(&summary["mean_score_scored"]),
                    summary["num_errors"].as_u64().unwrap_or(0),
                    self.tokens
                );
            }
        }
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
}
