//! The guest's matrix products linked to the host (see [`super::super::gemm`]): the bodies of
//! OpenBLAS's four general matrix product entry points (`cblas_dgemm`, `cblas_sgemm`,
//! `dgemm_`, `sgemm_`) get a prologue. It copies the function's arguments into a 128-byte
//! request on the guest's own stack and asks the host door (`host::call`, the module's
//! existing import) to do the product. When the host answers 0, the product is done and the
//! function returns; any other answer (declined, no host, an old host) runs the original body.
//!
//! The request, all little-endian: bytes 0..8 [`TAG`]; 8..12 the form ([`FORM_SINGLE`],
//! [`FORM_FORTRAN`]); then the function's arguments in order, one 8-byte slot each from byte
//! 16 (`i32` and `f32` in the slot's first bytes, `f64` in all of it).

use wasm_encoder::{BlockType, Function, Instruction, MemArg, ValType as EncType};
use wasmparser::{FuncType, ValType as ParseType};

use super::module::{Facts, LinkError, Rewritten, with_prologue};

/// The door's request kind for a matrix product (its first 8 bytes).
pub(in crate::runtime) const TAG: &[u8; 8] = b"gemm\0\0\0\0";
/// Form bit: the arguments are `f32` (`sgemm`), not `f64`.
pub(in crate::runtime) const FORM_SINGLE: u32 = 1;
/// Form bit: the Fortran interface (every argument a pointer, column-major), not CBLAS.
pub(in crate::runtime) const FORM_FORTRAN: u32 = 2;
/// The request's size: the header and 14 slots (CBLAS's argument count).
pub(in crate::runtime) const REQUEST_BYTES: u32 = 16 + 8 * 14;

/// The functions rewritten and their form.
const ENTRY_POINTS: [(&str, u32); 4] = [
    ("cblas_dgemm", 0),
    ("cblas_sgemm", FORM_SINGLE),
    ("dgemm_", FORM_FORTRAN),
    ("sgemm_", FORM_FORTRAN | FORM_SINGLE),
];

/// The rewritten bodies (name, defined function index, body) of the entry points the module
/// has with the expected types, when it has the door and a stack pointer.
pub(super) fn prologues(facts: &Facts<'_>, wasm: &[u8]) -> Result<Vec<Rewritten>, LinkError> {
    let (Some(door), Some(sp)) = (facts.door, facts.stack_pointer) else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    for (name, form) in ENTRY_POINTS {
        let Some((defined, ty)) = facts.defined(name) else {
            continue;
        };
        if !signature_fits(ty, form) {
            continue;
        }
        let body = &wasm[facts.bodies[defined].clone()];
        let new_body = with_prologue(body, ty, &[EncType::I32], |f, frame| {
            request_prologue(f, ty, form, door, sp, frame);
        })?;
        out.push((name, defined, new_body));
    }
    Ok(out)
}

/// Whether `ty` is the entry point's C signature: CBLAS `(order, transa, transb, m, n, k,
/// alpha, a, lda, b, ldb, beta, c, ldc)` with `alpha`/`beta` of the form's float type, or the
/// Fortran interface's 13 pointers; no result, or an `i32` one.
fn signature_fits(ty: &FuncType, form: u32) -> bool {
    let results_ok = ty.results().is_empty() || ty.results() == [ParseType::I32];
    let float = if form & FORM_SINGLE != 0 {
        ParseType::F32
    } else {
        ParseType::F64
    };
    let params_ok = if form & FORM_FORTRAN != 0 {
        ty.params().len() == 13 && ty.params().iter().all(|p| *p == ParseType::I32)
    } else {
        ty.params().len() == 14
            && ty.params().iter().enumerate().all(|(i, p)| {
                *p == if i == 6 || i == 11 {
                    float
                } else {
                    ParseType::I32
                }
            })
    };
    results_ok && params_ok
}

/// The prologue: reserve the request on the C stack (in local `frame`), write it, call the
/// door, release the stack, and return when the door answered 0.
fn request_prologue(f: &mut Function, ty: &FuncType, form: u32, door: u32, sp: u32, frame: u32) {
    let mem = |offset: u64, align: u32| MemArg {
        offset,
        align,
        memory_index: 0,
    };
    let size = REQUEST_BYTES as i32;
    f.instruction(&Instruction::GlobalGet(sp))
        .instruction(&Instruction::I32Const(size))
        .instruction(&Instruction::I32Sub)
        .instruction(&Instruction::LocalTee(frame))
        .instruction(&Instruction::GlobalSet(sp))
        .instruction(&Instruction::LocalGet(frame))
        .instruction(&Instruction::I64Const(i64::from_le_bytes(*TAG)))
        .instruction(&Instruction::I64Store(mem(0, 3)))
        .instruction(&Instruction::LocalGet(frame))
        .instruction(&Instruction::I32Const(form as i32))
        .instruction(&Instruction::I32Store(mem(8, 2)));
    for (i, p) in ty.params().iter().enumerate() {
        let offset = 16 + 8 * i as u64;
        f.instruction(&Instruction::LocalGet(frame))
            .instruction(&Instruction::LocalGet(i as u32));
        f.instruction(&match p {
            ParseType::F64 => Instruction::F64Store(mem(offset, 3)),
            ParseType::F32 => Instruction::F32Store(mem(offset, 2)),
            _ => Instruction::I32Store(mem(offset, 2)),
        });
    }
    let used = 16 + 8 * ty.params().len() as i32;
    f.instruction(&Instruction::LocalGet(frame))
        .instruction(&Instruction::I32Const(used))
        .instruction(&Instruction::I32Const(0))
        .instruction(&Instruction::I32Const(0))
        .instruction(&Instruction::Call(door))
        .instruction(&Instruction::LocalGet(frame))
        .instruction(&Instruction::I32Const(size))
        .instruction(&Instruction::I32Add)
        .instruction(&Instruction::GlobalSet(sp))
        .instruction(&Instruction::I32Eqz)
        .instruction(&Instruction::If(BlockType::Empty));
    if !ty.results().is_empty() {
        f.instruction(&Instruction::I32Const(0));
    }
    f.instruction(&Instruction::Return)
        .instruction(&Instruction::End);
}

#[cfg(test)]
mod tests {
    use super::super::module::rewritten;
    use super::*;

    fn link(wasm: &[u8]) -> Result<(Vec<u8>, Vec<&'static str>), LinkError> {
        rewritten(wasm, prologues)
    }
    use wasm_encoder::{
        CodeSection, ConstExpr, ExportKind, ExportSection, FunctionSection, GlobalSection,
        GlobalType, ImportSection, IndirectNameMap, MemorySection, MemoryType, Module, NameMap,
        NameSection, TypeSection,
    };
    use wasmtime::{Engine, Instance, Linker, Store, Val};

    const MARKER: u64 = 100;
    const STACK_TOP: i32 = 65536;

    /// A module shaped like the guest's: the door import, a stack pointer, and `cblas_dgemm`
    /// whose own body writes 7 at [`MARKER`] and returns.
    fn guest_like() -> Vec<u8> {
        let mut types = TypeSection::new();
        types.ty().function([EncType::I32; 4], [EncType::I32]);
        let mut params = vec![EncType::I32; 14];
        params[6] = EncType::F64;
        params[11] = EncType::F64;
        types.ty().function(params, []);
        let mut imports = ImportSection::new();
        imports.import("host", "call", wasm_encoder::EntityType::Function(0));
        let mut funcs = FunctionSection::new();
        funcs.function(1);
        let mut memories = MemorySection::new();
        memories.memory(MemoryType {
            minimum: 1,
            maximum: None,
            memory64: false,
            shared: false,
            page_size_log2: None,
        });
        let mut globals = GlobalSection::new();
        globals.global(
            GlobalType {
                val_type: EncType::I32,
                mutable: true,
                shared: false,
            },
            &ConstExpr::i32_const(STACK_TOP),
        );
        let mut exports = ExportSection::new();
        exports.export("cblas_dgemm", ExportKind::Func, 1);
        exports.export("memory", ExportKind::Memory, 0);
        exports.export("sp", ExportKind::Global, 0);
        let mut code = CodeSection::new();
        let mut f = Function::new([(2, EncType::I64)]);
        f.instruction(&Instruction::I32Const(MARKER as i32))
            .instruction(&Instruction::I32Const(7))
            .instruction(&Instruction::I32Store(MemArg {
                offset: 0,
                align: 2,
                memory_index: 0,
            }))
            .instruction(&Instruction::End);
        code.function(&f);
        let mut names = NameSection::new();
        let mut fnames = NameMap::new();
        fnames.append(0, "host_call");
        fnames.append(1, "cblas_dgemm");
        names.functions(&fnames);
        let mut gnames = NameMap::new();
        gnames.append(0, "__stack_pointer");
        names.globals(&gnames);
        names.locals(&IndirectNameMap::new());
        let mut m = Module::new();
        m.section(&types)
            .section(&imports)
            .section(&funcs)
            .section(&memories)
            .section(&globals)
            .section(&exports)
            .section(&code)
            .section(&names);
        m.finish()
    }

    /// Run the linked module's `cblas_dgemm` with a door that answers `answer` and keeps the
    /// request: (the request, the marker's value, the stack pointer after).
    fn call(wasm: &[u8], answer: i32) -> (Vec<u8>, i32, i32) {
        let engine = Engine::default();
        let module = wasmtime::Module::new(&engine, wasm).expect("the linked module validates");
        let mut store = Store::new(&engine, Vec::<u8>::new());
        let mut linker = Linker::new(&engine);
        linker
            .func_wrap(
                "host",
                "call",
                move |mut c: wasmtime::Caller<'_, Vec<u8>>, req: i32, len: i32, _: i32, _: i32| {
                    let mem = c
                        .get_export("memory")
                        .and_then(|e| e.into_memory())
                        .expect("memory");
                    let mut bytes = vec![0u8; len as usize];
                    mem.read(&c, req as usize, &mut bytes)
                        .expect("request in memory");
                    *c.data_mut() = bytes;
                    answer
                },
            )
            .expect("link");
        let instance: Instance = linker
            .instantiate(&mut store, &module)
            .expect("instantiate");
        let f = instance
            .get_func(&mut store, "cblas_dgemm")
            .expect("export");
        let mut args: Vec<Val> = (0..14).map(|i| Val::I32(1000 + i)).collect();
        args[6] = Val::F64(2.5f64.to_bits());
        args[11] = Val::F64(0.5f64.to_bits());
        f.call(&mut store, &args, &mut []).expect("call");
        let mem = instance.get_memory(&mut store, "memory").expect("memory");
        let mut marker = [0u8; 4];
        mem.read(&store, MARKER as usize, &mut marker)
            .expect("marker");
        let sp = instance
            .get_global(&mut store, "sp")
            .expect("sp")
            .get(&mut store);
        (
            store.data().clone(),
            i32::from_le_bytes(marker),
            sp.unwrap_i32(),
        )
    }

    #[test]
    fn the_prologue_asks_the_door_and_returns_or_falls_through() {
        let original = guest_like();
        let (linked, names) = link(&original).expect("link");
        assert_eq!(names, ["cblas_dgemm"]);
        let (request, marker, sp) = call(&linked, 0);
        assert_eq!(marker, 0, "answered 0: the original body must not run");
        assert_eq!(sp, STACK_TOP, "the stack pointer is restored");
        assert_eq!(request.len(), REQUEST_BYTES as usize);
        assert_eq!(&request[..8], TAG);
        assert_eq!(u32::from_le_bytes(request[8..12].try_into().unwrap()), 0);
        let slot = |i: usize| &request[16 + 8 * i..24 + 8 * i];
        assert_eq!(i32::from_le_bytes(slot(3)[..4].try_into().unwrap()), 1003);
        assert_eq!(f64::from_le_bytes(slot(6).try_into().unwrap()), 2.5);
        assert_eq!(i32::from_le_bytes(slot(13)[..4].try_into().unwrap()), 1013);
        assert_eq!(f64::from_le_bytes(slot(11).try_into().unwrap()), 0.5);
        let (_, marker, sp) = call(&linked, 1);
        assert_eq!(marker, 7, "declined: the original body runs");
        assert_eq!(sp, STACK_TOP);
        // The original module, unlinked, never asks.
        let (request, marker, _) = call(&original, 0);
        assert!(request.is_empty());
        assert_eq!(marker, 7);
    }

    #[test]
    fn a_module_without_the_door_or_names_is_left_as_it_is() {
        let mut m = Module::new();
        let mut types = TypeSection::new();
        types.ty().function([], []);
        m.section(&types);
        let bytes = m.finish();
        let (out, names) = link(&bytes).expect("link");
        assert_eq!(out, bytes);
        assert!(names.is_empty());
        assert!(link(b"not wasm").is_err());
    }
}
