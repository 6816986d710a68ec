//! Hadoop XML configuration for yarn-ha.
//!
//! This crate reads the `*-site.xml` files operators already know from Hadoop YARN and turns them
//! into typed values. It parses `<configuration><property>...` resources with a streaming
//! `quick-xml` reader (so every error has a line and column), stacks them in layers, honours
//! `<final>`, substitutes `${name}` and `${env.NAME}` references, and offers typed getters keyed
//! by declared [`Key`]s with their defaults. Each daemon builds its own typed config from a
//! [`Configuration`] once at start-up; deep code never sees this raw map.
//!
//! It depends on no other workspace crate, so every crate may use it.
//!
//! # Main types
//!
//! - [`Configuration`]: the layered property map and its typed getters.
//! - [`Key`] and [`KeyKind`]: a declared key with its default and expected type; every key the
//!   project reads is a constant in [`keys`], documented in `conf/yarn-default.xml`.
//! - [`HostPort`]: a parsed `host:port` address.
//! - [`Location`]: file, line and column of a value, carried by errors.
//! - [`ConfError`]: every failure, each naming file, line, column, key, value and what was
//!   expected.
//!
//! # Layers
//!
//! ```text
//!   set("k", "v")                  programmatic, top: always wins (ignores final)
//!        |
//!   add_resource_file(...)         later resources override earlier ones ...
//!   <conf-dir>/yarn-site.xml       ... unless an earlier one marked the key final:
//!        |                         then the final value stays and a warning is kept
//!   yarn-default.xml (embedded)    bottom layer, from Configuration::with_defaults()
//!        |
//!   Key::default                   used by typed getters when the value is unset or empty
//!
//!   read: effective raw value --${...} substitution--> trim --> typed parse --> value or
//!         ConfError pointing at the <value> element the effective value came from
//! ```
//!
//! # Hadoop compatibility
//!
//! Key names, defaults, the file format, layering, `final` and `${...}` syntax follow Hadoop's
//! `Configuration`. Where Hadoop quietly carries on with a value that is probably wrong, this
//! crate fails with a positioned error instead, because a misconfigured cluster member is harder
//! to diagnose than one that refuses to start:
//!
//! - an unresolvable `${x}` is an error (Hadoop leaves `${x}` in the value); see [`substitution`];
//! - a boolean other than `true`/`false` is an error (Hadoop returns the default);
//! - unknown elements, stray text, a property without `<value>` and a `<final>` other than
//!   `true`/`false` are errors (Hadoop skips them); see [`loader`];
//! - XInclude, Java system properties and `${env.NAME:-fallback}` are not supported.

mod check;
mod configuration;
pub mod error;
pub mod ha;
pub mod host_port;
pub mod key;
pub mod keys;
pub mod loader;
pub mod location;
pub mod substitution;
pub mod unhonoured;
mod value;
pub mod writer;

pub use configuration::{Configuration, DEFAULT_RESOURCE, SITE_RESOURCE};
pub use error::{ConfError, StructureProblem, SubstitutionProblem, XmlProblem};
pub use ha::{RmEndpoints, RmHaConfig};
pub use host_port::{HostPort, HostPortError};
pub use key::{Key, KeyKind};
pub use location::Location;
pub use unhonoured::{Daemon, SiteReport, Verdict};
