//! The `llm-in-sandbox` command. Everything testable lives in the library and in `cli`.

mod cli;

use std::process::ExitCode;

fn main() -> ExitCode {
    raise_open_file_limit();
    let code = match cli::run() {
        Ok(code) => code,
        Err(e) => {
            eprintln!("llm-in-sandbox: error: {e:#}");
            ExitCode::from(2)
        }
    };
    // A pip still running for a call nobody waits for any more (Ctrl-C, a server's grace
    // ending) would outlive us.
    llm_in_sandbox::packages::stop_all_pips();
    // The empty sandbox folders kept for reuse would outlive us too.
    llm_in_sandbox::workspace::release_recycled();
    code
}

/// Each live sandbox holds 2 open files and each running `python3` call 4 more, so the common
/// default soft limit (1024) would cap a benchmark at ~150 concurrent calls. Raise the soft
/// limit to the hard one, as build tools do; without permission it stays as it was.
fn raise_open_file_limit() {
    #[cfg(unix)]
    // SAFETY: getrlimit/setrlimit only read and write the struct passed to them.
    unsafe {
        let mut lim = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) == 0 && lim.rlim_cur < lim.rlim_max {
            lim.rlim_cur = lim.rlim_max;
            let _ = libc::setrlimit(libc::RLIMIT_NOFILE, &lim);
        }
    }
}
