//! [`AmrmTransport`]: which RPC the ApplicationMaster of `bench allocate` speaks.

use std::fmt;
use std::str::FromStr;

/// How the ApplicationMaster of `bench allocate` reaches the ApplicationMasterProtocol.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum AmrmTransport {
    /// yarn-ha's gRPC over mutual TLS, through yarn-client's `AmRmClient` (failover, resync).
    #[default]
    Grpc,
    /// Hadoop's own RPC (IPC version 9) with SASL TOKEN, as Hadoop's AMRMClient speaks it on
    /// the RM's shared scheduler port (`yarn.hadoop-ipc.enabled`), requests and answers in
    /// Hadoop's encoding.
    HadoopIpc,
}

/// Parses `grpc` or `hadoop-ipc`, ignoring ASCII case.
impl FromStr for AmrmTransport {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "grpc" => Ok(Self::Grpc),
            "hadoop-ipc" => Ok(Self::HadoopIpc),
            _ => Err(format!("--transport {s:?}: expected grpc or hadoop-ipc")),
        }
    }
}

/// Prints the word [`FromStr`] reads: `grpc` or `hadoop-ipc`.
impl fmt::Display for AmrmTransport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Grpc => "grpc",
            Self::HadoopIpc => "hadoop-ipc",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transports_parse_in_any_case_and_print_back() {
        for transport in [AmrmTransport::Grpc, AmrmTransport::HadoopIpc] {
            assert_eq!(transport.to_string().parse(), Ok(transport));
        }
        assert_eq!(" Hadoop-IPC".parse(), Ok(AmrmTransport::HadoopIpc));
        let err = "http".parse::<AmrmTransport>().unwrap_err();
        assert!(err.contains("grpc or hadoop-ipc"), "{err}");
    }
}
