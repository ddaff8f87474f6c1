//! The page: our own HTML, CSS and JavaScript, built into the binary, put together into one
//! document (served by the viewer, or written with the data embedded by [`super::export`]).
//! The scripts and styles are allowed by hash in a Content-Security-Policy, so no other script
//! can run even if some text were ever taken for markup.

use base64::Engine;
use sha2::Digest;

const TEMPLATE: &str = include_str!("assets/page.html");
const CSS: &str = include_str!("assets/page.css");
const JS: &str = include_str!("assets/page.js");

fn hash(s: &str) -> String {
    let digest = sha2::Sha256::digest(s.as_bytes());
    format!(
        "'sha256-{}'",
        base64::engine::general_purpose::STANDARD.encode(digest)
    )
}

/// The page's Content-Security-Policy: our one script and one style block (by hash), images
/// from the viewer or embedded, requests only to the viewer.
pub fn csp() -> String {
    format!(
        "default-src 'none'; script-src {}; style-src {}; img-src 'self' data: blob:; \
         connect-src 'self'; base-uri 'none'; form-action 'none'",
        hash(JS),
        hash(CSS)
    )
}

/// JSON safe inside a `<script type="application/json">` element: `<`, `>`, `&` and the
/// two JavaScript line separators written as `\u` escapes (they can only occur inside JSON
/// strings, where the escape means the same character), so no `</script>` can end it.
pub fn json_for_html(v: &serde_json::Value) -> String {
    let text = v.to_string();
    let mut out = String::with_capacity(text.len() + 64);
    for c in text.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    out
}

/// The whole page; `data` (embedded run data) makes it work without a server.
pub fn render(data: Option<&serde_json::Value>) -> String {
    let data = data
        .map(|d| {
            format!(
                "<script type=\"application/json\" id=\"embedded\">{}</script>",
                json_for_html(d)
            )
        })
        .unwrap_or_default();
    let csp = csp();
    let parts: [(&str, &str); 4] = [
        ("{{CSP}}", &csp),
        ("{{CSS}}", CSS),
        ("{{DATA}}", &data),
        ("{{JS}}", JS),
    ];
    // One pass over the template: inserted text is never searched for markers again.
    let mut out = String::with_capacity(TEMPLATE.len() + CSS.len() + JS.len() + data.len());
    let mut rest = TEMPLATE;
    while let Some((at, marker, value)) = parts
        .iter()
        .filter_map(|(m, v)| rest.find(m).map(|i| (i, *m, *v)))
        .min_by_key(|(i, _, _)| *i)
    {
        out.push_str(&rest[..at]);
        out.push_str(value);
        rest = &rest[at + marker.len()..];
    }
    out.push_str(rest);
    out
}

/// How the page shows a file: `image` (png, jpeg, gif, webp, bmp) or `text` (anything else:
/// shown as text when it decodes as UTF-8). SVG is text: as an image of our origin it could
/// carry script.
pub fn file_kind(path: &str) -> &'static str {
    let ext = path
        .rsplit_once('.')
        .map(|(_, e)| e.to_ascii_lowercase())
        .unwrap_or_default();
    match ext.as_str() {
        "png" | "jpg" | "jpeg" | "gif" | "webp" | "bmp" => "image",
        _ => "text",
    }
}

/// The content type a file is served with: images as themselves, everything else as plain
/// text (never HTML or SVG, which a browser would run).
pub fn content_type(path: &str) -> &'static str {
    let ext = path
        .rsplit_once('.')
        .map(|(_, e)| e.to_ascii_lowercase())
        .unwrap_or_default();
    match ext.as_str() {
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "bmp" => "image/bmp",
        _ => "text/plain; charset=utf-8",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_data_cannot_end_its_script_element() {
        let v = serde_json::json!({"x": "</script><script>alert(1)</script>&\u{2028}"});
        let s = json_for_html(&v);
        assert!(!s.contains('<') && !s.contains('>'), "{s}");
        let back: serde_json::Value = serde_json::from_str(&s).unwrap();
        assert_eq!(back, v);
        let page = render(Some(&v));
        assert_eq!(
            page.matches("</script>").count(),
            2,
            "the data block and our script"
        );
        assert!(page.contains(&hash(JS)[1..20]));
    }
}
