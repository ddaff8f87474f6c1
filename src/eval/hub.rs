//! Hugging Face Hub datasets for `benchmark`: a task's `dataset: OWNER/NAME` + `config` +
//! `split` read as JSON rows, as Python's `datasets.load_dataset(name, config, split=split)`
//! would give them.
//!
//! The rows come from the local Hub cache that `huggingface-cli download` and `huggingface_hub`
//! write (`$HF_HUB_CACHE`, else `$HF_HOME/hub`, else `~/.cache/huggingface/hub`; layout
//! `datasets--OWNER--NAME/{refs/main, snapshots/<commit>/<files>, blobs/<etag>}`). What is not
//! cached is downloaded through the Hub's HTTP API into that same layout, so a later
//! `huggingface-cli` or `datasets` user finds it too.
//!
//! Which repository files form a (config, split), in this order:
//! 1. the `configs:` list in the YAML front matter of the repository's `README.md`
//!    (`config_name`, `data_files` as a pattern, a list of patterns, or a list of
//!    `{split, path}`; or `data_dir`);
//! 2. the `datasets` `push_to_hub` layout: `CONFIG/SPLIT-*.parquet`, and `data/SPLIT-*.parquet`
//!    for the default config;
//! 3. the Hub's converted layout `CONFIG/SPLIT/*.parquet` (also `CONFIG/partial-SPLIT/`), as
//!    in the `refs/convert/parquet` revision, which is looked at when `main` has no match.
//!
//! Files are read in name order and their rows concatenated. Parquet files are recognised by
//! their `PAR1` magic; files named `*.jsonl` / `*.json` are read as JSON lines (or one JSON
//! array of objects).

use std::collections::{BTreeMap, BTreeSet};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use parquet::file::reader::FileReader;
use parquet::file::serialized_reader::SerializedFileReader;
use parquet::record::{Field, Row};
use serde::Deserialize;
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

/// The Hub's public endpoint, used when `HF_ENDPOINT` is not set.
pub const DEFAULT_ENDPOINT: &str = "https://huggingface.co";

/// Largest file downloaded by default (2 GiB).
pub const DEFAULT_MAX_FILE_BYTES: u64 = 2 << 30;

/// Default time limit for an API call and for a stall while downloading a file.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// The revision where the Hub keeps its Parquet conversion of a dataset.
const CONVERTED_REVISION: &str = "refs/convert/parquet";
const MAX_REDIRECTS: usize = 10;
/// Largest API (JSON) response accepted.
const MAX_API_BYTES: usize = 64 << 20;
/// Deepest folder nesting walked in a snapshot (guards against link loops).
const MAX_DEPTH: usize = 32;

/// One row: column name to value.
pub type JsonRow = Map<String, Value>;

/// Where the Hub cache is, how to reach the Hub, and whether to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HubOptions {
    /// The Hub cache folder (the one holding `datasets--OWNER--NAME`).
    pub cache_dir: PathBuf,
    /// Base URL of the Hub, without a trailing `/`.
    pub endpoint: String,
    /// Sent as `Authorization: Bearer` to the endpoint (not to hosts it redirects to).
    pub token: Option<String>,
    /// Never use the network: only the cache is read.
    pub offline: bool,
    /// Time limit for an API call, and for a stall (no bytes) while downloading a file.
    pub timeout: Duration,
    /// Largest file downloaded; a larger one is an error.
    pub max_file_bytes: u64,
}

impl HubOptions {
    /// Defaults with this cache folder: the public endpoint, no token, online.
    pub fn with_cache(cache_dir: impl Into<PathBuf>) -> HubOptions {
        HubOptions {
            cache_dir: cache_dir.into(),
            endpoint: DEFAULT_ENDPOINT.to_string(),
            token: None,
            offline: false,
            timeout: DEFAULT_TIMEOUT,
            max_file_bytes: DEFAULT_MAX_FILE_BYTES,
        }
    }

    /// The settings `huggingface_hub` reads from the environment:
    /// - cache: `HF_HUB_CACHE` (or the older `HUGGINGFACE_HUB_CACHE`), else `$HF_HOME/hub`, with
    ///   `HF_HOME` defaulting to `$XDG_CACHE_HOME/huggingface`, else `~/.cache/huggingface`;
    /// - endpoint: `HF_ENDPOINT`, else [`DEFAULT_ENDPOINT`];
    /// - token: `HF_TOKEN`, else `HUGGING_FACE_HUB_TOKEN`, else the file `HF_TOKEN_PATH`, else
    ///   `$HF_HOME/token`;
    /// - offline: `HF_HUB_OFFLINE` or `HF_DATASETS_OFFLINE` set to `1`, `true`, `yes` or `on`.
    pub fn from_env() -> HubOptions {
        HubOptions::from_lookup(&|k| std::env::var(k).ok())
    }

    fn from_lookup(get: &dyn Fn(&str) -> Option<String>) -> HubOptions {
        let var = |k: &str| get(k).filter(|v| !v.trim().is_empty());
        let home = var("HOME").map_or_else(|| PathBuf::from("."), PathBuf::from);
        let xdg = var("XDG_CACHE_HOME").map_or_else(|| home.join(".cache"), PathBuf::from);
        let hf_home = var("HF_HOME").map_or_else(|| xdg.join("huggingface"), PathBuf::from);
        let cache_dir = var("HF_HUB_CACHE")
            .or_else(|| var("HUGGINGFACE_HUB_CACHE"))
            .map_or_else(|| hf_home.join("hub"), PathBuf::from);
        let endpoint = var("HF_ENDPOINT")
            .map(|e| e.trim().trim_end_matches('/').to_string())
            .unwrap_or_else(|| DEFAULT_ENDPOINT.to_string());
        let token = var("HF_TOKEN")
            .or_else(|| var("HUGGING_FACE_HUB_TOKEN"))
            .map(|t| t.trim().to_string())
            .or_else(|| {
                let file =
                    var("HF_TOKEN_PATH").map_or_else(|| hf_home.join("token"), PathBuf::from);
                std::fs::read_to_string(file)
                    .ok()
                    .map(|t| t.trim().to_string())
                    .filter(|t| !t.is_empty())
            });
        let truthy = |k: &str| {
            var(k).is_some_and(|v| {
                matches!(
                    v.trim().to_ascii_lowercase().as_str(),
                    "1" | "true" | "yes" | "on"
                )
            })
        };
        HubOptions {
            cache_dir,
            endpoint,
            token,
            offline: truthy("HF_HUB_OFFLINE") || truthy("HF_DATASETS_OFFLINE"),
            timeout: DEFAULT_TIMEOUT,
            max_file_bytes: DEFAULT_MAX_FILE_BYTES,
        }
    }
}

fn list(items: &[String]) -> String {
    if items.is_empty() {
        "none".into()
    } else {
        items.join(", ")
    }
}

fn which(config: &Option<String>, split: &str) -> String {
    match config {
        Some(c) => format!("config {c}, split {split}"),
        None => format!("default config, split {split}"),
    }
}

fn access_advice(token_sent: bool) -> &'static str {
    if token_sent {
        "the token given (HF_TOKEN, HUGGING_FACE_HUB_TOKEN or $HF_HOME/token) has no access; set \
         HF_TOKEN to one that has (for a gated dataset, accept its terms on the Hub first)"
    } else {
        "set HF_TOKEN to a token that can read it (for a gated dataset, accept its terms on the \
         Hub first)"
    }
}

/// Why a Hub split could not be loaded; each message says what to do.
#[derive(Debug, thiserror::Error)]
pub enum HubError {
    /// The dataset name is not `OWNER/NAME`.
    #[error("{name:?} is not a Hub dataset name: use OWNER/NAME (letters, digits, '-', '_', '.')")]
    BadName {
        /// The name given.
        name: String,
    },
    /// Not in the cache, and the Hub was not asked (offline) or could not be reached.
    #[error(
        "dataset {dataset} ({}) is not in the Hugging Face cache {}: {reason}. Fetch it with \
         `huggingface-cli download {dataset} --repo-type dataset` (it goes to $HF_HUB_CACHE, else \
         $HF_HOME/hub), or set HF_ENDPOINT (and HF_TOKEN for a private or gated dataset) so it can \
         be downloaded",
        which(.config, .split),
        .cache.display()
    )]
    NotCached {
        /// `OWNER/NAME`.
        dataset: String,
        /// The config asked for.
        config: Option<String>,
        /// The split asked for.
        split: String,
        /// The cache folder searched.
        cache: PathBuf,
        /// Why the Hub was not used.
        reason: String,
    },
    /// The config does not exist.
    #[error("dataset {dataset} has no config {config:?} ({place}); its configs: {}", list(.available))]
    ConfigNotFound {
        /// `OWNER/NAME`.
        dataset: String,
        /// The config asked for.
        config: String,
        /// The configs that exist.
        available: Vec<String>,
        /// Where this was looked up (the cache or the endpoint).
        place: String,
    },
    /// No config was named and the dataset has several, none marked default.
    #[error(
        "dataset {dataset} has several configs and none is the default ({place}): name one of {}",
        list(.available)
    )]
    ConfigRequired {
        /// `OWNER/NAME`.
        dataset: String,
        /// The configs that exist.
        available: Vec<String>,
        /// Where this was looked up.
        place: String,
    },
    /// The config exists but not the split.
    #[error(
        "dataset {dataset} config {config} has no split {split:?} ({place}); its splits: {}",
        list(.available)
    )]
    SplitNotFound {
        /// `OWNER/NAME`.
        dataset: String,
        /// The config.
        config: String,
        /// The split asked for.
        split: String,
        /// The splits of that config.
        available: Vec<String>,
        /// Where this was looked up.
        place: String,
    },
    /// The README declares the split, but its patterns match no file of the repository.
    #[error(
        "dataset {dataset} config {config} split {split}: its data files ({}) match no file of \
         the repository ({place})",
        .patterns.join(", ")
    )]
    NoDataFiles {
        /// `OWNER/NAME`.
        dataset: String,
        /// The config.
        config: String,
        /// The split.
        split: String,
        /// The README's patterns.
        patterns: Vec<String>,
        /// Where this was looked up.
        place: String,
    },
    /// The Hub has no such dataset (HTTP 404).
    #[error(
        "no dataset {dataset} on {endpoint} (HTTP 404): check the name; a private dataset also \
         needs HF_TOKEN"
    )]
    RepoNotFound {
        /// `OWNER/NAME`.
        dataset: String,
        /// The endpoint asked.
        endpoint: String,
    },
    /// HTTP 401 or 403.
    #[error("{endpoint} refused access to dataset {dataset} (HTTP {status}): {}", access_advice(*.token_sent))]
    Unauthorized {
        /// `OWNER/NAME`.
        dataset: String,
        /// The endpoint asked.
        endpoint: String,
        /// 401 or 403.
        status: u16,
        /// Whether a token was sent.
        token_sent: bool,
    },
    /// Another HTTP error status.
    #[error("{url}: HTTP {status}: {body}")]
    Http {
        /// The URL asked.
        url: String,
        /// The status.
        status: u16,
        /// The start of the response body.
        body: String,
    },
    /// The connection failed while talking to the Hub.
    #[error("{url}: {message}")]
    Network {
        /// The URL asked.
        url: String,
        /// What failed.
        message: String,
    },
    /// The Hub's answer was not what its API promises.
    #[error("{url}: unexpected answer: {message}")]
    BadResponse {
        /// The URL asked.
        url: String,
        /// What is wrong.
        message: String,
    },
    /// A file is larger than [`HubOptions::max_file_bytes`].
    #[error(
        "{file} is larger than the download limit of {} (HubOptions::max_file_bytes)",
        size_text(*.limit)
    )]
    TooLarge {
        /// The repository file.
        file: String,
        /// The limit in bytes.
        limit: u64,
    },
    /// A downloaded file's content does not have the SHA-256 the Hub gave for it.
    #[error("{file}: downloaded content has SHA-256 {actual}, the Hub says {expected}; try again")]
    Checksum {
        /// The repository file.
        file: String,
        /// The Hub's hash.
        expected: String,
        /// The content's hash.
        actual: String,
    },
    /// A file that is not valid Parquet.
    #[error("{}: not a readable Parquet file: {message}", .path.display())]
    BadParquet {
        /// The file.
        path: PathBuf,
        /// The reader's error.
        message: String,
    },
    /// A `.jsonl` / `.json` data file that is not JSON objects.
    #[error("{}: {message}", .path.display())]
    BadJson {
        /// The file.
        path: PathBuf,
        /// What is wrong, with the line.
        message: String,
    },
    /// A data file that is neither Parquet nor JSON lines.
    #[error("{}: not a Parquet file (no PAR1 magic) nor a .jsonl/.json file", .path.display())]
    UnsupportedFile {
        /// The file.
        path: PathBuf,
    },
    /// The README's YAML front matter cannot be read.
    #[error("{}: bad YAML front matter: {message}", .path.display())]
    BadReadme {
        /// The README file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// A file system error.
    #[error("{}: {source}", .path.display())]
    Io {
        /// The path.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// The HTTP client cannot be built.
    #[error("cannot build the HTTP client: {0}")]
    Setup(String),
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> HubError + '_ {
    move |source| HubError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// `1.2 MiB`-style size text.
fn size_text(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let mut v = bytes as f64 / 1024.0;
    let mut unit = 0;
    while v >= 1024.0 && unit + 1 < UNITS.len() {
        v /= 1024.0;
        unit += 1;
    }
    format!("{v:.1} {}", UNITS[unit])
}

// ---------------------------------------------------------------------------------------------
// Reading data files

/// Whether the file starts with the Parquet magic `PAR1` (false when it cannot be read).
pub fn is_parquet(path: &Path) -> bool {
    let mut magic = [0u8; 4];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut magic))
        .is_ok()
        && &magic == b"PAR1"
}

/// Every row of a Parquet file as a JSON object, in file order.
///
/// Values: strings, booleans, integers and floats as JSON (a NaN or infinite float as `null`),
/// nulls as `null`, lists as arrays, structs as objects, maps as objects (non-string keys as
/// their JSON text). Binary values are UTF-8 text when they are valid UTF-8, else their standard
/// base64 (with padding). Decimals, dates, times and timestamps are text, as the `parquet`
/// crate prints them.
///
/// # Errors
/// [`HubError::Io`] when the file cannot be opened, [`HubError::BadParquet`] (naming the file)
/// when it is not valid Parquet, uses an unsupported codec, or makes the reader fail.
pub fn parquet_rows(path: &Path) -> Result<Vec<JsonRow>, HubError> {
    let file = std::fs::File::open(path).map_err(io_err(path))?;
    let read = move || -> Result<Vec<JsonRow>, parquet::errors::ParquetError> {
        let reader = SerializedFileReader::new(file)?;
        let mut rows = Vec::new();
        for row in reader.get_row_iter(None)? {
            rows.push(row_json(&row?));
        }
        Ok(rows)
    };
    // The reader is third-party code fed with downloaded bytes: a panic in it is a bad file.
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(read)) {
        Ok(Ok(rows)) => Ok(rows),
        Ok(Err(e)) => Err(HubError::BadParquet {
            path: path.to_path_buf(),
            message: e.to_string(),
        }),
        Err(panic) => Err(HubError::BadParquet {
            path: path.to_path_buf(),
            message: format!("the Parquet reader failed: {}", panic_text(&*panic)),
        }),
    }
}

fn panic_text(panic: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = panic.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = panic.downcast_ref::<String>() {
        s.clone()
    } else {
        "panic".into()
    }
}

fn row_json(row: &Row) -> JsonRow {
    row.get_column_iter()
        .map(|(name, field)| (name.clone(), field_json(field)))
        .collect()
}

fn float(v: f64) -> Value {
    serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number)
}

fn field_json(field: &Field) -> Value {
    use base64::Engine;
    match field {
        Field::Null => Value::Null,
        Field::Bool(b) => Value::Bool(*b),
        Field::Byte(n) => Value::from(*n),
        Field::Short(n) => Value::from(*n),
        Field::Int(n) => Value::from(*n),
        Field::Long(n) => Value::from(*n),
        Field::UByte(n) => Value::from(*n),
        Field::UShort(n) => Value::from(*n),
        Field::UInt(n) => Value::from(*n),
        Field::ULong(n) => Value::from(*n),
        Field::Float16(n) => float(f64::from(*n)),
        Field::Float(n) => float(f64::from(*n)),
        Field::Double(n) => float(*n),
        Field::Str(s) => Value::String(s.clone()),
        Field::Bytes(b) => match std::str::from_utf8(b.data()) {
            Ok(s) => Value::String(s.to_string()),
            Err(_) => Value::String(base64::engine::general_purpose::STANDARD.encode(b.data())),
        },
        Field::Decimal(_)
        | Field::Date(_)
        | Field::TimeMillis(_)
        | Field::TimeMicros(_)
        | Field::TimestampMillis(_)
        | Field::TimestampMicros(_) => Value::String(field.to_string()),
        Field::Group(row) => Value::Object(row_json(row)),
        Field::ListInternal(items) => {
            Value::Array(items.elements().iter().map(field_json).collect())
        }
        Field::MapInternal(map) => Value::Object(
            map.entries()
                .iter()
                .map(|(k, v)| {
                    let key = match field_json(k) {
                        Value::String(s) => s,
                        other => other.to_string(),
                    };
                    (key, field_json(v))
                })
                .collect(),
        ),
    }
}

/// JSON lines, or one JSON array of objects.
fn json_rows(path: &Path) -> Result<Vec<JsonRow>, HubError> {
    let text = std::fs::read_to_string(path).map_err(io_err(path))?;
    let bad = |message: String| HubError::BadJson {
        path: path.to_path_buf(),
        message,
    };
    if text.trim_start().starts_with('[') {
        let items: Vec<Value> =
            serde_json::from_str(&text).map_err(|e| bad(format!("not a JSON array: {e}")))?;
        return items
            .into_iter()
            .enumerate()
            .map(|(i, v)| match v {
                Value::Object(o) => Ok(o),
                _ => Err(bad(format!("item {} is not a JSON object", i + 1))),
            })
            .collect();
    }
    let mut rows = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<Value>(line) {
            Ok(Value::Object(o)) => rows.push(o),
            Ok(_) => return Err(bad(format!("line {}: not a JSON object", i + 1))),
            Err(e) => return Err(bad(format!("line {}: not valid JSON: {e}", i + 1))),
        }
    }
    Ok(rows)
}

fn file_rows(path: &Path) -> Result<Vec<JsonRow>, HubError> {
    if is_parquet(path) {
        return parquet_rows(path);
    }
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    if name.ends_with(".jsonl") || name.ends_with(".json") {
        json_rows(path)
    } else {
        Err(HubError::UnsupportedFile {
            path: path.to_path_buf(),
        })
    }
}

/// All rows of these files, in this order (read on a blocking thread).
async fn rows_of(paths: Vec<PathBuf>) -> Result<Vec<JsonRow>, HubError> {
    let first = paths.first().cloned().unwrap_or_default();
    tokio::task::spawn_blocking(move || {
        let mut rows = Vec::new();
        for p in &paths {
            rows.extend(file_rows(p)?);
        }
        Ok(rows)
    })
    .await
    .unwrap_or_else(|e| {
        Err(HubError::BadParquet {
            path: first,
            message: format!("reading stopped: {e}"),
        })
    })
}

// ---------------------------------------------------------------------------------------------
// Which files form a split

/// `*` (not across `/`), `**` (across `/`; `**/` also matches no folder), `?`, `[abc]`,
/// `[a-z]`, `[!x]` / `[^x]`, matched against a whole `/`-separated repository path.
fn glob_match(pattern: &str, path: &str) -> bool {
    #[derive(Debug)]
    enum Tok {
        Lit(char),
        Any,
        Star,
        DStar,
        DStarSlash,
        Class(Vec<(char, char)>, bool),
    }
    let p: Vec<char> = pattern.chars().collect();
    let mut toks = Vec::new();
    let mut i = 0;
    while i < p.len() {
        match p[i] {
            '*' if p.get(i + 1) == Some(&'*') => {
                if p.get(i + 2) == Some(&'/') {
                    toks.push(Tok::DStarSlash);
                    i += 3;
                } else {
                    toks.push(Tok::DStar);
                    i += 2;
                }
            }
            '*' => {
                toks.push(Tok::Star);
                i += 1;
            }
            '?' => {
                toks.push(Tok::Any);
                i += 1;
            }
            '[' => {
                let mut j = i + 1;
                let negated = matches!(p.get(j), Some('!' | '^'));
                if negated {
                    j += 1;
                }
                let start = j;
                let mut ranges = Vec::new();
                while j < p.len() && (p[j] != ']' || j == start) {
                    if p.get(j + 1) == Some(&'-') && p.get(j + 2).is_some_and(|c| *c != ']') {
                        ranges.push((p[j], p[j + 2]));
                        j += 3;
                    } else {
                        ranges.push((p[j], p[j]));
                        j += 1;
                    }
                }
                if j < p.len() {
                    toks.push(Tok::Class(ranges, negated));
                    i = j + 1;
                } else {
                    // No closing bracket: a literal `[`.
                    toks.push(Tok::Lit('['));
                    i += 1;
                }
            }
            c => {
                toks.push(Tok::Lit(c));
                i += 1;
            }
        }
    }
    let s: Vec<char> = path.chars().collect();
    let n = s.len();
    // m[t][j]: toks[t..] matches s[j..].
    let mut next = vec![false; n + 1];
    next[n] = true;
    for tok in toks.iter().rev() {
        let mut cur = vec![false; n + 1];
        let mut later_slash = false; // for DStarSlash: some k >= j with s[k] == '/' && next[k+1]
        for j in (0..=n).rev() {
            cur[j] = match tok {
                Tok::Lit(c) => j < n && s[j] == *c && next[j + 1],
                Tok::Any => j < n && s[j] != '/' && next[j + 1],
                Tok::Class(ranges, negated) => {
                    j < n
                        && s[j] != '/'
                        && ranges.iter().any(|(a, b)| (*a..=*b).contains(&s[j])) != *negated
                        && next[j + 1]
                }
                Tok::Star => next[j] || (j < n && s[j] != '/' && cur[j + 1]),
                Tok::DStar => next[j] || (j < n && cur[j + 1]),
                Tok::DStarSlash => {
                    if j < n && s[j] == '/' && next[j + 1] {
                        later_slash = true;
                    }
                    next[j] || later_slash
                }
            };
        }
        next = cur;
    }
    next[0]
}

/// How the README's `configs:` entry names its files.
#[derive(Debug, Clone, PartialEq)]
enum DataFiles {
    /// Split name to patterns.
    Splits(Vec<(String, Vec<String>)>),
    /// No `data_files`: the split is inferred from names under this folder (`""`: the root).
    Dir(String),
}

/// One entry of the README's `configs:` list.
#[derive(Debug, Clone, PartialEq)]
struct ConfigSpec {
    name: String,
    default: bool,
    data: DataFiles,
}

/// The YAML between a leading `---` line and the next `---` (or `...`) line.
fn front_matter(text: &str) -> Option<&str> {
    let t = text.trim_start_matches('\u{feff}');
    let mut lines = t.split_inclusive('\n');
    let first = lines.next()?;
    if first.trim_end() != "---" {
        return None;
    }
    let start = first.len();
    let mut pos = start;
    for line in lines {
        if matches!(line.trim_end(), "---" | "...") {
            return Some(&t[start..pos]);
        }
        pos += line.len();
    }
    None
}

fn clean_dir(dir: &str) -> &str {
    dir.trim().trim_start_matches("./").trim_matches('/')
}

fn clean_pattern(p: &str, dir: &str) -> String {
    let p = p.trim().trim_start_matches("./").trim_start_matches('/');
    let dir = clean_dir(dir);
    if dir.is_empty() {
        p.to_string()
    } else {
        format!("{dir}/{p}")
    }
}

fn patterns_of(v: &Value, dir: &str) -> Result<Vec<String>, String> {
    match v {
        Value::String(s) => Ok(vec![clean_pattern(s, dir)]),
        Value::Array(items) => items
            .iter()
            .map(|i| match i {
                Value::String(s) => Ok(clean_pattern(s, dir)),
                other => Err(format!("a data file pattern must be text, not {other}")),
            })
            .collect(),
        other => Err(format!(
            "`path` must be a pattern or a list of patterns, not {other}"
        )),
    }
}

fn data_files_of(v: &Value, dir: &str) -> Result<Vec<(String, Vec<String>)>, String> {
    match v {
        Value::String(_) => Ok(vec![("train".into(), patterns_of(v, dir)?)]),
        Value::Array(items) if items.iter().all(Value::is_string) => {
            Ok(vec![("train".into(), patterns_of(v, dir)?)])
        }
        Value::Array(items) => items
            .iter()
            .map(|item| {
                let split = item
                    .get("split")
                    .map(|s| match s {
                        Value::String(s) => Ok(s.clone()),
                        other => Err(format!("`split` must be text, not {other}")),
                    })
                    .transpose()?
                    .unwrap_or_else(|| "train".into());
                let path = item
                    .get("path")
                    .ok_or_else(|| format!("data_files entry {item} has no `path`"))?;
                Ok((split, patterns_of(path, dir)?))
            })
            .collect(),
        Value::Object(map) => map
            .iter()
            .map(|(split, p)| Ok((split.clone(), patterns_of(p, dir)?)))
            .collect(),
        other => Err(format!(
            "`data_files` must be a pattern, a list or a mapping, not {other}"
        )),
    }
}

/// The README's `configs:` list; `None` when it has no front matter or no `configs:`.
fn readme_configs(text: &str) -> Result<Option<Vec<ConfigSpec>>, String> {
    let Some(yaml) = front_matter(text) else {
        return Ok(None);
    };
    let doc: serde_norway::Value = serde_norway::from_str(yaml).map_err(|e| e.to_string())?;
    let Some(configs) = doc.get("configs") else {
        return Ok(None);
    };
    let configs = serde_json::to_value(configs).map_err(|e| format!("`configs`: {e}"))?;
    let items = match configs {
        Value::Null => return Ok(None),
        Value::Array(items) => items,
        other => return Err(format!("`configs` must be a list, not {other}")),
    };
    let mut specs = Vec::new();
    for item in items {
        let Value::Object(o) = item else {
            return Err(format!("a `configs` entry must be a mapping, not {item}"));
        };
        let name = match o.get("config_name") {
            None | Some(Value::Null) => "default".to_string(),
            Some(Value::String(s)) => s.clone(),
            Some(other) => return Err(format!("`config_name` must be text, not {other}")),
        };
        let dir = match o.get("data_dir") {
            None | Some(Value::Null) => String::new(),
            Some(Value::String(s)) => s.clone(),
            Some(other) => return Err(format!("`data_dir` must be text, not {other}")),
        };
        let data = match o.get("data_files") {
            None | Some(Value::Null) => DataFiles::Dir(clean_dir(&dir).to_string()),
            Some(v) => DataFiles::Splits(
                data_files_of(v, &dir).map_err(|e| format!("config {name}: {e}"))?,
            ),
        };
        let default = o.get("default").and_then(Value::as_bool).unwrap_or(false);
        specs.push(ConfigSpec {
            name,
            default,
            data,
        });
    }
    Ok(Some(specs))
}

/// The outcome of matching a (config, split) against a repository's files.
#[derive(Debug, Clone, PartialEq)]
enum Pick {
    /// The data files, sorted.
    Files(Vec<String>),
    /// Declared in the README, but no file matches.
    NoFiles {
        config: String,
        patterns: Vec<String>,
    },
    NoConfig {
        available: Vec<String>,
    },
    ConfigRequired {
        available: Vec<String>,
    },
    NoSplit {
        config: String,
        available: Vec<String>,
    },
}

fn is_data_file(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    lower.ends_with(".parquet") || lower.ends_with(".jsonl") || lower.ends_with(".json")
}

/// The split a file under a `data_dir` belongs to: its first folder, or its name up to the
/// first `-` or `.` (`train-0000.parquet`, `test.jsonl`).
fn inferred_split(rel: &str) -> Option<String> {
    let rel = rel.strip_prefix("data/").unwrap_or(rel);
    let first = match rel.split_once('/') {
        Some((dir, _)) => dir.strip_prefix("partial-").unwrap_or(dir),
        None => rel.split(['-', '.']).next().unwrap_or(rel),
    };
    (!first.is_empty() && !first.starts_with('.')).then(|| first.to_string())
}

fn pick_in_dir(files: &[String], dir: &str, config: &str, split: &str) -> Pick {
    let mut splits = BTreeSet::new();
    let mut found = Vec::new();
    for f in files.iter().filter(|f| is_data_file(f)) {
        let rel = if dir.is_empty() {
            f.as_str()
        } else {
            match f.strip_prefix(dir).and_then(|r| r.strip_prefix('/')) {
                Some(r) => r,
                None => continue,
            }
        };
        if let Some(s) = inferred_split(rel) {
            if s == split {
                found.push(f.clone());
            }
            splits.insert(s);
        }
    }
    if found.is_empty() {
        Pick::NoSplit {
            config: config.to_string(),
            available: splits.into_iter().collect(),
        }
    } else {
        found.sort();
        Pick::Files(found)
    }
}

fn pick_readme(specs: &[ConfigSpec], files: &[String], config: Option<&str>, split: &str) -> Pick {
    let names = || specs.iter().map(|s| s.name.clone()).collect::<Vec<_>>();
    let chosen = match config {
        Some(c) => specs.iter().find(|s| s.name == c),
        None => specs
            .iter()
            .find(|s| s.default)
            .or_else(|| (specs.len() == 1).then(|| &specs[0]))
            .or_else(|| specs.iter().find(|s| s.name == "default")),
    };
    let Some(spec) = chosen else {
        return match config {
            Some(_) => Pick::NoConfig { available: names() },
            None => Pick::ConfigRequired { available: names() },
        };
    };
    match &spec.data {
        DataFiles::Dir(dir) => pick_in_dir(files, dir, &spec.name, split),
        DataFiles::Splits(splits) => {
            let Some((_, patterns)) = splits.iter().find(|(s, _)| s == split) else {
                return Pick::NoSplit {
                    config: spec.name.clone(),
                    available: splits.iter().map(|(s, _)| s.clone()).collect(),
                };
            };
            let mut found: Vec<String> = files
                .iter()
                .filter(|f| patterns.iter().any(|p| glob_match(p, f)))
                .cloned()
                .collect();
            found.sort();
            found.dedup();
            if found.is_empty() {
                Pick::NoFiles {
                    config: spec.name.clone(),
                    patterns: patterns.clone(),
                }
            } else {
                Pick::Files(found)
            }
        }
    }
}

/// Configs and their splits in the `push_to_hub` (`CONFIG/SPLIT-*.parquet`,
/// `data/SPLIT-*.parquet`) and converted (`CONFIG/SPLIT/*.parquet`) layouts.
fn conventional_layout(files: &[String]) -> BTreeMap<String, BTreeSet<String>> {
    let mut layout: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for f in files.iter().filter(|f| f.ends_with(".parquet")) {
        let parts: Vec<&str> = f.split('/').collect();
        let (config, split) = match parts.as_slice() {
            [dir, name] => match name.split_once('-') {
                Some((split, _)) if !split.is_empty() => {
                    (if *dir == "data" { "default" } else { dir }, split)
                }
                _ => continue,
            },
            [dir, split, _] => (*dir, split.strip_prefix("partial-").unwrap_or(split)),
            _ => continue,
        };
        layout
            .entry(config.to_string())
            .or_default()
            .insert(split.to_string());
    }
    layout
}

fn pick_conventions(files: &[String], config: Option<&str>, split: &str) -> Pick {
    let layout = conventional_layout(files);
    let cfg = match config {
        Some(c) => c.to_string(),
        None if layout.contains_key("default") || layout.is_empty() => "default".into(),
        None if layout.len() == 1 => layout.keys().next().cloned().unwrap_or_default(),
        None => {
            return Pick::ConfigRequired {
                available: layout.keys().cloned().collect(),
            };
        }
    };
    let dir = if cfg == "default" {
        "data"
    } else {
        cfg.as_str()
    };
    let pushed: Vec<String> = files
        .iter()
        .filter(|f| {
            f.ends_with(".parquet")
                && f.split_once('/').is_some_and(|(d, name)| {
                    d == dir
                        && !name.contains('/')
                        && name.strip_prefix(split).is_some_and(|r| r.starts_with('-'))
                })
        })
        .cloned()
        .collect();
    let converted = |split_dir: &str| -> Vec<String> {
        files
            .iter()
            .filter(|f| {
                let parts: Vec<&str> = f.split('/').collect();
                f.ends_with(".parquet")
                    && parts.len() == 3
                    && parts[0] == cfg
                    && parts[1] == split_dir
            })
            .cloned()
            .collect()
    };
    let mut found = pushed;
    if found.is_empty() {
        found = converted(split);
    }
    if found.is_empty() {
        found = converted(&format!("partial-{split}"));
    }
    if !found.is_empty() {
        found.sort();
        return Pick::Files(found);
    }
    match layout.get(&cfg) {
        Some(splits) => Pick::NoSplit {
            config: cfg,
            available: splits.iter().cloned().collect(),
        },
        None => Pick::NoConfig {
            available: layout.keys().cloned().collect(),
        },
    }
}

fn pick(files: &[String], specs: Option<&[ConfigSpec]>, config: Option<&str>, split: &str) -> Pick {
    match specs {
        Some(specs) if !specs.is_empty() => pick_readme(specs, files, config, split),
        _ => pick_conventions(files, config, split),
    }
}

fn union(a: Vec<String>, b: Vec<String>) -> Vec<String> {
    a.into_iter()
        .chain(b)
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect()
}

/// Two misses (from `main` and from the converted revision) as one: the more specific wins,
/// lists of the same kind are joined.
fn merge(a: Pick, b: Pick) -> Pick {
    fn rank(p: &Pick) -> u8 {
        match p {
            Pick::Files(_) => 4,
            Pick::NoSplit { .. } => 3,
            Pick::NoFiles { .. } => 2,
            Pick::ConfigRequired { .. } => 1,
            Pick::NoConfig { .. } => 0,
        }
    }
    match (a, b) {
        (Pick::NoConfig { available: x }, Pick::NoConfig { available: y }) => Pick::NoConfig {
            available: union(x, y),
        },
        (Pick::ConfigRequired { available: x }, Pick::ConfigRequired { available: y }) => {
            Pick::ConfigRequired {
                available: union(x, y),
            }
        }
        (
            Pick::NoSplit {
                config,
                available: x,
            },
            Pick::NoSplit {
                config: c2,
                available: y,
            },
        ) if config == c2 => Pick::NoSplit {
            config,
            available: union(x, y),
        },
        (a, b) => {
            if rank(&b) > rank(&a) {
                b
            } else {
                a
            }
        }
    }
}

struct Want<'a> {
    dataset: &'a str,
    config: Option<&'a str>,
    split: &'a str,
}

impl Want<'_> {
    fn error(&self, miss: Pick, place: String) -> HubError {
        let dataset = self.dataset.to_string();
        match miss {
            Pick::NoConfig { available } => HubError::ConfigNotFound {
                dataset,
                config: self.config.unwrap_or("default").to_string(),
                available,
                place,
            },
            Pick::ConfigRequired { available } => HubError::ConfigRequired {
                dataset,
                available,
                place,
            },
            Pick::NoSplit { config, available } => HubError::SplitNotFound {
                dataset,
                config,
                split: self.split.to_string(),
                available,
                place,
            },
            Pick::NoFiles { config, patterns } => HubError::NoDataFiles {
                dataset,
                config,
                split: self.split.to_string(),
                patterns,
                place,
            },
            // Not reached: callers only pass misses.
            Pick::Files(files) => HubError::NoDataFiles {
                dataset,
                config: self.config.unwrap_or("default").to_string(),
                split: self.split.to_string(),
                patterns: files,
                place,
            },
        }
    }

    fn not_cached(&self, cache: &Path, reason: String) -> HubError {
        HubError::NotCached {
            dataset: self.dataset.to_string(),
            config: self.config.map(str::to_string),
            split: self.split.to_string(),
            cache: cache.to_path_buf(),
            reason,
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The cache

fn check_name(name: &str) -> Result<(), HubError> {
    let parts: Vec<&str> = name.split('/').collect();
    let ok = (1..=2).contains(&parts.len())
        && parts.iter().all(|p| {
            !p.is_empty()
                && p.len() <= 96
                && *p != "."
                && *p != ".."
                && p.chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        });
    if ok {
        Ok(())
    } else {
        Err(HubError::BadName { name: name.into() })
    }
}

/// A repository path from the Hub: `/`-separated, no empty, `.` or `..` part, no `\`.
fn safe_repo_path(p: &str) -> bool {
    !p.is_empty()
        && p.len() <= 1024
        && !p.contains(['\\', '\0'])
        && p.split('/').all(|c| !c.is_empty() && c != "." && c != "..")
}

/// A commit or blob name: letters, digits, `-`, `_`, `.`, not starting with `.`.
fn safe_name(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 128
        && !s.starts_with('.')
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

fn join_repo_path(base: &Path, p: &str) -> PathBuf {
    p.split('/').fold(base.to_path_buf(), |acc, c| acc.join(c))
}

/// The commit a ref file names, when it exists and is well formed.
fn read_ref(repo_dir: &Path, revision: &str) -> Option<String> {
    let text = std::fs::read_to_string(join_repo_path(&repo_dir.join("refs"), revision)).ok()?;
    let commit = text.trim();
    safe_name(commit).then(|| commit.to_string())
}

/// Every file under `dir` (links followed), as `/`-separated paths relative to it.
fn walk(dir: &Path, prefix: &str, depth: usize, out: &mut Vec<String>) {
    if depth > MAX_DEPTH {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let rel = if prefix.is_empty() {
            name
        } else {
            format!("{prefix}/{name}")
        };
        match std::fs::metadata(entry.path()) {
            Ok(m) if m.is_dir() => walk(&entry.path(), &rel, depth + 1, out),
            Ok(m) if m.is_file() => out.push(rel),
            _ => {} // a broken link: not cached
        }
    }
}

fn snapshot_configs(
    snapshot: &Path,
    files: &[String],
) -> Result<Option<Vec<ConfigSpec>>, HubError> {
    if !files.iter().any(|f| f == "README.md") {
        return Ok(None);
    }
    let path = snapshot.join("README.md");
    let text = std::fs::read_to_string(&path).map_err(io_err(&path))?;
    readme_configs(&text).map_err(|message| HubError::BadReadme { path, message })
}

/// What the cache holds for a split.
enum Cached {
    /// The split's files.
    Found(Vec<PathBuf>),
    /// The most specific miss among the cached snapshots, if any snapshot has files.
    Miss(Option<Pick>),
}

/// The split's files in the cache, or the best miss found there.
fn cached_pick(repo_dir: &Path, want: &Want<'_>) -> Result<Cached, HubError> {
    let mut snapshots: Vec<String> = ["main", CONVERTED_REVISION]
        .iter()
        .filter_map(|r| read_ref(repo_dir, r))
        .collect();
    if snapshots.is_empty() {
        // Downloaded by commit only: use the snapshot when there is exactly one.
        let dirs: Vec<String> = std::fs::read_dir(repo_dir.join("snapshots"))
            .map(|rd| {
                rd.flatten()
                    .filter(|e| e.path().is_dir())
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        if dirs.len() == 1 {
            snapshots = dirs;
        }
    }
    let mut miss: Option<Pick> = None;
    for commit in snapshots {
        let snapshot = repo_dir.join("snapshots").join(&commit);
        let mut files = Vec::new();
        walk(&snapshot, "", 0, &mut files);
        if files.is_empty() {
            continue;
        }
        let specs = snapshot_configs(&snapshot, &files)?;
        match pick(&files, specs.as_deref(), want.config, want.split) {
            Pick::Files(found) => {
                return Ok(Cached::Found(
                    found.iter().map(|f| join_repo_path(&snapshot, f)).collect(),
                ));
            }
            other => {
                miss = Some(match miss {
                    Some(m) => merge(m, other),
                    None => other,
                })
            }
        }
    }
    Ok(Cached::Miss(miss))
}

// ---------------------------------------------------------------------------------------------
// The Hub's HTTP API

#[derive(Deserialize)]
struct RevisionJson {
    sha: String,
    #[serde(default)]
    siblings: Vec<SiblingJson>,
}

#[derive(Deserialize)]
struct SiblingJson {
    rfilename: String,
    #[serde(default)]
    size: Option<u64>,
}

/// A revision's commit and files.
struct Revision {
    name: &'static str,
    sha: String,
    files: Vec<String>,
    sizes: BTreeMap<String, u64>,
}

/// Why a request did not give a response.
enum Failure {
    /// Connection, timeout or transport error.
    Net(String),
    Hub(HubError),
}

impl Failure {
    fn into_error(self, url: &str) -> HubError {
        match self {
            Failure::Net(message) => HubError::Network {
                url: url.to_string(),
                message,
            },
            Failure::Hub(e) => e,
        }
    }
}

/// A final response and the etag for the blob name, from the first hop (the Hub's own answer,
/// before a redirect to a storage host).
struct Fetched {
    resp: reqwest::Response,
    etag: Option<String>,
}

fn header(h: &reqwest::header::HeaderMap, name: &str) -> Option<String> {
    h.get(name)
        .and_then(|v| v.to_str().ok())
        .map(|v| v.trim().to_string())
        .filter(|v| !v.is_empty())
}

/// An etag as a blob name: without `W/` and quotes; `None` when it is not a safe file name.
fn etag_name(etag: &str) -> Option<String> {
    let e = etag.trim();
    let e = e.strip_prefix("W/").unwrap_or(e).trim_matches('"');
    safe_name(e).then(|| e.to_string())
}

fn encode_component(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn same_origin(a: &reqwest::Url, b: &reqwest::Url) -> bool {
    a.scheme() == b.scheme()
        && a.host_str() == b.host_str()
        && a.port_or_known_default() == b.port_or_known_default()
}

fn describe(e: &reqwest::Error) -> String {
    use std::error::Error;
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    text
}

struct Hub<'a> {
    http: reqwest::Client,
    opts: &'a HubOptions,
    dataset: &'a str,
    repo_dir: PathBuf,
}

impl<'a> Hub<'a> {
    fn new(opts: &'a HubOptions, dataset: &'a str, repo_dir: PathBuf) -> Result<Hub<'a>, HubError> {
        // reqwest is built without a bundled TLS provider; install ring's (idempotent).
        let _ = rustls::crypto::ring::default_provider().install_default();
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .connect_timeout(opts.timeout.min(Duration::from_secs(30)))
            .read_timeout(opts.timeout)
            .build()
            .map_err(|e| HubError::Setup(describe(&e)))?;
        Ok(Hub {
            http,
            opts,
            dataset,
            repo_dir,
        })
    }

    /// GET, following redirects by hand so the first hop's etag is kept and the token goes
    /// only to the endpoint's own host.
    async fn get(&self, url: &str, whole_timeout: bool) -> Result<Fetched, Failure> {
        let bad = |message: String| {
            Failure::Hub(HubError::BadResponse {
                url: url.to_string(),
                message,
            })
        };
        let origin = reqwest::Url::parse(url).map_err(|e| bad(format!("bad URL: {e}")))?;
        let mut current = origin.clone();
        let mut etag: Option<String> = None;
        let mut linked: Option<String> = None;
        for hop in 0..=MAX_REDIRECTS {
            let mut req = self.http.get(current.clone());
            if let Some(token) = &self.opts.token
                && same_origin(&current, &origin)
            {
                req = req.bearer_auth(token);
            }
            if whole_timeout {
                req = req.timeout(self.opts.timeout);
            }
            let resp = req.send().await.map_err(|e| Failure::Net(describe(&e)))?;
            let headers = resp.headers();
            if linked.is_none() {
                linked = header(headers, "x-linked-etag");
            }
            if hop == 0 {
                etag = header(headers, "etag");
            }
            if !resp.status().is_redirection() {
                return Ok(Fetched {
                    resp,
                    etag: linked.or(etag),
                });
            }
            let location = header(headers, "location")
                .ok_or_else(|| bad(format!("HTTP {} without a Location", resp.status())))?;
            current = current
                .join(&location)
                .map_err(|e| bad(format!("bad redirect {location:?}: {e}")))?;
        }
        Err(bad(format!("more than {MAX_REDIRECTS} redirects")))
    }

    /// The response when its status is a success, else the matching error.
    async fn ok(&self, url: &str, resp: reqwest::Response) -> Result<reqwest::Response, HubError> {
        let status = resp.status().as_u16();
        if resp.status().is_success() {
            return Ok(resp);
        }
        if status == 401 || status == 403 {
            return Err(HubError::Unauthorized {
                dataset: self.dataset.to_string(),
                endpoint: self.opts.endpoint.clone(),
                status,
                token_sent: self.opts.token.is_some(),
            });
        }
        let body = read_capped(resp, 4096).await.unwrap_or_default();
        let body: String = String::from_utf8_lossy(&body).chars().take(500).collect();
        Err(HubError::Http {
            url: url.to_string(),
            status,
            body,
        })
    }

    /// A revision's commit and files; `Ok(None)` when the Hub has no such revision (404).
    async fn revision(&self, name: &'static str) -> Result<Option<Revision>, Failure> {
        let url = format!(
            "{}/api/datasets/{}/revision/{}",
            self.opts.endpoint,
            self.dataset,
            encode_component(name)
        );
        let fetched = self.get(&url, true).await?;
        let resp = match self.ok(&url, fetched.resp).await {
            Ok(r) => r,
            Err(HubError::Http { status: 404, .. }) => return Ok(None),
            Err(e) => return Err(Failure::Hub(e)),
        };
        let bad = |message: String| {
            Failure::Hub(HubError::BadResponse {
                url: url.clone(),
                message,
            })
        };
        let body = read_capped(resp, MAX_API_BYTES)
            .await
            .map_err(|e| bad(format!("reading the answer: {e}")))?;
        let info: RevisionJson = serde_json::from_slice(&body)
            .map_err(|e| bad(format!("not the revision JSON: {e}")))?;
        if !safe_name(&info.sha) {
            return Err(bad(format!("bad commit {:?}", info.sha)));
        }
        let mut files = Vec::new();
        let mut sizes = BTreeMap::new();
        for s in info.siblings {
            if !safe_repo_path(&s.rfilename) {
                return Err(bad(format!("bad file name {:?}", s.rfilename)));
            }
            if let Some(size) = s.size {
                sizes.insert(s.rfilename.clone(), size);
            }
            files.push(s.rfilename);
        }
        Ok(Some(Revision {
            name,
            sha: info.sha,
            files,
            sizes,
        }))
    }

    /// Put one repository file into the cache (blob, then snapshot link) unless it is there;
    /// its snapshot path.
    async fn fetch(
        &self,
        rev: &Revision,
        file: &str,
        progress: &dyn Fn(&str),
    ) -> Result<PathBuf, HubError> {
        let snapshot = self.repo_dir.join("snapshots").join(&rev.sha);
        let dest = join_repo_path(&snapshot, file);
        if dest.is_file() {
            return Ok(dest);
        }
        let path_part: Vec<String> = file.split('/').map(encode_component).collect();
        let url = format!(
            "{}/datasets/{}/resolve/{}/{}",
            self.opts.endpoint,
            self.dataset,
            rev.sha,
            path_part.join("/")
        );
        let fetched = self
            .get(&url, false)
            .await
            .map_err(|f| f.into_error(&url))?;
        let mut resp = self.ok(&url, fetched.resp).await?;
        let limit = self.opts.max_file_bytes;
        let too_large = || HubError::TooLarge {
            file: file.to_string(),
            limit,
        };
        let length = resp.content_length();
        if length.is_some_and(|n| n > limit) {
            return Err(too_large());
        }
        progress(&match length.or_else(|| rev.sizes.get(file).copied()) {
            Some(n) => format!("downloading {} {file} ({})", self.dataset, size_text(n)),
            None => format!("downloading {} {file}", self.dataset),
        });
        let blobs = self.repo_dir.join("blobs");
        std::fs::create_dir_all(&blobs).map_err(io_err(&blobs))?;
        let mut tmp = tempfile::Builder::new()
            .prefix(".download-")
            .suffix(".incomplete")
            .tempfile_in(&blobs)
            .map_err(io_err(&blobs))?;
        let mut hasher = Sha256::new();
        let mut written = 0u64;
        loop {
            let chunk = resp.chunk().await.map_err(|e| HubError::Network {
                url: url.clone(),
                message: describe(&e),
            })?;
            let Some(chunk) = chunk else { break };
            written += chunk.len() as u64;
            if written > limit {
                return Err(too_large());
            }
            hasher.update(&chunk);
            tmp.write_all(&chunk).map_err(io_err(tmp.path()))?;
        }
        if length.is_some_and(|n| n != written) {
            return Err(HubError::Network {
                url,
                message: format!("the connection ended after {written} of {length:?} bytes"),
            });
        }
        let digest = hex::encode(hasher.finalize());
        let blob_name = fetched
            .etag
            .as_deref()
            .and_then(etag_name)
            .unwrap_or_else(|| digest.clone());
        if blob_name.len() == 64
            && blob_name.chars().all(|c| c.is_ascii_hexdigit())
            && !blob_name.eq_ignore_ascii_case(&digest)
        {
            return Err(HubError::Checksum {
                file: file.to_string(),
                expected: blob_name,
                actual: digest,
            });
        }
        tmp.as_file().sync_all().map_err(io_err(tmp.path()))?;
        let blob = blobs.join(&blob_name);
        tmp.persist(&blob).map_err(|e| HubError::Io {
            path: blob.clone(),
            source: e.error,
        })?;
        link(&blob, &dest, &blob_name, file)?;
        Ok(dest)
    }

    /// Fetch these files of a revision and record the revision's commit (`refs/NAME`).
    async fn fetch_all(
        &self,
        rev: &Revision,
        files: &[String],
        progress: &dyn Fn(&str),
    ) -> Result<Vec<PathBuf>, HubError> {
        let mut paths = Vec::new();
        for f in files {
            paths.push(self.fetch(rev, f, progress).await?);
        }
        self.write_ref(rev)?;
        Ok(paths)
    }

    fn write_ref(&self, rev: &Revision) -> Result<(), HubError> {
        let path = join_repo_path(&self.repo_dir.join("refs"), rev.name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(io_err(parent))?;
        }
        crate::fsutil::write_atomic(&path, rev.sha.as_bytes()).map_err(io_err(&path))
    }

    /// The README's configs at this revision (fetching the README), if it has one.
    async fn configs(
        &self,
        rev: &Revision,
        progress: &dyn Fn(&str),
    ) -> Result<Option<Vec<ConfigSpec>>, HubError> {
        if !rev.files.iter().any(|f| f == "README.md") {
            return Ok(None);
        }
        let path = self.fetch(rev, "README.md", progress).await?;
        self.write_ref(rev)?;
        let text = std::fs::read_to_string(&path).map_err(io_err(&path))?;
        readme_configs(&text).map_err(|message| HubError::BadReadme { path, message })
    }
}

/// The snapshot entry `dest` for repository file `file`: a relative link to the blob (a copy
/// where there are no links), replaced atomically.
fn link(blob: &Path, dest: &Path, blob_name: &str, file: &str) -> Result<(), HubError> {
    let parent = dest.parent().unwrap_or(dest);
    std::fs::create_dir_all(parent).map_err(io_err(parent))?;
    let name = dest
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = parent.join(format!(".{name}.{}.link", std::process::id()));
    let _ = std::fs::remove_file(&tmp);
    #[cfg(unix)]
    {
        // snapshots/<commit>/<file>: one `..` per folder of `file`, plus two.
        let target = format!(
            "{}blobs/{blob_name}",
            "../".repeat(file.split('/').count() + 1)
        );
        let _ = blob;
        std::os::unix::fs::symlink(&target, &tmp).map_err(io_err(&tmp))?;
    }
    #[cfg(not(unix))]
    {
        let _ = (blob_name, file);
        std::fs::copy(blob, &tmp).map_err(io_err(&tmp))?;
    }
    std::fs::rename(&tmp, dest).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        HubError::Io {
            path: dest.to_path_buf(),
            source: e,
        }
    })
}

async fn read_capped(mut resp: reqwest::Response, cap: usize) -> Result<Vec<u8>, String> {
    let mut bytes = Vec::new();
    while let Some(chunk) = resp.chunk().await.map_err(|e| describe(&e))? {
        if bytes.len() + chunk.len() > cap {
            return Err(format!("answer larger than {cap} bytes"));
        }
        bytes.extend_from_slice(&chunk);
    }
    Ok(bytes)
}

/// The rows of one split of a Hub dataset, as `datasets.load_dataset(name, config,
/// split=split)` gives them: read from the local Hub cache, else downloaded into it (unless
/// `opts.offline`), with one `progress` line per file downloaded (e.g. `downloading
/// OWNER/NAME math/test-00000-of-00001.parquet (1.2 MiB)`).
///
/// `config: None` means the README's default config (or its only one), else `default`. A
/// cached split is read without any request. Otherwise the Hub's `main` revision is listed,
/// its README (if any) fetched, the split's files fetched; when `main` has no match the Hub's
/// `refs/convert/parquet` revision is tried. Async; file reading runs on a blocking thread.
///
/// # Errors
/// [`HubError`]: [`HubError::NotCached`] when offline or the Hub cannot be reached (with the
/// command that fetches the dataset), [`HubError::ConfigNotFound`] /
/// [`HubError::SplitNotFound`] listing what exists, [`HubError::Unauthorized`] advising
/// `HF_TOKEN`, [`HubError::BadParquet`] naming the file, and the others.
pub async fn load_split(
    name: &str,
    config: Option<&str>,
    split: &str,
    opts: &HubOptions,
    progress: &dyn Fn(&str),
) -> Result<Vec<JsonRow>, HubError> {
    check_name(name)?;
    let repo_dir = opts
        .cache_dir
        .join(format!("datasets--{}", name.replace('/', "--")));
    let want = Want {
        dataset: name,
        config,
        split,
    };
    let miss = match cached_pick(&repo_dir, &want)? {
        Cached::Found(paths) => return rows_of(paths).await,
        Cached::Miss(miss) => miss,
    };
    if opts.offline {
        let place = format!(
            "HF_HUB_OFFLINE is set, so only the cache {} was searched",
            repo_dir.display()
        );
        return Err(match miss {
            Some(
                m @ (Pick::NoConfig { .. } | Pick::NoSplit { .. } | Pick::ConfigRequired { .. }),
            ) => want.error(m, place),
            _ => want.not_cached(&repo_dir, "HF_HUB_OFFLINE is set".into()),
        });
    }
    let hub = Hub::new(opts, name, repo_dir.clone())?;
    let main_url = format!("{}/api/datasets/{name}/revision/main", opts.endpoint);
    let main = match hub.revision("main").await {
        Ok(Some(rev)) => rev,
        Ok(None) => {
            return Err(HubError::RepoNotFound {
                dataset: name.to_string(),
                endpoint: opts.endpoint.clone(),
            });
        }
        Err(Failure::Net(message)) => {
            return Err(want.not_cached(
                &repo_dir,
                format!("the Hub at {} cannot be reached ({message})", opts.endpoint),
            ));
        }
        Err(f) => return Err(f.into_error(&main_url)),
    };
    let specs = hub.configs(&main, progress).await?;
    let main_miss = match pick(&main.files, specs.as_deref(), config, split) {
        Pick::Files(files) => {
            let paths = hub.fetch_all(&main, &files, progress).await?;
            return rows_of(paths).await;
        }
        other => other,
    };
    let place = format!("on {}", opts.endpoint);
    let conv_url = format!(
        "{}/api/datasets/{name}/revision/{}",
        opts.endpoint,
        encode_component(CONVERTED_REVISION)
    );
    let Some(converted) = hub
        .revision(CONVERTED_REVISION)
        .await
        .map_err(|f| f.into_error(&conv_url))?
    else {
        return Err(want.error(main_miss, place));
    };
    match pick(&converted.files, None, config, split) {
        Pick::Files(files) => {
            let paths = hub.fetch_all(&converted, &files, progress).await?;
            rows_of(paths).await
        }
        other => Err(want.error(merge(main_miss, other), place)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn glob_star_stays_in_a_folder_and_double_star_crosses() {
        assert!(glob_match(
            "math/test-*",
            "math/test-00000-of-00001.parquet"
        ));
        assert!(!glob_match(
            "math/test-*",
            "math/train-00000-of-00001.parquet"
        ));
        assert!(!glob_match("math/*", "math/sub/test.parquet"));
        assert!(!glob_match("*.parquet", "math/test.parquet"));
        assert!(glob_match("**.parquet", "math/test.parquet"));
        assert!(glob_match("data/**/x.parquet", "data/x.parquet"));
        assert!(glob_match("data/**/x.parquet", "data/a/b/x.parquet"));
        assert!(!glob_match("data/**/x.parquet", "datax.parquet"));
        assert!(glob_match("data/**", "data/a/b.jsonl"));
        assert!(glob_match("t?st.json", "test.json"));
        assert!(!glob_match("t?st.json", "t/st.json"));
        assert!(glob_match("part-[0-9].parquet", "part-7.parquet"));
        assert!(!glob_match("part-[0-9].parquet", "part-x.parquet"));
        assert!(glob_match("part-[!0-9].parquet", "part-x.parquet"));
        assert!(glob_match("a[b", "a[b"));
        assert!(!glob_match("test", "test-0.parquet"));
        assert!(glob_match("", ""));
    }

    const README: &str = "---\nlicense: mit\ndataset_info:\n  features:\n  - name: id\n    dtype: string\nconfigs:\n- config_name: math\n  data_files:\n  - split: test\n    path: math/test-*\n  - split: train\n    path:\n    - math/train-a.parquet\n    - ./math/train-b.parquet\n- config_name: physics\n  default: true\n  data_files: physics/*.jsonl\n- config_name: chem\n  data_dir: chem\n---\n# Title\n\n---\nnot front matter\n";

    #[test]
    fn readme_front_matter_gives_configs_in_every_data_files_form() {
        let specs = readme_configs(README).unwrap().unwrap();
        assert_eq!(
            specs,
            vec![
                ConfigSpec {
                    name: "math".into(),
                    default: false,
                    data: DataFiles::Splits(vec![
                        ("test".into(), files(&["math/test-*"])),
                        (
                            "train".into(),
                            files(&["math/train-a.parquet", "math/train-b.parquet"])
                        ),
                    ]),
                },
                ConfigSpec {
                    name: "physics".into(),
                    default: true,
                    data: DataFiles::Splits(vec![("train".into(), files(&["physics/*.jsonl"]))]),
                },
                ConfigSpec {
                    name: "chem".into(),
                    default: false,
                    data: DataFiles::Dir("chem".into()),
                },
            ]
        );
        assert_eq!(readme_configs("# no front matter\n").unwrap(), None);
        assert_eq!(readme_configs("---\nlicense: mit\n---\n").unwrap(), None);
        let mapping = "---\nconfigs:\n- config_name: x\n  data_files:\n    test: x/t.parquet\n    dev: [x/d1.parquet, x/d2.parquet]\n---\n";
        let specs = readme_configs(mapping).unwrap().unwrap();
        assert_eq!(
            specs[0].data,
            // In the order the README writes them.
            DataFiles::Splits(vec![
                ("test".into(), files(&["x/t.parquet"])),
                ("dev".into(), files(&["x/d1.parquet", "x/d2.parquet"])),
            ])
        );
        assert!(readme_configs("---\nconfigs: 3\n---\n").is_err());
        assert!(readme_configs("---\nconfigs:\n- config_name: [1]\n---\n").is_err());
        assert!(readme_configs("---\nconfigs: [\n---\n").is_err());
        assert!(readme_configs("---\nconfigs:\n- data_files:\n  - split: a\n---\n").is_err());
    }

    #[test]
    fn readme_configs_pick_files_splits_and_defaults() {
        let specs = readme_configs(README).unwrap().unwrap();
        let repo = files(&[
            "README.md",
            "math/test-00001-of-00002.parquet",
            "math/test-00000-of-00002.parquet",
            "math/train-a.parquet",
            "physics/b.jsonl",
            "physics/a.jsonl",
            "chem/test-0.parquet",
            "chem/dev/x.parquet",
        ]);
        let p = |c: Option<&str>, s: &str| pick(&repo, Some(&specs), c, s);
        assert_eq!(
            p(Some("math"), "test"),
            Pick::Files(files(&[
                "math/test-00000-of-00002.parquet",
                "math/test-00001-of-00002.parquet"
            ]))
        );
        assert_eq!(
            p(Some("math"), "train"),
            Pick::Files(files(&["math/train-a.parquet"]))
        );
        assert_eq!(
            p(None, "train"),
            Pick::Files(files(&["physics/a.jsonl", "physics/b.jsonl"]))
        );
        assert_eq!(
            p(Some("math"), "dev"),
            Pick::NoSplit {
                config: "math".into(),
                available: files(&["test", "train"])
            }
        );
        assert_eq!(
            p(Some("bio"), "test"),
            Pick::NoConfig {
                available: files(&["math", "physics", "chem"])
            }
        );
        assert_eq!(
            p(Some("chem"), "dev"),
            Pick::Files(files(&["chem/dev/x.parquet"]))
        );
        assert_eq!(
            p(Some("chem"), "test"),
            Pick::Files(files(&["chem/test-0.parquet"]))
        );
        let only_readme = files(&["README.md"]);
        assert_eq!(
            pick(&only_readme, Some(&specs), Some("math"), "test"),
            Pick::NoFiles {
                config: "math".into(),
                patterns: files(&["math/test-*"])
            }
        );
        let no_default = &specs[..1]
            .iter()
            .chain(&specs[2..])
            .cloned()
            .collect::<Vec<_>>();
        assert_eq!(
            pick(&repo, Some(no_default), None, "test"),
            Pick::ConfigRequired {
                available: files(&["math", "chem"])
            }
        );
    }

    #[test]
    fn conventions_push_to_hub_and_converted() {
        let repo = files(&[
            "README.md",
            "math/test-00000-of-00001.parquet",
            "math/train-00000-of-00001.parquet",
            "data/test-00000-of-00001.parquet",
            "physics/test/0001.parquet",
            "physics/test/0000.parquet",
            "big/partial-train/0000.parquet",
            "notes/readme.txt",
        ]);
        let p = |c: Option<&str>, s: &str| pick(&repo, None, c, s);
        assert_eq!(
            p(Some("math"), "test"),
            Pick::Files(files(&["math/test-00000-of-00001.parquet"]))
        );
        assert_eq!(
            p(None, "test"),
            Pick::Files(files(&["data/test-00000-of-00001.parquet"]))
        );
        assert_eq!(
            p(Some("default"), "test"),
            Pick::Files(files(&["data/test-00000-of-00001.parquet"]))
        );
        assert_eq!(
            p(Some("physics"), "test"),
            Pick::Files(files(&[
                "physics/test/0000.parquet",
                "physics/test/0001.parquet"
            ]))
        );
        assert_eq!(
            p(Some("big"), "train"),
            Pick::Files(files(&["big/partial-train/0000.parquet"]))
        );
        assert_eq!(
            p(Some("math"), "validation"),
            Pick::NoSplit {
                config: "math".into(),
                available: files(&["test", "train"])
            }
        );
        assert_eq!(
            p(Some("chem"), "test"),
            Pick::NoConfig {
                available: files(&["big", "default", "math", "physics"])
            }
        );
        // A config named like a split prefix is not confused with another split.
        let tricky = files(&["math/testing-0.parquet"]);
        assert_eq!(
            pick(&tricky, None, Some("math"), "test"),
            Pick::NoSplit {
                config: "math".into(),
                available: files(&["testing"])
            }
        );
        // Without a default config and several configs, a name is required.
        let two = files(&["a/test-0.parquet", "b/test-0.parquet"]);
        assert_eq!(
            pick(&two, None, None, "test"),
            Pick::ConfigRequired {
                available: files(&["a", "b"])
            }
        );
        let one = files(&["a/test-0.parquet"]);
        assert_eq!(
            pick(&one, None, None, "test"),
            Pick::Files(files(&["a/test-0.parquet"]))
        );
    }

    #[test]
    fn misses_merge_to_the_most_specific() {
        let a = Pick::NoConfig {
            available: files(&["x", "y"]),
        };
        let b = Pick::NoConfig {
            available: files(&["y", "z"]),
        };
        assert_eq!(
            merge(a.clone(), b),
            Pick::NoConfig {
                available: files(&["x", "y", "z"])
            }
        );
        let split = Pick::NoSplit {
            config: "x".into(),
            available: files(&["train"]),
        };
        assert_eq!(merge(a, split.clone()), split);
    }

    #[test]
    fn options_from_the_environment() {
        let home = tempfile::tempdir().unwrap();
        let hf_home = home.path().join("hf");
        std::fs::create_dir_all(&hf_home).unwrap();
        std::fs::write(hf_home.join("token"), "hf_file_token\n").unwrap();
        let vars = |pairs: Vec<(&'static str, String)>| {
            move |k: &str| pairs.iter().find(|(n, _)| *n == k).map(|(_, v)| v.clone())
        };
        let home_s = home.path().to_string_lossy().into_owned();
        let o = HubOptions::from_lookup(&vars(vec![("HOME", home_s.clone())]));
        assert_eq!(o.cache_dir, home.path().join(".cache/huggingface/hub"));
        assert_eq!(o.endpoint, DEFAULT_ENDPOINT);
        assert_eq!(o.token, None);
        assert!(!o.offline);
        let o = HubOptions::from_lookup(&vars(vec![
            ("HOME", home_s.clone()),
            ("HF_HOME", hf_home.to_string_lossy().into_owned()),
            ("HF_ENDPOINT", "http://127.0.0.1:9/".into()),
            ("HF_HUB_OFFLINE", "1".into()),
        ]));
        assert_eq!(o.cache_dir, hf_home.join("hub"));
        assert_eq!(o.endpoint, "http://127.0.0.1:9");
        assert_eq!(o.token.as_deref(), Some("hf_file_token"));
        assert!(o.offline);
        let o = HubOptions::from_lookup(&vars(vec![
            ("HF_HOME", hf_home.to_string_lossy().into_owned()),
            ("HF_HUB_CACHE", "/c".into()),
            ("HUGGING_FACE_HUB_TOKEN", "old".into()),
            ("HF_HUB_OFFLINE", "0".into()),
        ]));
        assert_eq!(o.cache_dir, PathBuf::from("/c"));
        assert_eq!(o.token.as_deref(), Some("old"));
        assert!(!o.offline);
        let o = HubOptions::from_lookup(&vars(vec![
            ("HF_TOKEN", "new".into()),
            ("HUGGING_FACE_HUB_TOKEN", "old".into()),
            ("XDG_CACHE_HOME", "/x".into()),
            ("HF_DATASETS_OFFLINE", "TRUE".into()),
        ]));
        assert_eq!(o.token.as_deref(), Some("new"));
        assert_eq!(o.cache_dir, PathBuf::from("/x/huggingface/hub"));
        assert!(o.offline);
    }

    #[test]
    fn names_paths_and_etags_are_checked() {
        assert!(check_name("daixuancheng/llm-in-sandbox-bench").is_ok());
        assert!(check_name("squad").is_ok());
        for bad in ["", "a/b/c", "../x", "a/..", "a b/c", "a/", "/a"] {
            assert!(check_name(bad).is_err(), "{bad:?}");
        }
        assert!(safe_repo_path("math/test-0.parquet"));
        for bad in ["", "../x", "a//b", "a/./b", "/abs", "a\\b"] {
            assert!(!safe_repo_path(bad), "{bad:?}");
        }
        assert_eq!(etag_name("\"abc123\"").as_deref(), Some("abc123"));
        assert_eq!(etag_name("W/\"abc-1\"").as_deref(), Some("abc-1"));
        assert_eq!(etag_name("\"../x\""), None);
        assert_eq!(etag_name("\"\""), None);
        assert_eq!(
            encode_component("refs/convert/parquet"),
            "refs%2Fconvert%2Fparquet"
        );
        assert_eq!(encode_component("a b.parquet"), "a%20b.parquet");
        assert_eq!(size_text(512), "512 B");
        assert_eq!(size_text(1258291), "1.2 MiB");
        assert_eq!(size_text(3 << 30), "3.0 GiB");
    }

    /// Nested columns and binary values: a list, a struct, a map-free schema written with the
    /// low-level writer, read back as JSON.
    #[test]
    fn parquet_values_nested_and_binary() {
        use parquet::data_type::{ByteArray, ByteArrayType, DoubleType, Int32Type};
        use parquet::file::properties::WriterProperties;
        use parquet::file::writer::SerializedFileWriter;
        use parquet::schema::parser::parse_message_type;
        use std::sync::Arc;

        let schema = Arc::new(
            parse_message_type(
                "message m {
                    REQUIRED BINARY blob;
                    OPTIONAL group tags (LIST) { REPEATED group list { OPTIONAL BINARY element (UTF8); } }
                    REQUIRED group meta { REQUIRED INT32 n; OPTIONAL DOUBLE x; }
                }",
            )
            .unwrap(),
        );
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("n.parquet");
        let props = Arc::new(WriterProperties::builder().build());
        let mut w = SerializedFileWriter::new(std::fs::File::create(&path).unwrap(), schema, props)
            .unwrap();
        let mut rg = w.next_row_group().unwrap();
        // blob: valid UTF-8, then not.
        let mut c = rg.next_column().unwrap().unwrap();
        c.typed::<ByteArrayType>()
            .write_batch(
                &[
                    ByteArray::from("text"),
                    ByteArray::from(vec![0xffu8, 0x00, 0x01]),
                ],
                None,
                None,
            )
            .unwrap();
        c.close().unwrap();
        // tags: ["a", null] then null.
        let mut c = rg.next_column().unwrap().unwrap();
        c.typed::<ByteArrayType>()
            .write_batch(&[ByteArray::from("a")], Some(&[3, 2, 0]), Some(&[0, 1, 0]))
            .unwrap();
        c.close().unwrap();
        let mut c = rg.next_column().unwrap().unwrap();
        c.typed::<Int32Type>()
            .write_batch(&[1, 2], None, None)
            .unwrap();
        c.close().unwrap();
        let mut c = rg.next_column().unwrap().unwrap();
        c.typed::<DoubleType>()
            .write_batch(&[0.5], Some(&[1, 0]), None)
            .unwrap();
        c.close().unwrap();
        rg.close().unwrap();
        w.close().unwrap();

        assert!(is_parquet(&path));
        let rows = parquet_rows(&path).unwrap();
        let rows: Vec<Value> = rows.into_iter().map(Value::Object).collect();
        assert_eq!(
            rows,
            vec![
                serde_json::json!({"blob": "text", "tags": ["a", null], "meta": {"n": 1, "x": 0.5}}),
                serde_json::json!({"blob": "/wAB", "tags": null, "meta": {"n": 2, "x": null}}),
            ]
        );
    }

    #[test]
    fn bad_files_are_errors_naming_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("bad.parquet");
        std::fs::write(&p, b"PAR1 this is not parquet PAR1").unwrap();
        let e = parquet_rows(&p).unwrap_err();
        assert!(matches!(e, HubError::BadParquet { .. }), "{e:?}");
        assert!(e.to_string().contains("bad.parquet"), "{e}");
        assert!(!is_parquet(&dir.path().join("missing")));

        let j = dir.path().join("rows.jsonl");
        std::fs::write(&j, "{\"a\": 1}\n\n{\"a\": 2}\n").unwrap();
        let rows = file_rows(&j).unwrap();
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[1]["a"], 2);
        std::fs::write(&j, "{\"a\": 1}\n[1]\n").unwrap();
        let e = file_rows(&j).unwrap_err();
        assert!(e.to_string().contains("line 2"), "{e}");
        let arr = dir.path().join("rows.json");
        std::fs::write(&arr, "[{\"a\": 1}, {\"a\": 2}]").unwrap();
        assert_eq!(file_rows(&arr).unwrap().len(), 2);
        let txt = dir.path().join("rows.csv");
        std::fs::write(&txt, "a,b\n").unwrap();
        assert!(matches!(
            file_rows(&txt),
            Err(HubError::UnsupportedFile { .. })
        ));
    }
}
