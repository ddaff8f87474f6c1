//! Ways out of the sandbox that must fail, each with the specific failure.

use crate::common::{code, ok, py, sandbox, show};

/// Run `src` and return what it printed; `src` reports each attempt itself.
async fn attempts(src: &str) -> String {
    let sb = sandbox();
    ok(&py(&sb, &["-c", src]).await)
}

const TRY: &str = "def attempt(label, f):\n    try:\n        f()\n        print(label, 'ALLOWED')\n    except OSError as e:\n        print(label, type(e).__name__)\n";

#[tokio::test]
async fn host_files_cannot_be_read() {
    let out = attempts(&format!(
        "{TRY}attempt('passwd', lambda: open('/etc/passwd').read())\n\
         attempt('hostname', lambda: open('/etc/hostname').read())\n\
         attempt('proc', lambda: open('/proc/self/environ').read())\n\
         attempt('dotdot', lambda: open('../etc/passwd').read())\n\
         attempt('deep', lambda: open('/testbed/../../../../etc/passwd').read())\n"
    ))
    .await;
    // /etc is the sandbox's own virtual folder (docs/linux-compatibility.md), and `..` out of
    // /testbed reaches it, not the host's: what is read is the sandbox's hostname. Nothing
    // else outside the sandbox's folders exists.
    assert_eq!(
        out,
        "passwd ALLOWED\nhostname ALLOWED\nproc FileNotFoundError\n\
         dotdot ALLOWED\ndeep ALLOWED\n"
    );
    let read = attempts(
        "print(open('/etc/hostname').read(), end='')\n\
         print(open('../etc/hostname').read(), end='')\n\
         print(open('/testbed/../../../../etc/hostname').read(), end='')\n",
    )
    .await;
    assert_eq!(read, "sandbox\nsandbox\nsandbox\n");
}

#[tokio::test]
async fn the_workspace_host_path_means_nothing_inside() {
    let sb = sandbox();
    sb.workspace().write("secret.txt", "s3cret").unwrap();
    let host = sb.workspace().host_path().join("secret.txt");
    let src = format!(
        "{TRY}attempt('abs', lambda: open({:?}).read())\n",
        host.display().to_string()
    );
    let r = py(&sb, &["-c", &src]).await;
    let out = ok(&r);
    assert_eq!(out, "abs FileNotFoundError\n");
    // ...while the same file is there under its guest path.
    assert_eq!(
        ok(&py(&sb, &["-c", "print(open('/testbed/secret.txt').read())"]).await),
        "s3cret\n"
    );
}

#[tokio::test]
async fn symlinks_pointing_out_are_not_followed() {
    let sb = sandbox();
    let ws = sb.workspace().host_path().to_path_buf();
    std::os::unix::fs::symlink("/etc/passwd", ws.join("host_abs")).unwrap();
    std::os::unix::fs::symlink("../../../../../../etc/passwd", ws.join("host_rel")).unwrap();
    let src = format!(
        "{TRY}import os\n\
         attempt('host_abs', lambda: open('host_abs').read())\n\
         attempt('host_rel', lambda: open('host_rel').read())\n\
         attempt('guest_abs', lambda: (os.symlink('/etc/passwd', 'guest_abs'), open('guest_abs').read()))\n\
         attempt('guest_up', lambda: (os.symlink('../../..', 'up'), os.listdir('up/etc')))\n"
    );
    let out = ok(&py(&sb, &["-c", &src]).await);
    assert!(!out.contains("ALLOWED"), "{out}");
    assert_eq!(
        out,
        "host_abs PermissionError\nhost_rel PermissionError\nguest_abs PermissionError\nguest_up PermissionError\n"
    );
}

/// Python's `os.symlink` gets the shell's rule: a target that leaves the folder the link is
/// made in (resolved from the link's folder, as the OS would) is refused at creation with
/// EPERM, and no host link is left behind; links that stay inside still work.
#[tokio::test]
async fn python_symlinks_leaving_the_workspace_are_refused_at_creation() {
    let sb = sandbox();
    let ws = sb.workspace().host_path().to_path_buf();
    sb.workspace().write("data.txt", "inside").unwrap();
    let src = format!(
        "{TRY}import os\n\
         os.makedirs('a/b', exist_ok=True)\n\
         attempt('dotdot', lambda: os.symlink('../../../../etc/passwd', 'l1'))\n\
         attempt('abs', lambda: os.symlink('/etc/passwd', 'l2'))\n\
         attempt('guest_abs', lambda: os.symlink('/testbed/data.txt', 'l3'))\n\
         attempt('nested', lambda: os.symlink('a/b/../../..', 'l4'))\n\
         attempt('from_sub', lambda: os.symlink('../../../x', 'a/b/l5'))\n\
         attempt('tmp_up', lambda: os.symlink('../testbed', '/tmp/l6'))\n\
         os.symlink('a/b/../../data.txt', 'good')\n\
         os.symlink('../../data.txt', 'a/b/good')\n\
         os.symlink('b', 'a/lb')\n\
         attempt('via_link', lambda: os.symlink('../../x', 'a/lb/l7'))\n\
         print(open('good').read(), open('a/b/good').read(), os.readlink('good'))\n"
    );
    let out = ok(&py(&sb, &["-c", &src]).await);
    assert_eq!(
        out,
        "dotdot PermissionError\nabs PermissionError\nguest_abs PermissionError\n\
         nested PermissionError\nfrom_sub PermissionError\ntmp_up PermissionError\n\
         via_link PermissionError\ninside inside a/b/../../data.txt\n"
    );
    for gone in ["l1", "l2", "l3", "l4", "a/b/l5", "a/b/l7"] {
        assert!(
            std::fs::symlink_metadata(ws.join(gone)).is_err(),
            "{gone} was left on the host"
        );
    }
    assert!(
        std::fs::symlink_metadata(ws.join("good"))
            .unwrap()
            .is_symlink()
    );
}

#[tokio::test]
async fn the_stdlib_and_its_folder_are_read_only() {
    let rt = crate::common::runtime();
    let zip = rt.files().lib_dir().join("python315.zip");
    let before = std::fs::metadata(&zip).unwrap();
    let out = attempts(&format!(
        "{TRY}import os\n\
         Z = '/usr/local/lib/python315.zip'\n\
         attempt('truncate', lambda: open(Z, 'wb'))\n\
         attempt('append', lambda: open(Z, 'ab').write(b'x'))\n\
         attempt('rplus', lambda: open(Z, 'r+b').write(b'x'))\n\
         attempt('create', lambda: open('/usr/local/lib/new.py', 'w'))\n\
         attempt('remove', lambda: os.remove(Z))\n\
         attempt('rename_out', lambda: os.rename(Z, '/testbed/z.zip'))\n\
         attempt('rename_in', lambda: (open('/testbed/e.py', 'w').close(), os.rename('/testbed/e.py', '/usr/local/lib/e.py')))\n\
         attempt('mkdir', lambda: os.mkdir('/usr/local/lib/d'))\n\
         attempt('otrunc', lambda: os.open(Z, os.O_RDONLY | os.O_TRUNC))\n\
         attempt('link_out', lambda: os.link(Z, '/testbed/z_link'))\n\
         attempt('mpl', lambda: open('/usr/local/lib/python315.zip/matplotlib/mpl-data/matplotlibrc', 'a'))\n"
    ))
    .await;
    assert!(!out.contains("ALLOWED"), "{out}");
    assert_eq!(out.lines().count(), 11, "{out}");
    let after = std::fs::metadata(&zip).unwrap();
    assert_eq!(before.len(), after.len());
    assert_eq!(before.modified().unwrap(), after.modified().unwrap());
}

#[tokio::test]
async fn listing_root_shows_no_host_entries() {
    let r = code("import os\ntry:\n    print(sorted(os.listdir('/')))\nexcept OSError as e:\n    print(type(e).__name__)").await;
    // There is no root directory at all: only the preopens exist.
    assert_eq!(ok(&r), "FileNotFoundError\n");
}

#[tokio::test]
async fn two_sandboxes_do_not_see_each_others_files() {
    let (a, b) = (sandbox(), sandbox());
    ok(&py(
        &a,
        &[
            "-c",
            "open('mine.txt', 'w').write('a'); open('/tmp/t.txt', 'w').write('a')",
        ],
    )
    .await);
    let r = py(&b, &["-c", "import os; print(os.path.exists('mine.txt'), os.path.exists('/tmp/t.txt'), os.listdir('.'))"]).await;
    assert_eq!(ok(&r), "False False []\n", "{}", show(&r));
    assert!(a.workspace().exists("mine.txt"));
    assert!(!b.workspace().exists("mine.txt"));
}

#[tokio::test]
async fn no_sockets_and_no_processes() {
    let any = TRY.replace("except OSError", "except Exception");
    let out = attempts(&format!(
        "{any}import socket, subprocess, os\n\
         attempt('socket', lambda: socket.create_connection(('127.0.0.1', 80), timeout=1))\n\
         attempt('popen', lambda: subprocess.run(['ls']))\n\
         attempt('system', lambda: (_ for _ in ()).throw(OSError()) if os.system('ls') != 0 else None)\n"
    ))
    .await;
    assert!(!out.contains("ALLOWED"), "{out}");
}

#[tokio::test]
async fn stdout_reopened_as_a_file_is_still_held_to_the_quota() {
    // Closing fd 1 and opening a file makes WASI hand out fd 1 again: writes to it must be
    // charged like any file's.
    let sb = crate::common::sandbox_in(|b| b.disk_quota(1 << 20));
    let r = crate::common::py(
        &sb,
        &[
            "-c",
            "import os\nos.close(1)\nfd = os.open('sneaky.bin', os.O_CREAT | os.O_WRONLY)\nassert fd == 1, fd\nfor _ in range(8): os.write(fd, b'0' * (512 << 10))",
        ],
    )
    .await;
    assert_ne!(r.exit_code, 0, "{}", crate::common::show(&r));
    assert!(
        r.stderr_text().contains("No space left on device"),
        "{}",
        crate::common::show(&r)
    );
    let on_disk = sb.workspace().read("sneaky.bin").map_or(0, |b| b.len());
    assert!(on_disk <= 1 << 20, "{on_disk} bytes written through fd 1");
}

#[tokio::test]
async fn deep_or_many_folders_do_not_escape_the_quota() {
    let sb = crate::common::sandbox_in(|b| b.disk_quota(1 << 20).max_files(50));
    // Folders count as entries: making many fails at the cap.
    let r = crate::common::py(
        &sb,
        &["-c", "import os\nfor i in range(100): os.mkdir(f'd{i}')"],
    )
    .await;
    assert_ne!(r.exit_code, 0, "{}", crate::common::show(&r));
    assert!(sb.workspace().dir().entries().unwrap().count() <= 50);
    // Bytes deep in a long chain of folders are still measured after the call.
    let sb = crate::common::sandbox_in(|b| b.disk_quota(1 << 20));
    let r = crate::common::py(
        &sb,
        &["-c", "import os\nfor i in range(300):\n    os.mkdir('d'); os.chdir('d')\nopen('f', 'wb').write(b'0' * (900 << 10))"],
    )
    .await;
    assert_eq!(r.exit_code, 0, "{}", crate::common::show(&r));
    let r = crate::common::py(&sb, &["-c", "open('more', 'wb').write(b'0' * (300 << 10))"]).await;
    assert_ne!(
        r.exit_code,
        0,
        "the deep file still counts: {}",
        crate::common::show(&r)
    );
}
