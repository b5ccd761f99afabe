//! The query parameters each operation of the served document takes, read from it once
//! (the table of the `RequestShape` middleware's query check).

use std::collections::HashMap;

/// The query parameters each operation of the served document takes, by path and then
/// method: read from the document once, when the router is built, so that a request finds
/// its operation's list with one hash lookup.
#[derive(Debug, Default)]
pub struct QueryNames(HashMap<String, Vec<(String, Vec<String>)>>);

impl QueryNames {
    /// The lists of `doc`'s operations.
    pub fn of(doc: &serde_json::Value) -> QueryNames {
        let mut out = HashMap::new();
        for (path, item) in doc["paths"].as_object().into_iter().flatten() {
            let ops: Vec<(String, Vec<String>)> = item
                .as_object()
                .into_iter()
                .flatten()
                .filter(|(_, op)| op.is_object())
                .map(|(method, op)| {
                    let names = op["parameters"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter(|p| p["in"] == "query")
                        .filter_map(|p| p["name"].as_str().map(str::to_string))
                        .collect();
                    (method.clone(), names)
                })
                .collect();
            out.insert(path.clone(), ops);
        }
        QueryNames(out)
    }

    /// What the operation `method` `path` takes; `None` when the document has no such
    /// operation.
    pub fn known(&self, path: &str, method: &str) -> Option<&[String]> {
        self.0
            .get(path)?
            .iter()
            .find(|(m, _)| m.eq_ignore_ascii_case(method))
            .map(|(_, names)| names.as_slice())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_operation_has_its_own_query_parameters() {
        let doc = serde_json::json!({"paths": {
            "/v2/things": {
                "get": {"parameters": [
                    {"name": "page[size]", "in": "query"},
                    {"name": "X-Id", "in": "header"}
                ]},
                "post": {},
                "summary": "not an operation"
            }
        }});
        let names = QueryNames::of(&doc);
        assert_eq!(
            names.known("/v2/things", "GET"),
            Some(&["page[size]".to_string()][..])
        );
        assert_eq!(names.known("/v2/things", "post"), Some(&[][..]));
        assert_eq!(names.known("/v2/things", "DELETE"), None);
        assert_eq!(names.known("/v2/other", "GET"), None);
    }
}
