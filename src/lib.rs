//! llm-in-sandbox: run LLM agents' bash and Python in an in-process WebAssembly sandbox
//! (CPython compiled to WASI, run by wasmtime) instead of a Docker container.
//!
//! Layers, each knowing only the one below:
//! - [`agent::Episode`]: the loop: model turns, tool calls, budgets, trajectory.
//! - [`llm::Client`]: an OpenAI-compatible chat-completions client; [`tools`]: the tool contract.
//! - [`shell::Shell`]: the in-process bash behind `execute_bash`, with `python3` in WASM.
//! - [`sandbox::Sandbox`]: one episode's workspace + Python runtime.
//! - [`runtime::Runtime`]: the shared engine, compiled module cache and fresh instances.
//! - [`workspace::Workspace`]: the per-episode directory, reached only through a capability.
//! - [`artifacts`]: getting and verifying the pinned Python WASM runtime.
//! - [`packages`]: extra pure-Python packages (site layer, `pip install`), used by the runtime.
//! - [`layout`] and [`quota`]: the guest's file-system layout and the disk quota, below all of
//!   the above.

pub mod agent;
pub mod artifacts;
pub mod config;
pub mod eval;
pub mod fsutil;
pub mod layout;
pub mod lazy_dir;
pub mod llm;
pub mod packages;
pub mod quota;
pub mod reference;
pub mod runtime;
pub mod sandbox;
pub mod serve;
pub mod shell;
pub mod toolchain;
pub mod tools;
pub mod view;
pub mod workspace;

use artifacts::{SetupError, SetupOptions};
use runtime::{Runtime, RuntimeConfig, RuntimeError};

/// Errors from [`load_runtime`].
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LoadError {
    /// Getting or verifying the artifacts failed.
    #[error(transparent)]
    Setup(#[from] SetupError),
    /// Building the engine or loading the module failed.
    #[error(transparent)]
    Runtime(#[from] RuntimeError),
}

/// Make sure the runtime artifacts are installed and verified (downloading them if needed),
/// then load the runtime (compiling the module once if it is not cached).
/// `progress` receives one-line messages about slow steps.
///
/// # Errors
/// [`LoadError`] with the failing file and what to do.
pub fn load_runtime(
    setup: &SetupOptions,
    config: &RuntimeConfig,
    progress: &(dyn Fn(&str) + Sync),
) -> Result<Runtime, LoadError> {
    let files = artifacts::ensure(setup, progress)?;
    Ok(Runtime::load(files, config, progress)?)
}
