//! [`AskKey`]: what makes two `ResourceRequestProto`s the same ask.

use yarn_proto::{ResourceKey, pb};

/// What makes two asks the same ask, as the RM keys them: a later ask with the same key
/// replaces the earlier one.
///
/// The key is the priority, the allocation request id, the resource name, the execution type
/// (UNSPECIFIED read as GUARANTEED, which is what the RM makes of it) and the capability as a
/// [`ResourceKey`]. Keys order by those fields in that order, so a table keyed by them lists an
/// application's asks by priority first.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct AskKey {
    priority: i32,
    allocation_request_id: i64,
    resource_name: String,
    /// `ExecutionTypeProto` with UNSPECIFIED read as GUARANTEED.
    execution_type: i32,
    capability: ResourceKey,
}

impl AskKey {
    /// The key of `request`; an absent priority counts as 0.
    pub fn of(request: &pb::ResourceRequestProto) -> Self {
        let execution_type = request
            .execution_type_request
            .as_ref()
            .map_or(0, |wanted| wanted.execution_type);
        Self {
            priority: request.priority.as_ref().map_or(0, |p| p.priority),
            allocation_request_id: request.allocation_request_id,
            resource_name: request.resource_name.clone(),
            execution_type: normalize_execution_type(execution_type),
            capability: ResourceKey::of(request.capability.as_ref()),
        }
    }

    /// Whether `container` may have been allocated against an ask of this key at
    /// `resource_name`: the key names that place, and the container has the key's priority and
    /// allocation request id (an absent one is YARN's -1). Execution type and capability are
    /// not compared: the RM may round a capability up, and callers choose how strictly to match
    /// the execution type.
    pub fn may_place(&self, container: &pb::ContainerProto, resource_name: &str) -> bool {
        self.priority == container.priority.as_ref().map_or(0, |p| p.priority)
            && self.allocation_request_id == container.allocation_request_id.unwrap_or(-1)
            && self.resource_name == resource_name
    }

    /// Whether `container` runs with this key's execution type (UNSPECIFIED read as
    /// GUARANTEED on both sides).
    pub fn has_execution_type_of(&self, container: &pb::ContainerProto) -> bool {
        self.execution_type == normalize_execution_type(container.execution_type)
    }

    /// The capability the key asks for.
    pub fn capability(&self) -> &ResourceKey {
        &self.capability
    }

    /// The ask `container` is charged to among `candidates`, the asks (key and request) it
    /// [may have been placed against](Self::may_place): first one of its own execution type
    /// and capability, then one of its own type, then, of the asks of the other type that do
    /// not enforce it, one of its capability, then any. `None` when no candidate qualifies.
    ///
    /// An ask with `enforce_execution_type` is only ever answered by containers of exactly its
    /// type. Without it an OPPORTUNISTIC ask may get GUARANTEED containers: an RM that
    /// allocates no OPPORTUNISTIC containers serves it that way. The RM may round a capability
    /// up, so a different capability still matches.
    pub fn charged_for<'a>(
        candidates: impl IntoIterator<Item = (&'a AskKey, &'a pb::ResourceRequestProto)>,
        container: &pb::ContainerProto,
    ) -> Option<&'a AskKey> {
        let capability = ResourceKey::of(container.resource.as_ref());
        candidates
            .into_iter()
            .filter_map(|(key, request)| {
                let same_capability = key.capability == capability;
                let rank = if key.has_execution_type_of(container) {
                    u8::from(!same_capability)
                } else if enforces_execution_type(request) {
                    return None;
                } else {
                    2 + u8::from(!same_capability)
                };
                Some((rank, key))
            })
            // The first of the best rank, in the candidates' order.
            .min_by_key(|(rank, _)| *rank)
            .map(|(_, key)| key)
    }
}

/// Whether `request` asks for containers of exactly its execution type.
fn enforces_execution_type(request: &pb::ResourceRequestProto) -> bool {
    request
        .execution_type_request
        .as_ref()
        .is_some_and(|wanted| wanted.enforce_execution_type)
}

/// UNSPECIFIED means GUARANTEED, so the two name the same ask.
fn normalize_execution_type(execution_type: i32) -> i32 {
    if execution_type == pb::ExecutionTypeProto::ExecutionTypeUnspecified as i32 {
        pb::ExecutionTypeProto::Guaranteed as i32
    } else {
        execution_type
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ask(
        priority: i32,
        name: &str,
        execution_type: pb::ExecutionTypeProto,
    ) -> pb::ResourceRequestProto {
        pb::ResourceRequestProto {
            priority: Some(pb::PriorityProto { priority }),
            resource_name: name.to_owned(),
            execution_type_request: Some(pb::ExecutionTypeRequestProto {
                execution_type: execution_type as i32,
                enforce_execution_type: false,
            }),
            ..Default::default()
        }
    }

    fn container(priority: i32, allocation_request_id: Option<i64>) -> pb::ContainerProto {
        pb::ContainerProto {
            priority: Some(pb::PriorityProto { priority }),
            allocation_request_id,
            ..Default::default()
        }
    }

    #[test]
    fn unspecified_and_guaranteed_execution_types_make_the_same_key() {
        let unspecified = ask(1, "*", pb::ExecutionTypeProto::ExecutionTypeUnspecified);
        let guaranteed = ask(1, "*", pb::ExecutionTypeProto::Guaranteed);
        let opportunistic = ask(1, "*", pb::ExecutionTypeProto::Opportunistic);
        assert_eq!(AskKey::of(&unspecified), AskKey::of(&guaranteed));
        assert_ne!(AskKey::of(&opportunistic), AskKey::of(&guaranteed));
        assert!(AskKey::of(&guaranteed).has_execution_type_of(&container(1, Some(0))));
        assert!(!AskKey::of(&opportunistic).has_execution_type_of(&container(1, Some(0))));
    }

    #[test]
    fn a_container_is_placed_against_its_priority_request_id_and_place_only() {
        let key = AskKey::of(&ask(1, "h1", pb::ExecutionTypeProto::Guaranteed));
        assert!(key.may_place(&container(1, Some(0)), "h1"));
        assert!(!key.may_place(&container(1, Some(0)), "*"));
        assert!(!key.may_place(&container(2, Some(0)), "h1"));
        assert!(
            !key.may_place(&container(1, None), "h1"),
            "an absent allocation request id is -1, not the ask's 0"
        );
    }

    #[test]
    fn a_container_of_another_type_answers_only_an_unenforced_ask() {
        let enforced = |enforce| pb::ResourceRequestProto {
            execution_type_request: Some(pb::ExecutionTypeRequestProto {
                execution_type: pb::ExecutionTypeProto::Opportunistic as i32,
                enforce_execution_type: enforce,
            }),
            ..ask(1, "*", pb::ExecutionTypeProto::Opportunistic)
        };
        let guaranteed = container(1, Some(0));
        let strict = enforced(true);
        let loose = enforced(false);
        let key = AskKey::of(&strict);
        assert_eq!(AskKey::charged_for([(&key, &strict)], &guaranteed), None);
        assert_eq!(
            AskKey::charged_for([(&key, &loose)], &guaranteed),
            Some(&key)
        );
        // Its own type comes first, whatever the order.
        let own_request = ask(1, "*", pb::ExecutionTypeProto::Guaranteed);
        let own = AskKey::of(&own_request);
        assert_eq!(
            AskKey::charged_for([(&key, &loose), (&own, &own_request)], &guaranteed),
            Some(&own)
        );
    }

    #[test]
    fn keys_order_by_priority_before_place() {
        let early = AskKey::of(&ask(1, "h9", pb::ExecutionTypeProto::Guaranteed));
        let late = AskKey::of(&ask(2, "*", pb::ExecutionTypeProto::Guaranteed));
        assert!(early < late);
    }
}
