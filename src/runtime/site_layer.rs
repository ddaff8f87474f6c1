//! The `--with` site layer, compiled to `.pyc` once by the runtime's own interpreter.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use super::engine::open_dir;
use super::{Invocation, Limits, Mount, RunRequest, Runtime, layout};

impl Runtime {
    /// Compile the site layer's `.py` files to `.pyc` once (with this interpreter, which is
    /// the only one whose bytecode fits), so no call compiles them again. Best effort: without
    /// it imports from the layer still work, only slower; a message says why.
    pub(super) fn compile_layer(&self, progress: &(dyn Fn(&str) + Sync)) {
        let Some(layer) = &self.site_layer else {
            return;
        };
        let site = layer.lib_dir.join("site-packages");
        let stamp = layer.lib_dir.with_file_name("COMPILED");
        if stamp.is_file() {
            return;
        }
        let lock_path = layer.lib_dir.with_file_name("compile.lock");
        let lock = std::fs::File::create(&lock_path).and_then(|f| f.lock().map(|_| f));
        if lock.is_err() || stamp.is_file() {
            return;
        }
        progress("compiling the site layer's Python files (once)");
        let outcome = std::thread::scope(|s| {
            s.spawn(|| {
                let rt = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .map_err(|e| e.to_string())?;
                rt.block_on(self.compile_site(&site))
            })
            .join()
            .unwrap_or_else(|_| Err("the compile thread panicked".into()))
        });
        crate::packages::seal(&site);
        match outcome {
            Ok(()) => {
                let _ = std::fs::write(&stamp, b"compiled\n");
            }
            Err(why) => progress(&format!(
                "cannot compile the site layer ({why}); its modules are compiled on import"
            )),
        }
    }

    /// `compileall` over `site`, mounted writable at `/tmp` for this one call, with file
    /// names as the guest sees the layer.
    async fn compile_site(&self, site: &Path) -> Result<(), String> {
        let scratch = tempfile::tempdir().map_err(|e| e.to_string())?;
        let mount = |p: &Path, guest: &str| -> Result<Mount, String> {
            Ok(Mount {
                dir: Arc::new(crate::lazy_dir::LazyDir::open_now(
                    Arc::new(open_dir(p).map_err(|e| e.to_string())?),
                    p,
                )),
                guest_path: guest.to_string(),
                writable: true,
            })
        };
        let code = format!(
            "import compileall, sys\n\
             ok = compileall.compile_dir('{tmp}', ddir='{layer}', quiet=1, workers=1)\n\
             sys.exit(0 if ok else 1)",
            tmp = layout::GUEST_TMP,
            layer = layout::GUEST_SITE_LAYER,
        );
        let req = RunRequest {
            invocation: Invocation::Code {
                code,
                args: Vec::new(),
            },
            env: layout::default_env(),
            cwd: layout::GUEST_WORKSPACE.to_string(),
            stdin: Vec::new(),
            limits: Limits {
                timeout: Duration::from_secs(600),
                ..Limits::default()
            },
            mounts: vec![
                mount(scratch.path(), layout::GUEST_WORKSPACE)?,
                mount(site, layout::GUEST_TMP)?,
            ],
            quota: None,
            network: None,
            processes: None,
            loopback: None,
        };
        let r = self.run_here(req).await.map_err(|e| e.to_string())?;
        if r.exit_code == 0 {
            Ok(())
        } else {
            Err(r
                .stderr_text()
                .lines()
                .last()
                .unwrap_or("failed")
                .to_string())
        }
    }
}
