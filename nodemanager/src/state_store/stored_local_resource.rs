//! [`StoredLocalResource`]: the on-disk form of a container's local resource.

use serde::{Deserialize, Serialize};

use crate::localizer::{LocalResource, ResourceType, ResourceVisibility};

/// A [`LocalResource`] as postcard encodes it in a container record; like
/// [`StoredContainer`](super::stored_container::StoredContainer), its shape is part of the
/// format version.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct StoredLocalResource {
    url: String,
    size: i64,
    timestamp_ms: i64,
    resource_type: StoredResourceType,
    visibility: StoredVisibility,
    pattern: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
enum StoredResourceType {
    File,
    Archive,
    Pattern,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
enum StoredVisibility {
    Public,
    Private,
    Application,
}

impl From<&LocalResource> for StoredLocalResource {
    fn from(resource: &LocalResource) -> Self {
        Self {
            url: resource.url.clone(),
            size: resource.size,
            timestamp_ms: resource.timestamp_ms,
            resource_type: match resource.resource_type {
                ResourceType::File => StoredResourceType::File,
                ResourceType::Archive => StoredResourceType::Archive,
                ResourceType::Pattern => StoredResourceType::Pattern,
            },
            visibility: match resource.visibility {
                ResourceVisibility::Public => StoredVisibility::Public,
                ResourceVisibility::Private => StoredVisibility::Private,
                ResourceVisibility::Application => StoredVisibility::Application,
            },
            pattern: resource.pattern.clone(),
        }
    }
}

impl From<StoredLocalResource> for LocalResource {
    fn from(stored: StoredLocalResource) -> Self {
        Self {
            url: stored.url,
            size: stored.size,
            timestamp_ms: stored.timestamp_ms,
            resource_type: match stored.resource_type {
                StoredResourceType::File => ResourceType::File,
                StoredResourceType::Archive => ResourceType::Archive,
                StoredResourceType::Pattern => ResourceType::Pattern,
            },
            visibility: match stored.visibility {
                StoredVisibility::Public => ResourceVisibility::Public,
                StoredVisibility::Private => ResourceVisibility::Private,
                StoredVisibility::Application => ResourceVisibility::Application,
            },
            pattern: stored.pattern,
        }
    }
}
