//! One job from start to its row: the answer (a sandbox episode or one LLM call), its score,
//! the judge's verdict, and its log.

use std::sync::Arc;
use std::time::Instant;

use serde_json::json;

use super::episode::sandbox_episode;
use super::folder::write_log;
use super::plain_llm::plain_llm;
use super::settings::Mode;
use super::{Job, Shared, blank_result};
use crate::eval::report::RowResult;
use crate::eval::score::Score;
use crate::eval::spec::Scorer;

pub(super) async fn run_job(shared: &Shared, job: &Job) -> RowResult {
    let (runtime, task, settings) = (&shared.runtime, &shared.task, &shared.settings);
    let row = &job.row;
    let mut result = blank_result(job);
    let client = shared.client.clone();
    let console = Arc::new(std::sync::Mutex::new(String::new()));
    let answer = match settings.mode {
        Mode::Sandbox => sandbox_episode(shared, client, job, &mut result, console.clone()).await,
        Mode::Llm => {
            shared.live.doing(&job.key, "waiting for the model");
            plain_llm(shared, client, row, &mut result, &console).await
        }
    };
    let console = console.lock().map(|c| c.clone()).unwrap_or_default();
    match answer {
        Ok(answer) => {
            result.answer = answer.clone();
            let scorer = row
                .scorer
                .as_deref()
                .and_then(Scorer::by_name)
                .unwrap_or_else(|| task.scorer.clone());
            let t = Instant::now();
            if scorer != Scorer::Judge {
                match scorer.score(answer.as_deref(), row, runtime).await {
                    Score::Value(s) => result.score = Some(s),
                    Score::Error(e) => result.error = Some(e),
                }
            }
            result.sandbox_seconds += t.elapsed().as_secs_f64();
            if let Some(judge) = &settings.judge {
                // Judged here, while other episodes run; recorded with the row, so a resumed
                // run never judges a row twice.
                let t = Instant::now();
                let j = judge
                    .judge(
                        &row.problem_statement,
                        answer.as_deref().unwrap_or(""),
                        &row.ground_truth,
                    )
                    .await;
                result.llm_seconds += t.elapsed().as_secs_f64();
                result.reward = result.score;
                if let Some(e) = result.error.take() {
                    result.warning = Some(format!("scorer failed, judge decided: {e}"));
                }
                result.score = Some(j.score);
                result.judge = Some(json!({"model": judge.model(), "verdicts": j.verdicts}));
            }
        }
        Err(e) => result.error = Some(e),
    }
    write_log(settings, &console, &result);
    result
}
