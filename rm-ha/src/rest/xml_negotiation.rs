//! [`XmlNegotiation`]: Hadoop's XML form of every REST answer, for clients that ask for it.

use axum::body::Body;
use axum::extract::Request;
use axum::http::{HeaderValue, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde_json::Value;

use super::rest_refusal::RestRefusal;
use crate::operations::RmError;

/// The largest JSON answer turned into XML; a larger one is refused (500) rather than served
/// in the form the client did not ask for.
const MAX_CONVERTED_BYTES: usize = 64 * 1024 * 1024;

/// The prolog of Hadoop's XML answers.
const PROLOG: &str = r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>"#;

/// The middleware: a request whose `Accept` asks for XML (and not JSON) gets the handler's
/// JSON answer in Hadoop's XML form ([`to_xml`]); every other request gets JSON.
pub(crate) struct XmlNegotiation;

/// The XML root element of an answer whose JSON form Hadoop writes without one (`appstate`,
/// `appqueue`, `applicationpriority`, `NewApplication`), set as a response extension by its
/// handler: the whole JSON object becomes that element's content.
#[derive(Debug, Clone, Copy)]
pub(crate) struct XmlRoot(pub(crate) &'static str);

impl XmlNegotiation {
    /// Runs the handler and converts its JSON answer when XML was asked for.
    pub(crate) async fn layer(request: Request, next: Next) -> Response {
        let wants_xml = request
            .headers()
            .get_all(header::ACCEPT)
            .iter()
            .filter_map(|value| value.to_str().ok())
            .any(wants_xml);
        let response = next.run(request).await;
        let is_json = response
            .headers()
            .get(header::CONTENT_TYPE)
            .is_some_and(|value| value.as_bytes().starts_with(b"application/json"));
        if !wants_xml || !is_json {
            return response;
        }
        let (mut parts, body) = response.into_parts();
        let Ok(bytes) = axum::body::to_bytes(body, MAX_CONVERTED_BYTES).await else {
            return RestRefusal::from(RmError::internal(format!(
                "the answer is over {MAX_CONVERTED_BYTES} bytes, too large to convert to XML; \
                 ask for JSON"
            )))
            .into_response();
        };
        let root = parts.extensions.get::<XmlRoot>().copied();
        let xml = serde_json::from_slice::<Value>(&bytes)
            .ok()
            .and_then(|value| to_xml(&value, root));
        match xml {
            Some(xml) => {
                parts.headers.insert(
                    header::CONTENT_TYPE,
                    HeaderValue::from_static("application/xml; charset=utf-8"),
                );
                parts.headers.remove(header::CONTENT_LENGTH);
                Response::from_parts(parts, Body::from(xml))
            }
            None => Response::from_parts(parts, Body::from(bytes)),
        }
    }
}

/// Whether an `Accept` value prefers XML: it names `application/xml` or `text/xml` and not
/// `application/json`.
fn wants_xml(accept: &str) -> bool {
    let names = |media: &str| accept.split(',').any(|part| part.trim().starts_with(media));
    (names("application/xml") || names("text/xml")) && !names("application/json")
}

/// Hadoop's XML form of a JSON answer: the object under `root` when one is given (Hadoop's
/// root-unwrapped kinds), otherwise an object with one member, the root element: members become child elements in the answer's order (serde_json keeps it), an array repeats its member's element
/// once per item (JAXB's lists: `{"apps":{"app":[a,b]}}` is `<apps><app>a</app><app>b</app>
/// </apps>`), null members are left out, and text is escaped. `None` for any other JSON.
pub(crate) fn to_xml(value: &Value, root: Option<XmlRoot>) -> Option<String> {
    let Value::Object(members) = value else {
        return None;
    };
    let mut xml = String::from(PROLOG);
    match root {
        Some(XmlRoot(root)) => element(&mut xml, root, value),
        None => {
            let mut members = members.iter();
            let (root, content) = members.next()?;
            if members.next().is_some() {
                return None;
            }
            element(&mut xml, root, content);
        }
    }
    Some(xml)
}

fn element(xml: &mut String, name: &str, value: &Value) {
    match value {
        Value::Null => {}
        Value::Array(items) => {
            for item in items {
                element(xml, name, item);
            }
        }
        Value::Object(members) if members.is_empty() => {
            xml.push('<');
            xml.push_str(name);
            xml.push_str("/>");
        }
        Value::Object(members) => {
            open(xml, name);
            for (child, value) in members {
                element(xml, child, value);
            }
            close(xml, name);
        }
        Value::String(text) => {
            open(xml, name);
            escape(xml, text);
            close(xml, name);
        }
        Value::Bool(_) | Value::Number(_) => {
            open(xml, name);
            xml.push_str(&value.to_string());
            close(xml, name);
        }
    }
}

fn open(xml: &mut String, name: &str) {
    xml.push('<');
    xml.push_str(name);
    xml.push('>');
}

fn close(xml: &mut String, name: &str) {
    xml.push_str("</");
    xml.push_str(name);
    xml.push('>');
}

/// Text with XML's five special characters escaped; characters XML 1.0 cannot carry at all
/// (control characters but tab, newline and carriage return) become U+FFFD.
fn escape(xml: &mut String, text: &str) {
    for c in text.chars() {
        match c {
            '<' => xml.push_str("&lt;"),
            '>' => xml.push_str("&gt;"),
            '&' => xml.push_str("&amp;"),
            '"' => xml.push_str("&quot;"),
            '\'' => xml.push_str("&apos;"),
            '\t' | '\n' | '\r' => xml.push(c),
            c if c.is_control() => xml.push('\u{FFFD}'),
            c => xml.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn lists_repeat_their_element_and_empty_objects_close_at_once() {
        let apps = json!({"apps": {"app": [{"id": "a1", "progress": 100.0}, {"id": "a2", "progress": 0.0}]}});
        assert_eq!(
            to_xml(&apps, None).unwrap(),
            format!(
                "{PROLOG}<apps><app><id>a1</id><progress>100.0</progress></app>\
                 <app><id>a2</id><progress>0.0</progress></app></apps>"
            )
        );
        assert_eq!(
            to_xml(&json!({"apps": {}}), None).unwrap(),
            format!("{PROLOG}<apps/>")
        );
    }

    #[test]
    fn text_is_escaped_and_nulls_left_out() {
        let refusal = json!({"RemoteException": {
            "exception": "BadRequestException",
            "message": "<b> & \"q\"\u{1}",
            "javaClassName": null,
        }});
        assert_eq!(
            to_xml(&refusal, None).unwrap(),
            format!(
                "{PROLOG}<RemoteException><exception>BadRequestException</exception>\
                 <message>&lt;b&gt; &amp; &quot;q&quot;\u{FFFD}</message></RemoteException>"
            )
        );
    }

    #[test]
    fn only_a_single_rooted_object_is_converted() {
        assert_eq!(to_xml(&json!([1, 2]), None), None);
        assert_eq!(to_xml(&json!({"a": 1, "b": 2}), None), None);
    }

    #[test]
    fn root_unwrapped_answers_sit_under_their_given_root() {
        let new = json!({"application-id": "application_1_0001", "maximum-resource-capability": {"memory": 8, "vCores": 1}});
        assert_eq!(
            to_xml(&new, Some(XmlRoot("NewApplication"))).unwrap(),
            format!(
                "{PROLOG}<NewApplication><application-id>application_1_0001</application-id>\
                 <maximum-resource-capability><memory>8</memory><vCores>1</vCores>\
                 </maximum-resource-capability></NewApplication>"
            )
        );
        assert_eq!(
            to_xml(&json!({"state": "KILLED"}), Some(XmlRoot("appstate"))).unwrap(),
            format!("{PROLOG}<appstate><state>KILLED</state></appstate>")
        );
    }

    #[test]
    fn xml_is_chosen_only_when_asked_for_without_json() {
        assert!(wants_xml("application/xml"));
        assert!(wants_xml("text/xml;q=0.9"));
        assert!(!wants_xml("application/json, application/xml"));
        assert!(!wants_xml("*/*"));
    }
}
