//! The Java exception classes a Hadoop client rebuilds from an error response.

/// A Java exception class a Hadoop IPC server names in `exceptionClassName`. The client rebuilds
/// the exception from this name (YARN's `RPCUtil` instantiates YARN's own exceptions from it),
/// so each name must be a class on a Hadoop client's classpath. New variants are added here, and
/// their names are written nowhere else.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ExceptionClass {
    /// `java.io.IOException`.
    IoException,
    /// `javax.security.sasl.SaslException`: a SASL exchange went wrong.
    SaslException,
    /// `org.apache.hadoop.ipc.IpcException`: the preamble names an unknown auth protocol.
    IpcException,
    /// `org.apache.hadoop.ipc.RPC$VersionMismatch`: another IPC or protocol version.
    VersionMismatch,
    /// `org.apache.hadoop.ipc.RpcServerException`: the IPC layer refused a request.
    RpcServerException,
    /// `org.apache.hadoop.ipc.RpcNoSuchMethodException`.
    RpcNoSuchMethodException,
    /// `org.apache.hadoop.ipc.RpcNoSuchProtocolException`.
    RpcNoSuchProtocolException,
    /// `org.apache.hadoop.ipc.StandbyException`: this ResourceManager is not the active one;
    /// Hadoop's failover proxy provider tries the next.
    StandbyException,
    /// `org.apache.hadoop.ipc.RetriableException`: try the same server again later.
    RetriableException,
    /// `org.apache.hadoop.security.AccessControlException`.
    AccessControlException,
    /// `org.apache.hadoop.security.authorize.AuthorizationException`.
    AuthorizationException,
    /// `org.apache.hadoop.security.token.SecretManager$InvalidToken`.
    InvalidToken,
    /// `org.apache.hadoop.yarn.exceptions.YarnException`, YARN's general checked exception.
    YarnException,
    /// `org.apache.hadoop.yarn.exceptions.ApplicationNotFoundException`.
    ApplicationNotFoundException,
    /// `org.apache.hadoop.yarn.exceptions.ApplicationAttemptNotFoundException`.
    ApplicationAttemptNotFoundException,
    /// `org.apache.hadoop.yarn.exceptions.ContainerNotFoundException`.
    ContainerNotFoundException,
    /// `org.apache.hadoop.yarn.exceptions.ApplicationIdNotProvidedException`.
    ApplicationIdNotProvidedException,
    /// `org.apache.hadoop.yarn.exceptions.ApplicationMasterNotRegisteredException`: the AM must
    /// register (again, after a failover) before it allocates.
    ApplicationMasterNotRegisteredException,
    /// `org.apache.hadoop.yarn.exceptions.InvalidApplicationMasterRequestException`.
    InvalidApplicationMasterRequestException,
    /// `org.apache.hadoop.yarn.exceptions.InvalidResourceRequestException`.
    InvalidResourceRequestException,
    /// `org.apache.hadoop.yarn.exceptions.InvalidContainerReleaseException`.
    InvalidContainerReleaseException,
    /// `org.apache.hadoop.yarn.exceptions.InvalidContainerException`.
    InvalidContainerException,
    /// `org.apache.hadoop.yarn.exceptions.NMNotYetReadyException`.
    NmNotYetReadyException,
    /// `org.apache.hadoop.yarn.exceptions.InvalidAuxServiceException`.
    InvalidAuxServiceException,
}

impl ExceptionClass {
    /// The fully qualified Java class name, as it goes on the wire.
    pub const fn java_name(self) -> &'static str {
        use ExceptionClass::*;
        match self {
            IoException => "java.io.IOException",
            SaslException => "javax.security.sasl.SaslException",
            IpcException => "org.apache.hadoop.ipc.IpcException",
            VersionMismatch => "org.apache.hadoop.ipc.RPC$VersionMismatch",
            RpcServerException => "org.apache.hadoop.ipc.RpcServerException",
            RpcNoSuchMethodException => "org.apache.hadoop.ipc.RpcNoSuchMethodException",
            RpcNoSuchProtocolException => "org.apache.hadoop.ipc.RpcNoSuchProtocolException",
            StandbyException => "org.apache.hadoop.ipc.StandbyException",
            RetriableException => "org.apache.hadoop.ipc.RetriableException",
            AccessControlException => "org.apache.hadoop.security.AccessControlException",
            AuthorizationException => "org.apache.hadoop.security.authorize.AuthorizationException",
            InvalidToken => "org.apache.hadoop.security.token.SecretManager$InvalidToken",
            YarnException => "org.apache.hadoop.yarn.exceptions.YarnException",
            ApplicationNotFoundException => {
                "org.apache.hadoop.yarn.exceptions.ApplicationNotFoundException"
            }
            ApplicationAttemptNotFoundException => {
                "org.apache.hadoop.yarn.exceptions.ApplicationAttemptNotFoundException"
            }
            ContainerNotFoundException => {
                "org.apache.hadoop.yarn.exceptions.ContainerNotFoundException"
            }
            ApplicationIdNotProvidedException => {
                "org.apache.hadoop.yarn.exceptions.ApplicationIdNotProvidedException"
            }
            ApplicationMasterNotRegisteredException => {
                "org.apache.hadoop.yarn.exceptions.ApplicationMasterNotRegisteredException"
            }
            InvalidApplicationMasterRequestException => {
                "org.apache.hadoop.yarn.exceptions.InvalidApplicationMasterRequestException"
            }
            InvalidResourceRequestException => {
                "org.apache.hadoop.yarn.exceptions.InvalidResourceRequestException"
            }
            InvalidContainerReleaseException => {
                "org.apache.hadoop.yarn.exceptions.InvalidContainerReleaseException"
            }
            InvalidContainerException => {
                "org.apache.hadoop.yarn.exceptions.InvalidContainerException"
            }
            NmNotYetReadyException => "org.apache.hadoop.yarn.exceptions.NMNotYetReadyException",
            InvalidAuxServiceException => {
                "org.apache.hadoop.yarn.exceptions.InvalidAuxServiceException"
            }
        }
    }
}
