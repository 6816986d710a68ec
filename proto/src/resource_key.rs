//! [`ResourceKey`]: a `ResourceProto` as a value that can key maps and be compared.

use crate::pb;

/// The size a `ResourceProto` describes, comparable and hashable, for telling asks and
/// containers apart by capability (a `ResourceProto` holds a map and is neither).
///
/// Two resources get the same key exactly when they ask for the same amounts: the extra
/// resource types are sorted by name and zero values dropped, since YARN counts an absent type
/// as zero. An absent resource is the zero resource. Keys order by memory, then vcores, then the
/// extra types.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ResourceKey {
    memory: i64,
    virtual_cores: i32,
    others: Vec<(String, i64)>,
}

impl ResourceKey {
    /// The key of `resource`, the zero resource when it is absent.
    pub fn of(resource: Option<&pb::ResourceProto>) -> Self {
        let Some(resource) = resource else {
            return Self {
                memory: 0,
                virtual_cores: 0,
                others: Vec::new(),
            };
        };
        let mut others: Vec<(String, i64)> = resource
            .resource_value_map
            .iter()
            .filter(|(_, value)| **value != 0)
            .map(|(name, value)| (name.clone(), *value))
            .collect();
        others.sort();
        Self {
            memory: resource.memory,
            virtual_cores: resource.virtual_cores,
            others,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resource(memory: i64, others: &[(&str, i64)]) -> pb::ResourceProto {
        pb::ResourceProto {
            memory,
            virtual_cores: 1,
            resource_value_map: others
                .iter()
                .map(|(name, value)| ((*name).to_owned(), *value))
                .collect(),
        }
    }

    #[test]
    fn zero_extra_types_count_as_absent_and_absent_resources_as_zero() {
        assert_eq!(
            ResourceKey::of(Some(&resource(1024, &[("gpu", 0)]))),
            ResourceKey::of(Some(&resource(1024, &[])))
        );
        assert_ne!(
            ResourceKey::of(Some(&resource(1024, &[("gpu", 1)]))),
            ResourceKey::of(Some(&resource(1024, &[])))
        );
        let zero = pb::ResourceProto {
            virtual_cores: 0,
            ..resource(0, &[])
        };
        assert_eq!(ResourceKey::of(None), ResourceKey::of(Some(&zero)));
    }

    #[test]
    fn keys_order_by_memory_then_vcores_then_extra_types() {
        let small = ResourceKey::of(Some(&resource(1024, &[("gpu", 2)])));
        let large = ResourceKey::of(Some(&resource(2048, &[])));
        assert!(small < large);
        let more_vcores = pb::ResourceProto {
            virtual_cores: 2,
            ..resource(1024, &[])
        };
        assert!(ResourceKey::of(Some(&more_vcores)) > small);
        assert!(small > ResourceKey::of(Some(&resource(1024, &[]))));
    }
}
