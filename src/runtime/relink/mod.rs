//! The guest module's rewrite before it is compiled: a few functions of the guest's C
//! libraries get a prologue that does their work faster, falling through to the original
//! body whenever the fast way does not apply.
//!
//! - [`gemm`]: OpenBLAS's general matrix products ask the host door to do them
//!   ([`super::gemm`]).
//! - [`fmod`]: libm's `fmod` (Python's float `%`, numpy's `%`, `//` and `fmod`) gets an exact
//!   fast path of a few floating-point instructions in place of a bit-by-bit loop.
//!
//! Only those bodies change: every other function, the imports and every index stay as they
//! were, so the rewrite is a copy of the module with a few code entries replaced (about a
//! second for the 100 MB module, once, before it is compiled and cached). Functions are found
//! by the name section and checked against their expected type; anything missing is left as
//! it is.

mod fmod;
pub(super) mod gemm;
mod module;

use std::collections::HashMap;

pub use module::LinkError;
use module::{read_facts, rebuild};

/// What this rewrite is, for the compiled module's cache key: change it with the rewrite.
pub(super) const VERSION: &str = "relink-v1(gemm-door,fmod)";

/// The module with its rewrites done, and the names of the functions rewritten (none, with
/// the module unchanged, when it has none of them).
///
/// # Errors
/// [`LinkError`] when the module cannot be parsed.
pub fn link(wasm: &[u8]) -> Result<(Vec<u8>, Vec<&'static str>), LinkError> {
    let facts = read_facts(wasm)?;
    let Some(code) = facts.code_section.clone() else {
        return Ok((wasm.to_vec(), Vec::new()));
    };
    let mut replaced: HashMap<usize, Vec<u8>> = HashMap::new();
    let mut linked = Vec::new();
    for (name, defined, body) in gemm::prologues(&facts, wasm)?
        .into_iter()
        .chain(fmod::prologue(&facts, wasm)?)
    {
        replaced.insert(defined, body);
        linked.push(name);
    }
    if replaced.is_empty() {
        return Ok((wasm.to_vec(), Vec::new()));
    }
    Ok((rebuild(wasm, &facts, &replaced, code), linked))
}
