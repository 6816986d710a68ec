//! [`Configuration`]: layered Hadoop resources and the typed getters.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use crate::error::ConfError;
use crate::host_port::HostPort;
use crate::key::{Key, KeyKind};
use crate::keys;
use crate::loader::{self, Property};
use crate::location::Location;
use crate::substitution::{self, Definition, Lookup};
use crate::value;

/// The name of the embedded defaults resource.
pub const DEFAULT_RESOURCE: &str = "yarn-default.xml";
/// The site file [`Configuration::load_dir`] reads from a configuration directory.
pub const SITE_RESOURCE: &str = "yarn-site.xml";
const DEFAULT_XML: &str = include_str!("../yarn-default.xml");

/// A set of configuration properties built from layered resources.
///
/// Resources are added bottom to top; a property set by a later resource replaces the earlier
/// value unless an earlier resource marked it `<final>true</final>`. In that case the final value
/// stays and a warning is recorded (see [`Configuration::warnings`]), as Hadoop does.
/// [`Configuration::set`] writes on top of everything and, like Hadoop's `set`, ignores `final`.
///
/// Values are stored unsubstituted; `${...}` references are resolved on every read (see
/// [`crate::substitution`] for the rules and how they differ from Hadoop's).
///
/// The typed getters take a [`Key`]. They read the property's value, substitute it and trim it;
/// when it is unset or empty they use the key's built-in default instead (also substituted). A
/// reference to an unset property that is a declared key resolves to that key's default, so a
/// `Configuration::new()` with nothing loaded still answers every declared key.
///
/// Per-id keys: for a key made by [`Key::for_id`], every reference to a per-id key `K` (see
/// [`Key::per_id`]) in its value or default reads `K.<id>` when that is set and non-empty, and `K`
/// otherwise. So with only `yarn.resourcemanager.hostname.rm1` set,
/// `get_host_port(&keys::RM_ADDRESS.for_id("rm1"))` yields that host with port 8032, as Hadoop
/// derives HA addresses. Inside the value of `K.<id>` itself, `${K}` means the shared `K`.
#[derive(Clone, Debug, Default)]
pub struct Configuration {
    entries: BTreeMap<String, Entry>,
    resources: Vec<String>,
    warnings: Vec<String>,
}

/// The effective value of one property and where it came from.
#[derive(Clone, Debug)]
struct Entry {
    value: String,
    location: Location,
    is_final: bool,
}

/// A substituted, trimmed value ready for typed parsing.
struct Effective {
    value: String,
    /// `None` when the value is the key's built-in default.
    location: Option<Location>,
}

impl Configuration {
    /// An empty configuration: no resources, every typed getter returns the key's default.
    pub fn new() -> Configuration {
        Configuration::default()
    }

    /// A configuration holding the embedded `yarn-default.xml` as its bottom layer.
    ///
    /// # Errors
    ///
    /// Only if the embedded file is malformed, which the crate's tests rule out.
    pub fn with_defaults() -> Result<Configuration, ConfError> {
        let mut configuration = Configuration::new();
        configuration.add_resource_str(DEFAULT_RESOURCE, DEFAULT_XML)?;
        Ok(configuration)
    }

    /// The defaults plus `<dir>/yarn-site.xml` when that file exists.
    ///
    /// # Errors
    ///
    /// [`ConfError::Io`] when `dir` is not a readable directory or the site file cannot be read,
    /// and any parse error of the site file.
    pub fn load_dir(dir: &Path) -> Result<Configuration, ConfError> {
        let io_error = |source| ConfError::Io {
            file: dir.display().to_string(),
            source,
        };
        let metadata = std::fs::metadata(dir).map_err(io_error)?;
        if !metadata.is_dir() {
            return Err(io_error(std::io::Error::new(
                std::io::ErrorKind::NotADirectory,
                "the configuration directory is not a directory",
            )));
        }
        let mut configuration = Configuration::with_defaults()?;
        let site = dir.join(SITE_RESOURCE);
        if site.exists() {
            configuration.add_resource_file(&site)?;
        }
        Ok(configuration)
    }

    /// Adds the resource file at `path` on top of the current layers; errors name the path as given.
    ///
    /// # Errors
    ///
    /// The errors of [`loader::read_file`] and [`loader::parse`]. On error the configuration is
    /// unchanged.
    pub fn add_resource_file(&mut self, path: &Path) -> Result<(), ConfError> {
        let xml = loader::read_file(path)?;
        self.add_resource_str(&path.display().to_string(), &xml)
    }

    /// Adds the resource text `xml`, reported under `name`, on top of the current layers.
    ///
    /// # Errors
    ///
    /// The parse errors of [`loader::parse`]. The whole resource is parsed before any property is
    /// applied, so on error the configuration is unchanged.
    pub fn add_resource_str(&mut self, name: &str, xml: &str) -> Result<(), ConfError> {
        for property in loader::parse(name, xml)? {
            self.apply(property);
        }
        self.resources.push(name.to_owned());
        Ok(())
    }

    fn apply(&mut self, property: Property) {
        let Property {
            name,
            value,
            is_final,
            location,
            ..
        } = property;
        match self.entries.get_mut(&name) {
            Some(existing) if existing.is_final => {
                if existing.value != value {
                    self.warnings.push(format!(
                        "{location}: key {name}: value {value:?} ignored because {} marked the \
                         key final with value {:?}",
                        existing.location, existing.value
                    ));
                }
            }
            Some(existing) => {
                *existing = Entry {
                    value,
                    location,
                    is_final,
                }
            }
            None => {
                let entry = Entry {
                    value,
                    location,
                    is_final,
                };
                self.entries.insert(name, entry);
            }
        }
    }

    /// Sets `name` to `value` on top of every resource, even if a resource marked it final (as
    /// Hadoop's `set` does). Its [`Configuration::source`] becomes [`Location::programmatic`].
    pub fn set(&mut self, name: &str, value: &str) {
        let location = Location::programmatic();
        match self.entries.get_mut(name) {
            Some(existing) => {
                existing.value = value.to_owned();
                existing.location = location;
            }
            None => {
                let entry = Entry {
                    value: value.to_owned(),
                    location,
                    is_final: false,
                };
                self.entries.insert(name.to_owned(), entry);
            }
        }
    }

    /// The substituted value of `name`, or `None` when no layer sets it. Built-in defaults of
    /// declared keys are not consulted for `name` itself (use the typed getters for that), only for
    /// references inside its value.
    ///
    /// # Errors
    ///
    /// [`ConfError::Substitution`] when a `${...}` reference cannot be resolved, and
    /// [`ConfError::ExpansionTooLarge`] when substitution passes
    /// [`substitution::MAX_EXPANDED_BYTES`].
    pub fn get(&self, name: &str) -> Result<Option<String>, ConfError> {
        let Some(entry) = self.entries.get(name) else {
            return Ok(None);
        };
        let scope = Scope {
            configuration: self,
            id: None,
        };
        substitution::substitute(name, &entry.value, Some(&entry.location), &scope).map(Some)
    }

    /// The unsubstituted value of `name`, or `None` when no layer sets it.
    pub fn get_raw(&self, name: &str) -> Option<&str> {
        self.entries.get(name).map(|entry| entry.value.as_str())
    }

    /// Where the effective value of `name` came from: the `<value>` element of the resource that
    /// set it last, or [`Location::programmatic`].
    pub fn source(&self, name: &str) -> Option<&Location> {
        self.entries.get(name).map(|entry| &entry.location)
    }

    /// Every property name set in any layer, sorted.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.entries.keys().map(String::as_str)
    }

    /// The names of the resources added so far, bottom layer first.
    pub fn resources(&self) -> &[String] {
        &self.resources
    }

    /// Messages about values that were ignored because an earlier layer marked the key final.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// Reads a [`KeyKind::Bool`] key: `true` or `false`, case-insensitive. Hadoop falls back to the
    /// default on anything else; this is an error instead.
    ///
    /// # Errors
    ///
    /// [`ConfError::InvalidValue`], [`ConfError::Substitution`] and
    /// [`ConfError::ExpansionTooLarge`].
    pub fn get_bool(&self, key: &Key) -> Result<bool, ConfError> {
        self.parse(key, KeyKind::Bool, "true or false", value::parse_bool)
    }

    /// Reads a 32-bit integer (decimal, or hexadecimal with `0x`).
    ///
    /// # Errors
    ///
    /// [`ConfError::InvalidValue`], [`ConfError::Substitution`] and
    /// [`ConfError::ExpansionTooLarge`].
    pub fn get_i32(&self, key: &Key) -> Result<i32, ConfError> {
        self.parse(key, KeyKind::Int, "a 32-bit integer", value::parse_integer)
    }

    /// Reads a 64-bit integer (decimal, or hexadecimal with `0x`).
    ///
    /// # Errors
    ///
    /// [`ConfError::InvalidValue`], [`ConfError::Substitution`] and
    /// [`ConfError::ExpansionTooLarge`].
    pub fn get_i64(&self, key: &Key) -> Result<i64, ConfError> {
        self.parse(key, KeyKind::Long, "a 64-bit integer", value::parse_integer)
    }

    /// Reads a non-negative 32-bit integer, for counts where a negative value makes no sense.
    ///
    /// # Errors
    ///
    /// [`ConfError::InvalidValue`], [`ConfError::Substitution`] and
    /// [`ConfError::ExpansionTooLarge`].
    pub fn get_u32(&self, key: &Key) -> Result<u32, ConfError> {
        let expected = "a non-negative 32-bit integer";
        self.parse(key, KeyKind::Int, expected, value::parse_integer)
    }

    /// Reads a non-negative 64-bit integer.
    ///
    /// # Errors
    ///
    /// [`ConfError::InvalidValue`], [`ConfError::Substitution`] and
    /// [`ConfError::ExpansionTooLarge`].
    pub fn get_u64(&self, key: &Key) -> Result<u64, ConfError> {
        let expected = "a non-negative 64-bit integer";
        self.parse(key, KeyKind::Long, expected, value::parse_integer)
    }

    /// Reads a finite floating-point number.
    ///
    /// # Errors
    ///
    /// [`ConfError::InvalidValue`], [`ConfError::Substitution`] and
    /// [`ConfError::ExpansionTooLarge`].
    pub fn get_f64(&self, key: &Key) -> Result<f64, ConfError> {
        self.parse(key, KeyKind::Float, "a finite number", value::parse_float)
    }

    /// Reads a duration whose unit is the key name's suffix: `-ms` or `.ms` for milliseconds,
    /// `-secs` or `.secs` for seconds. The value is a non-negative whole number; unit suffixes in
    /// the value (Hadoop's `getTimeDuration` style, `30s`) are not accepted because none of these
    /// keys is read that way by Hadoop either.
    ///
    /// # Errors
    ///
    /// [`ConfError::MissingUnitSuffix`] when the key name has no unit (a bug in the caller),
    /// [`ConfError::InvalidValue`], [`ConfError::Substitution`] and
    /// [`ConfError::ExpansionTooLarge`].
    pub fn get_duration(&self, key: &Key) -> Result<Duration, ConfError> {
        let name = key.name.as_ref();
        if name.ends_with("-ms") || name.ends_with(".ms") {
            let expected = "a non-negative whole number of milliseconds";
            self.parse(key, KeyKind::Duration, expected, |text| {
                value::parse_integer(text).map(Duration::from_millis)
            })
        } else if name.ends_with("-secs") || name.ends_with(".secs") {
            let expected = "a non-negative whole number of seconds";
            self.parse(key, KeyKind::Duration, expected, |text| {
                value::parse_integer(text).map(Duration::from_secs)
            })
        } else {
            Err(ConfError::MissingUnitSuffix {
                key: key.name.to_string(),
                getter: "duration",
                accepted: "-ms, .ms, -secs or .secs",
            })
        }
    }

    /// Reads a size in mebibytes from a key whose name ends in `-mb`.
    ///
    /// # Errors
    ///
    /// [`ConfError::MissingUnitSuffix`] when the key name does not end in `-mb` (a bug in the
    /// caller), [`ConfError::InvalidValue`], [`ConfError::Substitution`] and
    /// [`ConfError::ExpansionTooLarge`].
    pub fn get_size_mb(&self, key: &Key) -> Result<u64, ConfError> {
        if !key.name.ends_with("-mb") {
            return Err(ConfError::MissingUnitSuffix {
                key: key.name.to_string(),
                getter: "size in MB",
                accepted: "-mb",
            });
        }
        let expected = "a non-negative whole number of mebibytes";
        self.parse(key, KeyKind::SizeMb, expected, value::parse_integer)
    }

    /// Reads a `host:port` address (see [`HostPort`] for the accepted forms).
    ///
    /// # Errors
    ///
    /// [`ConfError::InvalidValue`], whose `expected` includes the specific problem,
    /// [`ConfError::Substitution`] and [`ConfError::ExpansionTooLarge`].
    pub fn get_host_port(&self, key: &Key) -> Result<HostPort, ConfError> {
        let effective = self.effective(key)?;
        effective
            .value
            .parse::<HostPort>()
            .map_err(|problem| ConfError::InvalidValue {
                key: key.name.to_string(),
                value: effective.value.clone(),
                kind: KeyKind::HostPort,
                expected: format!("{}; {problem}", HostPort::EXPECTED),
                location: effective.location.clone(),
            })
    }

    /// Reads a comma-separated list; items are trimmed and empty items dropped, so an unset key
    /// with an empty default gives an empty list.
    ///
    /// # Errors
    ///
    /// [`ConfError::Substitution`] and [`ConfError::ExpansionTooLarge`].
    pub fn get_list(&self, key: &Key) -> Result<Vec<String>, ConfError> {
        Ok(value::parse_list(&self.effective(key)?.value))
    }

    /// Reads a string, trimmed; empty when both the value and the default are empty.
    ///
    /// # Errors
    ///
    /// [`ConfError::Substitution`] and [`ConfError::ExpansionTooLarge`].
    pub fn get_string(&self, key: &Key) -> Result<String, ConfError> {
        Ok(self.effective(key)?.value)
    }

    /// Reads a string that must not be empty, such as a certificate path.
    ///
    /// # Errors
    ///
    /// [`ConfError::Missing`] when the value and the default are both empty,
    /// [`ConfError::Substitution`] and [`ConfError::ExpansionTooLarge`].
    pub fn get_required_string(&self, key: &Key) -> Result<String, ConfError> {
        let value = self.get_string(key)?;
        if value.is_empty() {
            return Err(ConfError::Missing {
                key: key.name.to_string(),
                expected: format!("a non-empty {}", key.kind),
            });
        }
        Ok(value)
    }

    fn parse<T>(
        &self,
        key: &Key,
        kind: KeyKind,
        expected: &str,
        parse: impl FnOnce(&str) -> Option<T>,
    ) -> Result<T, ConfError> {
        let effective = self.effective(key)?;
        parse(&effective.value).ok_or_else(|| ConfError::InvalidValue {
            key: key.name.to_string(),
            value: effective.value,
            kind,
            expected: expected.to_owned(),
            location: effective.location,
        })
    }

    /// The key's value, substituted and trimmed, or its default when that is unset or empty.
    fn effective(&self, key: &Key) -> Result<Effective, ConfError> {
        let scope = Scope {
            configuration: self,
            id: key.id.as_deref(),
        };
        let name = key.name.as_ref();
        if let Some(entry) = self.entries.get(name) {
            let value =
                substitution::substitute(name, &entry.value, Some(&entry.location), &scope)?;
            let value = value.trim();
            if !value.is_empty() {
                return Ok(Effective {
                    value: value.to_owned(),
                    location: Some(entry.location.clone()),
                });
            }
        }
        let value = substitution::substitute(name, key.default, None, &scope)?;
        Ok(Effective {
            value: value.trim().to_owned(),
            location: None,
        })
    }
}

/// How references are resolved while reading one key: the configuration's properties, then the
/// defaults of declared keys, with the per-id mapping when the key was made by [`Key::for_id`].
struct Scope<'a> {
    configuration: &'a Configuration,
    id: Option<&'a str>,
}

impl Scope<'_> {
    /// The stored property `name`, if any layer sets it.
    fn stored(&self, name: &str) -> Option<Definition<'_>> {
        let (name, entry) = self.configuration.entries.get_key_value(name)?;
        Some(Definition {
            name: Cow::Borrowed(name),
            value: &entry.value,
            location: Some(&entry.location),
        })
    }

    /// `<name>.<id>` when `name` is a per-id key, this scope has an id, and that property is set
    /// and non-empty; never the property whose value is being expanded (so that inside `K.<id>`,
    /// `${K}` means the shared key rather than itself).
    fn scoped(&self, key: &Key, chain: &[String]) -> Option<Definition<'_>> {
        let id = self.id.filter(|_| key.per_id)?;
        let scoped = format!("{}.{id}", key.name);
        if chain.contains(&scoped) {
            return None;
        }
        self.stored(&scoped)
            .filter(|definition| !definition.value.trim().is_empty())
    }
}

impl Lookup for Scope<'_> {
    fn property(&self, name: &str, chain: &[String]) -> Option<Definition<'_>> {
        let declared = keys::find(name);
        declared
            .and_then(|key| self.scoped(key, chain))
            .or_else(|| self.stored(name))
            .or_else(|| {
                declared.map(|key| Definition {
                    name: Cow::Borrowed(key.name.as_ref()),
                    value: key.default,
                    location: None,
                })
            })
    }

    fn environment(&self, name: &str) -> Option<String> {
        std::env::var(name).ok()
    }
}
