//! Whole episodes against a local fake OpenAI-compatible server, with the real sandbox.

use std::sync::Arc;
use std::time::Duration;

use llm_in_sandbox::agent::trajectory::Recorder;
use llm_in_sandbox::agent::{Budget, Episode, EpisodeResult, EpisodeSettings, StopReason};
use llm_in_sandbox::llm::{Client, LlmConfig};
use llm_in_sandbox::shell::{Shell, ShellSettings};
use llm_in_sandbox::tools::Toolbox;
use serde_json::Value;

use crate::common::sandbox;
use llm_in_sandbox::llm::fake::{FakeServer as FakeLlm, Reply};

struct Run {
    result: EpisodeResult,
    dir: tempfile::TempDir,
}

impl Run {
    fn trajectory(&self) -> Value {
        serde_json::from_slice(&std::fs::read(self.dir.path().join("trajectory.json")).unwrap())
            .unwrap()
    }
    fn events(&self) -> Vec<Value> {
        std::fs::read_to_string(self.dir.path().join("events.jsonl"))
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }
}

async fn episode(
    server: &FakeLlm,
    tweak: impl FnOnce(&mut LlmConfig, &mut EpisodeSettings),
) -> Run {
    let mut llm = LlmConfig::new(&server.url, "fake-model");
    llm.retry_base = Duration::from_millis(10);
    llm.request_timeout = Duration::from_secs(30);
    let mut settings = EpisodeSettings::default();
    tweak(&mut llm, &mut settings);
    let shell = Shell::new(Arc::new(sandbox()), ShellSettings::default()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let recorder =
        Recorder::start(dir.path(), serde_json::json!({"problem_statement": "task"})).unwrap();
    let result = Episode::new(
        Client::new(llm).unwrap(),
        Toolbox::new(shell),
        settings,
        recorder,
    )
    .run("What is 6 times 7?")
    .await;
    Run { result, dir }
}

fn tool_messages(req: &Value) -> Vec<(String, String)> {
    req["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| {
            (
                m["tool_call_id"].as_str().unwrap().to_string(),
                m["content"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn all_text(req: &Value) -> String {
    req["messages"].to_string()
}

#[tokio::test]
async fn a_scripted_episode_edits_runs_answers_and_submits() {
    let server = FakeLlm::scripted(
        vec![
            Reply::calls(&[(
                "str_replace_editor",
                r#"{"command": "create", "path": "/testbed/solve.py", "file_text": "print(6 * 7)\n"}"#,
            )]),
            Reply::calls(&[(
                "execute_bash",
                r#"{"command": "python3 solve.py > answer.txt; cat answer.txt"}"#,
            )]),
            Reply::calls(&[("submit", "{}")]),
        ],
        None,
    ).unwrap();
    let run = episode(&server, |_, _| {}).await;
    assert_eq!(run.result.stop, StopReason::Submitted);
    assert_eq!(run.result.answer.as_deref(), Some("42\n"));
    assert_eq!(run.result.steps, 3);
    assert_eq!(run.result.usage.total_tokens, 300);

    let reqs = server.requests();
    assert_eq!(reqs.len(), 3);
    for r in &reqs {
        let names: Vec<&str> = r["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["function"]["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["execute_bash", "str_replace_editor", "submit"]);
        assert_eq!(r["model"], "fake-model");
    }
    assert!(all_text(&reqs[0]).contains("Steps Remaining: 100"));
    // Every tool call answered exactly once, in order, with its id.
    let answered = tool_messages(&reqs[2]);
    assert_eq!(answered.len(), 2);
    assert_eq!(answered[0].0, "call_str_replace_editor_0");
    assert!(
        answered[0].1.starts_with(
            "Execution output of \\[str_replace_editor]:\nFile created at /testbed/solve.py. "
        ),
        "{}",
        answered[0].1
    );
    assert_eq!(answered[1].0, "call_execute_bash_0");
    assert!(
        answered[1]
            .1
            .starts_with("Exit code: 0\nExecution output of \\[execute_bash]:\n\\[STDOUT]\n42\n"),
        "{}",
        answered[1].1
    );
    assert!(
        answered[1].1.ends_with("Steps Remaining: 98"),
        "{}",
        answered[1].1
    );

    let t = run.trajectory();
    assert_eq!(t["problem_statement"], "task");
    assert_eq!(t["status"], "finished");
    assert_eq!(t["stop"]["reason"], "submitted");
    let steps = t["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 3);
    assert_eq!(steps[1]["action"]["function"], "execute_bash");
    assert_eq!(
        steps[1]["action"]["parameters"]["command"],
        "python3 solve.py > answer.txt; cat answer.txt"
    );
    assert_eq!(steps[1]["metadata"]["exit_code"], 0);
    assert_eq!(steps[0]["thought"], "Let me work.");
    let kinds: Vec<String> = run
        .events()
        .iter()
        .map(|e| e["type"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(kinds.iter().filter(|k| *k == "request").count(), 3);
    assert_eq!(kinds.last().map(String::as_str), Some("finish"));
}

#[tokio::test]
async fn tool_calls_written_in_content_work() {
    let server = FakeLlm::scripted(
        vec![
            Reply::text(
                "I'll compute it.\n<tool_call>\n{\"name\": \"execute_bash\", \"arguments\": {\"command\": \"echo 42 > answer.txt\"}}\n</tool_call>",
            ),
            Reply::text("Done.\n```json\n{\"name\": \"submit\", \"arguments\": {}}\n```"),
        ],
        None,
    ).unwrap();
    // Ours (`--text-tool-calls`); the reference would nudge these turns.
    let run = episode(&server, |_, s| s.deviations.text_tool_calls = true).await;
    assert_eq!(run.result.stop, StopReason::Submitted);
    assert_eq!(run.result.answer.as_deref(), Some("42\n"));
    let second = &server.requests()[1];
    let last = second["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(last["role"], "user");
    assert!(
        last["content"]
            .as_str()
            .unwrap()
            .starts_with("Observation (execute_bash):\nExit code: 0"),
        "{last}"
    );
}

#[tokio::test]
async fn bad_calls_become_observations_and_the_episode_goes_on() {
    let server = FakeLlm::scripted(
        vec![
            Reply::calls(&[("execute_bash", "{\"command\": ")]),
            Reply::calls(&[("launch_rockets", "{}")]),
            Reply::calls(&[("execute_bash", "{\"cmd\": \"ls\"}")]),
            Reply::text("The answer is 42."),
            Reply::calls(&[(
                "str_replace_editor",
                r#"{"command": "view", "path": "/etc/passwd"}"#,
            )]),
            Reply::calls(&[("submit", "{}")]),
        ],
        None,
    )
    .unwrap();
    let run = episode(&server, |_, _| {}).await;
    assert_eq!(run.result.stop, StopReason::Submitted);
    let reqs = server.requests();
    assert_eq!(reqs.len(), 6);
    // Arguments that are not JSON: as the reference, the turn counts as one without a call:
    // the nudge goes as a user message and the call stays unanswered.
    let last = reqs[1]["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(last["role"], "user");
    assert!(
        last["content"]
            .as_str()
            .unwrap()
            .starts_with("\nYou forgot to use a function call in your response. \n"),
        "{last}"
    );
    assert!(tool_messages(&reqs[1]).is_empty());
    assert_eq!(
        tool_messages(&reqs[2])[0].1,
        "Unknown action: launch_rockets\nSteps Remaining: 98"
    );
    // An unknown field is ignored; the missing `command` is the reference's error.
    assert_eq!(
        tool_messages(&reqs[3])[1].1,
        "Error: No command provided.\nSteps Remaining: 97"
    );
    assert!(all_text(&reqs[4]).contains("YOU MUST USE A FUNCTION CALL IN EACH RESPONSE."));
    assert!(
        tool_messages(&reqs[5])[2].1.contains("outside the sandbox"),
        "{:?}",
        tool_messages(&reqs[5])
    );
    // Every turn is a step, the two without a call too.
    let steps = run.trajectory()["steps"].as_array().unwrap().clone();
    assert_eq!(steps.len(), 6);
    assert_eq!(steps[0]["action"]["function"], "");
    assert_eq!(steps[3]["action"]["function"], "");
    assert_eq!(run.result.answer, None);
}

#[tokio::test]
async fn rate_limits_are_retried_after_retry_after() {
    let server = FakeLlm::scripted(
        vec![
            Reply::status(429, "{\"error\": \"slow down\"}").header("Retry-After", "1"),
            Reply::calls(&[("submit", "{}")]),
        ],
        None,
    )
    .unwrap();
    let run = episode(&server, |_, _| {}).await;
    assert_eq!(run.result.stop, StopReason::Submitted);
    assert_eq!(server.requests().len(), 2);
    let response = run
        .events()
        .into_iter()
        .find(|e| e["type"] == "response")
        .unwrap();
    assert_eq!(response["attempts"], 2);
    assert!(
        run.result.llm_seconds >= 1.0,
        "Retry-After was not honoured"
    );
}

#[tokio::test]
async fn persistent_server_errors_end_the_episode_with_a_saved_trajectory() {
    let server = FakeLlm::scripted(
        vec![Reply::calls(&[(
            "execute_bash",
            "{\"command\": \"echo partial > p.txt\"}",
        )])],
        Some(Reply::status(500, "{\"error\": \"boom\"}")),
    )
    .unwrap();
    let run = episode(&server, |llm, _| llm.max_retries = 2).await;
    match &run.result.stop {
        StopReason::LlmError(msg) => assert!(
            msg.contains("gave up after 3 attempts") && msg.contains("500"),
            "{msg}"
        ),
        other => panic!("unexpected stop {other:?}"),
    }
    assert_eq!(server.requests().len(), 4);
    let t = run.trajectory();
    assert_eq!(t["steps"].as_array().unwrap().len(), 1);
    assert_eq!(t["stop"]["reason"], "llm_error");
    assert!(run.events().iter().any(|e| e["type"] == "error"));
}

#[tokio::test]
async fn a_hung_server_hits_the_request_timeout() {
    let server = FakeLlm::scripted(
        vec![],
        Some(Reply::calls(&[("submit", "{}")]).delayed(Duration::from_secs(20))),
    )
    .unwrap();
    let run = episode(&server, |llm, _| {
        llm.request_timeout = Duration::from_millis(500);
        llm.max_retries = 1;
    })
    .await;
    match &run.result.stop {
        StopReason::LlmError(msg) => assert!(msg.contains("timed out"), "{msg}"),
        other => panic!("unexpected stop {other:?}"),
    }
    assert!(run.result.total_seconds < 15.0);
}

#[tokio::test]
async fn max_steps_and_token_limit_stop_the_episode() {
    // A model that runs `command` forever.
    let repeating = |command: &str, usage: u64| {
        let args = serde_json::json!({ "command": command }).to_string();
        FakeLlm::scripted(
            vec![],
            Some(Reply::calls(&[("execute_bash", &args)]).with_usage(usage)),
        )
        .unwrap()
    };
    let server = repeating("echo step", 100);
    let run = episode(&server, |_, s| s.max_steps = 3).await;
    assert_eq!(run.result.stop, StopReason::MaxSteps);
    assert_eq!(run.result.steps, 3);
    assert_eq!(server.requests().len(), 3);

    let server = repeating("echo step", 70_000);
    // Counted from the server's usage (`--budget server-usage`): after the first call.
    let run = episode(&server, |_, s| s.deviations.budget = Budget::ServerUsage).await;
    assert_eq!(run.result.stop, StopReason::TokenLimit);
    assert_eq!(run.result.steps, 1);

    // As the reference counts: before each call, over the messages (litellm's count); the
    // conversation passes 1,500 tokens after a few steps of long output.
    let server = repeating("seq 1 150", 100);
    let run = episode(&server, |_, s| s.max_token_limit = 1_500).await;
    assert_eq!(run.result.stop, StopReason::TokenLimit);
    let sent = server.requests().len() as u32;
    assert_eq!(run.result.steps, sent, "the limit stops before a call");
    assert!((2..10).contains(&sent), "{sent} calls");
    let last = server.requests().last().unwrap().clone();
    let msgs: Vec<llm_in_sandbox::llm::Message> =
        serde_json::from_value(last["messages"].clone()).unwrap();
    assert!(llm_in_sandbox::agent::count_tokens(&msgs) <= 1_500);
}

#[tokio::test]
async fn context_length_errors_shrink_max_tokens_then_end() {
    let too_long = || {
        Reply::status(
            400,
            "{\"error\": {\"message\": \"This model's maximum context length is 32768 tokens\"}}",
        )
    };
    let server =
        FakeLlm::scripted(vec![too_long(), Reply::calls(&[("submit", "{}")])], None).unwrap();
    let run = episode(&server, |_, s| s.max_tokens = Some(32_768)).await;
    assert_eq!(run.result.stop, StopReason::Submitted);
    let reqs = server.requests();
    assert_eq!(
        (
            reqs[0]["max_tokens"].as_u64(),
            reqs[1]["max_tokens"].as_u64()
        ),
        (Some(32_768), Some(16_384))
    );

    let server = FakeLlm::scripted(vec![], Some(too_long())).unwrap();
    let run = episode(&server, |_, s| s.max_tokens = Some(8192)).await;
    assert_eq!(run.result.stop, StopReason::ContextLength);
}

#[tokio::test]
async fn vllm_context_errors_fit_max_tokens_to_the_context() {
    let vllm = |input: u32| {
        Reply::status(
            400,
            &serde_json::json!({"object": "error", "type": "BadRequestError", "message": format!(
                "This model's maximum context length of 32768 tokens. You requested a total of {} tokens: {input} tokens from the input messages and 65536 tokens for the completion. Please reduce the length of the input messages or the completion.",
                input + 65_536
            )})
            .to_string(),
        )
    };
    let server =
        FakeLlm::scripted(vec![vllm(20_000), Reply::calls(&[("submit", "{}")])], None).unwrap();
    let run = episode(&server, |_, s| s.max_tokens = Some(65_536)).await;
    assert_eq!(run.result.stop, StopReason::Submitted);
    assert_eq!(run.result.steps, 1);
    let reqs = server.requests();
    assert_eq!(reqs.len(), 2);
    assert_eq!(reqs[0]["max_tokens"], 65_536);
    assert_eq!(reqs[1]["max_tokens"], 32_768 - 20_000 - 100);
    // The same step is asked again: the step counter is not appended twice.
    assert_eq!(reqs[0]["messages"], reqs[1]["messages"]);

    // Less than 8,192 tokens would fit: the episode ends.
    let server = FakeLlm::scripted(vec![], Some(vllm(25_000))).unwrap();
    let run = episode(&server, |_, s| s.max_tokens = Some(65_536)).await;
    assert_eq!(run.result.stop, StopReason::ContextLength);
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn only_the_first_tool_call_of_a_reply_runs() {
    let server = FakeLlm::scripted(
        vec![
            Reply::calls(&[
                ("execute_bash", r#"{"command": "echo first > order.txt"}"#),
                ("execute_bash", r#"{"command": "echo second >> order.txt"}"#),
            ]),
            Reply::calls(&[("execute_bash", r#"{"command": "cat order.txt"}"#)]),
            Reply::calls(&[("submit", "{}")]),
        ],
        None,
    )
    .unwrap();
    let run = episode(&server, |_, _| {}).await;
    assert_eq!(run.result.stop, StopReason::Submitted);
    let reqs = server.requests();
    assert_eq!(reqs.len(), 3);
    let answered = tool_messages(&reqs[2]);
    assert_eq!(answered.len(), 2, "{answered:?}");
    assert_eq!(answered[0].0, "call_execute_bash_0");
    assert!(
        answered[1]
            .1
            .contains("\\[STDOUT]\nfirst\n\nSteps Remaining: 98"),
        "the second call did not run: {}",
        answered[1].1
    );
    // As the reference, the history keeps both calls; only the first is answered.
    let assistant = &reqs[1]["messages"][2];
    assert_eq!(assistant["role"], "assistant");
    assert_eq!(assistant["tool_calls"].as_array().map(Vec::len), Some(2));
    assert_eq!(assistant["tool_calls"][0]["id"], "call_execute_bash_0");
    assert_eq!(tool_messages(&reqs[1]).len(), 1);
    let steps = run.trajectory()["steps"].as_array().unwrap().len();
    assert_eq!(steps, 3, "one call per reply");
}
