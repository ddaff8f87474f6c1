//! The local Hub cache (`datasets--OWNER--NAME/{refs, snapshots, blobs}`) and the Hub's HTTP
//! API: a revision's files, a file downloaded into a blob and linked into its snapshot.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use serde::Deserialize;
use sha2::{Digest, Sha256};

use super::layout::{ConfigSpec, Pick, merge, pick, readme_configs};
use super::{CONVERTED_REVISION, HubError, HubOptions, Want, io_err, size_text};

const MAX_REDIRECTS: usize = 10;
/// Largest API (JSON) response accepted.
const MAX_API_BYTES: usize = 64 << 20;
/// Deepest folder nesting walked in a snapshot (guards against link loops).
const MAX_DEPTH: usize = 32;

pub(super) fn check_name(name: &str) -> Result<(), HubError> {
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
pub(super) enum Cached {
    /// The split's files.
    Found(Vec<PathBuf>),
    /// The most specific miss among the cached snapshots, if any snapshot has files.
    Miss(Option<Pick>),
}

/// The split's files in the cache, or the best miss found there.
pub(super) fn cached_pick(repo_dir: &Path, want: &Want<'_>) -> Result<Cached, HubError> {
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
pub(super) struct Revision {
    name: &'static str,
    sha: String,
    /// The repository's files at this revision.
    pub(super) files: Vec<String>,
    sizes: BTreeMap<String, u64>,
}

/// Why a request did not give a response.
pub(super) enum Failure {
    /// Connection, timeout or transport error.
    Net(String),
    Hub(HubError),
}

impl Failure {
    pub(super) fn into_error(self, url: &str) -> HubError {
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

/// Everything but the unreserved characters of RFC 3986 (`A-Z a-z 0-9 - _ . ~`).
const COMPONENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'~');

/// `s` as one percent-encoded path component of a Hub URL (a `/` in it is encoded too).
pub(super) fn encode_component(s: &str) -> String {
    utf8_percent_encode(s, COMPONENT).to_string()
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

pub(super) struct Hub<'a> {
    http: reqwest::Client,
    opts: &'a HubOptions,
    dataset: &'a str,
    repo_dir: PathBuf,
}

impl<'a> Hub<'a> {
    pub(super) fn new(
        opts: &'a HubOptions,
        dataset: &'a str,
        repo_dir: PathBuf,
    ) -> Result<Hub<'a>, HubError> {
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
    pub(super) async fn revision(&self, name: &'static str) -> Result<Option<Revision>, Failure> {
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
        let resp = self.ok(&url, fetched.resp).await?;
        let (tmp, digest) = self.download(rev, file, &url, resp, progress).await?;
        let blob_name = checked_blob_name(fetched.etag.as_deref(), digest, file)?;
        tmp.as_file().sync_all().map_err(io_err(tmp.path()))?;
        let blob = self.repo_dir.join("blobs").join(&blob_name);
        tmp.persist(&blob).map_err(|e| HubError::Io {
            path: blob.clone(),
            source: e.error,
        })?;
        link(&blob, &dest, &blob_name, file)?;
        Ok(dest)
    }

    /// Stream the response body into a temporary file in `blobs/`, within the size limit and
    /// to the announced length; the file and the content's SHA-256 (hex).
    async fn download(
        &self,
        rev: &Revision,
        file: &str,
        url: &str,
        mut resp: reqwest::Response,
        progress: &dyn Fn(&str),
    ) -> Result<(tempfile::NamedTempFile, String), HubError> {
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
                url: url.to_string(),
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
                url: url.to_string(),
                message: format!("the connection ended after {written} of {length:?} bytes"),
            });
        }
        Ok((tmp, hex::encode(hasher.finalize())))
    }

    /// Fetch these files of a revision and record the revision's commit (`refs/NAME`).
    pub(super) async fn fetch_all(
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
    pub(super) async fn configs(
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

/// The blob's name: the file's etag (the Hub's SHA-256 for LFS files), else the content's
/// SHA-256. An etag that is a SHA-256 must be the content's.
fn checked_blob_name(etag: Option<&str>, digest: String, file: &str) -> Result<String, HubError> {
    let blob_name = etag.and_then(etag_name).unwrap_or_else(|| digest.clone());
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
    Ok(blob_name)
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

#[cfg(test)]
mod tests {
    use super::*;

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
        // Unreserved characters stay, every other byte (UTF-8 included) is `%XX` in capitals.
        assert_eq!(encode_component("Az09-_.~"), "Az09-_.~");
        assert_eq!(encode_component("é+?#%"), "%C3%A9%2B%3F%23%25");
    }
}
