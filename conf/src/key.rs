//! Declared configuration keys: name, default and the type their getter expects.

use std::borrow::Cow;
use std::fmt;

/// The type a key's value must parse as; it names the [`crate::Configuration`] getter to use.
///
/// The kind is documentation that tests enforce (every default must parse with the getter of its
/// kind); the getters themselves do not check it, so a [`KeyKind::Int`] key may also be read with
/// `get_u32` when negative values make no sense.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum KeyKind {
    /// `true` or `false`, case-insensitive: `get_bool`.
    Bool,
    /// A 32-bit integer: `get_i32` (or `get_u32`).
    Int,
    /// A 64-bit integer: `get_i64` (or `get_u64`).
    Long,
    /// A finite floating-point number: `get_f64`.
    Float,
    /// A non-negative integer in the unit the key's name ends with: `get_duration`.
    Duration,
    /// A non-negative number of mebibytes (the key ends in `-mb`): `get_size_mb`.
    SizeMb,
    /// `host:port`, IPv6 hosts in brackets: `get_host_port`.
    HostPort,
    /// Comma-separated items, trimmed, empty items dropped: `get_list`.
    List,
    /// Free text, trimmed: `get_string`.
    String,
}

impl KeyKind {
    /// A short noun for messages such as "is not a valid integer".
    pub fn noun(self) -> &'static str {
        match self {
            KeyKind::Bool => "boolean",
            KeyKind::Int | KeyKind::Long => "integer",
            KeyKind::Float => "number",
            KeyKind::Duration => "duration",
            KeyKind::SizeMb => "size",
            KeyKind::HostPort => "host:port address",
            KeyKind::List => "list",
            KeyKind::String => "string",
        }
    }
}

impl fmt::Display for KeyKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.noun())
    }
}

/// A configuration key the project reads, with its Hadoop name, default and expected type.
///
/// Keys are declared as constants in [`crate::keys`] and documented in `yarn-default.xml`; a test
/// keeps both equal. The default may contain `${...}` references, which are substituted like any
/// other value.
///
/// Per-id keys (`per_id == true`) also exist in the form `<name>.<id>` for each ResourceManager id
/// in `yarn.resourcemanager.ha.rm-ids`. [`Key::for_id`] builds that form and remembers the id so
/// that the getters resolve references to other per-id keys for the same id (see
/// [`crate::Configuration`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Key {
    /// The full property name, including the `.<id>` suffix for keys made by [`Key::for_id`].
    pub name: Cow<'static, str>,
    /// The value used when the property is unset or empty; may contain `${...}` references.
    pub default: &'static str,
    /// The type the value must parse as.
    pub kind: KeyKind,
    /// Whether the key takes a `.<rm-id>` suffix in an HA cluster.
    pub per_id: bool,
    /// The id this key was specialised for by [`Key::for_id`]; `None` for declared keys.
    pub id: Option<Cow<'static, str>>,
}

impl Key {
    /// Declares a key that is not per-id.
    pub const fn new(name: &'static str, default: &'static str, kind: KeyKind) -> Key {
        Key {
            name: Cow::Borrowed(name),
            default,
            kind,
            per_id: false,
            id: None,
        }
    }

    /// Marks the key as taking a `.<rm-id>` suffix in an HA cluster.
    pub const fn per_id(mut self) -> Key {
        self.per_id = true;
        self
    }

    /// The key `<name>.<id>`, with the same default and kind, bound to `id`.
    ///
    /// While that key is resolved, references to any per-id key `K` in its value or default read
    /// `K.<id>` when that is set; so `yarn.resourcemanager.address.rm1`, when unset, derives from
    /// `yarn.resourcemanager.hostname.rm1` as in Hadoop. Meant for keys with `per_id == true`.
    pub fn for_id(&self, id: &str) -> Key {
        Key {
            name: Cow::Owned(format!("{}.{id}", self.name)),
            default: self.default,
            kind: self.kind,
            per_id: self.per_id,
            id: Some(Cow::Owned(id.to_owned())),
        }
    }
}

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PLAIN: Key = Key::new(
        "yarn.example.port",
        "${yarn.example.host}:1",
        KeyKind::HostPort,
    );
    const PER_ID: Key = Key::new("yarn.example.address", "0.0.0.0:2", KeyKind::HostPort).per_id();

    #[test]
    fn const_constructors_set_flags() {
        assert_eq!([PLAIN, PER_ID].map(|key| key.per_id), [false, true]);
        assert_eq!(PER_ID.id, None);
    }

    #[test]
    fn for_id_appends_the_id_and_keeps_default_and_kind() {
        let key = PER_ID.for_id("rm2");
        assert_eq!(key.name, "yarn.example.address.rm2");
        assert_eq!(key.default, PER_ID.default);
        assert_eq!(key.kind, KeyKind::HostPort);
        assert_eq!(key.id.as_deref(), Some("rm2"));
        assert_eq!(key.to_string(), "yarn.example.address.rm2");
    }
}
