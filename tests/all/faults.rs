//! Faults typed by whose they are: a guest's trap is its own outcome; a full instance pool
//! makes calls wait, and past their deadline it is a host error that ends the episode without
//! ever reaching the model's observation.

use std::sync::Arc;
use std::time::Duration;

use llm_in_sandbox::agent::trajectory::Recorder;
use llm_in_sandbox::agent::{Episode, EpisodeSettings, StopReason};
use llm_in_sandbox::llm::fake::{FakeServer, Reply};
use llm_in_sandbox::llm::{Client, LlmConfig};
use llm_in_sandbox::runtime::{Limits, Runtime, RuntimeError};
use llm_in_sandbox::sandbox::{Sandbox, SandboxError};
use llm_in_sandbox::shell::{Shell, ShellSettings};
use llm_in_sandbox::tools::{ToolFault, Toolbox};

use crate::common::{ok, own_runtime, py, show};

fn sandbox_on(rt: &Arc<Runtime>, timeout: Duration) -> Sandbox {
    Sandbox::builder(rt.clone())
        .limits(Limits {
            timeout,
            ..Limits::default()
        })
        .build()
        .unwrap()
}

#[tokio::test]
async fn more_calls_than_slots_wait_for_one() {
    let rt = own_runtime(2).await;
    let calls = (0..6).map(|i| {
        let sb = sandbox_on(&rt, Duration::from_secs(60));
        async move {
            let code = format!("import time; time.sleep(0.2); print({i})");
            py(&sb, &["-c", &code]).await
        }
    });
    let results = futures_join_all(calls).await;
    for (i, r) in results.iter().enumerate() {
        assert_eq!(ok(r), format!("{i}\n"), "call {i}: {}", show(r));
    }
}

async fn futures_join_all<F>(fs: impl Iterator<Item = F>) -> Vec<F::Output>
where
    F: std::future::Future + Send + 'static,
    F::Output: Send + 'static,
{
    let handles: Vec<_> = fs.map(tokio::spawn).collect();
    let mut out = Vec::new();
    for h in handles {
        out.push(h.await.unwrap());
    }
    out
}

#[tokio::test]
async fn no_slot_before_the_deadline_is_a_host_error_not_a_guest_outcome() {
    let rt = own_runtime(1).await;
    // The holder keeps the one slot until the test lets it go (however slow a loaded machine
    // makes each step below), and says when it has it.
    let holder = Arc::new(sandbox_on(&rt, Duration::from_secs(300)));
    let hold = tokio::spawn({
        let holder = holder.clone();
        async move {
            py(
                &holder,
                &[
                    "-c",
                    "import os, time\nopen('holding', 'w').close()\nt = time.time()\n\
                     while not os.path.exists('release') and time.time() - t < 240: \
                     time.sleep(0.05)\nprint('held')",
                ],
            )
            .await
        }
    });
    let waited = std::time::Instant::now();
    while !holder.workspace().exists("holding") {
        assert!(waited.elapsed().as_secs() < 120, "the holder never started");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // A call that cannot get the one slot within its deadline: an error, not a RunResult.
    let waiting = sandbox_on(&rt, Duration::from_millis(300));
    let err = waiting
        .python(&["-c".into(), "print(1)".into()], b"")
        .await
        .expect_err("must not run without a slot");
    assert!(
        matches!(
            err,
            SandboxError::Runtime(RuntimeError::Busy { slots: 1, .. })
        ),
        "{err:?}"
    );
    // The same through the tools: a host fault, never an observation.
    let shell = Shell::new(
        Arc::new(sandbox_on(&rt, Duration::from_millis(300))),
        ShellSettings::default(),
    )
    .unwrap();
    let mut tools = Toolbox::new(shell);
    let fault = tools
        .call("execute_bash", r#"{"command": "python3 -c 'print(1)'"}"#)
        .await
        .expect_err("a host fault");
    assert!(
        matches!(&fault, ToolFault::Host(m) if m.contains("slots stayed busy")),
        "{fault:?}"
    );
    // ...and an episode meeting it ends with HostError, without telling the model.
    let server = FakeServer::scripted(
        vec![Reply::calls(&[(
            "execute_bash",
            r#"{"command": "python3 -c 'print(1)'"}"#,
        )])],
        Some(Reply::calls(&[("submit", "{}")])),
    )
    .unwrap();
    let shell = Shell::new(
        Arc::new(sandbox_on(&rt, Duration::from_millis(300))),
        ShellSettings::default(),
    )
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let recorder = Recorder::start(dir.path(), serde_json::json!({})).unwrap();
    let result = Episode::new(
        Client::new(LlmConfig::new(&server.url, "fake")).unwrap(),
        Toolbox::new(shell),
        EpisodeSettings::default(),
        recorder,
    )
    .run("task")
    .await;
    assert!(
        matches!(&result.stop, StopReason::HostError(m) if m.contains("slots stayed busy")),
        "{:?}",
        result.stop
    );
    assert_eq!(
        server.requests().len(),
        1,
        "the model saw nothing of the fault"
    );
    // The call that held the slot finishes normally once let go.
    holder.workspace().write("release", "").expect("release");
    assert_eq!(ok(&hold.await.unwrap()), "held\n");
}

/// A million nested `map`s: `next` recurses in C with no depth check and overflows the
/// WebAssembly call stack (a trap, in under a second).
const TRAPS: &str = "g = iter([1])\nfor i in range(1000000): g = map(abs, g)\nprint(next(g))";

#[tokio::test]
async fn a_guest_trap_is_the_guests_outcome_and_the_episode_goes_on() {
    let sb = crate::common::sandbox();
    let r = py(&sb, &["-c", TRAPS]).await;
    assert_eq!(r.exit_code, 134, "{}", show(&r));
    assert!(
        matches!(&r.outcome, llm_in_sandbox::runtime::Outcome::Trap(m) if m.contains("call stack exhausted")),
        "{}",
        show(&r)
    );
    // The sandbox is fine afterwards.
    assert_eq!(ok(&py(&sb, &["-c", "print('next')"]).await), "next\n");
    // Through the tools it is an observation (the model's doing), not a fault.
    let shell = Shell::new(Arc::new(crate::common::sandbox()), ShellSettings::default()).unwrap();
    let mut tools = Toolbox::new(shell);
    std::fs::write(
        tools
            .shell()
            .sandbox()
            .workspace()
            .host_path()
            .join("deep.py"),
        TRAPS,
    )
    .unwrap();
    let out = tools
        .call(
            "execute_bash",
            r#"{"command": "python3 deep.py; echo after=$?"}"#,
        )
        .await
        .expect("a guest crash is not a host fault");
    assert!(
        out.observation.contains("python3: crashed"),
        "{}",
        out.observation
    );
    assert!(out.observation.contains("after=134"), "{}", out.observation);
}
