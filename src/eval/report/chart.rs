//! The SVG bar chart of a run's scores per domain (`results.svg`, and `view`'s chart).
//!
//! Written by hand rather than with a plotting crate: one kind of chart, a few dozen lines of
//! markup, no fonts or rasterising needed, and the bytes stay exactly as earlier runs wrote them.

use serde_json::Value;

use super::esc;

/// The group of `domain` (or `overall`) in a summary.
fn group<'a>(s: &'a Value, domain: &str) -> &'a Value {
    if domain == "overall" {
        &s["overall"]
    } else {
        &s["domains"][domain]
    }
}

/// A bar chart (SVG) of the score per domain for one or more labelled summaries: each bar
/// with its value, its row count and errors under it, the min-max over repeats as a whisker
/// when rows ran more than once. Two summaries of which one is `llm` mode and the other
/// `llm-in-sandbox` are drawn as the paper's Figure 1: the plain LLM first, the sandbox next
/// to it, and the difference (sandbox - llm, in points) above each domain.
/// Ours rather than a plotting crate (`plotters`, `charming`): see the module comment.
pub fn svg(series: &[(&str, &Value)]) -> String {
    let chart = Chart::new(series);
    let mut out = chart.header();
    chart.legend(&mut out);
    chart.grid(&mut out);
    for (i, d) in chart.domains.iter().enumerate() {
        chart.domain(&mut out, i, d);
    }
    out.push_str("</svg>\n");
    out
}

const COLORS: [&str; 6] = [
    "#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#b07aa1",
];
const BAR: f64 = 40.0;
const GAP: f64 = 30.0;
const LEFT: f64 = 60.0;
const HEIGHT: f64 = 300.0;

/// What is drawn and where: the series (plain LLM first when comparing), the domains, and the
/// geometry every part of the chart shares.
struct Chart<'a> {
    series: Vec<(&'a str, &'a Value)>,
    /// An `llm` run beside a sandbox run: draw the difference above each domain.
    compare: bool,
    /// Sorted, then `overall`.
    domains: Vec<String>,
    /// The most repeats any series ran, when rows ran more than once.
    repeats: Option<u64>,
    top: f64,
    group_w: f64,
    width: f64,
    axis: f64,
}

impl<'a> Chart<'a> {
    fn new(series: &[(&'a str, &'a Value)]) -> Chart<'a> {
        let mut series: Vec<(&str, &Value)> = series.to_vec();
        let mode = |s: &Value| s["config"]["mode"].as_str().unwrap_or("").to_string();
        let compare = series.len() == 2 && {
            let (a, b) = (mode(series[0].1), mode(series[1].1));
            let sandbox = |m: &str| m == "llm-in-sandbox" || m == "sandbox";
            (a == "llm" && sandbox(&b)) || (b == "llm" && sandbox(&a))
        };
        if compare && mode(series[0].1) != "llm" {
            series.swap(0, 1);
        }
        let mut domains: Vec<String> = series
            .iter()
            .flat_map(|(_, s)| {
                s["domains"]
                    .as_object()
                    .map(|d| d.keys().cloned().collect::<Vec<_>>())
                    .unwrap_or_default()
            })
            .collect();
        domains.sort();
        domains.dedup();
        domains.push("overall".into());
        let repeats = series
            .iter()
            .filter_map(|(_, s)| s["overall"]["spread"]["repeats"].as_u64())
            .max();
        let legend_lines = series.len() + usize::from(repeats.is_some());
        let top = 60.0 + 16.0 * legend_lines as f64 + if compare { 26.0 } else { 8.0 };
        let group_w = BAR * series.len() as f64 + GAP;
        let width = (LEFT + group_w * domains.len() as f64 + 30.0).max(520.0);
        Chart {
            series,
            compare,
            domains,
            repeats,
            top,
            group_w,
            width,
            axis: top + HEIGHT,
        }
    }

    /// The y of a score (clamped to 0..1).
    fn y_of(&self, score: f64) -> f64 {
        self.top + HEIGHT * (1.0 - score.clamp(0.0, 1.0))
    }

    /// The opening `<svg>`, the white background, the title and the note under it.
    fn header(&self) -> String {
        let (left, width) = (LEFT, self.width);
        let task = self
            .series
            .first()
            .and_then(|(_, s)| s["task"].as_str())
            .unwrap_or("benchmark");
        let title = if self.compare {
            format!("{task}: LLM vs LLM-in-Sandbox, score per domain")
        } else {
            format!("{task}: score per domain")
        };
        let note = if self.compare {
            "bars: mean score (error rows count as 0); above each pair: sandbox - llm, in points"
        } else {
            "bars: mean score (error rows count as 0); under each bar: rows and errors"
        };
        format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width:.0}\" height=\"{:.0}\" font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n<text x=\"{left}\" y=\"24\" font-size=\"16\" font-weight=\"bold\">{}</text>\n<text x=\"{left}\" y=\"42\" font-size=\"11\" fill=\"#555\">{}</text>\n",
            self.axis + 110.0,
            esc(&title),
            esc(note)
        )
    }

    /// One line per series (colour, label, rows, errors), and the whisker's meaning.
    fn legend(&self, out: &mut String) {
        let left = LEFT;
        for (j, (label, s)) in self.series.iter().enumerate() {
            let y = 56.0 + 16.0 * j as f64;
            out.push_str(&format!(
                "<rect x=\"{left}\" y=\"{:.0}\" width=\"12\" height=\"12\" fill=\"{}\"/><text x=\"{:.0}\" y=\"{:.0}\">{} ({} rows, {} errors)</text>\n",
                y,
                COLORS[j % COLORS.len()],
                left + 16.0,
                y + 11.0,
                esc(label),
                s["overall"]["rows"].as_u64().unwrap_or(0),
                s["overall"]["errors"].as_u64().unwrap_or(0),
            ));
        }
        if let Some(k) = self.repeats {
            let y = 56.0 + 16.0 * self.series.len() as f64;
            let cx = left + 6.0;
            out.push_str(&format!(
                "<g stroke=\"#222\" stroke-width=\"1.5\"><line x1=\"{cx}\" x2=\"{cx}\" y1=\"{y}\" y2=\"{:.0}\"/><line x1=\"{:.0}\" x2=\"{:.0}\" y1=\"{y}\" y2=\"{y}\"/><line x1=\"{:.0}\" x2=\"{:.0}\" y1=\"{:.0}\" y2=\"{:.0}\"/></g><text x=\"{:.0}\" y=\"{:.0}\">min-max over {k} repeats</text>\n",
                y + 12.0,
                cx - 4.0,
                cx + 4.0,
                cx - 4.0,
                cx + 4.0,
                y + 12.0,
                y + 12.0,
                left + 16.0,
                y + 11.0,
            ));
        }
    }

    /// The horizontal lines at 0, 25, 50, 75 and 100%.
    fn grid(&self, out: &mut String) {
        let left = LEFT;
        for pct in [0, 25, 50, 75, 100] {
            let y = self.top + HEIGHT * (1.0 - pct as f64 / 100.0);
            out.push_str(&format!(
                "<line x1=\"{left}\" x2=\"{:.0}\" y1=\"{y:.1}\" y2=\"{y:.1}\" stroke=\"{}\"/><text x=\"{:.0}\" y=\"{:.1}\" text-anchor=\"end\">{pct}%</text>\n",
                self.width - 20.0,
                if pct == 0 { "#888" } else { "#ddd" },
                left - 6.0,
                y + 4.0
            ));
        }
    }

    /// The `i`-th domain: a bar per series, the difference when comparing, and its name.
    fn domain(&self, out: &mut String, i: usize, d: &str) {
        let x0 = LEFT + GAP / 2.0 + self.group_w * i as f64;
        let mut highest = 0f64;
        for (j, (_, s)) in self.series.iter().enumerate() {
            highest = highest.max(self.bar(out, x0 + BAR * j as f64, j, group(s, d), d));
        }
        if self.compare {
            self.delta(out, x0, d, highest);
        }
        let lx = x0 + BAR * self.series.len() as f64 / 2.0;
        let ly = self.axis + 40.0;
        out.push_str(&format!(
            "<text x=\"{lx:.1}\" y=\"{ly:.1}\" text-anchor=\"end\" transform=\"rotate(-30 {lx:.1} {ly:.1})\"{}>{}</text>\n",
            if d == "overall" { " font-weight=\"bold\"" } else { "" },
            esc(d)
        ));
    }

    /// One bar at `x` for series `j` in domain `d` (group `g`): its row and error counts under
    /// it, the bar, the whisker, the value. The highest point labelled (0 when there is no
    /// score).
    fn bar(&self, out: &mut String, x: f64, j: usize, g: &Value, d: &str) -> f64 {
        let axis = self.axis;
        let cx = x + BAR / 2.0;
        let rows = g["rows"].as_u64().unwrap_or(0);
        let errors = g["errors"].as_u64().unwrap_or(0);
        if rows > 0 {
            out.push_str(&format!(
                "<text x=\"{cx:.1}\" y=\"{:.1}\" text-anchor=\"middle\" font-size=\"10\" fill=\"#555\">n={rows}</text>\n",
                axis + 13.0
            ));
        }
        if errors > 0 {
            out.push_str(&format!(
                "<text x=\"{cx:.1}\" y=\"{:.1}\" text-anchor=\"middle\" font-size=\"10\" fill=\"#c00\">{errors} err</text>\n",
                axis + 25.0
            ));
        }
        let Some(score) = g["mean_score"].as_f64() else {
            return 0.0;
        };
        let h = HEIGHT * score.clamp(0.0, 1.0);
        out.push_str(&format!(
            "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{h:.1}\" fill=\"{}\"><title>{}: {:.1}%</title></rect>\n",
            x + 2.0,
            axis - h,
            BAR - 4.0,
            COLORS[j % COLORS.len()],
            esc(d),
            score * 100.0
        ));
        let mut label_top = score;
        if let (Some(lo), Some(hi)) = (g["spread"]["min"].as_f64(), g["spread"]["max"].as_f64()) {
            let (ylo, yhi) = (self.y_of(lo), self.y_of(hi));
            out.push_str(&format!(
                "<g class=\"spread\" stroke=\"#222\" stroke-width=\"1.5\"><line x1=\"{cx:.1}\" x2=\"{cx:.1}\" y1=\"{ylo:.1}\" y2=\"{yhi:.1}\"/><line x1=\"{:.1}\" x2=\"{:.1}\" y1=\"{ylo:.1}\" y2=\"{ylo:.1}\"/><line x1=\"{:.1}\" x2=\"{:.1}\" y1=\"{yhi:.1}\" y2=\"{yhi:.1}\"/><title>min {:.1}% max {:.1}% over {} repeats</title></g>\n",
                cx - 6.0,
                cx + 6.0,
                cx - 6.0,
                cx + 6.0,
                lo * 100.0,
                hi * 100.0,
                g["spread"]["repeats"].as_u64().unwrap_or(0)
            ));
            label_top = label_top.max(hi);
        }
        out.push_str(&format!(
            "<text class=\"value\" x=\"{cx:.1}\" y=\"{:.1}\" text-anchor=\"middle\" font-size=\"11\">{:.1}</text>\n",
            self.y_of(label_top) - 4.0,
            score * 100.0
        ));
        label_top
    }

    /// Sandbox minus plain LLM, in points, above the domain's bars.
    fn delta(&self, out: &mut String, x0: f64, d: &str, highest: f64) {
        let (Some(llm), Some(sandbox)) = (
            group(self.series[0].1, d)["mean_score"].as_f64(),
            group(self.series[1].1, d)["mean_score"].as_f64(),
        ) else {
            return;
        };
        let delta = (sandbox - llm) * 100.0;
        let (color, sign) = if delta >= 0.0 {
            ("#1a7f37", "+")
        } else {
            ("#c00", "")
        };
        out.push_str(&format!(
            "<text class=\"delta\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" font-size=\"12\" font-weight=\"bold\" fill=\"{color}\">{sign}{delta:.1}</text>\n",
            x0 + BAR * self.series.len() as f64 / 2.0,
            self.y_of(highest) - 20.0
        ));
    }
}
