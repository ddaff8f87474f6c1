//! Every `llm-in-sandbox ...` command line shown in a shell code block of README.md and
//! docs/*.md parses: the real binary's clap parser accepts its subcommand and flags.
//!
//! A concrete line is run with `--help` put before its first `--` (or at its end): clap
//! parses the arguments before it (names, values, value syntax) and then prints the help
//! instead of running, exiting 0. A synopsis line (with `[...]`, `|` or `...`) is checked
//! flag by flag against the subcommand's `--help`.

use std::path::Path;
use std::process::Command;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// The shell lines of the ```sh / ```bash / ```console blocks of a Markdown file, with
/// continuation lines (`\` at the end) joined, and their line numbers.
fn shell_lines(markdown: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut in_shell = false;
    let mut in_block = false;
    let mut pending: Option<(usize, String)> = None;
    for (i, line) in markdown.lines().enumerate() {
        let fence = line.trim_start();
        if fence.starts_with("```") {
            if in_block {
                in_block = false;
                in_shell = false;
            } else {
                in_block = true;
                let lang = fence.trim_start_matches('`').trim();
                in_shell = matches!(lang, "sh" | "bash" | "console" | "shell");
            }
            continue;
        }
        if !in_shell {
            continue;
        }
        let (n, mut text) = pending.take().unwrap_or((i + 1, String::new()));
        let line = line.trim();
        if let Some(head) = line.strip_suffix('\\') {
            text.push_str(head);
            text.push(' ');
            pending = Some((n, text));
        } else {
            text.push_str(line);
            out.push((n, text));
        }
    }
    out
}

/// Split a shell line into words (single and double quotes, backslash escapes), stopping at
/// an unquoted `#` that starts a word. Separators (`&&`, `||`, `;`, `|`, `&`) are words of
/// their own.
fn words(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut has = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                has = true;
                for c in chars.by_ref() {
                    if c == '\'' {
                        break;
                    }
                    cur.push(c);
                }
            }
            '"' => {
                has = true;
                while let Some(c) = chars.next() {
                    match c {
                        '"' => break,
                        '\\' => {
                            if let Some(n) = chars.next() {
                                cur.push(n);
                            }
                        }
                        c => cur.push(c),
                    }
                }
            }
            '\\' => {
                has = true;
                if let Some(n) = chars.next() {
                    cur.push(n);
                }
            }
            '#' if !has => break,
            ';' | '|' | '&' => {
                if has {
                    out.push(std::mem::take(&mut cur));
                    has = false;
                }
                let mut sep = c.to_string();
                if chars.peek() == Some(&c) {
                    sep.push(c);
                    chars.next();
                }
                out.push(sep);
            }
            c if c.is_whitespace() => {
                if has {
                    out.push(std::mem::take(&mut cur));
                    has = false;
                }
            }
            c => {
                has = true;
                cur.push(c);
            }
        }
    }
    if has {
        out.push(cur);
    }
    out
}

/// The `llm-in-sandbox` commands of a shell line: the words after the program name (given as
/// `llm-in-sandbox` or a path ending in `/llm-in-sandbox`), up to the next separator.
fn commands(line: &str) -> Vec<Vec<String>> {
    let ws = words(line);
    // In a synopsis (`[--token T | --token-file F]`) a `|` separates alternatives.
    let synopsis = ws.iter().any(|w| w.starts_with('['));
    let is_separator = |w: &str| match w {
        "|" => !synopsis,
        "&&" | "||" | ";" | "&" => true,
        _ => false,
    };
    let mut out = Vec::new();
    let mut i = 0;
    while i < ws.len() {
        let w = &ws[i];
        if w == "llm-in-sandbox" || w.ends_with("/llm-in-sandbox") {
            let args: Vec<String> = ws[i + 1..]
                .iter()
                .take_while(|w| !is_separator(w))
                .cloned()
                .collect();
            i += args.len() + 1;
            out.push(args);
        } else {
            i += 1;
        }
    }
    out
}

/// A line that shows a command's syntax rather than a command to run.
fn is_synopsis(args: &[String]) -> bool {
    args.iter()
        .any(|a| a.starts_with('[') || a == "|" || a == "..." || a.ends_with("..."))
}

fn help(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_llm-in-sandbox"))
        .args(args)
        .env_remove("LLM_IN_SANDBOX_WITH")
        .output()
        .expect("run llm-in-sandbox")
}

/// Check one shown command; `Err` says what is wrong.
fn check(args: &[String]) -> Result<(), String> {
    let Some(sub) = args.first() else {
        return Ok(()); // the bare program name
    };
    if is_synopsis(args) {
        let o = help(&[sub.as_str(), "--help"]);
        if !o.status.success() {
            return Err(format!(
                "`{sub} --help` failed: {}",
                String::from_utf8_lossy(&o.stderr)
            ));
        }
        let text = String::from_utf8_lossy(&o.stdout);
        for a in &args[1..] {
            if a == "--" {
                break;
            }
            let flag = a.trim_start_matches('[').trim_end_matches([']', ',', '.']);
            let flag = flag.split('=').next().unwrap_or(flag);
            if flag.starts_with("--") && flag.len() > 2 && !text.contains(flag) {
                return Err(format!("`{sub} --help` does not list {flag}"));
            }
        }
        return Ok(());
    }
    let mut argv: Vec<&str> = args.iter().map(String::as_str).collect();
    let at = argv.iter().position(|a| *a == "--").unwrap_or(argv.len());
    argv.insert(at, "--help");
    let o = help(&argv);
    if o.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&o.stderr).into_owned())
    }
}

/// Check every command shown in `file`; returns how many were checked and what failed.
fn check_file(file: &Path) -> (usize, Vec<String>) {
    let text = std::fs::read_to_string(file).expect("read the page");
    let mut checked = 0;
    let mut failed = Vec::new();
    for (n, line) in shell_lines(&text) {
        for args in commands(&line) {
            checked += 1;
            if let Err(e) = check(&args) {
                failed.push(format!("{}:{n}: {line}\n  {}", file.display(), e.trim()));
            }
        }
    }
    (checked, failed)
}

#[test]
fn every_command_line_in_the_readme_parses() {
    let (checked, failed) = check_file(&Path::new(ROOT).join("README.md"));
    eprintln!("README.md: {checked} command lines checked");
    assert!(
        checked >= 10,
        "only {checked} command lines found in README.md"
    );
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}

#[test]
fn every_command_line_in_the_docs_parses() {
    let mut pages: Vec<_> = std::fs::read_dir(Path::new(ROOT).join("docs"))
        .expect("docs/")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    pages.sort();
    let mut total = 0;
    let mut failed = Vec::new();
    for page in &pages {
        let (n, f) = check_file(page);
        total += n;
        failed.extend(f);
    }
    eprintln!(
        "docs/: {total} command lines checked in {} pages",
        pages.len()
    );
    assert!(total >= 10, "only {total} command lines found in docs/");
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}

#[test]
fn the_line_reader_finds_commands_and_their_flags() {
    let md = "```sh\nllm-in-sandbox run --llm-name m \\\n  --query 'a # b' # comment\n\
              cargo build && ./target/release/llm-in-sandbox exec -- python3 -c 'print(1)'\n```\n\
              ```yaml\nllm-in-sandbox nope\n```\n";
    let lines = shell_lines(md);
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert_eq!(
        commands(&lines[0].1),
        [vec!["run", "--llm-name", "m", "--query", "a # b"]]
    );
    assert_eq!(
        commands(&lines[1].1),
        [vec!["exec", "--", "python3", "-c", "print(1)"]]
    );
    assert!(check(&["run".into(), "--no-such-flag".into()]).is_err());
    assert!(check(&["exec".into(), "--".into(), "python3".into()]).is_ok());
    assert!(check(&["no-such-command".into()]).is_err());
}
