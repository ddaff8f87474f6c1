//! Drop the passive data segments no instruction can use from a snapshot module.
//!
//! Each time wizer snapshots a module, the module's data segments become passive (mostly
//! empty) and the snapshot's memory is written as new active ones, so data indices used by the
//! code keep their meaning. Our preloaded snapshot is a snapshot of a snapshot: it carries some
//! 10,000 passive segments. wasmtime gives every instance a base and a length per passive
//! segment in its `VMContext` and writes them all at each instantiation: 120 KiB, some 30
//! pages of host memory per running instance and 10,000 writes per call, for segments only
//! `memory.init`, `data.drop`, `array.new_data` or `array.init_data` could read. When the code
//! has none of those instructions, nothing reads them; they are dropped, and the data count
//! section (which must match) is rewritten. Otherwise the module is left exactly as it was.

use wasmparser::{BinaryReader, CodeSectionReader, DataKind, DataSectionReader, Operator};

/// Section ids (the WebAssembly binary format).
const CODE: u8 = 10;
const DATA: u8 = 11;
const DATA_COUNT: u8 = 12;

/// `wasm` without its passive data segments, when no instruction can use them; `None` when
/// there is nothing to drop or it is not safe to (an instruction uses data indices, or the
/// module cannot be read).
pub(super) fn without_unused_passive_data(wasm: &[u8]) -> Option<Vec<u8>> {
    let sections = sections(wasm)?;
    let (data_start, data_end) = sections.iter().find(|s| s.0 == DATA).map(|s| (s.1, s.2))?;
    let data =
        DataSectionReader::new(BinaryReader::new(&wasm[data_start..data_end], data_start)).ok()?;
    let mut active = Vec::new();
    let mut passive = 0usize;
    for segment in data {
        let segment = segment.ok()?;
        match segment.kind {
            DataKind::Passive => passive += 1,
            DataKind::Active { .. } => active.push(segment.range),
        }
    }
    if passive == 0 {
        return None;
    }
    if let Some(&(_, start, end)) = sections.iter().find(|s| s.0 == CODE)
        && uses_data_indices(&wasm[start..end], start)?
    {
        return None;
    }
    let mut out = Vec::with_capacity(wasm.len());
    out.extend_from_slice(&wasm[..8]);
    for &(id, start, end) in &sections {
        match id {
            DATA => {
                let mut body = Vec::new();
                leb(&mut body, active.len() as u64);
                for r in &active {
                    body.extend_from_slice(&wasm[r.clone()]);
                }
                section(&mut out, DATA, &body);
            }
            DATA_COUNT => {
                let mut body = Vec::new();
                leb(&mut body, active.len() as u64);
                section(&mut out, DATA_COUNT, &body);
            }
            _ => section(&mut out, id, &wasm[start..end]),
        }
    }
    Some(out)
}

/// Whether any function reads a data segment by index; `None` when the code cannot be read.
fn uses_data_indices(code: &[u8], offset: usize) -> Option<bool> {
    let reader = CodeSectionReader::new(BinaryReader::new(code, offset)).ok()?;
    for body in reader {
        let mut ops = body.ok()?.get_operators_reader().ok()?;
        while !ops.eof() {
            match ops.read().ok()? {
                Operator::MemoryInit { .. }
                | Operator::DataDrop { .. }
                | Operator::ArrayNewData { .. }
                | Operator::ArrayInitData { .. } => return Some(true),
                _ => {}
            }
        }
    }
    Some(false)
}

/// The module's sections in order: (id, start of content, end of content).
fn sections(wasm: &[u8]) -> Option<Vec<(u8, usize, usize)>> {
    if wasm.len() < 8 || &wasm[..4] != b"\0asm" || wasm[4..8] != [1, 0, 0, 0] {
        return None;
    }
    let mut out = Vec::new();
    let mut at = 8;
    while at < wasm.len() {
        let id = wasm[at];
        let (size, len) = read_leb(wasm.get(at + 1..)?)?;
        let start = at + 1 + len;
        let end = start.checked_add(usize::try_from(size).ok()?)?;
        if end > wasm.len() {
            return None;
        }
        out.push((id, start, end));
        at = end;
    }
    Some(out)
}

fn section(out: &mut Vec<u8>, id: u8, body: &[u8]) {
    out.push(id);
    leb(out, body.len() as u64);
    out.extend_from_slice(body);
}

fn leb(out: &mut Vec<u8>, mut v: u64) {
    loop {
        let byte = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

/// An unsigned LEB128 number and how many bytes it took.
fn read_leb(bytes: &[u8]) -> Option<(u64, usize)> {
    let mut v = 0u64;
    for (i, &b) in bytes.iter().enumerate().take(10) {
        v |= u64::from(b & 0x7f) << (7 * i);
        if b & 0x80 == 0 {
            return Some((v, i + 1));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A module: one memory, a data count section, then a code section with one function
    /// (its body given) and a data section with an active and a passive segment.
    fn module(body: &[u8]) -> Vec<u8> {
        let mut m = b"\0asm\x01\0\0\0".to_vec();
        section(&mut m, 1, &[1, 0x60, 0, 0]); // type: () -> ()
        section(&mut m, 3, &[1, 0]); // one function of type 0
        section(&mut m, 5, &[1, 0, 1]); // memory, min 1 page
        section(&mut m, DATA_COUNT, &[2]);
        let mut code = vec![1];
        leb(&mut code, body.len() as u64 + 1);
        code.push(0); // no locals
        code.extend_from_slice(body);
        section(&mut m, CODE, &code);
        // Active at offset 11 (`i32.const 11` is 0x41 0x0b: an `end` byte inside the
        // expression), "hi"; then passive "xyz".
        section(
            &mut m,
            DATA,
            &[
                2, 0, 0x41, 0x0b, 0x0b, 2, b'h', b'i', 1, 3, b'x', b'y', b'z',
            ],
        );
        m
    }

    #[test]
    fn drops_passive_segments_nothing_uses_and_keeps_the_rest() {
        let m = module(&[0x0b]); // an empty function
        let out = without_unused_passive_data(&m).expect("stripped");
        let s = sections(&out).unwrap();
        let data = s.iter().find(|s| s.0 == DATA).unwrap();
        assert_eq!(
            &out[data.1..data.2],
            &[1, 0, 0x41, 0x0b, 0x0b, 2, b'h', b'i']
        );
        let count = s.iter().find(|s| s.0 == DATA_COUNT).unwrap();
        assert_eq!(&out[count.1..count.2], &[1]);
        assert_eq!(
            s.iter().map(|s| s.0).collect::<Vec<_>>(),
            [1, 3, 5, DATA_COUNT, CODE, DATA]
        );
        // Nothing passive left: nothing more to do.
        assert!(without_unused_passive_data(&out).is_none());
    }

    #[test]
    fn keeps_the_module_when_code_uses_a_data_index() {
        // data.drop 1; end
        assert!(without_unused_passive_data(&module(&[0xfc, 0x09, 1, 0x0b])).is_none());
        // i32.const 0 ×3; memory.init 1 0; end
        let init = [0x41, 0, 0x41, 0, 0x41, 0, 0xfc, 0x08, 1, 0, 0x0b];
        assert!(without_unused_passive_data(&module(&init)).is_none());
        assert!(without_unused_passive_data(b"not wasm").is_none());
    }
}
