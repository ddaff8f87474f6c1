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

use std::collections::HashMap;
use std::ops::Range;

use wasm_encoder::{Function, ValType as EncType};
use wasmparser::{FuncType, KnownCustom, Name, Parser, Payload, TypeRef, ValType as ParseType};

/// A rewritten function: its name, its index among defined functions, its new body.
type Rewritten = (&'static str, usize, Vec<u8>);

/// What this rewrite is, for the compiled module's cache key: change it with the rewrite.
pub(super) const VERSION: &str = "relink-v1(gemm-door,fmod)";

/// Why a module could not be read for the rewrite.
#[derive(Debug, thiserror::Error)]
#[error("cannot rewrite the Python module before compiling it: {0}")]
pub struct LinkError(String);

impl From<wasmparser::BinaryReaderError> for LinkError {
    fn from(e: wasmparser::BinaryReaderError) -> Self {
        LinkError(e.to_string())
    }
}

/// What the module says about itself that the rewrites need.
#[derive(Default)]
struct Facts<'a> {
    /// Every type of the type section.
    types: Vec<FuncType>,
    /// The type index of every function (imports, then the function section).
    func_types: Vec<u32>,
    imported_funcs: u32,
    /// The host door's function index (`host::call`, of its own type).
    door: Option<u32>,
    /// The C stack pointer's global index (`__stack_pointer`).
    stack_pointer: Option<u32>,
    /// Function indices by name.
    names: HashMap<&'a str, u32>,
    /// Each defined function's body, as a byte range of the module.
    bodies: Vec<Range<usize>>,
    code_section: Option<Range<usize>>,
}

impl Facts<'_> {
    /// The function called `name`: its index among defined functions and its type.
    fn defined(&self, name: &str) -> Option<(usize, &FuncType)> {
        let func = *self.names.get(name)?;
        let defined = func.checked_sub(self.imported_funcs)? as usize;
        let ty = self
            .types
            .get(*self.func_types.get(func as usize)? as usize)?;
        (defined < self.bodies.len()).then_some((defined, ty))
    }
}

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
    let mut section = wasm_encoder::CodeSection::new();
    for (i, body) in facts.bodies.iter().enumerate() {
        match replaced.get(&i) {
            Some(new_body) => section.raw(new_body),
            None => section.raw(&wasm[body.clone()]),
        };
    }
    let mut encoded = vec![wasm_encoder::Section::id(&section)];
    wasm_encoder::Encode::encode(&section, &mut encoded);
    let mut out = Vec::with_capacity(wasm.len() + 4096);
    out.extend_from_slice(&wasm[..code.start]);
    out.extend_from_slice(&encoded);
    out.extend_from_slice(&wasm[code.end..]);
    Ok((out, linked))
}

/// A function body `body` (its locals and code, without its size) with `extra` more locals
/// and a prologue: `write(f, first)` adds the prologue's instructions to `f`, where `first`
/// is the index of the first extra local. The original code follows unchanged.
fn with_prologue(
    body: &[u8],
    ty: &FuncType,
    extra: &[EncType],
    write: impl FnOnce(&mut Function, u32),
) -> Result<Vec<u8>, LinkError> {
    let reader = wasmparser::FunctionBody::new(wasmparser::BinaryReader::new(body, 0));
    let mut locals = Vec::new();
    let mut declared: u32 = 0;
    for pair in reader.get_locals_reader()? {
        let (count, ty) = pair?;
        declared = declared
            .checked_add(count)
            .ok_or_else(|| LinkError("too many locals".into()))?;
        locals.push((count, encode_type(ty)?));
    }
    let ops = reader
        .get_binary_reader_for_operators()?
        .original_position()..body.len();
    let params = u32::try_from(ty.params().len()).map_err(|e| LinkError(e.to_string()))?;
    let first = params
        .checked_add(declared)
        .ok_or_else(|| LinkError("too many locals".into()))?;
    locals.extend(extra.iter().map(|t| (1, *t)));
    let mut f = Function::new(locals);
    write(&mut f, first);
    f.raw(body[ops].iter().copied());
    Ok(f.into_raw_body())
}

fn encode_type(ty: ParseType) -> Result<EncType, LinkError> {
    Ok(match ty {
        ParseType::I32 => EncType::I32,
        ParseType::I64 => EncType::I64,
        ParseType::F32 => EncType::F32,
        ParseType::F64 => EncType::F64,
        ParseType::V128 => EncType::V128,
        ParseType::Ref(_) => {
            return Err(LinkError(
                "a reference-typed local in a rewritten function".into(),
            ));
        }
    })
}

/// Types, imports, the stack pointer, function names and the code section's layout.
fn read_facts(wasm: &[u8]) -> Result<Facts<'_>, LinkError> {
    let mut facts = Facts::default();
    for payload in Parser::new(0).parse_all(wasm) {
        match payload? {
            Payload::TypeSection(r) => {
                for ty in r.into_iter_err_on_gc_types() {
                    facts.types.push(ty?);
                }
            }
            Payload::ImportSection(r) => {
                for import in r.into_imports() {
                    let import = import?;
                    if let TypeRef::Func(t) | TypeRef::FuncExact(t) = import.ty {
                        if import.module == "host" && import.name == "call" {
                            facts.door = Some(facts.imported_funcs);
                        }
                        facts.func_types.push(t);
                        facts.imported_funcs += 1;
                    }
                }
            }
            Payload::FunctionSection(r) => {
                for t in r {
                    facts.func_types.push(t?);
                }
            }
            Payload::CodeSectionStart { range, .. } => {
                // `range` is the section's contents; its id and size come just before.
                let start = section_start(wasm, range.start)?;
                facts.code_section = Some(start..range.end);
            }
            Payload::CodeSectionEntry(body) => facts.bodies.push(body.range()),
            Payload::CustomSection(c) => {
                if let KnownCustom::Name(reader) = c.as_known() {
                    read_names(reader, &mut facts)?;
                }
            }
            _ => {}
        }
    }
    // The door must have its own type; anything else is not our door.
    let door_ty = facts
        .door
        .and_then(|d| facts.func_types.get(d as usize))
        .and_then(|t| facts.types.get(*t as usize));
    let door_fits = door_ty
        .is_some_and(|t| t.params() == [ParseType::I32; 4] && t.results() == [ParseType::I32]);
    if !door_fits {
        facts.door = None;
    }
    Ok(facts)
}

fn read_names<'a>(
    reader: wasmparser::NameSectionReader<'a>,
    facts: &mut Facts<'a>,
) -> Result<(), LinkError> {
    for sub in reader {
        match sub? {
            Name::Function(map) => {
                for n in map {
                    let n = n?;
                    facts.names.insert(n.name, n.index);
                }
            }
            Name::Global(map) => {
                for n in map {
                    let n = n?;
                    if n.name == "__stack_pointer" {
                        facts.stack_pointer = Some(n.index);
                    }
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// Where the section whose contents start at `contents` begins: its id byte, then its size
/// as a LEB128 of up to 5 bytes.
fn section_start(wasm: &[u8], contents: usize) -> Result<usize, LinkError> {
    for len in 1..=5 {
        let Some(start) = contents.checked_sub(1 + len) else {
            break;
        };
        if wasm.get(start) != Some(&10) {
            continue;
        }
        let mut r = wasmparser::BinaryReader::new(&wasm[start + 1..contents], 0);
        if r.read_var_u32().is_ok() && r.eof() {
            return Ok(start);
        }
    }
    Err(LinkError(
        "the code section's header is not where expected".into(),
    ))
}
