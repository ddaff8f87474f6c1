//! Reading pack files (`objects/pack/*.pack` with their `.idx`), so a repository another git
//! made or packed (a checkout copied into the workspace, after `git gc`) can be read. We never
//! write packs: new objects are loose.

use super::objects::{Kind, MAX_OBJECT, Oid, inflate};

/// Longest delta chain followed (git's own default depth is 50).
const MAX_CHAIN: usize = 10_000;

/// One pack and its index, in memory.
pub(super) struct Pack {
    /// Sorted ids and their offsets in the pack.
    ids: Vec<Oid>,
    offsets: Vec<u64>,
    data: Vec<u8>,
}

fn be32(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_be_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

fn be64(b: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_be_bytes(b.get(at..at + 8)?.try_into().ok()?))
}

/// A pack's object before delta resolution.
enum Raw {
    Whole(Kind, Vec<u8>),
    OfsDelta(u64, Vec<u8>),
    RefDelta(Oid, Vec<u8>),
}

impl Pack {
    /// A pack from its index (versions 1 and 2) and pack file.
    pub fn parse(idx: &[u8], data: Vec<u8>) -> Result<Pack, String> {
        if data.len() < 12 || &data[..4] != b"PACK" {
            return Err("not a pack file".into());
        }
        let v2 = idx.starts_with(b"\xfftOc");
        let fan = if v2 { 8 } else { 0 };
        let count = be32(idx, fan + 255 * 4).ok_or("pack index too short")? as usize;
        let (mut ids, mut offsets) = (Vec::with_capacity(count), Vec::with_capacity(count));
        if v2 {
            if be32(idx, 4) != Some(2) {
                return Err("unsupported pack index version".into());
            }
            let names = fan + 256 * 4;
            let small = names + count * 20 + count * 4;
            let large = small + count * 4;
            for i in 0..count {
                let id = idx
                    .get(names + i * 20..names + i * 20 + 20)
                    .and_then(Oid::from_bytes)
                    .ok_or("pack index too short")?;
                let o = be32(idx, small + i * 4).ok_or("pack index too short")?;
                let off = if o & 0x8000_0000 != 0 {
                    be64(idx, large + (o & 0x7fff_ffff) as usize * 8)
                        .ok_or("pack index too short")?
                } else {
                    u64::from(o)
                };
                ids.push(id);
                offsets.push(off);
            }
        } else {
            let base = 256 * 4;
            for i in 0..count {
                let at = base + i * 24;
                let off = be32(idx, at).ok_or("pack index too short")?;
                let id = idx
                    .get(at + 4..at + 24)
                    .and_then(Oid::from_bytes)
                    .ok_or("pack index too short")?;
                ids.push(id);
                offsets.push(u64::from(off));
            }
        }
        Ok(Pack { ids, offsets, data })
    }

    fn find(&self, oid: &Oid) -> Option<u64> {
        self.ids.binary_search(oid).ok().map(|i| self.offsets[i])
    }

    pub fn contains(&self, oid: &Oid) -> bool {
        self.ids.binary_search(oid).is_ok()
    }

    /// Ids starting with the hex digits `prefix`.
    pub fn with_prefix(&self, prefix: &str) -> Vec<Oid> {
        let start = self.ids.partition_point(|id| id.hex().as_str() < prefix);
        self.ids[start..]
            .iter()
            .take_while(|id| id.hex().starts_with(prefix))
            .copied()
            .collect()
    }

    fn raw_at(&self, offset: u64) -> Result<Raw, String> {
        let d = &self.data;
        let mut at = usize::try_from(offset).map_err(|_| "bad pack offset")?;
        let mut c = *d.get(at).ok_or("bad pack offset")?;
        at += 1;
        let kind = (c >> 4) & 7;
        let mut size = u64::from(c & 15);
        let mut shift = 4;
        while c & 0x80 != 0 {
            c = *d.get(at).ok_or("truncated pack")?;
            at += 1;
            size |= u64::from(c & 0x7f)
                .checked_shl(shift)
                .ok_or("bad pack size")?;
            shift += 7;
        }
        if size > MAX_OBJECT {
            return Err("object too large".into());
        }
        match kind {
            6 => {
                let mut c = *d.get(at).ok_or("truncated pack")?;
                at += 1;
                let mut back = u64::from(c & 0x7f);
                while c & 0x80 != 0 {
                    c = *d.get(at).ok_or("truncated pack")?;
                    at += 1;
                    back = ((back + 1) << 7) | u64::from(c & 0x7f);
                }
                let base = offset.checked_sub(back).ok_or("bad delta offset")?;
                Ok(Raw::OfsDelta(base, inflate(&d[at..], size)?))
            }
            7 => {
                let base = d
                    .get(at..at + 20)
                    .and_then(Oid::from_bytes)
                    .ok_or("truncated pack")?;
                Ok(Raw::RefDelta(base, inflate(&d[at + 20..], size)?))
            }
            n => {
                let kind = Kind::from_pack(n).ok_or("unknown pack object type")?;
                Ok(Raw::Whole(kind, inflate(&d[at..], size)?))
            }
        }
    }

    /// The object `oid`, if this pack has it. A delta against an object of another pack
    /// (a thin pack) is not resolved.
    pub fn read(&self, oid: &Oid) -> Option<Result<(Kind, Vec<u8>), String>> {
        let offset = self.find(oid)?;
        Some(self.read_at(offset))
    }

    fn read_at(&self, offset: u64) -> Result<(Kind, Vec<u8>), String> {
        let mut deltas: Vec<Vec<u8>> = Vec::new();
        let mut at = offset;
        loop {
            if deltas.len() > MAX_CHAIN {
                return Err("delta chain too long".into());
            }
            match self.raw_at(at)? {
                Raw::Whole(kind, mut data) => {
                    while let Some(delta) = deltas.pop() {
                        data = apply_delta(&data, &delta)?;
                    }
                    return Ok((kind, data));
                }
                Raw::OfsDelta(base, delta) => {
                    deltas.push(delta);
                    at = base;
                }
                Raw::RefDelta(base, delta) => {
                    deltas.push(delta);
                    at = self.find(&base).ok_or("delta base outside this pack")?;
                }
            }
        }
    }
}

fn varint(d: &[u8], at: &mut usize) -> Result<u64, String> {
    let (mut v, mut shift) = (0u64, 0u32);
    loop {
        let c = *d.get(*at).ok_or("truncated delta")?;
        *at += 1;
        v |= u64::from(c & 0x7f).checked_shl(shift).ok_or("bad delta")?;
        shift += 7;
        if c & 0x80 == 0 {
            return Ok(v);
        }
    }
}

/// A git delta applied to `base`.
fn apply_delta(base: &[u8], delta: &[u8]) -> Result<Vec<u8>, String> {
    let mut at = 0;
    let src = varint(delta, &mut at)?;
    let dst = varint(delta, &mut at)?;
    if src != base.len() as u64 || dst > MAX_OBJECT {
        return Err("delta does not fit its base".into());
    }
    let mut out = Vec::with_capacity(dst as usize);
    while at < delta.len() {
        let op = delta[at];
        at += 1;
        if op & 0x80 != 0 {
            let (mut off, mut len) = (0usize, 0usize);
            for i in 0..4 {
                if op & (1 << i) != 0 {
                    off |= usize::from(*delta.get(at).ok_or("truncated delta")?) << (8 * i);
                    at += 1;
                }
            }
            for i in 0..3 {
                if op & (0x10 << i) != 0 {
                    len |= usize::from(*delta.get(at).ok_or("truncated delta")?) << (8 * i);
                    at += 1;
                }
            }
            if len == 0 {
                len = 0x10000;
            }
            let piece = base
                .get(off..off.checked_add(len).ok_or("bad delta copy")?)
                .ok_or("delta copies past its base")?;
            out.extend_from_slice(piece);
        } else if op != 0 {
            let n = usize::from(op);
            out.extend_from_slice(delta.get(at..at + n).ok_or("truncated delta")?);
            at += n;
        } else {
            return Err("bad delta opcode".into());
        }
        if out.len() as u64 > dst {
            return Err("delta result too large".into());
        }
    }
    if out.len() as u64 != dst {
        return Err("delta result has the wrong size".into());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deltas_copy_and_insert() {
        // base "hello world", result "hello there world!": copy 6, insert "there ", copy 5,
        // insert "!".
        let delta = [
            11, 18, 0x90, 6, 6, b't', b'h', b'e', b'r', b'e', b' ', 0x91, 6, 5, 1, b'!',
        ];
        assert_eq!(
            apply_delta(b"hello world", &delta).unwrap(),
            b"hello there world!"
        );
        assert!(apply_delta(b"short", &delta).is_err());
    }
}
