//! Pure-Python packages beyond the built-in set: resolved and fetched by the host's pip for a
//! pure-Python target (so native wheels are never picked), cached by hashes, and unpacked by
//! our own code into a site directory the guest imports from.
//!
//! Two places receive packages:
//! - the **site layer** ([`ensure_layer`]), made once at setup (`setup --with`,
//!   `$LLM_IN_SANDBOX_WITH`), read-only and seen by every sandbox at
//!   [`layout::GUEST_SITE_LAYER`];
//! - a sandbox's own **user site** ([`layout::GUEST_USER_SITE`], under its `/tmp`, charged to
//!   its quota), filled by `pip install` in an episode ([`install_into`]).
//!
//! The guest's request is data: only strings that parse as a requirement (a name, extras and
//! version specifiers, see [`Requirement::parse`]) reach pip, rebuilt from their parts; never a
//! flag, URL, path or index. The index is the host's pip configuration, or
//! `$LLM_IN_SANDBOX_PIP_INDEX_URL` (set by the user, never by the guest).
//!
//! Cache layout under `<cache>/packages/`: `wheels/` (every wheel fetched, by file name),
//! `locks/<key>.lock` (name, version, SHA-256 and file of each wheel a requirement set resolved
//! to; the key hashes the requirements and the index), `.lock` (serializes pip runs). A
//! requirement set resolved once is answered from its lock file without running pip again, so
//! a thousand sandboxes installing the same package download it once. Layers live in
//! `<cache>/site/<key>/` (the key hashes the runtime and the lock).

use std::fs::{self, File};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};

mod builtin;
pub use builtin::builtin_versions;

use crate::artifacts::{RuntimeFiles, sha256_file};
use crate::runtime::layout;

/// Errors while resolving, fetching or unpacking packages.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PackageError {
    /// The text is not a requirement we pass to pip (a flag, URL, path, marker, ...).
    #[error("refused {given:?}: {why}")]
    Refused {
        /// What was given.
        given: String,
        /// Why, and what is accepted.
        why: String,
    },
    /// No pure-Python wheel exists for this name (it needs native code), or the index does
    /// not have it.
    #[error(
        "cannot install {name}: no pure-Python wheel (py3-none-any) of it for Python 3.15 is on \
         the package index. A package that needs native code (C extensions) cannot run in this \
         sandbox's WebAssembly Python. Use a built-in package (`pip list`), a pure-Python \
         alternative, or check the name"
    )]
    NotPure {
        /// The package pip could not find a pure-Python wheel for.
        name: String,
    },
    /// pip failed for another reason.
    #[error("pip could not resolve {requirements}: {detail}")]
    Resolve {
        /// The requirements.
        requirements: String,
        /// pip's error output.
        detail: String,
    },
    /// pip did not finish in time.
    #[error("pip did not finish within {0:?}; try fewer or smaller packages")]
    Timeout(Duration),
    /// The wheels are larger than allowed.
    #[error("the packages take {size} bytes, over the {limit}-byte cap for one install")]
    TooLarge {
        /// Their size.
        size: u64,
        /// The cap.
        limit: u64,
    },
    /// A wheel is not a pure-Python one, or cannot be read.
    #[error("bad wheel {file}: {detail}")]
    Wheel {
        /// The wheel's file name.
        file: String,
        /// What is wrong.
        detail: String,
    },
    /// The sandbox's disk quota does not hold the packages.
    #[error(transparent)]
    Quota(#[from] crate::runtime::QuotaError),
    /// A filesystem operation failed.
    #[error("{action} {path}: {source}")]
    Io {
        /// What was being done.
        action: &'static str,
        /// The path involved.
        path: PathBuf,
        /// The OS error.
        source: io::Error,
    },
}

fn io_err<'a>(action: &'static str, path: &'a Path) -> impl FnOnce(io::Error) -> PackageError + 'a {
    move |source| PackageError::Io {
        action,
        path: path.to_path_buf(),
        source,
    }
}

const OPERATORS: [&str; 8] = ["===", "==", "!=", "<=", ">=", "~=", "<", ">"];

/// A validated requirement: a distribution name, optional extras and version specifiers.
/// Only its [`Display`](std::fmt::Display) form, rebuilt from these parts, reaches pip.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Requirement {
    name: String,
    extras: Vec<String>,
    specs: Vec<(String, String)>,
}

fn is_name(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && b.len() <= 200
        && b[0].is_ascii_alphanumeric()
        && b[b.len() - 1].is_ascii_alphanumeric()
        && b.iter()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'.' | b'_' | b'-'))
}

fn is_version(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 100
        && s.as_bytes()[0].is_ascii_alphanumeric()
        && s.bytes().all(|c| {
            c.is_ascii_alphanumeric() || matches!(c, b'.' | b'*' | b'+' | b'!' | b'_' | b'-')
        })
}

/// A distribution name in its normalized form (PEP 503): lower case, runs of `-_.` as `-`.
pub fn normalize(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.trim().chars() {
        if matches!(c, '-' | '_' | '.') {
            if !out.ends_with('-') {
                out.push('-');
            }
        } else {
            out.push(c.to_ascii_lowercase());
        }
    }
    out
}

impl Requirement {
    /// Parse `NAME[EXTRA,...] SPEC,...` (e.g. `pint`, `math-verify==0.9.0`,
    /// `requests[socks]>=2,<3`).
    ///
    /// # Errors
    /// [`PackageError::Refused`] for anything else: options (`-r`, `-e`, `--index-url`, ...),
    /// URLs, paths, archives, environment markers.
    pub fn parse(text: &str) -> Result<Requirement, PackageError> {
        let refuse = |why: &str| PackageError::Refused {
            given: text.to_string(),
            why: why.to_string(),
        };
        let t = text.trim();
        if t.is_empty() {
            return Err(refuse("an empty requirement"));
        }
        if t.starts_with('-') {
            return Err(refuse(
                "options are not passed to pip here (no -r, -e, --index-url, --extra-index-url, \
                 --find-links, ...); give package names with optional versions, e.g. pint==0.24",
            ));
        }
        if t.contains("://") || t.contains('@') {
            return Err(refuse(
                "URLs and direct references are not installed; give a package name with an \
                 optional version, e.g. pint==0.24 (the host's package index is used)",
            ));
        }
        if t.contains(['/', '\\']) || t.starts_with('.') || t.ends_with(".whl") {
            return Err(refuse(
                "paths and local files are not installed; give a package name with an optional \
                 version, e.g. pint==0.24",
            ));
        }
        if t.contains(';') {
            return Err(refuse("environment markers (`;`) are not supported"));
        }
        let end = t
            .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-')))
            .unwrap_or(t.len());
        let (name, mut rest) = t.split_at(end);
        if !is_name(name) {
            return Err(refuse("not a package name"));
        }
        rest = rest.trim_start();
        let mut extras = Vec::new();
        if let Some(r) = rest.strip_prefix('[') {
            let Some((inside, after)) = r.split_once(']') else {
                return Err(refuse("unclosed `[` in the extras"));
            };
            for e in inside.split(',').map(str::trim).filter(|e| !e.is_empty()) {
                if !is_name(e) {
                    return Err(refuse("an extra is not a name"));
                }
                extras.push(e.to_string());
            }
            rest = after.trim_start();
        }
        let mut specs = Vec::new();
        if !rest.is_empty() {
            for part in rest.split(',').map(str::trim) {
                let Some(op) = OPERATORS.iter().find(|op| part.starts_with(**op)) else {
                    return Err(refuse(
                        "a version must follow one of ==, !=, <=, >=, <, >, ~=, === (e.g. pint>=0.20)",
                    ));
                };
                let version = part[op.len()..].trim();
                if !is_version(version) {
                    return Err(refuse("not a version"));
                }
                specs.push(((*op).to_string(), version.to_string()));
            }
        }
        Ok(Requirement {
            name: name.to_string(),
            extras,
            specs,
        })
    }

    /// The distribution name as given.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The normalized distribution name.
    pub fn normalized(&self) -> String {
        normalize(&self.name)
    }
}

impl std::fmt::Display for Requirement {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.name)?;
        if !self.extras.is_empty() {
            write!(f, "[{}]", self.extras.join(","))?;
        }
        let specs: Vec<String> = self.specs.iter().map(|(o, v)| format!("{o}{v}")).collect();
        f.write_str(&specs.join(","))
    }
}

/// Parse a comma list `NAME[==VER],...` (as `--with` and `$LLM_IN_SANDBOX_WITH` take it). A
/// piece that starts with a version operator continues the previous requirement
/// (`pint>=0.20,<1,sympy`). `none` or empty: no packages.
///
/// # Errors
/// [`PackageError::Refused`] for a piece that is not a requirement.
pub fn parse_list(spec: &str) -> Result<Vec<Requirement>, PackageError> {
    let mut pieces: Vec<String> = Vec::new();
    for p in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        match pieces.last_mut() {
            Some(last) if p.starts_with(['<', '>', '=', '!', '~']) => {
                last.push(',');
                last.push_str(p);
            }
            _ => pieces.push(p.to_string()),
        }
    }
    if pieces.len() == 1 && pieces[0].eq_ignore_ascii_case("none") {
        return Ok(Vec::new());
    }
    pieces.iter().map(|p| Requirement::parse(p)).collect()
}

/// Read a task folder's `requirements.txt`: one requirement per line, `#` comments and blank
/// lines skipped. Options (`-r`, `-e`, `--index-url`, ...), URLs and paths are refused.
///
/// # Errors
/// [`PackageError::Io`] when the file cannot be read, [`PackageError::Refused`] naming the
/// first line that is not a plain requirement.
pub fn read_requirements(path: &Path) -> Result<Vec<Requirement>, PackageError> {
    let text = fs::read_to_string(path).map_err(io_err("read", path))?;
    text.lines()
        .map(|l| l.split_once(" #").map_or(l, |(a, _)| a).trim())
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(Requirement::parse)
        .collect()
}

/// How the host's pip is run.
#[derive(Debug, Clone)]
pub struct PipSettings {
    /// The host Python that runs pip (`$LLM_IN_SANDBOX_PYTHON`, default `python3`).
    pub python: String,
    /// An index URL passed as `--index-url` (`$LLM_IN_SANDBOX_PIP_INDEX_URL`); `None`: pip's
    /// own configuration applies. Set by the user, never by the guest.
    pub index_url: Option<String>,
    /// How long one resolution may take.
    pub timeout: Duration,
    /// The most bytes of wheels one resolution may fetch.
    pub max_bytes: u64,
}

impl Default for PipSettings {
    fn default() -> Self {
        PipSettings {
            python: "python3".into(),
            index_url: None,
            timeout: Duration::from_secs(300),
            max_bytes: 512 << 20,
        }
    }
}

impl PipSettings {
    /// The defaults, with `$LLM_IN_SANDBOX_PYTHON` and `$LLM_IN_SANDBOX_PIP_INDEX_URL`.
    pub fn from_env() -> Self {
        let var = |k: &str| std::env::var(k).ok().filter(|v| !v.trim().is_empty());
        PipSettings {
            python: var("LLM_IN_SANDBOX_PYTHON").unwrap_or_else(|| "python3".into()),
            index_url: var("LLM_IN_SANDBOX_PIP_INDEX_URL"),
            ..PipSettings::default()
        }
    }
}

/// One resolved wheel.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Locked {
    /// The distribution name (from the wheel's file name).
    pub name: String,
    /// Its version.
    pub version: String,
    /// The wheel's SHA-256 (hex).
    pub sha256: String,
    /// The wheel's file name in the cache.
    pub file: String,
}

/// What a requirement set resolved to.
#[derive(Debug, Clone)]
pub struct Lock {
    /// The lock's key (hash of requirements and index).
    pub key: String,
    /// The wheels, sorted by name.
    pub packages: Vec<Locked>,
    /// Whether pip ran (false: answered from the cache).
    pub fetched: bool,
}

impl Lock {
    fn text(&self) -> String {
        let mut t = String::from("# name version sha256 wheel\n");
        for p in &self.packages {
            t.push_str(&format!(
                "{} {} {} {}\n",
                p.name, p.version, p.sha256, p.file
            ));
        }
        t
    }

    fn parse(key: &str, text: &str) -> Option<Lock> {
        let mut packages = Vec::new();
        for l in text
            .lines()
            .filter(|l| !l.starts_with('#') && !l.is_empty())
        {
            let w: Vec<&str> = l.split_whitespace().collect();
            let [name, version, sha256, file] = w.as_slice() else {
                return None;
            };
            packages.push(Locked {
                name: (*name).into(),
                version: (*version).into(),
                sha256: (*sha256).into(),
                file: (*file).into(),
            });
        }
        Some(Lock {
            key: key.to_string(),
            packages,
            fetched: false,
        })
    }
}

/// The flags that make pip pick only wheels that run in our WASM CPython 3.15.
const PURE_TARGET: [&str; 9] = [
    "--only-binary=:all:",
    "--platform",
    "any",
    "--python-version",
    "3.15",
    "--implementation",
    "py",
    "--abi",
    "none",
];

fn packages_dir(cache_root: &Path) -> PathBuf {
    cache_root.join("packages")
}

/// The key of a requirement set: what pip is asked and where.
fn lock_key(reqs: &[Requirement], settings: &PipSettings, stubs: Option<&Path>) -> String {
    let mut lines: Vec<String> = reqs.iter().map(ToString::to_string).collect();
    lines.sort();
    lines.dedup();
    let mut h = Sha256::new();
    h.update(b"lis-packages v1\0");
    h.update(PURE_TARGET.join(" ").as_bytes());
    h.update(b"\0");
    h.update(settings.index_url.as_deref().unwrap_or("").as_bytes());
    if let Some(stubs) = stubs {
        // Named by a hash of the built-in set: other built-ins, another resolution.
        h.update(b"\0builtins ");
        h.update(stubs.to_string_lossy().as_bytes());
    }
    for l in &lines {
        h.update(b"\0");
        h.update(l.as_bytes());
    }
    hex::encode(&h.finalize()[..16])
}

/// `NAME-VERSION(-BUILD)?-PY-ABI-PLATFORM.whl` → (name, version, abi, platform).
fn wheel_tags(file: &str) -> Option<(String, String, String, String)> {
    let stem = file.strip_suffix(".whl")?;
    let parts: Vec<&str> = stem.split('-').collect();
    if parts.len() < 5 {
        return None;
    }
    let n = parts.len();
    Some((
        parts[0].to_string(),
        parts[1].to_string(),
        parts[n - 2].to_string(),
        parts[n - 1].to_string(),
    ))
}

/// The lock a requirement set resolves to: from the cache when it was resolved before and
/// every wheel is still there with its SHA-256, else with the host's pip (one pip at a time
/// per cache).
///
/// # Errors
/// [`PackageError::NotPure`] naming the package with no pure-Python wheel, `Timeout`,
/// `TooLarge`, `Resolve` or `Io`.
pub fn resolve(
    cache_root: &Path,
    reqs: &[Requirement],
    settings: &PipSettings,
) -> Result<Lock, PackageError> {
    resolve_with_builtins(cache_root, reqs, settings, &[])
}

/// [`resolve`], with the runtime's built-in packages (name, version; see
/// [`builtin_versions`]) offered to pip as already there: a dependency on one (flask needs
/// markupsafe, many packages need numpy) resolves to the built-in version instead of failing
/// for want of a pure-Python wheel. Their stand-in wheels (metadata only) end up in the lock;
/// [`install_into`] is given their names to skip, like any built-in.
///
/// # Errors
/// As [`resolve`].
pub fn resolve_with_builtins(
    cache_root: &Path,
    reqs: &[Requirement],
    settings: &PipSettings,
    builtins: &[(String, String)],
) -> Result<Lock, PackageError> {
    let dir = packages_dir(cache_root);
    let stubs = if builtins.is_empty() {
        None
    } else {
        Some(builtin::stub_wheels(&dir, builtins)?)
    };
    let key = lock_key(reqs, settings, stubs.as_deref());
    let lock_path = dir.join("locks").join(format!("{key}.lock"));
    let wheels = dir.join("wheels");
    if let Some(lock) = cached_lock(&key, &lock_path, &wheels) {
        return Ok(lock);
    }
    fs::create_dir_all(dir.join("locks")).map_err(io_err("create directory", &dir))?;
    fs::create_dir_all(&wheels).map_err(io_err("create directory", &wheels))?;
    let flock_path = dir.join(".lock");
    let flock = File::create(&flock_path).map_err(io_err("create lock file", &flock_path))?;
    flock.lock().map_err(io_err("lock", &flock_path))?;
    if let Some(lock) = cached_lock(&key, &lock_path, &wheels) {
        return Ok(lock);
    }
    let staging = tempfile::Builder::new()
        .prefix("download-")
        .tempdir_in(&dir)
        .map_err(io_err("create a temporary directory in", &dir))?;
    run_pip(reqs, settings, stubs.as_deref(), staging.path())?;
    let mut packages = Vec::new();
    let mut total = 0u64;
    let entries = fs::read_dir(staging.path()).map_err(io_err("read", staging.path()))?;
    for e in entries {
        let e = e.map_err(io_err("read", staging.path()))?;
        let file = e.file_name().to_string_lossy().into_owned();
        let Some((name, version, abi, platform)) = wheel_tags(&file) else {
            return Err(PackageError::Wheel {
                file,
                detail: "not a wheel (only wheels are installed)".into(),
            });
        };
        if abi != "none" || platform != "any" {
            return Err(PackageError::NotPure { name });
        }
        let path = e.path();
        total += e.metadata().map(|m| m.len()).unwrap_or(0);
        if total > settings.max_bytes {
            return Err(PackageError::TooLarge {
                size: total,
                limit: settings.max_bytes,
            });
        }
        let sha256 = sha256_file(&path).map_err(io_err("read", &path))?;
        let dest = wheels.join(&file);
        fs::rename(&path, &dest).map_err(io_err("move into", &dest))?;
        packages.push(Locked {
            name,
            version,
            sha256,
            file,
        });
    }
    packages.sort_by_key(|p| normalize(&p.name));
    let lock = Lock {
        key,
        packages,
        fetched: true,
    };
    crate::fsutil::write_atomic(&lock_path, lock.text().as_bytes())
        .map_err(io_err("write", &lock_path))?;
    Ok(lock)
}

fn cached_lock(key: &str, lock_path: &Path, wheels: &Path) -> Option<Lock> {
    let text = fs::read_to_string(lock_path).ok()?;
    let lock = Lock::parse(key, &text)?;
    lock.packages
        .iter()
        .all(|p| sha256_file(&wheels.join(&p.file)).ok().as_deref() == Some(p.sha256.as_str()))
        .then_some(lock)
}

/// Whether the host's pip child sees this environment variable: pip's own settings, proxies,
/// certificate bundles, locale and the few paths a Python needs; nothing else.
fn pip_may_see(name: &std::ffi::OsStr) -> bool {
    let Some(name) = name.to_str() else {
        return false;
    };
    const EXACT: &[&str] = &[
        "PATH",
        "HOME",
        "LANG",
        "LC_ALL",
        "LC_CTYPE",
        "TMPDIR",
        "XDG_CONFIG_HOME",
        "XDG_CACHE_HOME",
        "XDG_CONFIG_DIRS",
        "VIRTUAL_ENV",
        "PYTHONPATH",
        "PYTHONHOME",
        "SSL_CERT_FILE",
        "SSL_CERT_DIR",
        "REQUESTS_CA_BUNDLE",
        "CURL_CA_BUNDLE",
        "NETRC",
    ];
    let upper = name.to_ascii_uppercase();
    EXACT.contains(&name)
        || name.starts_with("PIP_")
        || upper == "HTTP_PROXY"
        || upper == "HTTPS_PROXY"
        || upper == "ALL_PROXY"
        || upper == "NO_PROXY"
}

/// `python3 -m pip download` for the pure-Python target into `dest`, with a deadline.
fn run_pip(
    reqs: &[Requirement],
    settings: &PipSettings,
    stubs: Option<&Path>,
    dest: &Path,
) -> Result<(), PackageError> {
    let mut cmd = Command::new(&settings.python);
    cmd.args([
        "-m",
        "pip",
        "download",
        "--disable-pip-version-check",
        "--no-input",
    ])
    .args(PURE_TARGET)
    .arg("--dest")
    .arg(dest);
    if let Some(url) = &settings.index_url {
        cmd.arg("--index-url").arg(url);
    }
    if let Some(stubs) = stubs {
        cmd.arg("--find-links").arg(stubs);
    }
    // Every requirement was validated and rebuilt from its parts: none starts with `-`.
    cmd.args(reqs.iter().map(ToString::to_string));
    let out_path = dest.join(".pip-output");
    let out = File::create(&out_path).map_err(io_err("create", &out_path))?;
    let err = out.try_clone().map_err(io_err("create", &out_path))?;
    cmd.stdin(Stdio::null())
        .stdout(Stdio::from(out))
        .stderr(Stdio::from(err));
    // pip gets only what it needs to reach the index (its own settings, proxies,
    // certificates, where its config and cache live), never the rest of the host's
    // environment: API keys, the server's token.
    cmd.env_clear()
        .envs(std::env::vars_os().filter(|(k, _)| pip_may_see(k)));
    let all: Vec<String> = reqs.iter().map(ToString::to_string).collect();
    let mut child = cmd.spawn().map_err(|e| PackageError::Resolve {
        requirements: all.join(" "),
        detail: format!("cannot start `{} -m pip`: {e}", settings.python),
    })?;
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if started.elapsed() > settings.timeout => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(PackageError::Timeout(settings.timeout));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(e) => return Err(io_err("wait for pip", Path::new(&settings.python))(e)),
        }
    };
    let mut text = String::new();
    let _ = File::open(&out_path).and_then(|mut f| f.read_to_string(&mut text));
    let _ = fs::remove_file(&out_path);
    if status.success() {
        return Ok(());
    }
    if let Some(name) = text
        .lines()
        .find_map(|l| l.split("No matching distribution found for ").nth(1))
    {
        let name = name
            .split([' ', '<', '>', '=', '!', '~', '['])
            .next()
            .unwrap_or(name);
        return Err(PackageError::NotPure {
            name: name.trim().to_string(),
        });
    }
    let detail: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("ERROR") || l.contains("Error"))
        .collect();
    Err(PackageError::Resolve {
        requirements: all.join(" "),
        detail: if detail.is_empty() {
            text.lines().last().unwrap_or("pip failed").to_string()
        } else {
            detail.join("\n")
        },
    })
}

/// The built-in distributions (normalized names), from the runtime's MANIFEST: never
/// installed again (the built-in copy is the one imported).
pub fn builtin_names(manifest: &Path) -> Vec<String> {
    let text = fs::read_to_string(manifest).unwrap_or_default();
    let mut names: Vec<String> = text
        .lines()
        .filter_map(|l| {
            let mut w = l.split_whitespace();
            (w.next() == Some("package")).then_some(())?;
            w.next().map(normalize)
        })
        .collect();
    names.extend(["scipy", "scikit-learn", "statsmodels"].map(String::from));
    names.sort();
    names.dedup();
    names
}

/// Unpack `lock`'s wheels (except `skip` names, normalized) into `dest`, a capability for a
/// site directory. `charge` is called with each file's size before it is written (the quota);
/// at most `max_bytes` are written in all. Files only: no links, no paths outside `dest`
/// (`..` and absolute names in a wheel are skipped); a wheel's `.data/purelib` and
/// `.data/platlib` go to the site root, its scripts and data files are dropped.
///
/// # Errors
/// `Wheel`, `Io`, `Quota` (from `charge`) or `TooLarge`.
pub fn install_into(
    cache_root: &Path,
    lock: &Lock,
    skip: &[String],
    dest: &cap_std::fs::Dir,
    max_bytes: u64,
    charge: &mut dyn FnMut(u64) -> Result<(), PackageError>,
) -> Result<Vec<Locked>, PackageError> {
    let wheels = packages_dir(cache_root).join("wheels");
    let mut installed = Vec::new();
    let mut written = 0u64;
    for p in &lock.packages {
        if skip.contains(&normalize(&p.name)) {
            continue;
        }
        let path = wheels.join(&p.file);
        let zip_err = |e: zip::result::ZipError| PackageError::Wheel {
            file: p.file.clone(),
            detail: e.to_string(),
        };
        let file = File::open(&path).map_err(io_err("open", &path))?;
        let mut archive = zip::ZipArchive::new(io::BufReader::new(file)).map_err(zip_err)?;
        for i in 0..archive.len() {
            let mut entry = archive.by_index(i).map_err(zip_err)?;
            let Some(rel) = entry.enclosed_name() else {
                continue;
            };
            let Some(rel) = site_path(&rel) else {
                continue;
            };
            if entry.is_dir() {
                dest.create_dir_all(&rel).map_err(io_err("create", &rel))?;
                continue;
            }
            let size = entry.size();
            written = written.saturating_add(size);
            if written > max_bytes {
                return Err(PackageError::TooLarge {
                    size: written,
                    limit: max_bytes,
                });
            }
            charge(size)?;
            if let Some(parent) = rel.parent().filter(|p| !p.as_os_str().is_empty()) {
                dest.create_dir_all(parent)
                    .map_err(io_err("create", parent))?;
            }
            let mut out = dest.create(&rel).map_err(io_err("create", &rel))?;
            // Never more than the size charged, whatever the archive claims.
            let mut limited = (&mut entry).take(size);
            io::copy(&mut limited, &mut out).map_err(io_err("write", &rel))?;
            out.flush().map_err(io_err("write", &rel))?;
        }
        installed.push(p.clone());
    }
    Ok(installed)
}

/// Where a wheel member goes under the site directory, or `None` to drop it.
fn site_path(rel: &Path) -> Option<PathBuf> {
    let mut comps = rel.components();
    let first = comps.next()?.as_os_str().to_str()?.to_string();
    if first.ends_with(".data") {
        let kind = comps.next()?.as_os_str().to_str()?;
        return matches!(kind, "purelib" | "platlib").then(|| comps.as_path().to_path_buf());
    }
    Some(rel.to_path_buf())
}

/// The read-only site layer every sandbox of a runtime mounts: a folder that takes the place
/// of the runtime's library folder in the guest (`/usr/local/lib`), holding the same stdlib
/// zip (a hard link) and `site-packages/`.
#[derive(Debug, Clone)]
pub struct SiteLayer {
    /// The folder mounted at `/usr/local/lib`.
    pub lib_dir: PathBuf,
    /// The layer's key (hash of the runtime and the lock).
    pub key: String,
    /// What it holds (built-in names skipped).
    pub packages: Vec<Locked>,
    /// The lock file in the cache.
    pub lock_file: PathBuf,
}

/// Make (once) the site layer for `reqs`; `None` when there are none. Cached by the hashes
/// of the runtime and of what the requirements resolved to.
///
/// # Errors
/// See [`resolve`] and [`install_into`].
pub fn ensure_layer(
    files: &RuntimeFiles,
    cache_root: &Path,
    reqs: &[Requirement],
    settings: &PipSettings,
    progress: &dyn Fn(&str),
) -> Result<Option<SiteLayer>, PackageError> {
    if reqs.is_empty() {
        return Ok(None);
    }
    let list: Vec<String> = reqs.iter().map(ToString::to_string).collect();
    let lock = resolve(cache_root, reqs, settings)?;
    let lock_file = packages_dir(cache_root)
        .join("locks")
        .join(format!("{}.lock", lock.key));
    let builtin = builtin_names(&files.manifest());
    let mut h = Sha256::new();
    h.update(files.snapshot_sha256().as_bytes());
    h.update(lock.text().as_bytes());
    let key = hex::encode(&h.finalize()[..16]);
    let site_root = cache_root.join("site");
    let dir = site_root.join(&key);
    let packages: Vec<Locked> = lock
        .packages
        .iter()
        .filter(|p| !builtin.contains(&normalize(&p.name)))
        .cloned()
        .collect();
    let layer = SiteLayer {
        lib_dir: dir.join("lib"),
        key: key.clone(),
        packages,
        lock_file,
    };
    if dir.join("COMPLETE").is_file() {
        return Ok(Some(layer));
    }
    fs::create_dir_all(&site_root).map_err(io_err("create directory", &site_root))?;
    let flock_path = site_root.join(format!("{key}.lock"));
    let flock = File::create(&flock_path).map_err(io_err("create lock file", &flock_path))?;
    flock.lock().map_err(io_err("lock", &flock_path))?;
    if dir.join("COMPLETE").is_file() {
        return Ok(Some(layer));
    }
    progress(&format!("making the site layer with {}", list.join(", ")));
    let staging = site_root.join(format!("{key}.partial"));
    if staging.exists() {
        make_tree_writable(&staging);
        fs::remove_dir_all(&staging).map_err(io_err("remove", &staging))?;
    }
    let lib = staging.join("lib");
    let site = lib.join("site-packages");
    fs::create_dir_all(&site).map_err(io_err("create directory", &site))?;
    let zip_src = files.lib_dir().join(crate::artifacts::STDLIB_GUEST_NAME);
    let zip_dst = lib.join(crate::artifacts::STDLIB_GUEST_NAME);
    if fs::hard_link(&zip_src, &zip_dst).is_err() {
        fs::copy(&zip_src, &zip_dst).map_err(io_err("copy", &zip_src))?;
    }
    let site_dir = cap_std::fs::Dir::open_ambient_dir(&site, cap_std::ambient_authority())
        .map_err(io_err("open", &site))?;
    install_into(
        cache_root,
        &lock,
        &builtin,
        &site_dir,
        settings.max_bytes.saturating_mul(8),
        &mut |_| Ok(()),
    )?;
    let mut manifest = format!("# requirements: {}\n", list.join(" "));
    manifest.push_str(&lock.text());
    let stamp = staging.join("COMPLETE");
    fs::write(&stamp, manifest).map_err(io_err("write", &stamp))?;
    make_tree_read_only(&staging);
    fs::rename(&staging, &dir).map_err(io_err("rename into", &dir))?;
    Ok(Some(layer))
}

fn set_read_only(p: &Path, ro: bool) {
    if let Ok(m) = fs::symlink_metadata(p)
        && !m.file_type().is_symlink()
    {
        let mut perms = m.permissions();
        perms.set_readonly(ro);
        let _ = fs::set_permissions(p, perms);
    }
}

/// Make every file under `dir` read-only (the layer after its `.pyc` files were written).
pub fn seal(dir: &Path) {
    make_tree_read_only(dir);
}

fn make_tree_read_only(dir: &Path) {
    // Files only: the layer's folders stay listable and the cache stays removable.
    crate::fsutil::walk(dir, &mut |p, is_dir| {
        if !is_dir {
            set_read_only(p, true);
        }
    });
}

fn make_tree_writable(dir: &Path) {
    crate::fsutil::walk(dir, &mut |p, _| set_read_only(p, false));
}

/// Where the requested `--with` list is kept between commands (written by `setup --with`).
pub fn with_file(cache_root: &Path) -> PathBuf {
    packages_dir(cache_root).join("with.txt")
}

/// The requested extra packages: `$LLM_IN_SANDBOX_WITH` if set, else what `setup --with`
/// recorded in the cache, else none.
pub fn requested(cache_root: &Path) -> String {
    match std::env::var("LLM_IN_SANDBOX_WITH") {
        Ok(v) => v,
        Err(_) => fs::read_to_string(with_file(cache_root))
            .map(|s| s.trim().to_string())
            .unwrap_or_default(),
    }
}

#[doc(hidden)]
pub use layout::{GUEST_SITE_LAYER, GUEST_USER_SITE};

#[cfg(test)]
mod env_tests {
    #[test]
    fn pip_sees_its_settings_and_not_the_hosts_secrets() {
        let sees = |k: &str| super::pip_may_see(std::ffi::OsStr::new(k));
        for k in [
            "PATH",
            "HOME",
            "PIP_INDEX_URL",
            "https_proxy",
            "SSL_CERT_FILE",
        ] {
            assert!(sees(k), "{k}");
        }
        for k in [
            "OPENAI_API_KEY",
            "LLM_IN_SANDBOX_TOKEN",
            "AWS_SECRET_ACCESS_KEY",
            "HF_TOKEN",
        ] {
            assert!(!sees(k), "{k}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requirements_parse_and_rebuild() {
        let r = Requirement::parse(" Math_Verify [antlr4_13_2] >= 0.5 , <1 ").unwrap();
        assert_eq!(r.to_string(), "Math_Verify[antlr4_13_2]>=0.5,<1");
        assert_eq!(r.normalized(), "math-verify");
        assert_eq!(Requirement::parse("pint").unwrap().to_string(), "pint");
        for bad in [
            "--index-url=http://x",
            "-r",
            "-e",
            "http://evil/x.whl",
            "pkg @ https://x",
            "./local",
            "../x",
            "/abs/path",
            "x.whl",
            "pint; python_version>'3'",
            "pint==",
            "pint>>1",
            "pi nt",
            "pint==1 --extra-index-url y",
            "",
            "pint[",
        ] {
            assert!(Requirement::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn lists_join_specifier_pieces() {
        let l = parse_list("pint>=0.20,<1, math-verify==0.9.0").unwrap();
        let s: Vec<String> = l.iter().map(ToString::to_string).collect();
        assert_eq!(s, ["pint>=0.20,<1", "math-verify==0.9.0"]);
        assert!(parse_list("none").unwrap().is_empty());
        assert!(parse_list("").unwrap().is_empty());
    }

    #[test]
    fn requirements_files_take_plain_requirements_only() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("requirements.txt");
        fs::write(&f, "# scorer\nmath-verify==0.9.0  # pinned\n\npint>=0.20\n").unwrap();
        let r: Vec<String> = read_requirements(&f)
            .unwrap()
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(r, ["math-verify==0.9.0", "pint>=0.20"]);
        for bad in [
            "-r other.txt",
            "--index-url http://x/simple",
            "-e .",
            "https://x/y.whl",
        ] {
            fs::write(&f, format!("pint\n{bad}\n")).unwrap();
            assert!(
                matches!(read_requirements(&f), Err(PackageError::Refused { .. })),
                "{bad}"
            );
        }
    }

    #[test]
    fn wheel_names_give_their_tags() {
        assert_eq!(
            wheel_tags("math_verify-0.9.0-py3-none-any.whl"),
            Some((
                "math_verify".into(),
                "0.9.0".into(),
                "none".into(),
                "any".into()
            ))
        );
        assert_eq!(
            wheel_tags("x-1-1b-cp315-cp315-manylinux_2_17_x86_64.whl").map(|t| t.3),
            Some("manylinux_2_17_x86_64".into())
        );
        assert!(wheel_tags("x-1.tar.gz").is_none());
        assert_eq!(normalize("Foo__Bar.baz"), "foo-bar-baz");
    }

    #[test]
    fn wheel_members_map_into_the_site() {
        assert_eq!(
            site_path(Path::new("pkg/__init__.py")),
            Some("pkg/__init__.py".into())
        );
        assert_eq!(
            site_path(Path::new("pkg-1.data/purelib/x/y.py")),
            Some("x/y.py".into())
        );
        assert_eq!(site_path(Path::new("pkg-1.data/scripts/run")), None);
    }
}
