//! Git's object format: ids (SHA-1 of `KIND SIZE\0DATA`), loose objects (zlib), trees,
//! commits and the identities in them.

use std::io::Read;

use sha1::{Digest, Sha1};

/// The largest object read back (a guest may write any loose object by hand).
pub(super) const MAX_OBJECT: u64 = crate::fsutil::GUEST_READ_LIMIT;

/// An object id.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub(super) struct Oid(pub [u8; 20]);

impl Oid {
    /// The all-zero id git prints for "no object".
    pub const ZERO: Oid = Oid([0; 20]);

    pub fn hex(&self) -> String {
        hex::encode(self.0)
    }

    pub fn from_hex(s: &str) -> Option<Oid> {
        let mut out = [0u8; 20];
        if s.len() != 40 {
            return None;
        }
        hex::decode_to_slice(s, &mut out).ok()?;
        Some(Oid(out))
    }

    pub fn from_bytes(b: &[u8]) -> Option<Oid> {
        Some(Oid(b.try_into().ok()?))
    }
}

/// What an object is.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Kind {
    Blob,
    Tree,
    Commit,
    Tag,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Blob => "blob",
            Kind::Tree => "tree",
            Kind::Commit => "commit",
            Kind::Tag => "tag",
        }
    }

    fn parse(s: &[u8]) -> Option<Kind> {
        Some(match s {
            b"blob" => Kind::Blob,
            b"tree" => Kind::Tree,
            b"commit" => Kind::Commit,
            b"tag" => Kind::Tag,
            _ => return None,
        })
    }

    /// The type numbers of pack files.
    pub fn from_pack(n: u8) -> Option<Kind> {
        Some(match n {
            1 => Kind::Commit,
            2 => Kind::Tree,
            3 => Kind::Blob,
            4 => Kind::Tag,
            _ => return None,
        })
    }
}

fn header(kind: Kind, len: usize) -> String {
    format!("{} {len}\0", kind.name())
}

/// The id of an object with these contents.
pub(super) fn object_id(kind: Kind, data: &[u8]) -> Oid {
    let mut h = Sha1::new();
    h.update(header(kind, data.len()).as_bytes());
    h.update(data);
    Oid(h.finalize().into())
}

/// A loose object file: the header and data, zlib-compressed.
pub(super) fn encode_loose(kind: Kind, data: &[u8]) -> Vec<u8> {
    use flate2::{Compression, write::ZlibEncoder};
    use std::io::Write;
    let mut z = ZlibEncoder::new(Vec::new(), Compression::default());
    // Writing to a Vec cannot fail.
    let _ = z.write_all(header(kind, data.len()).as_bytes());
    let _ = z.write_all(data);
    z.finish().unwrap_or_default()
}

/// zlib data inflated, at most `limit` bytes.
pub(super) fn inflate(bytes: &[u8], limit: u64) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    flate2::read::ZlibDecoder::new(bytes)
        .take(limit + 1)
        .read_to_end(&mut out)
        .map_err(|e| format!("corrupt compressed data: {e}"))?;
    if out.len() as u64 > limit {
        return Err(format!("object larger than {limit} bytes"));
    }
    Ok(out)
}

/// A loose object file's kind and data.
pub(super) fn decode_loose(bytes: &[u8]) -> Result<(Kind, Vec<u8>), String> {
    let raw = inflate(bytes, MAX_OBJECT + 64)?;
    let nul = raw
        .iter()
        .position(|b| *b == 0)
        .ok_or("object header missing")?;
    let (head, rest) = (&raw[..nul], &raw[nul + 1..]);
    let space = head
        .iter()
        .position(|b| *b == b' ')
        .ok_or("bad object header")?;
    let kind = Kind::parse(&head[..space]).ok_or("unknown object type")?;
    let len: usize = std::str::from_utf8(&head[space + 1..])
        .ok()
        .and_then(|s| s.parse().ok())
        .ok_or("bad object size")?;
    if len != rest.len() {
        return Err("object size does not match its header".into());
    }
    Ok((kind, rest.to_vec()))
}

/// File modes git records.
pub(super) const MODE_FILE: u32 = 0o100644;
pub(super) const MODE_EXEC: u32 = 0o100755;
pub(super) const MODE_LINK: u32 = 0o120000;
pub(super) const MODE_TREE: u32 = 0o040000;
pub(super) const MODE_GITLINK: u32 = 0o160000;

/// One entry of a tree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct TreeEntry {
    pub mode: u32,
    pub name: String,
    pub oid: Oid,
}

/// Whether a name may stand for a file in a work tree (what a hand-made tree or index could
/// hold otherwise would write outside of it, or into `.git`).
pub(super) fn safe_name(name: &str) -> bool {
    !(name.is_empty()
        || name == "."
        || name == ".."
        || name.eq_ignore_ascii_case(".git")
        || name.contains('/')
        || name.contains('\0'))
}

/// Whether every component of a repository path is a [`safe_name`].
pub(super) fn safe_path(path: &str) -> bool {
    path.split('/').all(safe_name)
}

pub(super) fn parse_tree(data: &[u8]) -> Result<Vec<TreeEntry>, String> {
    let mut out = Vec::new();
    let mut rest = data;
    while !rest.is_empty() {
        let sp = rest.iter().position(|b| *b == b' ').ok_or("corrupt tree")?;
        let mode = std::str::from_utf8(&rest[..sp])
            .ok()
            .and_then(|m| u32::from_str_radix(m, 8).ok())
            .ok_or("corrupt tree mode")?;
        let after = &rest[sp + 1..];
        let nul = after.iter().position(|b| *b == 0).ok_or("corrupt tree")?;
        let name = String::from_utf8_lossy(&after[..nul]).into_owned();
        let oid = after
            .get(nul + 1..nul + 21)
            .and_then(Oid::from_bytes)
            .ok_or("corrupt tree")?;
        if !safe_name(&name) {
            return Err(format!("tree holds an unsafe name {name:?}"));
        }
        out.push(TreeEntry { mode, name, oid });
        rest = &after[nul + 21..];
    }
    Ok(out)
}

/// git's order of tree entries: by name, a folder as if its name ended in `/`.
fn tree_key(e: &TreeEntry) -> Vec<u8> {
    let mut k = e.name.as_bytes().to_vec();
    if e.mode == MODE_TREE {
        k.push(b'/');
    }
    k
}

pub(super) fn write_tree(entries: &mut [TreeEntry]) -> Vec<u8> {
    entries.sort_by_key(tree_key);
    let mut out = Vec::new();
    for e in entries.iter() {
        out.extend_from_slice(format!("{:o} {}\0", e.mode, e.name).as_bytes());
        out.extend_from_slice(&e.oid.0);
    }
    out
}

/// Who made a commit, and when.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Signature {
    pub name: String,
    pub email: String,
    /// Seconds since the epoch.
    pub time: i64,
    /// Offset east of UTC, in minutes.
    pub tz: i32,
}

impl Signature {
    pub fn parse(s: &str) -> Option<Signature> {
        let lt = s.find('<')?;
        let gt = s.rfind('>')?;
        let name = s[..lt].trim().to_string();
        let email = s.get(lt + 1..gt)?.to_string();
        let mut rest = s[gt + 1..].split_whitespace();
        let time = rest.next().and_then(|t| t.parse().ok()).unwrap_or(0);
        let tz = rest.next().and_then(parse_tz).unwrap_or(0);
        Some(Signature {
            name,
            email,
            time,
            tz,
        })
    }

    pub fn tz_text(&self) -> String {
        let sign = if self.tz < 0 { '-' } else { '+' };
        let m = self.tz.unsigned_abs();
        format!("{sign}{:02}{:02}", m / 60, m % 60)
    }

    /// As a commit header holds it.
    pub fn to_header(&self) -> String {
        format!(
            "{} <{}> {} {}",
            self.name,
            self.email,
            self.time,
            self.tz_text()
        )
    }

    /// `Thu Apr 7 15:13:13 2005 -0700`, git's default date format.
    pub fn date_default(&self) -> String {
        self.format_date("%a %b %-d %H:%M:%S %Y %z")
    }

    /// `2005-04-07 15:13:13 -0700`.
    pub fn date_iso(&self) -> String {
        self.format_date("%Y-%m-%d %H:%M:%S %z")
    }

    /// `Thu, 7 Apr 2005 15:13:13 -0700`.
    pub fn date_rfc(&self) -> String {
        self.format_date("%a, %-d %b %Y %H:%M:%S %z")
    }

    /// `2005-04-07`.
    pub fn date_short(&self) -> String {
        self.format_date("%Y-%m-%d")
    }

    fn format_date(&self, f: &str) -> String {
        let offset = chrono::FixedOffset::east_opt(self.tz * 60)
            .unwrap_or_else(|| chrono::FixedOffset::east_opt(0).expect("zero offset"));
        match chrono::DateTime::from_timestamp(self.time, 0) {
            Some(t) => t.with_timezone(&offset).format(f).to_string(),
            None => self.time.to_string(),
        }
    }

    /// `3 hours ago` and the like, from `now`.
    pub fn date_relative(&self, now: i64) -> String {
        let d = now - self.time;
        if d < 0 {
            return "in the future".into();
        }
        let plural =
            |n: i64, unit: &str| format!("{n} {unit}{} ago", if n == 1 { "" } else { "s" });
        match d {
            0..90 => plural(d, "second"),
            90..5400 => plural((d + 30) / 60, "minute"),
            5400..129_600 => plural((d + 1800) / 3600, "hour"),
            129_600..1_209_600 => plural((d + 43_200) / 86_400, "day"),
            1_209_600..5_184_000 => plural((d + 302_400) / 604_800, "week"),
            5_184_000..31_536_000 => plural((d + 1_296_000) / 2_592_000, "month"),
            _ => plural(d / 31_536_000, "year"),
        }
    }
}

/// `+0130` as minutes east of UTC.
pub(super) fn parse_tz(s: &str) -> Option<i32> {
    let (sign, digits) = match s.as_bytes().first()? {
        b'+' => (1, &s[1..]),
        b'-' => (-1, &s[1..]),
        _ => return None,
    };
    if digits.len() != 4 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let h: i32 = digits[..2].parse().ok()?;
    let m: i32 = digits[2..].parse().ok()?;
    Some(sign * (h * 60 + m))
}

/// A commit object.
#[derive(Clone, Debug)]
pub(super) struct Commit {
    pub tree: Oid,
    pub parents: Vec<Oid>,
    pub author: Signature,
    pub committer: Signature,
    pub message: String,
}

impl Commit {
    pub fn parse(data: &[u8]) -> Result<Commit, String> {
        let text = String::from_utf8_lossy(data);
        let (head, message) = text.split_once("\n\n").unwrap_or((&text, ""));
        let (mut tree, mut parents, mut author, mut committer) = (None, Vec::new(), None, None);
        for line in head.lines() {
            let (k, v) = line.split_once(' ').unwrap_or((line, ""));
            match k {
                "tree" => tree = Oid::from_hex(v),
                "parent" => parents.push(Oid::from_hex(v).ok_or("corrupt parent line")?),
                "author" => author = Signature::parse(v),
                "committer" => committer = Signature::parse(v),
                _ => {}
            }
        }
        let author = author.ok_or("commit without an author")?;
        Ok(Commit {
            tree: tree.ok_or("commit without a tree")?,
            parents,
            committer: committer.unwrap_or_else(|| author.clone()),
            author,
            message: message.to_string(),
        })
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        let mut s = format!("tree {}\n", self.tree.hex());
        for p in &self.parents {
            s.push_str(&format!("parent {}\n", p.hex()));
        }
        s.push_str(&format!("author {}\n", self.author.to_header()));
        s.push_str(&format!("committer {}\n", self.committer.to_header()));
        s.push('\n');
        s.push_str(&self.message);
        s.into_bytes()
    }

    /// The first line of the message.
    pub fn subject(&self) -> &str {
        self.message.lines().next().unwrap_or("")
    }

    /// The message after the subject and the blank line under it.
    pub fn body(&self) -> &str {
        match self.message.split_once('\n') {
            Some((_, rest)) => rest.trim_start_matches('\n'),
            None => "",
        }
    }
}

/// The object a tag points at (annotated tags).
pub(super) fn tag_target(data: &[u8]) -> Option<Oid> {
    let text = std::str::from_utf8(data).ok()?;
    text.lines()
        .next()?
        .strip_prefix("object ")
        .and_then(Oid::from_hex)
}

/// A commit message as git stores it: trailing blanks and blank lines removed, `#` comment
/// lines kept (there is no editor here), one newline at the end; empty when nothing is left.
pub(super) fn clean_message(raw: &str) -> String {
    let mut lines: Vec<&str> = raw.lines().map(str::trim_end).collect();
    // Runs of blank lines become one; leading and trailing ones go.
    let mut out: Vec<&str> = Vec::new();
    for l in lines.drain(..) {
        if l.is_empty() && out.last().is_none_or(|p| p.is_empty()) {
            continue;
        }
        out.push(l);
    }
    while out.last().is_some_and(|l| l.is_empty()) {
        out.pop();
    }
    if out.is_empty() {
        return String::new();
    }
    format!("{}\n", out.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_git_ids() {
        // `printf 'hello\n' | git hash-object --stdin`
        assert_eq!(
            object_id(Kind::Blob, b"hello\n").hex(),
            "ce013625030ba8dba906f756967f9e9ca394464a"
        );
        // The empty tree every git knows.
        assert_eq!(
            object_id(Kind::Tree, b"").hex(),
            "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
        );
    }

    #[test]
    fn loose_objects_round_trip() {
        let z = encode_loose(Kind::Blob, b"abc");
        assert_eq!(decode_loose(&z).unwrap(), (Kind::Blob, b"abc".to_vec()));
        assert!(decode_loose(b"not zlib").is_err());
    }

    #[test]
    fn trees_sort_folders_as_if_slashed() {
        let oid = Oid([1; 20]);
        let mut entries = vec![
            TreeEntry {
                mode: MODE_FILE,
                name: "a.txt".into(),
                oid,
            },
            TreeEntry {
                mode: MODE_TREE,
                name: "a".into(),
                oid,
            },
            TreeEntry {
                mode: MODE_FILE,
                name: "a-b".into(),
                oid,
            },
        ];
        let bytes = write_tree(&mut entries);
        let names: Vec<_> = parse_tree(&bytes)
            .unwrap()
            .into_iter()
            .map(|e| e.name)
            .collect();
        assert_eq!(names, ["a-b", "a.txt", "a"]);
    }

    #[test]
    fn unsafe_tree_names_are_refused() {
        let mut bytes = b"100644 ..\0".to_vec();
        bytes.extend_from_slice(&[0; 20]);
        assert!(parse_tree(&bytes).is_err());
        assert!(!safe_path("a/.GIT/config"));
        assert!(safe_path("a/b.git"));
    }

    #[test]
    fn signatures_and_messages() {
        let s = Signature::parse("A U Thor <a@b.c> 1112911993 -0700").unwrap();
        assert_eq!(s.name, "A U Thor");
        assert_eq!(s.tz, -420);
        assert_eq!(s.to_header(), "A U Thor <a@b.c> 1112911993 -0700");
        assert_eq!(s.date_default(), "Thu Apr 7 15:13:13 2005 -0700");
        assert_eq!(
            clean_message("\n\nsubject  \n\n\n\nbody\n\n"),
            "subject\n\nbody\n"
        );
        assert_eq!(clean_message("  \n "), "");
    }
}
