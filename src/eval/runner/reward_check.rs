//! Before any row: the task's `reward.py` tried once and on the sampled rows' ground truth, so
//! a missing package stops the run instead of scoring every row 0.

use std::sync::Arc;

use super::RunError;
use super::progress::ProgressOutput;
use super::settings::BenchSettings;
use crate::eval::dataset::Row;
use crate::eval::spec::RewardScript;
use crate::runtime::Runtime;

/// Rows whose ground truth the reward scores before a run.
pub(super) const TRUTH_SAMPLE: usize = 3;

/// Before a run: `compute_score("test", "test")` once, as the reference, so a missing package
/// stops the run here; then the reward on the sampled rows' own ground truths, so a reward
/// that swallows its failed import (and would score every row 0 without an error) stops it
/// too. With [`BenchSettings::reward_python_auto`], a script whose imports fail in the sandbox
/// moves to the host's python3 when that has them (said on stderr).
pub(super) async fn check_reward_script(
    script: &mut RewardScript,
    task: &str,
    judged: bool,
    sample: &[Row],
    runtime: &Arc<Runtime>,
    settings: &BenchSettings,
) -> Result<(), RunError> {
    use crate::eval::score::{check_reward, check_reward_on_truth};
    let broken = |check: &crate::eval::score::TruthCheck| {
        !judged && check.rows > 0 && check.all_zero && !check.failed_imports.is_empty()
    };
    let mut failure = check_reward(script, runtime).await.err();
    let mut truth = None;
    if failure.is_none() {
        let check = check_reward_on_truth(script, sample, runtime).await;
        if broken(&check) {
            failure = Some(format!(
                "reward.py of task {task} scores 0 on the ground truth of every sampled row \
                 ({} rows) because its own import of {} failed (it catches the error itself, \
                 so every row would score 0 without an error)",
                check.rows,
                check
                    .failed_imports
                    .iter()
                    .map(|n| format!("`{n}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        truth = Some(check);
    }
    let Some(why) = failure else {
        if let Some(check) = truth
            && check.all_zero
            && check.rows > 0
            && !judged
            && settings.progress != ProgressOutput::Off
        {
            eprintln!(
                "llm-in-sandbox: warning: reward.py of task {task} gives 0 to the ground truth of \
                 all {} sampled rows; check that it scores what you expect",
                check.rows
            );
        }
        return Ok(());
    };
    if !(settings.reward_python_auto && !script.host && script.path.is_some()) {
        return Err(RunError::Reward(why));
    }
    // Auto: the same checks with the host's python3.
    script.host = true;
    let host_failure = match check_reward(script, runtime).await {
        Err(e) => Some(e),
        Ok(()) => {
            let check = check_reward_on_truth(script, sample, runtime).await;
            broken(&check).then(|| {
                format!(
                    "the host's python3 lacks {} too: install what reward.py imports there \
                     (e.g. python3 -m pip install {}; IFBench needs IFBENCH_PATH)",
                    check.failed_imports.join(", "),
                    check.failed_imports.join(" ")
                )
            })
        }
    };
    match host_failure {
        None => {
            eprintln!(
                "llm-in-sandbox: reward.py of task {task} runs with the host's python3: in the \
                 sandbox, {why}"
            );
            Ok(())
        }
        Some(host) => Err(RunError::Reward(format!("{why}; {host}"))),
    }
}
