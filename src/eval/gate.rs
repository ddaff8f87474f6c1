//! CI gates on a run's summary: `--fail-under SCORE` (overall or per domain) and
//! `--max-errors N`. A run that misses one gets a one-line reason and a non-zero exit.

use serde_json::Value;

/// A score threshold: the overall `mean_score`, or one domain's.
#[derive(Debug, Clone, PartialEq)]
pub struct ScoreGate {
    /// `None` for the overall score.
    pub domain: Option<String>,
    /// The lowest passing score, 0..=1.
    pub min: f64,
}

/// A gate that cannot be parsed.
#[derive(Debug, thiserror::Error, PartialEq)]
#[non_exhaustive]
pub enum GateError {
    /// Not a number, a percentage or `DOMAIN=SCORE`.
    #[error(
        "{0:?} is not a score: give a fraction (0.85), a percentage (85%) or DOMAIN=SCORE \
         (math=0.9)"
    )]
    Syntax(String),
    /// Outside 0..=1 (0%..=100%).
    #[error("{0:?} is outside 0-1 (0%-100%)")]
    Range(String),
}

impl std::str::FromStr for ScoreGate {
    type Err = GateError;

    /// `0.85`, `85%`, `math=0.9` or `math=90%`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let text = s.trim();
        let (domain, value) = match text.rsplit_once('=') {
            Some((d, v)) if !d.trim().is_empty() => (Some(d.trim().to_string()), v.trim()),
            Some(_) => return Err(GateError::Syntax(s.to_string())),
            None => (None, text),
        };
        let min = match value.strip_suffix('%') {
            Some(p) => p.trim().parse::<f64>().map(|p| p / 100.0),
            None => value.parse::<f64>(),
        }
        .map_err(|_| GateError::Syntax(s.to_string()))?;
        if !(0.0..=1.0).contains(&min) {
            return Err(GateError::Range(s.to_string()));
        }
        Ok(ScoreGate { domain, min })
    }
}

/// The gates of a run.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Gates {
    /// Score thresholds.
    pub scores: Vec<ScoreGate>,
    /// The most error rows allowed.
    pub max_errors: Option<u64>,
}

fn pct(v: f64) -> String {
    format!("{:.1}%", v * 100.0)
}

impl Gates {
    /// Whether there is anything to check.
    pub fn is_empty(&self) -> bool {
        self.scores.is_empty() && self.max_errors.is_none()
    }

    /// What the summary misses, one phrase per failed gate (empty: every gate passed). A gate
    /// on a domain the run has no rows of fails (a typo must not pass silently). Scores are
    /// `mean_score`: error rows count as 0.
    pub fn check(&self, summary: &Value) -> Vec<String> {
        let mut failed = Vec::new();
        for g in &self.scores {
            match &g.domain {
                None => {
                    let score = summary["mean_score"].as_f64().unwrap_or(0.0);
                    if score < g.min {
                        failed.push(format!("overall score {} < {}", pct(score), pct(g.min)));
                    }
                }
                Some(d) => match summary["domains"][d.as_str()]["mean_score"].as_f64() {
                    Some(score) if score >= g.min => {}
                    Some(score) => {
                        failed.push(format!("{d} score {} < {}", pct(score), pct(g.min)))
                    }
                    None => failed.push(format!(
                        "domain {d:?} has no rows (domains: {})",
                        summary["domains"]
                            .as_object()
                            .map(|m| m.keys().cloned().collect::<Vec<_>>().join(", "))
                            .unwrap_or_default()
                    )),
                },
            }
        }
        if let Some(max) = self.max_errors {
            let errors = summary["num_errors"].as_u64().unwrap_or(0);
            if errors > max {
                failed.push(format!("{errors} error rows > --max-errors {max}"));
            }
        }
        failed
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn scores_parse_as_fractions_percentages_and_per_domain() {
        let g = |s: &str| s.parse::<ScoreGate>();
        assert_eq!(
            g("0.85").unwrap(),
            ScoreGate {
                domain: None,
                min: 0.85
            }
        );
        assert_eq!(g("85%").unwrap().min, 0.85);
        let d = g("math=90%").unwrap();
        assert_eq!((d.domain.as_deref(), d.min), (Some("math"), 0.9));
        assert!(matches!(g("1.5"), Err(GateError::Range(_))));
        assert!(matches!(g("=0.5"), Err(GateError::Syntax(_))));
        assert!(matches!(g("high"), Err(GateError::Syntax(_))));
    }

    #[test]
    fn check_names_each_failed_gate() {
        let summary = json!({"mean_score": 0.75, "num_errors": 2,
            "domains": {"math": {"mean_score": 1.0}, "physics": {"mean_score": 0.5}}});
        let gates = Gates {
            scores: vec![
                "0.7".parse().unwrap(),
                "math=1".parse().unwrap(),
                "physics=60%".parse().unwrap(),
                "chem=0.1".parse().unwrap(),
            ],
            max_errors: Some(1),
        };
        assert_eq!(
            gates.check(&summary),
            [
                "physics score 50.0% < 60.0%",
                "domain \"chem\" has no rows (domains: math, physics)",
                "2 error rows > --max-errors 1",
            ]
        );
        let pass = Gates {
            scores: vec!["75%".parse().unwrap()],
            max_errors: Some(2),
        };
        assert!(pass.check(&summary).is_empty());
    }
}
