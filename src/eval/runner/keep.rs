//! The files an episode left in its workspace, saved beside its trajectory for `view`.

use std::path::Path;

/// Files of an episode's workspace saved beside its trajectory (`files/`), for `view`.
const KEEP_FILES: usize = 200;
/// Bytes per saved file at most (larger files are listed in `files/.skipped.txt`).
const KEEP_FILE_BYTES: u64 = 1 << 20;
/// Bytes of saved files per episode at most.
const KEEP_TOTAL_BYTES: u64 = 8 << 20;

/// Save what the episode left in its workspace (not its input files, which the dataset has)
/// into `to`, up to [`KEEP_FILES`] files, [`KEEP_FILE_BYTES`] each and [`KEEP_TOTAL_BYTES`] in
/// all; what did not fit is named in `to/.skipped.txt`. Symlinks are not followed.
pub(super) fn keep_files(
    dir: &cap_std::fs::Dir,
    input_dir: &str,
    to: &Path,
) -> std::io::Result<()> {
    let skip_prefix = input_dir
        .strip_prefix(crate::sandbox::GUEST_WORKSPACE)
        .unwrap_or("")
        .trim_matches('/')
        .to_string();
    let mut stack = vec![String::new()];
    let (mut files, mut bytes) = (0usize, 0u64);
    let mut skipped = Vec::new();
    while let Some(rel) = stack.pop() {
        let entries = if rel.is_empty() {
            dir.entries()?
        } else {
            dir.read_dir(&rel)?
        };
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let child = if rel.is_empty() {
                name
            } else {
                format!("{rel}/{name}")
            };
            if (!skip_prefix.is_empty() && child == skip_prefix) || child == ".git" {
                continue;
            }
            let ty = e.file_type()?;
            if ty.is_dir() {
                stack.push(child);
            } else if ty.is_file() {
                let size = e.metadata()?.len();
                if files >= KEEP_FILES || size > KEEP_FILE_BYTES || bytes + size > KEEP_TOTAL_BYTES
                {
                    if skipped.len() < 1000 {
                        skipped.push(format!("{child}\t{size}"));
                    }
                    continue;
                }
                let target = to.join(&child);
                if let Some(parent) = target.parent() {
                    std::fs::create_dir_all(parent)?;
                }
                let data = crate::fsutil::read_capped(dir, Path::new(&child), KEEP_FILE_BYTES)?;
                std::fs::write(&target, data)?;
                files += 1;
                bytes += size;
            }
        }
    }
    if !skipped.is_empty() {
        std::fs::create_dir_all(to)?;
        std::fs::write(
            to.join(".skipped.txt"),
            format!(
                "files not saved (limits: {KEEP_FILES} files, {KEEP_FILE_BYTES} bytes each, {KEEP_TOTAL_BYTES} in all; at most 1000 listed):\n{}\n",
                skipped.join("\n")
            ),
        )?;
    }
    Ok(())
}
