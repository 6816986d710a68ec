//! The shapes Hadoop's JAXB gives JSON bodies: maps as entry lists, and lists of one written
//! as the bare item.

use serde::Deserialize;
use serde::de::{DeserializeOwned, Deserializer, Error as _};

/// `{"entry": [{"key": ..., "value": ...}]}`, JAXB's map; one entry may come unwrapped.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, bound(deserialize = "V: DeserializeOwned"))]
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

impl<'de, T: DeserializeOwned> Deserialize<'de> for OneOrMany<T> {
    /// Reads an array as many and anything else as one, so that an error inside names what
    /// is wrong with the item (an untagged enum would only say that no form matched).
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = serde_json::Value::deserialize(deserializer)?;
        let read = if value.is_array() {
            serde_json::from_value(value).map(Self::Many)
        } else {
            serde_json::from_value(value).map(Self::One)
        };
        read.map_err(D::Error::custom)
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
