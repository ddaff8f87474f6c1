//! `.git/index`, version 2 (read: versions 2 and 3, extensions skipped): the staged files, with
//! the file stat data that lets `status` skip hashing files that did not change.

use sha1::{Digest, Sha1};

use super::objects::{Oid, safe_path};

/// One staged file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Entry {
    pub ctime: (u32, u32),
    pub mtime: (u32, u32),
    pub dev: u32,
    pub ino: u32,
    pub mode: u32,
    pub uid: u32,
    pub gid: u32,
    pub size: u32,
    pub oid: Oid,
    /// Merge stage (0 normally; 1-3 for a conflict left by another git).
    pub stage: u8,
    pub path: String,
}

impl Entry {
    /// An entry without stat data (git refreshes it when it next looks at the file).
    pub fn new(path: String, mode: u32, oid: Oid) -> Entry {
        Entry {
            ctime: (0, 0),
            mtime: (0, 0),
            dev: 0,
            ino: 0,
            mode,
            uid: 0,
            gid: 0,
            size: 0,
            oid,
            stage: 0,
            path,
        }
    }

    /// Record a file's stat data (we see only its size and modification time).
    pub fn set_stat(&mut self, m: &bashkit::Metadata) {
        self.mtime = time_pair(m.modified);
        self.ctime = self.mtime;
        self.size = m.size as u32;
    }

    /// Whether the file's stat data matches what was recorded.
    pub fn stat_matches(&self, m: &bashkit::Metadata) -> bool {
        self.mtime != (0, 0) && self.mtime == time_pair(m.modified) && self.size == m.size as u32
    }
}

/// Seconds and nanoseconds since the epoch, as the index keeps them.
pub(super) fn time_pair(t: std::time::SystemTime) -> (u32, u32) {
    let d = t.duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    (d.as_secs() as u32, d.subsec_nanos())
}

/// The staging area, sorted by path (then stage) as git keeps it.
#[derive(Clone, Debug, Default)]
pub(super) struct Index {
    pub entries: Vec<Entry>,
}

fn be32(b: &[u8], at: usize) -> Result<u32, String> {
    b.get(at..at + 4)
        .map(|s| u32::from_be_bytes([s[0], s[1], s[2], s[3]]))
        .ok_or_else(|| "index file ends early".to_string())
}

impl Index {
    pub fn parse(data: &[u8]) -> Result<Index, String> {
        if data.len() < 32 || &data[..4] != b"DIRC" {
            return Err("index file corrupt (bad signature)".into());
        }
        let (body, sum) = data.split_at(data.len() - 20);
        if Sha1::digest(body).as_slice() != sum {
            return Err("index file corrupt (bad checksum)".into());
        }
        let version = be32(data, 4)?;
        if !(2..=3).contains(&version) {
            return Err(format!(
                "index file version {version} is not supported here (versions 2 and 3 are)"
            ));
        }
        let count = be32(data, 8)? as usize;
        let mut entries = Vec::with_capacity(count.min(1 << 16));
        let mut at = 12;
        for _ in 0..count {
            let f = |i: usize| be32(body, at + 4 * i);
            let oid = body
                .get(at + 40..at + 60)
                .and_then(Oid::from_bytes)
                .ok_or("index file ends early")?;
            let flags = body
                .get(at + 60..at + 62)
                .map(|s| u16::from_be_bytes([s[0], s[1]]))
                .ok_or("index file ends early")?;
            let mut name_at = at + 62;
            if flags & 0x4000 != 0 {
                if version < 3 {
                    return Err("index file corrupt (extended flag in version 2)".into());
                }
                name_at += 2;
            }
            let nul = body
                .get(name_at..)
                .and_then(|r| r.iter().position(|b| *b == 0))
                .ok_or("index file corrupt (unterminated name)")?;
            let path = String::from_utf8_lossy(&body[name_at..name_at + nul]).into_owned();
            if !safe_path(&path) {
                return Err(format!("index holds an unsafe path {path:?}"));
            }
            entries.push(Entry {
                ctime: (f(0)?, f(1)?),
                mtime: (f(2)?, f(3)?),
                dev: f(4)?,
                ino: f(5)?,
                mode: f(6)?,
                uid: f(7)?,
                gid: f(8)?,
                size: f(9)?,
                oid,
                stage: ((flags >> 12) & 3) as u8,
                path,
            });
            let len = name_at - at + nul;
            // Entries are padded with 1 to 8 NULs to a multiple of 8 bytes.
            at += (len + 8) & !7;
        }
        // What follows (cache-tree and other extensions) is optional and rebuilt by git.
        let mut index = Index { entries };
        index.sort();
        Ok(index)
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend_from_slice(b"DIRC");
        out.extend_from_slice(&2u32.to_be_bytes());
        out.extend_from_slice(&(self.entries.len() as u32).to_be_bytes());
        for e in &self.entries {
            let start = out.len();
            for v in [
                e.ctime.0, e.ctime.1, e.mtime.0, e.mtime.1, e.dev, e.ino, e.mode, e.uid, e.gid,
                e.size,
            ] {
                out.extend_from_slice(&v.to_be_bytes());
            }
            out.extend_from_slice(&e.oid.0);
            let name_len = e.path.len().min(0xfff) as u16;
            let flags = (u16::from(e.stage & 3) << 12) | name_len;
            out.extend_from_slice(&flags.to_be_bytes());
            out.extend_from_slice(e.path.as_bytes());
            let len = out.len() - start;
            let padded = (len + 8) & !7;
            out.resize(start + padded, 0);
        }
        let sum = Sha1::digest(&out);
        out.extend_from_slice(&sum);
        out
    }

    pub fn sort(&mut self) {
        self.entries.sort_by(|a, b| {
            a.path
                .as_bytes()
                .cmp(b.path.as_bytes())
                .then(a.stage.cmp(&b.stage))
        });
    }

    /// The stage-0 entry for `path`.
    pub fn get(&self, path: &str) -> Option<&Entry> {
        self.position(path).map(|i| &self.entries[i])
    }

    fn position(&self, path: &str) -> Option<usize> {
        self.entries
            .binary_search_by(|e| e.path.as_bytes().cmp(path.as_bytes()).then(e.stage.cmp(&0)))
            .ok()
    }

    /// Add or replace `entry`; a file replaces a folder of the same name and the other way
    /// round, as in git, and any conflict stages of the path are resolved by it.
    pub fn add(&mut self, entry: Entry) {
        let path = entry.path.clone();
        let dir_prefix = format!("{path}/");
        self.entries.retain(|e| {
            !(e.path == path
                || e.path.starts_with(&dir_prefix)
                || path.starts_with(&format!("{}/", e.path)))
        });
        let at = self
            .entries
            .partition_point(|e| e.path.as_bytes() < path.as_bytes());
        self.entries.insert(at, entry);
    }

    /// Remove `path` (every stage). Whether there was anything.
    pub fn remove(&mut self, path: &str) -> bool {
        let before = self.entries.len();
        self.entries.retain(|e| e.path != path);
        before != self.entries.len()
    }

    /// Whether any entry lies in folder `dir` ("" is the top).
    pub fn has_dir(&self, dir: &str) -> bool {
        if dir.is_empty() {
            return !self.entries.is_empty();
        }
        let prefix = format!("{dir}/");
        let at = self
            .entries
            .partition_point(|e| e.path.as_bytes() < prefix.as_bytes());
        self.entries
            .get(at)
            .is_some_and(|e| e.path.starts_with(&prefix))
    }

    /// Whether some entries are in conflict (a stage other than 0).
    pub fn has_conflicts(&self) -> bool {
        self.entries.iter().any(|e| e.stage != 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(path: &str) -> Entry {
        Entry::new(path.into(), 0o100644, Oid([7; 20]))
    }

    #[test]
    fn round_trips_and_pads_to_eight_bytes() {
        let mut i = Index::default();
        for p in ["b", "a/c", "a.txt", "abcdefgh"] {
            i.add(entry(p));
        }
        let bytes = i.to_bytes();
        assert_eq!((bytes.len() - 12 - 20) % 8, 0);
        let back = Index::parse(&bytes).unwrap();
        let paths: Vec<_> = back.entries.iter().map(|e| e.path.as_str()).collect();
        assert_eq!(paths, ["a.txt", "a/c", "abcdefgh", "b"]);
        assert!(back.has_dir("a"));
        assert!(!back.has_dir("ab"));
    }

    #[test]
    fn a_file_replaces_a_folder_of_its_name() {
        let mut i = Index::default();
        i.add(entry("a/b"));
        i.add(entry("a/c"));
        i.add(entry("a"));
        assert_eq!(i.entries.len(), 1);
        i.add(entry("a/d"));
        assert_eq!(i.entries.len(), 1);
        assert_eq!(i.entries[0].path, "a/d");
    }

    #[test]
    fn corrupt_indexes_are_refused() {
        let mut bytes = Index::default().to_bytes();
        assert!(Index::parse(&bytes).is_ok());
        bytes[5] ^= 1;
        assert!(Index::parse(&bytes).is_err());
        assert!(Index::parse(b"DIRC").is_err());
    }
}
