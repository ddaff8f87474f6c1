//! The runtime's built-in packages as pip sees them: a folder of stand-in wheels (metadata
//! only, one per built-in distribution and version) passed to `pip download --find-links`, so
//! a dependency on a built-in package resolves to the version that is there.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::{PackageError, io_err, normalize};

/// MANIFEST lines that name C libraries linked into the runtime, not Python distributions.
const NOT_DISTRIBUTIONS: &[&str] = &[
    "zlib",
    "bzip2",
    "xz",
    "sqlite-autoconf",
    "freetype",
    "harfbuzz",
    "sheenbidi",
    "libraqm",
    "qhull",
    "libxml2",
    "libxslt",
    "openblas",
];

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

/// The Python distributions built into the runtime: (name, version) from the MANIFEST's
/// `package NAME VERSION` lines.
pub fn builtin_versions(manifest: &Path) -> Vec<(String, String)> {
    let text = fs::read_to_string(manifest).unwrap_or_default();
    let mut found: Vec<(String, String)> = text
        .lines()
        .filter_map(|l| {
            let mut w = l.split_whitespace();
            (w.next() == Some("package")).then_some(())?;
            let (name, version) = (w.next()?, w.next()?);
            let plain = |s: &str| {
                !s.is_empty()
                    && s.chars()
                        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_' | '+'))
            };
            let numbered = version.starts_with(|c: char| c.is_ascii_digit());
            (plain(name) && plain(version) && numbered && !NOT_DISTRIBUTIONS.contains(&name))
                .then(|| (normalize(name), version.to_string()))
        })
        .collect();
    found.sort();
    found.dedup_by(|a, b| a.0 == b.0);
    found
}

/// The folder of stand-in wheels for `builtins` under `packages_dir` (made once; its name is a
/// hash of the set).
pub(super) fn stub_wheels(
    packages_dir: &Path,
    builtins: &[(String, String)],
) -> Result<PathBuf, PackageError> {
    let mut h = Sha256::new();
    for (name, version) in builtins {
        h.update(format!("{name}=={version}\n").as_bytes());
    }
    let dir = packages_dir.join(format!("builtin-{}", hex::encode(&h.finalize()[..8])));
    if dir.is_dir() {
        return Ok(dir);
    }
    fs::create_dir_all(packages_dir).map_err(io_err("create directory", packages_dir))?;
    let staging = tempfile::Builder::new()
        .prefix("builtin-")
        .tempdir_in(packages_dir)
        .map_err(io_err("create a temporary directory in", packages_dir))?;
    for (name, version) in builtins {
        let file = format!("{}-{version}-py3-none-any.whl", name.replace('-', "_"));
        let path = staging.path().join(&file);
        let bytes = stub_wheel(name, version).map_err(|e| PackageError::Wheel {
            file: file.clone(),
            detail: format!("cannot make the stand-in wheel: {e}"),
        })?;
        fs::write(&path, bytes).map_err(io_err("write", &path))?;
    }
    // Another process may have made it meanwhile: theirs is the same.
    let staged = staging.keep();
    if fs::rename(&staged, &dir).is_err() {
        let _ = fs::remove_dir_all(&staged);
    }
    Ok(dir)
}

/// A wheel with only its dist-info: enough for pip's resolver, nothing to install.
fn stub_wheel(name: &str, version: &str) -> zip::result::ZipResult<Vec<u8>> {
    use zip::write::SimpleFileOptions;
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let info = format!("{}-{version}.dist-info", name.replace('-', "_"));
    let files = [
        (
            format!("{info}/METADATA"),
            format!(
                "Metadata-Version: 2.1\nName: {name}\nVersion: {version}\nSummary: built into \
                 the llm-in-sandbox runtime\n"
            ),
        ),
        (
            format!("{info}/WHEEL"),
            "Wheel-Version: 1.0\nGenerator: llm-in-sandbox\nRoot-Is-Purelib: true\nTag: \
             py3-none-any\n"
                .to_string(),
        ),
        (format!("{info}/RECORD"), String::new()),
    ];
    for (path, body) in &files {
        zip.start_file(path.as_str(), SimpleFileOptions::default())?;
        zip.write_all(body.as_bytes())?;
    }
    Ok(zip.finish()?.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn manifest_packages_become_stand_in_wheels() {
        let dir = tempfile::tempdir().expect("temp dir");
        let manifest = dir.path().join("MANIFEST");
        fs::write(
            &manifest,
            "python 3.15.0\npackage numpy 2.5.2\npackage zlib 1.3.1\npackage MarkupSafe 3.0.4\n\
             package bad name\npackage ../x 1\n",
        )
        .expect("write");
        let found = builtin_versions(&manifest);
        assert_eq!(
            found,
            vec![
                ("markupsafe".to_string(), "3.0.4".to_string()),
                ("numpy".to_string(), "2.5.2".to_string())
            ]
        );
        let stubs = stub_wheels(dir.path(), &found).expect("stubs");
        let mut files: Vec<String> = fs::read_dir(&stubs)
            .expect("read")
            .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
            .collect();
        files.sort();
        assert_eq!(
            files,
            [
                "markupsafe-3.0.4-py3-none-any.whl",
                "numpy-2.5.2-py3-none-any.whl"
            ]
        );
        assert_eq!(stub_wheels(dir.path(), &found).ok(), Some(stubs));
    }
}
