//! `str_replace_editor` as the model uses it, through the toolbox.

use std::sync::Arc;

use llm_in_sandbox::shell::{Shell, ShellSettings};
use llm_in_sandbox::tools::Toolbox;
use llm_in_sandbox::tools::editor::CLIPPED_NOTE;
use serde_json::json;

use crate::common::sandbox;

fn toolbox() -> Toolbox {
    Toolbox::new(Shell::new(Arc::new(sandbox()), ShellSettings::default()).unwrap())
}

async fn edit(t: &mut Toolbox, args: serde_json::Value) -> (String, bool) {
    let out = t
        .call("str_replace_editor", &args.to_string())
        .await
        .unwrap();
    (out.observation, out.error)
}

#[tokio::test]
async fn create_view_replace_insert_undo() {
    let mut t = toolbox();
    let (o, err) = edit(&mut t, json!({"command": "create", "path": "/testbed/notes.md", "file_text": "alpha\nbeta\ngamma\n"})).await;
    assert!(!err && o.contains("/testbed/notes.md"), "{o}");
    let (o, err) = edit(
        &mut t,
        json!({"command": "create", "path": "notes.md", "file_text": "x"}),
    )
    .await;
    assert!(err && o.contains("already exists"), "{o}");
    let (o, _) = edit(
        &mut t,
        json!({"command": "view", "path": "/testbed/notes.md", "view_range": [2, -1]}),
    )
    .await;
    // The reference numbers every piece of `split('\n')`, the empty one after the last newline too.
    assert!(o.ends_with("     2\tbeta\n     3\tgamma\n     4\t"), "{o}");
    let (o, err) = edit(&mut t, json!({"command": "str_replace", "path": "/testbed/notes.md", "old_str": "beta", "new_str": "BETA"})).await;
    assert!(!err && o.contains("     2\tBETA\n"), "{o}");
    let (o, err) = edit(&mut t, json!({"command": "str_replace", "path": "/testbed/notes.md", "old_str": "a\n", "new_str": "A\n"})).await;
    assert!(
        err && o.ends_with(
            "Error: Multiple occurrences (2) of old_str found in /testbed/notes.md. Please ensure it is unique before using str_replace."
        ),
        "{o}"
    );
    let (o, err) = edit(&mut t, json!({"command": "str_replace", "path": "/testbed/notes.md", "old_str": "delta", "new_str": ""})).await;
    assert!(
        err && o.ends_with(
            "Error: No occurrences of old_str found in /testbed/notes.md for replacement."
        ),
        "{o}"
    );
    let (_, err) = edit(&mut t, json!({"command": "insert", "path": "/testbed/notes.md", "insert_line": 0, "new_str": "top"})).await;
    assert!(!err);
    let ws = t.shell().sandbox().workspace();
    assert_eq!(
        ws.read_to_string("notes.md").unwrap(),
        "top\nalpha\nBETA\ngamma\n"
    );
    let (_, err) = edit(
        &mut t,
        json!({"command": "undo_edit", "path": "/testbed/notes.md"}),
    )
    .await;
    assert!(!err);
    assert_eq!(
        t.shell()
            .sandbox()
            .workspace()
            .read_to_string("notes.md")
            .unwrap(),
        "alpha\nBETA\ngamma\n"
    );
    let (o, _) = edit(&mut t, json!({"command": "insert", "path": "/testbed/notes.md", "insert_line": 99, "new_str": "x"})).await;
    assert!(
        o.ends_with("Error: Invalid insert_line 99. Must be in [0, 4]."),
        "{o}"
    );
}

#[tokio::test]
async fn any_text_file_and_directories_can_be_viewed() {
    let mut t = toolbox();
    let ws = t.shell().sandbox().workspace();
    ws.write("data/table.csv", "a,b\n1,2\n").unwrap();
    ws.write("data/.hidden", "x").unwrap();
    let (o, _) = edit(
        &mut t,
        json!({"command": "view", "path": "/testbed/data/table.csv"}),
    )
    .await;
    assert!(o.contains("     1\ta,b\n     2\t1,2\n"), "{o}");
    let (o, _) = edit(&mut t, json!({"command": "view", "path": "/testbed"})).await;
    assert!(
        o.contains("\n/testbed\n/testbed/data\n/testbed/data/table.csv\n")
            && !o.contains(".hidden"),
        "{o}"
    );
}

#[tokio::test]
async fn long_files_are_clipped_and_paths_outside_are_refused() {
    let mut t = toolbox();
    t.shell()
        .sandbox()
        .workspace()
        .write("big.txt", "0123456789\n".repeat(5000))
        .unwrap();
    let (o, _) = edit(
        &mut t,
        json!({"command": "view", "path": "/testbed/big.txt"}),
    )
    .await;
    assert!(
        o.chars().count() <= 10_000 + 60 + CLIPPED_NOTE.len() && o.ends_with(CLIPPED_NOTE),
        "{}",
        o.len()
    );
    for path in [
        "/etc/passwd",
        "/testbed/../etc/passwd",
        "/usr/local/lib/python315.zip",
    ] {
        let (o, err) = edit(&mut t, json!({"command": "view", "path": path})).await;
        assert!(err && o.contains("outside the sandbox"), "{path}: {o}");
    }
    let (o, err) = edit(
        &mut t,
        json!({"command": "rewrite", "path": "/testbed/big.txt"}),
    )
    .await;
    assert!(err && o.contains("Unknown command"), "{o}");
    let (o, err) = edit(
        &mut t,
        json!({"command": "create", "path": "/testbed/x.txt"}),
    )
    .await;
    assert!(err && o.contains("file_text"), "{o}");
}

#[tokio::test]
async fn editor_writes_are_held_to_the_sandbox_quota() {
    let sb = crate::common::sandbox_in(|b| b.disk_quota(4096));
    let mut t = Toolbox::new(Shell::new(Arc::new(sb), ShellSettings::default()).unwrap());
    let big = "x".repeat(10_000);
    let (o, err) = edit(
        &mut t,
        json!({"command": "create", "path": "/testbed/big.txt", "file_text": big}),
    )
    .await;
    assert!(err && o.contains("disk quota exceeded"), "{o}");
    assert!(!t.shell().sandbox().workspace().exists("big.txt"));
    let (o, err) = edit(
        &mut t,
        json!({"command": "create", "path": "/testbed/small.txt", "file_text": "abc\n"}),
    )
    .await;
    assert!(!err, "{o}");
    // Growing a file past the quota is refused and leaves it as it was.
    let (o, err) = edit(
        &mut t,
        json!({"command": "str_replace", "path": "/testbed/small.txt", "old_str": "abc", "new_str": "y".repeat(8000)}),
    )
    .await;
    assert!(err && o.contains("disk quota exceeded"), "{o}");
    assert_eq!(
        t.shell().sandbox().workspace().read("small.txt").unwrap(),
        b"abc\n"
    );
    // What the editor wrote counts for the shell too.
    let r = t
        .call(
            "execute_bash",
            r#"{"command": "head -c 4095 /dev/zero > fill.bin; echo rc=$?"}"#,
        )
        .await
        .unwrap();
    assert!(r.observation.contains("rc=1"), "{}", r.observation);
}

#[tokio::test]
async fn the_editor_sees_root_as_python_and_the_shell_do() {
    // /root is the guest's home: a file the editor makes there is the one Python reads.
    let mut t = toolbox();
    let (o, err) = edit(
        &mut t,
        json!({"command": "create", "path": "/root/.config/app.toml", "file_text": "k = 1\n"}),
    )
    .await;
    assert!(!err, "{o}");
    let sb = t.shell().sandbox().clone();
    let r = crate::common::py(
        &sb,
        &[
            "-c",
            "from pathlib import Path; print((Path.home() / '.config/app.toml').read_text(), end='')",
        ],
    )
    .await;
    assert_eq!(crate::common::ok(&r), "k = 1\n");
    // (A directory view leaves out hidden paths, as the reference's `find` does.)
    let (o, err) = edit(
        &mut t,
        json!({"command": "create", "path": "/root/notes/todo.txt", "file_text": "x\n"}),
    )
    .await;
    assert!(!err, "{o}");
    let (o, err) = edit(&mut t, json!({"command": "view", "path": "/root/notes"})).await;
    assert!(!err && o.contains("/root/notes/todo.txt"), "{o}");
}

/// The improved editor (ours) names the argument, the kind it must be and what came, in words;
/// the reference's editor answers as its own code does (`tests/all/differential.rs`). Neither
/// shows a parser's message.
#[tokio::test]
async fn arguments_of_the_wrong_kind_are_named_in_words() {
    let mut t = toolbox();
    edit(
        &mut t,
        json!({"command": "create", "path": "/testbed/a.txt", "file_text": "a\nb"}),
    )
    .await;
    let cases = [
        (
            json!({"command": "insert", "path": "/testbed/a.txt", "insert_line": "", "new_str": "x"}),
            "Error: insert_line must be an integer, not str ('').",
        ),
        (
            json!({"command": "insert", "path": "/testbed/a.txt", "insert_line": 1.5, "new_str": "x"}),
            "Error: insert_line must be an integer, not float (1.5).",
        ),
        (
            json!({"command": "view", "path": "/testbed/a.txt", "view_range": "1,2"}),
            "Error: view_range must be a list of two integers, not str ('1,2').",
        ),
        (
            json!({"command": "create", "path": "/testbed/b.txt", "file_text": 42}),
            "Error: file_text must be a string, not int (42).",
        ),
        (
            json!({"command": ["view"], "path": "/testbed/a.txt"}),
            "Error: command must be a string, not list (['view']).",
        ),
    ];
    for (args, want) in cases {
        let (o, err) = edit(&mut t, args.clone()).await;
        assert!(err, "{args}: {o}");
        assert_eq!(
            o,
            format!("Execution output of \\[str_replace_editor]:\n{want}"),
            "{args}"
        );
    }
    // Null is the same as leaving it out; extra arguments are ignored.
    let (o, err) = edit(
        &mut t,
        json!({"command": "view", "path": "/testbed/a.txt", "view_range": null, "why": 1}),
    )
    .await;
    assert!(!err && o.contains("     2\tb"), "{o}");
}
