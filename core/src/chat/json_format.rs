//! `response_format` for the local model, as a GBNF grammar the sampler follows: `json_object`
//! is any JSON object; `json_schema` is a bounded subset of JSON Schema (objects with
//! `properties` and `required`, arrays with `items`, `minItems`, `maxItems`, strings with
//! `enum`, `minLength`, `maxLength`, numbers, integers, booleans, null, `enum`, `const`,
//! `anyOf`/`oneOf`, a list of `type`s, `additionalProperties` true or false: no key outside
//! `properties` is ever written). Anything else is refused with the part named, before a
//! token is generated, and so is a schema whose grammar would be too big to build at once
//! (more than 1,024 `enum`/`anyOf` choices in all, a bound over 2,000 — llama.cpp's most
//! repetitions —, more than 16,384 repetitions in all, or 64 KiB of grammar). Output is compact
//! JSON (at most one space between tokens), so a small model cannot wander off in whitespace.
//! Required properties come first, in the order of `required`, then the optional ones by name.

use serde_json::{Map, Value};

/// Nesting deeper than this is refused.
const MAX_DEPTH: usize = 16;
/// A schema that needs more rules than this is refused.
const MAX_RULES: usize = 256;
/// The largest `minLength`/`maxLength`/`minItems`/`maxItems`: llama.cpp refuses a repetition
/// of more than 2,000 (and reads a larger maximum as none).
const MAX_BOUND: u64 = 2000;
/// The most `enum` and `anyOf`/`oneOf` choices in one schema, in all (the grammar's build time
/// grows with the square of its alternatives).
const MAX_CHOICES: usize = 1024;
/// The most repetitions (the bounds above, summed) in one schema: llama.cpp makes a rule of each.
const MAX_REPEATS: u64 = 16_384;
/// The most bytes of grammar one schema may need.
const MAX_GRAMMAR: usize = 64 << 10;
/// The keywords a schema may hold: those followed, and annotations that ask nothing of the reply.
const KNOWN: &[&str] = &[
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "minItems",
    "maxItems",
    "minLength",
    "maxLength",
    "enum",
    "const",
    "anyOf",
    "oneOf",
    "title",
    "description",
    "default",
    "examples",
    "$schema",
    "$id",
    "$comment",
    "deprecated",
    "readOnly",
    "writeOnly",
];

/// Why a `response_format` cannot be followed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FormatError {
    #[error("response_format: {0}")]
    Malformed(String),
    #[error("response_format: the JSON schema's {what} at {path} is not supported here")]
    Unsupported { path: String, what: String },
}

/// Generic JSON, the target of `json_object` and of schemas that say nothing about a value.
const ANY: &str = r#"value ::= object | array | string | number | "true" | "false" | "null"
object ::= "{" ws ( string ws ":" ws value ( ws "," ws string ws ":" ws value )* )? ws "}"
array ::= "[" ws ( value ( ws "," ws value )* )? ws "]"
string ::= "\"" char* "\""
char ::= [^"\\\x00-\x1F\x7F] | "\\" (["\\/bfnrt] | "u" [0-9a-fA-F]{4})
number ::= integer ("." [0-9]{1,15})? ([eE] [-+]? [0-9]{1,3})?
integer ::= "-"? ([0-9] | [1-9] [0-9]{0,15})
ws ::= " "?"#;

/// The grammar `response_format` asks for: `None` for none or `{"type": "text"}`.
pub fn grammar(response_format: Option<&Value>) -> Result<Option<String>, FormatError> {
    let Some(rf) = response_format.filter(|v| !v.is_null()) else {
        return Ok(None);
    };
    let kind = rf.get("type").and_then(Value::as_str).ok_or_else(|| {
        FormatError::Malformed("`type` must be text, json_object or json_schema".into())
    })?;
    match kind {
        "text" => Ok(None),
        "json_object" => Ok(Some(format!("root ::= object\n{ANY}"))),
        "json_schema" => {
            let schema = rf.pointer("/json_schema/schema").ok_or_else(|| {
                FormatError::Malformed("json_schema needs `json_schema.schema`".into())
            })?;
            let mut b = Builder::default();
            let root = b.value(schema, "#", 0)?;
            let mut out = format!("root ::= {root}\n");
            for (name, body) in &b.rules {
                out.push_str(&format!("{name} ::= {body}\n"));
            }
            out.push_str(ANY);
            Ok(Some(out))
        }
        other => Err(FormatError::Malformed(format!(
            "`type` {other:?} is not text, json_object or json_schema"
        ))),
    }
}

#[derive(Default)]
struct Builder {
    rules: Vec<(String, String)>,
    /// Bytes of the rules so far.
    size: usize,
    /// `enum`/`anyOf`/`oneOf` choices so far.
    choices: usize,
    /// Repetitions so far.
    repeats: u64,
}

impl Builder {
    /// A new rule holding `body`; its name.
    fn rule(&mut self, body: String, path: &str) -> Result<String, FormatError> {
        if self.rules.len() >= MAX_RULES {
            return Err(unsupported(path, "size (more than 256 rules)"));
        }
        self.size += body.len();
        if self.size > MAX_GRAMMAR {
            return Err(unsupported(path, "size (more than 64 KiB of grammar)"));
        }
        let name = format!("r{}", self.rules.len());
        self.rules.push((name.clone(), body));
        Ok(name)
    }

    /// The grammar expression of one schema.
    fn value(&mut self, schema: &Value, path: &str, depth: usize) -> Result<String, FormatError> {
        if depth > MAX_DEPTH {
            return Err(unsupported(path, "nesting (deeper than 16)"));
        }
        let s = match schema {
            Value::Bool(true) => return Ok("value".into()),
            Value::Object(s) => s,
            _ => return Err(unsupported(path, "schema (not an object)")),
        };
        if let Some(key) = s.keys().find(|k| !KNOWN.contains(&k.as_str())) {
            return Err(unsupported(path, &format!("`{key}`")));
        }
        if let Some(c) = s.get("const") {
            return Ok(literal(c));
        }
        if let Some(e) = s.get("enum") {
            let items = e
                .as_array()
                .filter(|a| !a.is_empty())
                .ok_or_else(|| unsupported(path, "`enum` (not a non-empty list)"))?;
            self.choose(items.len(), path)?;
            let alts: Vec<String> = items.iter().map(literal).collect();
            return self.rule(alts.join(" | "), path);
        }
        for key in ["anyOf", "oneOf"] {
            if let Some(list) = s.get(key) {
                let list = list
                    .as_array()
                    .filter(|a| !a.is_empty())
                    .ok_or_else(|| unsupported(path, &format!("`{key}` (not a non-empty list)")))?;
                self.choose(list.len(), path)?;
                let mut alts = Vec::new();
                for (i, sub) in list.iter().enumerate() {
                    alts.push(self.value(sub, &format!("{path}/{key}/{i}"), depth + 1)?);
                }
                return self.rule(alts.join(" | "), path);
            }
        }
        match s.get("type") {
            None => Ok("value".into()),
            Some(Value::String(t)) => self.typed(t, s, path, depth),
            Some(Value::Array(types)) => {
                let mut alts = Vec::new();
                for t in types {
                    let t = t
                        .as_str()
                        .ok_or_else(|| unsupported(path, "`type` (not a name)"))?;
                    alts.push(self.typed(t, s, path, depth)?);
                }
                self.rule(alts.join(" | "), path)
            }
            Some(_) => Err(unsupported(path, "`type` (not a name)")),
        }
    }

    /// Count `n` more choices, refusing past [`MAX_CHOICES`].
    fn choose(&mut self, n: usize, path: &str) -> Result<(), FormatError> {
        self.choices = self.choices.saturating_add(n);
        if self.choices > MAX_CHOICES {
            return Err(unsupported(
                path,
                "size (more than 1024 enum or anyOf choices)",
            ));
        }
        Ok(())
    }

    /// Count a repetition of up to `n`, refusing past [`MAX_REPEATS`].
    fn repeat(&mut self, n: u64, path: &str) -> Result<(), FormatError> {
        self.repeats = self.repeats.saturating_add(n);
        if self.repeats > MAX_REPEATS {
            return Err(unsupported(path, "size (more than 16384 repetitions)"));
        }
        Ok(())
    }

    fn typed(
        &mut self,
        t: &str,
        s: &Map<String, Value>,
        path: &str,
        depth: usize,
    ) -> Result<String, FormatError> {
        match t {
            "string" => {
                let min = bound(s, "minLength", path)?.unwrap_or(0);
                match bound(s, "maxLength", path)? {
                    Some(max) if max < min => {
                        Err(unsupported(path, "`maxLength` below `minLength`"))
                    }
                    Some(max) => {
                        self.repeat(max, path)?;
                        self.rule(format!(r#""\"" char{{{min},{max}}} "\"""#), path)
                    }
                    None if min == 0 => Ok("string".into()),
                    None => {
                        self.repeat(min, path)?;
                        self.rule(format!(r#""\"" char{{{min},}} "\"""#), path)
                    }
                }
            }
            "number" => Ok("number".into()),
            "integer" => Ok("integer".into()),
            "boolean" => self.rule(r#""true" | "false""#.into(), path),
            "null" => Ok(r#""null""#.into()),
            "array" => self.array(s, path, depth),
            "object" => self.object(s, path, depth),
            other => Err(unsupported(path, &format!("type {other:?}"))),
        }
    }

    fn array(
        &mut self,
        s: &Map<String, Value>,
        path: &str,
        depth: usize,
    ) -> Result<String, FormatError> {
        let item = match s.get("items") {
            None => "value".to_string(),
            Some(items) => self.value(items, &format!("{path}/items"), depth + 1)?,
        };
        let min = bound(s, "minItems", path)?.unwrap_or(0);
        let max = bound(s, "maxItems", path)?;
        if max.is_some_and(|m| m < min) {
            return Err(unsupported(path, "`maxItems` below `minItems`"));
        }
        self.repeat(max.unwrap_or(min), path)?;
        let more = format!(r#"( ws "," ws {item} )"#);
        let body = match (min, max) {
            (_, Some(0)) => r#""[" ws "]""#.to_string(),
            (0, None) => format!(r#""[" ws ( {item} {more}* )? ws "]""#),
            (0, Some(m)) => format!(r#""[" ws ( {item} {more}{{0,{}}} )? ws "]""#, m - 1),
            (n, None) => format!(r#""[" ws {item} {more}{{{},}} ws "]""#, n - 1),
            (n, Some(m)) => format!(r#""[" ws {item} {more}{{{},{}}} ws "]""#, n - 1, m - 1),
        };
        self.rule(body, path)
    }

    fn object(
        &mut self,
        s: &Map<String, Value>,
        path: &str,
        depth: usize,
    ) -> Result<String, FormatError> {
        // No key outside `properties` is ever written, so true and false are both followed.
        match s.get("additionalProperties") {
            None | Some(Value::Bool(_)) => {}
            Some(_) => return Err(unsupported(path, "`additionalProperties` (a schema)")),
        }
        let closed = s.get("additionalProperties") == Some(&Value::Bool(false));
        let Some(props) = s.get("properties") else {
            if s.contains_key("required") {
                return Err(unsupported(path, "`required` (without `properties`)"));
            }
            return Ok(if closed { r#""{" ws "}""# } else { "object" }.into());
        };
        let props = props
            .as_object()
            .ok_or_else(|| unsupported(path, "`properties` (not an object)"))?;
        let required: Vec<&str> = match s.get("required") {
            None => Vec::new(),
            Some(r) => r
                .as_array()
                .and_then(|a| a.iter().map(Value::as_str).collect::<Option<Vec<_>>>())
                .ok_or_else(|| unsupported(path, "`required` (not a list of names)"))?,
        };
        if let Some(missing) = required.iter().find(|k| !props.contains_key(**k)) {
            return Err(unsupported(
                path,
                &format!("required property {missing:?} (not in `properties`)"),
            ));
        }
        let mut pairs = Vec::new();
        let order = required.iter().copied().chain(
            props
                .keys()
                .map(String::as_str)
                .filter(|k| !required.contains(k)),
        );
        for key in order {
            let v = self.value(&props[key], &format!("{path}/properties/{key}"), depth + 1)?;
            let kv = format!(r#"{} ws ":" ws {v}"#, literal(&Value::String(key.into())));
            pairs.push((kv, required.contains(&key)));
        }
        // Required pairs in order; each optional one may follow, in order.
        let mut body = String::from(r#""{" ws "#);
        let mut first = true;
        let mut open_groups = 0;
        for (kv, req) in &pairs {
            match (first, req) {
                (true, true) => body.push_str(kv),
                (true, false) => {
                    body.push_str(&format!("( {kv} "));
                    open_groups += 1;
                }
                (false, true) => body.push_str(&format!(r#" ws "," ws {kv}"#)),
                (false, false) => body.push_str(&format!(r#" ( ws "," ws {kv} )?"#)),
            }
            first = false;
        }
        for _ in 0..open_groups {
            body.push_str(" )?");
        }
        body.push_str(r#" ws "}""#);
        self.rule(body, path)
    }
}

/// A JSON value's own text as a GBNF literal.
fn literal(v: &Value) -> String {
    let text = v.to_string();
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A non-negative integer keyword, at most [`MAX_BOUND`].
fn bound(s: &Map<String, Value>, key: &str, path: &str) -> Result<Option<u64>, FormatError> {
    match s.get(key) {
        None => Ok(None),
        Some(v) => v
            .as_u64()
            .filter(|n| *n <= MAX_BOUND)
            .map(Some)
            .ok_or_else(|| unsupported(path, &format!("`{key}` (not a whole number up to 2000)"))),
    }
}

fn unsupported(path: &str, what: &str) -> FormatError {
    FormatError::Unsupported {
        path: path.to_string(),
        what: what.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema(s: Value) -> Value {
        json!({"type": "json_schema", "json_schema": {"name": "x", "schema": s}})
    }

    #[test]
    fn text_and_nothing_need_no_grammar() {
        assert_eq!(grammar(None), Ok(None));
        assert_eq!(grammar(Some(&json!({"type": "text"}))), Ok(None));
        assert_eq!(grammar(Some(&Value::Null)), Ok(None));
    }

    #[test]
    fn json_object_is_any_object() {
        let g = grammar(Some(&json!({"type": "json_object"})))
            .unwrap()
            .unwrap();
        assert!(g.starts_with("root ::= object\n"), "{g}");
        assert!(g.contains("object ::= \"{\""), "{g}");
    }

    #[test]
    fn an_object_schema_puts_required_keys_first_and_optional_ones_after() {
        let s = schema(json!({
            "type": "object",
            "properties": {
                "age": {"type": "integer"},
                "name": {"type": "string", "maxLength": 40},
                "pets": {"type": "array", "items": {"enum": ["dog", "cat"]}, "maxItems": 3}
            },
            "required": ["name", "age"]
        }));
        let g = grammar(Some(&s)).unwrap().unwrap();
        let root_rule = g
            .lines()
            .find(|l| l.starts_with("r") && l.contains("\\\"name\\\""))
            .unwrap();
        let name = root_rule.find("\\\"name\\\"").unwrap();
        let age = root_rule.find("\\\"age\\\"").unwrap();
        let pets = root_rule.find("\\\"pets\\\"").unwrap();
        assert!(name < age && age < pets, "{root_rule}");
        assert!(
            root_rule.contains(r#"( ws "," ws "\"pets\"""#),
            "{root_rule}"
        );
        assert!(g.contains(r#"char{0,40}"#), "{g}");
        assert!(g.contains(r#""\"dog\"" | "\"cat\"""#), "{g}");
        assert!(g.contains("{0,2}"), "{g}");
    }

    #[test]
    fn unsupported_parts_are_named() {
        for (s, part) in [
            (json!({"$ref": "#/defs/a"}), "`$ref` at #"),
            (
                json!({"type": "object", "properties": {"a": {"type": "string", "pattern": "x+"}}}),
                "`pattern` at #/properties/a",
            ),
            (json!({"type": "date"}), "type \"date\" at #"),
            (
                json!({"type": "object", "properties": {}, "required": ["b"]}),
                "required property \"b\"",
            ),
        ] {
            let e = grammar(Some(&schema(s))).unwrap_err().to_string();
            assert!(e.contains(part), "{e}");
        }
        let e = grammar(Some(&json!({"type": "xml"}))).unwrap_err();
        assert!(matches!(e, FormatError::Malformed(_)), "{e}");
        let e = grammar(Some(&json!({"type": "json_schema"}))).unwrap_err();
        assert!(matches!(e, FormatError::Malformed(_)), "{e}");
    }

    /// Keywords the grammar would not follow are refused, not ignored (#33).
    #[test]
    fn keywords_not_followed_are_refused() {
        for (s, part) in [
            (json!({"type": "integer", "minimum": 1}), "`minimum` at #"),
            (json!({"type": "number", "maximum": 9}), "`maximum` at #"),
            (
                json!({"type": "array", "prefixItems": [{"type": "string"}]}),
                "`prefixItems` at #",
            ),
            (
                json!({"type": "object", "additionalProperties": {"type": "string"}}),
                "`additionalProperties` (a schema) at #",
            ),
            (json!({"type": "string", "minLength": 2001}), "`minLength`"),
            (json!({"type": "array", "minItems": 2002}), "`minItems`"),
        ] {
            let e = grammar(Some(&schema(s))).unwrap_err().to_string();
            assert!(e.contains(part), "{e}");
        }
        // `additionalProperties: false` is followed: no key outside `properties` is written.
        let closed = json!({"type": "object", "additionalProperties": false, "title": "t"});
        let g = grammar(Some(&schema(closed))).unwrap().unwrap();
        assert!(g.starts_with(r#"root ::= "{" ws "}""#), "{g}");
        let strict = json!({"type": "object", "properties": {"a": {"type": "string"}},
            "required": ["a"], "additionalProperties": false});
        assert!(grammar(Some(&schema(strict))).is_ok());
    }

    /// A 100k-entry enum is refused at once, not built for a minute (#33); the bounds at their
    /// largest are built.
    #[test]
    fn schemas_too_big_to_build_are_refused() {
        let many: Vec<String> = (0..100_000).map(|i| format!("choice {i}")).collect();
        let e = grammar(Some(&schema(json!({"enum": many})))).unwrap_err();
        assert!(e.to_string().contains("more than 1024"), "{e}");
        let long: Vec<String> = (0..1000).map(|i| format!("{i:0>100}")).collect();
        let e = grammar(Some(&schema(json!({"enum": long})))).unwrap_err();
        assert!(e.to_string().contains("64 KiB"), "{e}");
        let props: Map<String, Value> = (0..9)
            .map(|i| {
                (
                    format!("p{i}"),
                    json!({"type": "string", "maxLength": 2000}),
                )
            })
            .collect();
        let e = grammar(Some(&schema(
            json!({"type": "object", "properties": props}),
        )));
        assert!(e.unwrap_err().to_string().contains("repetitions"));
        let g = grammar(Some(&schema(json!({"type": "array", "minItems": 2000,
            "items": {"type": "string", "minLength": 2000, "maxLength": 2000}}))))
        .unwrap()
        .unwrap();
        assert!(
            g.contains("char{2000,2000}") && g.contains("{1999,}"),
            "{g}"
        );
    }

    #[test]
    fn deep_schemas_are_refused() {
        let mut s = json!({"type": "string"});
        for _ in 0..20 {
            s = json!({"type": "array", "items": s});
        }
        let e = grammar(Some(&schema(s))).unwrap_err().to_string();
        assert!(e.contains("nesting"), "{e}");
    }

    #[test]
    fn literals_escape_quotes_and_backslashes() {
        assert_eq!(literal(&json!("a\"b")), r#""\"a\\\"b\"""#);
        assert_eq!(literal(&json!(3)), r#""3""#);
    }
}
