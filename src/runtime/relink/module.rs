//! What the rewrites share: the module's facts (types, imports, the stack pointer, names, the
//! code section's layout), read once, and a function body with a prologue in front.

use std::collections::HashMap;
use std::ops::Range;

use wasm_encoder::{Function, ValType as EncType};
use wasmparser::{FuncType, KnownCustom, Name, Parser, Payload, TypeRef, ValType as ParseType};

/// A rewritten function: its name, its index among defined functions, its new body.
pub(super) type Rewritten = (&'static str, usize, Vec<u8>);

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
pub(super) struct Facts<'a> {
    /// Every type of the type section.
    pub(super) types: Vec<FuncType>,
    /// The type index of every function (imports, then the function section).
    pub(super) func_types: Vec<u32>,
    pub(super) imported_funcs: u32,
    /// The host door's function index (`host::call`, of its own type).
    pub(super) door: Option<u32>,
    /// The C stack pointer's global index (`__stack_pointer`).
    pub(super) stack_pointer: Option<u32>,
    /// Function indices by name.
    pub(super) names: HashMap<&'a str, u32>,
    /// Each defined function's body, as a byte range of the module.
    pub(super) bodies: Vec<Range<usize>>,
    pub(super) code_section: Option<Range<usize>>,
}

impl Facts<'_> {
    /// The function called `name`: its index among defined functions and its type.
    pub(super) fn defined(&self, name: &str) -> Option<(usize, &FuncType)> {
        let func = *self.names.get(name)?;
        let defined = func.checked_sub(self.imported_funcs)? as usize;
        let ty = self
            .types
            .get(*self.func_types.get(func as usize)? as usize)?;
        (defined < self.bodies.len()).then_some((defined, ty))
    }
}

/// A function body `body` (its locals and code, without its size) with `extra` more locals
/// and a prologue: `write(f, first)` adds the prologue's instructions to `f`, where `first`
/// is the index of the first extra local. The original code follows unchanged.
pub(super) fn with_prologue(
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
pub(super) fn read_facts(wasm: &[u8]) -> Result<Facts<'_>, LinkError> {
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

/// `wasm` with the bodies in `replaced` (by defined-function index) put in place of the
/// originals in its code section (`code`, the section's byte range); the rest as it was.
pub(super) fn rebuild(
    wasm: &[u8],
    facts: &Facts<'_>,
    replaced: &HashMap<usize, Vec<u8>>,
    code: Range<usize>,
) -> Vec<u8> {
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
    out
}

/// For tests: `wasm` with the rewrites `rewrite` makes from its facts.
#[cfg(test)]
pub(super) fn rewritten(
    wasm: &[u8],
    rewrite: impl Fn(&Facts<'_>, &[u8]) -> Result<Vec<Rewritten>, LinkError>,
) -> Result<(Vec<u8>, Vec<&'static str>), LinkError> {
    let facts = read_facts(wasm)?;
    let done = rewrite(&facts, wasm)?;
    let (Some(code), false) = (facts.code_section.clone(), done.is_empty()) else {
        return Ok((wasm.to_vec(), Vec::new()));
    };
    let names = done.iter().map(|(n, _, _)| *n).collect();
    let replaced = done.into_iter().map(|(_, i, b)| (i, b)).collect();
    Ok((rebuild(wasm, &facts, &replaced, code), names))
}
