//! The requirements the guest (or a task's `requirements.txt`, or `--with`) may ask for: a
//! name, extras and version specifiers, rebuilt from their parts before they reach pip.
//!
//! Hand-written rather than the `pep508_rs` crate: we accept a deliberately small subset (no
//! markers, URLs, paths or options) and refuse the rest with a reason the model can act on.

use std::fs;
use std::path::Path;

use super::{PackageError, io_err};

const OPERATORS: [&str; 8] = ["===", "==", "!=", "<=", ">=", "~=", "<", ">"];

/// A validated requirement: a distribution name, optional extras and version specifiers.
/// Parsed by our own code rather than `pep508_rs`: we accept a deliberately small subset and
/// refuse the rest (markers, URLs, paths, options) with a reason the model can act on.
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
}
