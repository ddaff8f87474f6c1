//! `.gitignore` and `.git/info/exclude` patterns, and the glob matching git uses for them and
//! for pathspecs (`*`, `?`, `[...]`, `**`).

/// The most steps one match may take (a hand-written pattern can make backtracking costly).
const MAX_STEPS: usize = 100_000;

/// Whether `text` matches `pat`. With `pathname`, `*`, `?` and `[...]` do not match `/` and
/// `**` between slashes matches any number of folders (ignore files); without it, every
/// wildcard matches `/` too (pathspecs).
pub(super) fn wildmatch(pat: &str, text: &str, pathname: bool) -> bool {
    let mut steps = 0;
    matches(pat.as_bytes(), text.as_bytes(), pathname, &mut steps) == Some(true)
}

/// `None` when the step budget ran out.
fn matches(p: &[u8], t: &[u8], pathname: bool, steps: &mut usize) -> Option<bool> {
    let (mut pi, mut ti) = (0, 0);
    while pi < p.len() {
        *steps += 1;
        if *steps > MAX_STEPS {
            return None;
        }
        match p[pi] {
            b'*' => {
                let double = p.get(pi + 1) == Some(&b'*');
                let mut next = pi + 1;
                while p.get(next) == Some(&b'*') {
                    next += 1;
                }
                // `**` counts only as a whole component: `**/`, `/**`, `/**/`.
                let at_start = pi == 0 || p[pi - 1] == b'/';
                let at_end = next == p.len() || p[next] == b'/';
                let any = !pathname || (double && at_start && at_end);
                if next == p.len() {
                    return Some(any || !t[ti..].contains(&b'/'));
                }
                if any && double && pathname && p[next] == b'/' {
                    // `**/rest`: rest at this folder or any below it.
                    let rest = &p[next + 1..];
                    let mut i = ti;
                    loop {
                        if matches(rest, &t[i..], pathname, steps)? {
                            return Some(true);
                        }
                        match t[i..].iter().position(|b| *b == b'/') {
                            Some(s) => i += s + 1,
                            None => return Some(false),
                        }
                    }
                }
                for i in ti..=t.len() {
                    if matches(&p[next..], &t[i..], pathname, steps)? {
                        return Some(true);
                    }
                    if i < t.len() && !any && t[i] == b'/' {
                        return Some(false);
                    }
                }
                return Some(false);
            }
            b'?' => {
                match t.get(ti) {
                    Some(b'/') if pathname => return Some(false),
                    Some(_) => {}
                    None => return Some(false),
                }
                pi += 1;
                ti += 1;
            }
            b'[' => {
                let Some(&c) = t.get(ti) else {
                    return Some(false);
                };
                match class(&p[pi..], c) {
                    Some((ok, len)) => {
                        if !ok || (pathname && c == b'/') {
                            return Some(false);
                        }
                        pi += len;
                        ti += 1;
                    }
                    // An unclosed `[` is a literal.
                    None => {
                        if c != b'[' {
                            return Some(false);
                        }
                        pi += 1;
                        ti += 1;
                    }
                }
            }
            b'\\' if pi + 1 < p.len() => {
                if t.get(ti) != Some(&p[pi + 1]) {
                    return Some(false);
                }
                pi += 2;
                ti += 1;
            }
            c => {
                if t.get(ti) != Some(&c) {
                    return Some(false);
                }
                pi += 1;
                ti += 1;
            }
        }
    }
    Some(ti == t.len())
}

/// A `[...]` class at the start of `p`: whether `c` is in it, and the class's length.
fn class(p: &[u8], c: u8) -> Option<(bool, usize)> {
    let mut i = 1;
    let negate = matches!(p.get(i), Some(b'!' | b'^'));
    if negate {
        i += 1;
    }
    let mut hit = false;
    let mut first = true;
    loop {
        let &b = p.get(i)?;
        if b == b']' && !first {
            return Some((hit != negate, i + 1));
        }
        first = false;
        let lo = if b == b'\\' {
            i += 1;
            *p.get(i)?
        } else {
            b
        };
        if p.get(i + 1) == Some(&b'-') && p.get(i + 2).is_some_and(|x| *x != b']') {
            let hi = p[i + 2];
            hit |= lo <= c && c <= hi;
            i += 3;
        } else {
            hit |= lo == c;
            i += 1;
        }
    }
}

/// One ignore rule.
#[derive(Clone, Debug)]
struct Rule {
    /// The folder of the file it came from ("" for the top and `info/exclude`).
    base: String,
    pattern: String,
    negate: bool,
    dir_only: bool,
    /// Matched against the path below `base`, not just the last name.
    anchored: bool,
}

/// The rules of ignore files, in order of precedence (later wins).
#[derive(Clone, Debug, Default)]
pub(super) struct Ignores {
    rules: Vec<Rule>,
}

impl Ignores {
    /// Add the rules of one ignore file found in folder `base`.
    pub fn add_file(&mut self, base: &str, text: &str) {
        for line in text.lines() {
            if let Some(rule) = parse_rule(base, line) {
                self.rules.push(rule);
            }
        }
    }

    /// Whether `path` (below the top of the work tree) is ignored, looking only at the rules
    /// (not at whether a folder above it is ignored; see `Walk` for that).
    pub fn matched(&self, path: &str, is_dir: bool) -> bool {
        let name = path.rsplit('/').next().unwrap_or(path);
        for r in self.rules.iter().rev() {
            if r.dir_only && !is_dir {
                continue;
            }
            let rel = if r.base.is_empty() {
                path
            } else {
                match path
                    .strip_prefix(r.base.as_str())
                    .and_then(|p| p.strip_prefix('/'))
                {
                    Some(rel) => rel,
                    None => continue,
                }
            };
            let hit = if r.anchored {
                wildmatch(&r.pattern, rel, true)
            } else {
                wildmatch(&r.pattern, name, true)
            };
            if hit {
                return !r.negate;
            }
        }
        false
    }

    /// Whether `path` or a folder above it is ignored.
    pub fn ignored(&self, path: &str, is_dir: bool) -> bool {
        let mut at = 0;
        while let Some(i) = path[at..].find('/') {
            if self.matched(&path[..at + i], true) {
                return true;
            }
            at += i + 1;
        }
        self.matched(path, is_dir)
    }
}

fn parse_rule(base: &str, line: &str) -> Option<Rule> {
    // Trailing blanks go unless escaped; long lines are not patterns anyone writes.
    let mut l = line.trim_end_matches(['\r']);
    while l.ends_with(' ') && !l.ends_with("\\ ") {
        l = &l[..l.len() - 1];
    }
    if l.is_empty() || l.starts_with('#') || l.len() > 4096 {
        return None;
    }
    let (negate, l) = match l.strip_prefix('!') {
        Some(rest) => (true, rest),
        None => (
            false,
            l.strip_prefix("\\")
                .filter(|r| r.starts_with(['#', '!']))
                .unwrap_or(l),
        ),
    };
    let (dir_only, l) = match l.strip_suffix('/') {
        Some(rest) => (true, rest),
        None => (false, l),
    };
    if l.is_empty() {
        return None;
    }
    let anchored = l.contains('/');
    let pattern = l.strip_prefix('/').unwrap_or(l).to_string();
    Some(Rule {
        base: base.to_string(),
        pattern,
        negate,
        dir_only,
        anchored,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_follow_git() {
        assert!(wildmatch("*.py", "a.py", true));
        assert!(!wildmatch("*.py", "d/a.py", true));
        assert!(wildmatch("*.py", "d/a.py", false));
        assert!(wildmatch("**/a.py", "a.py", true));
        assert!(wildmatch("**/a.py", "x/y/a.py", true));
        assert!(wildmatch("x/**", "x/y/z", true));
        assert!(wildmatch("x/**/z", "x/z", true));
        assert!(wildmatch("x/**/z", "x/a/b/z", true));
        assert!(wildmatch("[a-c]?.t[!y]t", "bq.txt", true));
        assert!(!wildmatch("[a-c]?.t[!x]t", "bq.txt", true));
        assert!(!wildmatch("[a-c]?.t[!y]t", "dq.txt", true));
        assert!(wildmatch("\\*", "*", true));
        assert!(!wildmatch("*a*a*a*a*a*a*a*a*a*b", &"a".repeat(60), true));
    }

    #[test]
    fn ignore_rules() {
        let mut ig = Ignores::default();
        ig.add_file(
            "",
            "# c\n*.pyc\n/build\nlogs/\n!keep.pyc\ndocs/*.md\n__pycache__/\n",
        );
        ig.add_file("sub", "local.txt\n");
        assert!(ig.ignored("a.pyc", false));
        assert!(ig.ignored("x/y/a.pyc", false));
        assert!(!ig.ignored("keep.pyc", false));
        assert!(ig.ignored("build", true));
        assert!(ig.ignored("build/x.txt", false));
        assert!(!ig.ignored("src/build", true));
        assert!(ig.ignored("logs", true));
        assert!(!ig.ignored("logs", false));
        assert!(ig.ignored("logs/a.txt", false));
        assert!(ig.ignored("docs/a.md", false));
        assert!(!ig.ignored("docs/x/a.md", false));
        assert!(ig.ignored("pkg/__pycache__/m.pyc", false));
        assert!(ig.ignored("sub/local.txt", false));
        assert!(!ig.ignored("local.txt", false));
    }
}
