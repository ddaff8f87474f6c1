//! The `data_files` patterns of a dataset card.

/// `*` (not across `/`), `**` (across `/`; `**/` also matches no folder), `?`, `[abc]`,
/// `[a-z]`, `[!x]` / `[^x]`, matched against a whole `/`-separated repository path.
///
/// Ours rather than `globset`'s: there `**` inside a name (`**.parquet`) stops at `/`, an
/// unclosed `[` is an error rather than a literal `[` (as in Python's `fnmatch`), and `{a,b}`
/// is an alternation; the test below pins each of these as dataset cards are matched today.
pub(super) fn glob_match(pattern: &str, path: &str) -> bool {
    tokens_match(&tokens(pattern), path)
}

/// One piece of a pattern.
#[derive(Debug)]
enum Tok {
    Lit(char),
    Any,
    Star,
    DStar,
    DStarSlash,
    Class(Vec<(char, char)>, bool),
}

/// The pattern as tokens.
fn tokens(pattern: &str) -> Vec<Tok> {
    let p: Vec<char> = pattern.chars().collect();
    let mut toks = Vec::new();
    let mut i = 0;
    while i < p.len() {
        match p[i] {
            '*' if p.get(i + 1) == Some(&'*') => {
                if p.get(i + 2) == Some(&'/') {
                    toks.push(Tok::DStarSlash);
                    i += 3;
                } else {
                    toks.push(Tok::DStar);
                    i += 2;
                }
            }
            '*' => {
                toks.push(Tok::Star);
                i += 1;
            }
            '?' => {
                toks.push(Tok::Any);
                i += 1;
            }
            '[' => match class(&p, i) {
                Some((tok, next)) => {
                    toks.push(tok);
                    i = next;
                }
                None => {
                    // No closing bracket: a literal `[`.
                    toks.push(Tok::Lit('['));
                    i += 1;
                }
            },
            c => {
                toks.push(Tok::Lit(c));
                i += 1;
            }
        }
    }
    toks
}

/// The class opening at `p[open]` (a `[`) and the index after its `]`; `None` when unclosed.
fn class(p: &[char], open: usize) -> Option<(Tok, usize)> {
    let mut j = open + 1;
    let negated = matches!(p.get(j), Some('!' | '^'));
    if negated {
        j += 1;
    }
    let start = j;
    let mut ranges = Vec::new();
    while j < p.len() && (p[j] != ']' || j == start) {
        if p.get(j + 1) == Some(&'-') && p.get(j + 2).is_some_and(|c| *c != ']') {
            ranges.push((p[j], p[j + 2]));
            j += 3;
        } else {
            ranges.push((p[j], p[j]));
            j += 1;
        }
    }
    (j < p.len()).then(|| (Tok::Class(ranges, negated), j + 1))
}

/// Whether the tokens match all of `path`: one row per token, from the last, over every
/// position of the path.
fn tokens_match(toks: &[Tok], path: &str) -> bool {
    let s: Vec<char> = path.chars().collect();
    let n = s.len();
    // m[t][j]: toks[t..] matches s[j..].
    let mut next = vec![false; n + 1];
    next[n] = true;
    for tok in toks.iter().rev() {
        let mut cur = vec![false; n + 1];
        let mut later_slash = false; // for DStarSlash: some k >= j with s[k] == '/' && next[k+1]
        for j in (0..=n).rev() {
            cur[j] = match tok {
                Tok::Lit(c) => j < n && s[j] == *c && next[j + 1],
                Tok::Any => j < n && s[j] != '/' && next[j + 1],
                Tok::Class(ranges, negated) => {
                    j < n
                        && s[j] != '/'
                        && ranges.iter().any(|(a, b)| (*a..=*b).contains(&s[j])) != *negated
                        && next[j + 1]
                }
                Tok::Star => next[j] || (j < n && s[j] != '/' && cur[j + 1]),
                Tok::DStar => next[j] || (j < n && cur[j + 1]),
                Tok::DStarSlash => {
                    if j < n && s[j] == '/' && next[j + 1] {
                        later_slash = true;
                    }
                    next[j] || later_slash
                }
            };
        }
        next = cur;
    }
    next[0]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn glob_star_stays_in_a_folder_and_double_star_crosses() {
        assert!(glob_match(
            "math/test-*",
            "math/test-00000-of-00001.parquet"
        ));
        assert!(!glob_match(
            "math/test-*",
            "math/train-00000-of-00001.parquet"
        ));
        assert!(!glob_match("math/*", "math/sub/test.parquet"));
        assert!(!glob_match("*.parquet", "math/test.parquet"));
        assert!(glob_match("**.parquet", "math/test.parquet"));
        assert!(glob_match("data/**/x.parquet", "data/x.parquet"));
        assert!(glob_match("data/**/x.parquet", "data/a/b/x.parquet"));
        assert!(!glob_match("data/**/x.parquet", "datax.parquet"));
        assert!(glob_match("data/**", "data/a/b.jsonl"));
        assert!(glob_match("t?st.json", "test.json"));
        assert!(!glob_match("t?st.json", "t/st.json"));
        assert!(glob_match("part-[0-9].parquet", "part-7.parquet"));
        assert!(!glob_match("part-[0-9].parquet", "part-x.parquet"));
        assert!(glob_match("part-[!0-9].parquet", "part-x.parquet"));
        assert!(glob_match("a[b", "a[b"));
        assert!(glob_match("{a,b}.json", "{a,b}.json"));
        assert!(!glob_match("{a,b}.json", "a.json"));
        assert!(!glob_match("test", "test-0.parquet"));
        assert!(glob_match("", ""));
    }
}
