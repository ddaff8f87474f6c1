//! Before any row: the task's prompts, judge and packages checked against the run's settings.

use std::sync::Arc;

use super::RunError;
use super::reward_check::{TRUTH_SAMPLE, check_reward_script};
use super::settings::{BenchSettings, Mode};
use crate::eval::dataset::{Row, TaskSpec};
use crate::eval::spec::Scorer;
use crate::runtime::Runtime;

/// Check the task against the run's settings and make it ready: its prompts replace the run's,
/// a judged task needs a judge, its packages are installed, its `reward.py` is tried on the
/// first rows' ground truth. The task as the run uses it.
pub(super) async fn prepare_task(
    runtime: &Arc<Runtime>,
    task: &TaskSpec,
    rows: &[Row],
    settings: &mut BenchSettings,
) -> Result<TaskSpec, RunError> {
    // The task's prompts (checked when the task was loaded) replace the run's.
    if let Some(p) = &task.prompts {
        settings.episode.prompts = p.clone();
    }
    settings.episode.prompts.check("the prompts")?;
    if task.scorer == Scorer::Judge && settings.judge.is_none() {
        return Err(RunError::Reward(format!(
            "task {} is scored by an LLM judge (scorer: judge): give --judge-model (and \
             --judge-base-url when the judge is served elsewhere than the model)",
            task.name
        )));
    }
    // The task's packages go into each episode's sandbox and into the sandbox its reward.py
    // or vanilla_llm_prompt.py runs in.
    let in_wasm = |s: &Scorer| matches!(s, Scorer::Reward(r) if !r.host);
    if !task.requirements.is_empty()
        && (settings.mode == Mode::Sandbox || in_wasm(&task.scorer) || task.llm_prompt_py.is_some())
    {
        prepare_requirements(runtime, task, settings).await?;
    }
    let mut task = task.clone();
    if let Scorer::Reward(script) = &mut task.scorer {
        let judged = settings.judge.is_some()
            || task
                .dir
                .as_ref()
                .is_some_and(|d| d.join("judge.py").is_file());
        let sample = &rows[..rows.len().min(TRUTH_SAMPLE)];
        check_reward_script(script, &task.name, judged, sample, runtime, settings).await?;
    }
    Ok(task)
}

/// Resolve the task's `requirements.txt` once before any row (through the cache every sandbox
/// shares), so a package that cannot be installed stops the run here and each episode's
/// install is answered from the cache.
async fn prepare_requirements(
    runtime: &Arc<Runtime>,
    task: &TaskSpec,
    settings: &BenchSettings,
) -> Result<(), RunError> {
    let refuse = |detail: String| RunError::Requirements {
        task: task.name.clone(),
        detail,
    };
    if !settings.sandbox.network.pip() {
        return Err(refuse(
            "pip is off (--pip off); run with --pip on, or put the packages into the site layer \
             with `llm-in-sandbox setup --with ...`"
                .into(),
        ));
    }
    let (rt, reqs) = (runtime.clone(), task.requirements.clone());
    crate::runtime::executor::blocking(move || {
        crate::packages::resolve(rt.cache_root(), &reqs, rt.pip_settings()).map(drop)
    })
    .await
    .map_err(|e| refuse(e.to_string()))?
    .map_err(|e| refuse(e.to_string()))
}
