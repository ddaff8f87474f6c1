//! Signals and file modes (issue 46, items 3 and 5; docs/linux-compatibility.md): the shell's
//! `kill`, `trap`, `wait` and `./script` against the host's bash; a program's signals to itself
//! and to its children, and the exit status the shell and `subprocess` see; permission bits
//! that Python and the shell read and set alike.

use std::sync::Arc;

use llm_in_sandbox::shell::{Shell, ShellSettings};

use crate::common::{bash, sandbox, shell_with, shown};

/// (stdout, exit code) of `bash -c SCRIPT` on the host, in a fresh folder.
fn host_bash(script: &str) -> (String, i32) {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = std::process::Command::new("bash")
        .args(["-c", script])
        .current_dir(dir.path())
        .env("LANG", "C.UTF-8")
        .output()
        .expect("this test compares against the host's bash");
    // A bash that a signal ended shows as a shell would report it: 128 + N.
    use std::os::unix::process::ExitStatusExt;
    let code = out
        .status
        .code()
        .or_else(|| out.status.signal().map(|n| 128 + n))
        .unwrap_or(-1);
    (String::from_utf8_lossy(&out.stdout).into_owned(), code)
}

fn new_shell() -> Shell {
    Shell::new(Arc::new(sandbox()), ShellSettings::default()).expect("shell")
}

#[tokio::test]
async fn the_shells_kill_trap_wait_and_scripts_match_bash() {
    let scripts = [
        "sleep 5 & kill %1; wait %1; echo $?",
        "sleep 5 & kill -9 $!; wait $!; echo $?",
        "sleep 5 & kill -0 $!; echo $?; kill $!; wait; echo done",
        "sleep 5 & p=$!; kill -s TERM $p; wait $p; echo $?; kill $p; echo $?",
        "sleep 5 & jobs | wc -l; kill %1; wait; jobs | wc -l",
        "(exit 3) & wait $!; echo $?",
        "trap 'echo got USR1' USR1; kill -USR1 $$; echo after",
        "trap 'echo term' TERM; kill $$; echo after",
        "trap '' USR1; kill -USR1 $$; echo ignored",
        "echo before; kill -USR1 $$; echo not reached",
        "kill -TERM $$",
        "kill -l 143; kill -l TERM",
        "printf '#!/bin/sh\\necho hi $1\\n' > x.sh; ./x.sh a; echo $?; chmod +x x.sh; ./x.sh b; \
         echo $?; test -x x.sh && echo exec; chmod -x x.sh; test -x x.sh || echo noexec",
        "printf '#!/bin/bash\\necho \"$0 $#\"; exit 5\\n' > b.sh; chmod 755 b.sh; ./b.sh 1 2; \
         echo $?; cd .. && \"$OLDPWD/b.sh\" | sed 's|.*/||'; echo $?",
        "mkdir d; ./d; echo $?; ./missing; echo $?",
        "printf 'echo no shebang\\n' > n; chmod +x n; ./n; echo $?",
    ];
    let mut differ = Vec::new();
    for script in scripts {
        let mut shell = new_shell();
        let r = bash(&mut shell, script).await;
        let (want, want_code) = host_bash(script);
        if r.stdout != want || r.exit_code != want_code {
            differ.push(format!(
                "{script}\n--- host bash: exit {want_code}\n{want}--- sandbox: {}",
                shown(&r)
            ));
        }
    }
    assert!(differ.is_empty(), "{}", differ.join("\n\n"));
}

#[tokio::test]
async fn a_program_ended_by_a_signal_shows_as_bash_and_subprocess_see_it() {
    let mut shell = shell_with(&[
        (
            "term.py",
            "import atexit, os, signal\n\
             atexit.register(print, 'atexit')\n\
             print('flushed', flush=True)\n\
             try:\n    os.kill(os.getpid(), signal.SIGTERM)\nfinally:\n    print('finally')\n",
        ),
        (
            "parent.py",
            "import subprocess, sys\n\
             child = 'import os, signal; os.kill(os.getpid(), signal.SIGUSR1)'\n\
             r = subprocess.run([sys.executable, '-c', child], capture_output=True, text=True)\n\
             print(r.returncode, repr(r.stderr))\n\
             r = subprocess.run('python3 -c \"%s\"' % child, shell=True, capture_output=True)\n\
             print(r.returncode)\n\
             print(subprocess.run(['sh', '-c', 'exit 138']).returncode)\n",
        ),
        (
            "goes_on.py",
            "import os, signal\n\
             signal.signal(signal.SIGTERM, lambda s, f: print('handled', s))\n\
             os.kill(os.getpid(), signal.SIGTERM)\n\
             signal.signal(signal.SIGUSR2, signal.SIG_IGN)\n\
             signal.raise_signal(signal.SIGUSR2)\n\
             try:\n    os.kill(0, signal.SIGINT)\nexcept KeyboardInterrupt:\n    print('KeyboardInterrupt')\n\
             print(signal.getsignal(signal.SIGPIPE) == signal.SIG_IGN)\n",
        ),
    ]);
    // Through the shell: 128 + N and bash's word for it; nothing after the kill runs (no
    // finally, no atexit), what was flushed before is kept.
    let r = bash(&mut shell, "python3 term.py; echo status $?").await;
    assert_eq!(r.stdout, "flushed\nstatus 143\n", "{}", shown(&r));
    assert!(r.stderr.contains("Terminated"), "{}", shown(&r));
    for (signal, word) in [(9, "Killed"), (10, "User defined signal 1"), (6, "Aborted")] {
        let r = bash(
            &mut shell,
            &format!("python3 -c 'import os; os.kill(os.getpid(), {signal})'"),
        )
        .await;
        assert_eq!(r.exit_code, 128 + signal, "{}", shown(&r));
        assert!(r.stderr.contains(word), "{}", shown(&r));
    }
    // subprocess with an argument list: returncode -N and no shell's message; with a shell
    // (dash, as the container's /bin/sh): 128 + N.
    let r = bash(&mut shell, "python3 parent.py").await;
    assert_eq!(r.stdout, "-10 ''\n138\n138\n", "{}", shown(&r));
    // A handler, SIG_IGN, and KeyboardInterrupt for SIGINT: the program goes on.
    let r = bash(&mut shell, "python3 goes_on.py").await;
    assert_eq!(
        r.stdout,
        "handled 15\nKeyboardInterrupt\nTrue\n",
        "{}",
        shown(&r)
    );
    assert_eq!(r.exit_code, 0, "{}", shown(&r));
    // Statuses WASI's exit cannot carry (over 125) end the program as _exit would.
    let r = bash(&mut shell, "python3 -c 'import os; os._exit(200)'; echo $?").await;
    assert_eq!(r.stdout, "200\n", "{}", shown(&r));
    // An alarm's default action: 142 and bash's word.
    let r = bash(
        &mut shell,
        "python3 -c 'import signal; signal.alarm(1); signal.pause()'",
    )
    .await;
    assert_eq!(r.exit_code, 142, "{}", shown(&r));
    assert!(r.stderr.contains("Alarm clock"), "{}", shown(&r));
}

#[tokio::test]
async fn signals_reach_children_and_other_pids_say_so() {
    let mut shell = shell_with(&[(
        "kids.py",
        "import os, signal, subprocess\n\
         p = subprocess.Popen(['sleep', '5'])\n\
         os.kill(p.pid, signal.SIGTERM)\n\
         print(p.wait())\n\
         try:\n    os.kill(p.pid, 0)\nexcept ProcessLookupError:\n    print('reaped')\n\
         try:\n    os.kill(4242, signal.SIGTERM)\nexcept ProcessLookupError:\n    print('no such process')\n\
         try:\n    os.kill(os.getppid(), signal.SIGTERM)\nexcept PermissionError as e:\n    print('parent:', 'not delivered' in str(e))\n\
         os.kill(os.getppid(), 0)\n\
         q = subprocess.Popen(['echo', 'x'], stdout=subprocess.PIPE)\n\
         os.killpg(os.getpgrp(), signal.SIGCHLD)\n\
         print(q.communicate()[0], q.returncode)\n",
    )]);
    let r = bash(&mut shell, "python3 kids.py").await;
    assert_eq!(
        r.stdout,
        "-15\nreaped\nno such process\nparent: True\nb'x\\n' 0\n",
        "{}",
        shown(&r)
    );
}

#[tokio::test]
async fn python_and_the_shell_agree_on_permission_bits() {
    let mut shell = shell_with(&[
        (
            "make.py",
            "import os\n\
             open('run.sh', 'w').write('#!/bin/sh\\necho ran $1\\n')\n\
             print(oct(os.stat('run.sh').st_mode & 0o777), os.access('run.sh', os.X_OK))\n\
             os.chmod('run.sh', 0o755)\n",
        ),
        (
            "look.py",
            "import os, stat\n\
             print(stat.filemode(os.stat('run.sh').st_mode), os.access('run.sh', os.X_OK))\n\
             os.chmod('run.sh', 0o4755)\n\
             print(oct(os.stat('run.sh').st_mode & 0o7777))\n\
             os.chmod('run.sh', 0)\n\
             print(oct(os.stat('run.sh').st_mode & 0o7777))\n",
        ),
    ]);
    let r = bash(
        &mut shell,
        "python3 make.py; ls -l run.sh | cut -c1-10; test -x run.sh && echo executable; \
         ./run.sh a; chmod 640 run.sh; ./run.sh b; echo status $?; python3 look.py; \
         ls -l run.sh | cut -c1-10",
    )
    .await;
    // Set-id bits are refused and the owner keeps read and write (the security rules).
    assert_eq!(
        r.stdout,
        "0o644 False\n-rwxr-xr-x\nexecutable\nran a\nstatus 126\n-rw-r----- False\n\
         0o755\n0o600\n-rw-------\n",
        "{}",
        shown(&r)
    );
    assert!(
        r.stderr.contains("./run.sh: Permission denied"),
        "{}",
        shown(&r)
    );
}

#[tokio::test]
async fn scripts_with_shebangs_run_from_python_and_exec_replaces_the_program() {
    let mut shell = shell_with(&[
        (
            "t.py",
            "#!/usr/bin/env python3\nimport sys\nprint('py', sys.argv[1:])\n",
        ),
        ("t.sh", "#!/bin/sh\necho \"sh $1\"\nexit 6\n"),
        (
            "runner.py",
            "import os, subprocess\n\
             print(subprocess.run(['./t.py', 'list'], capture_output=True, text=True).stdout, end='', flush=True)\n\
             print(subprocess.run(['./t.sh', 'x']).returncode, flush=True)\n\
             print(os.system('./t.sh y') >> 8, flush=True)\n\
             os.chmod('t.sh', 0o644)\n\
             try:\n    subprocess.run(['./t.sh'])\nexcept PermissionError:\n    print('PermissionError')\n\
             os.chmod('t.sh', 0o755)\n\
             print('exec', flush=True)\n\
             os.execv('./t.sh', ['t.sh', 'z'])\n",
        ),
    ]);
    let r = bash(
        &mut shell,
        "chmod +x t.py t.sh; ./t.py shell; python3 runner.py; echo status $?",
    )
    .await;
    assert_eq!(
        r.stdout,
        "py ['shell']\npy ['list']\nsh x\n6\nsh y\n6\nPermissionError\nexec\nsh z\nstatus 6\n",
        "{}",
        shown(&r)
    );
}

#[tokio::test]
async fn an_uncaught_keyboard_interrupt_ends_the_program_as_sigint_does() {
    // CPython runs its exit steps (atexit, flushing) and then dies by SIGINT: bash's $? is
    // 130 (and bash prints nothing for SIGINT), a parent without a shell between sees -2.
    let mut shell = shell_with(&[
        (
            "child.py",
            "import atexit\n\
             atexit.register(print, 'atexit ran')\n\
             print('before')\n\
             raise KeyboardInterrupt\n",
        ),
        (
            "parent.py",
            "import subprocess, sys\n\
             r = subprocess.run([sys.executable, 'child.py'], capture_output=True, text=True)\n\
             print(r.returncode, r.stdout.split(), r.stderr.strip().splitlines()[-1])\n\
             print(subprocess.run('python3 child.py', shell=True, capture_output=True).returncode)\n",
        ),
    ]);
    let r = bash(&mut shell, "python3 child.py; echo status $?").await;
    assert_eq!(
        r.stdout,
        "before\natexit ran\nstatus 130\n",
        "{}",
        shown(&r)
    );
    assert!(
        r.stderr.trim_end().ends_with("KeyboardInterrupt"),
        "{}",
        shown(&r)
    );
    let r = bash(&mut shell, "python3 parent.py").await;
    assert_eq!(
        r.stdout,
        "-2 ['before', 'atexit', 'ran'] KeyboardInterrupt\n130\n",
        "{}",
        shown(&r)
    );
}
