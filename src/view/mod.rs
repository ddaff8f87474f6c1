//! `view`: a run's rows and episodes as a web page. A local HTTP server over one or two run
//! folders ([`server`]) answers JSON (summary, a page of rows, one row's episode, a row's
//! file) to a page of our own (`page.html`, `page.css`, `page.js`, built into the binary);
//! [`export`] writes the same page with the data embedded as one self-contained HTML file.
//! The page builds every element with DOM text nodes, so nothing from a run is ever markup.

pub mod export;
pub mod folder;
pub mod page;
pub mod query;
mod record;
pub mod server;

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

pub use folder::RunFolder;

/// Errors of the viewer.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ViewError {
    /// A file or folder could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The path.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// The folder is not a run folder.
    #[error(
        "{0} is not a run folder: it has no results.jsonl or config.json (benchmark, merge) and \
         no trajectory.json or events.jsonl (run)"
    )]
    NotARun(PathBuf),
    /// No row with this key.
    #[error("no row {0:?} in this run")]
    NoRow(String),
    /// No run with this index.
    #[error("no run {0} (the viewer has runs 0 and, with a second folder, 1)")]
    NoRun(usize),
    /// A file path that is not a plain relative path inside the row's files.
    #[error("refused path {0:?}: only plain relative paths inside the row's files/ folder")]
    BadPath(String),
    /// No such file (or it leads out of the run folder).
    #[error("no file {0} in the run folder")]
    NotFound(String),
    /// A file over the size the viewer hands out.
    #[error("{path} is {size} bytes, over the {max}-byte limit")]
    TooLarge {
        /// The file.
        path: String,
        /// Its size.
        size: u64,
        /// The limit.
        max: u64,
    },
}

impl ViewError {
    fn io(path: &Path, source: std::io::Error) -> ViewError {
        ViewError::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}

/// The run folders being viewed: run A and optionally run B.
#[derive(Debug)]
pub struct Runs {
    runs: Vec<RunFolder>,
}

impl Runs {
    /// Open one or two run folders.
    ///
    /// # Errors
    /// [`ViewError`] from [`RunFolder::open`].
    pub fn open(dirs: &[PathBuf]) -> Result<Runs, ViewError> {
        let runs = dirs
            .iter()
            .map(|d| RunFolder::open(d))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Runs { runs })
    }

    /// Run `i`.
    ///
    /// # Errors
    /// [`ViewError::NoRun`].
    pub fn get(&self, i: usize) -> Result<&RunFolder, ViewError> {
        self.runs.get(i).ok_or(ViewError::NoRun(i))
    }

    /// The folders.
    pub fn folders(&self) -> &[RunFolder] {
        &self.runs
    }

    /// Read what every folder appended; the combined version (changes when any run's rows do).
    pub fn refresh(&self) -> String {
        self.runs
            .iter()
            .map(|r| r.refresh().to_string())
            .collect::<Vec<_>>()
            .join(".")
    }

    /// The summary endpoint: each run's summary (as `results.json` computes it, from the rows
    /// read so far), the chart (the report's SVG; the paper's Figure 1 for an llm run and a
    /// sandbox run), the domains and stop reasons for the filters, and the version.
    pub fn summary(&self) -> Value {
        let version = self.refresh();
        let runs: Vec<(String, String, Value)> = self
            .runs
            .iter()
            .map(|r| {
                let name = r
                    .root()
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_else(|| r.root().display().to_string());
                (r.label(), name, r.summary())
            })
            .collect();
        let series: Vec<(&str, &Value)> = runs.iter().map(|(l, _, s)| (l.as_str(), s)).collect();
        let svg = crate::eval::report::svg(&series);
        let mut domains = std::collections::BTreeSet::new();
        let mut stops = std::collections::BTreeSet::new();
        for r in &self.runs {
            r.with_rows(|rows| {
                for row in rows {
                    domains.insert(row.domain.clone());
                    stops.insert(row.stop.clone());
                }
            });
        }
        json!({
            "runs": runs.iter().map(|(label, name, s)| json!({"label": label, "folder": name, "summary": s})).collect::<Vec<_>>(),
            "svg": svg,
            "domains": domains,
            "stops": stops,
            "version": version,
        })
    }

    /// A page of the rows table (see [`query::page`]).
    pub fn rows(&self, q: &query::RowQuery) -> Value {
        let version = self.refresh();
        let a = self.runs.first().map(|r| r.rows().0).unwrap_or_default();
        let b = self.runs.get(1).map(|r| r.rows().0);
        let mut page = query::page(&a, b.as_deref(), q);
        page["version"] = json!(version);
        page
    }

    /// One row's episode in run `run`: `{row, trajectory, source, usage, files, note, log,
    /// attempts}` (`attempts`: the earlier attempts of a row run again).
    ///
    /// # Errors
    /// [`ViewError::NoRun`], [`ViewError::NoRow`].
    pub fn episode(&self, run: usize, key: &str) -> Result<Value, ViewError> {
        let folder = self.get(run)?;
        folder.refresh();
        let row = folder
            .row(key)
            .ok_or_else(|| ViewError::NoRow(key.to_string()))?;
        let e = folder.episode(key)?;
        Ok(json!({
            "row": row,
            "trajectory": e.trajectory,
            "source": e.source,
            "usage": e.usage,
            "files": e.files.iter().map(|(p, size)| json!({"path": p, "size": size, "kind": page::file_kind(p)})).collect::<Vec<_>>(),
            "note": e.note,
            "log": e.log,
            "attempts": e.attempts,
        }))
    }
}
