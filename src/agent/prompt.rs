//! The prompts. Our own wording by default; a task's or a YAML prompt file's
//! `system_prompt` / `instance_prompt` replace them, filled as the reference fills them: the
//! folder placeholders `{working_dir}`, `{input_dir}`, `{output_dir}` (and our
//! `{answer_file}`) by plain substitution first, then Python `str.format` rules: the system
//! prompt knows `{command_docs}` and `{demo}` (both empty), the instance prompt
//! `{problem_statement}`; `{{` / `}}` are literal braces; any other `{name}` is an error
//! naming it and the file.

use std::path::Path;

use serde::Deserialize;

const SYSTEM: &str = "You are an expert problem solver working inside a sandboxed Linux-like \
computer. You act only through tools: `execute_bash` runs shell commands (python3 with numpy, \
scipy, sympy, pandas, matplotlib and scikit-learn is available; `pip install` adds pure-Python \
packages; the network is off unless the run allows hosts), `str_replace_editor` views and edits \
files, and `submit` ends the task. Work step by step: explore, compute with code rather than by \
hand when it helps, check your result, then write the final answer to the answer file and call \
`submit`.";

const INSTANCE: &str = "Task:\n{problem_statement}\n\nYour working directory is {working_dir}. \
Input files, if any, are in {input_dir}. Write your final answer to {answer_file} (only the \
answer, no explanation) and put any other deliverables in {output_dir}. Then call `submit`.";

/// System and instance prompt templates plus the directories they mention.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prompts {
    /// The system prompt template.
    pub system: String,
    /// The first user message template.
    pub instance: String,
    /// `{working_dir}`.
    pub working_dir: String,
    /// `{input_dir}`: where input files are written.
    pub input_dir: String,
    /// `{output_dir}`.
    pub output_dir: String,
    /// `{answer_file}`: where the answer is read (`{output_dir}/answer.txt` for prompts from a
    /// file or task folder).
    pub answer_file: String,
}

impl Default for Prompts {
    /// Our wording with the reference's benchmark folders: `/testbed`, `/testbed/documents`,
    /// `/testbed`, answer in `/testbed/answer.txt`.
    fn default() -> Self {
        Prompts {
            system: SYSTEM.into(),
            instance: INSTANCE.into(),
            working_dir: "/testbed".into(),
            input_dir: "/testbed/documents".into(),
            output_dir: "/testbed".into(),
            answer_file: "/testbed/answer.txt".into(),
        }
    }
}

/// Errors reading a prompt file or filling its templates.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PromptError {
    /// The file cannot be read.
    #[error("cannot read prompt file {path}: {source}")]
    Read {
        /// The file.
        path: String,
        /// The OS error.
        source: std::io::Error,
    },
    /// The file is not the expected YAML.
    #[error(
        "prompt file {path} is not valid: {detail}\nexpected YAML with `system_prompt` and/or `instance_prompt` (the latter containing {{problem_statement}})"
    )]
    Invalid {
        /// The file.
        path: String,
        /// What is wrong.
        detail: String,
    },
    /// A template does not fill (unknown placeholder, stray brace).
    #[error(
        "{path}: {which} {detail} (known placeholders: {known}; write {{{{ and }}}} for literal braces)"
    )]
    Template {
        /// The file (or `built-in prompts`).
        path: String,
        /// `system_prompt` or `instance_prompt`.
        which: &'static str,
        /// What is wrong.
        detail: String,
        /// The placeholders that template knows.
        known: String,
    },
}

#[derive(Deserialize)]
struct PromptFile {
    #[serde(default, alias = "system_prompt_template")]
    system_prompt: Option<String>,
    #[serde(default, alias = "instance_prompt_template", alias = "user_prompt")]
    instance_prompt: Option<String>,
    #[serde(default)]
    working_dir: Option<String>,
    #[serde(default)]
    input_dir: Option<String>,
    #[serde(default)]
    output_dir: Option<String>,
}

/// The folders a prompt file or task folder may set.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Folders {
    /// `working_dir`.
    pub working_dir: Option<String>,
    /// `input_dir`.
    pub input_dir: Option<String>,
    /// `output_dir` (the answer is `{output_dir}/answer.txt`).
    pub output_dir: Option<String>,
}

const SYSTEM_NAMES: &[&str] = &["command_docs", "demo"];
const INSTANCE_NAMES: &[&str] = &["problem_statement"];
const FOLDER_NAMES: &str = "{working_dir}, {input_dir}, {output_dir}, {answer_file}";

impl Prompts {
    /// Replace the templates and folders with those of a YAML prompt file (the reference's
    /// `prompt_config`: `system_prompt`, `instance_prompt`, `working_dir`, `input_dir`,
    /// `output_dir`; missing keys keep ours), then check that both templates fill.
    ///
    /// # Errors
    /// [`PromptError`] when the file is unreadable, not YAML, or a template does not fill.
    pub fn load(self, path: &Path) -> Result<Self, PromptError> {
        let shown = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| PromptError::Read {
            path: shown.clone(),
            source,
        })?;
        let f: PromptFile = serde_norway::from_str(&text).map_err(|e| PromptError::Invalid {
            path: shown.clone(),
            detail: e.to_string(),
        })?;
        let folders = Folders {
            working_dir: f.working_dir,
            input_dir: f.input_dir,
            output_dir: f.output_dir,
        };
        self.with(f.system_prompt, f.instance_prompt, &folders, &shown)
    }

    /// These prompts with other templates and folders (a task folder's inline prompts), checked.
    ///
    /// # Errors
    /// [`PromptError`] when the instance prompt lacks `{problem_statement}` or a template does
    /// not fill; `source` names the file in the message.
    pub fn with(
        mut self,
        system: Option<String>,
        instance: Option<String>,
        folders: &Folders,
        source: &str,
    ) -> Result<Self, PromptError> {
        if let Some(s) = system {
            self.system = s;
        }
        if let Some(s) = instance {
            if !s.contains("{problem_statement}") {
                return Err(PromptError::Invalid {
                    path: source.to_string(),
                    detail: "instance_prompt has no {problem_statement} placeholder".into(),
                });
            }
            self.instance = s;
        }
        if let Some(d) = &folders.working_dir {
            self.working_dir = d.clone();
        }
        if let Some(d) = &folders.input_dir {
            self.input_dir = d.clone();
        }
        if let Some(d) = &folders.output_dir {
            self.output_dir = d.clone();
            self.answer_file = format!("{}/answer.txt", d.trim_end_matches('/'));
        }
        self.check(source)?;
        Ok(self)
    }

    /// Check that both templates fill.
    ///
    /// # Errors
    /// [`PromptError::Template`] naming the placeholder or brace at fault and `source`.
    pub fn check(&self, source: &str) -> Result<(), PromptError> {
        let template = |which, names: &[&str], text: &str| {
            format_py(&self.folders(text), names, &[]).map_err(|detail| PromptError::Template {
                path: source.to_string(),
                which,
                detail,
                known: format!(
                    "{FOLDER_NAMES}, {}",
                    names
                        .iter()
                        .map(|n| format!("{{{n}}}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            })
        };
        template("system_prompt", SYSTEM_NAMES, &self.system)?;
        template("instance_prompt", INSTANCE_NAMES, &self.instance)?;
        Ok(())
    }

    /// The folder placeholders replaced by plain substitution (before `str.format`).
    fn folders(&self, template: &str) -> String {
        template
            .replace("{working_dir}", &self.working_dir)
            .replace("{input_dir}", &self.input_dir)
            .replace("{output_dir}", &self.output_dir)
            .replace("{answer_file}", &self.answer_file)
    }

    /// The system prompt (a template that does not fill is shown as written; [`Prompts::check`]
    /// catches that when the prompts are loaded).
    pub fn system(&self) -> String {
        let text = self.folders(&self.system);
        format_py(&text, SYSTEM_NAMES, &[("command_docs", ""), ("demo", "")]).unwrap_or(text)
    }

    /// The first user message for a task.
    pub fn instance(&self, problem_statement: &str) -> String {
        let text = self.folders(&self.instance);
        format_py(
            &text,
            INSTANCE_NAMES,
            &[("problem_statement", problem_statement)],
        )
        .unwrap_or(text)
    }
}

/// Python `str.format` with keyword arguments only: `{name}` is replaced by its value (names
/// in `known` without a value give the empty string), `{{` and `}}` are literal braces. As
/// Python, an unknown name, a positional `{}`, a stray `}` or an unclosed `{` is an error;
/// conversions and format specs (`{x!r}`, `{x:>4}`) are refused by name.
pub fn format_py(
    template: &str,
    known: &[&str],
    values: &[(&str, &str)],
) -> Result<String, String> {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(i) = rest.find(['{', '}']) {
        out.push_str(&rest[..i]);
        let tail = &rest[i..];
        if let Some(after) = tail.strip_prefix("{{") {
            out.push('{');
            rest = after;
        } else if let Some(after) = tail.strip_prefix("}}") {
            out.push('}');
            rest = after;
        } else if tail.starts_with('}') {
            return Err("has a single `}` (Python's str.format refuses it)".into());
        } else {
            let Some(end) = tail.find('}') else {
                return Err("has a `{` that is never closed".into());
            };
            let field = &tail[1..end];
            if field.is_empty() {
                return Err("has a positional placeholder `{}`".into());
            }
            if field.contains(['!', ':', '.', '[', '{']) {
                return Err(format!(
                    "has the placeholder `{{{field}}}`, which uses a conversion, format spec or attribute we do not support"
                ));
            }
            if !known.contains(&field) {
                return Err(format!("has the unknown placeholder `{{{field}}}`"));
            }
            let value = values
                .iter()
                .find(|(k, _)| *k == field)
                .map_or("", |(_, v)| *v);
            out.push_str(value);
            rest = &tail[end + 1..];
        }
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_are_filled_and_task_braces_kept() {
        let p = Prompts::default();
        let s = p.instance("compute {x} for x=2");
        assert!(s.contains("compute {x} for x=2"));
        assert!(s.contains("/testbed/answer.txt"));
        assert!(!s.contains("{answer_file}"));
    }

    #[test]
    fn str_format_rules() {
        let known = ["problem_statement"];
        let v = [("problem_statement", "P {y}")];
        assert_eq!(
            format_py("a {{b}} {problem_statement} }}{{", &known, &v).unwrap(),
            "a {b} P {y} }{"
        );
        assert!(
            format_py("{nope}", &known, &v)
                .unwrap_err()
                .contains("`{nope}`")
        );
        assert!(
            format_py("{}", &known, &v)
                .unwrap_err()
                .contains("positional")
        );
        assert!(
            format_py("a } b", &known, &v)
                .unwrap_err()
                .contains("single")
        );
        assert!(
            format_py("a { b", &known, &v)
                .unwrap_err()
                .contains("never closed")
        );
        assert!(format_py("{problem_statement!r}", &known, &v).is_err());
    }

    #[test]
    fn folders_and_unknown_names_in_task_prompts() {
        let folders = Folders {
            working_dir: Some("/w".into()),
            input_dir: None,
            output_dir: Some("/w/out/".into()),
        };
        let p = Prompts::default()
            .with(
                Some("sys {working_dir} {demo}{command_docs} {{json}}".into()),
                Some("<p>{problem_statement}</p> -> {output_dir}/answer.txt".into()),
                &folders,
                "t/config.yaml",
            )
            .unwrap();
        assert_eq!(p.system(), "sys /w  {json}");
        assert_eq!(p.instance("x"), "<p>x</p> -> /w/out//answer.txt");
        assert_eq!(p.answer_file, "/w/out/answer.txt");
        assert_eq!(p.input_dir, "/testbed/documents");
        let e = Prompts::default()
            .with(
                None,
                Some("{problem_statement} {answer_format}".into()),
                &Folders::default(),
                "t/config.yaml",
            )
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("t/config.yaml") && e.contains("{answer_format}"),
            "{e}"
        );
    }
}
