//! Errors loading a task, and reading a task's files with the path in the error.

use std::path::{Path, PathBuf};

/// Errors loading a task.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TaskError {
    /// A file could not be read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// The task config is invalid.
    #[error("{path}: {detail}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        detail: String,
    },
    /// The task's prompts do not fill.
    #[error(transparent)]
    Prompts(#[from] crate::agent::prompt::PromptError),
    /// A Hugging Face dataset could not be had.
    #[error(transparent)]
    Hub(#[from] Box<super::hub::HubError>),
    /// No such task.
    #[error("no task named {0:?}: give a task directory, or one of: {1}")]
    Unknown(String, String),
    /// `--dataset-config`, `--split` or `--data` do not apply to this task.
    #[error("{0}")]
    Choice(String),
    /// A task of the reference package that we do not ship.
    #[error(
        "we have no small offline set for the reference's task {0:?}; run the reference's own \
         with --task {0} (its task folder and Hub dataset)"
    )]
    NotShipped(String),
}

/// The text of a task file; the error names the file.
pub(super) fn read(path: &Path) -> Result<String, TaskError> {
    std::fs::read_to_string(path).map_err(|source| TaskError::Read {
        path: path.to_path_buf(),
        source,
    })
}
