//! Python calls: a native process against ours, in-process calls in fresh and reused
//! sandboxes, light calls after heavy ones, imports; the stock snapshot and what each module
//! costs to import from it.

use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};

use llm_in_sandbox::runtime::{Runtime, RuntimeConfig};
use llm_in_sandbox::sandbox::Sandbox;

use super::measure::{Row, first_output, fresh_call, median, ms, repeat};
use super::{GlobalArgs, PerfArgs};

/// A native process, our `exec` process, and in-process calls (fresh and reused sandboxes,
/// light calls after heavy ones, imports). Returns the native start and the preloaded imports,
/// the baselines of later rows.
pub(super) fn python_rows(
    global: &GlobalArgs,
    args: &PerfArgs,
    rt: &tokio::runtime::Runtime,
    runtime: &Arc<Runtime>,
    rows: &mut Vec<Row>,
) -> anyhow::Result<(Duration, Duration)> {
    let n = args.iterations.max(1);
    eprintln!("measuring {n} iterations each...");
    let native = process_rows(global, args, n, rows)?;
    let vs_native = Some((native, "native process"));
    let mut in_process = |code: &'static str| fresh_call(rt, runtime, code);
    let fresh = repeat(n, in_process("print(1)"))?;
    rows.push((
        "in-process fresh sandbox + `print(1)`".into(),
        fresh,
        vs_native,
    ));
    super::phases::where_time_goes(rt, runtime, n, native, rows)?;
    reused_sandbox_rows(rt, runtime, n, native, rows)?;
    let numpy = repeat(n.min(10), in_process("import numpy; print(1)"))?;
    rows.push((
        "in-process fresh sandbox + `import numpy`".into(),
        numpy,
        vs_native,
    ));
    numpy_call_rows(args, n, &mut in_process, rows)?;
    let sympy = repeat(n.min(5), in_process("import sympy; print(1)"))?;
    rows.push((
        "in-process fresh sandbox + `import sympy`".into(),
        sympy,
        vs_native,
    ));

    let preloaded_imports = repeat(n, in_process("import numpy, sympy; print(1)"))?;
    rows.push((
        format!(
            "in-process fresh sandbox + `import numpy, sympy` (snapshot with {} imported)",
            snapshot_holds(runtime)
        ),
        preloaded_imports,
        vs_native,
    ));
    Ok((native, preloaded_imports))
}

/// The same numpy call (a 100x100 solve) in a native process that imports numpy, when the
/// native Python has numpy (`--native-python`; stderr says when not), and in a fresh sandbox.
fn numpy_call_rows<F: FnMut() -> anyhow::Result<Duration>>(
    args: &PerfArgs,
    n: usize,
    in_process: &mut impl FnMut(&'static str) -> F,
    rows: &mut Vec<Row>,
) -> anyhow::Result<()> {
    const CALL: &str = "import numpy as np; a = np.eye(100) * 4 + 1; \
                        print(np.linalg.solve(a, a @ np.ones(100)).sum())";
    let has_numpy = Command::new(&args.native_python)
        .args(["-c", "import numpy"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_numpy {
        eprintln!(
            "the numpy-call rows are skipped: {} cannot import numpy (pass --native-python)",
            args.native_python
        );
        return Ok(());
    }
    // The native process varies most (its `import numpy` loads some 160 modules): more runs.
    let native = repeat(n.min(20), || {
        first_output(Command::new(&args.native_python).args(["-c", CALL]))
    })?;
    rows.push((
        "native process importing numpy + a 100x100 `np.linalg.solve`, start to first output"
            .into(),
        native,
        None,
    ));
    let ours = repeat(n, in_process(CALL))?;
    rows.push((
        "in-process fresh sandbox + the same numpy call".into(),
        ours,
        Some((native, "native numpy process")),
    ));
    Ok(())
}

/// A native `python3` process and our `exec` process, start to first output; the native
/// figure is returned as the baseline of the rows after it.
fn process_rows(
    global: &GlobalArgs,
    args: &PerfArgs,
    n: usize,
    rows: &mut Vec<Row>,
) -> anyhow::Result<Duration> {
    let exe = std::env::current_exe().context("cannot find our own executable")?;
    let native = repeat(n, || {
        first_output(Command::new(&args.native_python).args(["-c", "print(1)"]))
    })?;
    rows.push((
        "native `python3 -c 'print(1)'` process, start to first output".into(),
        native,
        None,
    ));

    let exec_cmd = || {
        let mut c = Command::new(&exe);
        c.args(["exec", "--", "python3", "-c", "print(1)"]);
        if let Some(dir) = &global.cache_dir {
            c.arg("--cache-dir").arg(dir);
        }
        c
    };
    let ours = repeat(n, || first_output(&mut exec_cmd()))?;
    rows.push((
        "`llm-in-sandbox exec -- python3 -c 'print(1)'` process, start to first output".into(),
        ours,
        Some((native, "native process")),
    ));
    Ok(native)
}

/// `python3 -c CODE` in an existing sandbox (a fresh instance each time), timed.
fn timed_call(
    rt: &tokio::runtime::Runtime,
    sandbox: &Sandbox,
    code: &str,
) -> anyhow::Result<Duration> {
    let started = Instant::now();
    let r = rt.block_on(sandbox.python(&["-c".into(), code.into()], b""))?;
    let elapsed = started.elapsed();
    if r.exit_code != 0 {
        bail!("{code} failed: {}", r.stderr_text());
    }
    Ok(elapsed)
}

/// Calls in one existing sandbox: light calls on their own, then light calls after heavier
/// work.
fn reused_sandbox_rows(
    rt: &tokio::runtime::Runtime,
    runtime: &Arc<Runtime>,
    n: usize,
    native: Duration,
    rows: &mut Vec<Row>,
) -> anyhow::Result<()> {
    let call = |sandbox: &Sandbox, code: &str| timed_call(rt, sandbox, code);
    let reuse = {
        let sandbox = Sandbox::builder(runtime.clone()).build()?;
        repeat(n, || call(&sandbox, "print(1)"))?
    };
    rows.push((
        "`python3 -c 'print(1)'` in an existing sandbox (fresh instance)".into(),
        reuse,
        Some((native, "native process")),
    ));
    // Light calls in a sandbox that also does heavier work (numpy, sympy and pandas, writing
    // tens of MiB): the first light call after it, which starts from a slot that had to be
    // released, and the next one, back to the steady state of a long agent session.
    let (first_after, second_after) = {
        let sandbox = Sandbox::builder(runtime.clone()).build()?;
        let work = "import numpy as np, sympy as sp, pandas as pd\n\
                    a = np.random.rand(300, 300); b = a @ a\n\
                    x = sp.Symbol('x'); sp.integrate(sp.sin(x) ** 2, x)\n\
                    pd.DataFrame(np.random.rand(10000, 8)).describe()";
        let (mut first, mut second) = (Vec::new(), Vec::new());
        for _ in 0..n {
            call(&sandbox, work)?;
            first.push(call(&sandbox, "print(1)")?);
            second.push(call(&sandbox, "print(1)")?);
        }
        (median(first), median(second))
    };
    rows.push((
        "`python3 -c 'print(1)'` just after a numpy/sympy/pandas call in that sandbox".into(),
        first_after,
        Some((native, "native process")),
    ));
    rows.push((
        "the next `python3 -c 'print(1)'` in that sandbox".into(),
        second_after,
        Some((native, "native process")),
    ));
    Ok(())
}

/// The stock snapshot (loaded, and compiled once if missing) against the preloaded one.
pub(super) fn stock_rows(
    global: &GlobalArgs,
    rt: &tokio::runtime::Runtime,
    runtime: &Arc<Runtime>,
    n: usize,
    (native, preloaded_imports): (Duration, Duration),
    rows: &mut Vec<Row>,
) -> anyhow::Result<()> {
    let mut config = RuntimeConfig::new(llm_in_sandbox::artifacts::cache_root(
        global.cache_dir.as_deref(),
    ));
    config.preload.clear();
    let stock = Arc::new(Runtime::load(runtime.files().clone(), &config, &|m| {
        eprintln!("  {m}")
    })?);
    let stock_run = |code: &'static str| fresh_call(rt, &stock, code);
    let stock_print = repeat(n, stock_run("print(1)"))?;
    rows.push((
        "stock snapshot: fresh sandbox + `print(1)`".into(),
        stock_print,
        Some((native, "native process")),
    ));
    let stock_imports = repeat(n.min(5), stock_run("import numpy, sympy; print(1)"))?;
    rows.push((
        "stock snapshot: fresh sandbox + `import numpy, sympy`".into(),
        stock_imports,
        None,
    ));
    rows.push((
        "preloaded vs stock: `import numpy, sympy`".into(),
        preloaded_imports,
        Some((stock_imports, "stock")),
    ));
    import_costs(rt, runtime, &stock, n)?;
    Ok(())
}

/// What the snapshot of `runtime` has imported, for labels.
pub(super) fn snapshot_holds(runtime: &Runtime) -> String {
    match runtime.preloaded() {
        [] => "nothing (stock)".to_string(),
        m => m.join(", "),
    }
}

/// What each candidate module costs to import on every call from the stock snapshot, against
/// this runtime's snapshot: the measurement behind the default preload list.
pub(super) fn import_costs(
    rt: &tokio::runtime::Runtime,
    runtime: &Arc<Runtime>,
    stock: &Arc<Runtime>,
    n: usize,
) -> anyhow::Result<()> {
    // The default set, plus heavy modules it leaves out.
    let candidates = llm_in_sandbox::runtime::parse_preload("+sklearn,statsmodels.api");
    println!(
        "\nImport cost per call (fresh sandbox + `import M`; snapshot with {} imported):\n",
        snapshot_holds(runtime)
    );
    println!("| module | stock snapshot | this snapshot | saved per call |");
    println!("|---|---|---|---|");
    for m in &candidates {
        let code = format!("import {m}");
        let cold = repeat(n.min(3), fresh_call(rt, stock, code.clone()))?;
        let warm = repeat(n.min(10), fresh_call(rt, runtime, code))?;
        println!(
            "| {m} | {} | {} | {} |",
            ms(cold),
            ms(warm),
            ms(cold.saturating_sub(warm))
        );
    }
    println!();
    Ok(())
}
