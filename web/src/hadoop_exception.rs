//! [`HadoopException`]: the exception classes Hadoop's web services name in their refusals.

/// An exception class as a `RemoteException` names it: its simple and its full name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HadoopException {
    /// The simple class name, e.g. `NotFoundException`.
    pub name: &'static str,
    /// The fully qualified Java class name.
    pub class: &'static str,
}

impl HadoopException {
    /// A request that names nothing the daemon has (404).
    pub const NOT_FOUND: Self = Self {
        name: "NotFoundException",
        class: "org.apache.hadoop.yarn.webapp.NotFoundException",
    };
    /// A request that cannot be understood (400).
    pub const BAD_REQUEST: Self = Self {
        name: "BadRequestException",
        class: "org.apache.hadoop.yarn.webapp.BadRequestException",
    };
    /// A caller that may not use the resource at all (403).
    pub const FORBIDDEN: Self = Self {
        name: "ForbiddenException",
        class: "org.apache.hadoop.yarn.webapp.ForbiddenException",
    };
    /// A caller without the right asked for, or without credentials (401 or 403).
    pub const AUTHORIZATION: Self = Self {
        name: "AuthorizationException",
        class: "org.apache.hadoop.security.authorize.AuthorizationException",
    };
    /// A daemon that cannot answer now (503).
    pub const SERVICE_UNAVAILABLE: Self = Self {
        name: "ServiceUnavailableException",
        class: "org.apache.hadoop.yarn.webapp.ServiceUnavailableException",
    };
    /// A fault of the daemon (500).
    pub const YARN_RUNTIME: Self = Self {
        name: "YarnRuntimeException",
        class: "org.apache.hadoop.yarn.exceptions.YarnRuntimeException",
    };
    /// Something the daemon does not do (501).
    pub const UNSUPPORTED: Self = Self {
        name: "UnsupportedOperationException",
        class: "java.lang.UnsupportedOperationException",
    };
}
