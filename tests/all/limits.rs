//! Runaway guests: deadline, memory cap, output cap. The host must survive all of them.

use std::time::Duration;

use llm_in_sandbox::runtime::{Limits, Outcome};

use crate::common::{code, ok, py, sandbox_with, show};

fn limits(timeout_s: u64, memory_mb: u64, output: usize) -> Limits {
    Limits {
        timeout: Duration::from_secs(timeout_s),
        memory_bytes: memory_mb << 20,
        output_bytes: output,
    }
}

#[tokio::test]
async fn busy_loop_stops_at_the_deadline() {
    let sb = sandbox_with(limits(1, 512, 1 << 20));
    let r = py(
        &sb,
        &["-c", "print('started', flush=True)\nwhile True: pass"],
    )
    .await;
    assert_eq!(r.outcome, Outcome::Deadline, "{}", show(&r));
    assert_eq!(r.exit_code, 124);
    assert_eq!(
        r.stdout_text(),
        "started\n",
        "output before the deadline is kept"
    );
}

/// Loops that never return to the interpreter's dispatch: the regex engine backtracking
/// without end, and a matrix product in numpy's BLAS kernel (minutes of work here). The
/// deadline check in every compiled loop must still reach them (its slow path is called
/// through a register-preserving trampoline, vendor/README.md), and the sandbox must take
/// the next call.
#[tokio::test]
async fn loops_inside_c_code_stop_at_the_deadline() {
    let sb = sandbox_with(limits(1, 512, 1 << 20));
    for (what, src) in [
        (
            "regex backtracking",
            "import re\nprint('started', flush=True)\nre.match(r'(a+)+$', 'a' * 64 + 'b')",
        ),
        (
            "BLAS kernel",
            "import numpy as np\na = np.ones((3000, 3000))\nprint('started', flush=True)\na @ a",
        ),
    ] {
        let r = py(&sb, &["-c", src]).await;
        assert_eq!(r.outcome, Outcome::Deadline, "{what}: {}", show(&r));
        assert_eq!(r.exit_code, 124, "{what}");
        assert_eq!(r.stdout_text(), "started\n", "{what}: {}", show(&r));
        // Correctness, not speed: uninterrupted, either would run far longer than this.
        assert!(
            r.duration < Duration::from_secs(60),
            "{what}: {:?}",
            r.duration
        );
        let next = py(&sb, &["-c", "print(6 * 7)"]).await;
        assert_eq!(
            next.stdout_text(),
            "42\n",
            "{what}, next call: {}",
            show(&next)
        );
    }
}

#[tokio::test]
async fn sleep_stops_at_the_deadline() {
    let sb = sandbox_with(limits(1, 512, 1 << 20));
    let r = py(&sb, &["-c", "import time; time.sleep(600)"]).await;
    assert_eq!(r.outcome, Outcome::Deadline, "{}", show(&r));
    // Correctness, not speed: without the async deadline this would run for 600 s.
    assert!(r.duration < Duration::from_secs(120), "{:?}", r.duration);
}

#[tokio::test]
async fn memory_cap_is_enforced() {
    let sb = sandbox_with(limits(60, 256, 1 << 20));
    let r = py(&sb, &["-c", "b = bytearray(512 * 1024 * 1024)"]).await;
    assert_eq!(r.outcome, Outcome::MemoryLimit, "{}", show(&r));
    assert_eq!(r.exit_code, 1);
    assert!(r.stderr_text().contains("MemoryError"), "{}", show(&r));
    assert!(r.peak_memory_bytes <= 256 << 20, "{}", r.peak_memory_bytes);
}

#[tokio::test]
async fn ten_gigabytes_fails_inside_the_guest() {
    // 10**10 does not even fit wasm32's address space: CPython refuses it before allocating.
    let r = code("b = bytearray(10**10)").await;
    assert_eq!(r.exit_code, 1, "{}", show(&r));
    assert!(r.stderr_text().contains("Error"), "{}", show(&r));
    assert_eq!(ok(&code("print('still fine')").await), "still fine\n");
}

#[tokio::test]
async fn huge_output_is_truncated_and_the_run_finishes() {
    let cap = 1 << 20;
    let sb = sandbox_with(limits(60, 512, cap));
    let r = py(&sb, &["-c", "import sys\nfor _ in range(100): sys.stdout.write('x' * 1_000_000)\nprint('done', file=sys.stderr)"]).await;
    assert_eq!(r.outcome, Outcome::OutputTruncated, "{}", show(&r));
    assert_eq!(r.exit_code, 0);
    assert_eq!(r.stdout.len(), cap);
    assert_eq!(r.stdout_dropped, 100_000_000 - cap as u64);
    assert_eq!(r.stderr_text(), "done\n");
}

#[tokio::test]
async fn peak_memory_is_reported() {
    let r = code("b = bytearray(64 * 1024 * 1024); print(len(b))").await;
    ok(&r);
    assert!(r.peak_memory_bytes >= 64 << 20, "{}", r.peak_memory_bytes);
}

#[tokio::test]
async fn what_python_removes_renames_over_or_truncates_is_free_for_the_next_call() {
    // The quota is measured again after a call only when it touched the disk: removing,
    // renaming over, truncating and removing folders must count as touching, or what they
    // free would stay charged and the next write would fail. Each freeing call does only its
    // one operation (anything set up for it is made by the call before).
    let sb = crate::common::sandbox_in(|b| b.disk_quota(1 << 20).max_files(20));
    let py = |code: &str| {
        let (sb, code) = (&sb, code.to_string());
        async move { crate::common::py(sb, &["-c", &code]).await }
    };
    let fill = |name: &str| format!("open('{name}', 'wb').write(b'0' * (600 << 10))");
    let clean = "import os\nfor f in os.listdir('.'):\n    os.remove(f) if os.path.isfile(f) else os.rmdir(f)";
    for (setup, frees, what) in [
        ("", "import os; os.remove('a')", "a removal"),
        (
            "open('small', 'w').close()",
            "import os; os.replace('small', 'a')",
            "a rename over",
        ),
        (
            "",
            "import os; os.close(os.open('a', os.O_WRONLY | os.O_TRUNC))",
            "an open that truncates",
        ),
        ("", "import os; os.truncate('a', 0)", "a size change"),
    ] {
        let r = py(&format!("{}\n{setup}", fill("a"))).await;
        assert_eq!(r.exit_code, 0, "{what}: {}", crate::common::show(&r));
        // The space is taken: a second file of the same size does not fit.
        let r = py(&fill("b")).await;
        assert_eq!(r.exit_code, 1, "{what}: {}", crate::common::show(&r));
        let r = py(frees).await;
        assert_eq!(r.exit_code, 0, "{what}: {}", crate::common::show(&r));
        let r = py(&fill("b")).await;
        assert_eq!(
            r.exit_code,
            0,
            "after {what} the next call's write fits: {}",
            crate::common::show(&r)
        );
        let r = py(clean).await;
        assert_eq!(r.exit_code, 0, "{}", crate::common::show(&r));
    }
    // Folders take entries: fill the cap with them, remove them (nothing else in that call),
    // and a new entry fits again.
    let r = py("import os\nfor i in range(20): os.mkdir(f'd{i}')").await;
    assert_eq!(r.exit_code, 0, "{}", crate::common::show(&r));
    let r = py("import os; os.mkdir('x')").await;
    assert_eq!(
        r.exit_code,
        1,
        "the cap is full: {}",
        crate::common::show(&r)
    );
    let r = py("import os\nfor i in range(20): os.rmdir(f'd{i}')").await;
    assert_eq!(r.exit_code, 0, "{}", crate::common::show(&r));
    let r = py("import os; os.mkdir('x')").await;
    assert_eq!(
        r.exit_code,
        0,
        "after removing folders a new one fits: {}",
        crate::common::show(&r)
    );
}

#[tokio::test]
async fn python_alone_is_held_to_the_sandbox_quota() {
    // `Sandbox::python` (what `exec --` and the scorers use), no shell involved.
    let sb = crate::common::sandbox_in(|b| b.disk_quota(1 << 20).max_files(3));
    let r = crate::common::py(
        &sb,
        &["-c", "open('big.bin', 'wb').write(b'0' * (2 << 20))"],
    )
    .await;
    assert_eq!(r.exit_code, 1, "{}", crate::common::show(&r));
    assert!(
        r.stderr_text().contains("No space left on device"),
        "{}",
        crate::common::show(&r)
    );
    let on_disk = sb.workspace().read("big.bin").map_or(0, |b| b.len());
    assert!(on_disk <= 1 << 20, "{on_disk} bytes written");
    // Files are counted as Python creates them, not after the call.
    let r = crate::common::py(
        &sb,
        &[
            "-c",
            "import os\nfor i in range(10):\n    open(f'f{i}', 'w').close()",
        ],
    )
    .await;
    assert_eq!(r.exit_code, 1, "{}", crate::common::show(&r));
    let files = sb.workspace().dir().entries().unwrap().count();
    assert!(files <= 3, "{files} files");
}
