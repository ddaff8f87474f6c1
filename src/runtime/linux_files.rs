//! The virtual Linux system the sandbox shows: its identity (`uname`), `/etc` as in the
//! reference's container (`python:3.11-slim`, Debian 12, root) and `/proc` with figures that
//! follow the sandbox's limits. One source for both sides: the shell mounts these texts over
//! bashkit's own (`shell_files`), and Python reads them through the host door (`system` in
//! door.rs; `src/runtime/linux_box/system.py` serves them to `open`, `os.stat`, `os.listdir`,
//! `pathlib`, ...). Nothing here comes from the host machine.

use std::fmt::Write as _;
use std::time::Duration;

/// The node name (`uname -n`, `/etc/hostname`, `platform.node()`).
pub const HOSTNAME: &str = "sandbox";
/// The kernel name (`uname -s`, `os.uname().sysname`).
pub const KERNEL_NAME: &str = "Linux";
/// The kernel release: what bashkit's `uname -r` prints, so the shell and Python agree.
pub const KERNEL_RELEASE: &str = "5.15.0-sandbox";
/// The kernel version (`uname -v`), as bashkit's `uname` prints it.
pub const KERNEL_VERSION: &str = "#1 SMP PREEMPT sandbox";
/// The machine (`uname -m`): the reference's; the guest's pointers are 32 bits wide, as a
/// 32-bit program's are on that kernel (`platform.architecture()` says `32bit`).
pub const MACHINE: &str = "x86_64";
/// CPUs the sandbox shows (`nproc`, `os.cpu_count()`, `/proc/cpuinfo`).
pub const CPUS: u32 = 4;

/// Debian 12's `/etc/passwd` base entries: (name, uid, gid, gecos, home, shell). The guest's
/// `pwd` module holds the same table (linux_box/identity.py; a test compares them).
const PASSWD: &[(&str, u32, u32, &str, &str, &str)] = &[
    ("root", 0, 0, "root", "/root", "/bin/bash"),
    ("daemon", 1, 1, "daemon", "/usr/sbin", "/usr/sbin/nologin"),
    ("bin", 2, 2, "bin", "/bin", "/usr/sbin/nologin"),
    ("sys", 3, 3, "sys", "/dev", "/usr/sbin/nologin"),
    ("sync", 4, 65534, "sync", "/bin", "/bin/sync"),
    ("games", 5, 60, "games", "/usr/games", "/usr/sbin/nologin"),
    ("man", 6, 12, "man", "/var/cache/man", "/usr/sbin/nologin"),
    ("lp", 7, 7, "lp", "/var/spool/lpd", "/usr/sbin/nologin"),
    ("mail", 8, 8, "mail", "/var/mail", "/usr/sbin/nologin"),
    ("news", 9, 9, "news", "/var/spool/news", "/usr/sbin/nologin"),
    (
        "uucp",
        10,
        10,
        "uucp",
        "/var/spool/uucp",
        "/usr/sbin/nologin",
    ),
    ("proxy", 13, 13, "proxy", "/bin", "/usr/sbin/nologin"),
    (
        "www-data",
        33,
        33,
        "www-data",
        "/var/www",
        "/usr/sbin/nologin",
    ),
    (
        "backup",
        34,
        34,
        "backup",
        "/var/backups",
        "/usr/sbin/nologin",
    ),
    (
        "list",
        38,
        38,
        "Mailing List Manager",
        "/var/list",
        "/usr/sbin/nologin",
    ),
    ("irc", 39, 39, "ircd", "/run/ircd", "/usr/sbin/nologin"),
    ("_apt", 42, 65534, "", "/nonexistent", "/usr/sbin/nologin"),
    (
        "nobody",
        65534,
        65534,
        "nobody",
        "/nonexistent",
        "/usr/sbin/nologin",
    ),
];

/// Debian 12's base `/etc/group`: (name, gid).
const GROUPS: &[(&str, u32)] = &[
    ("root", 0),
    ("daemon", 1),
    ("bin", 2),
    ("sys", 3),
    ("adm", 4),
    ("tty", 5),
    ("disk", 6),
    ("lp", 7),
    ("mail", 8),
    ("news", 9),
    ("uucp", 10),
    ("man", 12),
    ("proxy", 13),
    ("kmem", 15),
    ("dialout", 20),
    ("fax", 21),
    ("voice", 22),
    ("cdrom", 24),
    ("floppy", 25),
    ("tape", 26),
    ("sudo", 27),
    ("audio", 29),
    ("dip", 30),
    ("www-data", 33),
    ("backup", 34),
    ("operator", 37),
    ("list", 38),
    ("irc", 39),
    ("src", 40),
    ("shadow", 42),
    ("utmp", 43),
    ("video", 44),
    ("sasl", 45),
    ("plugdev", 46),
    ("staff", 50),
    ("games", 60),
    ("users", 100),
    ("nogroup", 65534),
];

const OS_RELEASE: &str = "PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\n\
NAME=\"Debian GNU/Linux\"\n\
VERSION_ID=\"12\"\n\
VERSION=\"12 (bookworm)\"\n\
VERSION_CODENAME=bookworm\n\
ID=debian\n\
HOME_URL=\"https://www.debian.org/\"\n\
SUPPORT_URL=\"https://www.debian.org/support\"\n\
BUG_REPORT_URL=\"https://bugs.debian.org/\"\n";

/// What a process's view needs that only its caller knows.
#[derive(Debug, Clone, Default)]
pub struct ProcessView {
    /// The process id the program sees (`os.getpid()`).
    pub pid: u32,
    /// Its command name (`/proc/self/comm`, `Name:` of `status`).
    pub name: String,
    /// Its command line (`/proc/self/cmdline`).
    pub argv: Vec<String>,
}

/// The figures `/proc` shows, from the sandbox's limits and the call's use of them.
#[derive(Debug, Clone, Default)]
pub struct SystemFigures {
    /// The memory the sandbox may use, in bytes (`MemTotal`).
    pub memory_limit: u64,
    /// The memory in use now, in bytes (the guest's linear memory; `VmRSS`).
    pub memory_used: u64,
    /// The most memory in use so far in this call, in bytes (`VmHWM`, `VmPeak`).
    pub memory_peak: u64,
    /// How long the call has run (`/proc/uptime`).
    pub uptime: Duration,
    /// The process reading its own files (`/proc/self`).
    pub process: ProcessView,
}

/// A node of the virtual tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Node {
    /// A file and its content.
    File(Vec<u8>),
    /// A directory and its entries' names (sorted).
    Dir(Vec<String>),
}

/// `/etc`'s files: (path, text).
pub fn etc_files() -> Vec<(&'static str, String)> {
    let mut passwd = String::new();
    for (name, uid, gid, gecos, home, shell) in PASSWD {
        let _ = writeln!(passwd, "{name}:x:{uid}:{gid}:{gecos}:{home}:{shell}");
    }
    let mut group = String::new();
    for (name, gid) in GROUPS {
        let _ = writeln!(group, "{name}:x:{gid}:");
    }
    vec![
        ("/etc/os-release", OS_RELEASE.to_string()),
        ("/etc/debian_version", "12.11\n".to_string()),
        ("/etc/issue", "Debian GNU/Linux 12 \\n \\l\n\n".to_string()),
        ("/etc/hostname", format!("{HOSTNAME}\n")),
        (
            "/etc/hosts",
            format!(
                "127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n\
                 fe00::0\tip6-localnet\nff00::0\tip6-mcastprefix\nff02::1\tip6-allnodes\n\
                 ff02::2\tip6-allrouters\n127.0.1.1\t{HOSTNAME}\n"
            ),
        ),
        ("/etc/passwd", passwd),
        ("/etc/group", group),
        (
            "/etc/shells",
            "# /etc/shells: valid login shells\n/bin/sh\n/usr/bin/sh\n/bin/bash\n/usr/bin/bash\n"
                .to_string(),
        ),
        ("/etc/timezone", "Etc/UTC\n".to_string()),
    ]
}

fn kib(bytes: u64) -> u64 {
    bytes / 1024
}

fn cpuinfo() -> String {
    let mut s = String::new();
    for i in 0..CPUS {
        let _ = write!(
            s,
            "processor\t: {i}\nvendor_id\t: llm-in-sandbox\ncpu family\t: 6\nmodel\t\t: 0\n\
             model name\t: llm-in-sandbox virtual CPU (WebAssembly)\nstepping\t: 0\n\
             cpu MHz\t\t: 2000.000\ncache size\t: 0 KB\nphysical id\t: 0\nsiblings\t: {CPUS}\n\
             core id\t\t: {i}\ncpu cores\t: {CPUS}\napicid\t\t: {i}\nfpu\t\t: yes\n\
             flags\t\t: fpu\nbogomips\t: 4000.00\naddress sizes\t: 32 bits physical, 32 bits \
             virtual\n\n"
        );
    }
    s
}

fn meminfo(f: &SystemFigures) -> String {
    let total = kib(f.memory_limit);
    let used = kib(f.memory_used).min(total);
    let free = total - used;
    let mut s = String::new();
    for (name, value) in [
        ("MemTotal:", total),
        ("MemFree:", free),
        ("MemAvailable:", free),
        ("Buffers:", 0),
        ("Cached:", 0),
        ("SwapCached:", 0),
        ("Active:", used),
        ("Inactive:", 0),
        ("SwapTotal:", 0),
        ("SwapFree:", 0),
        ("Dirty:", 0),
        ("AnonPages:", used),
        ("Shmem:", 0),
        ("CommitLimit:", total),
        ("Committed_AS:", used),
    ] {
        let _ = writeln!(s, "{name:<16}{value:>8} kB");
    }
    s
}

fn status(f: &SystemFigures) -> String {
    let p = &f.process;
    let (now, peak) = (kib(f.memory_used), kib(f.memory_peak.max(f.memory_used)));
    format!(
        "Name:\t{name}\nUmask:\t0022\nState:\tR (running)\nTgid:\t{pid}\nNgid:\t0\nPid:\t{pid}\n\
         PPid:\t1\nTracerPid:\t0\nUid:\t0\t0\t0\t0\nGid:\t0\t0\t0\t0\nFDSize:\t64\nGroups:\t0 \n\
         VmPeak:\t{peak:>8} kB\nVmSize:\t{now:>8} kB\nVmLck:\t       0 kB\nVmPin:\t       0 kB\n\
         VmHWM:\t{peak:>8} kB\nVmRSS:\t{now:>8} kB\nRssAnon:\t{now:>8} kB\nRssFile:\t       0 kB\n\
         RssShmem:\t       0 kB\nVmData:\t{now:>8} kB\nVmStk:\t     132 kB\nVmExe:\t       0 kB\n\
         VmLib:\t       0 kB\nVmSwap:\t       0 kB\nThreads:\t1\nSigQ:\t0/63704\n\
         Cpus_allowed:\t{mask:x}\nCpus_allowed_list:\t0-{last}\nvoluntary_ctxt_switches:\t0\n\
         nonvoluntary_ctxt_switches:\t0\n",
        name = p.name,
        pid = p.pid,
        mask = (1u64 << CPUS) - 1,
        last = CPUS - 1,
    )
}

fn proc_dynamic(path: &str, f: &SystemFigures) -> Option<String> {
    let p = &f.process;
    Some(match path {
        "/proc/cpuinfo" => cpuinfo(),
        "/proc/meminfo" => meminfo(f),
        "/proc/version" => {
            format!("{KERNEL_NAME} version {KERNEL_RELEASE} (llm-in-sandbox) {KERNEL_VERSION}\n")
        }
        "/proc/loadavg" => format!("0.00 0.00 0.00 1/1 {}\n", p.pid),
        "/proc/uptime" => {
            let up = f.uptime.as_secs_f64();
            format!("{up:.2} {:.2}\n", up * f64::from(CPUS))
        }
        "/proc/mounts" | "/proc/self/mounts" => {
            "overlay / overlay rw,relatime 0 0\nproc /proc proc ro,nosuid,nodev,noexec 0 0\n"
                .to_string()
        }
        "/proc/sys/kernel/hostname" => format!("{HOSTNAME}\n"),
        "/proc/sys/kernel/ostype" => format!("{KERNEL_NAME}\n"),
        "/proc/sys/kernel/osrelease" => format!("{KERNEL_RELEASE}\n"),
        "/proc/sys/kernel/version" => format!("{KERNEL_VERSION}\n"),
        "/proc/self/status" => status(f),
        "/proc/self/comm" => format!("{}\n", p.name),
        "/proc/self/cmdline" => {
            let mut line = String::new();
            for arg in &p.argv {
                line.push_str(arg);
                line.push('\0');
            }
            line
        }
        "/proc/self/cgroup" => "0::/\n".to_string(),
        "/proc/self/statm" => {
            let pages = f.memory_used / 4096;
            format!("{pages} {pages} 0 0 0 {pages} 0\n")
        }
        _ => return None,
    })
}

/// Every file under `/proc` (paths), in the order `Dir` listings use.
const PROC_FILES: &[&str] = &[
    "/proc/cpuinfo",
    "/proc/loadavg",
    "/proc/meminfo",
    "/proc/mounts",
    "/proc/uptime",
    "/proc/version",
    "/proc/self/cgroup",
    "/proc/self/cmdline",
    "/proc/self/comm",
    "/proc/self/mounts",
    "/proc/self/statm",
    "/proc/self/status",
    "/proc/sys/kernel/hostname",
    "/proc/sys/kernel/osrelease",
    "/proc/sys/kernel/ostype",
    "/proc/sys/kernel/version",
];

/// Directories with nothing in them here (bashkit's shell shows them too).
const EMPTY_DIRS: &[&str] = &["/etc/ssl/certs"];

/// The node at `path` (absolute, normalized; `/proc/self` as such), or `None`.
pub fn lookup(path: &str, figures: &SystemFigures) -> Option<Node> {
    let path = path.trim_end_matches('/');
    let path = if path.is_empty() { "/" } else { path };
    if let Some(text) = proc_dynamic(path, figures) {
        return Some(Node::File(text.into_bytes()));
    }
    let etc = etc_files();
    if let Some((_, text)) = etc.iter().find(|(p, _)| *p == path) {
        return Some(Node::File(text.clone().into_bytes()));
    }
    if EMPTY_DIRS.contains(&path) {
        return Some(Node::Dir(Vec::new()));
    }
    let paths = etc
        .iter()
        .map(|(p, _)| *p)
        .chain(PROC_FILES.iter().copied())
        .chain(EMPTY_DIRS.iter().copied());
    let prefix = format!("{path}/");
    let mut names: Vec<String> = paths
        .filter_map(|p| p.strip_prefix(prefix.as_str()))
        .map(|rest| rest.split('/').next().unwrap_or(rest).to_string())
        .collect();
    if names.is_empty() {
        return None;
    }
    names.sort();
    names.dedup();
    Some(Node::Dir(names))
}

/// The texts the shell mounts over bashkit's own system files (read-only): `/etc`, and the
/// `/proc` files whose figures follow the sandbox (`memory_limit`, in bytes). Its own process
/// (`/proc/self`) is `bash`, pid 1.
pub fn shell_files(memory_limit: u64) -> Vec<(String, String)> {
    let figures = SystemFigures {
        memory_limit,
        process: ProcessView {
            pid: 1,
            name: "bash".into(),
            argv: vec!["bash".into()],
        },
        ..SystemFigures::default()
    };
    let mut files: Vec<(String, String)> = etc_files()
        .into_iter()
        .map(|(p, t)| (p.to_string(), t))
        .collect();
    for path in [
        "/proc/cpuinfo",
        "/proc/meminfo",
        "/proc/version",
        "/proc/self/status",
    ] {
        if let Some(text) = proc_dynamic(path, &figures) {
            files.push((path.to_string(), text));
        }
    }
    files
}

#[cfg(test)]
mod tests {
    use super::*;

    fn figures() -> SystemFigures {
        SystemFigures {
            memory_limit: 2 << 30,
            memory_used: 100 << 20,
            memory_peak: 120 << 20,
            uptime: Duration::from_secs(3),
            process: ProcessView {
                pid: 42,
                name: "python3".into(),
                argv: vec!["python3".into(), "x.py".into()],
            },
        }
    }

    #[test]
    fn meminfo_follows_the_limit_and_use() {
        let Some(Node::File(text)) = lookup("/proc/meminfo", &figures()) else {
            panic!("no meminfo");
        };
        let text = String::from_utf8_lossy(&text);
        assert!(text.starts_with("MemTotal:        2097152 kB\n"), "{text}");
        assert!(text.contains("MemAvailable:    1994752 kB\n"), "{text}");
    }

    #[test]
    fn directories_list_their_entries() {
        let f = figures();
        let Some(Node::Dir(etc)) = lookup("/etc", &f) else {
            panic!("no /etc");
        };
        assert!(etc.contains(&"os-release".to_string()) && etc.contains(&"passwd".into()));
        let Some(Node::Dir(proc)) = lookup("/proc/", &f) else {
            panic!("no /proc");
        };
        assert!(proc.contains(&"self".to_string()) && proc.contains(&"sys".to_string()));
        assert_eq!(lookup("/proc/nothing", &f), None);
        assert_eq!(lookup("/etc/passwd/x", &f), None);
        let Some(Node::File(cmd)) = lookup("/proc/self/cmdline", &f) else {
            panic!("no cmdline");
        };
        assert_eq!(cmd, b"python3\0x.py\0");
    }

    #[test]
    fn passwd_starts_with_root() {
        let etc = etc_files();
        let passwd = etc
            .iter()
            .find(|(p, _)| *p == "/etc/passwd")
            .map(|(_, t)| t);
        assert!(passwd.is_some_and(|t| t.starts_with("root:x:0:0:root:/root:/bin/bash\n")));
    }
}
