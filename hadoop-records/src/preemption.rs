//! `PreemptionMessageProto`: Hadoop wraps each container id (`PreemptionContainerProto`) and
//! each resource request (`PreemptionResourceRequestProto`) in a message of its own; yarn-ha
//! lists them directly.

use yarn_proto::pb;

use crate::RecordError;
use crate::convert::Convert;
use crate::hadoop::yarn as hadoop;

/// The container ids of Hadoop's wrappers; a wrapper without an id names no container.
fn containers(
    wrapped: Vec<hadoop::PreemptionContainerProto>,
) -> Result<Vec<pb::ContainerIdProto>, RecordError> {
    wrapped
        .into_iter()
        .filter_map(|c| c.id)
        .map(Convert::from_hadoop)
        .collect()
}

fn wrap_containers(ids: &[pb::ContainerIdProto]) -> Vec<hadoop::PreemptionContainerProto> {
    ids.iter()
        .map(|id| hadoop::PreemptionContainerProto {
            id: Some(id.to_hadoop()),
        })
        .collect()
}

impl Convert for pb::PreemptionMessageProto {
    type Hadoop = hadoop::PreemptionMessageProto;

    fn from_hadoop(hadoop: Self::Hadoop) -> Result<Self, RecordError> {
        let strict_contract = match hadoop.strict_contract {
            Some(strict) => Some(pb::StrictPreemptionContractProto {
                containers: containers(strict.container)?,
            }),
            None => None,
        };
        let contract = match hadoop.contract {
            Some(contract) => Some(pb::PreemptionContractProto {
                resources: contract
                    .resource
                    .into_iter()
                    .filter_map(|r| r.resource)
                    .map(Convert::from_hadoop)
                    .collect::<Result<_, _>>()?,
                containers: containers(contract.container)?,
            }),
            None => None,
        };
        Ok(Self {
            strict_contract,
            contract,
        })
    }

    fn to_hadoop(&self) -> Self::Hadoop {
        hadoop::PreemptionMessageProto {
            strict_contract: self.strict_contract.as_ref().map(|strict| {
                hadoop::StrictPreemptionContractProto {
                    container: wrap_containers(&strict.containers),
                }
            }),
            contract: self
                .contract
                .as_ref()
                .map(|contract| hadoop::PreemptionContractProto {
                    resource: contract
                        .resources
                        .iter()
                        .map(|r| hadoop::PreemptionResourceRequestProto {
                            resource: Some(r.to_hadoop()),
                        })
                        .collect(),
                    container: wrap_containers(&contract.containers),
                }),
        }
    }
}
