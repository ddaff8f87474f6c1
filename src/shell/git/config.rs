//! git's config files (`.git/config`, `~/.gitconfig`): read as `section[.subsection].key`
//! values, edited in place so the rest of the file (comments, order) stays as it was.

/// One config file's text.
#[derive(Clone, Debug, Default)]
pub(super) struct ConfigFile {
    lines: Vec<String>,
}

/// A key split as git splits it: section and key lower-cased, the subsection kept.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Key {
    section: String,
    sub: Option<String>,
    name: String,
}

impl Key {
    /// `user.name`, `remote.origin.url`; `None` when it has no section or no name.
    pub fn parse(key: &str) -> Option<Key> {
        let (first, rest) = key.split_once('.')?;
        let (sub, name) = match rest.rsplit_once('.') {
            Some((s, n)) => (Some(s.to_string()), n),
            None => (None, rest),
        };
        let ok =
            |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '-');
        if !ok(first) || !ok(name) || !name.starts_with(|c: char| c.is_ascii_alphabetic()) {
            return None;
        }
        Some(Key {
            section: first.to_ascii_lowercase(),
            sub,
            name: name.to_ascii_lowercase(),
        })
    }

    pub fn text(&self) -> String {
        match &self.sub {
            Some(s) => format!("{}.{s}.{}", self.section, self.name),
            None => format!("{}.{}", self.section, self.name),
        }
    }
}

/// What one line of a config file is.
enum Line {
    Section(String, Option<String>),
    Value(String, String),
    Other,
}

fn parse_header(l: &str) -> Option<(String, Option<String>)> {
    let inner = l.strip_prefix('[')?;
    let end = inner.rfind(']')?;
    let inner = &inner[..end];
    if let Some((sec, sub)) = inner.split_once(char::is_whitespace) {
        let sub = sub.trim();
        let sub = sub.strip_prefix('"')?.strip_suffix('"')?;
        let sub = sub.replace("\\\"", "\"").replace("\\\\", "\\");
        return Some((sec.trim().to_ascii_lowercase(), Some(sub)));
    }
    // The old `[section.sub]` spelling.
    match inner.split_once('.') {
        Some((sec, sub)) => Some((sec.to_ascii_lowercase(), Some(sub.to_ascii_lowercase()))),
        None => Some((inner.to_ascii_lowercase(), None)),
    }
}

/// A value's text: quotes removed, escapes resolved, comments and outer blanks dropped.
fn parse_value(raw: &str) -> String {
    let mut out = String::new();
    let mut quoted = false;
    let mut pending_space = String::new();
    let mut chars = raw.trim_start().chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => quoted = !quoted,
            '#' | ';' if !quoted => break,
            '\\' => {
                out.push_str(&pending_space);
                pending_space.clear();
                match chars.next() {
                    Some('n') => out.push('\n'),
                    Some('t') => out.push('\t'),
                    Some('b') => {
                        out.pop();
                    }
                    Some(c) => out.push(c),
                    None => {}
                }
            }
            c if c.is_whitespace() && !quoted => pending_space.push(c),
            c => {
                out.push_str(&pending_space);
                pending_space.clear();
                out.push(c);
            }
        }
    }
    out
}

fn classify(l: &str) -> Line {
    let t = l.trim();
    if t.starts_with('[') {
        return match parse_header(t) {
            Some((s, sub)) => Line::Section(s, sub),
            None => Line::Other,
        };
    }
    if t.is_empty() || t.starts_with('#') || t.starts_with(';') {
        return Line::Other;
    }
    match t.split_once('=') {
        Some((k, v)) => Line::Value(k.trim().to_ascii_lowercase(), parse_value(v)),
        // A bare key is a boolean `true`.
        None => Line::Value(t.to_ascii_lowercase(), "true".into()),
    }
}

/// A value written so that reading it back gives it unchanged.
fn quote_value(v: &str) -> String {
    let needs = v.starts_with(char::is_whitespace)
        || v.ends_with(char::is_whitespace)
        || v.contains(['#', ';']);
    let escaped = v
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
        .replace('\t', "\\t");
    if needs {
        format!("\"{escaped}\"")
    } else {
        escaped
    }
}

impl ConfigFile {
    pub fn parse(text: &str) -> ConfigFile {
        ConfigFile {
            lines: text.lines().map(str::to_string).collect(),
        }
    }

    pub fn text(&self) -> String {
        let mut s = self.lines.join("\n");
        if !s.is_empty() {
            s.push('\n');
        }
        s
    }

    /// Every `(key, value)`, in file order, keys as `git config --list` prints them.
    pub fn entries(&self) -> Vec<(String, String)> {
        let mut out = Vec::new();
        let mut section: Option<(String, Option<String>)> = None;
        for l in &self.lines {
            match classify(l) {
                Line::Section(s, sub) => section = Some((s, sub)),
                Line::Value(k, v) => {
                    if let Some((s, sub)) = &section {
                        let key = match sub {
                            Some(sub) => format!("{s}.{sub}.{k}"),
                            None => format!("{s}.{k}"),
                        };
                        out.push((key, v));
                    }
                }
                Line::Other => {}
            }
        }
        out
    }

    /// Where each line is: in a section matching `key`'s, and whether it sets `key`.
    fn places(&self, key: &Key) -> (Option<usize>, Vec<usize>) {
        let (mut in_section, mut last_line_of_section, mut hits) = (false, None, Vec::new());
        for (i, l) in self.lines.iter().enumerate() {
            match classify(l) {
                Line::Section(s, sub) => {
                    in_section = s == key.section && sub == key.sub;
                    if in_section {
                        last_line_of_section = Some(i);
                    }
                }
                Line::Value(k, _) if in_section => {
                    last_line_of_section = Some(i);
                    if k == key.name {
                        hits.push(i);
                    }
                }
                _ => {}
            }
        }
        (last_line_of_section, hits)
    }

    /// Set `key` (the last line that sets it is changed; others stay) or, with `add`, add a
    /// line for it.
    pub fn set(&mut self, key: &Key, value: &str, add: bool) {
        let line = format!("\t{} = {}", key.name, quote_value(value));
        let (end, hits) = self.places(key);
        match (hits.last(), end) {
            (Some(&i), _) if !add => self.lines[i] = line,
            (_, Some(end)) => self.lines.insert(end + 1, line),
            (_, None) => {
                let header = match &key.sub {
                    Some(sub) => format!(
                        "[{} \"{}\"]",
                        key.section,
                        sub.replace('\\', "\\\\").replace('"', "\\\"")
                    ),
                    None => format!("[{}]", key.section),
                };
                self.lines.push(header);
                self.lines.push(line);
            }
        }
    }

    /// Remove every line setting `key`; how many there were.
    pub fn unset(&mut self, key: &Key) -> usize {
        let (_, hits) = self.places(key);
        for &i in hits.iter().rev() {
            self.lines.remove(i);
        }
        hits.len()
    }
}

/// The configuration in force: files from the least to the most specific, then `-c` values.
#[derive(Clone, Debug, Default)]
pub(super) struct Config {
    entries: Vec<(String, String)>,
}

impl Config {
    pub fn push_file(&mut self, f: &ConfigFile) {
        self.entries.extend(f.entries());
    }

    /// A `-c key=value` from the command line.
    pub fn push(&mut self, key: &Key, value: String) {
        self.entries.push((key.text(), value));
    }

    pub fn get(&self, key: &str) -> Option<&str> {
        let want = Key::parse(key)?.text();
        self.entries
            .iter()
            .rev()
            .find(|(k, _)| Key::parse(k).is_some_and(|k| k.text() == want))
            .map(|(_, v)| v.as_str())
    }

    pub fn get_bool(&self, key: &str) -> Option<bool> {
        match self.get(key)?.to_ascii_lowercase().as_str() {
            "true" | "yes" | "on" | "1" => Some(true),
            "false" | "no" | "off" | "0" | "" => Some(false),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_sections_subsections_and_quotes() {
        let f = ConfigFile::parse(
            "[core]\n\tbare = false\n[User]\n  Name = \"A  B\" # comment\n[remote \"Origin\"]\n\turl = x ; y\n[x]\n\tflag\n",
        );
        assert_eq!(
            f.entries(),
            [
                ("core.bare".to_string(), "false".to_string()),
                ("user.name".into(), "A  B".into()),
                ("remote.Origin.url".into(), "x".into()),
                ("x.flag".into(), "true".into()),
            ]
        );
    }

    #[test]
    fn set_edits_in_place_or_adds_a_section() {
        let mut f = ConfigFile::parse("# mine\n[user]\n\tname = a\n[core]\n\tbare = false\n");
        f.set(&Key::parse("user.name").unwrap(), "b", false);
        f.set(&Key::parse("user.email").unwrap(), "e@x", false);
        f.set(&Key::parse("safe.directory").unwrap(), "*", true);
        f.set(&Key::parse("safe.directory").unwrap(), " /t ", true);
        assert_eq!(
            f.text(),
            "# mine\n[user]\n\tname = b\n\temail = e@x\n[core]\n\tbare = false\n[safe]\n\tdirectory = *\n\tdirectory = \" /t \"\n"
        );
        let mut c = Config::default();
        c.push_file(&f);
        assert_eq!(c.get("USER.Name"), Some("b"));
        assert_eq!(c.get("safe.directory"), Some(" /t "));
        assert_eq!(c.get_bool("core.bare"), Some(false));
        assert_eq!(f.unset(&Key::parse("safe.directory").unwrap()), 2);
    }

    #[test]
    fn keys_need_a_section_and_a_name() {
        assert!(Key::parse("name").is_none());
        assert!(Key::parse("user.").is_none());
        assert_eq!(
            Key::parse("Remote.Origin.URL").unwrap().text(),
            "remote.Origin.url"
        );
    }
}
