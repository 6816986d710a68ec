//! Validation of declared keys without building a daemon's typed config.

use crate::{ConfError, Configuration, Key, KeyKind};

impl Configuration {
    /// Reads `key` with the getter its [`KeyKind`] names and discards the value, so that
    /// `yarn-ha conf check` reports every bad value, not only those a daemon happens to read
    /// first.
    ///
    /// # Errors
    ///
    /// Whatever the kind's getter returns for the effective value.
    pub fn check(&self, key: &Key) -> Result<(), ConfError> {
        match key.kind {
            KeyKind::Bool => self.get_bool(key).map(drop),
            KeyKind::Int => self.get_i32(key).map(drop),
            KeyKind::Long => self.get_i64(key).map(drop),
            KeyKind::Float => self.get_f64(key).map(drop),
            KeyKind::Duration => self.get_duration(key).map(drop),
            KeyKind::SizeMb => self.get_size_mb(key).map(drop),
            KeyKind::HostPort => self.get_host_port(key).map(drop),
            KeyKind::List => self.get_list(key).map(drop),
            KeyKind::String => self.get_string(key).map(drop),
        }
    }

    /// The error for a value that parsed but breaks a rule of a typed config (an id missing from
    /// a list, an interval shorter than another), pointing at where the effective value was set.
    pub fn invalid_value(
        &self,
        key: &Key,
        value: impl ToString,
        expected: impl Into<String>,
    ) -> ConfError {
        ConfError::InvalidValue {
            key: key.name.to_string(),
            value: value.to_string(),
            kind: key.kind,
            expected: expected.into(),
            location: self.source(&key.name).cloned(),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::{Configuration, keys};

    #[test]
    fn check_uses_the_getter_of_the_key_kind() {
        let mut conf = Configuration::new();
        conf.set(keys::RM_AM_MAX_ATTEMPTS.name.as_ref(), "ten");
        conf.set(keys::RM_HA_ENABLED.name.as_ref(), "yes");
        conf.set(keys::RM_ADDRESS.name.as_ref(), "host-without-port");
        for key in [
            &keys::RM_AM_MAX_ATTEMPTS,
            &keys::RM_HA_ENABLED,
            &keys::RM_ADDRESS,
        ] {
            let err = conf.check(key).unwrap_err();
            assert!(err.to_string().contains(key.name.as_ref()), "{err}");
        }
        assert!(conf.check(&keys::RM_NM_HEARTBEAT_INTERVAL_MS).is_ok());
    }
}
