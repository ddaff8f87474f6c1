//! The reference system's settings file (`llm_name`, `llm_base_url`, `api_key`,
//! `prompt_config`, ...) and its search order: `--settings`/`--config`,
//! `$LLM_IN_SANDBOX_CONFIG`, `./llm-in-sandbox.yaml`, `./llm_in_sandbox.yaml`,
//! `~/.llm-in-sandbox/config.yaml`, `~/.llm-in-sandbox.yaml`. Also the reading of
//! `--extra_body`, which the reference takes as a Python literal. Besides the reference's keys,
//! `with:` names extra pure-Python packages (the same as `--with`).

use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::{Map, Value};

/// The config file's keys (all optional; flags and `LLM_*` variables win over them).
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
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
    #[serde(alias = "max_tokens_per_call")]
    pub max_tokens: Option<u32>,
    /// Extra request fields.
    pub extra_body: Option<Value>,
    /// Extra pure-Python packages for the read-only site layer, as `--with` takes them:
    /// `math-verify,pint==0.24` or a YAML list of requirement strings; `none` for none.
    /// `--with` and `$LLM_IN_SANDBOX_WITH` win over it; it wins over what `setup --with`
    /// recorded.
    #[serde(default, deserialize_with = "comma_list")]
    pub with: Option<String>,
}

/// `with:` as one comma-separated string, from a string or a list of strings.
fn comma_list<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum List {
        One(String),
        Many(Vec<String>),
    }
    Ok(match Option::<List>::deserialize(d)? {
        None => None,
        Some(List::One(s)) => Some(s),
        Some(List::Many(v)) => Some(v.join(",")),
    })
}

/// Keys [`FileConfig`] reads; others are reported by [`load`] as unused.
const KNOWN_KEYS: &[&str] = &[
    "llm_name",
    "llm_base_url",
    "api_key",
    "prompt_config",
    "temperature",
    "max_steps",
    "max_token_limit",
    "max_tokens",
    "max_tokens_per_call",
    "extra_body",
    "with",
];

/// A settings file that was found and read.
#[derive(Debug, Clone, PartialEq)]
pub struct Loaded {
    /// Where it was found.
    pub path: PathBuf,
    /// Its settings.
    pub config: FileConfig,
    /// Keys it has that we do not use (the reference ignores unknown keys too).
    pub unused_keys: Vec<String>,
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

/// The places searched when no file is named, in order.
pub fn search_paths() -> Vec<PathBuf> {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let mut out = vec![
        PathBuf::from("llm-in-sandbox.yaml"),
        PathBuf::from("llm_in_sandbox.yaml"),
    ];
    if let Some(h) = home {
        out.push(h.join(".llm-in-sandbox").join("config.yaml"));
        out.push(h.join(".llm-in-sandbox.yaml"));
    }
    out
}

/// Find and read the config: `flag`, then `$LLM_IN_SANDBOX_CONFIG` (both must exist when
/// given), then the first of [`search_paths`] that exists.
///
/// # Errors
/// [`ConfigError`] for a named file that is missing, or any file that is not valid.
pub fn load(flag: Option<&Path>) -> Result<Option<Loaded>, ConfigError> {
    let named = flag.map(Path::to_path_buf).or_else(|| {
        std::env::var_os("LLM_IN_SANDBOX_CONFIG")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    });
    let path = match named {
        Some(p) => p,
        None => match search_paths().into_iter().find(|p| p.is_file()) {
            Some(p) => p,
            None => return Ok(None),
        },
    };
    let text = std::fs::read_to_string(&path).map_err(|source| ConfigError::Read {
        path: path.clone(),
        source,
    })?;
    let invalid = |detail: String| ConfigError::Invalid {
        path: path.clone(),
        detail,
    };
    let value: serde_norway::Value = if text.trim().is_empty() {
        serde_norway::Value::Null
    } else {
        serde_norway::from_str(&text).map_err(|e| invalid(e.to_string()))?
    };
    let mut unused_keys = Vec::new();
    let mut config = match value {
        serde_norway::Value::Null => FileConfig::default(),
        serde_norway::Value::Mapping(map) => {
            for k in map.keys() {
                let name = k.as_str().map_or_else(|| format!("{k:?}"), str::to_string);
                if !KNOWN_KEYS.contains(&name.as_str()) {
                    unused_keys.push(name);
                }
            }
            serde_norway::from_value(serde_norway::Value::Mapping(map))
                .map_err(|e| invalid(e.to_string()))?
        }
        _ => return Err(invalid("expected a mapping of settings".into())),
    };
    if let Some(extra) = config.extra_body.take() {
        config.extra_body = Some(match extra {
            Value::String(s) => Value::Object(
                parse_extra_body(&s).map_err(|e| invalid(format!("extra_body: {e}")))?,
            ),
            Value::Object(m) => Value::Object(fix_string_bools(m)),
            _ => return Err(invalid("extra_body must be a mapping".into())),
        });
    }
    if let (Some(p), Some(dir)) = (&config.prompt_config, path.parent())
        && p.is_relative()
    {
        config.prompt_config = Some(dir.join(p));
    }
    Ok(Some(Loaded {
        path,
        config,
        unused_keys,
    }))
}

/// `--extra_body`: a JSON object, or a Python dict literal as the reference's command line
/// takes it (`True`, `False`, `None`, single-quoted strings, tuples, trailing commas). The
/// strings `"true"` / `"false"` become booleans, as there.
///
/// # Errors
/// What is wrong and where, when the text is neither.
pub fn parse_extra_body(text: &str) -> Result<Map<String, Value>, String> {
    let value = match serde_json::from_str::<Value>(text) {
        Ok(v) => v,
        Err(json_err) => py_literal(text).map_err(|e| {
            format!("not a JSON object ({json_err}) nor a Python dict literal ({e})")
        })?,
    };
    match value {
        Value::Object(m) => Ok(fix_string_bools(m)),
        other => Err(format!(
            "expected an object such as '{{\"chat_template_kwargs\": {{\"thinking\": True}}}}', got {other}"
        )),
    }
}

fn fix_string_bools(map: Map<String, Value>) -> Map<String, Value> {
    fn fix(v: Value) -> Value {
        match v {
            Value::String(s) if s.eq_ignore_ascii_case("true") => Value::Bool(true),
            Value::String(s) if s.eq_ignore_ascii_case("false") => Value::Bool(false),
            Value::Array(a) => Value::Array(a.into_iter().map(fix).collect()),
            Value::Object(m) => Value::Object(m.into_iter().map(|(k, v)| (k, fix(v))).collect()),
            other => other,
        }
    }
    map.into_iter().map(|(k, v)| (k, fix(v))).collect()
}

/// A Python literal (dict, list, tuple, str, int, float, True/False/None) as JSON.
///
/// Ours rather than a Python-parser crate: one flag needs only `ast.literal_eval`'s data
/// subset, which a full grammar (and its dependencies) would not make more faithful.
///
/// # Errors
/// The first thing that is not part of a literal, with its byte offset.
pub fn py_literal(text: &str) -> Result<Value, String> {
    let mut p = PyParser {
        s: text.as_bytes(),
        text,
        i: 0,
    };
    let v = p.value(0)?;
    p.ws();
    if p.i != p.s.len() {
        return Err(p.err("unexpected text after the value"));
    }
    Ok(v)
}

struct PyParser<'a> {
    s: &'a [u8],
    text: &'a str,
    i: usize,
}

impl PyParser<'_> {
    fn err(&self, what: &str) -> String {
        format!("{what} at offset {}", self.i)
    }

    fn ws(&mut self) {
        while self.i < self.s.len() && self.s[self.i].is_ascii_whitespace() {
            self.i += 1;
        }
    }

    fn eat(&mut self, c: u8) -> bool {
        self.ws();
        if self.s.get(self.i) == Some(&c) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    fn value(&mut self, depth: usize) -> Result<Value, String> {
        if depth > 64 {
            return Err(self.err("nested too deeply"));
        }
        self.ws();
        match self.s.get(self.i) {
            None => Err(self.err("missing value")),
            Some(b'{') => {
                self.i += 1;
                let mut map = Map::new();
                loop {
                    if self.eat(b'}') {
                        return Ok(Value::Object(map));
                    }
                    let key = match self.value(depth + 1)? {
                        Value::String(s) => s,
                        Value::Number(n) => n.to_string(),
                        Value::Bool(b) => if b { "True" } else { "False" }.to_string(),
                        _ => return Err(self.err("dict keys must be strings or numbers")),
                    };
                    if !self.eat(b':') {
                        return Err(self.err("expected `:`"));
                    }
                    let v = self.value(depth + 1)?;
                    map.insert(key, v);
                    if !self.eat(b',') {
                        if self.eat(b'}') {
                            return Ok(Value::Object(map));
                        }
                        return Err(self.err("expected `,` or `}`"));
                    }
                }
            }
            Some(&open @ (b'[' | b'(')) => {
                self.i += 1;
                let close = if open == b'[' { b']' } else { b')' };
                let mut items = Vec::new();
                loop {
                    if self.eat(close) {
                        return Ok(Value::Array(items));
                    }
                    items.push(self.value(depth + 1)?);
                    if !self.eat(b',') {
                        if self.eat(close) {
                            return Ok(Value::Array(items));
                        }
                        return Err(self.err("expected `,` or a closing bracket"));
                    }
                }
            }
            Some(&q @ (b'\'' | b'"')) => self.string(q).map(Value::String),
            Some(_) => self.atom(),
        }
    }

    fn string(&mut self, quote: u8) -> Result<String, String> {
        self.i += 1;
        let mut out = String::new();
        let start = self.i;
        loop {
            let Some(&c) = self.s.get(self.i) else {
                self.i = start;
                return Err(self.err("unterminated string"));
            };
            if c == quote {
                self.i += 1;
                return Ok(out);
            }
            if c == b'\\' {
                let esc = self.s.get(self.i + 1).copied();
                self.i += 2;
                match esc {
                    Some(b'n') => out.push('\n'),
                    Some(b't') => out.push('\t'),
                    Some(b'r') => out.push('\r'),
                    Some(b'0') => out.push('\0'),
                    Some(b'\\') => out.push('\\'),
                    Some(b'\'') => out.push('\''),
                    Some(b'"') => out.push('"'),
                    Some(b'u') => {
                        let hex = self
                            .text
                            .get(self.i..self.i + 4)
                            .ok_or_else(|| self.err("bad \\u escape"))?;
                        let code = u32::from_str_radix(hex, 16)
                            .ok()
                            .and_then(char::from_u32)
                            .ok_or_else(|| self.err("bad \\u escape"))?;
                        out.push(code);
                        self.i += 4;
                    }
                    _ => return Err(self.err("unsupported escape")),
                }
                continue;
            }
            // A whole UTF-8 character.
            let rest = self.text.get(self.i..).unwrap_or_default();
            let ch = rest.chars().next().ok_or_else(|| self.err("bad text"))?;
            out.push(ch);
            self.i += ch.len_utf8();
        }
    }

    fn atom(&mut self) -> Result<Value, String> {
        let start = self.i;
        while self.i < self.s.len()
            && (self.s[self.i].is_ascii_alphanumeric() || b"+-._".contains(&self.s[self.i]))
        {
            self.i += 1;
        }
        let word = self.text.get(start..self.i).unwrap_or_default();
        let value = match word {
            "True" | "true" => Value::Bool(true),
            "False" | "false" => Value::Bool(false),
            "None" | "null" => Value::Null,
            w => {
                let w = w.replace('_', "");
                if let Ok(n) = w.parse::<i64>() {
                    Value::from(n)
                } else if let Some(n) = w.parse::<f64>().ok().and_then(serde_json::Number::from_f64)
                {
                    Value::Number(n)
                } else {
                    self.i = start;
                    return Err(self.err(if word.is_empty() {
                        "unexpected character"
                    } else {
                        "not a literal"
                    }));
                }
            }
        };
        Ok(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn extra_body_takes_json_and_python_literals() {
        let m = parse_extra_body(r#"{"chat_template_kwargs": {"thinking": True}}"#).unwrap();
        assert_eq!(
            Value::Object(m),
            json!({"chat_template_kwargs": {"thinking": true}})
        );
        let m = parse_extra_body("{'top_p': 0.95, 'stop': ('a', \"b\",), 'seed': None, 'n': -2,}")
            .unwrap();
        assert_eq!(
            Value::Object(m),
            json!({"top_p": 0.95, "stop": ["a", "b"], "seed": null, "n": -2})
        );
        let m = parse_extra_body(r#"{"enable_thinking": "false"}"#).unwrap();
        assert_eq!(Value::Object(m), json!({"enable_thinking": false}));
        assert!(
            parse_extra_body("[1, 2]")
                .unwrap_err()
                .contains("expected an object")
        );
        assert!(parse_extra_body("{'a': }").is_err());
        assert!(parse_extra_body("{'a': os.system('x')}").is_err());
        assert!(parse_extra_body("{'a': 'unterminated}").is_err());
    }

    #[test]
    fn with_takes_a_comma_string_or_a_list() {
        let dir = tempfile::tempdir().unwrap();
        let one = dir.path().join("one.yaml");
        std::fs::write(&one, "llm_name: m\nwith: math-verify,pint==0.24\n").unwrap();
        let l = load(Some(&one)).unwrap().unwrap();
        assert_eq!(l.config.with.as_deref(), Some("math-verify,pint==0.24"));
        assert!(l.unused_keys.is_empty(), "{:?}", l.unused_keys);
        let many = dir.path().join("many.yaml");
        std::fs::write(&many, "with:\n  - math-verify\n  - pint==0.24\n").unwrap();
        let l = load(Some(&many)).unwrap().unwrap();
        assert_eq!(l.config.with.as_deref(), Some("math-verify,pint==0.24"));
        let none = dir.path().join("none.yaml");
        std::fs::write(&none, "llm_name: m\n").unwrap();
        assert_eq!(load(Some(&none)).unwrap().unwrap().config.with, None);
        let bad = dir.path().join("bad.yaml");
        std::fs::write(&bad, "with: {a: 1}\n").unwrap();
        assert!(load(Some(&bad)).is_err());
    }
}
