//! Which repository files form a (config, split): the README's YAML front matter (`configs:`,
//! `data_files`, `data_dir`) and the `push_to_hub` and converted layouts. Pure functions over
//! file lists, tested without a network.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use super::glob::glob_match;

/// How the README's `configs:` entry names its files.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum DataFiles {
    /// Split name to patterns.
    Splits(Vec<(String, Vec<String>)>),
    /// No `data_files`: the split is inferred from names under this folder (`""`: the root).
    Dir(String),
}

/// One entry of the README's `configs:` list.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct ConfigSpec {
    name: String,
    default: bool,
    data: DataFiles,
}

/// The YAML between a leading `---` line and the next `---` (or `...`) line.
/// Ours rather than a front-matter crate: a dozen lines, and the YAML is parsed by
/// `serde_norway` as every other YAML of the project.
fn front_matter(text: &str) -> Option<&str> {
    let t = text.trim_start_matches('\u{feff}');
    let mut lines = t.split_inclusive('\n');
    let first = lines.next()?;
    if first.trim_end() != "---" {
        return None;
    }
    let start = first.len();
    let mut pos = start;
    for line in lines {
        if matches!(line.trim_end(), "---" | "...") {
            return Some(&t[start..pos]);
        }
        pos += line.len();
    }
    None
}

fn clean_dir(dir: &str) -> &str {
    dir.trim().trim_start_matches("./").trim_matches('/')
}

fn clean_pattern(p: &str, dir: &str) -> String {
    let p = p.trim().trim_start_matches("./").trim_start_matches('/');
    let dir = clean_dir(dir);
    if dir.is_empty() {
        p.to_string()
    } else {
        format!("{dir}/{p}")
    }
}

fn patterns_of(v: &Value, dir: &str) -> Result<Vec<String>, String> {
    match v {
        Value::String(s) => Ok(vec![clean_pattern(s, dir)]),
        Value::Array(items) => items
            .iter()
            .map(|i| match i {
                Value::String(s) => Ok(clean_pattern(s, dir)),
                other => Err(format!("a data file pattern must be text, not {other}")),
            })
            .collect(),
        other => Err(format!(
            "`path` must be a pattern or a list of patterns, not {other}"
        )),
    }
}

fn data_files_of(v: &Value, dir: &str) -> Result<Vec<(String, Vec<String>)>, String> {
    match v {
        Value::String(_) => Ok(vec![("train".into(), patterns_of(v, dir)?)]),
        Value::Array(items) if items.iter().all(Value::is_string) => {
            Ok(vec![("train".into(), patterns_of(v, dir)?)])
        }
        Value::Array(items) => items
            .iter()
            .map(|item| {
                let split = item
                    .get("split")
                    .map(|s| match s {
                        Value::String(s) => Ok(s.clone()),
                        other => Err(format!("`split` must be text, not {other}")),
                    })
                    .transpose()?
                    .unwrap_or_else(|| "train".into());
                let path = item
                    .get("path")
                    .ok_or_else(|| format!("data_files entry {item} has no `path`"))?;
                Ok((split, patterns_of(path, dir)?))
            })
            .collect(),
        Value::Object(map) => map
            .iter()
            .map(|(split, p)| Ok((split.clone(), patterns_of(p, dir)?)))
            .collect(),
        other => Err(format!(
            "`data_files` must be a pattern, a list or a mapping, not {other}"
        )),
    }
}

/// The README's `configs:` list; `None` when it has no front matter or no `configs:`.
pub(super) fn readme_configs(text: &str) -> Result<Option<Vec<ConfigSpec>>, String> {
    let Some(yaml) = front_matter(text) else {
        return Ok(None);
    };
    let doc: serde_norway::Value = serde_norway::from_str(yaml).map_err(|e| e.to_string())?;
    let Some(configs) = doc.get("configs") else {
        return Ok(None);
    };
    let configs = serde_json::to_value(configs).map_err(|e| format!("`configs`: {e}"))?;
    let items = match configs {
        Value::Null => return Ok(None),
        Value::Array(items) => items,
        other => return Err(format!("`configs` must be a list, not {other}")),
    };
    let mut specs = Vec::new();
    for item in items {
        let Value::Object(o) = item else {
            return Err(format!("a `configs` entry must be a mapping, not {item}"));
        };
        let name = match o.get("config_name") {
            None | Some(Value::Null) => "default".to_string(),
            Some(Value::String(s)) => s.clone(),
            Some(other) => return Err(format!("`config_name` must be text, not {other}")),
        };
        let dir = match o.get("data_dir") {
            None | Some(Value::Null) => String::new(),
            Some(Value::String(s)) => s.clone(),
            Some(other) => return Err(format!("`data_dir` must be text, not {other}")),
        };
        let data = match o.get("data_files") {
            None | Some(Value::Null) => DataFiles::Dir(clean_dir(&dir).to_string()),
            Some(v) => DataFiles::Splits(
                data_files_of(v, &dir).map_err(|e| format!("config {name}: {e}"))?,
            ),
        };
        let default = o.get("default").and_then(Value::as_bool).unwrap_or(false);
        specs.push(ConfigSpec {
            name,
            default,
            data,
        });
    }
    Ok(Some(specs))
}

/// The outcome of matching a (config, split) against a repository's files.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Pick {
    /// The data files, sorted.
    Files(Vec<String>),
    /// Declared in the README, but no file matches.
    NoFiles {
        config: String,
        patterns: Vec<String>,
    },
    NoConfig {
        available: Vec<String>,
    },
    ConfigRequired {
        available: Vec<String>,
    },
    NoSplit {
        config: String,
        available: Vec<String>,
    },
}

fn is_data_file(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    lower.ends_with(".parquet") || lower.ends_with(".jsonl") || lower.ends_with(".json")
}

/// The split a file under a `data_dir` belongs to: its first folder, or its name up to the
/// first `-` or `.` (`train-0000.parquet`, `test.jsonl`).
fn inferred_split(rel: &str) -> Option<String> {
    let rel = rel.strip_prefix("data/").unwrap_or(rel);
    let first = match rel.split_once('/') {
        Some((dir, _)) => dir.strip_prefix("partial-").unwrap_or(dir),
        None => rel.split(['-', '.']).next().unwrap_or(rel),
    };
    (!first.is_empty() && !first.starts_with('.')).then(|| first.to_string())
}

fn pick_in_dir(files: &[String], dir: &str, config: &str, split: &str) -> Pick {
    let mut splits = BTreeSet::new();
    let mut found = Vec::new();
    for f in files.iter().filter(|f| is_data_file(f)) {
        let rel = if dir.is_empty() {
            f.as_str()
        } else {
            match f.strip_prefix(dir).and_then(|r| r.strip_prefix('/')) {
                Some(r) => r,
                None => continue,
            }
        };
        if let Some(s) = inferred_split(rel) {
            if s == split {
                found.push(f.clone());
            }
            splits.insert(s);
        }
    }
    if found.is_empty() {
        Pick::NoSplit {
            config: config.to_string(),
            available: splits.into_iter().collect(),
        }
    } else {
        found.sort();
        Pick::Files(found)
    }
}

fn pick_readme(specs: &[ConfigSpec], files: &[String], config: Option<&str>, split: &str) -> Pick {
    let names = || specs.iter().map(|s| s.name.clone()).collect::<Vec<_>>();
    let chosen = match config {
        Some(c) => specs.iter().find(|s| s.name == c),
        None => specs
            .iter()
            .find(|s| s.default)
            .or_else(|| (specs.len() == 1).then(|| &specs[0]))
            .or_else(|| specs.iter().find(|s| s.name == "default")),
    };
    let Some(spec) = chosen else {
        return match config {
            Some(_) => Pick::NoConfig { available: names() },
            None => Pick::ConfigRequired { available: names() },
        };
    };
    match &spec.data {
        DataFiles::Dir(dir) => pick_in_dir(files, dir, &spec.name, split),
        DataFiles::Splits(splits) => {
            let Some((_, patterns)) = splits.iter().find(|(s, _)| s == split) else {
                return Pick::NoSplit {
                    config: spec.name.clone(),
                    available: splits.iter().map(|(s, _)| s.clone()).collect(),
                };
            };
            let mut found: Vec<String> = files
                .iter()
                .filter(|f| patterns.iter().any(|p| glob_match(p, f)))
                .cloned()
                .collect();
            found.sort();
            found.dedup();
            if found.is_empty() {
                Pick::NoFiles {
                    config: spec.name.clone(),
                    patterns: patterns.clone(),
                }
            } else {
                Pick::Files(found)
            }
        }
    }
}

/// Configs and their splits in the `push_to_hub` (`CONFIG/SPLIT-*.parquet`,
/// `data/SPLIT-*.parquet`) and converted (`CONFIG/SPLIT/*.parquet`) layouts.
fn conventional_layout(files: &[String]) -> BTreeMap<String, BTreeSet<String>> {
    let mut layout: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for f in files.iter().filter(|f| f.ends_with(".parquet")) {
        let parts: Vec<&str> = f.split('/').collect();
        let (config, split) = match parts.as_slice() {
            [dir, name] => match name.split_once('-') {
                Some((split, _)) if !split.is_empty() => {
                    (if *dir == "data" { "default" } else { dir }, split)
                }
                _ => continue,
            },
            [dir, split, _] => (*dir, split.strip_prefix("partial-").unwrap_or(split)),
            _ => continue,
        };
        layout
            .entry(config.to_string())
            .or_default()
            .insert(split.to_string());
    }
    layout
}

fn pick_conventions(files: &[String], config: Option<&str>, split: &str) -> Pick {
    let layout = conventional_layout(files);
    let cfg = match config {
        Some(c) => c.to_string(),
        None if layout.contains_key("default") || layout.is_empty() => "default".into(),
        None if layout.len() == 1 => layout.keys().next().cloned().unwrap_or_default(),
        None => {
            return Pick::ConfigRequired {
                available: layout.keys().cloned().collect(),
            };
        }
    };
    let dir = if cfg == "default" {
        "data"
    } else {
        cfg.as_str()
    };
    let pushed: Vec<String> = files
        .iter()
        .filter(|f| {
            f.ends_with(".parquet")
                && f.split_once('/').is_some_and(|(d, name)| {
                    d == dir
                        && !name.contains('/')
                        && name.strip_prefix(split).is_some_and(|r| r.starts_with('-'))
                })
        })
        .cloned()
        .collect();
    let converted = |split_dir: &str| -> Vec<String> {
        files
            .iter()
            .filter(|f| {
                let parts: Vec<&str> = f.split('/').collect();
                f.ends_with(".parquet")
                    && parts.len() == 3
                    && parts[0] == cfg
                    && parts[1] == split_dir
            })
            .cloned()
            .collect()
    };
    let mut found = pushed;
    if found.is_empty() {
        found = converted(split);
    }
    if found.is_empty() {
        found = converted(&format!("partial-{split}"));
    }
    if !found.is_empty() {
        found.sort();
        return Pick::Files(found);
    }
    match layout.get(&cfg) {
        Some(splits) => Pick::NoSplit {
            config: cfg,
            available: splits.iter().cloned().collect(),
        },
        None => Pick::NoConfig {
            available: layout.keys().cloned().collect(),
        },
    }
}

pub(super) fn pick(
    files: &[String],
    specs: Option<&[ConfigSpec]>,
    config: Option<&str>,
    split: &str,
) -> Pick {
    match specs {
        Some(specs) if !specs.is_empty() => pick_readme(specs, files, config, split),
        _ => pick_conventions(files, config, split),
    }
}

fn union(a: Vec<String>, b: Vec<String>) -> Vec<String> {
    a.into_iter()
        .chain(b)
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect()
}

/// Two misses (from `main` and from the converted revision) as one: the more specific wins,
/// lists of the same kind are joined.
pub(super) fn merge(a: Pick, b: Pick) -> Pick {
    fn rank(p: &Pick) -> u8 {
        match p {
            Pick::Files(_) => 4,
            Pick::NoSplit { .. } => 3,
            Pick::NoFiles { .. } => 2,
            Pick::ConfigRequired { .. } => 1,
            Pick::NoConfig { .. } => 0,
        }
    }
    match (a, b) {
        (Pick::NoConfig { available: x }, Pick::NoConfig { available: y }) => Pick::NoConfig {
            available: union(x, y),
        },
        (Pick::ConfigRequired { available: x }, Pick::ConfigRequired { available: y }) => {
            Pick::ConfigRequired {
                available: union(x, y),
            }
        }
        (
            Pick::NoSplit {
                config,
                available: x,
            },
            Pick::NoSplit {
                config: c2,
                available: y,
            },
        ) if config == c2 => Pick::NoSplit {
            config,
            available: union(x, y),
        },
        (a, b) => {
            if rank(&b) > rank(&a) {
                b
            } else {
                a
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    const README: &str = "---\nlicense: mit\ndataset_info:\n  features:\n  - name: id\n    dtype: string\nconfigs:\n- config_name: math\n  data_files:\n  - split: test\n    path: math/test-*\n  - split: train\n    path:\n    - math/train-a.parquet\n    - ./math/train-b.parquet\n- config_name: physics\n  default: true\n  data_files: physics/*.jsonl\n- config_name: chem\n  data_dir: chem\n---\n# Title\n\n---\nnot front matter\n";

    #[test]
    fn readme_front_matter_gives_configs_in_every_data_files_form() {
        let specs = readme_configs(README).unwrap().unwrap();
        assert_eq!(
            specs,
            vec![
                ConfigSpec {
                    name: "math".into(),
                    default: false,
                    data: DataFiles::Splits(vec![
                        ("test".into(), files(&["math/test-*"])),
                        (
                            "train".into(),
                            files(&["math/train-a.parquet", "math/train-b.parquet"])
                        ),
                    ]),
                },
                ConfigSpec {
                    name: "physics".into(),
                    default: true,
                    data: DataFiles::Splits(vec![("train".into(), files(&["physics/*.jsonl"]))]),
                },
                ConfigSpec {
                    name: "chem".into(),
                    default: false,
                    data: DataFiles::Dir("chem".into()),
                },
            ]
        );
        assert_eq!(readme_configs("# no front matter\n").unwrap(), None);
        assert_eq!(readme_configs("---\nlicense: mit\n---\n").unwrap(), None);
        let mapping = "---\nconfigs:\n- config_name: x\n  data_files:\n    test: x/t.parquet\n    dev: [x/d1.parquet, x/d2.parquet]\n---\n";
        let specs = readme_configs(mapping).unwrap().unwrap();
        assert_eq!(
            specs[0].data,
            // In the order the README writes them.
            DataFiles::Splits(vec![
                ("test".into(), files(&["x/t.parquet"])),
                ("dev".into(), files(&["x/d1.parquet", "x/d2.parquet"])),
            ])
        );
        assert!(readme_configs("---\nconfigs: 3\n---\n").is_err());
        assert!(readme_configs("---\nconfigs:\n- config_name: [1]\n---\n").is_err());
        assert!(readme_configs("---\nconfigs: [\n---\n").is_err());
        assert!(readme_configs("---\nconfigs:\n- data_files:\n  - split: a\n---\n").is_err());
    }

    #[test]
    fn readme_configs_pick_files_splits_and_defaults() {
        let specs = readme_configs(README).unwrap().unwrap();
        let repo = files(&[
            "README.md",
            "math/test-00001-of-00002.parquet",
            "math/test-00000-of-00002.parquet",
            "math/train-a.parquet",
            "physics/b.jsonl",
            "physics/a.jsonl",
            "chem/test-0.parquet",
            "chem/dev/x.parquet",
        ]);
        let p = |c: Option<&str>, s: &str| pick(&repo, Some(&specs), c, s);
        assert_eq!(
            p(Some("math"), "test"),
            Pick::Files(files(&[
                "math/test-00000-of-00002.parquet",
                "math/test-00001-of-00002.parquet"
            ]))
        );
        assert_eq!(
            p(Some("math"), "train"),
            Pick::Files(files(&["math/train-a.parquet"]))
        );
        assert_eq!(
            p(None, "train"),
            Pick::Files(files(&["physics/a.jsonl", "physics/b.jsonl"]))
        );
        assert_eq!(
            p(Some("math"), "dev"),
            Pick::NoSplit {
                config: "math".into(),
                available: files(&["test", "train"])
            }
        );
        assert_eq!(
            p(Some("bio"), "test"),
            Pick::NoConfig {
                available: files(&["math", "physics", "chem"])
            }
        );
        assert_eq!(
            p(Some("chem"), "dev"),
            Pick::Files(files(&["chem/dev/x.parquet"]))
        );
        assert_eq!(
            p(Some("chem"), "test"),
            Pick::Files(files(&["chem/test-0.parquet"]))
        );
        let only_readme = files(&["README.md"]);
        assert_eq!(
            pick(&only_readme, Some(&specs), Some("math"), "test"),
            Pick::NoFiles {
                config: "math".into(),
                patterns: files(&["math/test-*"])
            }
        );
        let no_default = &specs[..1]
            .iter()
            .chain(&specs[2..])
            .cloned()
            .collect::<Vec<_>>();
        assert_eq!(
            pick(&repo, Some(no_default), None, "test"),
            Pick::ConfigRequired {
                available: files(&["math", "chem"])
            }
        );
    }

    #[test]
    fn conventions_push_to_hub_and_converted() {
        let repo = files(&[
            "README.md",
            "math/test-00000-of-00001.parquet",
            "math/train-00000-of-00001.parquet",
            "data/test-00000-of-00001.parquet",
            "physics/test/0001.parquet",
            "physics/test/0000.parquet",
            "big/partial-train/0000.parquet",
            "notes/readme.txt",
        ]);
        let p = |c: Option<&str>, s: &str| pick(&repo, None, c, s);
        assert_eq!(
            p(Some("math"), "test"),
            Pick::Files(files(&["math/test-00000-of-00001.parquet"]))
        );
        assert_eq!(
            p(None, "test"),
            Pick::Files(files(&["data/test-00000-of-00001.parquet"]))
        );
        assert_eq!(
            p(Some("default"), "test"),
            Pick::Files(files(&["data/test-00000-of-00001.parquet"]))
        );
        assert_eq!(
            p(Some("physics"), "test"),
            Pick::Files(files(&[
                "physics/test/0000.parquet",
                "physics/test/0001.parquet"
            ]))
        );
        assert_eq!(
            p(Some("big"), "train"),
            Pick::Files(files(&["big/partial-train/0000.parquet"]))
        );
        assert_eq!(
            p(Some("math"), "validation"),
            Pick::NoSplit {
                config: "math".into(),
                available: files(&["test", "train"])
            }
        );
        assert_eq!(
            p(Some("chem"), "test"),
            Pick::NoConfig {
                available: files(&["big", "default", "math", "physics"])
            }
        );
        // A config named like a split prefix is not confused with another split.
        let tricky = files(&["math/testing-0.parquet"]);
        assert_eq!(
            pick(&tricky, None, Some("math"), "test"),
            Pick::NoSplit {
                config: "math".into(),
                available: files(&["testing"])
            }
        );
        // Without a default config and several configs, a name is required.
        let two = files(&["a/test-0.parquet", "b/test-0.parquet"]);
        assert_eq!(
            pick(&two, None, None, "test"),
            Pick::ConfigRequired {
                available: files(&["a", "b"])
            }
        );
        let one = files(&["a/test-0.parquet"]);
        assert_eq!(
            pick(&one, None, None, "test"),
            Pick::Files(files(&["a/test-0.parquet"]))
        );
    }

    #[test]
    fn misses_merge_to_the_most_specific() {
        let a = Pick::NoConfig {
            available: files(&["x", "y"]),
        };
        let b = Pick::NoConfig {
            available: files(&["y", "z"]),
        };
        assert_eq!(
            merge(a.clone(), b),
            Pick::NoConfig {
                available: files(&["x", "y", "z"])
            }
        );
        let split = Pick::NoSplit {
            config: "x".into(),
            available: files(&["train"]),
        };
        assert_eq!(merge(a, split.clone()), split);
    }
}
