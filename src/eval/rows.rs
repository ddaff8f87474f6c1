//! Dataset rows as the reference and its RL training read them: one JSON object per row,
//! `{id, domain, problem_statement, ground_truth, input_files, ...}`, or a row of the RL
//! repository's verl layout whose fields live under `extra_info`.
//!
//! The verl layout is what `examples/llm_in_sandbox/convert_llm_sandbox_dataset.py` of
//! `llm-in-sandbox/llm-in-sandbox-rl` writes (`train_verl.json`, `test_verl.json`): `{prompt,
//! reward_model: {ground_truth, style}, data_source, extra_info: {id, domain,
//! problem_statement, ground_truth, input_files?, qa_type?}}`. Its training environment
//! (`rllm/environments/llm_in_sandbox/llm_in_sandbox_env.py`) works on `extra_info` alone: the
//! row is `extra_info` (a dict, or a JSON string of one), its `docker_image`, `step_timeout`,
//! `verbose` and folder keys are taken out as environment settings, and the reward gets every
//! other field but `ground_truth` as keywords. So the row here is `extra_info`, flattened; the
//! outer columns do not reach `reward.py`.

use std::collections::{BTreeMap, HashSet};

use serde::Serialize;
use serde_json::{Map, Value};

use super::spec::{Row, Scorer};

/// A row that could not be used.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RowError {
    /// 1-based line number in the JSONL file.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

/// Parse JSONL: good rows, and errors with line numbers (blank lines are skipped).
pub fn parse_jsonl(text: &str) -> (Vec<Row>, Vec<RowError>) {
    let (mut rows, mut errors) = (Vec::new(), Vec::new());
    let mut seen = HashSet::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        match parse_row(line) {
            Ok(row) if !seen.insert(row.id.clone()) => errors.push(RowError {
                line: i + 1,
                message: format!("duplicate id {:?}", row.id),
            }),
            Ok(row) => rows.push(row),
            Err(message) => errors.push(RowError {
                line: i + 1,
                message,
            }),
        }
    }
    (rows, errors)
}

fn text_of(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// `extra_info` keys the RL environment's `from_dict` takes out as its own settings before the
/// row reaches the reward; these configure its Docker container.
const ENV_SETTINGS: &[&str] = &["docker_image", "step_timeout", "verbose"];

/// `extra_info` keys that would set the row's own folders there; the task's folders apply here.
const ROW_FOLDERS: &[&str] = &["working_dir", "input_dir", "output_dir"];

/// A verl row's fields (its `extra_info`, flattened), or the object unchanged when it is an
/// ordinary row (it has a `problem_statement`, or no `extra_info`).
fn training_row(mut o: Map<String, Value>) -> Result<(Map<String, Value>, bool), String> {
    if o.contains_key("problem_statement") || !o.contains_key("extra_info") {
        return Ok((o, false));
    }
    let mut info = match o.remove("extra_info") {
        Some(Value::Object(m)) => m,
        Some(Value::String(s)) => match serde_json::from_str::<Value>(&s) {
            Ok(Value::Object(m)) => m,
            Ok(_) => return Err("`extra_info` is a JSON string but not of an object".into()),
            Err(e) => return Err(format!("`extra_info` is a string but not JSON: {e}")),
        },
        Some(Value::Null) | None => {
            return Err(
                "no `problem_statement`, and `extra_info` (where a verl row keeps it) is null"
                    .into(),
            );
        }
        Some(_) => {
            return Err("`extra_info` must be an object, or a JSON string of one".into());
        }
    };
    for key in ENV_SETTINGS {
        info.remove(*key);
    }
    if let Some(key) = ROW_FOLDERS
        .iter()
        .find(|k| info.get(**k).is_some_and(|v| !v.is_null()))
    {
        return Err(format!(
            "`extra_info` sets `{key}`: per-row folders are not supported here; the task's \
             folders apply (remove the key, or give the task folder's config.yaml that folder)"
        ));
    }
    // The converter writes the truth in both places and the domain as `data_source` too; the
    // outer ones fill in only what `extra_info` lacks.
    if !info.contains_key("ground_truth")
        && let Some(truth) = o
            .get("reward_model")
            .and_then(|r| r.get("ground_truth"))
            .filter(|v| !v.is_null())
    {
        info.insert("ground_truth".into(), truth.clone());
    }
    if !info.contains_key("domain")
        && let Some(source) = o.get("data_source").filter(|v| !v.is_null())
    {
        info.insert("domain".into(), source.clone());
    }
    Ok((info, true))
}

/// One JSON line as a row.
pub(super) fn parse_row(line: &str) -> Result<Row, String> {
    let Value::Object(o) =
        serde_json::from_str::<Value>(line).map_err(|e| format!("not valid JSON: {e}"))?
    else {
        return Err("not a JSON object".into());
    };
    let (o, verl) = training_row(o)?;
    row_of(o).map_err(|e| {
        if verl {
            format!("{e} (in `extra_info`)")
        } else {
            e
        }
    })
}

fn row_of(mut o: Map<String, Value>) -> Result<Row, String> {
    let mut take_text = |key: &str, required: bool| -> Result<Option<String>, String> {
        match o.remove(key) {
            None | Some(Value::Null) if required => Err(format!("missing field `{key}`")),
            None | Some(Value::Null) => Ok(None),
            Some(v) => text_of(&v)
                .map(Some)
                .ok_or_else(|| format!("field `{key}` must be a string or a number")),
        }
    };
    let id = take_text("id", true)?.unwrap_or_default();
    let problem_statement = take_text("problem_statement", true)?.unwrap_or_default();
    let ground_truth = take_text("ground_truth", true)?.unwrap_or_default();
    let domain = take_text("domain", false)?.unwrap_or_else(|| "general".into());
    let scorer = take_text("scorer", false)?;
    if let Some(name) = &scorer
        && Scorer::by_name(name).is_none()
    {
        return Err(format!("unknown scorer {name:?}; use {}", Scorer::NAMES));
    }
    // The value as the dataset gave it stays among the other fields: `reward.py` gets it as
    // the reference passes it (often a JSON string), not our parsed map.
    let input_files = match o.get("input_files") {
        None | Some(Value::Null) => BTreeMap::new(),
        Some(Value::String(s)) if s.trim().is_empty() => BTreeMap::new(),
        Some(Value::String(s)) => files_of(
            &serde_json::from_str(s)
                .map_err(|e| format!("`input_files` is a string but not JSON: {e}"))?,
        )?,
        Some(v) => files_of(v)?,
    };
    for name in input_files.keys() {
        if name.is_empty() || name.starts_with('/') || name.split('/').any(|c| c == "..") {
            return Err(format!(
                "input file name {name:?} must be a relative path without `..`"
            ));
        }
    }
    Ok(Row {
        id,
        domain,
        problem_statement,
        ground_truth,
        input_files,
        scorer,
        extra: o,
    })
}

/// File name -> text. A `null` content is no file, as the reference's runner and the RL
/// environment skip it (a Parquet struct column of file names is `null` where a row lacks one).
fn files_of(v: &Value) -> Result<BTreeMap<String, String>, String> {
    let Value::Object(o) = v else {
        return Err("`input_files` must map file names to contents".into());
    };
    o.iter()
        .filter(|(_, v)| !v.is_null())
        .map(|(k, v)| {
            text_of(v)
                .map(|t| (k.clone(), t))
                .ok_or_else(|| format!("input file {k:?} must have text content"))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn rows_parse_in_every_reference_shape() {
        let text = r#"{"id": 1, "domain": "math", "problem_statement": "p", "ground_truth": 5, "input_files": "{\"a.txt\": \"x\"}"}

{"id": "b", "problem_statement": "p", "ground_truth": "x", "input_files": {"d/b.txt": "y", "gone.txt": null}, "level": 3}
{"id": "c", "problem_statement": "p"}
not json
{"id": "d", "problem_statement": "p", "ground_truth": "1", "input_files": {"../x": "y"}}
{"id": 1, "problem_statement": "p", "ground_truth": 5}"#;
        let (rows, errors) = parse_jsonl(text);
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].id, "1");
        assert_eq!(rows[0].ground_truth, "5");
        assert_eq!(rows[0].input_files["a.txt"], "x");
        assert_eq!(rows[1].domain, "general");
        assert_eq!(rows[1].extra["level"], 3);
        assert_eq!(rows[1].input_files.keys().collect::<Vec<_>>(), ["d/b.txt"]);
        let lines: Vec<usize> = errors.iter().map(|e| e.line).collect();
        assert_eq!(lines, [4, 5, 6, 7]);
        assert!(errors[0].message.contains("ground_truth"));
        assert!(errors[3].message.contains("duplicate"));
    }

    /// The RL repository's converted rows: `extra_info` as an object or a JSON string, the
    /// outer verl columns kept away from the reward, as its environment does.
    #[test]
    fn verl_rows_are_their_extra_info() {
        let converted = json!({
            "prompt": [{"content": "placeholder", "role": "user"}],
            "reward_model": {"ground_truth": "B", "style": "llm_in_sandbox"},
            "data_source": "instruct_pretrain",
            "extra_info": {"id": "ip-1", "domain": "instruct_pretrain", "problem_statement": "Q?",
                           "ground_truth": "B", "input_files": "{\"doc.txt\": \"text\"}",
                           "qa_type": "Multiple Choice", "docker_image": "img"}
        });
        let as_string = json!({
            "data_source": "math",
            "reward_model": {"ground_truth": "2"},
            "extra_info": json!({"id": 7, "problem_statement": "1+1"}).to_string()
        });
        let text = format!("{converted}\n{as_string}\n");
        let (rows, errors) = parse_jsonl(&text);
        assert!(errors.is_empty(), "{errors:?}");
        let r = &rows[0];
        assert_eq!(
            (r.id.as_str(), r.domain.as_str(), r.ground_truth.as_str()),
            ("ip-1", "instruct_pretrain", "B")
        );
        assert_eq!(r.input_files["doc.txt"], "text");
        let mut keys: Vec<&str> = r.extra.keys().map(String::as_str).collect();
        keys.sort();
        assert_eq!(keys, ["input_files", "qa_type"]);
        assert_eq!(r.extra["input_files"], "{\"doc.txt\": \"text\"}");
        // Only what `extra_info` lacks comes from outside it.
        assert_eq!(
            (
                rows[1].id.as_str(),
                rows[1].domain.as_str(),
                rows[1].ground_truth.as_str()
            ),
            ("7", "math", "2")
        );
        assert!(rows[1].extra.is_empty(), "{:?}", rows[1].extra);
        // A row with its own `problem_statement` is an ordinary row: `extra_info` is a field.
        let plain = json!({"id": "p", "problem_statement": "x", "ground_truth": "1",
                           "extra_info": {"k": 1}});
        let (rows, _) = parse_jsonl(&plain.to_string());
        assert_eq!(rows[0].extra["extra_info"], json!({"k": 1}));
    }

    #[test]
    fn bad_verl_rows_say_what_is_wrong() {
        let cases = [
            (
                json!({"extra_info": "{not json"}),
                "`extra_info` is a string but not JSON",
            ),
            (
                json!({"extra_info": "[1]"}),
                "JSON string but not of an object",
            ),
            (json!({"extra_info": 3}), "must be an object"),
            (
                json!({"extra_info": null}),
                "`extra_info` (where a verl row",
            ),
            (
                json!({"extra_info": {"id": "a", "ground_truth": "1"}}),
                "missing field `problem_statement` (in `extra_info`)",
            ),
            (
                json!({"extra_info": {"id": "a", "problem_statement": "p"}}),
                "missing field `ground_truth` (in `extra_info`)",
            ),
            (
                json!({"extra_info": {"id": "a", "problem_statement": "p", "ground_truth": "1",
                                      "input_files": "{\"a\": 1"}}),
                "`input_files` is a string but not JSON",
            ),
            (
                json!({"extra_info": {"id": "a", "problem_statement": "p", "ground_truth": "1",
                                      "output_dir": "/elsewhere"}}),
                "`extra_info` sets `output_dir`",
            ),
        ];
        let text: String = cases.iter().map(|(row, _)| format!("{row}\n")).collect();
        let (rows, errors) = parse_jsonl(&text);
        assert!(rows.is_empty(), "{rows:?}");
        assert_eq!(errors.len(), cases.len());
        for (e, (_, needle)) in errors.iter().zip(cases) {
            assert!(e.message.contains(needle), "{needle:?} not in {e:?}");
        }
    }
}
