//! The rows table on the server: one or two runs' rows joined by key, filtered, sorted and
//! paged, so the browser only ever holds one page. `page.js` mirrors these rules for the
//! exported report (which has no server); keep the two in step.

use std::cmp::Ordering;
use std::collections::HashMap;

use serde::Deserialize;
use serde_json::{Value, json};

use crate::eval::report::RowResult;

/// The most rows one page may hold.
pub const MAX_PAGE: usize = 1000;

/// What the rows endpoint takes (all optional; the query string's names).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct RowQuery {
    /// First row of the page (0-based, after filtering and sorting).
    pub offset: usize,
    /// Rows per page (default 100, at most [`MAX_PAGE`]).
    pub limit: Option<usize>,
    /// Column: `id` (default), `domain`, `score`, `delta`, `steps`, `tokens`, `llm_seconds`,
    /// `sandbox_seconds`, `stop`, `error`.
    pub sort: Option<String>,
    /// Descending.
    pub desc: bool,
    /// Only this domain.
    pub domain: Option<String>,
    /// `solved` (score >= 1), `failed` (scored below 1), `unscored` (no score).
    pub score: Option<String>,
    /// `yes`: only rows with an error; `no`: only rows without.
    pub error: Option<String>,
    /// Only this stop reason.
    pub stop: Option<String>,
    /// Free text, case-insensitive, in id, domain, answer, ground truth, error, warning,
    /// stop reason and task text.
    pub q: Option<String>,
    /// Two runs: `a_not_b` (solved in A, not in B), `b_not_a`, `changed` (scores differ).
    pub only: Option<String>,
}

/// A row of the table: the same key in run A and (when given) run B.
#[derive(Debug, Clone)]
pub struct Joined<'a> {
    /// `id#repeat`.
    pub key: &'a str,
    /// Run A's row.
    pub a: Option<&'a RowResult>,
    /// Run B's row.
    pub b: Option<&'a RowResult>,
    /// The row the plain filters and columns look at: A's, else B's.
    pub main: &'a RowResult,
}

impl Joined<'_> {
    /// B's score minus A's (an error row counts 0, as in the mean), when both ran.
    pub fn delta(&self) -> Option<f64> {
        Some(self.b?.score.unwrap_or(0.0) - self.a?.score.unwrap_or(0.0))
    }
}

fn solved(r: Option<&RowResult>) -> bool {
    r.and_then(|r| r.score).is_some_and(|s| s >= 1.0)
}

/// Join by key, in A's order, then B's keys A lacks.
pub fn join<'a>(a: &'a [RowResult], b: Option<&'a [RowResult]>) -> Vec<Joined<'a>> {
    let Some(b) = b else {
        return a
            .iter()
            .map(|r| Joined {
                key: &r.key,
                a: Some(r),
                b: None,
                main: r,
            })
            .collect();
    };
    let in_b: HashMap<&str, &RowResult> = b.iter().map(|r| (r.key.as_str(), r)).collect();
    let mut out: Vec<Joined> = a
        .iter()
        .map(|r| Joined {
            key: &r.key,
            a: Some(r),
            b: in_b.get(r.key.as_str()).copied(),
            main: r,
        })
        .collect();
    let in_a: std::collections::HashSet<&str> = a.iter().map(|r| r.key.as_str()).collect();
    out.extend(
        b.iter()
            .filter(|r| !in_a.contains(r.key.as_str()))
            .map(|r| Joined {
                key: &r.key,
                a: None,
                b: Some(r),
                main: r,
            }),
    );
    out
}

fn given(o: &Option<String>) -> Option<&str> {
    o.as_deref().filter(|s| !s.is_empty())
}

fn matches(j: &Joined, q: &RowQuery, needle: Option<&str>) -> bool {
    let r = j.main;
    if let Some(d) = given(&q.domain)
        && r.domain != d
    {
        return false;
    }
    if let Some(s) = given(&q.stop)
        && r.stop != s
    {
        return false;
    }
    match given(&q.score) {
        Some("solved") if !solved(Some(r)) => return false,
        Some("failed") if !r.score.is_some_and(|s| s < 1.0) => return false,
        Some("unscored") if r.score.is_some() => return false,
        _ => {}
    }
    match given(&q.error) {
        Some("yes") if r.error.is_none() => return false,
        Some("no") if r.error.is_some() => return false,
        _ => {}
    }
    match given(&q.only) {
        Some("a_not_b") if !solved(j.a) || solved(j.b) => return false,
        Some("b_not_a") if !solved(j.b) || solved(j.a) => return false,
        Some("changed") if j.delta().is_none_or(|d| d == 0.0) => return false,
        _ => {}
    }
    if let Some(n) = needle {
        let hit = |s: &str| s.to_lowercase().contains(n);
        let side = |r: &RowResult| {
            hit(&r.id)
                || hit(&r.domain)
                || hit(&r.stop)
                || hit(&r.ground_truth)
                || r.answer.as_deref().is_some_and(hit)
                || r.error.as_deref().is_some_and(hit)
                || r.warning.as_deref().is_some_and(hit)
                || r.problem_statement.as_deref().is_some_and(hit)
        };
        if !(j.a.is_some_and(side) || j.b.is_some_and(side)) {
            return false;
        }
    }
    true
}

/// Compare ids so that `r2` comes before `r10`: runs of digits compare as numbers.
pub fn natural(a: &str, b: &str) -> Ordering {
    let (mut x, mut y) = (a.as_bytes(), b.as_bytes());
    loop {
        match (x.first(), y.first()) {
            (None, None) => return Ordering::Equal,
            (None, _) => return Ordering::Less,
            (_, None) => return Ordering::Greater,
            (Some(c), Some(d)) if c.is_ascii_digit() && d.is_ascii_digit() => {
                let n = x.iter().take_while(|c| c.is_ascii_digit()).count();
                let m = y.iter().take_while(|c| c.is_ascii_digit()).count();
                let (dx, dy) = (&x[..n], &y[..m]);
                let trim = |s: &[u8]| -> usize { s.iter().take_while(|&&c| c == b'0').count() };
                let (tx, ty) = (&dx[trim(dx)..], &dy[trim(dy)..]);
                let o = tx.len().cmp(&ty.len()).then_with(|| tx.cmp(ty));
                if o != Ordering::Equal {
                    return o;
                }
                x = &x[n..];
                y = &y[m..];
            }
            (Some(c), Some(d)) => {
                if c != d {
                    return c.cmp(d);
                }
                x = &x[1..];
                y = &y[1..];
            }
        }
    }
}

fn by_number(a: Option<f64>, b: Option<f64>) -> Ordering {
    // Missing values sort before any number.
    match (a, b) {
        (Some(x), Some(y)) => x.total_cmp(&y),
        (x, y) => x.is_some().cmp(&y.is_some()),
    }
}

fn compare(x: &Joined, y: &Joined, sort: &str) -> Ordering {
    let (a, b) = (x.main, y.main);
    let id = || natural(&a.id, &b.id).then(a.repeat.cmp(&b.repeat));
    let o = match sort {
        "domain" => a.domain.cmp(&b.domain),
        "score" => by_number(a.score, b.score),
        "delta" => by_number(x.delta(), y.delta()),
        "steps" => a.steps.cmp(&b.steps),
        "tokens" => a.tokens.cmp(&b.tokens),
        "llm_seconds" => a.llm_seconds.total_cmp(&b.llm_seconds),
        "sandbox_seconds" => a.sandbox_seconds.total_cmp(&b.sandbox_seconds),
        "stop" => a.stop.cmp(&b.stop),
        "error" => a.error.cmp(&b.error),
        _ => Ordering::Equal,
    };
    o.then_with(id)
}

/// At most `max` characters, with `…` when cut.
pub fn clip(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

/// A row as the table shows it: long texts cut, the task text left out.
pub fn brief(r: &RowResult) -> Value {
    json!({
        "key": r.key, "id": r.id, "repeat": r.repeat, "domain": r.domain, "score": r.score,
        "error": r.error.as_deref().map(|e| clip(e, 300)),
        "answer": r.answer.as_deref().map(|a| clip(a, 200)),
        "ground_truth": clip(&r.ground_truth, 200),
        "stop": r.stop, "steps": r.steps, "tokens": r.tokens,
        "llm_seconds": r.llm_seconds, "sandbox_seconds": r.sandbox_seconds,
        "warning": r.warning, "reward": r.reward,
    })
}

/// One page of the table: `{total, matched, offset, limit, rows: [{key, a, b, delta}]}`.
pub fn page(a: &[RowResult], b: Option<&[RowResult]>, q: &RowQuery) -> Value {
    let joined = join(a, b);
    let total = joined.len();
    let needle =
        q.q.as_deref()
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_lowercase);
    let mut hits: Vec<Joined> = joined
        .into_iter()
        .filter(|j| matches(j, q, needle.as_deref()))
        .collect();
    let sort = q.sort.as_deref().unwrap_or("id");
    hits.sort_by(|x, y| {
        let o = compare(x, y, sort);
        if q.desc { o.reverse() } else { o }
    });
    let limit = q.limit.unwrap_or(100).clamp(1, MAX_PAGE);
    let rows: Vec<Value> = hits
        .iter()
        .skip(q.offset)
        .take(limit)
        .map(
            |j| json!({"key": j.key, "a": j.a.map(brief), "b": j.b.map(brief), "delta": j.delta()}),
        )
        .collect();
    json!({"total": total, "matched": hits.len(), "offset": q.offset, "limit": limit, "rows": rows})
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(id: &str, domain: &str, score: Option<f64>) -> RowResult {
        RowResult {
            key: format!("{id}#0"),
            id: id.into(),
            repeat: 0,
            domain: domain.into(),
            score,
            error: score.is_none().then(|| "boom".to_string()),
            answer: None,
            ground_truth: String::new(),
            stop: "submitted".into(),
            steps: 0,
            tokens: 0,
            llm_seconds: 0.0,
            sandbox_seconds: 0.0,
            warning: None,
            problem_statement: None,
            reward: None,
            judge: None,
            no_call_steps: 0,
        }
    }

    #[test]
    fn ids_sort_naturally() {
        let mut v = vec!["r10", "r2", "r1", "a", "r02x"];
        v.sort_by(|a, b| natural(a, b));
        assert_eq!(v, ["a", "r1", "r2", "r02x", "r10"]);
    }

    #[test]
    fn filters_and_the_two_run_join() {
        let a = [
            row("1", "math", Some(1.0)),
            row("2", "math", Some(0.0)),
            row("3", "bio", None),
        ];
        let b = [
            row("1", "math", Some(0.0)),
            row("2", "math", Some(1.0)),
            row("4", "bio", Some(1.0)),
        ];
        let keys = |v: &Value| -> Vec<String> {
            v["rows"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r["key"].as_str().unwrap().to_string())
                .collect()
        };
        let q = |f: fn(&mut RowQuery)| {
            let mut q = RowQuery::default();
            f(&mut q);
            q
        };
        let p = page(&a, Some(&b), &RowQuery::default());
        assert_eq!(
            (p["total"].as_u64(), keys(&p)),
            (
                Some(4),
                vec!["1#0".into(), "2#0".into(), "3#0".into(), "4#0".into()]
            )
        );
        assert_eq!(
            keys(&page(&a, Some(&b), &q(|q| q.only = Some("a_not_b".into())))),
            ["1#0"]
        );
        assert_eq!(
            keys(&page(&a, Some(&b), &q(|q| q.only = Some("b_not_a".into())))),
            ["2#0", "4#0"]
        );
        assert_eq!(
            keys(&page(&a, None, &q(|q| q.error = Some("yes".into())))),
            ["3#0"]
        );
        assert_eq!(
            keys(&page(&a, None, &q(|q| q.domain = Some("math".into())))),
            ["1#0", "2#0"]
        );
        assert_eq!(
            keys(&page(&a, None, &q(|q| q.q = Some("BOOM".into())))),
            ["3#0"]
        );
        let p = page(
            &a,
            Some(&b),
            &q(|q| {
                q.sort = Some("delta".into());
                q.desc = true;
            }),
        );
        assert_eq!(keys(&p)[0], "2#0");
        let p = page(
            &a,
            None,
            &q(|q| {
                q.offset = 1;
                q.limit = Some(1);
            }),
        );
        assert_eq!(
            (keys(&p), p["matched"].as_u64()),
            (vec!["2#0".to_string()], Some(3))
        );
    }
}
