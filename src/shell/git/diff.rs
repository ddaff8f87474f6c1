//! Line diffs as git prints them: Myers' algorithm (linear space), changes slid to the place
//! git puts them, unified hunks with 3 lines of context and git's hunk-header function names,
//! and `--stat` lines.

use std::collections::HashMap;

/// Above this many edits in one part the search stops and the part is shown as replaced.
const MAX_COST: usize = 4096;

/// Lines, each with its line end.
pub(super) fn lines(data: &[u8]) -> Vec<&[u8]> {
    data.split_inclusive(|b| *b == b'\n').collect()
}

/// Whether git would call this content binary (a NUL in its first 8000 bytes).
pub(super) fn is_binary(data: &[u8]) -> bool {
    data[..data.len().min(8000)].contains(&0)
}

/// Which lines of each side changed.
pub(super) struct Changes {
    pub a: Vec<bool>,
    pub b: Vec<bool>,
}

/// The changes from `a` to `b`.
pub(super) fn diff_lines<'a>(a: &[&'a [u8]], b: &[&'a [u8]]) -> Changes {
    // Lines as numbers: equal lines, equal numbers.
    let mut ids: HashMap<&[u8], u32> = HashMap::new();
    let mut number = |side: &[&'a [u8]]| -> Vec<u32> {
        side.iter()
            .map(|l| {
                let n = ids.len() as u32;
                *ids.entry(*l).or_insert(n)
            })
            .collect()
    };
    let ia = number(a);
    let ib = number(b);
    // One more slot than lines: the sliding below reads one past the end.
    let mut ch = Changes {
        a: vec![false; ia.len() + 1],
        b: vec![false; ib.len() + 1],
    };
    compare(&ia, 0, &ib, 0, &mut ch);
    compact(&ia, &mut ch.a, &mut ch.b);
    compact(&ib, &mut ch.b, &mut ch.a);
    ch.a.pop();
    ch.b.pop();
    ch
}

/// Mark the changed lines of `a` (starting at line `ao` of the whole) and `b`.
fn compare(a: &[u32], ao: usize, b: &[u32], bo: usize, ch: &mut Changes) {
    // Common head and tail are unchanged.
    let head = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let (a, b, ao, bo) = (&a[head..], &b[head..], ao + head, bo + head);
    let tail = a
        .iter()
        .rev()
        .zip(b.iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let (a, b) = (&a[..a.len() - tail], &b[..b.len() - tail]);
    if !a.is_empty() && !b.is_empty() {
        // Both ends differ, so at least two edits are needed and the split point found
        // after half of them lies strictly inside: each part is smaller.
        if let Some((x, y)) = bisect(a, b) {
            compare(&a[..x], ao, &b[..y], bo, ch);
            compare(&a[x..], ao + x, &b[y..], bo + y, ch);
            return;
        }
    }
    ch.a[ao..ao + a.len()].iter_mut().for_each(|c| *c = true);
    ch.b[bo..bo + b.len()].iter_mut().for_each(|c| *c = true);
}

/// A point on a shortest edit path from (0,0) to (n,m), found where the paths searched
/// from both ends meet (Myers 1986, section 4b). `None` past [`MAX_COST`] edits.
fn bisect(a: &[u32], b: &[u32]) -> Option<(usize, usize)> {
    let (n, m) = (a.len() as isize, b.len() as isize);
    let max_d = ((n + m + 1) / 2).min(MAX_COST as isize);
    let off = max_d + 1;
    let len = (2 * off + 2) as usize;
    // Furthest x on each diagonal k (stored at k + off); -1: not reached yet.
    let mut vf = vec![-1isize; len];
    let mut vb = vec![-1isize; len];
    vf[(off + 1) as usize] = 0;
    vb[(off + 1) as usize] = 0;
    let delta = n - m;
    // An odd delta means the forward search meets paths of the backward one.
    let front = delta % 2 != 0;
    // Diagonals that ran off the grid are not searched again.
    let (mut f_start, mut f_end, mut b_start, mut b_end) = (0, 0, 0, 0);
    for d in 0..max_d {
        let mut k = -d + f_start;
        while k <= d - f_end {
            let i = (off + k) as usize;
            let mut x = if k == -d || (k != d && vf[i - 1] < vf[i + 1]) {
                vf[i + 1]
            } else {
                vf[i - 1] + 1
            };
            let mut y = x - k;
            while x < n && y < m && a[x as usize] == b[y as usize] {
                x += 1;
                y += 1;
            }
            vf[i] = x;
            if x > n {
                f_end += 2;
            } else if y > m {
                f_start += 2;
            } else if front {
                let j = off + delta - k;
                if j >= 0 && (j as usize) < len && vb[j as usize] != -1 && x >= n - vb[j as usize] {
                    return Some((x as usize, y as usize));
                }
            }
            k += 2;
        }
        let mut k = -d + b_start;
        while k <= d - b_end {
            let i = (off + k) as usize;
            let mut x = if k == -d || (k != d && vb[i - 1] < vb[i + 1]) {
                vb[i + 1]
            } else {
                vb[i - 1] + 1
            };
            let mut y = x - k;
            while x < n && y < m && a[(n - x - 1) as usize] == b[(m - y - 1) as usize] {
                x += 1;
                y += 1;
            }
            vb[i] = x;
            if x > n {
                b_end += 2;
            } else if y > m {
                b_start += 2;
            } else if !front {
                let j = off + delta - k;
                if j >= 0 && (j as usize) < len && vf[j as usize] != -1 {
                    let xf = vf[j as usize];
                    let yf = xf - (delta - k);
                    if xf >= n - x {
                        return Some((xf as usize, yf as usize));
                    }
                }
            }
            k += 2;
        }
    }
    None
}

/// A run of changed lines `[start, end)` (empty: a place between lines).
#[derive(Clone, Copy)]
struct Group {
    start: usize,
    end: usize,
}

fn run_end(ch: &[bool], mut at: usize) -> usize {
    while ch[at] {
        at += 1;
    }
    at
}

fn group_next(ch: &[bool], g: &mut Group) -> bool {
    if g.end + 1 >= ch.len() {
        return false;
    }
    g.start = g.end + 1;
    g.end = run_end(ch, g.start);
    true
}

fn group_previous(ch: &[bool], g: &mut Group) -> bool {
    if g.start == 0 {
        return false;
    }
    g.end = g.start - 1;
    g.start = g.end;
    while g.start > 0 && ch[g.start - 1] {
        g.start -= 1;
    }
    true
}

fn slide_down(rec: &[u32], ch: &mut [bool], g: &mut Group) -> bool {
    if g.end < rec.len() && rec[g.start] == rec[g.end] {
        ch[g.start] = false;
        ch[g.end] = true;
        g.start += 1;
        g.end = run_end(ch, g.end + 1);
        true
    } else {
        false
    }
}

fn slide_up(rec: &[u32], ch: &mut [bool], g: &mut Group) -> bool {
    if g.start > 0 && rec[g.start - 1] == rec[g.end - 1] {
        g.start -= 1;
        g.end -= 1;
        ch[g.start] = true;
        ch[g.end] = false;
        while g.start > 0 && ch[g.start - 1] {
            g.start -= 1;
        }
        true
    } else {
        false
    }
}

/// Move each run of changes of one side as far down as it can go, merging runs that meet,
/// unless it can line up with a change on the other side (git's `xdl_change_compact`
/// without the indent heuristic).
fn compact(rec: &[u32], ch: &mut [bool], och: &mut [bool]) {
    let mut g = Group {
        start: 0,
        end: run_end(ch, 0),
    };
    let mut go = Group {
        start: 0,
        end: run_end(och, 0),
    };
    loop {
        if g.end != g.start {
            let mut earliest_end;
            let mut end_matching_other;
            loop {
                let size = g.end - g.start;
                end_matching_other = None;
                while slide_up(rec, ch, &mut g) {
                    group_previous(och, &mut go);
                }
                earliest_end = g.end;
                if go.end > go.start {
                    end_matching_other = Some(g.end);
                }
                while slide_down(rec, ch, &mut g) {
                    group_next(och, &mut go);
                    if go.end > go.start {
                        end_matching_other = Some(g.end);
                    }
                }
                if size == g.end - g.start {
                    break;
                }
            }
            if g.end != earliest_end
                && let Some(target) = end_matching_other
            {
                while go.end == go.start && g.end > target {
                    if !slide_up(rec, ch, &mut g) {
                        break;
                    }
                    group_previous(och, &mut go);
                }
            }
        }
        if !group_next(ch, &mut g) || !group_next(och, &mut go) {
            break;
        }
    }
}

/// One line of a hunk.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Tag {
    Same,
    Del,
    Add,
}

/// The script as (tag, index into a or b).
fn script(ch: &Changes) -> Vec<(Tag, usize)> {
    let (mut i, mut j) = (0, 0);
    let mut out = Vec::new();
    while i < ch.a.len() || j < ch.b.len() {
        if i < ch.a.len() && ch.a[i] {
            out.push((Tag::Del, i));
            i += 1;
        } else if j < ch.b.len() && ch.b[j] {
            out.push((Tag::Add, j));
            j += 1;
        } else {
            out.push((Tag::Same, i));
            i += 1;
            j += 1;
        }
    }
    out
}

/// Lines added and removed.
pub(super) fn counts(ch: &Changes) -> (usize, usize) {
    (
        ch.b.iter().filter(|c| **c).count(),
        ch.a.iter().filter(|c| **c).count(),
    )
}

/// git's default function-name rule: a line starting with a letter, `_` or `$`.
fn func_name(line: &[u8]) -> Option<String> {
    let first = *line.first()?;
    if !(first.is_ascii_alphabetic() || first == b'_' || first == b'$') {
        return None;
    }
    let mut l = &line[..line.len().min(80)];
    while let Some((last, rest)) = l.split_last() {
        if last.is_ascii_whitespace() {
            l = rest;
        } else {
            break;
        }
    }
    Some(String::from_utf8_lossy(l).into_owned())
}

fn range(start: usize, len: usize) -> String {
    match len {
        0 => format!("{},0", start),
        1 => format!("{}", start + 1),
        _ => format!("{},{}", start + 1, len),
    }
}

/// The unified hunks from `a` to `b` with `context` lines around each change.
pub(super) fn unified(a: &[&[u8]], b: &[&[u8]], ch: &Changes, context: usize) -> Vec<u8> {
    let s = script(ch);
    let mut out = Vec::new();
    // Indexes into the script of the changed lines.
    let changed: Vec<usize> = (0..s.len()).filter(|&i| s[i].0 != Tag::Same).collect();
    if changed.is_empty() {
        return out;
    }
    // Old and new line numbers at each script position.
    let mut pos = Vec::with_capacity(s.len() + 1);
    let (mut i, mut j) = (0, 0);
    for (t, _) in &s {
        pos.push((i, j));
        match t {
            Tag::Same => {
                i += 1;
                j += 1;
            }
            Tag::Del => i += 1,
            Tag::Add => j += 1,
        }
    }
    pos.push((i, j));
    let mut k = 0;
    while k < changed.len() {
        // A hunk spans changes whose gaps are at most 2 * context unchanged lines.
        let first = changed[k];
        let mut last = first;
        k += 1;
        while k < changed.len() && changed[k] - last - 1 <= 2 * context {
            last = changed[k];
            k += 1;
        }
        let from = first.saturating_sub(context);
        let to = (last + 1 + context).min(s.len());
        let (a0, b0) = pos[from];
        let (a1, b1) = pos[to];
        let func = (0..a0).rev().find_map(|l| func_name(a[l]));
        let mut header = format!("@@ -{} +{} @@", range(a0, a1 - a0), range(b0, b1 - b0));
        if let Some(f) = func {
            header.push(' ');
            header.push_str(&f);
        }
        header.push('\n');
        out.extend_from_slice(header.as_bytes());
        for &(t, idx) in &s[from..to] {
            let (mark, line) = match t {
                Tag::Same => (b' ', a[idx]),
                Tag::Del => (b'-', a[idx]),
                Tag::Add => (b'+', b[idx]),
            };
            out.push(mark);
            out.extend_from_slice(line);
            if !line.ends_with(b"\n") {
                out.extend_from_slice(b"\n\\ No newline at end of file\n");
            }
        }
    }
    out
}

/// One file's row of `--stat`.
pub(super) struct StatRow {
    pub name: String,
    pub added: usize,
    pub removed: usize,
    /// `Some((old size, new size))` for a binary file.
    pub binary: Option<(usize, usize)>,
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// ` N files changed, X insertions(+), Y deletions(-)`.
pub(super) fn summary_line(rows: &[StatRow]) -> String {
    let (add, del): (usize, usize) = rows
        .iter()
        .fold((0, 0), |(a, d), r| (a + r.added, d + r.removed));
    let mut s = format!(" {}", plural(rows.len(), "file changed", "files changed"));
    if add > 0 || del == 0 {
        s.push_str(&format!(
            ", {}",
            plural(add, "insertion(+)", "insertions(+)")
        ));
    }
    if del > 0 || add == 0 {
        s.push_str(&format!(", {}", plural(del, "deletion(-)", "deletions(-)")));
    }
    s.push('\n');
    s
}

fn scale(it: usize, width: usize, max: usize) -> usize {
    if it == 0 || max == 0 {
        0
    } else {
        1 + it * (width.saturating_sub(1)) / max
    }
}

/// The `--stat` block (rows and summary) for an 80-column output, as git lays it out.
pub(super) fn stat(rows: &[StatRow]) -> String {
    if rows.is_empty() {
        return String::new();
    }
    let width = 80usize;
    let max_change = rows
        .iter()
        .filter(|r| r.binary.is_none())
        .map(|r| r.added + r.removed)
        .max()
        .unwrap_or(0);
    let max_len = rows
        .iter()
        .map(|r| r.name.chars().count())
        .max()
        .unwrap_or(0);
    let any_binary = rows.iter().any(|r| r.binary.is_some());
    let mut number_width = max_change.to_string().len();
    if any_binary {
        number_width = number_width.max(3);
    }
    let width = width.max(16 + 6 + number_width);
    let bin_width = if any_binary {
        "Bin XXX -> YYY bytes".len()
    } else {
        0
    };
    let mut graph_width = if max_change + 4 > bin_width {
        max_change
    } else {
        bin_width - 4
    };
    let mut name_width = max_len;
    if name_width + number_width + 6 + graph_width > width {
        let limit = (width * 3 / 8).saturating_sub(number_width + 6).max(6);
        if graph_width > limit {
            graph_width = limit;
        }
        let room = width.saturating_sub(number_width + 6 + graph_width);
        if name_width > room {
            name_width = room;
        } else {
            graph_width = width - number_width - 6 - name_width;
        }
    }
    let mut out = String::new();
    for r in rows {
        let chars: Vec<char> = r.name.chars().collect();
        let name = if chars.len() > name_width {
            let keep = name_width.saturating_sub(3);
            let tail: String = chars[chars.len() - keep..].iter().collect();
            format!("...{tail}")
        } else {
            r.name.clone()
        };
        let pad = name_width.saturating_sub(name.chars().count());
        out.push_str(&format!(" {name}{} |", " ".repeat(pad)));
        if let Some((old, new)) = r.binary {
            out.push_str(&format!(" {:>number_width$}", "Bin"));
            if old != new || old != 0 {
                out.push_str(&format!(" {old} -> {new} bytes"));
            }
            out.push('\n');
            continue;
        }
        let (mut add, mut del) = (r.added, r.removed);
        let total = add + del;
        out.push_str(&format!(" {:>number_width$}", total));
        if total > 0 {
            if graph_width <= max_change {
                let mut t = scale(total, graph_width, max_change);
                if t < 2 && add > 0 && del > 0 {
                    t = 2;
                }
                if add < del {
                    add = scale(add, graph_width, max_change);
                    del = t - add;
                } else {
                    del = scale(del, graph_width, max_change);
                    add = t - del;
                }
            }
            out.push(' ');
            out.push_str(&"+".repeat(add));
            out.push_str(&"-".repeat(del));
        }
        out.push('\n');
    }
    out.push_str(&summary_line(rows));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn udiff(a: &str, b: &str) -> String {
        let (la, lb) = (lines(a.as_bytes()), lines(b.as_bytes()));
        let ch = diff_lines(&la, &lb);
        String::from_utf8(unified(&la, &lb, &ch, 3)).unwrap()
    }

    #[test]
    fn one_added_line() {
        assert_eq!(udiff("one\n", "one\ntwo\n"), "@@ -1 +1,2 @@\n one\n+two\n");
        assert_eq!(udiff("", "x\n"), "@@ -0,0 +1 @@\n+x\n");
        assert_eq!(udiff("x\n", ""), "@@ -1 +0,0 @@\n-x\n");
        assert_eq!(
            udiff("a\nb", "a\nc"),
            "@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n"
        );
    }

    #[test]
    fn far_apart_changes_make_two_hunks_with_function_names() {
        let a: String = (0..30).map(|i| format!("    line {i}\n")).collect();
        let a = format!("def f():\n{a}");
        let b = a
            .replace("line 2\n", "line two\n")
            .replace("line 25\n", "line 25b\n");
        let d = udiff(&a, &b);
        assert!(d.starts_with("@@ -1,7 +1,7 @@\n def f():\n"), "{d}");
        assert!(d.contains("@@ -24,7 +24,7 @@ def f():\n"), "{d}");
    }

    #[test]
    fn an_ambiguous_insertion_goes_down() {
        // `git diff` puts the new "b" after the old one.
        assert_eq!(
            udiff("a\nb\nc\n", "a\nb\nb\nc\n"),
            "@@ -1,3 +1,4 @@\n a\n b\n+b\n c\n"
        );
    }

    #[test]
    fn minimal_edits_on_larger_inputs() {
        let a: Vec<String> = (0..500).map(|i| format!("{}\n", i % 7)).collect();
        let mut b = a.clone();
        b.remove(100);
        b.insert(300, "new\n".into());
        let (la, lb): (Vec<&[u8]>, Vec<&[u8]>) = (
            a.iter().map(|s| s.as_bytes()).collect(),
            b.iter().map(|s| s.as_bytes()).collect(),
        );
        assert_eq!(counts(&diff_lines(&la, &lb)), (1, 1));
    }

    #[test]
    fn stat_lines() {
        let rows = [StatRow {
            name: "a.txt".into(),
            added: 1,
            removed: 0,
            binary: None,
        }];
        assert_eq!(
            stat(&rows),
            " a.txt | 1 +\n 1 file changed, 1 insertion(+)\n"
        );
        let rows = [
            StatRow {
                name: "a".into(),
                added: 2,
                removed: 1,
                binary: None,
            },
            StatRow {
                name: "bb".into(),
                added: 0,
                removed: 10,
                binary: None,
            },
        ];
        assert_eq!(
            stat(&rows),
            " a  |  3 ++-\n bb | 10 ----------\n 2 files changed, 2 insertions(+), 11 deletions(-)\n"
        );
    }
}
