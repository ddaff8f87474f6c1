//! Unpacking a lock's wheels into a site directory, through a capability, charged to a quota.

use std::fs::File;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use super::{Lock, Locked, PackageError, downloads_dir, io_err, normalize};

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
    let wheels = downloads_dir(cache_root).join("wheels");
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

#[cfg(test)]
mod tests {
    use super::*;

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
