//! A pre-initialized module: the stock snapshot with chosen modules (numpy, sympy, ...) already
//! imported, made once with `wasmtime-wizer` and cached. Every run still starts from a fresh
//! copy-on-write instance of it; the driver re-seeds what the snapshot froze (every random
//! generator in the loaded modules' globals, listed when the snapshot is made) and resets env,
//! cwd and argv on every call.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};
use wasmtime::{Config, Engine, Instance, Linker, Module, Store};
use wasmtime_wasi::p1::WasiP1Ctx;
use wasmtime_wasi::{FsPerms, WasiCtxBuilder};
use wasmtime_wizer::{InstanceState, SnapshotVal, ValType, Wizer};

use super::{RuntimeError, layout};
use crate::artifacts::RuntimeFiles;

/// wasmtime-wizer's version (part of the cache key).
const WIZER_VERSION: &str = "48.0.8";

/// The identity of a preloaded module: stock snapshot + module list + driver + tool version.
pub(super) fn key(stock_sha256: &str, modules: &[String], layer: Option<&str>) -> String {
    let mut h = Sha256::new();
    h.update(stock_sha256.as_bytes());
    if let Some(layer) = layer {
        h.update(b"\0site layer ");
        h.update(layer.as_bytes());
    }
    h.update(b"\0wizer secrets runpy traceback driver rng-words base-env net warm-up blas-buffer immortal gc-freeze site-path home passive-data numpy-warm-up plug last-step-turn ");
    h.update(Sha256::digest(IMMORTAL.as_bytes()));
    h.update(WIZER_VERSION.as_bytes());
    for (k, v) in layout::DEFAULT_ENV {
        h.update(format!("\0env {k}={v}").as_bytes());
    }
    h.update(Sha256::digest(super::DRIVER.as_bytes()));
    for m in modules {
        h.update(b"\0");
        h.update(m.as_bytes());
    }
    hex::encode(&h.finalize()[..16])
}

struct State {
    wasi: WasiP1Ctx,
}

struct Snapshotter<'a> {
    store: &'a mut Store<State>,
    instance: Instance,
}

impl InstanceState for Snapshotter<'_> {
    async fn global_get(&mut self, name: &str, _: ValType) -> SnapshotVal {
        let value = self
            .instance
            .get_global(&mut *self.store, name)
            .map(|g| g.get(&mut *self.store));
        match value {
            Some(wasmtime::Val::I32(x)) => SnapshotVal::I32(x),
            Some(wasmtime::Val::I64(x)) => SnapshotVal::I64(x),
            Some(wasmtime::Val::F32(x)) => SnapshotVal::F32(x),
            Some(wasmtime::Val::F64(x)) => SnapshotVal::F64(x),
            Some(wasmtime::Val::V128(x)) => SnapshotVal::V128(x.as_u128()),
            // wizer only asks for globals it exported itself, all of numeric type.
            _ => SnapshotVal::I32(0),
        }
    }

    async fn memory_contents(&mut self, name: &str, contents: impl FnOnce(&[u8]) + Send) {
        match self.instance.get_memory(&mut *self.store, name) {
            Some(m) => contents(m.data(&*self.store)),
            None => contents(&[]),
        }
    }
}

/// Makes the snapshot's objects immortal, then fills the allocator's free chunks (run last,
/// before `gc.freeze()`).
const IMMORTAL: &str = include_str!("immortal.py");

/// The turn that runs the snapshot's last step, which the driver recognizes (driver.py).
const LAST_STEP: &str = "_lis_last_step()";

/// One small BLAS call when numpy is loaded, so OpenBLAS's work buffer exists in the snapshot.
/// OpenBLAS takes that buffer (16 MiB here) on its first level-3 call through wasi-libc's
/// `mmap` emulation, which zeroes it: made in every call, it wrote 16 MiB of fresh pages per
/// instance (`perf --density` with `np.linalg.solve`: ~19 MiB per sandbox). Made here, calls
/// reuse it and write only the part they use. Three times, as the driver's warm-up: the
/// common array steps (make, scale, multiply, solve, sum, back to a float) then run with their
/// Python-level code already specialized, and calls stop copying those pages (`perf`'s row of
/// pages a numpy call writes). Assignments only: `turn` echoes a final expression.
const BLAS_WARM_UP: &str = "import sys; _lis_np = sys.modules.get('numpy'); del sys\n\
     for _lis_k in range(3 if _lis_np else 0):\n    \
     _lis_a = _lis_np.eye(64) * 4 + 1.0\n    \
     _lis_x = round(float(_lis_np.linalg.solve(_lis_a, _lis_a @ _lis_np.ones(64)).sum()), 6)\n    \
     del _lis_a, _lis_x\n\
     globals().pop('_lis_k', None)\n\
     del _lis_np";

fn err(what: &str) -> impl FnOnce(wasmtime::Error) -> RuntimeError + '_ {
    move |e| RuntimeError::Compile(format!("{what}: {e:#}"))
}

/// The mapping of an I/O error to [`RuntimeError::Io`], naming what was done and to what.
fn io_err(
    action: &'static str,
    path: &Path,
) -> impl FnOnce(std::io::Error) -> RuntimeError + use<> {
    let path = path.to_path_buf();
    move |source| RuntimeError::Io {
        action,
        path,
        source,
    }
}

/// Make the preloaded module at `out` (atomically). Runs the stock snapshot once with the
/// runtime's directory layout, imports `modules`, and snapshots the memory.
pub(super) fn build(
    files: &RuntimeFiles,
    lib_dir: Option<&Path>,
    modules: &[String],
    out: &Path,
    progress: &(dyn Fn(&str) + Sync),
) -> Result<(), RuntimeError> {
    let stock = std::fs::read(files.snapshot()).map_err(io_err("read", &files.snapshot()))?;
    progress(&format!(
        "making a snapshot with {} imported (once; about a minute and ~2.7 GiB of memory)",
        modules.join(", ")
    ));
    let wizer = Wizer::new();
    let (cx, instrumented) = wizer
        .instrument(&stock)
        .map_err(err("instrumenting the module"))?;
    let (engine, module) = compile_once(instrumented)?;
    let scratch =
        tempfile::tempdir().map_err(io_err("create", Path::new("temporary directory")))?;
    let (ws, tmp, home) = scratch_dirs(scratch.path())?;
    let import = import_script(modules);
    let lib_dir = lib_dir.map_or_else(|| files.lib_dir(), Path::to_path_buf);
    let run = run_and_snapshot(
        &engine,
        &module,
        files,
        (&lib_dir, &ws, &tmp, &home),
        &import,
        (&wizer, &cx),
    );
    let bytes = on_own_thread(run)?;
    // Passive data segments no instruction can use cost every instance 120 KiB of `VMContext`.
    let bytes = super::data_segments::without_unused_passive_data(&bytes).unwrap_or(bytes);
    if let Some(dir) = out.parent() {
        std::fs::create_dir_all(dir).map_err(io_err("create", dir))?;
    }
    crate::fsutil::write_atomic(out, &bytes).map_err(io_err("write", out))
}

/// The instrumented module compiled by a throwaway engine: this module runs once, so it is
/// compiled as fast as possible.
fn compile_once(instrumented: Vec<u8>) -> Result<(Engine, Module), RuntimeError> {
    let mut config = Config::new();
    config
        .wasm_exceptions(true)
        .cranelift_opt_level(wasmtime::OptLevel::None)
        .max_wasm_stack(8 << 20)
        .async_stack_size(9 << 20);
    let engine = Engine::new(&config).map_err(err("engine"))?;
    let module =
        Module::new(&engine, &instrumented).map_err(err("compiling the instrumented module"))?;
    Ok((engine, module))
}

/// The workspace, `/tmp` and home folders of the snapshot's one run, made in `scratch`, with
/// the driver and immortal.py written into its `/tmp` for the import script to run.
fn scratch_dirs(scratch: &Path) -> Result<(PathBuf, PathBuf, PathBuf), RuntimeError> {
    let (ws, tmp, home) = (
        scratch.join("testbed"),
        scratch.join("tmp"),
        scratch.join("root"),
    );
    for d in [&ws, &tmp, &home] {
        std::fs::create_dir_all(d).map_err(io_err("create", d))?;
    }
    // The driver is defined in the snapshot too (from a file: `turn` cuts long lines), so a
    // call only has to call it. Then move every object made so far out of the cyclic GC's
    // reach: otherwise the first collection in each call walks all of numpy and sympy, costing
    // ~15 ms and dirtying ~20 MiB of copy-on-write pages per instance.
    let driver_file = tmp.join("lis_driver.py");
    std::fs::write(&driver_file, super::DRIVER).map_err(io_err("write", &driver_file))?;
    // Last, everything made so far becomes immortal (see immortal.py): calls stop copying
    // pages only to move reference counts. Then the allocator's free chunks are filled, so a
    // call's new objects come packed from the heap's top instead of scattered over the image.
    let immortal_file = tmp.join("lis_immortal.py");
    std::fs::write(&immortal_file, IMMORTAL).map_err(io_err("write", &immortal_file))?;
    Ok((ws, tmp, home))
}

/// The snapshot's import turn: imports `modules`, defines the driver, warms up, and makes
/// the last step (`_lis_last_step`).
fn import_script(modules: &[String]) -> String {
    format!(
        "import sys\nsys.path.append('{site}')\ndel sys\nimport {}\nimport secrets, runpy, traceback\n\
         with open('{tmp}/lis_driver.py') as _lis_f: exec(compile(_lis_f.read(), '{name}', 'exec'))\n\
         del _lis_f\n\
         import os; os.remove('{tmp}/lis_driver.py'); del os\n\
         import sys; _lis_rng_words = _lis_rng_state_views(_lis_collect_rngs(sys), sys); del sys\n\
         import os; _lis_base_env = dict(os.environ); del os\n\
         import sys; _lis_net_install(sys); del sys\n\
         _lis_warm_up('{ws}')\n\
         {BLAS_WARM_UP}\n\
         with open('{tmp}/lis_immortal.py') as _lis_f: exec(compile(_lis_f.read(), 'lis_immortal.py', 'exec'), _lis_i := {{}})\n\
         del _lis_f\n\
         import os; os.remove('{tmp}/lis_immortal.py'); del os\n\
         def _lis_last_step(i=_lis_i):\n    \
             import gc\n    gc.collect()\n    i['immortalize']()\n    \
             global _lis_plug\n    _lis_plug = i['plug']()\n    gc.freeze()\n\
         del _lis_i",
        modules.join(", "),
        tmp = layout::GUEST_TMP,
        ws = layout::GUEST_WORKSPACE,
        site = layout::GUEST_SITE_LAYER,
        name = super::DRIVER_FILENAME,
    )
}

/// Run `run` to its end on a thread (and runtime) of its own, so this works whether or not the
/// caller is inside a tokio runtime: a runtime may be neither entered nor dropped from async
/// code.
fn on_own_thread(
    run: impl Future<Output = Result<Vec<u8>, RuntimeError>> + Send,
) -> Result<Vec<u8>, RuntimeError> {
    std::thread::scope(|s| {
        s.spawn(|| {
            tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .map_err(io_err("start", Path::new("async runtime")))?
                .block_on(run)
        })
        .join()
        .unwrap_or_else(|_| Err(RuntimeError::Compile("the snapshot thread panicked".into())))
    })
}

/// Run the instrumented module once with the runtime's layout, execute `import`, and return
/// the snapshot wizer makes of the result.
async fn run_and_snapshot(
    engine: &Engine,
    module: &Module,
    files: &RuntimeFiles,
    (lib_dir, ws, tmp, home): (&Path, &Path, &Path, &Path),
    import: &str,
    (wizer, cx): (&Wizer, &wasmtime_wizer::ModuleContext<'_>),
) -> Result<Vec<u8>, RuntimeError> {
    let mut b = WasiCtxBuilder::new();
    // Real streams, as in every later run: the interpreter's stdio state is snapshotted too.
    let (out, errs) = (
        super::io::CappedOutput::new(1 << 20),
        super::io::CappedOutput::new(1 << 20),
    );
    b.stdin(wasmtime_wasi::p2::pipe::MemoryInputPipe::new(Vec::new()))
        .stdout(out.clone())
        .stderr(errs.clone());
    b.allow_blocking_current_thread(true).args(&[layout::ARGV0]);
    for (k, v) in layout::DEFAULT_ENV {
        b.env(k, v);
    }
    // The same fd layout as every later run (see Runtime::turn).
    for (host, guest, perms) in [
        (lib_dir.to_path_buf(), layout::GUEST_LIB, FsPerms::ReadOnly),
        (
            files.mpl_data_dir(),
            layout::GUEST_MPL_DATA,
            FsPerms::ReadOnly,
        ),
        (
            ws.to_path_buf(),
            layout::GUEST_WORKSPACE,
            FsPerms::ReadWrite,
        ),
        (tmp.to_path_buf(), layout::GUEST_TMP, FsPerms::ReadWrite),
        (home.to_path_buf(), layout::GUEST_HOME, FsPerms::ReadWrite),
    ] {
        b.preopened_dir(&host, guest, perms)
            .map_err(err("preopen"))?;
    }
    let mut store = Store::new(engine, State { wasi: b.build_p1() });
    let mut linker: Linker<State> = Linker::new(engine);
    wasmtime_wasi::p1::add_to_linker_async(&mut linker, |s| &mut s.wasi)
        .map_err(err("linking WASI"))?;
    linker
        .func_wrap("host", "call", |_: i32, _: i32, _: i32, _: i32| -> i32 {
            -1
        })
        .map_err(err("linking host::call"))?;
    let instance = linker
        .instantiate_async(&mut store, module)
        .await
        .map_err(err("instantiating"))?;
    let turns = super::TurnExports::of(&instance, &mut store).map_err(err("exports"))?;
    // Then the last step (made by `import`): objects immortal, free heap chunks filled, the
    // collector's objects frozen. A turn of its own that the driver runs directly, so no
    // parse or compile leaves freed memory behind it (see immortal.py).
    for code in [import, LAST_STEP] {
        let rc = turns.run(&mut store, code).await.map_err(err(code))?;
        if rc & 0xFF != 0 {
            let (_, _) = out.take();
            let (text, _) = errs.take();
            return Err(RuntimeError::Compile(format!(
                "`{code}` failed in the guest (status {rc}): {}",
                String::from_utf8_lossy(&text).trim()
            )));
        }
    }
    wizer
        .snapshot(
            cx,
            &mut Snapshotter {
                store: &mut store,
                instance,
            },
        )
        .await
        .map_err(err("snapshotting"))
}
