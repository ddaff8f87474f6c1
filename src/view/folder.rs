//! One run folder as the viewer reads it: a `benchmark` run (also a shard, or a `merge`
//! output), or a `run` output folder (one episode). Rows are read from `results.jsonl` as it
//! grows (only the new bytes), so a run being written shows its rows as they land.

use std::collections::HashMap;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::SystemTime;

use serde_json::{Value, json};

use super::ViewError;
use super::record::{episode_row, step_usage};
use crate::eval::report::{RowResult, summarize};
use crate::eval::runner::trajectory_dir;

/// The largest file the viewer hands out (a row's written file).
pub const MAX_FILE_BYTES: u64 = 32 << 20;
/// The most files listed for one row.
pub const MAX_LISTED_FILES: usize = 500;

/// What kind of folder it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FolderKind {
    /// `benchmark` or `merge`: `results.jsonl`, `trajectories/<id>_<k>/` or a combined
    /// `trajectory.json`.
    Benchmark,
    /// `run`: one episode's `trajectory.json`, `events.jsonl` and `files/`.
    Episode,
}

/// A run folder and the rows read from it so far.
#[derive(Debug)]
pub struct RunFolder {
    root: PathBuf,
    kind: FolderKind,
    state: Mutex<Loaded>,
}

#[derive(Debug, Default)]
struct Loaded {
    /// Bytes of `results.jsonl` consumed (complete lines only).
    offset: u64,
    rows: Vec<RowResult>,
    index: HashMap<String, usize>,
    /// Lines that were not rows (skipped), with their line numbers.
    bad_lines: Vec<usize>,
    lines: usize,
    /// Bytes after the last newline (a row being written, or a torn line).
    partial: bool,
    /// Bumped whenever the rows change.
    version: u64,
    /// For an episode folder: when its trajectory was last read.
    seen: Option<(SystemTime, u64)>,
    /// The combined `trajectory.json` of a merged folder, parsed once per change.
    combined: Option<(SystemTime, std::sync::Arc<Value>)>,
}

/// A row's episode as the page shows it.
#[derive(Debug, Clone)]
pub struct Episode {
    /// The trajectory document (header fields, `steps`, summary fields).
    pub trajectory: Value,
    /// Where it came from (relative to the run folder).
    pub source: String,
    /// Token usage per step (`{"1": {...}}`), from `events.jsonl`, when recorded.
    pub usage: Value,
    /// The files the episode left (relative paths and sizes).
    pub files: Vec<(String, u64)>,
    /// Something the page should say (a missing trajectory, a log shown instead).
    pub note: Option<String>,
    /// The row's console log (`logs/<id>.txt`) when there is no trajectory (plain-LLM mode).
    pub log: Option<String>,
    /// The attempts before the one `trajectory` shows, oldest first, when the row was run
    /// again (a resumed benchmark): `{attempt, ended, steps}` each.
    pub attempts: Vec<Value>,
}

impl RunFolder {
    /// Open a run folder.
    ///
    /// # Errors
    /// [`ViewError::NotARun`] when the folder holds neither `results.jsonl`, `config.json`
    /// nor a trajectory; [`ViewError::Io`] when it cannot be read.
    pub fn open(root: &Path) -> Result<RunFolder, ViewError> {
        let meta = std::fs::metadata(root).map_err(|e| ViewError::io(root, e))?;
        if !meta.is_dir() {
            return Err(ViewError::NotARun(root.to_path_buf()));
        }
        let kind = if root.join("results.jsonl").is_file() || root.join("config.json").is_file() {
            FolderKind::Benchmark
        } else if root.join("trajectory.json").is_file() || root.join("events.jsonl").is_file() {
            FolderKind::Episode
        } else {
            return Err(ViewError::NotARun(root.to_path_buf()));
        };
        let folder = RunFolder {
            root: root.to_path_buf(),
            kind,
            state: Mutex::new(Loaded::default()),
        };
        folder.refresh();
        Ok(folder)
    }

    /// The folder.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Its kind.
    pub fn kind(&self) -> FolderKind {
        self.kind
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Loaded> {
        // A panic while holding the lock leaves plain data behind: keep using it.
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Read what was appended since the last call; returns the version (bumped on change).
    pub fn refresh(&self) -> u64 {
        let mut st = self.lock();
        match self.kind {
            FolderKind::Benchmark => self.refresh_results(&mut st),
            FolderKind::Episode => self.refresh_episode(&mut st),
        }
        st.version
    }

    fn refresh_results(&self, st: &mut Loaded) {
        let path = self.root.join("results.jsonl");
        let Ok(meta) = std::fs::metadata(&path) else {
            return;
        };
        if !meta.is_file() {
            return;
        }
        if meta.len() < st.offset {
            // Rewritten (a resume dropped a torn tail, or a merge wrote it again): start over.
            let version = st.version + 1;
            *st = Loaded {
                version,
                ..Loaded::default()
            };
        }
        if meta.len() == st.offset {
            return;
        }
        let Ok(mut f) = std::fs::File::open(&path) else {
            return;
        };
        let mut buf = Vec::new();
        if f.seek(SeekFrom::Start(st.offset)).is_err()
            || f.take(meta.len() - st.offset)
                .read_to_end(&mut buf)
                .is_err()
        {
            return;
        }
        let complete = buf.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        st.partial = complete < buf.len();
        let mut changed = false;
        for line in buf[..complete].split(|&b| b == b'\n') {
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            st.lines += 1;
            match serde_json::from_slice::<RowResult>(line) {
                // The first line of a key wins, as in the summary.
                Ok(row) if !st.index.contains_key(&row.key) => {
                    st.index.insert(row.key.clone(), st.rows.len());
                    st.rows.push(row);
                    changed = true;
                }
                Ok(_) => {}
                Err(_) => st.bad_lines.push(st.lines),
            }
        }
        st.offset += complete as u64;
        if changed {
            st.version += 1;
        }
    }

    fn refresh_episode(&self, st: &mut Loaded) {
        let path = self.root.join("trajectory.json");
        let stamp = std::fs::metadata(&path)
            .or_else(|_| std::fs::metadata(self.root.join("events.jsonl")))
            .ok()
            .map(|m| (m.modified().unwrap_or(SystemTime::UNIX_EPOCH), m.len()));
        if stamp.is_none() || stamp == st.seen {
            return;
        }
        st.seen = stamp;
        let Ok(doc) = crate::agent::trajectory::read(&self.root) else {
            return;
        };
        let row = episode_row(&self.root, &doc);
        st.rows = vec![row];
        st.index = HashMap::from([("run#0".to_string(), 0)]);
        st.version += 1;
    }

    /// A copy of the rows read so far (in file order), and the version.
    pub fn rows(&self) -> (Vec<RowResult>, u64) {
        let st = self.lock();
        (st.rows.clone(), st.version)
    }

    /// Call `f` with the rows, without copying them.
    pub fn with_rows<T>(&self, f: impl FnOnce(&[RowResult]) -> T) -> T {
        f(&self.lock().rows)
    }

    /// One row by key.
    pub fn row(&self, key: &str) -> Option<RowResult> {
        let st = self.lock();
        st.index.get(key).and_then(|&i| st.rows.get(i)).cloned()
    }

    /// The run's configuration: `config.json`, else `results.json`'s `config`, else the
    /// episode's header.
    pub fn config(&self) -> Value {
        let read = |name: &str| -> Option<Value> {
            let bytes = std::fs::read(self.root.join(name)).ok()?;
            serde_json::from_slice(&bytes).ok()
        };
        if let Some(c) = read("config.json").filter(Value::is_object) {
            return c;
        }
        if let Some(c) = read("results.json")
            .map(|r| r["config"].clone())
            .filter(Value::is_object)
        {
            return c;
        }
        if self.kind == FolderKind::Episode
            && let Ok(doc) = crate::agent::trajectory::read(&self.root)
        {
            return json!({"mode": "llm-in-sandbox", "model": doc["model"], "task": "run",
                          "llm_base_url": doc["base_url"], "settings": doc["settings"]});
        }
        json!({})
    }

    /// The summary of the rows read so far (as `results.json` computes it), plus what the page
    /// should know about the folder.
    pub fn summary(&self) -> Value {
        let config = self.config();
        let elapsed = std::fs::read(self.root.join("results.json"))
            .ok()
            .and_then(|b| serde_json::from_slice::<Value>(&b).ok())
            .and_then(|v| v["elapsed_time_seconds"].as_f64())
            .unwrap_or(0.0);
        let st = self.lock();
        let mut s = summarize(&st.rows, &config, elapsed);
        let mut notes = Vec::new();
        if !st.bad_lines.is_empty() {
            notes.push(format!(
                "{} line(s) of results.jsonl are not rows and were skipped (line {})",
                st.bad_lines.len(),
                st.bad_lines
                    .iter()
                    .take(5)
                    .map(usize::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        if st.partial {
            notes.push(
                "the last line of results.jsonl is incomplete (being written, or torn by a kill); \
                 it is shown once complete"
                    .to_string(),
            );
        }
        if self.kind == FolderKind::Benchmark && !self.root.join("results.jsonl").is_file() {
            notes.push("no results.jsonl yet: rows appear as the run writes them".into());
        }
        s["notes"] = json!(notes);
        s["version"] = json!(st.version);
        s["kind"] = json!(match self.kind {
            FolderKind::Benchmark => "benchmark",
            FolderKind::Episode => "run",
        });
        s
    }

    /// A short label: model and mode, as the chart names a run.
    pub fn label(&self) -> String {
        let c = self.config();
        format!(
            "{} {}",
            c["model"].as_str().unwrap_or("?"),
            c["mode"].as_str().unwrap_or("run")
        )
    }

    /// The folder (relative to the run folder) that holds a row's episode.
    fn episode_dir(&self, row: &RowResult) -> String {
        match self.kind {
            FolderKind::Episode => String::new(),
            FolderKind::Benchmark => {
                format!("trajectories/{}", trajectory_dir(&row.id, row.repeat))
            }
        }
    }

    /// A row's episode: its own `trajectory.json` (or one rebuilt from `events.jsonl`), else
    /// its entry in a merged folder's combined `trajectory.json`, else its console log.
    ///
    /// # Errors
    /// [`ViewError::NoRow`] for an unknown key.
    pub fn episode(&self, key: &str) -> Result<Episode, ViewError> {
        let row = self
            .row(key)
            .ok_or_else(|| ViewError::NoRow(key.to_string()))?;
        let rel = self.episode_dir(&row);
        let dir = self.root.join(&rel);
        let files_rel = if rel.is_empty() {
            "files".to_string()
        } else {
            format!("{rel}/files")
        };
        let files = self.list_files(&files_rel);
        let mut episode = Episode {
            trajectory: Value::Null,
            source: String::new(),
            usage: json!({}),
            files,
            note: None,
            log: None,
            attempts: Vec::new(),
        };
        let own = dir.join("trajectory.json").is_file() || dir.join("events.jsonl").is_file();
        if own && let Ok(doc) = crate::agent::trajectory::read(&dir) {
            episode.trajectory = doc;
            episode.source = if rel.is_empty() {
                "trajectory.json".into()
            } else {
                format!("{rel}/trajectory.json")
            };
            episode.usage = step_usage(&dir.join("events.jsonl"));
            episode.attempts = earlier_attempts(&dir.join("events.jsonl"));
            return Ok(episode);
        }
        // A plain-LLM run's combined file has an empty trajectory per row: its log says more.
        if let Some(entry) = self
            .combined_entry(&row)
            .filter(|e| e["trajectory"].as_array().is_some_and(|s| !s.is_empty()))
        {
            episode.trajectory = json!({
                "problem_statement": entry["problem_statement"],
                "steps": entry["trajectory"],
                "answer": entry["agent_answer"],
            });
            episode.source = "trajectory.json (combined)".into();
            return Ok(episode);
        }
        episode.log = self.log_text(&row);
        episode.note = Some(match &episode.log {
            Some(_) => format!(
                "no trajectory was recorded for this row (none in {rel}/); its console log is \
                 shown instead"
            ),
            None => format!("no trajectory was recorded for this row (none in {rel}/)"),
        });
        Ok(episode)
    }

    fn combined_entry(&self, row: &RowResult) -> Option<Value> {
        let path = self.root.join("trajectory.json");
        let modified = std::fs::metadata(&path).ok()?.modified().ok()?;
        let doc = {
            let mut st = self.lock();
            match &st.combined {
                Some((t, doc)) if *t == modified => doc.clone(),
                _ => {
                    let bytes = std::fs::read(&path).ok()?;
                    let doc = std::sync::Arc::new(serde_json::from_slice::<Value>(&bytes).ok()?);
                    st.combined = Some((modified, doc.clone()));
                    doc
                }
            }
        };
        [row.key.as_str(), row.id.as_str()]
            .iter()
            .find_map(|k| doc.get(*k).filter(|e| e.get("trajectory").is_some()))
            .cloned()
    }

    fn log_text(&self, row: &RowResult) -> Option<String> {
        let names = [
            format!("logs/{}.txt", trajectory_dir(&row.id, row.repeat)),
            format!("logs/{}.txt", crate::eval::runner::log_stem(&row.id)),
        ];
        names.iter().find_map(|n| {
            let bytes = self.read_file(n, 4 << 20).ok()?;
            Some(String::from_utf8_lossy(&bytes).into_owned())
        })
    }

    /// The files under `rel` (a folder inside the run folder), as relative paths and sizes;
    /// symlinks are not followed.
    fn list_files(&self, rel: &str) -> Vec<(String, u64)> {
        let Ok(root) = self.open_root() else {
            return Vec::new();
        };
        let Ok(dir) = root.open_dir(rel) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        let mut stack = vec![(dir, String::new())];
        while let Some((dir, prefix)) = stack.pop() {
            let Ok(entries) = dir.entries() else { continue };
            for e in entries.flatten() {
                if out.len() >= MAX_LISTED_FILES {
                    return out;
                }
                let name = e.file_name().to_string_lossy().into_owned();
                let Ok(ty) = e.file_type() else { continue };
                if ty.is_dir() {
                    if let Ok(sub) = e.open_dir() {
                        stack.push((sub, format!("{prefix}{name}/")));
                    }
                } else if ty.is_file() {
                    let size = e.metadata().map(|m| m.len()).unwrap_or(0);
                    out.push((format!("{prefix}{name}"), size));
                }
            }
        }
        out.sort();
        out
    }

    fn open_root(&self) -> Result<cap_std::fs::Dir, ViewError> {
        cap_std::fs::Dir::open_ambient_dir(&self.root, cap_std::ambient_authority())
            .map_err(|e| ViewError::io(&self.root, e))
    }

    /// A file a row's episode left (`path` relative to its `files/` folder). Only plain
    /// relative paths inside that folder: no `..`, no absolute path, and no symlink that
    /// leads out of the run folder.
    ///
    /// # Errors
    /// [`ViewError::BadPath`], [`ViewError::NoRow`], [`ViewError::NotFound`],
    /// [`ViewError::TooLarge`].
    pub fn row_file(&self, key: &str, path: &str) -> Result<Vec<u8>, ViewError> {
        check_relative(path)?;
        let row = self
            .row(key)
            .ok_or_else(|| ViewError::NoRow(key.to_string()))?;
        let rel = self.episode_dir(&row);
        let full = if rel.is_empty() {
            format!("files/{path}")
        } else {
            format!("{rel}/files/{path}")
        };
        self.read_file(&full, MAX_FILE_BYTES)
    }

    /// Read `rel` inside the run folder through a capability on the folder: a path or
    /// symlink that leaves it fails.
    fn read_file(&self, rel: &str, max: u64) -> Result<Vec<u8>, ViewError> {
        let root = self.open_root()?;
        let not_found = |_| ViewError::NotFound(rel.to_string());
        let mut f = root.open(rel).map_err(not_found)?;
        let meta = f.metadata().map_err(not_found)?;
        if !meta.is_file() {
            return Err(ViewError::NotFound(rel.to_string()));
        }
        if meta.len() > max {
            return Err(ViewError::TooLarge {
                path: rel.to_string(),
                size: meta.len(),
                max,
            });
        }
        let mut out = Vec::with_capacity(meta.len() as usize);
        (&mut f)
            .take(max + 1)
            .read_to_end(&mut out)
            .map_err(|e| ViewError::io(&self.root.join(rel), e))?;
        Ok(out)
    }
}

/// The attempts of an `events.jsonl` before its last one, as the page shows them.
fn earlier_attempts(events: &Path) -> Vec<Value> {
    let mut all = crate::agent::attempts::read(events);
    all.pop();
    all.into_iter()
        .map(|a| json!({"attempt": a.number, "ended": a.ending(), "steps": a.steps}))
        .collect()
}

/// A plain relative path: non-empty `/`-separated names, none `.` or `..`, no NUL.
///
/// # Errors
/// [`ViewError::BadPath`].
pub fn check_relative(path: &str) -> Result<(), ViewError> {
    let bad = path.is_empty()
        || path.starts_with('/')
        || path.contains('\0')
        || path.contains('\\')
        || path
            .split('/')
            .any(|c| c.is_empty() || c == "." || c == "..");
    if bad {
        return Err(ViewError::BadPath(path.to_string()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_plain_relative_paths_pass() {
        for ok in ["a.txt", "out/plot.png", "a..b"] {
            assert!(check_relative(ok).is_ok(), "{ok}");
        }
        for bad in [
            "",
            "/etc/passwd",
            "../x",
            "a/../../x",
            "a//b",
            "./a",
            "a/.",
            "a\\b",
            "a\0",
        ] {
            assert!(check_relative(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn rows_are_read_as_they_are_appended_and_a_torn_line_waits() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("results.jsonl");
        let line = |k: &str| {
            format!(
                r#"{{"key":"{k}#0","id":"{k}","repeat":0,"domain":"math","score":1.0,"error":null,"answer":"1","ground_truth":"1","stop":"submitted","steps":1,"tokens":1,"llm_seconds":0.1,"sandbox_seconds":0.1}}"#
            )
        };
        std::fs::write(
            &path,
            format!("{}\nnot json\n{}", line("a"), &line("b")[..20]),
        )
        .unwrap();
        let f = RunFolder::open(dir.path()).unwrap();
        let (rows, v1) = f.rows();
        assert_eq!(rows.len(), 1);
        let s = f.summary();
        assert_eq!(s["notes"].as_array().unwrap().len(), 2, "{s}");
        // The torn line is completed, and one more row lands.
        let mut text = std::fs::read_to_string(&path).unwrap();
        text.push_str(&line("b")[20..]);
        text.push('\n');
        text.push_str(&line("c"));
        text.push('\n');
        std::fs::write(&path, text).unwrap();
        let v2 = f.refresh();
        assert!(v2 > v1);
        let keys: Vec<String> = f.rows().0.into_iter().map(|r| r.key).collect();
        assert_eq!(keys, ["a#0", "b#0", "c#0"]);
        // A missing trajectory is a note, not an error.
        let e = f.episode("a#0").unwrap();
        assert!(e.note.unwrap().contains("no trajectory"));
    }
}
