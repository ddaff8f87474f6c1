//! The tests' cache folder: the compiled runtime is shared with the user's cache, every other
//! piece of state is the test process's own, so what the user did with the tool (e.g.
//! `setup --with math-verify`, which records a `--with` list) cannot change a test's result.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The entries of the user's cache the tests share: the verified runtime, its download, the
/// compiled modules, the preloaded snapshots, the reference package and the C toolchain. All
/// are keyed by hashes and written atomically under locks, so sharing them is safe; a test only
/// adds an entry that is missing (e.g. on a cold cache), never changes one.
const SHARED: [&str; 6] = [
    "runtime",
    "downloads",
    "compiled",
    "preloaded",
    "reference",
    "toolchain",
];

/// The cache folder every test uses (`LLM_IN_SANDBOX_CACHE` for the binaries they start):
/// `target/tmp/test-cache/<pid>/`, holding links to the [`SHARED`] entries of the user's cache
/// (`LLM_IN_SANDBOX_CACHE`, else `~/.cache/llm-in-sandbox`) and, of its own, `packages/` (wheel
/// caches, locks, the `--with` list) and `site/` (package layers). Made fresh per test process;
/// folders of processes that have ended are removed.
pub fn cache_root() -> PathBuf {
    static ROOT: OnceLock<PathBuf> = OnceLock::new();
    ROOT.get_or_init(|| {
        let shared = llm_in_sandbox::artifacts::cache_root(None);
        let base = Path::new(env!("CARGO_TARGET_TMPDIR")).join("test-cache");
        remove_ended(&base);
        let own = base.join(std::process::id().to_string());
        remove_tree(&own);
        std::fs::create_dir_all(&own).unwrap_or_else(|e| panic!("{}: {e}", own.display()));
        for entry in SHARED {
            let target = shared.join(entry);
            std::fs::create_dir_all(&target)
                .unwrap_or_else(|e| panic!("{}: {e}", target.display()));
            std::os::unix::fs::symlink(&target, own.join(entry))
                .unwrap_or_else(|e| panic!("link {} in {}: {e}", target.display(), own.display()));
        }
        own
    })
    .clone()
}

/// Remove the cache folders of test processes that are no longer running.
fn remove_ended(base: &Path) {
    let Ok(entries) = std::fs::read_dir(base) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name();
        let Some(pid) = name.to_str().and_then(|n| n.parse::<u32>().ok()) else {
            continue;
        };
        if !Path::new("/proc").join(pid.to_string()).exists() {
            remove_tree(&e.path());
        }
    }
}

/// Remove a folder whose files may be read-only (package layers are sealed), without following
/// the links to the shared cache. Only folders are made writable (that is all removing needs):
/// a layer's `python315.zip` is a hard link to the shared runtime's, and making it writable
/// here would make the user's copy writable too.
fn remove_tree(dir: &Path) {
    fn writable_dirs(p: &Path) {
        let Ok(m) = std::fs::symlink_metadata(p) else {
            return;
        };
        if !m.is_dir() {
            return;
        }
        let mut perms = m.permissions();
        #[allow(clippy::permissions_set_readonly_false)]
        perms.set_readonly(false);
        let _ = std::fs::set_permissions(p, perms);
        for e in std::fs::read_dir(p).into_iter().flatten().flatten() {
            writable_dirs(&e.path());
        }
    }
    writable_dirs(dir);
    let _ = std::fs::remove_dir_all(dir);
}
