//! The rows of a split's data files: Parquet (the `parquet` crate's record API) and JSON lines
//! or a JSON array, each row a JSON object.

use std::io::Read;
use std::path::{Path, PathBuf};

use parquet::file::reader::FileReader;
use parquet::file::serialized_reader::SerializedFileReader;
use parquet::record::{Field, Row};
use serde_json::Value;

use super::{HubError, JsonRow, io_err};

/// Whether the file starts with the Parquet magic `PAR1` (false when it cannot be read).
pub fn is_parquet(path: &Path) -> bool {
    let mut magic = [0u8; 4];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut magic))
        .is_ok()
        && &magic == b"PAR1"
}

/// Every row of a Parquet file as a JSON object, in file order.
///
/// Values: strings, booleans, integers and floats as JSON (a NaN or infinite float as `null`),
/// nulls as `null`, lists as arrays, structs as objects, maps as objects (non-string keys as
/// their JSON text). Binary values are UTF-8 text when they are valid UTF-8, else their standard
/// base64 (with padding). Decimals, dates, times and timestamps are text, as the `parquet`
/// crate prints them.
///
/// # Errors
/// [`HubError::Io`] when the file cannot be opened, [`HubError::BadParquet`] (naming the file)
/// when it is not valid Parquet, uses an unsupported codec, or makes the reader fail.
pub fn parquet_rows(path: &Path) -> Result<Vec<JsonRow>, HubError> {
    let file = std::fs::File::open(path).map_err(io_err(path))?;
    let read = move || -> Result<Vec<JsonRow>, parquet::errors::ParquetError> {
        let reader = SerializedFileReader::new(file)?;
        let mut rows = Vec::new();
        for row in reader.get_row_iter(None)? {
            rows.push(row_json(&row?));
        }
        Ok(rows)
    };
    // The reader is third-party code fed with downloaded bytes: a panic in it is a bad file.
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(read)) {
        Ok(Ok(rows)) => Ok(rows),
        Ok(Err(e)) => Err(HubError::BadParquet {
            path: path.to_path_buf(),
            message: e.to_string(),
        }),
        Err(panic) => Err(HubError::BadParquet {
            path: path.to_path_buf(),
            message: format!("the Parquet reader failed: {}", panic_text(&*panic)),
        }),
    }
}

fn panic_text(panic: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = panic.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = panic.downcast_ref::<String>() {
        s.clone()
    } else {
        "panic".into()
    }
}

fn row_json(row: &Row) -> JsonRow {
    row.get_column_iter()
        .map(|(name, field)| (name.clone(), field_json(field)))
        .collect()
}

fn float(v: f64) -> Value {
    serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number)
}

fn field_json(field: &Field) -> Value {
    use base64::Engine;
    match field {
        Field::Null => Value::Null,
        Field::Bool(b) => Value::Bool(*b),
        Field::Byte(n) => Value::from(*n),
        Field::Short(n) => Value::from(*n),
        Field::Int(n) => Value::from(*n),
        Field::Long(n) => Value::from(*n),
        Field::UByte(n) => Value::from(*n),
        Field::UShort(n) => Value::from(*n),
        Field::UInt(n) => Value::from(*n),
        Field::ULong(n) => Value::from(*n),
        Field::Float16(n) => float(f64::from(*n)),
        Field::Float(n) => float(f64::from(*n)),
        Field::Double(n) => float(*n),
        Field::Str(s) => Value::String(s.clone()),
        Field::Bytes(b) => match std::str::from_utf8(b.data()) {
            Ok(s) => Value::String(s.to_string()),
            Err(_) => Value::String(base64::engine::general_purpose::STANDARD.encode(b.data())),
        },
        Field::Decimal(_)
        | Field::Date(_)
        | Field::TimeMillis(_)
        | Field::TimeMicros(_)
        | Field::TimestampMillis(_)
        | Field::TimestampMicros(_) => Value::String(field.to_string()),
        Field::Group(row) => Value::Object(row_json(row)),
        Field::ListInternal(items) => {
            Value::Array(items.elements().iter().map(field_json).collect())
        }
        Field::MapInternal(map) => Value::Object(
            map.entries()
                .iter()
                .map(|(k, v)| {
                    let key = match field_json(k) {
                        Value::String(s) => s,
                        other => other.to_string(),
                    };
                    (key, field_json(v))
                })
                .collect(),
        ),
    }
}

/// JSON lines, or one JSON array of objects.
fn json_rows(path: &Path) -> Result<Vec<JsonRow>, HubError> {
    let text = std::fs::read_to_string(path).map_err(io_err(path))?;
    let bad = |message: String| HubError::BadJson {
        path: path.to_path_buf(),
        message,
    };
    if text.trim_start().starts_with('[') {
        let items: Vec<Value> =
            serde_json::from_str(&text).map_err(|e| bad(format!("not a JSON array: {e}")))?;
        return items
            .into_iter()
            .enumerate()
            .map(|(i, v)| match v {
                Value::Object(o) => Ok(o),
                _ => Err(bad(format!("item {} is not a JSON object", i + 1))),
            })
            .collect();
    }
    let mut rows = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<Value>(line) {
            Ok(Value::Object(o)) => rows.push(o),
            Ok(_) => return Err(bad(format!("line {}: not a JSON object", i + 1))),
            Err(e) => return Err(bad(format!("line {}: not valid JSON: {e}", i + 1))),
        }
    }
    Ok(rows)
}

fn file_rows(path: &Path) -> Result<Vec<JsonRow>, HubError> {
    if is_parquet(path) {
        return parquet_rows(path);
    }
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    if name.ends_with(".jsonl") || name.ends_with(".json") {
        json_rows(path)
    } else {
        Err(HubError::UnsupportedFile {
            path: path.to_path_buf(),
        })
    }
}

/// All rows of these files, in this order (read on a blocking thread).
pub(super) async fn rows_of(paths: Vec<PathBuf>) -> Result<Vec<JsonRow>, HubError> {
    let first = paths.first().cloned().unwrap_or_default();
    tokio::task::spawn_blocking(move || {
        let mut rows = Vec::new();
        for p in &paths {
            rows.extend(file_rows(p)?);
        }
        Ok(rows)
    })
    .await
    .unwrap_or_else(|e| {
        Err(HubError::BadParquet {
            path: first,
            message: format!("reading stopped: {e}"),
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Nested columns and binary values: a list, a struct, a map-free schema written with the
    /// low-level writer, read back as JSON.
    #[test]
    fn parquet_values_nested_and_binary() {
        use parquet::data_type::{ByteArray, ByteArrayType, DoubleType, Int32Type};
        use parquet::file::properties::WriterProperties;
        use parquet::file::writer::SerializedFileWriter;
        use parquet::schema::parser::parse_message_type;
        use std::sync::Arc;

        let schema = Arc::new(
            parse_message_type(
                "message m {
                    REQUIRED BINARY blob;
                    OPTIONAL group tags (LIST) { REPEATED group list { OPTIONAL BINARY element (UTF8); } }
                    REQUIRED group meta { REQUIRED INT32 n; OPTIONAL DOUBLE x; }
                }",
            )
            .unwrap(),
        );
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("n.parquet");
        let props = Arc::new(WriterProperties::builder().build());
        let mut w = SerializedFileWriter::new(std::fs::File::create(&path).unwrap(), schema, props)
            .unwrap();
        let mut rg = w.next_row_group().unwrap();
        // blob: valid UTF-8, then not.
        let mut c = rg.next_column().unwrap().unwrap();
        c.typed::<ByteArrayType>()
            .write_batch(
                &[
                    ByteArray::from("text"),
                    ByteArray::from(vec![0xffu8, 0x00, 0x01]),
                ],
                None,
                None,
            )
            .unwrap();
        c.close().unwrap();
        // tags: ["a", null] then null.
        let mut c = rg.next_column().unwrap().unwrap();
        c.typed::<ByteArrayType>()
            .write_batch(&[ByteArray::from("a")], Some(&[3, 2, 0]), Some(&[0, 1, 0]))
            .unwrap();
        c.close().unwrap();
        let mut c = rg.next_column().unwrap().unwrap();
        c.typed::<Int32Type>()
            .write_batch(&[1, 2], None, None)
            .unwrap();
        c.close().unwrap();
        let mut c = rg.next_column().unwrap().unwrap();
        c.typed::<DoubleType>()
            .write_batch(&[0.5], Some(&[1, 0]), None)
            .unwrap();
        c.close().unwrap();
        rg.close().unwrap();
        w.close().unwrap();

        assert!(is_parquet(&path));
        let rows = parquet_rows(&path).unwrap();
        let rows: Vec<Value> = rows.into_iter().map(Value::Object).collect();
        assert_eq!(
            rows,
            vec![
                serde_json::json!({"blob": "text", "tags": ["a", null], "meta": {"n": 1, "x": 0.5}}),
                serde_json::json!({"blob": "/wAB", "tags": null, "meta": {"n": 2, "x": null}}),
            ]
        );
    }

    #[test]
    fn bad_files_are_errors_naming_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("bad.parquet");
        std::fs::write(&p, b"PAR1 this is not parquet PAR1").unwrap();
        let e = parquet_rows(&p).unwrap_err();
        assert!(matches!(e, HubError::BadParquet { .. }), "{e:?}");
        assert!(e.to_string().contains("bad.parquet"), "{e}");
        assert!(!is_parquet(&dir.path().join("missing")));

        let j = dir.path().join("rows.jsonl");
        std::fs::write(&j, "{\"a\": 1}\n\n{\"a\": 2}\n").unwrap();
        let rows = file_rows(&j).unwrap();
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[1]["a"], 2);
        std::fs::write(&j, "{\"a\": 1}\n[1]\n").unwrap();
        let e = file_rows(&j).unwrap_err();
        assert!(e.to_string().contains("line 2"), "{e}");
        let arr = dir.path().join("rows.json");
        std::fs::write(&arr, "[{\"a\": 1}, {\"a\": 2}]").unwrap();
        assert_eq!(file_rows(&arr).unwrap().len(), 2);
        let txt = dir.path().join("rows.csv");
        std::fs::write(&txt, "a,b\n").unwrap();
        assert!(matches!(
            file_rows(&txt),
            Err(HubError::UnsupportedFile { .. })
        ));
    }
}
