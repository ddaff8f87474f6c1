//! What the model sees, byte for byte the reference package's texts: real tool calls through
//! the real sandbox against `tests/fixtures/reference/*.txt`, and an episode against the fake
//! server checking the messages it was sent.

use std::sync::Arc;
use std::time::Duration;

use llm_in_sandbox::agent::trajectory::Recorder;
use llm_in_sandbox::agent::{Episode, EpisodeSettings, StopReason};
use llm_in_sandbox::llm::fake::{FakeServer, Reply};
use llm_in_sandbox::llm::{Client, LlmConfig};
use llm_in_sandbox::shell::{
    CommandOutcome, CommandResult, ObservationFormat, Shell, ShellSettings, observation,
};
use llm_in_sandbox::tools::{NO_TOOL_CALL, Toolbox};
use serde_json::{Value, json};

use crate::common::sandbox;

fn fixture(name: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/reference")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn toolbox_with(settings: ShellSettings) -> Toolbox {
    Toolbox::new(Shell::new(Arc::new(sandbox()), settings).unwrap())
}

fn toolbox() -> Toolbox {
    toolbox_with(ShellSettings::default())
}

async fn call(t: &mut Toolbox, name: &str, args: &str) -> String {
    t.call(name, args).await.unwrap().observation
}

async fn bash(t: &mut Toolbox, command: &str) -> String {
    call(
        t,
        "execute_bash",
        &json!({ "command": command }).to_string(),
    )
    .await
}

async fn edit(t: &mut Toolbox, args: Value) -> String {
    call(t, "str_replace_editor", &args.to_string()).await
}

/// `assert_eq!` with both texts shown escaped, so a stray newline or backslash is visible.
#[track_caller]
fn same(got: &str, fixture_name: &str) {
    let want = fixture(fixture_name);
    assert!(
        got == want,
        "{fixture_name} differs\n--- got ---\n{got:?}\n--- want ---\n{want:?}"
    );
}

#[tokio::test]
async fn bash_observations_match_the_reference() {
    let mut t = toolbox();
    same(&bash(&mut t, "echo hello; echo world").await, "bash_ok.txt");
    same(
        &bash(&mut t, "echo out; echo 'something failed' >&2; exit 3").await,
        "bash_error_stderr.txt",
    );
    same(
        &bash(&mut t, "echo 'only stderr' >&2; exit 1").await,
        "bash_blank_stdout.txt",
    );
    same(&bash(&mut t, "true").await, "bash_no_output.txt");
    same(
        &bash(
            &mut t,
            r#"for i in {1..100}; do echo "line $i"; done; for i in {1..90}; do echo "err $i" >&2; done"#,
        )
        .await,
        "bash_truncated.txt",
    );
    same(
        &bash(&mut t, r"printf '\033[1;32mgreen\033[0m\r\n50%%\r100%%\n'").await,
        "bash_colours.txt",
    );
    // Arguments the model invents beside `command` are ignored.
    same(
        &call(
            &mut t,
            "execute_bash",
            r#"{"command": "echo hello; echo world", "timeout": 30, "cwd": "/"}"#,
        )
        .await,
        "bash_ok.txt",
    );
}

#[tokio::test]
async fn a_timeout_reads_as_the_reference_with_our_limit() {
    // With the default 120 s limit the text is the reference's exactly.
    let timed_out = CommandResult {
        exit_code: 124,
        stdout: "partial output\n".into(),
        stderr: "partial error\n".into(),
        outcome: CommandOutcome::Timeout,
        duration: Duration::from_secs(120),
        timeout: ShellSettings::default().timeout,
    };
    same(
        &observation(&timed_out, &ObservationFormat::default()),
        "bash_timeout.txt",
    );
    // A real timeout under a 1 s limit names that limit.
    let mut t = toolbox_with(ShellSettings {
        timeout: Duration::from_secs(1),
        ..ShellSettings::default()
    });
    let got = bash(&mut t, "echo before; while true; do :; done").await;
    assert_eq!(
        got,
        fixture("bash_timeout.txt").replace("(>120s)", "(>1s)"),
        "{got:?}"
    );
}

#[tokio::test]
async fn editor_observations_match_the_reference() {
    let mut t = toolbox();
    let sb = t.shell().sandbox().clone();
    let ws = sb.workspace();
    let hello = "def greet(name):\n\treturn 'hi ' + name\n";
    same(
        &edit(
            &mut t,
            json!({"command": "create", "path": "/testbed/hello.py", "file_text": hello}),
        )
        .await,
        "editor_create.txt",
    );
    assert_eq!(ws.read_to_string("hello.py").unwrap(), hello);
    same(
        &edit(
            &mut t,
            json!({"command": "view", "path": "/testbed/hello.py"}),
        )
        .await,
        "editor_view.txt",
    );

    let notes: String = (1..=12).map(|i| format!("line {i}\n")).collect();
    ws.write("notes.py", &notes).unwrap();
    let view =
        |range: Value| json!({"command": "view", "path": "/testbed/notes.py", "view_range": range});
    same(
        &edit(&mut t, view(json!([2, 4]))).await,
        "editor_view_range.txt",
    );
    same(
        &edit(&mut t, view(json!([0, 3]))).await,
        "editor_view_range_start_error.txt",
    );
    same(
        &edit(&mut t, view(json!([3, 99]))).await,
        "editor_view_range_end_error.txt",
    );
    same(
        &edit(
            &mut t,
            json!({"command": "str_replace", "path": "/testbed/notes.py", "old_str": "line 7\n", "new_str": "line seven\nline 7.5\n"}),
        )
        .await,
        "editor_str_replace.txt",
    );
    ws.write("notes.py", &notes).unwrap();
    same(
        &edit(
            &mut t,
            json!({"command": "str_replace", "path": "/testbed/notes.py", "old_str": "absent", "new_str": "x"}),
        )
        .await,
        "editor_no_occurrence.txt",
    );
    same(
        &edit(
            &mut t,
            json!({"command": "str_replace", "path": "/testbed/notes.py", "old_str": "line 1", "new_str": "x"}),
        )
        .await,
        "editor_multiple_occurrences.txt",
    );
    same(
        &edit(
            &mut t,
            json!({"command": "str_replace", "path": "/testbed/notes.py", "new_str": "x"}),
        )
        .await,
        "editor_old_str_required.txt",
    );
    same(
        &edit(
            &mut t,
            json!({"command": "insert", "path": "/testbed/notes.py", "insert_line": 6, "new_str": "inserted a\ninserted b"}),
        )
        .await,
        "editor_insert.txt",
    );
    assert!(
        ws.read_to_string("notes.py")
            .unwrap()
            .contains("line 6\ninserted a\ninserted b\nline 7\n")
    );
    ws.write("notes.py", &notes).unwrap();
    same(
        &edit(
            &mut t,
            json!({"command": "insert", "path": "/testbed/notes.py", "insert_line": 99, "new_str": "x"}),
        )
        .await,
        "editor_insert_error.txt",
    );
    same(
        &edit(
            &mut t,
            json!({"command": "insert", "path": "/testbed/notes.py", "insert_line": 1}),
        )
        .await,
        "editor_new_str_required.txt",
    );
    same(
        &edit(
            &mut t,
            json!({"command": "view", "path": "/testbed/missing.py"}),
        )
        .await,
        "editor_not_found.txt",
    );
    same(
        &edit(&mut t, json!({"command": "view"})).await,
        "editor_required.txt",
    );
    same(
        &edit(
            &mut t,
            json!({"command": "rewrite", "path": "/testbed/notes.py"}),
        )
        .await,
        "editor_unknown_command.txt",
    );
    ws.write("empty.py", "").unwrap();
    same(
        &edit(
            &mut t,
            json!({"command": "view", "path": "/testbed/empty.py"}),
        )
        .await,
        "editor_empty_file.txt",
    );
    ws.write("big.py", "0123456789\n".repeat(2000)).unwrap();
    same(
        &edit(
            &mut t,
            json!({"command": "view", "path": "/testbed/big.py"}),
        )
        .await,
        "editor_clipped.txt",
    );
    for (rel, text) in [
        ("pkg/__init__.py", ""),
        ("pkg/sub/mod.py", "x = 1\n"),
        ("pkg/sub/deeper/far.py", ""),
        ("pkg/.cache/x.py", ""),
    ] {
        ws.write(rel, text).unwrap();
    }
    same(
        &edit(&mut t, json!({"command": "view", "path": "/testbed/pkg"})).await,
        "editor_view_dir.txt",
    );
    // Arguments the model invents are ignored.
    same(
        &edit(
            &mut t,
            json!({"command": "view", "path": "/testbed/missing.py", "explanation": "look", "view_range": null}),
        )
        .await,
        "editor_not_found.txt",
    );
}

#[tokio::test]
async fn submit_unknown_tools_and_unparsable_arguments() {
    let mut t = toolbox();
    let out = t.call("submit", "{}").await.unwrap();
    assert!(out.submitted);
    same(&out.observation, "submit.txt");
    same(
        &call(&mut t, "launch_rockets", r#"{"count": 3}"#).await,
        "unknown_tool.txt",
    );
    same(
        &call(&mut t, "execute_bash", "{\"command\": ").await,
        "nudge.txt",
    );
    // JSON that is not an object: the reference's header with no output.
    assert_eq!(
        call(&mut t, "execute_bash", "[\"ls\"]").await,
        "Exit code: 0\nExecution output of \\[execute_bash]:\n"
    );
    assert_eq!(
        call(&mut t, "str_replace_editor", "\"view\"").await,
        "Execution output of \\[str_replace_editor]:\n"
    );
    let out = t.call("submit", "[1]").await.unwrap();
    assert!(
        out.submitted,
        "submit with such arguments still ends the episode"
    );
    assert_eq!(NO_TOOL_CALL, fixture("nudge.txt"));
    assert_eq!(
        call(&mut t, "execute_bash", r#"{"command": ""}"#).await,
        "Error: No command provided."
    );
}

fn messages(req: &Value) -> Vec<(String, String)> {
    req["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["role"].as_str().unwrap_or_default().to_string(),
                m["content"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

#[tokio::test]
async fn an_episode_sends_the_reference_texts() {
    let server = FakeServer::scripted(
        vec![
            Reply::text("I think the answer is 42."),
            Reply::calls(&[("launch_rockets", "{}")]),
            Reply::calls(&[
                ("execute_bash", r#"{"command": "echo hello; echo world"}"#),
                ("execute_bash", r#"{"command": "echo never > never.txt"}"#),
            ]),
            Reply::calls(&[("submit", "{}")]),
        ],
        None,
    )
    .unwrap();
    let mut llm = LlmConfig::new(&server.url, "fake-model");
    llm.retry_base = Duration::from_millis(10);
    let settings = EpisodeSettings {
        max_steps: 5,
        ..EpisodeSettings::default()
    };
    let instance = settings.prompts.instance("What is 6 times 7?");
    let tools = toolbox();
    let sandbox = tools.shell().sandbox().clone();
    let dir = tempfile::tempdir().unwrap();
    let recorder = Recorder::start(dir.path(), json!({"problem_statement": "task"})).unwrap();
    let result = Episode::new(Client::new(llm).unwrap(), tools, settings, recorder)
        .run("What is 6 times 7?")
        .await;
    assert_eq!(result.stop, StopReason::Submitted);
    assert_eq!(result.steps, 4);
    assert!(
        !sandbox.workspace().exists("never.txt"),
        "a second call ran"
    );

    let reqs = server.requests();
    assert_eq!(reqs.len(), 4);
    let prompt = format!("{instance}\nSteps Remaining: 5");
    // Before each call the step counter is appended to the last message, and stays there.
    let first = messages(&reqs[0]);
    assert_eq!(first.len(), 2);
    assert_eq!(first[1], ("user".into(), prompt.clone()));
    let second = messages(&reqs[1]);
    assert_eq!(second[1].1, prompt);
    assert_eq!(
        second[2],
        ("assistant".into(), "I think the answer is 42.".into())
    );
    assert_eq!(
        second[3],
        (
            "user".into(),
            format!("{}\nSteps Remaining: 4", fixture("nudge.txt"))
        )
    );
    let third = messages(&reqs[2]);
    assert_eq!(
        third[3].1,
        format!("{}\nSteps Remaining: 4", fixture("nudge.txt"))
    );
    assert_eq!(
        third[5],
        (
            "tool".into(),
            format!("{}\nSteps Remaining: 3", fixture("unknown_tool.txt"))
        )
    );
    let fourth = messages(&reqs[3]);
    assert_eq!(fourth.len(), 8);
    assert_eq!(
        fourth[7],
        (
            "tool".into(),
            format!("{}\nSteps Remaining: 2", fixture("bash_ok.txt"))
        )
    );
    assert_eq!(
        reqs[3]["messages"][6]["tool_calls"]
            .as_array()
            .map(Vec::len),
        Some(2),
        "the reference keeps every call of the reply (only the first is answered)"
    );

    // The trajectory keeps the observations without the counter.
    let t: Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("trajectory.json")).unwrap())
            .unwrap();
    let observations: Vec<&str> = t["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["observation"].as_str().unwrap())
        .collect();
    // A turn without a call is a step too, with the nudge as its observation.
    assert_eq!(
        observations,
        [
            fixture("nudge.txt"),
            fixture("unknown_tool.txt"),
            fixture("bash_ok.txt"),
            fixture("submit.txt")
        ]
    );
}

#[tokio::test]
async fn the_last_step_is_told_one_step_remains() {
    let server = FakeServer::scripted(
        vec![],
        Some(Reply::calls(&[("execute_bash", r#"{"command": "true"}"#)])),
    )
    .unwrap();
    let mut llm = LlmConfig::new(&server.url, "fake-model");
    llm.retry_base = Duration::from_millis(10);
    let settings = EpisodeSettings {
        max_steps: 2,
        ..EpisodeSettings::default()
    };
    let dir = tempfile::tempdir().unwrap();
    let recorder = Recorder::start(dir.path(), json!({"problem_statement": "task"})).unwrap();
    let result = Episode::new(Client::new(llm).unwrap(), toolbox(), settings, recorder)
        .run("x")
        .await;
    assert_eq!(result.stop, StopReason::MaxSteps);
    let reqs = server.requests();
    assert_eq!(reqs.len(), 2);
    // As the reference's loop: the counter reaches 1, never 0, so its "reached the maximum
    // number of steps" text is never sent.
    let last = messages(&reqs[1]).pop().unwrap();
    assert_eq!(
        last,
        (
            "tool".into(),
            format!("{}\nSteps Remaining: 1", fixture("bash_no_output.txt"))
        )
    );
    assert!(
        !reqs[1]["messages"]
            .to_string()
            .contains("maximum number of steps")
    );
}
