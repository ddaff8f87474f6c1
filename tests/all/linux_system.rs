//! The system the guest shows (docs/linux-compatibility.md, "The system"): Linux's identity
//! as the reference container reports it, the same `/etc` and `/proc` in Python and in the
//! shell, `/proc` and `resource` figures that follow the sandbox's limits, and lowered
//! limits that take effect.

use std::sync::Arc;
use std::time::Duration;

use llm_in_sandbox::runtime::{Limits, Outcome};
use llm_in_sandbox::shell::{Shell, ShellSettings};

use crate::common::{bash, ok, py, sandbox, sandbox_with, shell_with, show, shown};

fn shell() -> Shell {
    Shell::new(Arc::new(sandbox()), ShellSettings::default()).expect("shell over a sandbox")
}

#[tokio::test]
async fn the_os_is_linux_and_python_agrees_with_uname() {
    let mut sh = shell();
    let r = bash(
        &mut sh,
        "uname -s; uname -n; uname -r; uname -v; uname -m; echo --; \
         python3 -c 'import os; print(*os.uname(), sep=\"\\n\")'",
    )
    .await;
    assert_eq!(r.exit_code, 0, "{}", shown(&r));
    let (shell_says, python_says) = r.stdout.split_once("--\n").expect("two halves");
    assert_eq!(shell_says, python_says, "{}", shown(&r));
    assert!(shell_says.starts_with("Linux\nsandbox\n"), "{}", shown(&r));
    let r = bash(
        &mut sh,
        "uname -a; python3 -c 'import platform; print(platform.platform())'",
    )
    .await;
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert!(
        lines.len() == 2 && lines[0].starts_with("Linux sandbox "),
        "{}",
        shown(&r)
    );
    let r = py(
        &sandbox(),
        &[
            "-c",
            "import sys, os, platform, sysconfig, socket\n\
             print(sys.platform, os.name, platform.system(), platform.machine())\n\
             print(sysconfig.get_platform(), platform.libc_ver(), repr(platform.processor()))\n\
             print(platform.node(), socket.gethostname(), socket.getfqdn())\n\
             print(platform.freedesktop_os_release()['PRETTY_NAME'])\n\
             print(sysconfig.get_config_var('SOABI'))",
        ],
    )
    .await;
    assert_eq!(
        ok(&r),
        "linux posix Linux x86_64\nlinux-x86_64 ('glibc', '2.36') ''\nsandbox sandbox sandbox\n\
         Debian GNU/Linux 12 (bookworm)\ncpython-315-wasm32-wasi\n"
    );
}

#[tokio::test]
async fn etc_and_proc_read_the_same_in_python_and_the_shell() {
    let mut sh = shell();
    for file in [
        "/etc/os-release",
        "/etc/passwd",
        "/etc/group",
        "/etc/hostname",
        "/etc/hosts",
        "/etc/debian_version",
        "/proc/cpuinfo",
        "/proc/version",
    ] {
        let r = bash(
            &mut sh,
            &format!(
                "cat {file}; echo '<>'; python3 -c 'import sys; sys.stdout.write(open(\"{file}\").read())'"
            ),
        )
        .await;
        assert_eq!(r.exit_code, 0, "{}", shown(&r));
        let (a, b) = r.stdout.split_once("<>\n").expect("two halves");
        assert!(!a.is_empty(), "{file}: {}", shown(&r));
        assert_eq!(a, b, "{file}: {}", shown(&r));
    }
    // The files the shell lists under /etc are Python's.
    let r = bash(
        &mut sh,
        "ls /etc; echo '<>'; python3 -c 'import os; print(*sorted(os.listdir(\"/etc\")), sep=\"\\n\")'",
    )
    .await;
    let (a, b) = r.stdout.split_once("<>\n").expect("two halves");
    assert_eq!(a, b, "{}", shown(&r));
    // The shell's own process is root's too.
    let r = bash(&mut sh, "grep ^Uid: /proc/self/status").await;
    assert_eq!(r.stdout, "Uid:\t0\t0\t0\t0\n", "{}", shown(&r));
    // /etc/passwd and /etc/group are what `pwd` and `grp` answer.
    let r = py(
        &sandbox(),
        &[
            "-c",
            "import pwd, grp\n\
             rows = [l.split(':') for l in open('/etc/passwd').read().splitlines()]\n\
             print([(r[0], int(r[2]), int(r[3]), r[4], r[5], r[6]) for r in rows] == \
             [(p.pw_name, p.pw_uid, p.pw_gid, p.pw_gecos, p.pw_dir, p.pw_shell) for p in pwd.getpwall()])\n\
             rows = [l.split(':') for l in open('/etc/group').read().splitlines()]\n\
             print([(r[0], int(r[2])) for r in rows] == [(g.gr_name, g.gr_gid) for g in grp.getgrall()])",
        ],
    )
    .await;
    assert_eq!(ok(&r), "True\nTrue\n");
}

#[tokio::test]
async fn virtual_files_work_through_os_pathlib_and_glob_and_refuse_writes() {
    let r = py(
        &sandbox(),
        &[
            "-c",
            "import os, glob, errno\n\
             from pathlib import Path\n\
             print(os.path.isfile('/etc/passwd'), os.path.isdir('/proc/self'), os.path.exists('/etc/nope'))\n\
             print(Path('/proc/meminfo').read_text().split()[0], Path('/etc').is_dir())\n\
             print(glob.glob('/etc/host*'), 'self' in os.listdir('/proc'))\n\
             print(sorted(os.listdir('/proc/sys/kernel')))\n\
             print(open('/proc/%d/comm' % os.getpid()).read().strip(), os.stat('/proc/cpuinfo').st_size)\n\
             print(open('/etc/hostname', 'rb').read(), os.access('/etc/passwd', os.W_OK))\n\
             print([d for d, _, _ in os.walk('/proc')])\n\
             for path, mode in (('/etc/passwd', 'w'), ('/etc/new.conf', 'w'), ('/proc/nope', 'r'), ('/etc', 'r')):\n\
             \x20   try:\n\
             \x20       open(path, mode)\n\
             \x20   except OSError as e:\n\
             \x20       print(type(e).__name__, errno.errorcode[e.errno])\n\
             try:\n\
             \x20   os.listdir('/etc/passwd')\n\
             except NotADirectoryError:\n\
             \x20   print('NotADirectoryError')",
        ],
    )
    .await;
    assert_eq!(
        ok(&r),
        "True True False\nMemTotal: True\n['/etc/hostname', '/etc/hosts'] True\n\
         ['hostname', 'osrelease', 'ostype', 'version']\npython3 0\nb'sandbox\\n' True\n\
         ['/proc', '/proc/self', '/proc/sys', '/proc/sys/kernel']\n\
         PermissionError EACCES\nPermissionError EACCES\nFileNotFoundError ENOENT\n\
         IsADirectoryError EISDIR\nNotADirectoryError\n"
    );
}

#[tokio::test]
async fn proc_and_resource_figures_follow_the_sandbox_limits() {
    let limits = Limits {
        memory_bytes: 768 << 20,
        timeout: Duration::from_secs(30),
        ..Limits::default()
    };
    let r = py(
        &sandbox_with(limits),
        &[
            "-c",
            "import os, resource, shutil\n\
             mem = dict(l.split(':') for l in open('/proc/meminfo').read().splitlines())\n\
             print(mem['MemTotal'].strip(), os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES'))\n\
             print(resource.getrlimit(resource.RLIMIT_AS), resource.getrlimit(resource.RLIMIT_DATA))\n\
             print(resource.getrlimit(resource.RLIMIT_CPU), resource.getrlimit(resource.RLIMIT_NOFILE))\n\
             print(shutil.disk_usage('/testbed').total == resource.getrlimit(resource.RLIMIT_FSIZE)[0])\n\
             status = dict(l.split(':\\t') for l in open('/proc/self/status').read().splitlines())\n\
             rss = int(status['VmRSS'].split()[0])\n\
             print(rss * 1024 <= 768 << 20, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss >= rss)",
        ],
    )
    .await;
    assert_eq!(
        ok(&r),
        "786432 kB 805306368\n(805306368, 805306368) (805306368, 805306368)\n(30, 30) (1024, 1024)\n\
         True\nTrue True\n"
    );
}

#[tokio::test]
async fn getrusage_counts_running_not_sleeping_and_the_peak_memory() {
    let r = py(
        &sandbox(),
        &[
            "-c",
            "import resource, time\n\
             before = resource.getrusage(resource.RUSAGE_SELF)\n\
             time.sleep(1)\n\
             slept = resource.getrusage(resource.RUSAGE_SELF)\n\
             print(slept.ru_utime - before.ru_utime < 0.5)\n\
             block = bytearray(200 << 20)\n\
             grown = resource.getrusage(resource.RUSAGE_SELF)\n\
             print(grown.ru_maxrss - slept.ru_maxrss >= 150 << 10)\n\
             del block\n\
             print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss >= grown.ru_maxrss)\n\
             print(abs(time.process_time() - resource.getrusage(0).ru_utime) < 0.5)",
        ],
    )
    .await;
    assert_eq!(ok(&r), "True\nTrue\nTrue\nTrue\n");
}

#[tokio::test]
async fn a_lowered_address_space_limit_gives_memory_error_not_the_sandbox_limit() {
    let r = py(
        &sandbox(),
        &[
            "-c",
            "import resource\n\
             soft, hard = resource.getrlimit(resource.RLIMIT_AS)\n\
             used = int(open('/proc/self/status').read().split('VmRSS:')[1].split()[0]) * 1024\n\
             resource.setrlimit(resource.RLIMIT_AS, (used + (64 << 20), hard))\n\
             try:\n\
             \x20   x = bytearray(256 << 20)\n\
             except MemoryError:\n\
             \x20   print('MemoryError')\n\
             resource.setrlimit(resource.RLIMIT_AS, (hard, hard))\n\
             x = bytearray(256 << 20)\n\
             print('then', len(x) >> 20)\n\
             for limits in ((hard, hard + 1), (hard + 1, hard)):\n\
             \x20   try:\n\
             \x20       resource.setrlimit(resource.RLIMIT_AS, limits)\n\
             \x20   except ValueError as e:\n\
             \x20       print(e)\n\
             resource.setrlimit(resource.RLIMIT_DATA, (1 << 30, 1 << 30))\n\
             try:\n\
             \x20   resource.setrlimit(resource.RLIMIT_DATA, (hard, hard))\n\
             except ValueError as e:\n\
             \x20   print(e)",
        ],
    )
    .await;
    assert_eq!(
        ok(&r),
        "MemoryError\nthen 256\nnot allowed to raise maximum limit\n\
         current limit exceeds maximum limit\nnot allowed to raise maximum limit\n"
    );
    assert_eq!(r.outcome, Outcome::Exited, "{}", show(&r));
}

#[tokio::test]
async fn a_lowered_cpu_limit_ends_a_busy_program_as_sigxcpu_does() {
    let mut sh = shell();
    let r = bash(
        &mut sh,
        "python3 -c 'import resource\n\
         resource.setrlimit(resource.RLIMIT_CPU, (1, resource.getrlimit(resource.RLIMIT_CPU)[1]))\n\
         print(\"started\", flush=True)\n\
         while True:\n    pass'; echo \"status $?\"",
    )
    .await;
    assert_eq!(r.stdout, "started\nstatus 152\n", "{}", shown(&r));
    assert!(
        r.stderr.contains("CPU time limit exceeded"),
        "{}",
        shown(&r)
    );
}

#[tokio::test]
async fn dev_null_devices_and_duplicated_descriptors_work_in_python() {
    // As the host's CPython prints it (tests/fixtures/linux_programs/os_devnull_silence.py and
    // os_open_low_level.py use the same calls).
    let mut sh = shell_with(&[("dev.py", DEV_PY)]);
    let r = bash(&mut sh, "python3 dev.py").await;
    assert_eq!(
        r.stdout,
        "/dev/null True True True\nb''\n16 b'\\x00\\x00\\x00'\n4 False\nb''\n''\n0\n\
         True b'hel' b'lo'\n0 b'hello'\nTrue\nTrue\nflushed\nthrough a duplicate\n\
         through /dev/stdout\nend\n",
        "{}",
        shown(&r)
    );
    assert_eq!(r.exit_code, 0, "{}", shown(&r));
}

const DEV_PY: &str = r#"import contextlib, errno, os, stat, subprocess
print(os.devnull, os.path.exists(os.devnull), stat.S_ISCHR(os.stat(os.devnull).st_mode), os.access(os.devnull, os.W_OK))
with open(os.devnull, "w") as null, contextlib.redirect_stdout(null):
    print("nowhere")
with open(os.devnull, "rb") as f:
    print(repr(f.read()))
print(len(open("/dev/urandom", "rb").read(16)), open("/dev/zero", "rb").read(3))
fd = os.open(os.devnull, os.O_WRONLY)
print(os.write(fd, b"gone"), os.isatty(fd))
os.close(fd)
fd = os.open(os.devnull, os.O_RDONLY)
print(os.read(fd, 10))
with os.fdopen(fd) as f:
    print(repr(f.read()))
print(subprocess.run(["echo", "x"], stdout=open(os.devnull, "w")).returncode)
with open("raw.txt", "w") as f:
    f.write("hello")
r = os.open("raw.txt", os.O_RDONLY)
d = os.dup(r)
print(d != r, os.read(d, 3), os.read(r, 2))
os.close(r)
print(os.lseek(d, 0, os.SEEK_SET), os.read(d, 5))
os.close(d)
for fd in (r, d):
    try:
        os.read(fd, 1)
    except OSError as e:
        print(e.errno == errno.EBADF)
print("flushed", flush=True)
out = os.fdopen(os.dup(1), "w")
out.write("through a duplicate\n")
out.close()
with open("/dev/stdout", "a") as f:
    f.write("through /dev/stdout\n")
print("end")
"#;

#[tokio::test]
async fn wait_statuses_decode_as_on_linux() {
    let mut sh = shell_with(&[("wait.py", WAIT_PY)]);
    let r = bash(&mut sh, "python3 wait.py").await;
    assert_eq!(
        r.stdout,
        "0 True 0 False 0\n768 True 3 False 3\n11264 True 44 False 44\n\
         True 9 False 0 False\nFalse 127 True 19 False\nTrue 11 False 0 True\n-9\n\
         process stopped by delivery of signal 19\n512 None\n",
        "{}",
        shown(&r)
    );
}

const WAIT_PY: &str = r#"import os
for cmd in ["true", "exit 3", "exit 300"]:
    st = os.system(cmd)
    print(st, os.WIFEXITED(st), os.WEXITSTATUS(st), os.WIFSIGNALED(st), os.waitstatus_to_exitcode(st))
for st in (9, 0x137F, 0x8B):
    print(os.WIFSIGNALED(st), os.WTERMSIG(st), os.WIFSTOPPED(st), os.WSTOPSIG(st), os.WCOREDUMP(st))
print(os.waitstatus_to_exitcode(9))
try:
    os.waitstatus_to_exitcode(0x137F)
except ValueError as e:
    print(e)
print(os.popen("exit 2").close(), os.popen("true").close())
"#;

#[tokio::test]
async fn children_get_exactly_their_environment_and_what_putenv_changed() {
    let mut sh = shell_with(&[("env.py", ENV_PY)]);
    let r = bash(&mut sh, "python3 env.py").await;
    assert_eq!(
        r.stdout,
        "['ONLY=this']\nNone x\nhi gone\nback\nTrue\n",
        "{}",
        shown(&r)
    );
}

const ENV_PY: &str = r#"import os, subprocess, sys
print(subprocess.run(["env"], env={"ONLY": "this"}, capture_output=True, text=True).stdout.split())
os.putenv("PUT_ONLY", "x")
print(os.environ.get("PUT_ONLY"), subprocess.run("echo ${PUT_ONLY:-unset}", shell=True, capture_output=True, text=True).stdout.strip())
os.environ["GREETING"] = "hi"
os.unsetenv("GREETING")
print(os.environ.get("GREETING"), subprocess.run("echo ${GREETING:-gone}", shell=True, capture_output=True, text=True).stdout.strip())
os.environ["GREETING"] = "back"
print(subprocess.run(["sh", "-c", "echo $GREETING"], capture_output=True, text=True).stdout.strip())
os.mkdir("sub")
child = subprocess.run([sys.executable, "-c", "import os; print(os.getcwd().endswith('/sub'))"], env={"PATH": os.environ["PATH"]}, cwd="sub", capture_output=True, text=True)
print(child.stdout.strip())
"#;

#[tokio::test]
async fn threadpoolctl_finds_no_native_pools_and_kmeans_runs() {
    let r = py(
        &sandbox(),
        &[
            "-c",
            "import numpy as np\n\
             from threadpoolctl import threadpool_info, threadpool_limits\n\
             from sklearn.cluster import KMeans\n\
             print(threadpool_info())\n\
             with threadpool_limits(limits=1, user_api='blas'):\n\
             \x20   X = np.array([[0, 0], [0, 1], [10, 10], [10, 11]], dtype=float)\n\
             \x20   km = KMeans(n_clusters=2, n_init=2, random_state=0).fit(X)\n\
             print(sorted(np.bincount(km.labels_).tolist()), round(float(km.inertia_), 2))",
        ],
    )
    .await;
    assert_eq!(ok(&r), "[]\n[2, 2] 1.0\n");
}
