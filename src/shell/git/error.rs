//! Why a git command failed, and the exit status each failure gives.

/// Why a git command failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum GitError {
    /// git's `fatal:` errors (exit status 128).
    #[error("fatal: {0}")]
    Fatal(String),
    /// Bad options or arguments (exit status 129).
    #[error("{0}")]
    Usage(String),
    /// A refusal with its own words and exit status.
    #[error("{text}")]
    Failed {
        /// The message, as printed.
        text: String,
        /// The exit status.
        code: i32,
    },
    /// A path outside the sandbox's directories.
    #[error(
        "fatal: '{0}' is outside the sandbox's directories: git works only under /testbed, /tmp and /root here"
    )]
    Outside(String),
    /// The file layer failed.
    #[error("fatal: {what}: {source}")]
    Io {
        /// What was being done.
        what: String,
        /// The file system's error.
        #[source]
        source: bashkit::Error,
    },
    /// The repository holds something unreadable.
    #[error("fatal: {0}")]
    Corrupt(String),
    /// The command's time ran out.
    #[error("fatal: stopped: the command's time limit passed")]
    Deadline,
}

impl GitError {
    /// The exit status git gives this error.
    pub(super) fn code(&self) -> i32 {
        match self {
            GitError::Usage(_) => 129,
            GitError::Failed { code, .. } => *code,
            _ => 128,
        }
    }
}
