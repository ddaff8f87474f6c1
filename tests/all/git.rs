//! The shell's own `git` (src/shell/git): the commands models use, byte for byte as git
//! prints them; the repository it writes read by the host's real git (and the other way
//! round); and the walls: no path outside the sandbox's directories, no network.

use std::path::Path;
use std::sync::Arc;

use llm_in_sandbox::shell::{Shell, ShellSettings};

use crate::common::{bash, sandbox, shell_over, shown};

/// Fixed identities and dates, so commit ids are the same wherever the test runs.
const IDENTITY: &str = "export GIT_AUTHOR_NAME='A U Thor' GIT_AUTHOR_EMAIL=author@example.com \
    GIT_COMMITTER_NAME='C O Mitter' GIT_COMMITTER_EMAIL=committer@example.com \
    GIT_AUTHOR_DATE='@1700000000 +0000' GIT_COMMITTER_DATE='@1700000000 +0000'\n";

fn shell() -> Shell {
    shell_over(sandbox())
}

/// The host's git, with no user or system config of its own; `None` (and a SKIPPED line)
/// when there is none.
fn host_git(test: &str) -> Option<impl Fn(&Path, &[&str]) -> (String, i32)> {
    let found = std::process::Command::new("git")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        eprintln!("SKIPPED {test}: no git on this machine");
        return None;
    }
    let home = tempfile::tempdir().expect("temp home").keep();
    Some(move |dir: &Path, args: &[&str]| {
        let out = std::process::Command::new("git")
            .arg("-C")
            .arg(dir)
            .args(args)
            .env("HOME", &home)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env_remove("GIT_DIR")
            .env_remove("GIT_WORK_TREE")
            .env_remove("GIT_INDEX_FILE")
            .output()
            .expect("run host git");
        let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
        text.push_str(&String::from_utf8_lossy(&out.stderr));
        (text, out.status.code().unwrap_or(-1))
    })
}

#[tokio::test]
async fn init_add_commit_status_diff_log_print_what_git_prints() {
    let mut sh = shell();
    let r = bash(
        &mut sh,
        &format!(
            "{IDENTITY}git init\ngit status\nprintf 'one\\ntwo\\nthree\\n' > a.txt\n\
             git add a.txt\ngit status --short\ngit commit -m first"
        ),
    )
    .await;
    assert_eq!(
        r.stdout,
        "Initialized empty Git repository in /testbed/.git/\n\
         On branch master\n\nNo commits yet\n\n\
         nothing to commit (create/copy files and use \"git add\" to track)\n\
         A  a.txt\n\
         [master (root-commit) 4dbe18a] first\n 1 file changed, 3 insertions(+)\n \
         create mode 100644 a.txt\n",
        "{}",
        shown(&r)
    );
    let r = bash(
        &mut sh,
        &format!(
            "{IDENTITY}printf 'one\\n2\\nthree\\n' > a.txt\necho new > b.txt\n\
             git status\ngit diff\ngit log\ngit rev-parse HEAD"
        ),
    )
    .await;
    assert_eq!(r.exit_code, 0, "{}", shown(&r));
    assert_eq!(
        r.stdout,
        "On branch master\n\
         Changes not staged for commit:\n\
         \x20 (use \"git add <file>...\" to update what will be committed)\n\
         \x20 (use \"git restore <file>...\" to discard changes in working directory)\n\
         \tmodified:   a.txt\n\n\
         Untracked files:\n\
         \x20 (use \"git add <file>...\" to include in what will be committed)\n\
         \tb.txt\n\n\
         no changes added to commit (use \"git add\" and/or \"git commit -a\")\n\
         diff --git a/a.txt b/a.txt\n\
         index 4cb29ea..f04eb26 100644\n\
         --- a/a.txt\n\
         +++ b/a.txt\n\
         @@ -1,3 +1,3 @@\n one\n-two\n+2\n three\n\
         commit 4dbe18a2bd43cb4220c6d66845b329bd7c35873d\n\
         Author: A U Thor <author@example.com>\n\
         Date:   Tue Nov 14 22:13:20 2023 +0000\n\n    first\n\
         4dbe18a2bd43cb4220c6d66845b329bd7c35873d\n",
        "{}",
        shown(&r)
    );
    // Staged, committed with -a, then the short forms.
    let r = bash(
        &mut sh,
        &format!(
            "{IDENTITY}git add b.txt\ngit diff --cached --stat\ngit commit -q -am second\n\
             git log --oneline\ngit show --stat --format=%s\ngit status --porcelain"
        ),
    )
    .await;
    assert_eq!(r.exit_code, 0, "{}", shown(&r));
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(
        lines[..2],
        [" b.txt | 1 +", " 1 file changed, 1 insertion(+)"],
        "{}",
        shown(&r)
    );
    assert!(
        lines[2].ends_with(" second") && lines[3] == "4dbe18a first",
        "{}",
        shown(&r)
    );
    assert_eq!(
        lines[4..],
        [
            "second",
            "",
            " a.txt | 2 +-",
            " b.txt | 1 +",
            " 2 files changed, 2 insertions(+), 1 deletion(-)"
        ],
        "{}",
        shown(&r)
    );
}

#[tokio::test]
async fn branches_checkout_reset_stash_and_ignores() {
    let mut sh = shell();
    let r = bash(
        &mut sh,
        &format!(
            "{IDENTITY}git init -q -b main\nprintf 'x\\n' > f\nprintf '*.log\\nbuild/\\n' > .gitignore\n\
             mkdir build; touch build/out debug.log\ngit add .\ngit status -s\n\
             git commit -q -m base\ngit checkout -q -b topic\necho y >> f\ngit commit -q -am topic\n\
             git checkout -q main\ncat f\ngit branch\ngit log --oneline --all | wc -l\n\
             git checkout -q -\ngit rev-parse --abbrev-ref HEAD\ngit checkout -q main\n\
             echo dirty >> f\ngit stash -q\ncat f\ngit stash list\ngit stash pop -q\n\
             git status -s\ngit checkout -- f\ngit status -s\n\
             git reset -q --hard topic\ncat f\ngit reset -q --hard HEAD~1\ncat f"
        ),
    )
    .await;
    assert_eq!(r.exit_code, 0, "{}", shown(&r));
    assert_eq!(
        r.stdout,
        "A  .gitignore\nA  f\nx\n* main\n  topic\n2\ntopic\nx\n\
         stash@{0}: WIP on main: 337d338 base\n M f\nx\ny\nx\n",
        "{}",
        shown(&r)
    );
    // An ignored file named explicitly is refused (exit 1), as git does.
    let r = bash(&mut sh, "git add debug.log").await;
    assert_eq!(r.exit_code, 1, "{}", shown(&r));
    assert!(
        r.stderr.contains("ignored by one of your .gitignore files"),
        "{}",
        shown(&r)
    );
    let r = bash(
        &mut sh,
        "git grep -n x; git grep -c nomatch; echo rc=$?\ngit reflog -1",
    )
    .await;
    assert_eq!(
        r.stdout,
        "f:1:x\nrc=1\n337d338 HEAD@{0}: reset: moving to HEAD~1\n",
        "{}",
        shown(&r)
    );
}

#[tokio::test]
async fn host_git_reads_the_repository_and_agrees() {
    let Some(git) = host_git("host_git_reads_the_repository_and_agrees") else {
        return;
    };
    let mut sh = shell();
    let r = bash(
        &mut sh,
        &format!(
            "{IDENTITY}git init -q\nmkdir -p src/pkg\nprintf 'def f():\\n    return 1\\n' > src/pkg/m.py\n\
             printf 'a\\nb\\nc\\nd\\ne\\nf\\ng\\nh\\n' > notes.txt\nchmod +x src/pkg/m.py\n\
             git add -A\ngit commit -q -m 'first\n\nwith a body'\n\
             printf 'a\\nB\\nc\\nd\\ne\\nf\\ng\\nh\\ni\\n' > notes.txt\ngit rm -q --cached src/pkg/m.py\n\
             git commit -q -m second\ngit tag v1\ngit branch side HEAD~1\n\
             echo more >> notes.txt\necho new > new.txt\n\
             git log --oneline\ngit diff\ngit status --porcelain"
        ),
    )
    .await;
    assert_eq!(r.exit_code, 0, "{}", shown(&r));
    let ws = sh.sandbox().workspace().host_path().to_path_buf();
    let (fsck, code) = git(&ws, &["fsck", "--strict", "--no-dangling"]);
    assert_eq!((fsck.as_str(), code), ("", 0), "git fsck on our repository");
    let ours_log = r.stdout.lines().take(2).collect::<Vec<_>>().join("\n") + "\n";
    assert_eq!(git(&ws, &["log", "--oneline"]).0, ours_log);
    let (diff, _) = git(&ws, &["diff"]);
    let (status, _) = git(&ws, &["status", "--porcelain"]);
    assert_eq!(
        format!("{ours_log}{diff}{status}"),
        r.stdout,
        "host git's view"
    );
    assert_eq!(
        git(&ws, &["rev-parse", "side", "v1^{commit}", "HEAD~1"]).1,
        0
    );
    let (shown, _) = git(&ws, &["show", "-s", "--format=%an|%ce|%at|%B", "HEAD~1"]);
    assert_eq!(
        shown,
        "A U Thor|committer@example.com|1700000000|first\n\nwith a body\n\n"
    );
    // The index is one git understands: nothing staged, the executable file untracked.
    let (files, _) = git(&ws, &["ls-files", "-s"]);
    assert!(files.starts_with("100644 "), "{files}");
    assert!(!files.contains("m.py"), "{files}");
}

#[tokio::test]
async fn our_git_reads_a_packed_repository_the_host_made() {
    let Some(git) = host_git("our_git_reads_a_packed_repository_the_host_made") else {
        return;
    };
    let mut sh = shell();
    let ws = sh.sandbox().workspace().host_path().to_path_buf();
    let ident = [
        ("GIT_AUTHOR_NAME", "H"),
        ("GIT_AUTHOR_EMAIL", "h@example.com"),
        ("GIT_COMMITTER_NAME", "H"),
        ("GIT_COMMITTER_EMAIL", "h@example.com"),
    ];
    assert_eq!(git(&ws, &["init", "-q", "-b", "main"]).1, 0);
    for i in 1..=4 {
        let body: String = (1..=i * 40).map(|n| format!("line {n}\n")).collect();
        std::fs::write(ws.join("f.txt"), body).expect("write");
        let add = git(&ws, &["add", "-A"]);
        assert_eq!(add.1, 0, "{}", add.0);
        let out = std::process::Command::new("git")
            .arg("-C")
            .arg(&ws)
            .args(["commit", "-q", "-m", &format!("c{i}")])
            .envs(ident)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .output()
            .expect("commit");
        assert!(out.status.success(), "{out:?}");
    }
    let gc = git(&ws, &["gc", "-q", "--aggressive"]);
    assert_eq!(gc.1, 0, "{}", gc.0);
    std::fs::write(ws.join("f.txt"), "changed\n").expect("write");
    let r = bash(
        &mut sh,
        "git log --format=%s\ngit status -s\ngit diff --stat HEAD~3 HEAD\ngit show HEAD~1:f.txt | wc -l",
    )
    .await;
    assert_eq!(r.exit_code, 0, "{}", shown(&r));
    let (stat, _) = git(&ws, &["diff", "--stat", "HEAD~3", "HEAD"]);
    assert_eq!(
        r.stdout,
        format!("c4\nc3\nc2\nc1\n M f.txt\n{stat}120\n"),
        "{}",
        shown(&r)
    );
}

#[tokio::test]
async fn git_stays_inside_the_sandbox() {
    let mut sh = shell();
    let cases = [
        "git -C /etc init",
        "cd /etc && git init",
        "git init /etc/repo",
        "git --git-dir=/ status",
        "git --git-dir=/etc --work-tree=/testbed status",
        "GIT_DIR=/etc git log",
        "git --work-tree=/etc status",
        "HOME=/etc git config --global user.name x",
    ];
    for script in cases {
        let r = bash(&mut sh, script).await;
        assert_eq!(r.exit_code, 128, "{script}: {}", shown(&r));
        assert!(
            r.stderr.contains("outside the sandbox's directories"),
            "{script}: {}",
            shown(&r)
        );
    }
    let r = bash(
        &mut sh,
        "cd /testbed && git init -q && echo x > a && git add ../../etc/passwd; echo rc=$?\n\
         mkdir sub && echo 'gitdir: ../../etc' > sub/.git && cd sub && git status; echo rc=$?\n\
         cd /testbed && rm -rf sub\n\
         printf -- '--- a/../../x\\n+++ b/../../x\\n@@ -0,0 +1 @@\\n+pwned\\n' > p.diff\n\
         git apply p.diff; echo rc=$?",
    )
    .await;
    assert_eq!(r.stdout, "rc=128\nrc=128\nrc=128\n", "{}", shown(&r));
    assert!(
        r.stderr.contains("is outside repository at '/testbed'"),
        "{}",
        shown(&r)
    );
    assert!(!Path::new("/x").exists());
    // A repository under /tmp (the sandbox's own) is fine.
    let r = bash(
        &mut sh,
        "git init -q /tmp/r && cd /tmp/r && git status -s; echo rc=$?",
    )
    .await;
    assert_eq!(r.stdout, "rc=0\n", "{}", shown(&r));
}

#[tokio::test]
async fn unsupported_subcommands_fail_cleanly() {
    let mut sh = shell();
    for (script, words) in [
        (
            "git clone https://example.com/r.git",
            "'clone' is not supported in this sandbox",
        ),
        (
            "git push origin main",
            "'push' is not supported in this sandbox",
        ),
        ("git fetch", "'fetch' is not supported in this sandbox"),
        ("git frobnicate", "'frobnicate' is not a git command"),
    ] {
        let r = bash(&mut sh, script).await;
        assert_eq!(r.exit_code, 1, "{script}: {}", shown(&r));
        assert!(r.stderr.contains(words), "{script}: {}", shown(&r));
    }
    let r = bash(&mut sh, "git status").await;
    assert_eq!(r.exit_code, 128, "{}", shown(&r));
    assert_eq!(
        r.stderr,
        "fatal: not a git repository (or any of the parent directories): .git\n"
    );
    let r = bash(&mut sh, "git --version; git commit").await;
    assert_eq!(r.stdout, "git version 2.39.5\n", "{}", shown(&r));
}

#[tokio::test]
async fn python_subprocess_finds_and_runs_git() {
    let mut sh = shell();
    let r = bash(
        &mut sh,
        "python3 -c \"\nimport shutil, subprocess\nprint(shutil.which('git'))\n\
         print(subprocess.run(['git', 'version'], capture_output=True, text=True).stdout, end='')\n\
         print(subprocess.run(['git', 'init', '-q']).returncode)\n\
         print(subprocess.check_output(['git', 'rev-parse', '--is-inside-work-tree'], text=True), end='')\n\"",
    )
    .await;
    assert_eq!(
        r.stdout,
        "/usr/bin/git\ngit version 2.39.5\n0\ntrue\n",
        "{}",
        shown(&r)
    );
}

#[tokio::test]
async fn hand_made_objects_cannot_write_outside_the_work_tree() {
    let mut sh = shell();
    // A tree naming `..` and a commit of it, written by Python as loose objects.
    let r = bash(
        &mut sh,
        &format!(
            "{IDENTITY}git init -q && echo a > a && git add a && git commit -q -m base\n\
             python3 - <<'EOF'\n\
             import hashlib, os, zlib\n\
             def put(kind, data):\n\
             \x20   raw = kind.encode() + b' ' + str(len(data)).encode() + b'\\0' + data\n\
             \x20   oid = hashlib.sha1(raw).hexdigest()\n\
             \x20   os.makedirs('.git/objects/' + oid[:2], exist_ok=True)\n\
             \x20   open('.git/objects/%s/%s' % (oid[:2], oid[2:]), 'wb').write(zlib.compress(raw))\n\
             \x20   return oid\n\
             blob = put('blob', b'pwned\\n')\n\
             tree = put('tree', b'100644 ..\\0' + bytes.fromhex(blob))\n\
             head = open('.git/refs/heads/master').read().strip()\n\
             commit = put('commit', ('tree %s\\nparent %s\\nauthor x <x@x> 0 +0000\\ncommitter x <x@x> 0 +0000\\n\\nevil\\n' % (tree, head)).encode())\n\
             open('evil', 'w').write(commit)\n\
             EOF\n\
             git checkout -q $(cat evil); echo rc=$?\ngit reset -q --hard $(cat evil); echo rc=$?\n\
             git diff HEAD $(cat evil); echo rc=$?"
        ),
    )
    .await;
    assert_eq!(r.stdout, "rc=128\nrc=128\nrc=128\n", "{}", shown(&r));
    assert!(r.stderr.contains("unsafe name"), "{}", shown(&r));
    let ws = sh.sandbox().workspace().host_path().to_path_buf();
    let parent = ws.parent().expect("workspace parent");
    assert!(!parent.join("pwned").exists() && !ws.join("..").join("..").join("pwned").exists());
}

#[tokio::test]
async fn git_writes_count_against_the_disk_quota() {
    let sb = Arc::new(crate::common::sandbox_in(|b| b.disk_quota(256 << 10)));
    let mut sh = Shell::new(sb, ShellSettings::default()).expect("shell");
    let r = bash(
        &mut sh,
        "git init -q && python3 -c \"import os; open('big', 'wb').write(os.urandom(150 << 10))\"\n\
         git add big; echo rc=$?\ngit status --short",
    )
    .await;
    assert!(r.stdout.starts_with("rc=128\n"), "{}", shown(&r));
    assert!(r.stderr.contains("fatal: cannot write"), "{}", shown(&r));
}
