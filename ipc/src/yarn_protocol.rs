//! The names of YARN's protocols, as Hadoop clients send them in `declaringClassProtocolName`
//! and in the connection context (each protocol's `@ProtocolInfo` name), all at version 1.

/// Clients to the ResourceManager (port 8032).
pub const APPLICATION_CLIENT_PROTOCOL: &str =
    "org.apache.hadoop.yarn.api.ApplicationClientProtocolPB";

/// ApplicationMasters to the ResourceManager or the AMRMProxy (ports 8030, 8049).
pub const APPLICATION_MASTER_PROTOCOL: &str =
    "org.apache.hadoop.yarn.api.ApplicationMasterProtocolPB";

/// ApplicationMasters to NodeManagers (port 8041).
pub const CONTAINER_MANAGEMENT_PROTOCOL: &str =
    "org.apache.hadoop.yarn.api.ContainerManagementProtocolPB";

/// Administrators to the ResourceManager (port 8033).
pub const RESOURCE_MANAGER_ADMINISTRATION_PROTOCOL: &str =
    "org.apache.hadoop.yarn.server.api.ResourceManagerAdministrationProtocolPB";

/// The `clientProtocolVersion` of every YARN protocol.
pub const YARN_PROTOCOL_VERSION: u64 = 1;
