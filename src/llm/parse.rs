//! Tool calls written into the message text by models served without a tool parser:
//! `<tool_call>{"name": .., "arguments": ..}</tool_call>` (Qwen/Hermes), a fenced JSON object
//! with `name` and `arguments`, or `<function=NAME><parameter=KEY>VALUE</parameter></function>`.

use serde_json::{Map, Value};

use super::{FunctionCall, ToolCall};

fn call(name: &str, arguments: Value, n: usize) -> ToolCall {
    let arguments = match arguments {
        Value::String(s) => s,
        other => other.to_string(),
    };
    ToolCall {
        id: format!("content_call_{n}"),
        kind: "function".into(),
        function: FunctionCall {
            name: name.to_string(),
            arguments,
        },
    }
}

/// A JSON object naming a tool, as a call; a malformed object still yields a call (with the raw
/// text as arguments) so the model is told what was wrong instead of being ignored.
fn from_json(text: &str, n: usize) -> Option<ToolCall> {
    let text = text.trim();
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(o)) => {
            let name = o.get("name").and_then(Value::as_str)?;
            let args = o
                .get("arguments")
                .or_else(|| o.get("parameters"))
                .cloned()
                .unwrap_or(Value::Object(Map::new()));
            Some(call(name, args, n))
        }
        Ok(_) => None,
        Err(_) => {
            // Recover the name so the error can be reported against the right tool.
            let name = text.split("\"name\"").nth(1)?.split('"').nth(1)?;
            Some(call(name, Value::String(text.to_string()), n))
        }
    }
}

fn between<'a>(text: &'a str, open: &str, close: &str) -> Vec<&'a str> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find(open) {
        let after = &rest[start + open.len()..];
        let Some(end) = after.find(close) else {
            out.push(after);
            break;
        };
        out.push(&after[..end]);
        rest = &after[end + close.len()..];
    }
    out
}

fn xml_function_calls(text: &str, first: usize) -> Vec<ToolCall> {
    let mut out = Vec::new();
    for block in between(text, "<function=", "</function>") {
        let Some((name, body)) = block.split_once('>') else {
            continue;
        };
        let mut args = Map::new();
        for p in between(body, "<parameter=", "</parameter>") {
            if let Some((key, value)) = p.split_once('>') {
                let value = value.strip_prefix('\n').unwrap_or(value);
                let value = value.strip_suffix('\n').unwrap_or(value);
                args.insert(key.trim().to_string(), Value::from(value));
            }
        }
        out.push(call(name.trim(), Value::Object(args), first + out.len()));
    }
    out
}

/// Tool calls found in message text, in order; empty when there are none.
pub fn tool_calls_in_content(text: &str) -> Vec<ToolCall> {
    let mut calls: Vec<ToolCall> = between(text, "<tool_call>", "</tool_call>")
        .into_iter()
        .enumerate()
        .filter_map(|(i, t)| from_json(t, i))
        .collect();
    if calls.is_empty() {
        calls = xml_function_calls(text, 0);
    }
    if calls.is_empty() {
        for (i, block) in between(text, "```", "```").into_iter().enumerate() {
            let body = block
                .strip_prefix("json")
                .or_else(|| block.strip_prefix("tool_call"))
                .unwrap_or(block);
            if let Some(c) = from_json(body, i) {
                calls.push(c);
            }
        }
    }
    calls
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hermes_style() {
        let c = tool_calls_in_content(
            "thinking\n<tool_call>\n{\"name\": \"execute_bash\", \"arguments\": {\"command\": \"ls\"}}\n</tool_call>",
        );
        assert_eq!(c.len(), 1);
        assert_eq!(c[0].function.name, "execute_bash");
        assert_eq!(c[0].function.arguments, "{\"command\":\"ls\"}");
    }

    #[test]
    fn fenced_json_and_xml_functions() {
        let c = tool_calls_in_content("```json\n{\"name\": \"submit\", \"arguments\": {}}\n```");
        assert_eq!(c[0].function.name, "submit");
        let c = tool_calls_in_content(
            "<function=execute_bash>\n<parameter=command>\necho hi\n</parameter>\n</function>",
        );
        assert_eq!(c[0].function.arguments, "{\"command\":\"echo hi\"}");
        assert!(tool_calls_in_content("just text ```python\nprint(1)\n```").is_empty());
    }

    #[test]
    fn malformed_json_still_names_the_tool() {
        let c = tool_calls_in_content(
            "<tool_call>{\"name\": \"execute_bash\", \"arguments\": {\"command\": }</tool_call>",
        );
        assert_eq!(c[0].function.name, "execute_bash");
        assert!(serde_json::from_str::<Value>(&c[0].function.arguments).is_err());
    }
}
