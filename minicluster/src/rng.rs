//! [`SplitMix64`]: seeded random numbers of our own, for the chaos harness's fault schedules
//! and workload and for the benchmarks' simulation.

/// Steele, Lea and Flood's SplitMix64 generator: a 64-bit counter advanced by the golden-ratio
/// increment, each value scrambled by two xor-shift-multiply rounds.
///
/// The harnesses use their own generator rather than `rand`'s `StdRng` because a fault
/// schedule (or a simulated run) must come out the same for a seed in every future build, and
/// `StdRng` reserves the right to change its algorithm between releases. SplitMix64 is tiny,
/// passes BigCrush, and has no state besides the counter; it is not for cryptography.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A generator whose sequence is fixed by `seed`.
    pub fn new(seed: u64) -> Self {
        Self { state: seed }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `low..=high` (`low` when `high < low`). The modulo bias is below 2^-40 for
    /// the ranges the harness draws (at most a few hours in milliseconds) and does not matter
    /// for spacing faults.
    pub fn between(&mut self, low: u64, high: u64) -> u64 {
        if high <= low {
            return low;
        }
        let span = high - low + 1;
        low + self.next_u64() % span
    }

    /// An independent generator for another purpose (the workload's choices, say), so that
    /// drawing more numbers for one purpose never shifts the other's sequence.
    pub fn fork(&mut self) -> Self {
        Self::new(self.next_u64())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sequence_is_fixed_by_the_seed() {
        // The reference values of SplitMix64 for seed 0, so a change of algorithm is caught.
        let mut rng = SplitMix64::new(0);
        assert_eq!(rng.next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(rng.next_u64(), 0x6E78_9E6A_A1B9_65F4);
        let a: Vec<u64> = (0..5).map(|_| SplitMix64::new(42).next_u64()).collect();
        assert!(a.iter().all(|v| *v == a[0]));
        assert_ne!(SplitMix64::new(1).next_u64(), SplitMix64::new(2).next_u64());
    }

    #[test]
    fn between_stays_in_range_and_reaches_both_ends() {
        let mut rng = SplitMix64::new(7);
        let draws: Vec<u64> = (0..1000).map(|_| rng.between(3, 6)).collect();
        assert!(draws.iter().all(|v| (3..=6).contains(v)));
        assert!(draws.contains(&3) && draws.contains(&6));
        assert_eq!(rng.between(9, 2), 9);
    }
}
