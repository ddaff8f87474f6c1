//! The reference system's YAML config (`llm_name`, `llm_base_url`, `api_key`, `prompt_config`,
//! ...) and its search order: `--config`, `$LLM_IN_SANDBOX_CONFIG`, `./llm-in-sandbox.yaml`,
//! `~/.llm-in-sandbox/config.yaml`.

use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::Value;

/// The config file's keys (all optional; flags win over them).
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct FileConfig {
    /// Model name.
    pub llm_name: Option<String>,
    /// Endpoint base URL.
    pub llm_base_url: Option<String>,
    /// API key.
    pub api_key: Option<String>,
    /// Prompt file (relative to the config file's folder).
    pub prompt_config: Option<PathBuf>,
    /// Sampling temperature.
    pub temperature: Option<f64>,
    /// Step budget.
    pub max_steps: Option<u32>,
    /// Token budget.
    pub max_token_limit: Option<u64>,
    /// `max_tokens` per call.
    pub max_tokens: Option<u32>,
    /// Extra request fields.
    pub extra_body: Option<Value>,
}

/// Errors finding or reading the config.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// A named config file is missing or unreadable.
    #[error("cannot read config {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// The file is not valid config YAML.
    #[error("config {path} is not valid: {detail}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        detail: String,
    },
}

/// Find and read the config: `flag`, then `$LLM_IN_SANDBOX_CONFIG` (both must exist when
/// given), then `./llm-in-sandbox.yaml`, then `~/.llm-in-sandbox/config.yaml`.
///
/// # Errors
/// [`ConfigError`] for a named file that is missing, or any file that is not valid.
pub fn load(flag: Option<&Path>) -> Result<Option<(PathBuf, FileConfig)>, ConfigError> {
    let named = flag.map(Path::to_path_buf).or_else(|| {
        std::env::var_os("LLM_IN_SANDBOX_CONFIG")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    });
    let path = match named {
        Some(p) => p,
        None => {
            let home = std::env::var_os("HOME").map(PathBuf::from);
            let candidates = [
                Some(PathBuf::from("llm-in-sandbox.yaml")),
                home.map(|h| h.join(".llm-in-sandbox").join("config.yaml")),
            ];
            match candidates.into_iter().flatten().find(|p| p.is_file()) {
                Some(p) => p,
                None => return Ok(None),
            }
        }
    };
    let text = std::fs::read_to_string(&path).map_err(|source| ConfigError::Read {
        path: path.clone(),
        source,
    })?;
    let mut cfg: FileConfig = if text.trim().is_empty() {
        FileConfig::default()
    } else {
        serde_norway::from_str(&text).map_err(|e| ConfigError::Invalid {
            path: path.clone(),
            detail: e.to_string(),
        })?
    };
    if let Some(extra) = &cfg.extra_body
        && !extra.is_object()
    {
        return Err(ConfigError::Invalid {
            path,
            detail: "extra_body must be a mapping".into(),
        });
    }
    if let (Some(p), Some(dir)) = (&cfg.prompt_config, path.parent())
        && p.is_relative()
    {
        cfg.prompt_config = Some(dir.join(p));
    }
    Ok(Some((path, cfg)))
}
