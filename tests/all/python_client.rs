//! The Python side of `serve`, with the published clients: `clients/python`'s own suite
//! (our client and `WasmRuntime`, the `sandbox-fusion` client, the official `mcp` client)
//! against the real binary. The test makes its own venv with them on first use
//! (`common::venv::client_python`; `LLM_IN_SANDBOX_TEST_PYTHON` names another Python), or set
//! LLM_IN_SANDBOX_SKIP_PY_CLIENT=1 to skip.

use std::process::Command;

#[test]
fn python_client_suite_passes() {
    if std::env::var_os("LLM_IN_SANDBOX_SKIP_PY_CLIENT").is_some() {
        eprintln!("skipped: LLM_IN_SANDBOX_SKIP_PY_CLIENT is set");
        return;
    }
    // Make sure the shared runtime is set up before the servers start.
    let _ = crate::common::runtime();
    let python = crate::common::venv::client_python();
    let root = env!("CARGO_MANIFEST_DIR");
    let probe = Command::new(&python)
        .args([
            "-c",
            "import pytest, sandbox_fusion, mcp, llm_in_sandbox_client, llm_in_sandbox, \
             math_verify, rouge_score, skyrl_gym",
        ])
        .output()
        .unwrap_or_else(|e| panic!("cannot run {python}: {e}"));
    assert!(
        probe.status.success(),
        "the Python client tests need their packages: `{python} -m pip install '{root}/clients/python[test]'` \
         (or set LLM_IN_SANDBOX_SKIP_PY_CLIENT=1):\n{}",
        String::from_utf8_lossy(&probe.stderr)
    );
    let out = Command::new(&python)
        .args(["-m", "pytest", "-q", "-x", "-p", "no:cacheprovider"])
        .arg(format!("{root}/clients/python/tests"))
        .env("LLM_IN_SANDBOX_BIN", env!("CARGO_BIN_EXE_llm-in-sandbox"))
        // The servers the suite starts use the tests' cache, not the user's `--with` list.
        .env("LLM_IN_SANDBOX_CACHE", crate::common::cache_root())
        .env_remove("LLM_IN_SANDBOX_WITH")
        .output()
        .unwrap_or_else(|e| panic!("cannot run pytest: {e}"));
    assert!(
        out.status.success(),
        "the Python client suite failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}
