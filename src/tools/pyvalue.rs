//! A tool call's JSON arguments as the reference's Python code sees them. The reference reads
//! each argument with `params.get(name, default)` and uses it as Python would, without checking
//! its type: a falsy value (`None`, `0`, `""`, `[]`, `{}`, `False`) counts as missing, a value
//! put into a text becomes its `str()`, and a value of the wrong kind raises Python's own
//! exception (`TypeError`, `AttributeError`). These helpers give the same answers, so the model
//! sees the reference's texts, never ours or a parser's.

use serde_json::Value;

/// Python's truth value of a JSON value.
pub(crate) fn truthy(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Object(o) => !o.is_empty(),
    }
}

/// The name of the Python type `json.loads` makes of this value.
pub(crate) fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "NoneType",
        Value::Bool(_) => "bool",
        Value::Number(n) if n.is_f64() => "float",
        Value::Number(_) => "int",
        Value::String(_) => "str",
        Value::Array(_) => "list",
        Value::Object(_) => "dict",
    }
}

/// Python's `str()` of the value (a string is itself; the rest as `repr()`).
pub(crate) fn py_str(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => py_repr(other),
    }
}

/// Python's `repr()` of the value.
pub(crate) fn py_repr(v: &Value) -> String {
    match v {
        Value::Null => "None".into(),
        Value::Bool(true) => "True".into(),
        Value::Bool(false) => "False".into(),
        Value::Number(n) => match (n.as_i64(), n.as_u64(), n.as_f64()) {
            (Some(i), _, _) => i.to_string(),
            (_, Some(u), _) => u.to_string(),
            (_, _, Some(f)) => py_float(f),
            _ => n.to_string(),
        },
        Value::String(s) => py_string_repr(s),
        Value::Array(a) => format!("[{}]", a.iter().map(py_repr).collect::<Vec<_>>().join(", ")),
        Value::Object(o) => format!(
            "{{{}}}",
            o.iter()
                .map(|(k, v)| format!("{}: {}", py_string_repr(k), py_repr(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// Python's `repr()` of a float: the shortest digits that read back the same, in positional
/// form for exponents -4 to 15 (always with a `.`), else as `1.5e+16` / `1e-05`.
fn py_float(f: f64) -> String {
    if !f.is_finite() {
        return if f.is_nan() {
            "nan".into()
        } else if f > 0.0 {
            "inf".into()
        } else {
            "-inf".into()
        };
    }
    if f == 0.0 {
        return if f.is_sign_negative() { "-0.0" } else { "0.0" }.into();
    }
    // Rust's `{:e}` prints the shortest round-trip digits too: "-1.5e-5".
    let text = format!("{f:e}");
    let (mantissa, exp) = text.split_once('e').unwrap_or((&text, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let (sign, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => ("-", m),
        None => ("", mantissa),
    };
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    let body = if (-4..16).contains(&exp) {
        let point = exp + 1;
        if point <= 0 {
            format!("0.{}{digits}", "0".repeat(point.unsigned_abs() as usize))
        } else {
            let point = point as usize;
            if point >= digits.len() {
                format!("{digits}{}.0", "0".repeat(point - digits.len()))
            } else {
                format!("{}.{}", &digits[..point], &digits[point..])
            }
        }
    } else {
        let m = if digits.len() > 1 {
            format!("{}.{}", &digits[..1], &digits[1..])
        } else {
            digits
        };
        format!(
            "{m}e{}{:02}",
            if exp < 0 { '-' } else { '+' },
            exp.unsigned_abs()
        )
    };
    format!("{sign}{body}")
}

/// Python's `repr()` of a string: single quotes unless the text has one and no double quote;
/// backslash, quote, `\n`, `\r`, `\t` and control characters escaped. (Python also escapes
/// the rarer non-printable characters beyond Latin-1, such as U+200B, which are kept here.)
fn py_string_repr(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 || (0x7f..0xa1).contains(&(c as u32)) || c == '\u{ad}' => {
                out.push_str(&format!("\\x{:02x}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

/// A value Python compares and slices as an integer (`int`, and `bool`, which is one).
pub(crate) fn as_int(v: &Value) -> Option<i64> {
    match v {
        Value::Bool(b) => Some(i64::from(*b)),
        Value::Number(n) if !n.is_f64() => n.as_i64(),
        _ => None,
    }
}

/// A value Python compares with numbers (`int`, `bool`, `float`), as a float.
pub(crate) fn as_number(v: &Value) -> Option<f64> {
    match v {
        Value::Bool(b) => Some(f64::from(u8::from(*b))),
        Value::Number(n) => n.as_f64(),
        _ => None,
    }
}

/// The exception Python raises where the reference's tool code meets an argument of the
/// wrong kind, as the last line of its traceback prints it (`TypeError: ...`). The reference's
/// episode ends there; ours shows the model this text instead and goes on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PyError(String);

impl PyError {
    /// `TypeError: '<' not supported between instances of 'str' and 'int'`.
    pub(crate) fn compare(op: &str, left: &str, right: &str) -> PyError {
        PyError(format!(
            "TypeError: '{op}' not supported between instances of '{left}' and '{right}'"
        ))
    }

    /// `AttributeError: 'int' object has no attribute 'expandtabs'`.
    pub(crate) fn no_attribute(v: &Value, attribute: &str) -> PyError {
        PyError(format!(
            "AttributeError: '{}' object has no attribute '{attribute}'",
            type_name(v)
        ))
    }

    /// What a slice with a float bound raises.
    pub(crate) fn slice_index() -> PyError {
        PyError(
            "TypeError: slice indices must be integers or None or have an __index__ method".into(),
        )
    }

    /// What `len()` of a number raises.
    pub(crate) fn no_len(v: &Value) -> PyError {
        PyError(format!(
            "TypeError: object of type '{}' has no len()",
            type_name(v)
        ))
    }

    /// What `shlex.quote` raises for a command that is not a string (Python 3.11 and later).
    pub(crate) fn not_a_string(v: &Value) -> PyError {
        PyError(format!(
            "TypeError: expected string or bytes-like object, got '{}'",
            type_name(v)
        ))
    }
}

impl std::fmt::Display for PyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// `left OP right` for `<`, `<=`, `>` or `>=` as Python evaluates it when one side is a
/// number: `Err` (Python's `TypeError`) when the other is not one.
pub(crate) fn compare(left: &Value, op: &str, right: &Value) -> Result<bool, PyError> {
    let (Some(a), Some(b)) = (as_number(left), as_number(right)) else {
        return Err(PyError::compare(op, type_name(left), type_name(right)));
    };
    Ok(match op {
        "<" => a < b,
        "<=" => a <= b,
        ">" => a > b,
        _ => a >= b,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn str_is_pythons() {
        let cases = [
            (json!(null), "None"),
            (json!(true), "True"),
            (json!(5), "5"),
            (json!(-3), "-3"),
            (json!(1.5), "1.5"),
            (json!(2.0), "2.0"),
            (json!(1e16), "1e+16"),
            (json!(1.5e-5), "1.5e-05"),
            (json!(0.0001), "0.0001"),
            (json!(123456789.125), "123456789.125"),
            (json!("it's"), "it's"),
            (json!(["a", 1, null]), "['a', 1, None]"),
            (
                json!(["it's", "q\"", "a\nb\\"]),
                r#"["it's", 'q"', 'a\nb\\']"#,
            ),
            (json!({"b": [1.0], "a": false}), "{'b': [1.0], 'a': False}"),
        ];
        for (v, want) in cases {
            assert_eq!(py_str(&v), want, "{v}");
        }
    }

    #[test]
    fn truth_and_types_are_pythons() {
        for v in [
            json!(null),
            json!(0),
            json!(0.0),
            json!(""),
            json!([]),
            json!({}),
            json!(false),
        ] {
            assert!(!truthy(&v), "{v}");
        }
        for v in [
            json!(1),
            json!(-0.5),
            json!(" "),
            json!([0]),
            json!({"a": 0}),
            json!(true),
        ] {
            assert!(truthy(&v), "{v}");
        }
        assert_eq!(type_name(&json!(1)), "int");
        assert_eq!(type_name(&json!(1.0)), "float");
        assert_eq!(as_int(&json!(true)), Some(1));
        assert_eq!(as_int(&json!(2.0)), None);
        assert_eq!(
            compare(&json!(""), "<", &json!(0)).unwrap_err().to_string(),
            "TypeError: '<' not supported between instances of 'str' and 'int'"
        );
    }
}
