//! `eval::hub`: Hub dataset splits from a Hub cache laid out here, and downloaded from a local
//! stand-in for the Hub's HTTP API into that cache layout.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use llm_in_sandbox::eval::hub::{HubError, HubOptions, load_split, parquet_rows};
use parquet::basic::{Compression, GzipLevel, ZstdLevel};
use parquet::data_type::{ByteArray, ByteArrayType, Int64Type};
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::parser::parse_message_type;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// One task row as the reference datasets have them.
pub(crate) struct Task {
    id: Value,
    domain: &'static str,
    problem: String,
    truth: String,
    files: String,
    hint: Option<String>,
}

pub(crate) fn tasks(prefix: &str, n: usize, int_ids: bool) -> Vec<Task> {
    (0..n)
        .map(|i| Task {
            id: if int_ids {
                json!(1000 + i as i64)
            } else {
                json!(format!("{prefix}-{i}"))
            },
            domain: if i % 2 == 0 { "math" } else { "physics" },
            problem: format!("{prefix} problem {i}: what is {i} + {i}?"),
            truth: format!("{}", 2 * i),
            files: json!({format!("doc{i}.txt"): format!("text {i}")}).to_string(),
            hint: (i % 2 == 0).then(|| format!("hint {i}")),
        })
        .collect()
}

fn expected(rows: &[Task]) -> Vec<Value> {
    rows.iter()
        .map(|t| {
            json!({"id": t.id, "domain": t.domain, "problem_statement": t.problem,
                   "ground_truth": t.truth, "input_files": t.files, "hint": t.hint})
        })
        .collect()
}

fn as_values(rows: Vec<serde_json::Map<String, Value>>) -> Vec<Value> {
    rows.into_iter().map(Value::Object).collect()
}

/// A Parquet file of these rows (ids text or INT64, `hint` nullable), as bytes.
pub(crate) fn parquet_bytes(rows: &[Task], compression: Compression) -> Vec<u8> {
    let int_ids = rows.first().is_some_and(|t| t.id.is_i64());
    let id_type = if int_ids {
        "REQUIRED INT64 id;"
    } else {
        "REQUIRED BINARY id (UTF8);"
    };
    let schema = parse_message_type(&format!(
        "message task {{ {id_type} REQUIRED BINARY domain (UTF8);
           REQUIRED BINARY problem_statement (UTF8); REQUIRED BINARY ground_truth (UTF8);
           REQUIRED BINARY input_files (UTF8); OPTIONAL BINARY hint (UTF8); }}"
    ))
    .unwrap();
    let props = WriterProperties::builder()
        .set_compression(compression)
        .build();
    let mut out = Vec::new();
    let mut w = SerializedFileWriter::new(&mut out, Arc::new(schema), Arc::new(props)).unwrap();
    let mut rg = w.next_row_group().unwrap();
    let text = |f: &dyn Fn(&Task) -> String| -> Vec<ByteArray> {
        rows.iter()
            .map(|t| ByteArray::from(f(t).as_str()))
            .collect()
    };
    let mut col = rg.next_column().unwrap().unwrap();
    if int_ids {
        let ids: Vec<i64> = rows.iter().map(|t| t.id.as_i64().unwrap()).collect();
        col.typed::<Int64Type>()
            .write_batch(&ids, None, None)
            .unwrap();
    } else {
        let ids = text(&|t| t.id.as_str().unwrap().to_string());
        col.typed::<ByteArrayType>()
            .write_batch(&ids, None, None)
            .unwrap();
    }
    col.close().unwrap();
    let columns: [&dyn Fn(&Task) -> String; 4] = [
        &|t| t.domain.to_string(),
        &|t| t.problem.clone(),
        &|t| t.truth.clone(),
        &|t| t.files.clone(),
    ];
    for f in columns {
        let mut col = rg.next_column().unwrap().unwrap();
        col.typed::<ByteArrayType>()
            .write_batch(&text(f), None, None)
            .unwrap();
        col.close().unwrap();
    }
    let hints: Vec<ByteArray> = rows
        .iter()
        .filter_map(|t| t.hint.as_deref().map(ByteArray::from))
        .collect();
    let defs: Vec<i16> = rows.iter().map(|t| i16::from(t.hint.is_some())).collect();
    let mut col = rg.next_column().unwrap().unwrap();
    col.typed::<ByteArrayType>()
        .write_batch(&hints, Some(&defs), None)
        .unwrap();
    col.close().unwrap();
    rg.close().unwrap();
    w.close().unwrap();
    out
}

fn sha256(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

fn repo_dir(cache: &Path) -> PathBuf {
    dataset_dir(cache, "owner/bench")
}

/// The cache folder of the dataset `OWNER/NAME`.
fn dataset_dir(cache: &Path, dataset: &str) -> PathBuf {
    cache.join(format!("datasets--{}", dataset.replace('/', "--")))
}

/// Put a repository file into the cache as `huggingface_hub` does: the blob, and a relative
/// link to it in the snapshot.
pub(crate) fn cache_file(cache: &Path, commit: &str, path: &str, bytes: &[u8]) {
    cache_dataset_file(cache, "owner/bench", commit, path, bytes);
}

/// [`cache_file`] for the dataset `OWNER/NAME`.
pub(crate) fn cache_dataset_file(
    cache: &Path,
    dataset: &str,
    commit: &str,
    path: &str,
    bytes: &[u8],
) {
    let repo = dataset_dir(cache, dataset);
    let blob = sha256(bytes);
    std::fs::create_dir_all(repo.join("blobs")).unwrap();
    std::fs::write(repo.join("blobs").join(&blob), bytes).unwrap();
    let dest = repo.join("snapshots").join(commit).join(path);
    std::fs::create_dir_all(dest.parent().unwrap()).unwrap();
    let ups = "../".repeat(path.split('/').count() + 1);
    std::os::unix::fs::symlink(format!("{ups}blobs/{blob}"), dest).unwrap();
}

pub(crate) fn set_ref(cache: &Path, name: &str, commit: &str) {
    set_dataset_ref(cache, "owner/bench", name, commit);
}

/// [`set_ref`] for the dataset `OWNER/NAME`.
pub(crate) fn set_dataset_ref(cache: &Path, dataset: &str, name: &str, commit: &str) {
    let path = dataset_dir(cache, dataset).join("refs").join(name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, commit).unwrap();
}

fn offline(cache: &Path) -> HubOptions {
    HubOptions {
        offline: true,
        ..HubOptions::with_cache(cache)
    }
}

pub(crate) const COMMIT: &str = "0123456789abcdef0123456789abcdef01234567";

const README: &str = "---
license: apache-2.0
configs:
- config_name: math
  data_files:
  - split: test
    path: math/test-*
- config_name: physics
  data_files:
  - split: test
    path:
    - physics/test.parquet
---
# bench
";

#[tokio::test]
async fn readme_configs_in_the_cache_give_the_rows_in_file_order() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path();
    let math = tasks("m", 5, false);
    let physics = tasks("p", 3, true);
    // README as a plain file (not a link): accepted too.
    let snap = repo_dir(cache).join("snapshots").join(COMMIT);
    std::fs::create_dir_all(&snap).unwrap();
    std::fs::write(snap.join("README.md"), README).unwrap();
    // Listed out of order on disk; read in name order. Three codecs.
    cache_file(
        cache,
        COMMIT,
        "math/test-00001-of-00002.parquet",
        &parquet_bytes(&math[3..], Compression::ZSTD(ZstdLevel::default())),
    );
    cache_file(
        cache,
        COMMIT,
        "math/test-00000-of-00002.parquet",
        &parquet_bytes(&math[..3], Compression::SNAPPY),
    );
    cache_file(
        cache,
        COMMIT,
        "physics/test.parquet",
        &parquet_bytes(&physics, Compression::GZIP(GzipLevel::default())),
    );
    // Not matched by math's pattern.
    cache_file(
        cache,
        COMMIT,
        "math/train-00000-of-00001.parquet",
        &parquet_bytes(&tasks("x", 1, false), Compression::SNAPPY),
    );
    set_ref(cache, "main", COMMIT);
    let opts = offline(cache);

    let rows = load_split("owner/bench", Some("math"), "test", &opts, &|_| {})
        .await
        .unwrap();
    assert_eq!(as_values(rows), expected(&math));
    let rows = load_split("owner/bench", Some("physics"), "test", &opts, &|_| {})
        .await
        .unwrap();
    assert_eq!(as_values(rows), expected(&physics));

    let e = load_split("owner/bench", Some("bio"), "test", &opts, &|_| {})
        .await
        .unwrap_err();
    assert!(matches!(e, HubError::ConfigNotFound { .. }), "{e:?}");
    assert!(e.to_string().contains("its configs: math, physics"), "{e}");
    let e = load_split("owner/bench", Some("math"), "validation", &opts, &|_| {})
        .await
        .unwrap_err();
    assert!(matches!(e, HubError::SplitNotFound { .. }), "{e:?}");
    assert!(e.to_string().contains("its splits: test"), "{e}");
    // Two configs, none default: a name is needed.
    let e = load_split("owner/bench", None, "test", &opts, &|_| {})
        .await
        .unwrap_err();
    assert!(e.to_string().contains("name one of math, physics"), "{e}");
}

#[tokio::test]
async fn push_to_hub_layout_in_the_cache() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path();
    let math = tasks("m", 4, false);
    let plain = tasks("d", 2, true);
    cache_file(
        cache,
        COMMIT,
        "math/test-00000-of-00001.parquet",
        &parquet_bytes(&math, Compression::SNAPPY),
    );
    cache_file(
        cache,
        COMMIT,
        "data/test-00000-of-00001.parquet",
        &parquet_bytes(&plain, Compression::SNAPPY),
    );
    cache_file(
        cache,
        COMMIT,
        "broken/test-00000-of-00001.parquet",
        b"PAR1 not really parquet PAR1",
    );
    set_ref(cache, "main", COMMIT);
    let opts = offline(cache);

    let rows = load_split("owner/bench", Some("math"), "test", &opts, &|_| {})
        .await
        .unwrap();
    assert_eq!(as_values(rows), expected(&math));
    let rows = load_split("owner/bench", None, "test", &opts, &|_| {})
        .await
        .unwrap();
    assert_eq!(as_values(rows), expected(&plain));

    let e = load_split("owner/bench", Some("chem"), "test", &opts, &|_| {})
        .await
        .unwrap_err();
    assert!(
        e.to_string().contains("its configs: broken, default, math"),
        "{e}"
    );
    let e = load_split("owner/bench", Some("broken"), "test", &opts, &|_| {})
        .await
        .unwrap_err();
    assert!(matches!(e, HubError::BadParquet { .. }), "{e:?}");
    assert!(
        e.to_string().contains("broken/test-00000-of-00001.parquet"),
        "{e}"
    );
    // parquet_rows on its own, through the snapshot link.
    let linked = repo_dir(cache)
        .join("snapshots")
        .join(COMMIT)
        .join("math/test-00000-of-00001.parquet");
    assert_eq!(as_values(parquet_rows(&linked).unwrap()), expected(&math));
}

#[tokio::test]
async fn not_cached_says_how_to_fetch() {
    let dir = tempfile::tempdir().unwrap();
    let e = load_split(
        "owner/bench",
        Some("math"),
        "test",
        &offline(dir.path()),
        &|_| {},
    )
    .await
    .unwrap_err();
    assert!(matches!(e, HubError::NotCached { .. }), "{e:?}");
    let text = e.to_string();
    for needle in [
        "owner/bench",
        "config math, split test",
        "huggingface-cli download owner/bench --repo-type dataset",
        "HF_HUB_OFFLINE",
        "HF_ENDPOINT",
        &repo_dir(dir.path()).display().to_string(),
    ] {
        assert!(text.contains(needle), "{needle:?} not in {text}");
    }

    // Online, but nothing listens at the endpoint.
    let closed = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let endpoint = format!("http://{}", closed.local_addr().unwrap());
    drop(closed);
    let opts = HubOptions {
        endpoint: endpoint.clone(),
        ..HubOptions::with_cache(dir.path())
    };
    let e = load_split("owner/bench", Some("math"), "test", &opts, &|_| {})
        .await
        .unwrap_err();
    assert!(matches!(e, HubError::NotCached { .. }), "{e:?}");
    assert!(
        e.to_string()
            .contains(&format!("the Hub at {endpoint} cannot be reached")),
        "{e}"
    );
    assert!(e.to_string().contains("huggingface-cli download"), "{e}");

    let e = load_split("../x", None, "test", &opts, &|_| {})
        .await
        .unwrap_err();
    assert!(matches!(e, HubError::BadName { .. }), "{e:?}");
}

// ---------------------------------------------------------------------------------------------
// A stand-in for the Hub's HTTP API.

const MAIN_SHA: &str = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
const CONV_SHA: &str = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";
const README_ETAG: &str = "cccccccccccccccccccccccccccccccccccccccc";
const TOKEN: &str = "hf_good";

const HUB_README: &str = "---
configs:
- config_name: math
  data_files:
  - split: test
    path: math/test-*
---
";

struct FakeHub {
    endpoint: String,
    requests: Arc<Mutex<Vec<String>>>,
    math: Vec<u8>,
    physics: Vec<u8>,
}

impl FakeHub {
    fn requests(&self) -> Vec<String> {
        self.requests.lock().unwrap().clone()
    }
}

type Reply = (u16, Vec<(&'static str, String)>, Vec<u8>);

fn route(path: &str, auth: Option<&str>, math: &[u8], physics: &[u8]) -> Reply {
    let json_reply = |v: Value| (200, vec![], v.to_string().into_bytes());
    if path.starts_with("/cdn/") {
        return if path == "/cdn/math" {
            (
                200,
                vec![("ETag", "\"storage-etag\"".into())],
                math.to_vec(),
            )
        } else {
            (404, vec![], b"no such object".to_vec())
        };
    }
    if auth != Some(&format!("Bearer {TOKEN}")) {
        return (401, vec![], b"{\"error\":\"Invalid credentials\"}".to_vec());
    }
    let main_file = format!("/datasets/owner/bench/resolve/{MAIN_SHA}/");
    let conv_file = format!("/datasets/owner/bench/resolve/{CONV_SHA}/");
    match path {
        "/api/datasets/owner/bench/revision/main" => json_reply(json!({
            "sha": MAIN_SHA,
            "siblings": [{"rfilename": ".gitattributes"}, {"rfilename": "README.md"},
                         {"rfilename": "math/test-00000-of-00001.parquet", "size": math.len()}]
        })),
        "/api/datasets/owner/bench/revision/refs%2Fconvert%2Fparquet" => json_reply(json!({
            "sha": CONV_SHA,
            "siblings": [{"rfilename": "physics/test/0000.parquet"}]
        })),
        p if p == format!("{main_file}README.md") => (
            200,
            vec![("ETag", format!("\"{README_ETAG}\""))],
            HUB_README.as_bytes().to_vec(),
        ),
        p if p == format!("{main_file}math/test-00000-of-00001.parquet") => (
            302,
            vec![
                ("Location", "/cdn/math".into()),
                ("X-Linked-Etag", format!("\"{}\"", sha256(math))),
                ("X-Repo-Commit", MAIN_SHA.into()),
            ],
            vec![],
        ),
        p if p == format!("{conv_file}physics/test/0000.parquet") => {
            (200, vec![], physics.to_vec())
        }
        _ => (404, vec![], b"{\"error\":\"not found\"}".to_vec()),
    }
}

async fn serve(
    stream: tokio::net::TcpStream,
    requests: Arc<Mutex<Vec<String>>>,
    math: Arc<Vec<u8>>,
    physics: Arc<Vec<u8>>,
) {
    let mut stream = stream;
    let mut head = Vec::new();
    let mut buf = [0u8; 4096];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < 65536 {
        match stream.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => head.extend_from_slice(&buf[..n]),
        }
    }
    let head = String::from_utf8_lossy(&head).into_owned();
    let mut lines = head.split("\r\n");
    let path = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .unwrap_or("")
        .to_string();
    let auth = lines
        .filter_map(|l| l.split_once(':'))
        .find(|(k, _)| k.eq_ignore_ascii_case("authorization"))
        .map(|(_, v)| v.trim().to_string());
    requests.lock().unwrap().push(path.clone());
    let (status, headers, body) = route(&path, auth.as_deref(), &math, &physics);
    let mut out = format!(
        "HTTP/1.1 {status} X\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    for (k, v) in headers {
        out.push_str(&format!("{k}: {v}\r\n"));
    }
    out.push_str("\r\n");
    let mut bytes = out.into_bytes();
    bytes.extend_from_slice(&body);
    let _ = stream.write_all(&bytes).await;
    let _ = stream.shutdown().await;
}

async fn fake_hub() -> FakeHub {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let endpoint = format!("http://{}", listener.local_addr().unwrap());
    let requests = Arc::new(Mutex::new(Vec::new()));
    let math = parquet_bytes(&tasks("m", 6, false), Compression::SNAPPY);
    let physics = parquet_bytes(&tasks("p", 2, true), Compression::SNAPPY);
    let (log, m, p) = (
        requests.clone(),
        Arc::new(math.clone()),
        Arc::new(physics.clone()),
    );
    // Stops with the test's runtime; serves at most a bounded number of connections.
    tokio::spawn(async move {
        for _ in 0..200 {
            let Ok((stream, _)) = listener.accept().await else {
                return;
            };
            tokio::spawn(serve(stream, log.clone(), m.clone(), p.clone()));
        }
    });
    FakeHub {
        endpoint,
        requests,
        math,
        physics,
    }
}

#[tokio::test]
async fn downloads_into_the_cache_layout_and_reads_it_back_without_requests() {
    let hub = fake_hub().await;
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("hub");
    let opts = HubOptions {
        endpoint: hub.endpoint.clone(),
        token: Some(TOKEN.into()),
        ..HubOptions::with_cache(&cache)
    };
    let lines = Mutex::new(Vec::<String>::new());
    let progress = |l: &str| lines.lock().unwrap().push(l.to_string());

    let rows = load_split("owner/bench", Some("math"), "test", &opts, &progress)
        .await
        .unwrap();
    assert_eq!(as_values(rows), expected(&tasks("m", 6, false)));
    let shown = lines.lock().unwrap().clone();
    assert_eq!(shown.len(), 2, "{shown:?}");
    assert!(
        shown[0].starts_with("downloading owner/bench README.md ("),
        "{shown:?}"
    );
    assert!(
        shown[1].starts_with("downloading owner/bench math/test-00000-of-00001.parquet (")
            && shown[1].ends_with(" KiB)"),
        "{shown:?}"
    );

    // The layout huggingface_hub writes: blob named by the linked etag, relative link, ref.
    let repo = repo_dir(&cache);
    let blob = repo.join("blobs").join(sha256(&hub.math));
    assert_eq!(std::fs::read(&blob).unwrap(), hub.math);
    let link = repo
        .join("snapshots")
        .join(MAIN_SHA)
        .join("math/test-00000-of-00001.parquet");
    assert_eq!(
        std::fs::read_link(&link).unwrap(),
        PathBuf::from(format!("../../../blobs/{}", sha256(&hub.math)))
    );
    assert_eq!(
        std::fs::read_link(repo.join("snapshots").join(MAIN_SHA).join("README.md")).unwrap(),
        PathBuf::from(format!("../../blobs/{README_ETAG}"))
    );
    assert_eq!(
        std::fs::read_to_string(repo.join("refs/main")).unwrap(),
        MAIN_SHA
    );
    // No temporary files left in blobs/.
    let blobs: Vec<String> = std::fs::read_dir(repo.join("blobs"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(blobs.len(), 2, "{blobs:?}");
    let first = hub.requests();
    assert_eq!(
        first,
        vec![
            "/api/datasets/owner/bench/revision/main".to_string(),
            format!("/datasets/owner/bench/resolve/{MAIN_SHA}/README.md"),
            format!("/datasets/owner/bench/resolve/{MAIN_SHA}/math/test-00000-of-00001.parquet"),
            "/cdn/math".to_string(),
        ]
    );

    // Cached now: no request at all.
    let rows = load_split("owner/bench", Some("math"), "test", &opts, &progress)
        .await
        .unwrap();
    assert_eq!(as_values(rows), expected(&tasks("m", 6, false)));
    assert_eq!(hub.requests().len(), first.len());

    // Not in main: found in the Hub's Parquet conversion; README not fetched again.
    let rows = load_split("owner/bench", Some("physics"), "test", &opts, &progress)
        .await
        .unwrap();
    assert_eq!(as_values(rows), expected(&tasks("p", 2, true)));
    assert_eq!(
        hub.requests()[first.len()..],
        [
            "/api/datasets/owner/bench/revision/main".to_string(),
            "/api/datasets/owner/bench/revision/refs%2Fconvert%2Fparquet".to_string(),
            format!("/datasets/owner/bench/resolve/{CONV_SHA}/physics/test/0000.parquet"),
        ]
    );
    assert_eq!(
        std::fs::read_to_string(repo.join("refs/refs/convert/parquet")).unwrap(),
        CONV_SHA
    );
    // No etag on that answer: the blob is named by the content's SHA-256.
    assert!(repo.join("blobs").join(sha256(&hub.physics)).is_file());
    let count = hub.requests().len();
    load_split("owner/bench", Some("physics"), "test", &opts, &|_| {})
        .await
        .unwrap();
    assert_eq!(hub.requests().len(), count);

    // A config in neither revision: both revisions' configs are listed.
    let e = load_split("owner/bench", Some("chem"), "test", &opts, &|_| {})
        .await
        .unwrap_err();
    assert!(matches!(e, HubError::ConfigNotFound { .. }), "{e:?}");
    assert!(e.to_string().contains("its configs: math, physics"), "{e}");
    assert!(e.to_string().contains(&hub.endpoint), "{e}");
}

#[tokio::test]
async fn a_refused_token_advises_hf_token() {
    let hub = fake_hub().await;
    let dir = tempfile::tempdir().unwrap();
    for token in [Some("hf_wrong".to_string()), None] {
        let opts = HubOptions {
            endpoint: hub.endpoint.clone(),
            token: token.clone(),
            ..HubOptions::with_cache(dir.path())
        };
        let e = load_split("owner/bench", Some("math"), "test", &opts, &|_| {})
            .await
            .unwrap_err();
        assert!(
            matches!(e, HubError::Unauthorized { status: 401, .. }),
            "{e:?}"
        );
        assert!(e.to_string().contains("set HF_TOKEN"), "{e}");
        assert_eq!(
            e.to_string().contains("has no access"),
            token.is_some(),
            "{e}"
        );
    }
    // Nothing was written for the refused dataset.
    assert!(!repo_dir(dir.path()).join("refs").exists());
    assert!(!repo_dir(dir.path()).join("blobs").exists());
}
