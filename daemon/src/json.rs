//! JSON values for output with `f32` fields as written: `json!` widens an `f32` to `f64`
//! (0.9 becomes 0.8999999761581421); a round trip through text keeps 0.9.

use serde::Serialize;
use serde_json::Value;

/// `value` as a JSON value, its `f32` numbers printed as they were written.
pub fn exact<T: Serialize>(value: &T) -> Value {
    serde_json::to_string(value)
        .ok()
        .and_then(|s| serde_json::from_str(&s).ok())
        .unwrap_or(Value::Null)
}

#[cfg(test)]
mod tests {
    #[test]
    fn f32_fields_keep_their_written_value() {
        #[derive(serde::Serialize)]
        struct R {
            importance: f32,
        }
        let v = super::exact(&R { importance: 0.9 });
        assert_eq!(v.to_string(), r#"{"importance":0.9}"#);
        assert_ne!(
            serde_json::json!(R { importance: 0.9 }).to_string(),
            v.to_string()
        );
    }
}
