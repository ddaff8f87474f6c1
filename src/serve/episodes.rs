//! `POST /v1/episodes`: our agent loop on one task, against the caller's model endpoint; the
//! answer, the trajectory and (with a scorer and a ground truth) the reward come back.

use std::collections::BTreeMap;
use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use serde::Deserialize;
use serde_json::{Value, json};

use super::Server;
use super::error::{ApiError, JsonBody};
use crate::agent::{EpisodeResult, EpisodeSettings, EpisodeSpec, trajectory};
use crate::eval::dataset::Row;
use crate::eval::score::{Score, Scorer};
use crate::llm::{Client, LlmConfig};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct LlmRequest {
    base_url: String,
    model: String,
    #[serde(default)]
    api_key: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct EpisodeRequest {
    problem_statement: String,
    llm: LlmRequest,
    #[serde(default)]
    files: BTreeMap<String, String>,
    #[serde(default)]
    max_steps: Option<u32>,
    #[serde(default)]
    temperature: Option<f64>,
    #[serde(default)]
    max_tokens: Option<u32>,
    #[serde(default)]
    ground_truth: Option<String>,
    #[serde(default)]
    scorer: Option<String>,
    #[serde(default)]
    limits: super::sessions::LimitsRequest,
}

/// Refuse a model URL whose host is neither loopback nor named in `allowed` (`host` or
/// `host:port`): `/v1/episodes` must not become a way to make the server call into its own
/// network (the model client follows no redirects either).
fn model_url_allowed(url: &str, allowed: &[String]) -> Result<(), ApiError> {
    let parsed = reqwest::Url::parse(url)
        .map_err(|e| ApiError::bad_request(format!("llm.base_url {url:?} is not a URL: {e}")))?;
    let Some(host) = parsed.host_str() else {
        return Err(ApiError::bad_request("llm.base_url names no host"));
    };
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    let loopback = host == "localhost"
        || host.ends_with(".localhost")
        || host
            .trim_matches(['[', ']'])
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback());
    let port = parsed.port_or_known_default().unwrap_or(0);
    let named = allowed.iter().any(|entry| {
        match entry.rsplit_once(':').filter(|_| !entry.ends_with(']')) {
            Some((h, p)) => h == host && p.parse::<u16>().is_ok_and(|p| p == port),
            None => *entry == host,
        }
    });
    if loopback || named {
        return Ok(());
    }
    Err(ApiError::forbidden(format!(
        "llm.base_url {host} is not a model endpoint this server may call: loopback endpoints \
         are allowed, others only when the operator names them (`serve --model-host {host}`)"
    )))
}

/// The most model turns an episode may ask for.
const MAX_STEPS: u32 = 1000;

pub(super) async fn run(
    State(srv): State<Arc<Server>>,
    JsonBody(req): JsonBody<EpisodeRequest>,
) -> Result<Json<Value>, ApiError> {
    let url = req.llm.base_url.trim();
    if !(url.starts_with("http://") || url.starts_with("https://")) {
        return Err(ApiError::bad_request(format!(
            "llm.base_url must be an http(s) URL such as http://host:8000/v1, not {url:?}"
        )));
    }
    model_url_allowed(url, &srv.config.model_hosts)?;
    let scorer = requested_scorer(&req)?;
    let input_files = input_files(&req.files)?;
    let client = model_client(&req, url)?;
    let record = tempfile::Builder::new()
        .prefix("llm-in-sandbox-episode-")
        .tempdir()
        .map_err(|e| ApiError::internal(format!("cannot make a folder for the trajectory: {e}")))?;
    let spec = episode_spec(&srv, &req, url, input_files, record.path())?;
    let call = srv.admit().await?;
    let ep = crate::agent::setup(&srv.runtime, client, spec)
        .await
        .map_err(|e| ApiError::internal(format!("cannot set up the episode: {e}")))?;
    let result = ep.run(&req.problem_statement).await;
    drop(call);
    let traj = trajectory::read(record.path()).unwrap_or_else(|e| json!({"error": e.to_string()}));
    let (reward, score_error) = score_answer(&srv, scorer.as_ref(), &req, &result).await;
    Ok(Json(json!({
        "stop_reason": result.stop,
        "answer": result.answer,
        "steps": result.steps,
        "usage": result.usage,
        "llm_seconds": result.llm_seconds,
        "tool_seconds": result.tool_seconds,
        "total_seconds": result.total_seconds,
        "installed": result.installed,
        "trajectory": traj,
        "reward": reward,
        "score_error": score_error,
    })))
}

/// The request's scorer, if it names one: any but `judge`, and only with a ground truth.
fn requested_scorer(req: &EpisodeRequest) -> Result<Option<Scorer>, ApiError> {
    let scorer = match req.scorer.as_deref() {
        None => None,
        Some(name) => match Scorer::by_name(name) {
            Some(Scorer::Judge) | None => {
                return Err(ApiError::bad_request(format!(
                    "scorer {name:?} is not one this endpoint runs: use one of exact, numeric, choice, math"
                )));
            }
            Some(s) => Some(s),
        },
    };
    if scorer.is_some() && req.ground_truth.is_none() {
        return Err(ApiError::bad_request("a scorer needs a ground_truth"));
    }
    Ok(scorer)
}

/// The request's files (name to base64), decoded, each name a relative path inside the input
/// folder.
fn input_files(files: &BTreeMap<String, String>) -> Result<Vec<(String, Vec<u8>)>, ApiError> {
    let mut input_files = Vec::new();
    for (name, b64) in files {
        use base64::Engine as _;
        let rel = super::files::clean(std::path::Path::new(name))
            .filter(|p| !p.as_os_str().is_empty() && !name.starts_with('/'))
            .ok_or_else(|| {
                ApiError::bad_request(format!(
                    "file name {name:?} must be a relative path inside the input folder"
                ))
            })?;
        let data = base64::engine::general_purpose::STANDARD
            .decode(b64.trim())
            .map_err(|e| ApiError::bad_request(format!("file {name:?} is not base64: {e}")))?;
        input_files.push((rel.to_string_lossy().into_owned(), data));
    }
    Ok(input_files)
}

/// The client of the caller's model endpoint (`url`, already checked).
fn model_client(req: &EpisodeRequest, url: &str) -> Result<Client, ApiError> {
    let mut llm = LlmConfig::new(url, req.llm.model.clone());
    llm.api_key = req.llm.api_key.clone();
    llm.temperature = req.temperature;
    Client::new(llm)
        .map_err(|e| ApiError::bad_request(format!("cannot use that model endpoint: {e}")))
}

/// The episode: the server's sandbox settings tightened by the request's limits, its step
/// budget and tools, the trajectory recorded in `record_dir`.
fn episode_spec(
    srv: &Server,
    req: &EpisodeRequest,
    url: &str,
    input_files: Vec<(String, Vec<u8>)>,
    record_dir: &std::path::Path,
) -> Result<EpisodeSpec, ApiError> {
    let episode = EpisodeSettings {
        max_steps: req.max_steps.unwrap_or(100).clamp(1, MAX_STEPS),
        max_tokens: req.max_tokens,
        tools: srv
            .config
            .episode_tools
            .clone()
            .unwrap_or_else(crate::tools::schemas),
        ..EpisodeSettings::default()
    };
    Ok(EpisodeSpec {
        sandbox: req.limits.tighten(&srv.config.sandbox)?,
        episode,
        workspace: None,
        input_files,
        record_dir: record_dir.to_path_buf(),
        header: json!({
            "problem_statement": req.problem_statement,
            "model": req.llm.model,
            "base_url": url,
        }),
    })
}

/// The reward of the episode's answer, or why it could not be scored; both `None` without a
/// scorer and a ground truth.
async fn score_answer(
    srv: &Server,
    scorer: Option<&Scorer>,
    req: &EpisodeRequest,
    result: &EpisodeResult,
) -> (Option<f64>, Option<String>) {
    let (Some(s), Some(truth)) = (scorer, &req.ground_truth) else {
        return (None, None);
    };
    let row = Row {
        id: "episode".into(),
        domain: "general".into(),
        problem_statement: req.problem_statement.clone(),
        ground_truth: truth.clone(),
        input_files: BTreeMap::new(),
        scorer: None,
        extra: serde_json::Map::new(),
    };
    match s.score(result.answer.as_deref(), &row, &srv.runtime).await {
        Score::Value(v) => (Some(v), None),
        Score::Error(e) => (None, Some(e)),
    }
}
