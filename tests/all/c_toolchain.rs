//! The C toolchain inside the sandbox (issue 46, item 7): `gcc`, `g++`, `cc`, `ar` in the
//! sandbox's shell build programs from C and C++ that then run as the host's gcc-built ones
//! do (same output, same exit status), from the shell and from Python's `subprocess`, under the
//! sandbox's limits and inside its folders only.
//!
//! The toolchain is set up once per test process (fetched with `npm pack` and compiled, about
//! a minute, then cached); without `npm` the tests skip loudly outside CI and fail under it.

use std::path::Path;
use std::process::Command;
use std::sync::OnceLock;
use std::time::Duration;

use llm_in_sandbox::runtime::Limits;

use crate::common::{self, bash, shell_over, shown};

/// Set the toolchain up for this test process; false (after a loud skip line) when it cannot.
fn ready(test: &str) -> bool {
    static READY: OnceLock<Result<(), String>> = OnceLock::new();
    let state = READY.get_or_init(|| {
        let rt = common::runtime();
        if rt.has_c_toolchain() {
            return Ok(());
        }
        let cache = common::setup_options().cache_root;
        let progress = |m: &str| eprintln!("c toolchain: {m}");
        let files =
            llm_in_sandbox::toolchain::ensure(&cache, &progress).map_err(|e| e.to_string())?;
        rt.compile_c_toolchain(&files, &progress)
            .map_err(|e| e.to_string())?;
        if rt.has_c_toolchain() {
            Ok(())
        } else {
            Err("the toolchain was set up but does not load".into())
        }
    });
    match state {
        Ok(()) => true,
        Err(why) => {
            common::skip_unless_ci(test, &format!("the C toolchain cannot be set up: {why}"));
            false
        }
    }
}

/// The sources of a test, written into `dir`.
fn write_all(dir: &Path, files: &[(&str, &str)]) {
    for (name, text) in files {
        std::fs::write(dir.join(name), text).expect("write a source");
    }
}

/// The sources of a test, written into a sandbox's /testbed.
fn write_into(ws: &llm_in_sandbox::workspace::Workspace, files: &[(&str, &str)]) {
    for (name, text) in files {
        ws.write(name, text).expect("write a source");
    }
}

/// What `script` prints and returns under the host's bash in a fresh folder holding `files`.
fn on_host(files: &[(&str, &str)], script: &str) -> (String, i32) {
    let dir = tempfile::tempdir().expect("temp dir");
    write_all(dir.path(), files);
    let out = Command::new("bash")
        .arg("-c")
        .arg(script)
        .current_dir(dir.path())
        .output()
        .expect("host bash");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        out.status.code().unwrap_or(-1),
    )
}

/// What `script` prints and returns in a sandbox's shell whose /testbed holds `files`.
async fn in_sandbox(files: &[(&str, &str)], script: &str) -> (String, i32, String) {
    let sb = common::sandbox();
    write_into(sb.workspace(), files);
    let mut shell = shell_over(sb);
    let r = bash(&mut shell, script).await;
    let shown = shown(&r);
    (r.stdout, r.exit_code, shown)
}

const HELLO: &str = r#"#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <time.h>

int main(int argc, char **argv) {
    printf("clock ok %d\n", clock() >= 0);
    long sum = 0;
    for (int i = 1; i <= 1000000; i++) sum += i % 7;
    printf("sum %ld\n", sum);
    printf("sqrt %.6f pow %.3f\n", sqrt(2.0), pow(1.5, 10));
    for (int i = 1; i < argc; i++) printf("arg %d %s\n", i, argv[i]);
    const char *who = getenv("WHO");
    printf("who %s\n", who ? who : "(none)");
    return 3;
}
"#;

const WORDS: &str = r#"#include <stdio.h>
#include <ctype.h>

int main(void) {
    FILE *in = fopen("input.txt", "r");
    if (!in) { perror("input.txt"); return 1; }
    long words = 0, lines = 0; int c, inword = 0;
    while ((c = fgetc(in)) != EOF) {
        if (c == '\n') lines++;
        if (isspace(c)) inword = 0; else if (!inword) { inword = 1; words++; }
    }
    fclose(in);
    FILE *out = fopen("out/counts.txt", "w");
    if (!out) { perror("out/counts.txt"); return 1; }
    fprintf(out, "%ld lines %ld words\n", lines, words);
    fclose(out);
    char buf[256]; long n = 0;
    while (fgets(buf, sizeof buf, stdin)) n++;
    printf("stdin lines %ld\n", n);
    return 0;
}
"#;

const CPP: &str = r#"#include <algorithm>
#include <iostream>
#include <map>
#include <string>
#include <vector>

int main() {
    std::vector<int> v;
    for (int i = 0; i < 20; i++) v.push_back((i * 37) % 23);
    std::sort(v.begin(), v.end());
    std::map<std::string, int> m;
    for (auto w : {"b", "a", "c", "a"}) m[w]++;
    for (int x : v) std::cout << x << ' ';
    std::cout << '\n';
    for (auto &[k, n] : m) std::cout << k << '=' << n << '\n';
    return 0;
}
"#;

#[tokio::test(flavor = "multi_thread")]
async fn c_and_cpp_programs_build_and_run_as_on_the_host() {
    if !ready("c_and_cpp_programs_build_and_run_as_on_the_host") {
        return;
    }
    let files = [
        ("hello.c", HELLO),
        ("words.c", WORDS),
        ("prog.cpp", CPP),
        ("input.txt", "one two  three\nfour\n\nfive six\n"),
    ];
    let scripts = [
        "gcc -O2 -Wall -o hello hello.c -lm && WHO=root ./hello a 'b c'; echo status $?",
        "cc hello.c -lm && ./a.out; echo status $?",
        "mkdir -p out && gcc -std=c99 -march=native words.c -o words && printf 'x\\ny\\n' | ./words && cat out/counts.txt",
        "g++ -O2 -std=c++17 prog.cpp -o prog && ./prog",
        "gcc -c hello.c -o hello.o && gcc hello.o -o linked -lm && ./linked; echo status $?",
        "gcc -c hello.c && ar rcs libhello.a hello.o && gcc -o fromlib -L. -lhello -lm; echo built $?",
        "gcc -O2 -o hello hello.c -lm && python3 -c \"import subprocess; r = subprocess.run(['./hello', 'x'], capture_output=True, text=True); print(r.returncode); print(r.stdout, end='')\"",
    ];
    let mut differ = Vec::new();
    for script in scripts {
        let host = on_host(&files, script);
        let (out, code, shown) = in_sandbox(&files, script).await;
        if (out.clone(), code) != host {
            differ.push(format!(
                "{script}\n  host: exit {} {:?}\n  sandbox: {shown}",
                host.1, host.0
            ));
        }
    }
    assert!(
        differ.is_empty(),
        "differs from the host's gcc:\n{}",
        differ.join("\n")
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn compile_errors_fail_with_the_file_and_line() {
    if !ready("compile_errors_fail_with_the_file_and_line") {
        return;
    }
    let files = [("bad.c", "int main(void) {\n    return undefined_name;\n}\n")];
    let (out, code, shown) = in_sandbox(&files, "gcc bad.c -o bad; echo status $?; ls").await;
    assert!(out.contains("status 1"), "{shown}");
    assert!(!out.contains("bad\n"), "no program is left behind: {shown}");
    assert!(
        shown.contains("bad.c:2:") && shown.contains("error:"),
        "{shown}"
    );
    assert_eq!(code, 0, "{shown}");
}

#[tokio::test(flavor = "multi_thread")]
async fn built_programs_stay_inside_the_sandbox_and_its_limits() {
    if !ready("built_programs_stay_inside_the_sandbox_and_its_limits") {
        return;
    }
    let escape = r#"#include <stdio.h>
int main(void) {
    const char *paths[] = {"/etc/passwd", "../../../../../etc/passwd", "/proc/self/environ"};
    for (int i = 0; i < 3; i++) {
        FILE *f = fopen(paths[i], "r");
        printf("%s %s\n", paths[i], f ? "opened" : "refused");
        if (f) fclose(f);
    }
    return 0;
}
"#;
    let spin = "int main(void) { volatile unsigned long n = 0; for (;;) n++; }\n";
    let hog = r#"#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(void) {
    for (long mib = 1;; mib++) {
        char *p = malloc(1 << 20);
        if (!p) { printf("malloc failed after %s\n", mib > 100 ? "over 100 MiB" : "less"); return 1; }
        memset(p, 1, 1 << 20);
    }
}
"#;
    let sb = common::sandbox_with(Limits {
        timeout: Duration::from_secs(20),
        memory_bytes: 256 << 20,
        ..Limits::default()
    });
    write_into(
        sb.workspace(),
        &[("escape.c", escape), ("spin.c", spin), ("hog.c", hog)],
    );
    let mut shell = shell_over(sb);
    let r = bash(&mut shell, "gcc escape.c -o escape && ./escape").await;
    assert_eq!(
        r.stdout,
        "/etc/passwd refused\n../../../../../etc/passwd refused\n/proc/self/environ refused\n",
        "{}",
        shown(&r)
    );
    let r = bash(&mut shell, "gcc hog.c -o hog && ./hog; echo status $?").await;
    assert!(
        r.stdout.contains("malloc failed after over 100 MiB") && r.stdout.contains("status 1"),
        "{}",
        shown(&r)
    );
    let r = bash(
        &mut shell,
        "gcc spin.c -o spin && timeout 2 ./spin; echo status $?",
    )
    .await;
    assert!(r.stdout.contains("status 124"), "{}", shown(&r));
}

#[tokio::test(flavor = "multi_thread")]
async fn version_and_missing_tools_answer_clearly() {
    if !ready("version_and_missing_tools_answer_clearly") {
        return;
    }
    let (out, code, shown) =
        in_sandbox(&[], "gcc --version | head -1; make all; echo status $?").await;
    assert!(out.starts_with("clang version"), "{shown}");
    assert!(out.contains("status 127"), "{shown}");
    assert!(
        shown.contains("make: not available in this sandbox"),
        "{shown}"
    );
    assert_eq!(code, 0, "{shown}");
}
