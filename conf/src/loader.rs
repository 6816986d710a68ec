//! Streaming parser for Hadoop configuration resources.
//!
//! The document shape is Hadoop's:
//!
//! ```text
//! <configuration>
//!   <property>
//!     <name>yarn.resourcemanager.am.max-attempts</name>
//!     <value>2</value>
//!     <final>true</final>              optional
//!     <description>...</description>  optional
//!   </property>
//!   ...
//! </configuration>
//! ```
//!
//! The parser walks `quick_xml::Reader` events and keeps its own element stack, so every error
//! carries the line and column where it was detected. It checks element nesting itself (instead
//! of letting quick-xml do it) to tell an element that was never closed, reported at its start
//! tag, from a misspelt end tag, reported at the end tag.
//!
//! Compared with Hadoop's parser it is stricter: unknown elements, stray text, a property without
//! `<value>` and a `<final>` other than `true`/`false` are errors rather than being skipped, because
//! a silently ignored typo in a cluster's configuration is worse than a refusal to start.
//! `<source>` and `<tag>` (Hadoop metadata) are accepted and ignored, as are attributes,
//! comments, processing instructions and the document type declaration. XInclude is not
//! supported.
//!
//! Files are read as UTF-8 whatever their XML declaration says; the first byte sequence that is
//! not UTF-8 is reported with its line and column.

use std::borrow::Cow;
use std::fs::File;
use std::io::Read;
use std::path::Path;

use quick_xml::Reader;
use quick_xml::escape::resolve_predefined_entity;
use quick_xml::events::{BytesRef, Event};

use crate::error::{ConfError, StructureProblem, XmlProblem};
use crate::location::{LineIndex, Location};

/// One `<property>` read from a resource.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Property {
    /// The `<name>` text, trimmed.
    pub name: String,
    /// The `<value>` text with entities resolved, untrimmed; empty for `<value/>`.
    pub value: String,
    /// Whether `<final>true</final>` was given.
    pub is_final: bool,
    /// The `<description>` text, trimmed; empty when absent.
    pub description: String,
    /// The position of the `<value>` start tag.
    pub location: Location,
}

/// The largest resource file [`read_file`] reads: 16 MiB.
///
/// A property of the usual shape (name, value, a line of description) takes about 170 bytes, so
/// 16 MiB holds about 100,000 properties, thousands of queues' worth of `capacity-scheduler.xml`;
/// reading and parsing that many takes about 0.2 s (release build, two cores). Files of 27 MB
/// and 137 MB, which held up a leader's queue refresh until it lost leadership, are refused on
/// their size alone, without being read.
pub const MAX_FILE_BYTES: u64 = 16 << 20;

/// Reads the resource file at `path` as text; errors name the path as given.
///
/// Never reads more than [`MAX_FILE_BYTES`] + 1 bytes, even from a file that grows meanwhile or
/// reports no size (a pipe or a device).
///
/// # Errors
///
/// [`ConfError::FileTooLarge`] when the file holds more than [`MAX_FILE_BYTES`],
/// [`ConfError::Io`] when it cannot be read, and [`ConfError::Xml`] with
/// [`XmlProblem::InvalidUtf8`] at the first byte sequence that is not UTF-8.
pub fn read_file(path: &Path) -> Result<String, ConfError> {
    let file = path.display().to_string();
    let io_error = |source| ConfError::Io {
        file: file.clone(),
        source,
    };
    let too_large = |size| ConfError::FileTooLarge {
        file: file.clone(),
        size,
    };
    let handle = File::open(path).map_err(io_error)?;
    let size = handle.metadata().map_err(io_error)?.len();
    if size > MAX_FILE_BYTES {
        return Err(too_large(size));
    }
    // The size may be stale or, for a pipe or a device, 0: the read itself stops past the limit.
    let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or_default());
    let read = handle
        .take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(io_error)?;
    let read = u64::try_from(read).unwrap_or(u64::MAX);
    if read > MAX_FILE_BYTES {
        return Err(too_large(read));
    }
    decode(&file, bytes)
}

/// `bytes` as text, or an error at the first sequence that is not UTF-8.
fn decode(file: &str, bytes: Vec<u8>) -> Result<String, ConfError> {
    String::from_utf8(bytes).map_err(|error| {
        // The first chunk ends at the bad sequence and its valid part is text, so it locates the
        // sequence by line and character column like every other position.
        let chunk = error.as_bytes().utf8_chunks().next();
        let (text, invalid) = chunk.map_or(("", &[][..]), |chunk| (chunk.valid(), chunk.invalid()));
        ConfError::Xml {
            location: LineIndex::new(file, text).end(),
            problem: XmlProblem::InvalidUtf8 {
                bytes: invalid.to_vec(),
            },
        }
    })
}

/// Parses the resource text `xml`, reported under the name `file`, into its properties in
/// document order.
///
/// # Errors
///
/// [`ConfError::Xml`] when the text is not well-formed XML (including unknown entities and a
/// truncated file), and [`ConfError::Structure`] when it is not a `<configuration>` document; both
/// carry the position of the problem.
pub fn parse(file: &str, xml: &str) -> Result<Vec<Property>, ConfError> {
    let index = LineIndex::new(file, xml);
    let mut reader = Reader::from_str(xml);
    let config = reader.config_mut();
    // Nesting is checked below, with better positions than quick-xml can give.
    config.check_end_names = false;
    config.allow_unmatched_ends = true;

    let mut document = Document::default();
    loop {
        let offset = position(reader.buffer_position());
        let event = reader.read_event().map_err(|source| ConfError::Xml {
            location: index.locate(position(reader.error_position())),
            problem: XmlProblem::Syntax(source),
        })?;
        let at = || index.locate(offset);
        match event {
            Event::Start(start) => document.start(start.name().as_ref(), at())?,
            Event::Empty(empty) => {
                let name = empty.name();
                document.start(name.as_ref(), at())?;
                document.end(name.as_ref(), at())?;
            }
            Event::End(end) => document.end(end.name().as_ref(), at())?,
            Event::Text(text) => {
                let leading = text.len() - text.trim_start().len();
                document.text(&text.xml10_content(), || index.locate(offset + leading))?;
            }
            Event::CData(data) => document.text(&data.xml10_content(), at)?,
            Event::GeneralRef(reference) => document.text(&resolve(&reference, at)?, at)?,
            Event::Eof => return document.finish(index.end()),
            Event::Comment(_) | Event::Decl(_) | Event::PI(_) | Event::DocType(_) => {}
        }
    }
}

fn position(offset: u64) -> usize {
    usize::try_from(offset).unwrap_or(usize::MAX)
}

/// Resolves `&name;` to its text: the five predefined entities and character references only.
fn resolve(
    reference: &BytesRef<'_>,
    at: impl Fn() -> Location,
) -> Result<Cow<'static, str>, ConfError> {
    if reference.is_char_ref() {
        return match reference.resolve_char_ref() {
            Ok(Some(character)) => Ok(Cow::Owned(character.to_string())),
            Ok(None) | Err(_) => Err(ConfError::Xml {
                location: at(),
                problem: XmlProblem::InvalidCharacterReference {
                    reference: reference.to_string(),
                },
            }),
        };
    }
    resolve_predefined_entity(reference)
        .map(Cow::Borrowed)
        .ok_or_else(|| ConfError::Xml {
            location: at(),
            problem: XmlProblem::UnknownEntity {
                entity: reference.to_string(),
            },
        })
}

/// The child elements of `<property>`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Field {
    Name,
    Value,
    Final,
    Description,
    /// `<source>` and `<tag>`: Hadoop metadata we accept and drop.
    Ignored,
}

impl Field {
    const EXPECTED: &'static str = "<name>, <value>, <final>, <description>, <source> or <tag>";

    fn from_element(name: &str) -> Option<Field> {
        match name {
            "name" => Some(Field::Name),
            "value" => Some(Field::Value),
            "final" => Some(Field::Final),
            "description" => Some(Field::Description),
            "source" | "tag" => Some(Field::Ignored),
            _ => None,
        }
    }
}

/// An open element on the nesting stack.
#[derive(Debug)]
struct Open {
    name: String,
    at: Location,
}

/// A `<property>` being read: each field keeps its text and the position of its start tag.
#[derive(Debug)]
struct PropertyBuilder {
    at: Location,
    name: Option<(String, Location)>,
    value: Option<(String, Location)>,
    is_final: Option<(String, Location)>,
    description: Option<(String, Location)>,
}

impl PropertyBuilder {
    fn new(at: Location) -> PropertyBuilder {
        PropertyBuilder {
            at,
            name: None,
            value: None,
            is_final: None,
            description: None,
        }
    }

    fn slot(&mut self, field: Field) -> Option<&mut Option<(String, Location)>> {
        match field {
            Field::Name => Some(&mut self.name),
            Field::Value => Some(&mut self.value),
            Field::Final => Some(&mut self.is_final),
            Field::Description => Some(&mut self.description),
            Field::Ignored => None,
        }
    }

    fn build(self) -> Result<Property, ConfError> {
        let name = match &self.name {
            Some((name, _)) if !name.trim().is_empty() => name.trim().to_owned(),
            _ => return Err(structure(self.at, StructureProblem::MissingName)),
        };
        let Some((value, location)) = self.value else {
            return Err(structure(self.at, StructureProblem::MissingValue { name }));
        };
        let is_final = match self.is_final {
            None => false,
            Some((text, _)) if text.trim().eq_ignore_ascii_case("true") => true,
            Some((text, _)) if text.trim().eq_ignore_ascii_case("false") => false,
            Some((text, at)) => {
                return Err(structure(
                    at,
                    StructureProblem::InvalidFinal { name, value: text },
                ));
            }
        };
        let description = self
            .description
            .map(|(text, _)| text.trim().to_owned())
            .unwrap_or_default();
        Ok(Property {
            name,
            value,
            is_final,
            description,
            location,
        })
    }
}

fn structure(location: Location, problem: StructureProblem) -> ConfError {
    ConfError::Structure { location, problem }
}

/// The parse state: the element stack and what has been read so far.
///
/// Depth 0 is outside the root, 1 inside `<configuration>`, 2 inside `<property>`, 3 inside one
/// of its fields.
#[derive(Debug, Default)]
struct Document {
    stack: Vec<Open>,
    root_seen: bool,
    property: Option<PropertyBuilder>,
    field: Option<Field>,
    text: String,
    properties: Vec<Property>,
}

impl Document {
    fn start(&mut self, name: &str, at: Location) -> Result<(), ConfError> {
        match self.stack.len() {
            0 if self.root_seen => {
                return Err(structure(at, StructureProblem::ContentOutsideRoot));
            }
            0 if name != "configuration" => {
                let found = name.to_owned();
                return Err(structure(at, StructureProblem::UnexpectedRoot { found }));
            }
            0 => self.root_seen = true,
            1 if name == "property" => self.property = Some(PropertyBuilder::new(at.clone())),
            1 => return Err(self.unexpected_element(name, at, "<property>")),
            2 => {
                let Some(field) = Field::from_element(name) else {
                    return Err(self.unexpected_element(name, at, Field::EXPECTED));
                };
                if let Some(slot) = self.property.as_mut().and_then(|p| p.slot(field)) {
                    if let Some((_, first)) = slot {
                        let problem = StructureProblem::DuplicateElement {
                            element: name.to_owned(),
                            first: first.clone(),
                        };
                        return Err(structure(at, problem));
                    }
                    *slot = Some((String::new(), at.clone()));
                }
                self.field = Some(field);
                self.text.clear();
            }
            _ => return Err(self.unexpected_element(name, at, "text")),
        }
        self.stack.push(Open {
            name: name.to_owned(),
            at,
        });
        Ok(())
    }

    fn unexpected_element(&self, name: &str, at: Location, expected: &'static str) -> ConfError {
        let parent = self.stack.last().map(|open| open.name.clone());
        structure(
            at,
            StructureProblem::UnexpectedElement {
                found: name.to_owned(),
                parent: parent.unwrap_or_default(),
                expected,
            },
        )
    }

    fn end(&mut self, name: &str, at: Location) -> Result<(), ConfError> {
        let Some(top) = self.stack.last() else {
            let found = name.to_owned();
            return Err(ConfError::Xml {
                location: at,
                problem: XmlProblem::UnmatchedEndTag { found },
            });
        };
        if top.name != name {
            let closes_an_ancestor = self.stack.iter().any(|open| open.name == name);
            return Err(if closes_an_ancestor {
                ConfError::Xml {
                    location: top.at.clone(),
                    problem: XmlProblem::UnclosedElement {
                        element: top.name.clone(),
                        closed_by: name.to_owned(),
                    },
                }
            } else {
                ConfError::Xml {
                    location: at,
                    problem: XmlProblem::MismatchedEndTag {
                        expected: top.name.clone(),
                        found: name.to_owned(),
                    },
                }
            });
        }
        self.stack.pop();
        match self.stack.len() {
            1 => {
                if let Some(property) = self.property.take() {
                    self.properties.push(property.build()?);
                }
            }
            2 => {
                let text = std::mem::take(&mut self.text);
                let field = self.field.take();
                let slot = field.and_then(|field| self.property.as_mut()?.slot(field));
                if let Some(Some((value, _))) = slot {
                    *value = text;
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn text(&mut self, text: &str, at: impl Fn() -> Location) -> Result<(), ConfError> {
        if self.stack.len() == 3 {
            self.text.push_str(text);
            return Ok(());
        }
        let trimmed = text.trim();
        if trimmed.is_empty() {
            return Ok(());
        }
        let problem = match self.stack.last() {
            None => StructureProblem::ContentOutsideRoot,
            Some(parent) => StructureProblem::UnexpectedText {
                text: trimmed.to_owned(),
                parent: parent.name.clone(),
            },
        };
        Err(structure(at(), problem))
    }

    fn finish(self, end: Location) -> Result<Vec<Property>, ConfError> {
        if let Some(open) = self.stack.last() {
            return Err(ConfError::Xml {
                location: end,
                problem: XmlProblem::Truncated {
                    element: open.name.clone(),
                    opened_at: open.at.clone(),
                },
            });
        }
        if !self.root_seen {
            return Err(structure(end, StructureProblem::EmptyDocument));
        }
        Ok(self.properties)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn must_parse(xml: &str) -> Vec<Property> {
        parse("t.xml", xml).unwrap_or_else(|e| panic!("should parse: {e}"))
    }

    #[test]
    fn reads_name_value_final_description_and_value_position() {
        let xml = "<?xml version=\"1.0\"?>\n\
                   <?xml-stylesheet type=\"text/xsl\" href=\"configuration.xsl\"?>\n\
                   <configuration xmlns:xi=\"http://www.w3.org/2001/XInclude\">\n\
                   <!-- a comment -->\n\
                   <property>\n\
                   \x20 <name> a.b </name>\n\
                   \x20 <value>x &amp; &lt;y&gt; &#65;<![CDATA[<raw>]]></value>\n\
                   \x20 <final>TRUE</final>\n\
                   \x20 <description>\n    Words.\n  </description>\n\
                   \x20 <source>programmatically</source>\n\
                   </property>\n\
                   <property><name>empty</name><value/></property>\n\
                   </configuration>\n";
        let properties = must_parse(xml);
        assert_eq!(
            properties,
            vec![
                Property {
                    name: "a.b".into(),
                    value: "x & <y> A<raw>".into(),
                    is_final: true,
                    description: "Words.".into(),
                    location: Location::new("t.xml", 7, 3),
                },
                Property {
                    name: "empty".into(),
                    value: String::new(),
                    is_final: false,
                    description: String::new(),
                    location: Location::new("t.xml", 14, 29),
                },
            ]
        );
    }

    #[test]
    fn value_keeps_inner_whitespace_and_normalises_line_ends() {
        let xml = "<configuration><property><name>k</name><value>\r\n a \r\n</value></property></configuration>";
        assert_eq!(must_parse(xml)[0].value, "\n a \n");
    }

    #[test]
    fn self_closing_root_is_an_empty_configuration() {
        assert!(must_parse("<configuration/>").is_empty());
    }

    #[test]
    fn missing_value_is_reported_at_the_property() {
        let error = parse(
            "t.xml",
            "<configuration>\n<property><name>k</name></property></configuration>",
        )
        .expect_err("no value");
        let ConfError::Structure { location, problem } = error else {
            panic!("wrong variant: {error}");
        };
        assert_eq!(location, Location::new("t.xml", 2, 1));
        assert!(matches!(problem, StructureProblem::MissingValue { name } if name == "k"));
    }

    #[test]
    fn final_other_than_true_or_false_is_rejected() {
        let xml = "<configuration><property><name>k</name><value>1</value><final>yes</final></property></configuration>";
        let error = parse("t.xml", xml).expect_err("bad final");
        assert!(matches!(
            error,
            ConfError::Structure { location, problem: StructureProblem::InvalidFinal { .. } }
                if location.column == 56
        ));
    }

    #[test]
    fn duplicate_value_points_at_both() {
        let xml = "<configuration><property><name>k</name><value>1</value><value>2</value></property></configuration>";
        let error = parse("t.xml", xml).expect_err("duplicate");
        let ConfError::Structure { location, problem } = error else {
            panic!("wrong variant: {error}");
        };
        assert_eq!(location.column, 56);
        assert!(matches!(
            problem,
            StructureProblem::DuplicateElement { element, first } if element == "value" && first.column == 40
        ));
    }

    #[test]
    fn unknown_child_element_is_rejected() {
        let xml =
            "<configuration><property><name>k</name><vaule>1</vaule></property></configuration>";
        let message = parse("t.xml", xml).expect_err("typo").to_string();
        assert!(
            message.starts_with("t.xml:1:40: unexpected element <vaule> inside <property>"),
            "{message}"
        );
    }

    #[test]
    fn nested_element_in_value_and_stray_text_are_rejected() {
        let nested =
            "<configuration><property><name>k</name><value><b/></value></property></configuration>";
        let message = parse("t.xml", nested).expect_err("nested").to_string();
        assert!(
            message.starts_with("t.xml:1:47: unexpected element <b> inside <value>"),
            "{message}"
        );

        let stray = "<configuration>\n  oops <property/></configuration>";
        let message = parse("t.xml", stray).expect_err("text").to_string();
        assert!(
            message.starts_with("t.xml:2:3: unexpected text \"oops\" inside <configuration>"),
            "{message}"
        );
    }

    #[test]
    fn second_root_and_text_after_root_are_rejected() {
        for xml in [
            "<configuration/><configuration/>",
            "<configuration/>\ntrailing",
        ] {
            let error = parse("t.xml", xml).expect_err("outside root");
            assert!(
                matches!(
                    error,
                    ConfError::Structure {
                        problem: StructureProblem::ContentOutsideRoot,
                        ..
                    }
                ),
                "{error}"
            );
        }
    }

    #[test]
    fn end_tag_without_open_element_is_rejected() {
        let error = parse("t.xml", "<configuration/></property>").expect_err("unmatched");
        assert_eq!(
            error.to_string(),
            "t.xml:1:17: malformed XML: </property> closes no open element"
        );
    }

    #[test]
    fn invalid_character_reference_is_rejected() {
        let xml =
            "<configuration><property><name>k</name><value>&#0;</value></property></configuration>";
        let error = parse("t.xml", xml).expect_err("bad char ref");
        assert_eq!(
            error.to_string(),
            "t.xml:1:47: malformed XML: invalid character reference &#0;"
        );
    }

    #[test]
    fn bytes_that_are_not_utf8_are_located_in_a_value_a_name_or_a_comment() {
        let cases: [(&[u8], u32, u32, &[u8]); 4] = [
            // In a value, after a two-byte character that takes one column.
            (
                b"<configuration>\n<property><name>k</name><value>\xC3\xA7\xFF</value></property></configuration>",
                2,
                33,
                b"\xFF",
            ),
            // In a name: a two-byte lead followed by ASCII.
            (
                b"<configuration>\n<property>\n  <name>a\xC3(</name><value/></property></configuration>",
                3,
                10,
                b"\xC3",
            ),
            // In a comment: Latin-1, as in a file saved by an editor set to ISO-8859-1.
            (
                b"<?xml version=\"1.0\"?>\n<!-- caf\xE9 -->\n<configuration/>",
                2,
                9,
                b"\xE9",
            ),
            // A character cut short at the end of the file.
            (b"<configuration/>\n\xE2\x82", 2, 1, b"\xE2\x82"),
        ];
        for (bytes, line, column, invalid) in cases {
            let error = decode("t.xml", bytes.to_vec()).expect_err("not UTF-8");
            let ConfError::Xml { location, problem } = &error else {
                panic!("wrong variant: {error}");
            };
            assert_eq!(*location, Location::new("t.xml", line, column), "{error}");
            assert!(
                matches!(problem, XmlProblem::InvalidUtf8 { bytes } if bytes == invalid),
                "{error}"
            );
        }
        assert_eq!(
            decode("t.xml", b"<configuration>\n  <!-- \xFF -->".to_vec())
                .expect_err("not UTF-8")
                .to_string(),
            "t.xml:2:8: malformed XML: \\xFF is not UTF-8 (configuration files are read as UTF-8)"
        );
    }
}
