//! [`QueueLimits`]: the pure arithmetic behind user limits, AM limits and headroom.

use crate::Resource;
use crate::resource_calculator::ResourceCalculator;

/// A leaf queue's figures at one moment, from which YARN's per-user and AM limits follow.
///
/// Every method is pure arithmetic on these fields (no state), mirroring YARN's `UsersManager`
/// and `LeafQueue` formulas so the numbers match what a Hadoop operator expects.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct QueueLimits {
    /// The scheduler's calculator.
    pub calculator: ResourceCalculator,
    /// Total cluster resources.
    pub cluster: Resource,
    /// The queue's guarantee: absolute capacity times the cluster.
    pub guaranteed: Resource,
    /// The queue's hard limit: absolute maximum capacity times the cluster.
    pub maximum: Resource,
    /// What the queue may use right now: its maximum, further limited by what its ancestors
    /// have left (YARN's "queue current limit").
    pub current_limit: Resource,
    /// Resources the queue's containers use now.
    pub used: Resource,
    /// The minimum allocation, which is also the rounding step.
    pub minimum_allocation: Resource,
    /// `minimum-user-limit-percent`.
    pub minimum_user_limit_percent: f64,
    /// `user-limit-factor` (-1 = no cap other than the queue maximum).
    pub user_limit_factor: f64,
    /// `maximum-am-resource-percent` as a fraction.
    pub maximum_am_resource_percent: f64,
}

impl QueueLimits {
    /// The limit shared by users before weights, as YARN's `UsersManager.computeUserLimit`:
    ///
    /// ```text
    /// queue_capacity   = max(guaranteed, minimum_allocation)
    /// current_capacity = queue_capacity            if used < queue_capacity
    ///                    used + minimum_allocation otherwise
    /// limit = max(ceil(users_used / users_weight), floor(current_capacity * mulp) / 100)
    /// limit = round_up(min(limit, queue_capacity * user_limit_factor), minimum_allocation)
    /// ```
    ///
    /// For the limit applied when allocating and in headroom, `users_used` is what the active
    /// users (those with pending asks) use plus one minimum allocation and `users_weight` their
    /// summed weights; for the limit reported per user in queue info, `users_used` is
    /// `current_capacity` (pass `None`) and the weight sums all users. A user-limit factor of
    /// -1 caps at the queue maximum instead.
    pub fn user_limit(&self, users_used: Option<Resource>, users_weight: f64) -> Resource {
        let calculator = self.calculator;
        let cluster = self.cluster;
        let required = self.minimum_allocation;
        let queue_capacity = calculator.max(cluster, self.guaranteed, required);
        let consumed = calculator.round_up(self.used, required);
        let current_capacity = if calculator
            .compare(cluster, consumed, queue_capacity)
            .is_lt()
        {
            queue_capacity
        } else {
            consumed.saturating_add(required)
        };
        let users_used = match users_used {
            Some(active_used) => active_used.saturating_add(required),
            None => current_capacity,
        };
        let by_users = calculator.divide_and_ceil(users_used, users_weight);
        let by_percent = calculator.divide_and_ceil(
            current_capacity.multiply_and_round_down(self.minimum_user_limit_percent),
            100.0,
        );
        let limit = calculator.max(cluster, by_users, by_percent);
        let cap = if self.user_limit_factor == -1.0 {
            self.maximum
        } else {
            queue_capacity.multiply_and_round_down(self.user_limit_factor)
        };
        calculator.round_up(calculator.min(cluster, limit, cap), required)
    }

    /// One user's share of a shared `limit`: the limit times the user's `weight`, rounded down
    /// to the minimum allocation.
    pub fn weighted_user_limit(&self, limit: Resource, weight: f64) -> Resource {
        self.calculator
            .multiply_and_normalize_down(limit, weight, self.minimum_allocation)
    }

    /// The queue's AM limit, as YARN's `calculateAndGetAMResourceLimitPerPartition`:
    /// `maximum-am-resource-percent` of the current limit (or of the guarantee when the
    /// current limit is smaller), rounded up to the minimum allocation.
    pub fn am_limit(&self) -> Resource {
        let usable = if self.calculator.fits_in(self.guaranteed, self.current_limit) {
            self.current_limit
        } else {
            self.guaranteed
        };
        self.calculator.multiply_and_normalize_up(
            usable,
            self.maximum_am_resource_percent,
            self.minimum_allocation,
        )
    }

    /// One user's AM limit, as YARN's `getUserAMResourceLimitPerPartition`: the guarantee
    /// times the AM percentage times the effective user share
    /// `min(max(mulp / 100, 1 / active_users) * weight, 1)` times the user-limit factor, never
    /// above the queue's [`am_limit`](Self::am_limit).
    pub fn user_am_limit(&self, active_users: usize, weight: f64) -> Resource {
        let share = (self.minimum_user_limit_percent / 100.0).max(1.0 / active_users.max(1) as f64);
        let share = (share * weight).min(1.0);
        let fraction = if self.user_limit_factor == -1.0 {
            self.maximum_am_resource_percent
        } else {
            self.maximum_am_resource_percent * share * self.user_limit_factor
        };
        let limit = self.calculator.multiply_and_normalize_up(
            self.guaranteed,
            fraction,
            self.minimum_allocation,
        );
        self.calculator.min(self.cluster, limit, self.am_limit())
    }

    /// What a user may still get, as YARN's `LeafQueue.getHeadroom`: the smaller (per
    /// dimension) of the user's unused limit and the queue's unused current limit, rounded down
    /// to the minimum allocation, then capped by the cluster's free resources.
    pub fn headroom(
        &self,
        user_limit: Resource,
        user_used: Resource,
        cluster_free: Resource,
    ) -> Resource {
        let headroom = user_limit
            .saturating_sub(user_used)
            .component_min(self.current_limit.saturating_sub(self.used));
        let headroom = self
            .calculator
            .round_down(headroom, self.minimum_allocation);
        self.calculator.min(self.cluster, cluster_free, headroom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A queue guaranteed 10 GiB of a 100 GiB cluster, like TestLeafQueue's single-queue
    /// set-ups.
    fn limits(used_mb: u64, mulp: f64, ulf: f64) -> QueueLimits {
        QueueLimits {
            calculator: ResourceCalculator::Default,
            cluster: Resource::new(100 * 1024, 100),
            guaranteed: Resource::new(10 * 1024, 10),
            maximum: Resource::new(100 * 1024, 100),
            current_limit: Resource::new(100 * 1024, 100),
            used: Resource::new(used_mb, 1),
            minimum_allocation: Resource::new(1024, 1),
            minimum_user_limit_percent: mulp,
            user_limit_factor: ulf,
            maximum_am_resource_percent: 0.1,
        }
    }

    fn gib(r: Resource) -> u64 {
        r.memory_mb / 1024
    }

    #[test]
    fn one_user_gets_the_queue_capacity_times_the_factor() {
        let l = limits(0, 100.0, 1.0);
        assert_eq!(gib(l.user_limit(Some(Resource::ZERO), 1.0)), 10);
        let l = limits(0, 100.0, 2.0);
        // Below capacity the limit is the capacity itself, even with a larger factor.
        assert_eq!(gib(l.user_limit(Some(Resource::ZERO), 1.0)), 10);
        // Over capacity the limit grows with usage, up to capacity * factor.
        let l = limits(15 * 1024, 100.0, 2.0);
        assert_eq!(
            gib(l.user_limit(Some(Resource::new(15 * 1024, 15)), 1.0)),
            16
        );
        let l = limits(25 * 1024, 100.0, 2.0);
        assert_eq!(
            gib(l.user_limit(Some(Resource::new(25 * 1024, 25)), 1.0)),
            20
        );
        let l = limits(25 * 1024, 100.0, -1.0);
        assert_eq!(
            gib(l.user_limit(Some(Resource::new(25 * 1024, 25)), 1.0)),
            26
        );
    }

    #[test]
    fn two_and_four_users_split_by_minimum_user_limit_percent() {
        // mulp 25: with two active users using 4 GiB, each may have max(5/2, 10*25%) -> 3 GiB.
        let l = limits(4 * 1024, 25.0, 1.0);
        assert_eq!(gib(l.user_limit(Some(Resource::new(4 * 1024, 4)), 2.0)), 3);
        // As the two users consume more, the split by user count dominates.
        let l = limits(9 * 1024, 25.0, 1.0);
        assert_eq!(gib(l.user_limit(Some(Resource::new(9 * 1024, 9)), 2.0)), 5);
        // With four users the 25% floor (2.5 GiB, rounded up to 3) dominates early on.
        let l = limits(4 * 1024, 25.0, 1.0);
        assert_eq!(gib(l.user_limit(Some(Resource::new(4 * 1024, 4)), 4.0)), 3);
        // All-users limit for headroom: current capacity over the number of users.
        let l = limits(0, 25.0, 1.0);
        assert_eq!(gib(l.user_limit(None, 4.0)), 3);
        assert_eq!(gib(l.user_limit(None, 2.0)), 5);
    }

    #[test]
    fn weights_scale_a_users_share() {
        let l = limits(0, 50.0, 1.0);
        let shared = l.user_limit(Some(Resource::ZERO), 2.0);
        assert_eq!(gib(shared), 5);
        assert_eq!(gib(l.weighted_user_limit(shared, 1.5)), 7);
        assert_eq!(gib(l.weighted_user_limit(shared, 0.5)), 2);
    }

    #[test]
    fn am_limits_follow_the_percentages() {
        let l = limits(0, 100.0, 1.0);
        // 10% of the 100 GiB current limit.
        assert_eq!(gib(l.am_limit()), 10);
        // The user AM limit starts from the 10 GiB guarantee: 10% of it, rounded up.
        assert_eq!(gib(l.user_am_limit(1, 1.0)), 1);
        let mut small = l;
        small.current_limit = Resource::new(5 * 1024, 5);
        assert_eq!(
            gib(small.am_limit()),
            1,
            "guarantee used when the limit is lower"
        );
    }

    #[test]
    fn headroom_is_the_tighter_of_user_and_queue_room_capped_by_free_resources() {
        let mut l = limits(6 * 1024, 100.0, 1.0);
        l.current_limit = Resource::new(8 * 1024, 8);
        let free = Resource::new(50 * 1024, 50);
        assert_eq!(
            gib(l.headroom(
                Resource::new(10 * 1024, 10),
                Resource::new(3 * 1024, 3),
                free
            )),
            2
        );
        assert_eq!(
            gib(l.headroom(
                Resource::new(10 * 1024, 10),
                Resource::ZERO,
                Resource::new(1024, 1)
            )),
            1
        );
    }
}
