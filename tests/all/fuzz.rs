//! Bounded fuzzing of what parses untrusted text (issue 25, docs/security.md): the model's
//! text tool calls, `--extra_body` literals, requirement strings, the shell's observation cut
//! and the editor's `str_replace`, each fed thousands of generated inputs built from the
//! pieces their grammar cares about. Never a panic; round trips hold where there is one. The
//! generator is seeded, so a failure names the input that reproduces it.

use std::sync::Arc;
use std::time::Duration;

use llm_in_sandbox::shell::{
    CommandOutcome, CommandResult, ObservationFormat, Shell, ShellSettings, observation,
};
use llm_in_sandbox::tools::Toolbox;
use serde_json::json;

/// A small deterministic generator (xorshift64*).
struct Gen(u64);

impl Gen {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    /// A string of up to `max` pieces, each drawn from `pieces` or a random character.
    fn text(&mut self, pieces: &[&str], max: usize) -> String {
        let mut s = String::new();
        for _ in 0..self.below(max + 1) {
            if self.below(4) == 0 {
                let c = char::from_u32(self.next() as u32 % 0x11_0000).unwrap_or('\u{fffd}');
                s.push(c);
            } else {
                s.push_str(pieces[self.below(pieces.len())]);
            }
        }
        s
    }
}

const ROUNDS: usize = 3000;

#[test]
fn text_tool_calls_never_panic() {
    let pieces = [
        "<tool_call>",
        "</tool_call>",
        "<function=",
        "</function>",
        "<parameter=",
        "</parameter>",
        "{",
        "}",
        "[",
        "]",
        "\"",
        ":",
        ",",
        "name",
        "arguments",
        "execute_bash",
        "command",
        "\\",
        "\n",
        " ",
        ">",
        "<",
        "null",
        "1e999",
        "é",
    ];
    let mut g = Gen(0x1234_5678);
    for i in 0..ROUNDS {
        let text = g.text(&pieces, 40);
        let calls = std::panic::catch_unwind(|| llm_in_sandbox::llm::tool_calls_in_content(&text));
        assert!(calls.is_ok(), "round {i}: panicked on {text:?}");
    }
}

#[test]
fn extra_body_literals_never_panic() {
    let pieces = [
        "{", "}", "[", "]", "(", ")", "'", "\"", ":", ",", "True", "False", "None", "1", "-", ".",
        "e", "5", "\\", "x", "u", "'a'", "\"b\"", " ", "\n", "0x", "j",
    ];
    let mut g = Gen(0xfeed_beef);
    for i in 0..ROUNDS {
        let text = g.text(&pieces, 30);
        let r = std::panic::catch_unwind(|| llm_in_sandbox::config::parse_extra_body(&text));
        assert!(r.is_ok(), "round {i}: panicked on {text:?}");
    }
    // Deep nesting is an error, not a stack overflow.
    let deep = "{'a': ".repeat(100_000) + "1" + &"}".repeat(100_000);
    let r = std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || llm_in_sandbox::config::parse_extra_body(&deep).is_err())
        .expect("thread")
        .join();
    assert!(
        matches!(r, Ok(true)),
        "nested 100,000 deep: {r:?} (want an error)"
    );
}

#[test]
fn requirement_strings_never_panic_and_round_trip() {
    use llm_in_sandbox::packages::Requirement;
    let pieces = [
        "pint",
        "math-verify",
        "a_b",
        ".",
        "-",
        "[",
        "]",
        ",",
        "==",
        ">=",
        "<",
        "!=",
        "~=",
        "0.9",
        "1",
        "*",
        " ",
        ";",
        "@",
        "://",
        "/",
        "extra",
        "-r",
        "\t",
    ];
    let mut g = Gen(0xabcd_ef01);
    for i in 0..ROUNDS {
        let text = g.text(&pieces, 12);
        let parsed = std::panic::catch_unwind(|| Requirement::parse(&text));
        let Ok(parsed) = parsed else {
            panic!("round {i}: panicked on {text:?}");
        };
        if let Ok(req) = parsed {
            let again = Requirement::parse(&req.to_string())
                .unwrap_or_else(|e| panic!("round {i}: {text:?} -> {req} does not parse: {e}"));
            assert_eq!(again.to_string(), req.to_string(), "round {i}: {text:?}");
        }
    }
}

#[test]
fn the_observation_cut_never_panics_on_any_text() {
    let pieces = [
        "\n",
        "\r\n",
        "\r",
        "a",
        "é",
        "\u{1b}[31m",
        "\u{0}",
        "🙂",
        " ",
        "\t",
    ];
    let mut g = Gen(0x5151_5151);
    for i in 0..ROUNDS / 3 {
        let stdout = g.text(&pieces, 400);
        let stderr = g.text(&pieces, 50);
        let r = CommandResult {
            exit_code: [0, 1, 124, 2, -1][g.below(5)],
            stdout: stdout.clone(),
            stderr,
            outcome: [
                CommandOutcome::Completed,
                CommandOutcome::Timeout,
                CommandOutcome::SyntaxError,
            ][g.below(3)]
            .clone(),
            duration: Duration::from_millis(1),
            timeout: Duration::from_secs(120),
        };
        let f = ObservationFormat {
            max_lines: g.below(20),
            head_lines: g.below(20),
            tail_lines: g.below(20),
            exit_124_is_timeout: g.below(2) == 0,
        };
        let out = std::panic::catch_unwind(|| observation(&r, &f));
        assert!(out.is_ok(), "round {i}: panicked on {stdout:?} with {f:?}");
    }
}

#[tokio::test]
async fn str_replace_on_any_text_replaces_exactly_once_or_says_why() {
    let sb = Arc::new(crate::common::sandbox());
    let shell = Shell::new(sb.clone(), ShellSettings::default()).expect("shell");
    let mut tools = Toolbox::new(shell);
    let pieces = ["a", "b", "\n", "é", "\t", "  ", "x = 1", "🙂", "\r\n"];
    let mut g = Gen(0x7777_0001);
    for i in 0..200 {
        let text = g.text(&pieces, 30);
        let chars: Vec<char> = text.chars().collect();
        let from = g.below(chars.len() + 1);
        let to = (from + 1 + g.below(4)).min(chars.len());
        let old: String = chars[from.min(to)..to].iter().collect();
        let new = g.text(&pieces, 4);
        let path = format!("/testbed/f{i}.py");
        let create = tools
            .call(
                "str_replace_editor",
                &json!({"command": "create", "path": path, "file_text": text}).to_string(),
            )
            .await
            .expect("create");
        assert!(!create.error, "round {i}: {}", create.observation);
        let out = tools
            .call(
                "str_replace_editor",
                &json!({"command": "str_replace", "path": path, "old_str": old, "new_str": new})
                    .to_string(),
            )
            .await
            .expect("the call itself");
        let now = sb
            .workspace()
            .read_to_string(&format!("f{i}.py"))
            .expect("the file");
        if out.error {
            assert_eq!(now, text, "round {i}: a refused edit changed the file");
        } else {
            assert_eq!(
                text.matches(&old).count(),
                1,
                "round {i}: {old:?} in {text:?}"
            );
            assert_eq!(now, text.replacen(&old, &new, 1), "round {i}");
        }
    }
}

/// A valid tar of a few entries (files, a folder, a link), for mutation.
fn seed_tar() -> Vec<u8> {
    let mut b = tar::Builder::new(Vec::new());
    for (name, data) in [("a.txt", &b"hello"[..]), ("dir/b.py", b"print(1)\n")] {
        let mut h = tar::Header::new_gnu();
        h.set_size(data.len() as u64);
        h.set_mode(0o644);
        h.set_cksum();
        b.append_data(&mut h, name, data).expect("append");
    }
    let mut h = tar::Header::new_gnu();
    h.set_entry_type(tar::EntryType::Symlink);
    h.set_size(0);
    b.append_link(&mut h, "link", "a.txt").expect("link");
    b.into_inner().expect("tar")
}

/// Uploaded tars (mutated bytes of a valid one: flipped, cut, repeated, sizes and types
/// changed) and request bodies (valid ones cut, with values swapped for others of any type,
/// or nested deep) to every endpoint that reads them: each gets a 2xx or a 4xx, never a 5xx,
/// and the server keeps answering.
#[tokio::test(flavor = "multi_thread")]
async fn uploaded_tars_and_request_bodies_never_get_a_server_error() {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let srv = crate::serve::start(crate::serve::quiet()).await;
    let c = reqwest::Client::builder()
        .no_proxy()
        .timeout(Duration::from_secs(60))
        .build()
        .expect("client");
    let v: serde_json::Value = c
        .post(format!("{}/v1/sandboxes", srv.base))
        .json(&json!({}))
        .send()
        .await
        .expect("create")
        .json()
        .await
        .expect("json");
    let id = v["id"].as_str().expect("id").to_string();
    let mut g = Gen(0x1234_5678_9abc_def1);
    let seed = seed_tar();
    let mut statuses = std::collections::BTreeMap::new();
    for round in 0..300 {
        let mut t = seed.clone();
        for _ in 0..=g.below(8) {
            match g.below(5) {
                0 => {
                    let i = g.below(t.len());
                    t[i] = g.next() as u8;
                }
                1 => t.truncate(g.below(t.len() + 1)),
                2 => {
                    // A header's size or type field.
                    let at = [124 + g.below(12), 156][g.below(2)];
                    if at < t.len() {
                        t[at] = b"0123457xLKgS\0 "[g.below(14)];
                    }
                }
                3 => {
                    let cut = g.below(t.len() + 1);
                    let tail = t[cut..].to_vec();
                    t.extend_from_slice(&tail);
                }
                _ => t.extend((0..g.below(1024)).map(|_| g.next() as u8)),
            }
        }
        let r = c
            .put(format!(
                "{}/v1/sandboxes/{id}/archive?path=up{round}",
                srv.base
            ))
            .body(t)
            .send()
            .await
            .expect("the server answers");
        *statuses.entry(r.status().as_u16()).or_insert(0) += 1;
        assert!(
            !r.status().is_server_error(),
            "round {round}: {}",
            r.status()
        );
    }
    let bodies = [
        (
            "/run_code".to_string(),
            json!({"code": "print(1)", "language": "python", "run_timeout": 5,
                   "files": {"a.txt": "aGk="}, "fetch_files": ["a.txt"], "stdin": ""}),
        ),
        (
            "/run_jupyter".to_string(),
            json!({"cells": ["x = 1", "print(x)"], "files": {}, "kernel": "python3"}),
        ),
        (
            "/v1/sandboxes".to_string(),
            json!({"files": {"b.txt": "aGk="}, "limits": {"timeout_s": 5, "memory_mb": 512},
                   "env": {"A": "1"}, "key": "k"}),
        ),
        (
            format!("/v1/sandboxes/{id}/exec"),
            json!({"command": "echo hi", "timeout_s": 5}),
        ),
        (
            format!("/v1/sandboxes/{id}/python"),
            json!({"code": "print(2)", "timeout_s": 5}),
        ),
        (
            format!("/v1/sandboxes/{id}/tools"),
            json!({"name": "str_replace_editor",
                   "arguments": {"command": "view", "path": "/testbed"}}),
        ),
    ];
    let odd = [
        json!(null),
        json!(-1),
        json!(1e308),
        json!(""),
        json!("../../etc/passwd"),
        json!([]),
        json!({}),
        json!([1, "x", null]),
        json!(u64::MAX),
        json!("\u{0}"),
        json!({"a": {"b": {"c": []}}}),
    ];
    for round in 0..400 {
        let (path, valid) = &bodies[g.below(bodies.len())];
        let mut body = valid.clone();
        // Swap one field (top level or one down) for a value of another type.
        if let Some(obj) = body.as_object_mut() {
            let keys: Vec<String> = obj.keys().cloned().collect();
            let k = &keys[g.below(keys.len())];
            let new = odd[g.below(odd.len())].clone();
            match obj.get_mut(k) {
                Some(serde_json::Value::Object(inner)) if g.below(2) == 0 && !inner.is_empty() => {
                    let ik: Vec<String> = inner.keys().cloned().collect();
                    inner.insert(ik[g.below(ik.len())].clone(), new);
                }
                _ => {
                    obj.insert(k.clone(), new);
                }
            }
        }
        let mut text = body.to_string().into_bytes();
        match g.below(4) {
            0 => text.truncate(g.below(text.len() + 1)),
            1 => {
                let i = g.below(text.len());
                text[i] = g.next() as u8;
            }
            _ => {}
        }
        if round % 50 == 0 {
            text = format!("{}1{}", "[".repeat(20_000), "]".repeat(20_000)).into_bytes();
        }
        let r = c
            .post(format!("{}{path}", srv.base))
            .header("content-type", "application/json")
            .body(text.clone())
            .send()
            .await
            .expect("the server answers");
        *statuses.entry(r.status().as_u16()).or_insert(0) += 1;
        assert!(
            !r.status().is_server_error(),
            "{path} {}: {}: {}",
            r.status(),
            String::from_utf8_lossy(&text),
            r.text().await.unwrap_or_default()
        );
    }
    eprintln!("fuzzed tars and bodies: statuses {statuses:?}");
    // Still answering.
    let r = c
        .post(format!("{}/run_code", srv.base))
        .json(&json!({"code": "print(6*7)", "language": "python"}))
        .send()
        .await
        .expect("run_code");
    let v: serde_json::Value = r.json().await.expect("json");
    assert_eq!(v["run_result"]["stdout"], "42\n", "{v}");
}
