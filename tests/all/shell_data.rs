//! The shell at data sizes (issue 43): commands of the kinds models run over real data
//! (generators, filters, sorts, counts, captures, redirections, loops, recursion) at 10^5 to
//! 10^7 lines and up to tens of megabytes, run in our in-process shell and in the host's
//! `bash -c` with GNU coreutils over the same files: stdout and exit status must be identical.
//! Also: recursion 10,000 deep works (the host's bash
//! itself crashes there), and past the memory limit it ends with an error.

use std::path::Path;
use std::process::Command;
use std::sync::Arc;

use llm_in_sandbox::shell::{Shell, ShellSettings};

use crate::common::sandbox_in;

/// Deterministic pseudo-random numbers (an LCG), so both sides see the same files.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }
}

const WORDS: &[&str] = &[
    "alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa",
    "lambda", "mu", "nu", "xi", "omicron", "pi", "rho", "sigma", "tau", "upsilon", "phi", "chi",
    "psi", "omega", "sandbox", "model", "token", "reward", "python", "bash",
];

/// The data files, `scale` 1 for the default suite (about 45 MB in all).
fn data_files(scale: usize) -> Vec<(&'static str, Vec<u8>)> {
    let mut rng = Lcg(42);
    let mut nums = String::new();
    for _ in 0..1_000_000 * scale {
        nums.push_str(&format!("{}\n", rng.next() % 1_000_000));
    }
    let mut words = String::new();
    for i in 0..200_000 * scale {
        let a = WORDS[(rng.next() % WORDS.len() as u64) as usize];
        let b = WORDS[(rng.next() % WORDS.len() as u64) as usize];
        words.push_str(&format!("{a} {b} {i}\n"));
    }
    let levels = ["INFO", "INFO", "INFO", "WARN", "ERROR", "DEBUG"];
    let mut log = String::new();
    for i in 0..500_000 * scale {
        let level = levels[(rng.next() % levels.len() as u64) as usize];
        let comp = WORDS[(rng.next() % 8) as usize];
        log.push_str(&format!(
            "2024-05-{:02}T{:02}:{:02}:{:02} {level} {comp} request id={} took {}ms\n",
            1 + i % 28,
            (i / 3600) % 24,
            (i / 60) % 60,
            i % 60,
            rng.next() % 100_000,
            rng.next() % 5_000
        ));
    }
    let mut csv = String::from("id,name,score,group\n");
    for i in 0..200_000 * scale {
        let name = WORDS[(rng.next() % WORDS.len() as u64) as usize];
        csv.push_str(&format!(
            "{i},{name},{},g{}\n",
            rng.next() % 10_000,
            rng.next() % 7
        ));
    }
    let accented = [
        "café",
        "naïve",
        "über",
        "straße",
        "résumé",
        "ελληνικά",
        "año",
        "déjà vu",
    ];
    let mut unicode = String::new();
    for i in 0..100_000 * scale {
        let a = accented[(rng.next() % accented.len() as u64) as usize];
        let b = WORDS[(rng.next() % WORDS.len() as u64) as usize];
        unicode.push_str(&format!("{a} {b} {i}  {a}\n"));
    }
    vec![
        ("unicode.txt", unicode.into_bytes()),
        ("nums.txt", nums.into_bytes()),
        ("words.txt", words.into_bytes()),
        ("log.txt", log.into_bytes()),
        ("data.csv", csv.into_bytes()),
    ]
}

/// The commands: each runs in a fresh shell over the same folder, in this order (later ones
/// may read what earlier ones wrote, with names of their own).
const CASES: &[&str] = &[
    // Generators and how their readers end them.
    "seq 1 1000000 | wc -l",
    "seq 1 2000000 | tail -1",
    "seq 5 3 1000000 | awk '{s+=$1} END {print s}'",
    "seq 1 1000000 | grep -c '^1'",
    "seq 1 1000000 | sort -r | head -2",
    "seq 1000000 > s1.txt; wc -l s1.txt; tail -1 s1.txt",
    "yes | head -n 500000 | wc -l",
    "yes hello | head -c 3000000 | md5sum",
    "yes | head -1; echo rc=$?",
    "head -c 5000000 /dev/zero | wc -c",
    "head -c 1000000 /dev/zero | tr '\\0' 'a' | wc -c",
    "cat /dev/zero | head -c 2000000 | wc -c",
    "head -c 100000 /dev/urandom | wc -c",
    "printf '%s\\n' {1..200000} | wc -l",
    "echo {1..100000} | wc -w",
    // Counting.
    "wc -l nums.txt",
    "wc -l < nums.txt",
    "wc nums.txt",
    "cat nums.txt | wc -l",
    "cat log.txt | wc -c",
    "wc -w words.txt",
    "cat unicode.txt | wc -l -w -m",
    "cat unicode.txt | wc -L",
    "cat unicode.txt | head -n 54321 | wc -m",
    // Sorting and counting.
    "sort -n nums.txt | head -5",
    "sort -n nums.txt | tail -5",
    "sort -n nums.txt | md5sum",
    "sort nums.txt | uniq | wc -l",
    "sort -u nums.txt | wc -l",
    "sort -rn nums.txt | head -3",
    "sort -n nums.txt | uniq -c | sort -rn | head -3",
    "awk '{print $1}' words.txt | sort | uniq -c | sort -rn | head -5",
    "cut -d' ' -f3 log.txt | sort | uniq -c | sort -rn",
    "cut -d, -f3 data.csv | sort -n | tail -1",
    "sort -t, -k3,3n -k1,1n data.csv | head -3",
    // awk.
    "awk '{s+=$1} END {print s}' nums.txt",
    "awk '$1 > 500000 {c++} END {print c}' nums.txt",
    "awk 'NR % 100000 == 0' nums.txt",
    "awk -F, 'NR > 1 {s[$4]+=$3} END {for (k in s) print k, s[k]}' data.csv | sort",
    "awk 'BEGIN {for (i = 0; i < 1000000; i++) s += i; print s}'",
    "awk '{n += length($0)} END {print n}' log.txt",
    // grep.
    "grep -c 7 nums.txt",
    "grep -c ERROR log.txt",
    "grep ERROR log.txt | wc -l",
    "grep -v INFO log.txt | wc -l",
    "grep -o 'id=[0-9]*' log.txt | tail -3",
    "grep -E 'WARN|ERROR' log.txt | cut -c1-10 | sort | uniq -c | head -5",
    "grep -n 'id=99999 ' log.txt | head -3",
    // sed, tr, cut, head, tail.
    "tr 'a-z' 'A-Z' < words.txt | md5sum",
    "tr -d '\\n' < words.txt | wc -c",
    "sed 's/ERROR/E/' log.txt | md5sum",
    "sed -n '100000p' log.txt",
    "cp log.txt s2.txt && sed -i 's/INFO/info/g' s2.txt && md5sum s2.txt && grep -c info s2.txt",
    "head -n 300000 log.txt | tail -n 1",
    "tail -n 5 log.txt",
    "cut -c1-7 log.txt | uniq | wc -l",
    "nl words.txt | tail -1",
    "tac words.txt | head -2",
    // Files: redirections and copies.
    "cp log.txt s3.txt && wc -c s3.txt",
    "cat log.txt > s4.txt && cmp log.txt s4.txt && echo same",
    "cat nums.txt nums.txt > s5.txt; wc -l s5.txt",
    "seq 1 3000000 > s6.txt && md5sum s6.txt",
    "for i in 1 2 3; do cat words.txt; done >> s7.txt; wc -l s7.txt",
    "md5sum log.txt",
    "sha256sum nums.txt",
    "split -l 100000 nums.txt part_ && ls part_* | wc -l && cat part_* | md5sum",
    // Captures, loops, word splitting.
    "x=$(seq 1 1000000); echo ${#x}",
    "x=$(cat log.txt); echo ${#x}",
    "for i in $(seq 1 100000); do :; done; echo $i",
    "n=0; for w in $(cat words.txt); do n=$((n+1)); done; echo $n",
    "a=($(seq 1 200000)); echo ${#a[@]} ${a[199999]}",
    "head -n 20000 words.txt > s8.txt; n=0; while read -r a b c; do n=$((n+c)); done < s8.txt; echo $n",
    "seq 1 10000 | xargs echo | wc -c",
    // Recursion.
    "f() { if [ \"$1\" -eq 0 ]; then echo bottom; return; fi; f $(( $1 - 1 )); }; f 2000",
    "f() { local n=$1; if (( n <= 1 )); then echo $n; else echo $(( n + $(f $(( n - 1 )) | tail -1) )); fi; }; f 200",
    // Past bashkit's old fixed caps (issue 43): nesting of `$(...)`, `( )`, `eval` and
    // `bash -c` (32, 32, none, 8), the debug arrays of a deep call stack, awk's 16 MiB
    // strings and 10 MB of output, and scripts refused for their shape (loops nested past
    // 10, more than 50,000 commands or 100,000 parser operations).
    "f() { if [ $1 -gt 0 ]; then echo \"$(f $(( $1 - 1 )))\"; else echo bottom; fi; }; f 200",
    "g() { if [ $1 -gt 0 ]; then ( g $(( $1 - 1 )) ); else echo sub $BASH_SUBSHELL; fi; }; g 200",
    "n=0; x='n=$((n+1)); if [ $n -lt 2000 ]; then eval \"$x\"; else echo $n; fi'; eval \"$x\"",
    "s='echo deep'; for i in $(seq 12); do s=\"bash -c $(printf %q \"$s\")\"; done; eval \"$s\"",
    "a() { echo \"${FUNCNAME[@]} ${#FUNCNAME[@]} ${BASH_LINENO[@]}\"; }; b() { a; }; c() { b; }; c; r() { if [ $1 -gt 0 ]; then r $(( $1 - 1 )); else echo ${#FUNCNAME[@]} ${FUNCNAME[0]} ${FUNCNAME[2999]} ${#BASH_LINENO[@]}; fi; }; r 3000; echo \"[${FUNCNAME[@]}]\"",
    "awk 'BEGIN { s = \"x\"; while (length(s) < 20000000) s = s s; print length(s) }'",
    "awk '{ print $0, $0 }' log.txt | wc -c",
    "for a in 1; do for b in 1; do for c in 1; do for d in 1; do for e in 1; do for f in 1; do for g in 1; do for h in 1; do for i in 1; do for j in 1; do for k in 1; do for l in 1; do echo deep; done; done; done; done; done; done; done; done; done; done; done; done",
    "for i in $(seq 60000); do echo \"x=$i\"; done > s9.sh; source s9.sh; echo $x",
    // Line filters reading a pipe piece by piece: sed (with `$`, `n`, `N` and `q`, which
    // look ahead or stop early), awk (records, END, getline, exit), cut, uniq, tail.
    "cat log.txt | sed 's/INFO/I/' | md5sum",
    "cat log.txt | sed -n '$p'",
    "cat log.txt | sed '$!N;s/\\n/ | /' | md5sum",
    "cat words.txt | sed -n '/alpha/{n;p}' | md5sum",
    "seq 1 1000000 | sed -n '999998,$p'",
    "seq 1 100000 | sed '1~3d' | tail -2",
    "cat unicode.txt | sed 's/é/e/g; s/ελληνικά/greek/' | md5sum",
    "yes | sed 5q; echo ${PIPESTATUS[@]}",
    "printf 'a\\nb' | sed p",
    "cat log.txt | awk '{print $3}' | uniq -c | head -3",
    "cat nums.txt | awk '$1 > 999990 {c++} END {print c + 0, NR}'",
    "cat words.txt | awk 'NR == 5 {getline; print; getline x; print x} END {print NR}'",
    "yes abc | awk 'NR == 3 {print NR, $0; exit}'; echo ${PIPESTATUS[@]}",
    "cat unicode.txt | awk '{print $2}' | sort | uniq -c | sort -rn | head -3",
    "seq 1 200000 | awk '{print $1 * 2}' | tail -1",
    "cat data.csv | cut -d, -f2,4 | sort | uniq -c | sort -rn | head -3",
    "cat log.txt | cut -c12-19 | uniq | wc -l",
    "cat unicode.txt | cut -d' ' -f1 | uniq -c | md5sum",
    "cat nums.txt | uniq -c | sort -rn | head -2",
    "cat words.txt | cut -d' ' -f1 | sort | uniq -d | wc -l",
    "cat log.txt | tail -n 3",
    "cat log.txt | tail -c 100",
    "cat nums.txt | tail -n +999990",
    "cat nums.txt | tail -c +6000000 | md5sum",
    "seq 1 3000000 | tail -n 2",
    // Endless devices as redirected stdin stream; dd and the outputs of find, expand and
    // numfmt past their old 64 MiB and 1 MiB caps.
    "head -c 1000000 < /dev/urandom | wc -c",
    "< /dev/zero head -c 3000000 | wc -c",
    "tr '\\0' x < /dev/zero | head -c 2000000 | md5sum",
    "dd if=/dev/zero bs=1M count=100 2>/dev/null | wc -c",
    "dd if=/dev/zero bs=1M count=80 of=dd.bin 2>/dev/null; wc -c < dd.bin",
    "seq 1 300000 | numfmt | tail -1",
    "seq 1 300000 | sed 's/^/\\t/' | expand | wc -c",
    "mkdir -p ff && touch $(seq -f 'ff/a_rather_long_file_name_number_%06g.txt' 1 25000) && find ff | wc -l",
];

/// Cases whose output differs from the host's bash, with the reason. A listed case that starts
/// matching is reported; an unlisted case that differs fails the test.
const KNOWN_DIFFERENCES: &[(&str, &str)] = &[
    (
        "seq 5 3 1000000 | awk '{s+=$1} END {print s}'",
        "bashkit's awk prints a large integral number in full; mawk (Debian's awk, the reference image's) prints it with %.6g",
    ),
    (
        "awk '{s+=$1} END {print s}' nums.txt",
        "awk's number output: %.6g in mawk",
    ),
    (
        "awk 'BEGIN {for (i = 0; i < 1000000; i++) s += i; print s}'",
        "awk's number output: %.6g in mawk",
    ),
];

// The issue asks for at least 60 commands.
const _: () = assert!(CASES.len() >= 60);

/// The line the line-filter pipelines repeat (98 bytes with its newline; 300 MB of it ends
/// in a 48-byte line without one).
const LINE: &str = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau";

/// What the host's bash prints for `script` in `dir`, and its exit status.
fn host_bash(dir: &Path, script: &str) -> (String, i32) {
    let out = Command::new("bash")
        .arg("-c")
        .arg(script)
        .current_dir(dir)
        .env_clear()
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .env("LANG", "C.UTF-8")
        .env("HOME", dir)
        .output()
        .expect("the host's bash");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        out.status.code().unwrap_or(-1),
    )
}

/// Runs every case on both sides; returns the differences.
async fn compare(scale: usize, cases: &[&str]) -> (usize, Vec<String>) {
    let host = tempfile::tempdir().expect("a folder");
    let sb = sandbox_in(|b| b.disk_quota(4 << 30));
    for (name, bytes) in data_files(scale) {
        std::fs::write(host.path().join(name), &bytes).expect("host file");
        sb.workspace().write(name, &bytes).expect("sandbox file");
    }
    let sb = Arc::new(sb);
    let mut same = 0;
    let mut diffs = Vec::new();
    for script in cases {
        let (want, want_rc) = host_bash(host.path(), script);
        let mut sh = Shell::new(sb.clone(), ShellSettings::default()).expect("shell");
        let started = std::time::Instant::now();
        let r = sh.exec(script).await.expect("the shell itself failed");
        let took = started.elapsed();
        let known = KNOWN_DIFFERENCES.iter().any(|(k, _)| k == script);
        if r.stdout == want && r.exit_code == want_rc {
            same += 1;
            if known {
                eprintln!("now identical, remove from KNOWN_DIFFERENCES: {script}");
            }
        } else if !known {
            let cut = |s: &str| s.chars().take(300).collect::<String>();
            diffs.push(format!(
                "{script}\n  bash: exit {want_rc} {:?}\n  ours: exit {} {:?} stderr {:?} ({:.1} s)",
                cut(&want),
                r.exit_code,
                cut(&r.stdout),
                cut(&r.stderr),
                took.as_secs_f64()
            ));
        }
    }
    (same, diffs)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn data_commands_match_bash_and_coreutils() {
    let (same, diffs) = compare(1, CASES).await;
    eprintln!(
        "shell at data sizes: {same} of {} identical to the host's bash -c ({} known differences)",
        CASES.len(),
        KNOWN_DIFFERENCES.len()
    );
    assert!(
        diffs.is_empty(),
        "{} differ:\n{}",
        diffs.len(),
        diffs.join("\n")
    );
}

/// Runs `script` in `llm-in-sandbox exec --bash` and returns its stdout, exit status and the
/// process's peak resident memory, bytes. The binary is started by a small `python3` that
/// reports its child's `ru_maxrss`: a child of this test process would be counted with the
/// pages it shared with us before its `exec` (the loaded runtime, gigabytes).
fn exec_peak_rss(script: &str) -> (String, i32, u64) {
    const REPORT: &str = "import resource, subprocess, sys\n\
        r = subprocess.run(sys.argv[1:])\n\
        sys.stderr.write('maxrss=%d\\n' % resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n\
        sys.exit(r.returncode)\n";
    // The tests' cache must be ready, so the binary never races them to compile.
    crate::common::runtime();
    let out = Command::new("python3")
        .args([
            "-c",
            REPORT,
            env!("CARGO_BIN_EXE_llm-in-sandbox"),
            "exec",
            "--bash",
            script,
        ])
        .env_remove("LLM_IN_SANDBOX_WITH")
        .env("LLM_IN_SANDBOX_CACHE", crate::common::cache_root())
        .stdin(std::process::Stdio::null())
        .output()
        .expect("python3 and llm-in-sandbox");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let kib = stderr
        .lines()
        .find_map(|l| l.strip_prefix("maxrss="))
        .and_then(|v| v.trim().parse::<u64>().ok())
        .unwrap_or_else(|| panic!("no maxrss in {stderr}"));
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        out.status.code().unwrap_or(-1),
        kib << 10,
    )
}

/// 300 MB through a pipeline: the stages stream through bounded buffers, so the process's
/// peak resident memory stays within 64 MiB of the same pipeline over 1,000 lines; and a
/// function level costs less than the depth limit assumes (`FUNCTION_LEVEL_BYTES`). Each
/// figure is a separate process measured in the same run, after a first process has made
/// whatever the command caches. Prints the figures.
#[test]
fn a_300_mb_pipeline_holds_a_few_mb() {
    // The first run may make the runtime's snapshot for the command line (gigabytes at peak):
    // it warms the cache and is not measured.
    let (_, code, _) = exec_peak_rss("seq 1 1000 | wc -l");
    assert_eq!(code, 0);
    let (_, code, base) = exec_peak_rss("seq 1 1000 | wc -l");
    assert_eq!(code, 0);
    eprintln!("seq 1 1000 | wc -l: peak RSS {} MiB", base >> 20);
    for (script, want) in [
        (
            "yes 0123456789abcdef | head -c 300000000 | wc -c",
            "300000000\n",
        ),
        ("cat /dev/zero | head -c 300000000 | wc -c", "300000000\n"),
        ("seq 1 34000000 | wc -l", "34000000\n"),
    ] {
        let (stdout, code, peak) = exec_peak_rss(script);
        let grew = peak.saturating_sub(base);
        eprintln!(
            "{script}: peak RSS {} MiB, {} MiB over the 1,000-line pipeline's",
            peak >> 20,
            grew >> 20
        );
        assert_eq!((stdout.as_str(), code), (want, 0), "{script}");
        assert!(
            grew < 64 << 20,
            "{script}: peak RSS {} MiB over the small pipeline's (64 MiB allowed)",
            grew >> 20
        );
    }
    const LEVELS: u64 = 5_000;
    let (stdout, code, peak) = exec_peak_rss(&format!(
        "f() {{ if [ $1 -eq 0 ]; then echo bottom; return 0; fi; f $(( $1 - 1 )); }}; f {LEVELS}"
    ));
    assert_eq!((stdout.as_str(), code), ("bottom\n", 0));
    let per_level = peak.saturating_sub(base) / LEVELS;
    eprintln!(
        "recursion {LEVELS} deep: peak RSS {} MiB, {} KiB a level (the depth limit assumes {} KiB)",
        peak >> 20,
        per_level >> 10,
        llm_in_sandbox::shell::FUNCTION_LEVEL_BYTES >> 10
    );
    assert!(per_level < llm_in_sandbox::shell::FUNCTION_LEVEL_BYTES);
}

/// 300 MB through each line filter (sed, awk, cut, uniq, tail): each reads its pipe piece by
/// piece and writes as it goes, so the process's peak resident memory stays within 64 MiB of
/// a 1,000-line pipeline's, measured as in `a_300_mb_pipeline_holds_a_few_mb`; and the answer
/// is the host's `bash -c` answer. Prints the figures.
#[test]
fn line_filters_stream_300_mb() {
    let (_, code, _) = exec_peak_rss("seq 1 1000 | wc -l");
    assert_eq!(code, 0);
    let (_, code, base) = exec_peak_rss("seq 1 1000 | wc -l");
    assert_eq!(code, 0);
    eprintln!("seq 1 1000 | wc -l: peak RSS {} MiB", base >> 20);
    let host = tempfile::tempdir().expect("a folder");
    let feed = format!("yes '{LINE}' | head -c 300000000");
    for filter in [
        "sed 's/gamma/GAMMA/' | wc -l",
        "sed -n '$p'",
        "awk '{n += NF} END {print n, NR}'",
        "cut -d' ' -f3,7 | uniq -c",
        "uniq -c",
        "tail -n 2 | wc -c",
        "tail -n +3000000 | wc -l",
    ] {
        let script = format!("{feed} | {filter}");
        let (want, want_rc) = host_bash(host.path(), &script);
        let (stdout, code, peak) = exec_peak_rss(&script);
        let grew = peak.saturating_sub(base);
        eprintln!(
            "300 MB | {filter}: peak RSS {} MiB, {} MiB over the 1,000-line pipeline's",
            peak >> 20,
            grew >> 20
        );
        assert_eq!(
            (stdout.as_str(), code),
            (want.as_str(), want_rc),
            "{script}"
        );
        assert!(
            grew < 64 << 20,
            "{script}: peak RSS {} MiB over the small pipeline's (64 MiB allowed)",
            grew >> 20
        );
    }
}

/// Reading an endless device whole, or past the memory limit, is an error, never exit 0 with
/// part of the data: a command that reads stdin whole from `/dev/zero`, `cat` of it with its
/// output kept whole, and `dd` of a device without `count=` to a file.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn endless_devices_read_whole_fail_instead_of_cutting() {
    let mut sh = shell_with_memory(64 << 20);
    for script in [
        "sort < /dev/zero | wc -c",
        "cat /dev/zero",
        "dd if=/dev/urandom of=big.bin",
    ] {
        let r = sh
            .exec(&format!("{script}; echo rc=${{PIPESTATUS[0]}}"))
            .await
            .expect("shell");
        assert!(!r.stdout.contains("rc=0"), "{script}: {r:?}");
        assert!(!r.stderr.is_empty(), "{script}: {r:?}");
    }
}

/// A recursive function 10,000 deep answers as bash does; one past the memory limit ends
/// with a clear error and a non-zero status, and the shell still works after it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn recursion_goes_deep_and_stops_at_the_memory_limit() {
    let mut sh = Shell::new(Arc::new(sandbox_in(|b| b)), ShellSettings::default()).expect("shell");
    let r = sh
        .exec("f() { if [ $1 -eq 0 ]; then echo bottom; return 0; fi; f $(( $1 - 1 )); }; f 10000; echo rc=$?")
        .await
        .expect("shell");
    assert_eq!(r.stdout, "bottom\nrc=0\n", "{}", r.stderr);
    // 128 MiB of memory: 2,048 levels.
    let mut sh = shell_with_memory(128 << 20);
    let r = sh
        .exec("g() { g; }; g; echo after=$?")
        .await
        .expect("shell");
    assert_ne!(r.exit_code, 0, "{r:?}");
    assert!(
        r.stderr.contains("maximum function depth exceeded (2048)"),
        "{}",
        r.stderr
    );
    assert!(!r.stdout.contains("after=0"), "{}", r.stdout);
    let r = sh.exec("echo still here").await.expect("shell");
    assert_eq!(r.stdout, "still here\n");
}

/// Nesting and string bombs of every kind bashkit used to stop at a fixed depth or size
/// (`$(...)`, `( )`, `eval`, `bash -c`, awk's strings and output) end with the sandbox's
/// memory error and a non-zero status; the shell works after each.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nesting_and_awk_bombs_end_with_the_memory_error() {
    let mut sh = shell_with_memory(128 << 20);
    for script in [
        "f() { echo $(f); }; f; echo after=$?",
        "g() { ( g ); }; g; echo after=$?",
        "x='eval \"$x\"'; eval \"$x\"; echo after=$?",
        "export s='bash -c \"$s\"'; bash -c \"$s\"; echo after=$?",
        "awk 'BEGIN { s = \"x\"; while (1) s = s s }'; echo after=$?",
        "awk 'BEGIN { while (1) print \"0123456789abcdef\" }' > /dev/null; echo after=$?",
    ] {
        let r = sh.exec(script).await.expect("shell");
        let said = format!(
            "{script}: exit {} {:?} {:?}",
            r.exit_code, r.stdout, r.stderr
        );
        assert!(!r.stdout.contains("after=0"), "{said}");
        assert!(r.exit_code != 0 || r.stdout.contains("after="), "{said}");
        // The memory error, or the nesting limit (memory / 64 KiB) that a `bash -c` child
        // reports as bash's own status 2; awk's bounds are parts of the memory limit.
        assert!(
            r.stderr.contains("memory limit allows (128 MiB")
                || r.stderr
                    .contains("maximum nesting depth exceeded (2048 levels)")
                || r.stderr.contains("memory limit (134217728 bytes) exceeded")
                || r.stderr.contains(" the memory limit, "),
            "{said}"
        );
        let r = sh.exec("echo still here").await.expect("shell");
        assert_eq!(r.stdout, "still here\n");
    }
}

/// A call stopped by its deadline 20,000 calls deep ends as a timeout (the nested calls are
/// dropped on heap stack segments too), and the shell takes the next call.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deadline_deep_in_a_recursion_ends_the_call_cleanly() {
    let mut sh = Shell::new(
        Arc::new(sandbox_in(|b| b)),
        ShellSettings {
            timeout: std::time::Duration::from_secs(5),
            ..ShellSettings::default()
        },
    )
    .expect("shell");
    let r = sh
        .exec("f() { if [ $1 -gt 0 ]; then f $(( $1 - 1 )); else echo bottom; sleep 100; fi; }; f 20000")
        .await
        .expect("shell");
    assert_eq!(r.exit_code, 124, "{r:?}");
    let r = sh.exec("echo still here").await.expect("shell");
    assert_eq!(r.stdout, "still here\n");
}

/// What passes the memory limit is an error with a non-zero status that names the limit, never
/// exit 0 with part of the data; the shell works after it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn data_past_the_memory_limit_is_an_error_not_a_cut() {
    let mut sh = shell_with_memory(64 << 20);
    for script in [
        "x=$(yes); echo \"got ${#x}\"",
        "x=$(seq 1 20000000); echo \"got ${#x}\"",
        // `sort` needs all its input (`tail` streams it: it answers as bash does).
        "seq 1 20000000 | sort -n | tail -1",
        "f() { echo $(( $1 + $(f $(( $1 + 1 ))) )); }; f 1",
    ] {
        let r = sh.exec(script).await.expect("shell");
        assert_ne!(r.exit_code, 0, "{script}: {r:?}");
        assert!(!r.stdout.contains("got"), "{script}: {}", r.stdout);
        assert!(
            r.stderr.contains("memory limit allows (64 MiB"),
            "{script}: {}",
            r.stderr
        );
    }
    let r = sh.exec("seq 3 | wc -l").await.expect("shell");
    assert_eq!(r.stdout, "3\n");
    // A line filter holds a few lines, so 169 MB pass through 64 MiB.
    let r = sh.exec("seq 1 20000000 | tail -1").await.expect("shell");
    assert_eq!((r.stdout.as_str(), r.exit_code), ("20000000\n", 0), "{r:?}");
}

/// A data file past the old fixed 128 MiB read limit is read whole, as in bash (the bound is
/// the sandbox's memory limit).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_150_mb_file_is_read_whole() {
    let sb = sandbox_in(|b| b.disk_quota(1 << 30));
    let line = "0123456789 abcdefghij ABCDEFGHIJ 0123456789 abcdefghij ABCDEFGHIJ\n";
    let lines = 150_000_000 / line.len();
    sb.workspace()
        .write("big.txt", line.repeat(lines))
        .expect("write");
    let mut sh = Shell::new(Arc::new(sb), ShellSettings::default()).expect("shell");
    let r = sh
        .exec("wc -l big.txt; grep -c abc big.txt; sort -u big.txt | wc -l")
        .await
        .expect("shell");
    assert_eq!(
        r.stdout,
        format!("{lines} big.txt\n{lines}\n1\n"),
        "{}",
        r.stderr
    );
    assert_eq!(r.exit_code, 0, "{}", r.stderr);
}

/// A shell over a sandbox with `memory_bytes` of memory and the other limits at their defaults.
fn shell_with_memory(memory_bytes: u64) -> Shell {
    let limits = llm_in_sandbox::runtime::Limits {
        memory_bytes,
        ..llm_in_sandbox::runtime::Limits::default()
    };
    Shell::new(
        Arc::new(sandbox_in(|b| b.limits(limits))),
        ShellSettings::default(),
    )
    .expect("shell")
}
