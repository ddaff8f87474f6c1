//! What `run` shows while its episode runs: each step as it happens (the tool and a short
//! excerpt of what it was asked, or of the model's text when it made no call), a line at least
//! every 10 s while the model or a tool takes long (a spinner on a terminal), and once, when
//! the model's tool calls are not seen, why.

use std::io::IsTerminal;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use llm_in_sandbox::agent::Report;

/// The longest a log stays silent while the episode runs.
pub const EVERY: Duration = Duration::from_secs(10);

struct State {
    step: u32,
    doing: String,
    since: Instant,
    last_line: Instant,
    hint_shown: bool,
}

/// The live display of one episode on stderr.
pub struct Watch {
    state: Mutex<State>,
    /// A spinner, on a terminal only.
    spinner: Option<indicatif::ProgressBar>,
}

impl Watch {
    /// A display on stderr: a spinner under the step lines on a terminal, plain lines
    /// elsewhere.
    pub fn new() -> Arc<Watch> {
        let spinner = std::io::stderr().is_terminal().then(|| {
            let s = indicatif::ProgressBar::new_spinner();
            s.enable_steady_tick(Duration::from_millis(200));
            s
        });
        let now = Instant::now();
        Arc::new(Watch {
            state: Mutex::new(State {
                step: 0,
                doing: "starting".into(),
                since: now,
                last_line: now,
                hint_shown: false,
            }),
            spinner,
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn say(&self, st: &mut State, line: &str) {
        st.last_line = Instant::now();
        match &self.spinner {
            Some(s) => s.println(line),
            None => eprintln!("{line}"),
        }
    }

    /// What the episode just did: its line (the request going out has none), and the hint
    /// the first time the model's tool calls are not seen.
    pub fn report(&self, r: &Report) {
        let mut st = self.lock();
        st.step = r.step();
        st.since = Instant::now();
        match r {
            Report::Asking { .. } => st.doing = "waiting for the model".into(),
            Report::Calling { tool, .. } => st.doing = format!("running {tool}"),
            _ => {}
        }
        if !matches!(r, Report::Asking { .. }) {
            self.say(&mut st, &format!("  {}", r.line()));
        }
        if r.wants_hint()
            && !st.hint_shown
            && let Some(hint) = r.hint()
        {
            st.hint_shown = true;
            self.say(&mut st, &format!("llm-in-sandbox: {hint}"));
        }
        if let Some(s) = &self.spinner {
            s.set_message(format!("step {}: {}", st.step, st.doing));
        }
    }

    /// Called about every second: the spinner shows how long the current wait has been; in
    /// a log, a line comes when none came for [`EVERY`].
    pub fn tick(&self) {
        let mut st = self.lock();
        let waited = st.since.elapsed().as_secs();
        if let Some(s) = &self.spinner {
            s.set_message(format!("step {}: {} ({waited}s)", st.step, st.doing));
            return;
        }
        if st.step > 0 && st.last_line.elapsed() >= EVERY {
            let line = format!("  step {}: still {} ({waited}s)", st.step, st.doing);
            self.say(&mut st, &line);
        }
    }

    /// The episode ended: the spinner goes.
    pub fn finish(&self) {
        if let Some(s) = &self.spinner {
            s.finish_and_clear();
        }
    }
}
