//! The NodeManager's side of the AMRMProxy: it serves the proxy on
//! `yarn.nodemanager.amrmproxy.address`, swaps the RM's AMRMToken for a local one before an AM
//! container starts, and stops an application's chain once its AM is gone.
//!
//! ```text
//!  StartContainers(AM container, RM AMRMToken in its credentials)
//!    └─ AmrmProxyHost::prepare_am_launch ─▶ AmrmProxy::init_application ─▶ local AMRMToken
//!         credentials: RM token replaced by the local one; env YARN_AMRM_PROXY_ADDRESS
//!    └─ stored and launched as any container: the AM never sees the RM token
//!  AM ══TLS══▶ proxy listener ─▶ AmrmProxy::service ─▶ chain ─▶ RM group
//! ```

mod amrm_proxy_host;
mod manager_node_context;

pub use amrm_proxy_host::AmrmProxyHost;
pub use manager_node_context::ManagerNodeContext;
