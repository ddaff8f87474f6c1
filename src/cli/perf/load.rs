//! Loading the runtime from the compiled cache, and a first-ever compile.

use std::sync::Arc;
use std::time::Instant;

use llm_in_sandbox::runtime::{Runtime, RuntimeConfig};

use super::GlobalArgs;
use super::measure::{Row, repeat};

/// Loading the runtime from the compiled cache, and (with `compile`) a first-ever compile.
pub(super) fn load_rows(
    global: &GlobalArgs,
    runtime: &Arc<Runtime>,
    n: usize,
    compile: bool,
    rows: &mut Vec<Row>,
) -> anyhow::Result<()> {
    let cached = repeat(n.min(5), || {
        let started = Instant::now();
        let config = RuntimeConfig::new(llm_in_sandbox::artifacts::cache_root(
            global.cache_dir.as_deref(),
        ));
        let r = Runtime::load(runtime.files().clone(), &config, &|_| {})?;
        let elapsed = started.elapsed();
        drop(r);
        Ok(elapsed)
    })?;
    rows.push((
        "load runtime from the compiled cache (engine + deserialize + link)".into(),
        cached,
        None,
    ));

    if compile {
        let tmp = tempfile::tempdir()?;
        let started = Instant::now();
        let config = RuntimeConfig::new(tmp.path());
        let _r: Arc<Runtime> = Arc::new(Runtime::load(runtime.files().clone(), &config, &|m| {
            eprintln!("  {m}")
        })?);
        let compile = started.elapsed();
        rows.push(("first-ever compile (no cache)".into(), compile, None));
        rows.push((
            "load from cache vs first-ever compile".into(),
            cached,
            Some((compile, "compile")),
        ));
    }
    Ok(())
}
