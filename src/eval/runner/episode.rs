//! Sandbox mode: one row's episode, from its spec to the answer to score.

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::json;

use super::keep::keep_files;
use super::settings::BenchSettings;
use super::{Job, Shared};
use crate::agent::{EpisodeSpec, setup};
use crate::eval::dataset::Row;
use crate::eval::report::{RowResult, trajectory_dir};
use crate::llm::Client;

pub(super) async fn sandbox_episode(
    shared: &Shared,
    client: Client,
    job: &Job,
    result: &mut RowResult,
    console: Arc<std::sync::Mutex<String>>,
) -> Result<Option<String>, String> {
    let settings = &shared.settings;
    let row = &job.row;
    let spec = episode_spec(settings, row, job.repeat);
    let record_dir = spec.record_dir.clone();
    let episode = setup(&shared.runtime, client, spec)
        .await
        .map_err(|e| e.to_string())?;
    // Kept past the episode's end, so the files it wrote can be saved for `view`.
    let sandbox = episode.sandbox().clone();
    let input_dir = episode.settings().prompts.input_dir.clone();
    if !shared.task.requirements.is_empty() {
        // The task's own packages, before the model's first step (recorded as installs).
        let t = Instant::now();
        let installed = episode
            .sandbox()
            .pip_install(shared.task.requirements.clone(), Duration::MAX)
            .await;
        result.sandbox_seconds += t.elapsed().as_secs_f64();
        installed.map_err(|e| format!("cannot install the task's requirements.txt: {e}"))?;
    }
    if let Ok(mut c) = console.lock() {
        c.push_str(&format!(
            "Problem ID: {}\nSystem prompt:\n{}\n\nUser prompt:\n{}\n\n",
            row.id,
            episode.settings().prompts.system(),
            episode.settings().prompts.instance(&row.problem_statement)
        ));
    }
    let sink = console.clone();
    let (live, key) = (shared.live.clone(), job.key.clone());
    let episode = episode.on_progress(Box::new(move |report| {
        live.report(&key, report);
        if matches!(report, crate::agent::Report::Asking { .. }) {
            return;
        }
        if let Ok(mut c) = sink.lock() {
            c.push_str(&report.line());
            c.push('\n');
        }
    }));
    let r = episode.run(&row.problem_statement).await;
    let kept = crate::runtime::executor::blocking(move || {
        keep_files(
            sandbox.workspace().dir(),
            &input_dir,
            &record_dir.join("files"),
        )
    })
    .await;
    if let Ok(Err(e)) = kept {
        result.warning = Some(format!("the episode's files were not all saved: {e}"));
    }
    episode_answer(settings, r, result)
}

/// The episode of `row`: the run's sandbox and episode settings, the row's input files, its
/// trajectory folder, and the header its trajectory starts with.
fn episode_spec(settings: &BenchSettings, row: &Row, repeat: u32) -> EpisodeSpec {
    EpisodeSpec {
        sandbox: settings.sandbox.clone(),
        episode: settings.episode.clone(),
        workspace: None,
        input_files: row
            .input_files
            .iter()
            .map(|(name, content)| (name.clone(), content.clone().into_bytes()))
            .collect(),
        record_dir: settings
            .run_dir
            .join("trajectories")
            .join(trajectory_dir(&row.id, repeat)),
        header: json!({"problem_statement": row.problem_statement, "id": row.id, "domain": row.domain, "repeat": repeat,
                       "system_prompt": settings.episode.prompts.system(),
                       "user_prompt": settings.episode.prompts.instance(&row.problem_statement)}),
    }
}

/// The episode's figures into `result`, and the answer to score (stripped, missing = the
/// empty string, as the reference) or why the row is an error.
fn episode_answer(
    settings: &BenchSettings,
    r: crate::agent::EpisodeResult,
    result: &mut RowResult,
) -> Result<Option<String>, String> {
    result.stop = serde_json::to_value(&r.stop)
        .ok()
        .and_then(|v| v["reason"].as_str().map(str::to_string))
        .unwrap_or_default();
    result.steps = r.steps;
    result.no_call_steps = r.no_call_steps;
    result.tokens = r.usage.total_tokens;
    result.llm_seconds = r.llm_seconds;
    result.sandbox_seconds = r.tool_seconds;
    if r.record_error.is_some() {
        result.warning = r.record_error;
    }
    if r.answer.is_none() && !matches!(r.stop, crate::agent::StopReason::HostError(_)) {
        let missing = format!(
            "answer file missing: {} (scored as the empty answer, as the reference does)",
            settings.episode.prompts.answer_file
        );
        result.warning = Some(match result.warning.take() {
            Some(w) => format!("{missing}; {w}"),
            None => missing,
        });
    }
    match &r.stop {
        crate::agent::StopReason::LlmError(e) if settings.episode.deviations.llm_error_rows => {
            Err(format!("LLM error: {e}"))
        }
        crate::agent::StopReason::LlmError(e) => {
            result.warning = Some(match result.warning.take() {
                Some(w) => format!("LLM error (the answer file was scored): {e}; {w}"),
                None => format!("LLM error (the answer file was scored): {e}"),
            });
            Ok(Some(
                r.answer.map(|a| a.trim().to_string()).unwrap_or_default(),
            ))
        }
        crate::agent::StopReason::HostError(e) => Err(format!("sandbox host error: {e}")),
        // As the reference: the answer file stripped, missing = the empty string.
        _ => Ok(Some(
            r.answer.map(|a| a.trim().to_string()).unwrap_or_default(),
        )),
    }
}
