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
//!
//! Files: `requirement.rs` (what the guest may ask for), `pip.rs` (running the host's pip),
//! `resolve.rs` (requirements to a lock of hashed wheels, cached), `install.rs` (unpacking
//! wheels into a site directory), `layer.rs` (the read-only site layer), `builtin.rs` (the
//! runtime's built-in packages). This module imports the guest layout and the quota, never
//! the runtime (which imports it).

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::time::Duration;

mod builtin;
mod install;
mod layer;
mod pip;
mod requirement;
mod resolve;

pub use builtin::{builtin_names, builtin_versions};
pub use install::install_into;
pub use layer::{SiteLayer, ensure_layer, seal};
pub use pip::{PipSettings, PipStop, stop_all as stop_all_pips};
pub use requirement::{Requirement, normalize, parse_list, read_requirements};
pub use resolve::{Lock, Locked, resolve, resolve_with_builtins};

use crate::layout;

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
    /// The install was stopped by its caller ([`PipStop`]): pip was killed.
    #[error("stopped: the call that asked for the packages ended first")]
    Stopped,
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
    Quota(#[from] crate::quota::QuotaError),
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

fn packages_dir(cache_root: &Path) -> PathBuf {
    cache_root.join("packages")
}

/// Where episodes' `pip install` keeps its locks and wheels: `$LLM_IN_SANDBOX_PACKAGES_CACHE`
/// when set (the image sets it under `/tmp`, since its cache is read-only), else the cache's
/// `packages` folder.
fn downloads_dir(cache_root: &Path) -> PathBuf {
    match std::env::var_os("LLM_IN_SANDBOX_PACKAGES_CACHE") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => packages_dir(cache_root),
    }
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
