//! The `llm-in-sandbox` command. Everything testable lives in the library and in `cli`.

mod cli;

use std::process::ExitCode;

fn main() -> ExitCode {
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
