//! The prompts. Our own wording by default; a YAML prompt file (the reference's
//! `prompt_config`) can replace them, with `{problem_statement}`, `{working_dir}`,
//! `{input_dir}`, `{output_dir}` and `{answer_file}` placeholders.

use std::path::Path;

use serde::Deserialize;

const SYSTEM: &str = "You are an expert problem solver working inside a sandboxed Linux-like \
computer. You act only through tools: `execute_bash` runs shell commands (python3 with numpy, \
scipy, sympy, pandas, matplotlib and scikit-learn is available; there is no network and nothing \
can be installed), `str_replace_editor` views and edits files, and `submit` ends the task. Work \
step by step: explore, compute with code rather than by hand when it helps, check your result, \
then write the final answer to the answer file and call `submit`.";

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
    /// `{input_dir}`.
    pub input_dir: String,
    /// `{output_dir}`.
    pub output_dir: String,
    /// `{answer_file}`.
    pub answer_file: String,
}

impl Default for Prompts {
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

/// Errors reading a prompt file.
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
}

#[derive(Deserialize)]
struct PromptFile {
    #[serde(default, alias = "system_prompt_template")]
    system_prompt: Option<String>,
    #[serde(default, alias = "instance_prompt_template", alias = "user_prompt")]
    instance_prompt: Option<String>,
}

impl Prompts {
    /// Replace the templates with those of a YAML prompt file (missing keys keep ours).
    ///
    /// # Errors
    /// [`PromptError`] when the file is unreadable, not YAML, or lacks `{problem_statement}`.
    pub fn load(mut self, path: &Path) -> Result<Self, PromptError> {
        let shown = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| PromptError::Read {
            path: shown.clone(),
            source,
        })?;
        let f: PromptFile = serde_norway::from_str(&text).map_err(|e| PromptError::Invalid {
            path: shown.clone(),
            detail: e.to_string(),
        })?;
        if let Some(s) = f.system_prompt {
            self.system = s;
        }
        if let Some(s) = f.instance_prompt {
            if !s.contains("{problem_statement}") {
                return Err(PromptError::Invalid {
                    path: shown,
                    detail: "instance_prompt has no {problem_statement} placeholder".into(),
                });
            }
            self.instance = s;
        }
        Ok(self)
    }

    fn fill(&self, template: &str, problem: &str) -> String {
        template
            .replace("{working_dir}", &self.working_dir)
            .replace("{input_dir}", &self.input_dir)
            .replace("{output_dir}", &self.output_dir)
            .replace("{answer_file}", &self.answer_file)
            // Last, so braces inside the task text are never taken for placeholders.
            .replace("{problem_statement}", problem)
    }

    /// The system prompt.
    pub fn system(&self) -> String {
        self.fill(&self.system, "")
    }

    /// The first user message for a task.
    pub fn instance(&self, problem_statement: &str) -> String {
        self.fill(&self.instance, problem_statement)
    }
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
}
