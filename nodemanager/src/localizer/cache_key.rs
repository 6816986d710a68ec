//! [`CacheKey`]: what makes two requests for a resource the same request.

use sha2::{Digest, Sha256};

use super::LocalResource;

/// The identity of a localized copy: the source URL with the size, time, type and pattern the
/// client saw, so that a changed source (new time) or another way of unpacking it is another
/// copy. Visibility is not part of it: it chooses the cache the copy lives in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct CacheKey<'a> {
    resource: &'a LocalResource,
}

impl<'a> CacheKey<'a> {
    /// The key of `resource`.
    pub(crate) fn of(resource: &'a LocalResource) -> Self {
        Self { resource }
    }

    /// The name of the copy's directory in its cache: 32 hex digits of a SHA-256 over the
    /// key's fields.
    ///
    /// Stable across NodeManager restarts, so that copies made before one are found again. A
    /// cryptographic hash because the public cache is shared between users: nobody may craft a
    /// URL whose copy would be taken for another's. Each field is length-prefixed so that no
    /// two keys feed the hash the same bytes.
    pub(crate) fn dir_name(&self) -> String {
        let resource = self.resource;
        let mut hasher = Sha256::new();
        for field in [
            resource.url.as_bytes(),
            &resource.size.to_be_bytes(),
            &resource.timestamp_ms.to_be_bytes(),
            resource.resource_type.name().as_bytes(),
            resource.pattern.as_bytes(),
        ] {
            hasher.update((field.len() as u64).to_be_bytes());
            hasher.update(field);
        }
        hasher
            .finalize()
            .iter()
            .take(16)
            .map(|byte| format!("{byte:02x}"))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::localizer::{ResourceType, ResourceVisibility};

    fn resource() -> LocalResource {
        LocalResource {
            url: "file:/s/app.jar".to_owned(),
            size: 10,
            timestamp_ms: 1_700_000_000_000,
            resource_type: ResourceType::File,
            visibility: ResourceVisibility::Application,
            pattern: String::new(),
        }
    }

    #[test]
    fn every_field_but_visibility_makes_another_copy() {
        let base = resource();
        let name = CacheKey::of(&base).dir_name();
        assert_eq!(name.len(), 32);
        assert!(name.chars().all(|c| c.is_ascii_hexdigit()));
        let same = LocalResource {
            visibility: ResourceVisibility::Public,
            ..resource()
        };
        assert_eq!(CacheKey::of(&same).dir_name(), name);
        for other in [
            LocalResource {
                url: "file:/s/other.jar".to_owned(),
                ..resource()
            },
            LocalResource {
                size: 11,
                ..resource()
            },
            LocalResource {
                timestamp_ms: 1_700_000_000_001,
                ..resource()
            },
            LocalResource {
                resource_type: ResourceType::Archive,
                ..resource()
            },
            LocalResource {
                pattern: ".*".to_owned(),
                ..resource()
            },
        ] {
            assert_ne!(CacheKey::of(&other).dir_name(), name, "{other:?}");
        }
    }
}
