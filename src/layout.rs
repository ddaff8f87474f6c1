//! The guest's layout: where things are in the guest's file system, what its environment
//! holds, and in which order directories are preopened (fd order). Calls and the snapshot
//! builder both read it here: the snapshot freezes the fd table and paths it was made with,
//! so every later call must see exactly the same layout.
//!
//! Below `runtime` and `packages` (both read it; it imports nothing of ours). Also reachable
//! as `runtime::layout`.

/// `argv[0]` of the interpreter.
pub const ARGV0: &str = "/usr/local/bin/python.wasm";
/// The read-only folder holding the stdlib zip (`python315.zip`); preopened first (fd 3).
pub const GUEST_LIB: &str = "/usr/local/lib";
/// matplotlib's data, read-only; preopened second (fd 4).
pub const GUEST_MPL_DATA: &str = "/usr/local/lib/python315.zip/matplotlib/mpl-data";
/// The workspace (the reference system's working directory), read-write; preopened third (fd 5).
pub const GUEST_WORKSPACE: &str = "/testbed";
/// The sandbox's private scratch directory, read-write; preopened fourth (fd 6).
pub const GUEST_TMP: &str = "/tmp";
/// The user's home (root's, as in the reference's container), read-write; preopened fifth
/// (fd 7). Its own directory, counted in the sandbox's quota like `/testbed` and `/tmp`.
pub const GUEST_HOME: &str = "/root";

/// The read-only site layer of extra packages (`setup --with`): inside the library folder, so
/// it needs no preopen of its own. On `sys.path` after the stdlib, so it never shadows a
/// built-in package.
pub const GUEST_SITE_LAYER: &str = "/usr/local/lib/site-packages";
/// A sandbox's own site directory, filled by `pip install` in an episode (under its `/tmp`,
/// charged to its quota); on `sys.path` last.
pub const GUEST_USER_SITE: &str = "/tmp/.local/lib/python3.15/site-packages";
/// [`GUEST_USER_SITE`] relative to `/tmp`.
pub const USER_SITE_IN_TMP: &str = ".local/lib/python3.15/site-packages";

/// The environment every command starts with (nothing of the host's). The snapshot is made
/// with it too, so a call with this environment changes none of it (each change is a WASI
/// libc call in the guest). Part of the snapshot's recipe (its cache key hashes it).
pub const DEFAULT_ENV: [(&str, &str); 6] = [
    ("HOME", GUEST_HOME),
    ("TMPDIR", "/tmp"),
    ("PATH", "/usr/local/bin:/usr/bin:/bin"),
    ("LANG", "C.UTF-8"),
    ("MPLBACKEND", "Agg"),
    ("PYTHONTZPATH", ""),
];

/// The default environment as owned pairs.
pub fn default_env() -> Vec<(String, String)> {
    DEFAULT_ENV
        .iter()
        .map(|(k, v)| ((*k).to_string(), (*v).to_string()))
        .collect()
}
