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

mod download;
#[cfg(test)]
mod fuzz;
mod glob;
mod layout;
mod rows;

pub use rows::{is_parquet, parquet_rows};

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Map, Value};

use download::{Cached, Failure, Hub, cached_pick, check_name, encode_component};
use layout::{Pick, merge, pick};
use rows::rows_of;

/// The Hub's public endpoint, used when `HF_ENDPOINT` is not set.
pub const DEFAULT_ENDPOINT: &str = "https://huggingface.co";

/// Largest file downloaded by default (2 GiB).
pub const DEFAULT_MAX_FILE_BYTES: u64 = 2 << 30;

/// Default time limit for an API call and for a stall while downloading a file.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// The revision where the Hub keeps its Parquet conversion of a dataset.
const CONVERTED_REVISION: &str = "refs/convert/parquet";

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

/// `1.2 MiB`-style size text (ours rather than `bytesize`/`humansize`: one line of output).
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
    fn sizes_are_in_binary_units() {
        assert_eq!(size_text(512), "512 B");
        assert_eq!(size_text(1258291), "1.2 MiB");
        assert_eq!(size_text(3 << 30), "3.0 GiB");
    }
}
