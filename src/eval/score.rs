//! Scoring an answer against the ground truth: built-in scorers, and a task's `reward.py`
//! (`compute_score(agent_answer, ground_truth, **row)`) run unchanged inside the WASM Python.
//! A scorer that fails gives an error, never a silent 0.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};

use super::dataset::Row;
use crate::runtime::{Limits, Runtime, executor};
use crate::sandbox::Sandbox;

/// How answers are scored.
#[derive(Debug, Clone, PartialEq)]
pub enum Scorer {
    /// Equal after normalisation (case, spaces, surrounding `$`, trailing `.`).
    Exact,
    /// Numbers equal within a relative tolerance of 1e-4 (or 1e-9 absolute).
    Numeric,
    /// The same multiple-choice letter.
    Choice,
    /// `\boxed{}` answers: equal text, equal numbers, or symbolically equal (sympy).
    Math,
    /// A task's `reward.py` source.
    Reward(String),
}

/// A score or why there is none.
#[derive(Debug, Clone, PartialEq)]
pub enum Score {
    /// 0.0 to 1.0 (reward.py may return other values; they are kept).
    Value(f64),
    /// The scorer failed.
    Error(String),
}

impl Scorer {
    /// Names accepted by [`Scorer::by_name`].
    pub const NAMES: &'static str = "exact, numeric, choice, math";

    /// The scorer's name (`reward.py` for a task's own).
    pub fn name(&self) -> &'static str {
        match self {
            Scorer::Exact => "exact",
            Scorer::Numeric => "numeric",
            Scorer::Choice => "choice",
            Scorer::Math => "math",
            Scorer::Reward(_) => "reward.py",
        }
    }

    /// A built-in scorer by name.
    pub fn by_name(name: &str) -> Option<Scorer> {
        Some(match name.trim().to_ascii_lowercase().as_str() {
            "exact" | "exact_match" | "string" => Scorer::Exact,
            "numeric" | "number" => Scorer::Numeric,
            "choice" | "mcq" | "multiple_choice" | "letter" => Scorer::Choice,
            "math" | "boxed" => Scorer::Math,
            _ => return None,
        })
    }

    /// Score `answer` for `row`. `runtime` runs `reward.py` and symbolic checks.
    pub async fn score(&self, answer: Option<&str>, row: &Row, runtime: &Arc<Runtime>) -> Score {
        let Some(answer) = answer else {
            return match self {
                Scorer::Reward(src) => reward(src, "", row, runtime).await,
                _ => Score::Value(0.0),
            };
        };
        let truth = row.ground_truth.as_str();
        match self {
            Scorer::Exact => Score::Value(f(normalize(&extract(answer)) == normalize(truth))),
            Scorer::Numeric => Score::Value(f(match (number(&extract(answer)), number(truth)) {
                (Some(a), Some(b)) => close(a, b),
                _ => false,
            })),
            Scorer::Choice => Score::Value(f(match (letter(answer), letter(truth)) {
                (Some(a), Some(b)) => a == b,
                _ => false,
            })),
            Scorer::Math => math(&extract(answer), &extract(truth), runtime).await,
            Scorer::Reward(src) => reward(src, answer, row, runtime).await,
        }
    }
}

fn f(b: bool) -> f64 {
    if b { 1.0 } else { 0.0 }
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9_f64.max(1e-4 * b.abs())
}

/// The content of the last `\boxed{...}` (braces matched), if any.
pub fn last_boxed(text: &str) -> Option<String> {
    let start = text.rfind("\\boxed{")? + "\\boxed{".len();
    let mut depth = 1;
    for (i, c) in text[start..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(text[start..start + i].to_string());
                }
            }
            _ => {}
        }
    }
    None
}

/// The answer part of a reply: the last `\boxed{}`, else what follows a final `Answer:`, else
/// the whole text.
pub fn extract(text: &str) -> String {
    if let Some(b) = last_boxed(text) {
        return b;
    }
    let lower = text.to_lowercase();
    if let Some(i) = lower.rfind("answer:") {
        return text[i + "answer:".len()..].trim().to_string();
    }
    text.trim().to_string()
}

/// Lower case, single spaces, without surrounding `$`, `.` or quotes.
pub fn normalize(s: &str) -> String {
    let s = s.trim();
    let s = s
        .strip_suffix('.')
        .unwrap_or(s)
        .trim()
        .trim_matches('$')
        .trim();
    let s = s.strip_suffix('.').unwrap_or(s);
    let s = s.trim_matches(|c| c == '"' || c == '\'');
    s.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// A number written plainly, with thousands separators, `%`, `$`, a LaTeX `\frac{a}{b}` or `a/b`.
pub fn number(s: &str) -> Option<f64> {
    let t = normalize(s)
        .replace([',', '$', '%', ' '], "")
        .replace("\\!", "")
        .replace("\\dfrac", "\\frac")
        .replace("\\tfrac", "\\frac");
    if let Some(rest) = t.strip_prefix("\\frac{") {
        let (a, b) = rest.strip_suffix('}')?.split_once("}{")?;
        return Some(a.parse::<f64>().ok()? / b.parse::<f64>().ok()?);
    }
    if let Some((a, b)) = t.split_once('/') {
        return Some(a.parse::<f64>().ok()? / b.parse::<f64>().ok()?);
    }
    t.parse::<f64>().ok().filter(|v| v.is_finite())
}

/// The multiple-choice letter in an answer: `B`, `(B)`, `B.`, `Answer: B`, `\boxed{B}`.
pub fn letter(s: &str) -> Option<char> {
    let s = extract(s);
    let t = s
        .trim()
        .trim_matches(|c| c == '(' || c == ')' || c == '.' || c == '*');
    let mut chars = t.chars();
    if let (Some(c), None) = (chars.next(), chars.next())
        && c.is_ascii_alphabetic()
    {
        return Some(c.to_ascii_uppercase());
    }
    // A sentence: the last standalone capital letter A-J.
    s.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| w.len() == 1)
        .filter_map(|w| w.chars().next())
        .rfind(|c| ('A'..='J').contains(c))
}

const SYMBOLIC: &str = r#"
import json, re, sys, sympy
def conv(s):
    s = s.strip().strip('$')
    for _ in range(8):
        t = re.sub(r'\\sqrt\{([^{}]*)\}', r'sqrt(\1)', s)
        t = re.sub(r'\\[dt]?frac\{([^{}]*)\}\{([^{}]*)\}', r'((\1)/(\2))', t)
        if t == s:
            break
        s = t
    for a, b in [('\\left', ''), ('\\right', ''), ('\\cdot', '*'), ('\\times', '*'), ('\\pi', 'pi'),
                 ('^', '**'), ('{', '('), ('}', ')'), ('\\', '')]:
        s = s.replace(a, b)
    return sympy.sympify(s, locals={'e': sympy.E, 'E': sympy.E, 'pi': sympy.pi})
a, b = json.loads(sys.stdin.read())
try:
    print(1 if sympy.simplify(conv(a) - conv(b)) == 0 else 0)
except Exception:
    print(0)
"#;

async fn math(answer: &str, truth: &str, runtime: &Arc<Runtime>) -> Score {
    if normalize(answer) == normalize(truth) {
        return Score::Value(1.0);
    }
    if let (Some(a), Some(b)) = (number(answer), number(truth)) {
        return Score::Value(f(close(a, b)));
    }
    let input = json!([answer, truth]).to_string();
    match run_python(
        runtime,
        &[("check.py", SYMBOLIC)],
        &["check.py"],
        input.as_bytes(),
    )
    .await
    {
        Ok(out) => Score::Value(f(out.trim() == "1")),
        Err(e) => Score::Error(format!("symbolic check failed: {e}")),
    }
}

const REWARD_RUNNER: &str = r#"
import json, sys
from reward import compute_score
req = json.load(open('request.json'))
row = dict(req['row'])
answer, truth = req['answer'], row.pop('ground_truth')
row.pop('agent_answer', None)
s = compute_score(answer, truth, **row)
if isinstance(s, dict):
    s = s.get('score', s.get('reward'))
print(json.dumps({'score': float(s)}))
"#;

async fn reward(src: &str, answer: &str, row: &Row, runtime: &Arc<Runtime>) -> Score {
    let mut fields = row.extra.clone();
    fields.insert("id".into(), Value::from(row.id.clone()));
    fields.insert("domain".into(), Value::from(row.domain.clone()));
    fields.insert(
        "problem_statement".into(),
        Value::from(row.problem_statement.clone()),
    );
    fields.insert("ground_truth".into(), Value::from(row.ground_truth.clone()));
    let request = json!({"answer": answer, "row": fields}).to_string();
    let files = [
        ("reward.py", src),
        ("runner.py", REWARD_RUNNER),
        ("request.json", request.as_str()),
    ];
    match run_python(runtime, &files, &["runner.py"], b"").await {
        Ok(out) => match serde_json::from_str::<Value>(out.trim())
            .ok()
            .and_then(|v| v["score"].as_f64())
        {
            Some(s) => Score::Value(s),
            None => Score::Error(format!("reward.py printed no score: {out}")),
        },
        Err(e) => Score::Error(format!("reward.py failed: {e}")),
    }
}

/// Run a small Python program in a fresh sandbox; its stdout, or the last line of its error.
async fn run_python(
    runtime: &Arc<Runtime>,
    files: &[(&str, &str)],
    args: &[&str],
    stdin: &[u8],
) -> Result<String, String> {
    // Directory work (temporary folders, files in, removal) off the async threads.
    let runtime = runtime.clone();
    let files: Vec<(String, String)> = files
        .iter()
        .map(|(n, c)| ((*n).to_string(), (*c).to_string()))
        .collect();
    let sandbox = executor::blocking(move || {
        let sandbox = Sandbox::builder(runtime)
            .limits(Limits {
                timeout: Duration::from_secs(60),
                ..Limits::default()
            })
            .build()
            .map_err(|e| e.to_string())?;
        for (name, content) in &files {
            sandbox
                .workspace()
                .write(name, content)
                .map_err(|e| e.to_string())?;
        }
        Ok::<_, String>(sandbox)
    })
    .await
    .map_err(|e| e.to_string())??;
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    let r = sandbox.python(&args, stdin).await;
    let _ = executor::blocking(move || drop(sandbox)).await;
    let r = r.map_err(|e| e.to_string())?;
    if r.exit_code != 0 {
        let err = r.stderr_text();
        let last = err.lines().last().unwrap_or("no output").to_string();
        return Err(format!("exit {} ({:?}): {last}", r.exit_code, r.outcome));
    }
    Ok(r.stdout_text())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extraction_and_normalisation() {
        assert_eq!(
            last_boxed("so \\boxed{\\frac{1}{2}} and \\boxed{x^{2}}"),
            Some("x^{2}".into())
        );
        assert_eq!(extract("Work...\nAnswer: 42"), "42");
        assert_eq!(normalize(" $Paris$. "), "paris");
        assert_eq!(number("1,234.5"), Some(1234.5));
        assert_eq!(number("\\frac{3}{4}"), Some(0.75));
        assert_eq!(number("50%"), Some(50.0));
        assert_eq!(letter("The answer is (C)."), Some('C'));
        assert_eq!(letter("\\boxed{b}"), Some('B'));
        assert!(close(0.1 + 0.2, 0.3));
    }
}
