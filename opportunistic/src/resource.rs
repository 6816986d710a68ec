//! [`Resource`]: the size of one opportunistic container.

use std::fmt;

/// An amount of memory in MiB and virtual cores, the two standard YARN resource types.
///
/// The allocator never does arithmetic on it: it only carries the size an ask gave to the
/// placements made for that ask, and compares sizes for equality when validating asks.
///
/// Prints as YARN does: `<memory:1024, vCores:1>`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Resource {
    /// Memory in MiB.
    pub memory_mb: u64,
    /// Virtual cores.
    pub vcores: u32,
}

impl Resource {
    /// Builds a resource from its two dimensions.
    pub const fn new(memory_mb: u64, vcores: u32) -> Self {
        Self { memory_mb, vcores }
    }
}

impl fmt::Display for Resource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "<memory:{}, vCores:{}>", self.memory_mb, self.vcores)
    }
}
