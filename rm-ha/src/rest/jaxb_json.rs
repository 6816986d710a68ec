//! The shapes Hadoop's JAXB gives JSON bodies: maps as entry lists, and lists of one written
//! as the bare item.

use std::fmt;
use std::marker::PhantomData;

use serde::Deserialize;
use serde::de::value::{MapAccessDeserializer, SeqAccessDeserializer};
use serde::de::{self, Deserializer, IntoDeserializer, MapAccess, SeqAccess, Visitor};

/// `{"entry": [{"key": ..., "value": ...}]}`, JAXB's map; one entry may come unwrapped.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, bound(deserialize = "V: Deserialize<'de>"))]
pub(super) struct Entries<V> {
    /// None in an empty map (`{}`).
    #[serde(default)]
    pub(super) entry: OneOrMany<Entry<V>>,
}

/// One entry of [`Entries`].
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Entry<V> {
    pub(super) key: String,
    pub(super) value: V,
}

/// A list that JAXB's JSON writes as a bare value when it has one element.
#[derive(Debug, Clone)]
pub(super) enum OneOrMany<T> {
    Many(Vec<T>),
    One(T),
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for OneOrMany<T> {
    /// Reads a list as many and anything else as one, streaming, so that an error inside names
    /// what is wrong with the item and where (an untagged enum would only say that no form
    /// matched), and a repeated field is still refused.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct OneOrManyVisitor<T>(PhantomData<T>);

        impl<'de, T: Deserialize<'de>> Visitor<'de> for OneOrManyVisitor<T> {
            type Value = OneOrMany<T>;

            fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
                formatter.write_str("an item or a list of items")
            }

            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
                Vec::deserialize(SeqAccessDeserializer::new(seq)).map(OneOrMany::Many)
            }

            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                T::deserialize(MapAccessDeserializer::new(map)).map(OneOrMany::One)
            }

            fn visit_str<E: de::Error>(self, text: &str) -> Result<Self::Value, E> {
                T::deserialize(text.into_deserializer()).map(OneOrMany::One)
            }
        }

        deserializer.deserialize_any(OneOrManyVisitor(PhantomData))
    }
}

impl<T> Default for OneOrMany<T> {
    fn default() -> Self {
        Self::Many(Vec::new())
    }
}

impl<T> OneOrMany<T> {
    /// The items, however written.
    pub(super) fn into_vec(self) -> Vec<T> {
        match self {
            Self::Many(items) => items,
            Self::One(item) => vec![item],
        }
    }
}

impl<V> Entries<V> {
    /// The entries as key and value pairs, in order.
    pub(super) fn into_pairs(self) -> Vec<(String, V)> {
        self.entry
            .into_vec()
            .into_iter()
            .map(|entry| (entry.key, entry.value))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    type Environment = Entries<String>;

    #[test]
    fn one_many_and_repeated_fields_read_as_jaxb_writes_them() {
        let one: Environment =
            serde_json::from_str(r#"{"entry": {"key": "A", "value": "x"}}"#).unwrap();
        assert_eq!(one.into_pairs(), [("A".to_owned(), "x".to_owned())]);
        let many: Environment = serde_json::from_str(
            r#"{"entry": [{"key": "A", "value": "x"}, {"key": "B", "value": "y"}]}"#,
        )
        .unwrap();
        assert_eq!(many.into_pairs().len(), 2);
        let empty: Environment = serde_json::from_str("{}").unwrap();
        assert!(empty.into_pairs().is_empty());
        let tags: OneOrMany<String> = serde_json::from_str(r#""solo""#).unwrap();
        assert_eq!(tags.into_vec(), ["solo"]);
        let repeated = serde_json::from_str::<Environment>(
            r#"{"entry": {"key": "A", "value": "x", "value": "y"}}"#,
        )
        .unwrap_err()
        .to_string();
        assert!(repeated.contains("duplicate field `value`"), "{repeated}");
        let inside = serde_json::from_str::<Environment>(r#"{"entry": [{"key": "A"}]}"#)
            .unwrap_err()
            .to_string();
        assert!(inside.contains("missing field `value`"), "{inside}");
    }
}
