//! Files in and out of a sandbox for the API: guest paths resolved to one of the sandbox's
//! two directory capabilities (`/testbed`, `/tmp`), never to a host path; folders as tar both
//! ways. Everything goes through cap-std, so a symlink that leaves the sandbox fails.

use std::io::Read;
use std::path::{Component, Path, PathBuf};

use cap_std::fs::Dir;

use super::error::ApiError;
use crate::sandbox::{GUEST_HOME, GUEST_TMP, GUEST_WORKSPACE, Sandbox};

/// Which of the sandbox's directories a guest path is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Root {
    /// `/testbed`.
    Workspace,
    /// `/tmp`.
    Scratch,
    /// `/root`, the user's home.
    Home,
}

/// A guest path resolved to a root and a clean relative path (no `..`, no leading `/`;
/// empty for the root itself).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GuestPath {
    /// The directory it is in.
    pub root: Root,
    /// Relative to that directory.
    pub rel: PathBuf,
}

impl GuestPath {
    /// Resolve `path`: relative paths are under `/testbed`; absolute ones must be under
    /// `/testbed`, `/tmp` or `/root`. `.` is dropped and `..` is applied lexically; climbing above the
    /// root is refused.
    ///
    /// # Errors
    /// 400 naming the path.
    pub fn parse(path: &str) -> Result<GuestPath, ApiError> {
        let refuse = |why: &str| {
            ApiError::bad_request(format!(
                "path {path:?} {why}: use a path under {GUEST_WORKSPACE} (or relative to it), {GUEST_TMP} or {GUEST_HOME}"
            ))
        };
        if path.contains('\0') {
            return Err(refuse("has a NUL byte"));
        }
        let (root, rest) = if let Some(r) = strip_root(path, GUEST_WORKSPACE) {
            (Root::Workspace, r)
        } else if let Some(r) = strip_root(path, GUEST_TMP) {
            (Root::Scratch, r)
        } else if let Some(r) = strip_root(path, GUEST_HOME) {
            (Root::Home, r)
        } else if path.starts_with('/') {
            return Err(refuse("is outside the sandbox"));
        } else {
            (Root::Workspace, path)
        };
        let rel = clean(Path::new(rest)).ok_or_else(|| refuse("climbs out of its folder"))?;
        Ok(GuestPath { root, rel })
    }

    /// The guest's absolute form.
    pub fn guest(&self) -> String {
        let base = match self.root {
            Root::Workspace => GUEST_WORKSPACE,
            Root::Scratch => GUEST_TMP,
            Root::Home => GUEST_HOME,
        };
        if self.rel.as_os_str().is_empty() {
            base.to_string()
        } else {
            format!("{base}/{}", self.rel.display())
        }
    }

    /// This path's directory capability in `sb` (`/tmp` and `/root` are opened on first use).
    ///
    /// # Errors
    /// See [`io_error`]: the folder cannot be opened (the server is out of file descriptors).
    pub fn dir<'a>(&self, sb: &'a Sandbox) -> Result<&'a Dir, ApiError> {
        match self.root {
            Root::Workspace => Ok(sb.workspace().dir()),
            Root::Scratch => sb.scratch_dir(),
            Root::Home => sb.home_dir(),
        }
        .map_err(|e| io_error(self, "open", e))
    }

    /// The relative path for cap-std (`.` for the root).
    pub fn rel_or_dot(&self) -> &Path {
        if self.rel.as_os_str().is_empty() {
            Path::new(".")
        } else {
            &self.rel
        }
    }
}

fn strip_root<'a>(path: &'a str, root: &str) -> Option<&'a str> {
    let rest = path.strip_prefix(root)?;
    if rest.is_empty() {
        Some("")
    } else {
        rest.strip_prefix('/')
    }
}

/// Lexically clean a relative path; `None` when it is absolute or climbs above its start.
pub fn clean(p: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::Normal(s) => out.push(s),
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    return None;
                }
            }
            Component::RootDir | Component::Prefix(_) => {
                // A leading `/` inside the rest ("/testbed//x") is harmless; others are not.
                if !out.as_os_str().is_empty() {
                    return None;
                }
            }
        }
    }
    Some(out)
}

/// Map an I/O error on a guest path to an answer: missing is 404, an escape or a wrong kind
/// is 400, a full quota is 413, anything else is ours (500).
pub fn io_error(path: &GuestPath, action: &str, e: std::io::Error) -> ApiError {
    use std::io::ErrorKind as K;
    let msg = format!("cannot {action} {}: {e}", path.guest());
    match e.kind() {
        K::NotFound => ApiError::not_found(msg),
        K::StorageFull | K::QuotaExceeded | K::FileTooLarge => {
            let mut err = ApiError::bad_request(format!("{msg} (the sandbox's disk quota)"));
            err.status = axum::http::StatusCode::PAYLOAD_TOO_LARGE;
            err.code = "payload_too_large";
            err
        }
        K::PermissionDenied
        | K::IsADirectory
        | K::NotADirectory
        | K::InvalidInput
        | K::InvalidFilename
        | K::AlreadyExists
        | K::DirectoryNotEmpty => ApiError::bad_request(msg),
        // cap-std's refusal of a path that leaves the directory.
        _ if e.to_string().contains("outside of the filesystem") => ApiError::bad_request(msg),
        _ => ApiError::internal(msg),
    }
}

/// Write a file (parents created), charged to the sandbox's quota.
///
/// # Errors
/// See [`io_error`].
pub fn write_file(sb: &Sandbox, path: &GuestPath, data: &[u8]) -> Result<(), ApiError> {
    if path.rel.as_os_str().is_empty() {
        return Err(ApiError::bad_request(format!(
            "{} is a folder, not a file",
            path.guest()
        )));
    }
    let dir = path.dir(sb)?;
    sb.quota()
        .create_parents(dir, &path.rel)
        .map_err(|e| io_error(path, "create the folder of", e))?;
    let rel = path.rel.to_string_lossy();
    sb.write_charged(dir, &rel, data)
        .map_err(|e| io_error(path, "write", e))
}

/// Read a file, at most `limit` bytes.
///
/// # Errors
/// See [`io_error`]; 413 when it is larger than `limit`.
pub fn read_file(sb: &Sandbox, path: &GuestPath, limit: usize) -> Result<Vec<u8>, ApiError> {
    let f = path
        .dir(sb)?
        .open(path.rel_or_dot())
        .map_err(|e| io_error(path, "read", e))?;
    let meta = f.metadata().map_err(|e| io_error(path, "read", e))?;
    if meta.is_dir() {
        return Err(ApiError::bad_request(format!(
            "{} is a folder: list it, or fetch it as a tar from /archive",
            path.guest()
        )));
    }
    let mut out = Vec::new();
    f.take(limit as u64 + 1)
        .read_to_end(&mut out)
        .map_err(|e| io_error(path, "read", e))?;
    if out.len() > limit {
        return Err(ApiError::too_large(limit));
    }
    Ok(out)
}

/// One entry of a folder listing.
#[derive(Debug, serde::Serialize)]
pub struct Entry {
    /// File name.
    pub name: String,
    /// `file`, `dir`, `symlink` or `other`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// Size in bytes (files).
    pub size: u64,
}

/// List a folder, sorted by name.
///
/// # Errors
/// See [`io_error`].
pub fn list(sb: &Sandbox, path: &GuestPath) -> Result<Vec<Entry>, ApiError> {
    let rd = path
        .dir(sb)?
        .read_dir(path.rel_or_dot())
        .map_err(|e| io_error(path, "list", e))?;
    let mut out = Vec::new();
    for e in rd {
        let e = e.map_err(|e| io_error(path, "list", e))?;
        let ft = e.file_type().map_err(|e| io_error(path, "list", e))?;
        let kind = if ft.is_symlink() {
            "symlink"
        } else if ft.is_dir() {
            "dir"
        } else if ft.is_file() {
            "file"
        } else {
            "other"
        };
        let size = if ft.is_file() {
            e.metadata().map(|m| m.len()).unwrap_or(0)
        } else {
            0
        };
        out.push(Entry {
            name: e.file_name().to_string_lossy().into_owned(),
            kind,
            size,
        });
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(out)
}

/// A folder as a tar (names relative to it; files, folders and symlinks as links), at most
/// `limit` bytes of file content.
///
/// # Errors
/// See [`io_error`]; 413 past `limit`.
pub fn tar_folder(sb: &Sandbox, path: &GuestPath, limit: usize) -> Result<Vec<u8>, ApiError> {
    let root = path
        .dir(sb)?
        .open_dir(path.rel_or_dot())
        .map_err(|e| io_error(path, "open", e))?;
    let mut b = tar::Builder::new(Vec::new());
    b.follow_symlinks(false);
    let mut total = 0usize;
    let mut stack: Vec<(Dir, PathBuf)> = vec![(root, PathBuf::new())];
    while let Some((dir, prefix)) = stack.pop() {
        let mut entries: Vec<_> = dir
            .entries()
            .map_err(|e| io_error(path, "list", e))?
            .collect::<Result<_, _>>()
            .map_err(|e| io_error(path, "list", e))?;
        entries.sort_by_key(|e| e.file_name());
        for e in entries {
            let name = prefix.join(e.file_name());
            let ft = e.file_type().map_err(|e| io_error(path, "list", e))?;
            let mut h = tar::Header::new_gnu();
            h.set_mode(0o644);
            h.set_mtime(0);
            let fail = |e: std::io::Error| io_error(path, "archive", e);
            if ft.is_dir() {
                h.set_entry_type(tar::EntryType::Directory);
                h.set_mode(0o755);
                h.set_size(0);
                b.append_data(&mut h, &name, std::io::empty())
                    .map_err(fail)?;
                let sub = dir
                    .open_dir(e.file_name())
                    .map_err(|e| io_error(path, "open", e))?;
                stack.push((sub, name));
            } else if ft.is_symlink() {
                let target = dir
                    .read_link_contents(e.file_name())
                    .map_err(|e| io_error(path, "read link", e))?;
                h.set_entry_type(tar::EntryType::Symlink);
                h.set_size(0);
                b.append_link(&mut h, &name, &target).map_err(fail)?;
            } else if ft.is_file() {
                let mut f = dir
                    .open(e.file_name())
                    .map_err(|e| io_error(path, "read", e))?;
                let len = f.metadata().map_err(fail)?.len();
                total = total.saturating_add(len as usize);
                if total > limit {
                    return Err(ApiError::too_large(limit));
                }
                let mut data = Vec::with_capacity(len as usize);
                (&mut f).take(len).read_to_end(&mut data).map_err(fail)?;
                h.set_size(data.len() as u64);
                b.append_data(&mut h, &name, data.as_slice())
                    .map_err(fail)?;
            }
        }
    }
    b.into_inner()
        .map_err(|e| ApiError::internal(format!("cannot finish the tar: {e}")))
}

/// What an extracted tar held.
#[derive(Debug, Default, serde::Serialize)]
pub struct Extracted {
    /// Files written.
    pub files: u64,
    /// Bytes written.
    pub bytes: u64,
}

/// Extract a tar under `path` (created), charging the quota. Entry names must be relative and
/// stay inside; symlinks must point inside the sandbox folder they are in; hard links and
/// devices are refused.
///
/// # Errors
/// 400 naming the bad entry; see [`io_error`].
pub fn untar(sb: &Sandbox, path: &GuestPath, data: &[u8]) -> Result<Extracted, ApiError> {
    let dir = path.dir(sb)?;
    if !path.rel.as_os_str().is_empty() {
        sb.quota()
            .create_dirs(dir, &path.rel)
            .map_err(|e| io_error(path, "create", e))?;
    }
    let mut ar = tar::Archive::new(data);
    let mut out = Extracted::default();
    let bad = |m: String| ApiError::bad_request(format!("bad tar: {m}"));
    for entry in ar.entries().map_err(|e| bad(e.to_string()))? {
        let mut entry = entry.map_err(|e| bad(e.to_string()))?;
        let raw = entry.path().map_err(|e| bad(e.to_string()))?.into_owned();
        let rel = clean(&raw)
            .filter(|_| !raw.is_absolute())
            .ok_or_else(|| bad(format!("entry {} leaves the folder", raw.display())))?;
        if rel.as_os_str().is_empty() {
            continue;
        }
        let target = GuestPath {
            root: path.root,
            rel: path.rel.join(&rel),
        };
        match entry.header().entry_type() {
            tar::EntryType::Directory => {
                sb.quota()
                    .create_dirs(dir, &target.rel)
                    .map_err(|e| io_error(&target, "create", e))?;
            }
            tar::EntryType::Regular | tar::EntryType::Continuous => {
                let mut buf = Vec::new();
                entry
                    .read_to_end(&mut buf)
                    .map_err(|e| bad(e.to_string()))?;
                write_file(sb, &target, &buf)?;
                out.files += 1;
                out.bytes += buf.len() as u64;
            }
            tar::EntryType::Symlink => {
                let link = entry
                    .link_name()
                    .map_err(|e| bad(e.to_string()))?
                    .ok_or_else(|| bad(format!("symlink {} has no target", raw.display())))?
                    .into_owned();
                let parent = target.rel.parent().unwrap_or(Path::new(""));
                if link.is_absolute()
                    || clean(&parent.join(&link)).is_none()
                    || crate::fsutil::climbs_through_a_link(dir, &target.rel, &link)
                {
                    return Err(bad(format!(
                        "symlink {} -> {} leaves the sandbox",
                        raw.display(),
                        link.display()
                    )));
                }
                sb.quota()
                    .create_parents(dir, &target.rel)
                    .map_err(|e| io_error(&target, "create", e))?;
                dir.symlink(&link, &target.rel)
                    .map_err(|e| io_error(&target, "link", e))?;
            }
            // pax/GNU metadata records are consumed by the reader.
            tar::EntryType::XGlobalHeader | tar::EntryType::XHeader => {}
            other => {
                return Err(bad(format!(
                    "entry {} is a {other:?}: only files, folders and symlinks are taken",
                    raw.display()
                )));
            }
        }
    }
    sb.quota().refresh();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn guest_paths_resolve_inside_or_are_refused() {
        let p = GuestPath::parse("a/b.txt").unwrap();
        assert_eq!(
            (p.root, p.rel.as_path()),
            (Root::Workspace, Path::new("a/b.txt"))
        );
        assert_eq!(
            GuestPath::parse("/testbed/x/../y").unwrap().guest(),
            "/testbed/y"
        );
        assert_eq!(GuestPath::parse("/tmp/q").unwrap().root, Root::Scratch);
        let home = GuestPath::parse("/root/.config/x").unwrap();
        assert_eq!(
            (home.root, home.guest().as_str()),
            (Root::Home, "/root/.config/x")
        );
        assert!(GuestPath::parse("/rootx/a").is_err());
        assert_eq!(GuestPath::parse("/testbed").unwrap().guest(), "/testbed");
        for bad in [
            "../etc/passwd",
            "/etc/passwd",
            "/testbed/../etc",
            "a/../../b",
            "/testbedx/a",
            "/tmp/../../x",
            "a\0b",
        ] {
            assert!(GuestPath::parse(bad).is_err(), "{bad} should be refused");
        }
    }
}
