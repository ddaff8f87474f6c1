//! PLACEHOLDER until the wt-hub branch is merged (replaced by the real module).
#![allow(missing_docs, clippy::unused_async)]
use serde_json::{Map, Value};
use std::path::Path;
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct HubError(String);
pub struct HubOptions;
impl HubOptions {
    pub fn from_env() -> Self {
        HubOptions
    }
}
pub fn parquet_rows(path: &Path) -> Result<Vec<Map<String, Value>>, HubError> {
    Err(HubError(format!("parquet not yet: {}", path.display())))
}
pub async fn load_split(
    name: &str,
    _config: Option<&str>,
    _split: &str,
    _opts: &HubOptions,
    _progress: &dyn Fn(&str),
) -> Result<Vec<Map<String, Value>>, HubError> {
    Err(HubError(format!("hub not yet: {name}")))
}
