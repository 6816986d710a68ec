//! [`OpportunisticCounts`]: the leader's counts of opportunistic containers, for operators.

/// How many opportunistic containers one leadership saw asked for and allocated.
///
/// Soft state, like YARN's RM metrics: counts start at zero on every new leader (and on a
/// replica that leads again), and a follower reports zeros.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct OpportunisticCounts {
    /// Containers newly asked for in OPPORTUNISTIC asks the RM's own allocator serves (asks of
    /// ApplicationMasterProtocol.Allocate, or that an AMRMProxy forwarded): an ask that only
    /// repeats or lowers an outstanding count adds nothing.
    pub requested_centrally: u64,
    /// OPPORTUNISTIC containers the RM's allocator placed and committed.
    pub allocated_centrally: u64,
    /// OPPORTUNISTIC containers AMRMProxies placed themselves (distributed scheduling) and the
    /// RM recorded; repeated reports of one container count once.
    pub allocated_distributed: u64,
}
