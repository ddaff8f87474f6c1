//! The `llm-in-sandbox` command. Everything testable lives in the library and in `cli`.

mod cli;

use std::process::ExitCode;

fn main() -> ExitCode {
    match cli::run() {
        Ok(code) => code,
        Err(e) => {
            eprintln!("llm-in-sandbox: error: {e:#}");
            ExitCode::from(2)
        }
    }
}
