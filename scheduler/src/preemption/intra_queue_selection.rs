//! [`select_within_leaf`]: the containers a leaf takes back from some of its applications for
//! others of its own, by application priority and user limit, or under `fair` by equal shares
//! (Hadoop's intra-queue preemption).

use std::cmp::{Ordering, Reverse};
use std::collections::{BTreeMap, BTreeSet};

use yarn_proto::ids::ContainerId;

use super::intra_queue_fair::select_fairly;
use crate::ordering_policy::OrderingPolicy;
use crate::preemption::{
    IntraQueueOrder, IntraQueueSettings, LeafContainers, RunningApplication, RunningContainer,
};
use crate::{Resource, ResourceCalculator};

/// Chooses the containers leaf `leaf`, whose guarantee is `guaranteed`, takes from its own
/// applications this round, in the order chosen. `taken` are the containers the round already
/// takes from the leaf for other queues: they count as gone.
///
/// A leaf under the `fair` ordering policy divides its usage into equal shares instead
/// ([`select_fairly`], which states its own order); of the guarantees below, the threshold,
/// the ApplicationMasters and the limits hold for it too. Otherwise the leaf's usage is divided
/// anew among its applications, most important first (the highest priority, then the earliest
/// submitted): each gets what it holds and asks for, within what
/// its user may still hold under its user limit and what is left. An application holding more
/// than its share gives to one holding less that asks for more: of its own user only when that
/// one has a higher priority (one user's applications of one priority never take from each
/// other), of another user of the same priority only what its user holds above its user
/// limit, and of another user of another priority freely. A starved application never takes
/// more than it lacks (but for the last container's overshoot).
///
/// Guarantees:
/// - nothing is taken from a leaf with intra-queue preemption disabled, or using less than
///   `minimum_threshold` of its guarantee (counting what it gives other queues this round);
/// - ApplicationMasters are never taken;
/// - givers go least important first (lowest priority, latest submitted); under
///   [`IntraQueueOrder::UserLimitFirst`] the applications of users above their user limit go
///   before any other, and a user gives only while what it keeps stays above its limit (so a
///   user within its limit gives nothing, even to its own more important applications);
///   within a giver, the least important and most recently allocated containers go first;
/// - a giver stops once it is down to its share (the last container may overshoot), and the
///   leaf gives at most `max_allowable_limit` of its guarantee less what it gives other queues
///   this round, and at most `allowed`: a container that does not fit in what is left of
///   either is passed over;
/// - the same inputs give the same choice.
pub fn select_within_leaf(
    leaf: &LeafContainers,
    guaranteed: Resource,
    taken: &BTreeSet<ContainerId>,
    allowed: Resource,
    cluster: Resource,
    calculator: ResourceCalculator,
    settings: &IntraQueueSettings,
) -> Vec<ContainerId> {
    if leaf.intra_queue_preemption_disabled {
        return Vec::new();
    }
    let sizes = Sizes {
        cluster,
        calculator,
    };
    let mut shares: Vec<Share> = leaf
        .applications
        .iter()
        .map(|application| Share::new(application, taken))
        .collect();
    let used = shares
        .iter()
        .fold(Resource::ZERO, |sum, share| sum.saturating_add(share.used));
    let given_across = leaf.held_by(taken);
    let threshold = guaranteed.multiply_and_round_down(settings.minimum_threshold);
    if sizes.less(used.saturating_add(given_across), threshold) || !sizes.positive(used) {
        return Vec::new();
    }
    let mut budget = guaranteed
        .multiply_and_round_down(settings.max_allowable_limit)
        .saturating_sub(given_across)
        .component_min(allowed);
    if matches!(leaf.ordering_policy, OrderingPolicy::Fair { .. }) {
        return select_fairly(leaf, &mut shares, taken, budget, &sizes);
    }
    // Most important first; reversed, least important first.
    let mut by_importance: Vec<usize> = (0..shares.len()).collect();
    by_importance.sort_by_key(|&i| {
        let application = shares[i].application;
        (Reverse(application.priority), application.id)
    });
    let mut users = Users::new(leaf, &shares);
    let mut left = used;
    for &i in &by_importance {
        let share = &mut shares[i];
        let user = share.application.user.as_str();
        share.ideal = share
            .used
            .saturating_add(share.application.pending)
            .component_min(users.room(user))
            .component_min(left);
        users.assign(user, share.ideal);
        left = left.saturating_sub(share.ideal);
    }
    let mut needs: Vec<(usize, Resource)> = by_importance
        .iter()
        .map(|&i| (i, shares[i].ideal.saturating_sub(shares[i].used)))
        .filter(|&(_, need)| sizes.positive(need))
        .collect();

    let mut givers: Vec<usize> = by_importance.iter().rev().copied().collect();
    if settings.order == IntraQueueOrder::UserLimitFirst {
        // A stable sort: within each group the least important still go first.
        givers.sort_by_key(|&i| !users.above_limit(&shares[i].application.user, &sizes));
    }
    let mut chosen = Vec::new();
    for giver in givers {
        let application = shares[giver].application;
        let user = application.user.as_str();
        let mut excess = shares[giver].used.saturating_sub(shares[giver].ideal);
        for container in shares[giver].candidates(taken) {
            if !sizes.positive(excess) {
                break;
            }
            if !calculator.fits_in(container.resource, budget) {
                continue;
            }
            let keeps_above_limit = users.above_limit_without(user, container.resource, &sizes);
            if settings.order == IntraQueueOrder::UserLimitFirst && !keeps_above_limit {
                break;
            }
            let Some(need) = needs.iter_mut().find(|(starved, need)| {
                let other = shares[*starved].application;
                let may_take = if other.user == application.user {
                    other.priority > application.priority
                } else if other.priority == application.priority {
                    keeps_above_limit
                } else {
                    true
                };
                may_take && sizes.positive(*need)
            }) else {
                break;
            };
            need.1 = need.1.saturating_sub(container.resource);
            excess = excess.saturating_sub(container.resource);
            budget = budget.saturating_sub(container.resource);
            users.give_back(user, container.resource);
            chosen.push(container.id);
        }
    }
    chosen
}

/// One application's hold on the leaf and its share of it.
pub(super) struct Share<'a> {
    pub(super) application: &'a RunningApplication,
    /// What its containers hold, less those already taken this round.
    pub(super) used: Resource,
    /// What it would hold if the leaf's usage were divided anew.
    pub(super) ideal: Resource,
}

impl<'a> Share<'a> {
    fn new(application: &'a RunningApplication, taken: &BTreeSet<ContainerId>) -> Self {
        let used = application
            .containers
            .iter()
            .filter(|c| !taken.contains(&c.id))
            .fold(Resource::ZERO, |sum, c| sum.saturating_add(c.resource));
        Self {
            application,
            used,
            ideal: Resource::ZERO,
        }
    }

    /// The containers it may give, in the order it gives them: never its ApplicationMaster
    /// nor one already `taken`, the least important and most recently allocated first.
    pub(super) fn candidates(&self, taken: &BTreeSet<ContainerId>) -> Vec<&'a RunningContainer> {
        let mut containers: Vec<&RunningContainer> = self
            .application
            .containers
            .iter()
            .filter(|c| !c.is_am && !taken.contains(&c.id))
            .collect();
        containers.sort_by_key(|c| (Reverse(c.priority), Reverse(c.id)));
        containers
    }
}

/// Each user's limit, what it holds now and what the new division gave it so far.
struct Users<'a> {
    limits: &'a BTreeMap<String, Resource>,
    used: BTreeMap<&'a str, Resource>,
    assigned: BTreeMap<&'a str, Resource>,
}

impl<'a> Users<'a> {
    fn new(leaf: &'a LeafContainers, shares: &[Share<'a>]) -> Self {
        let mut used: BTreeMap<&str, Resource> = BTreeMap::new();
        for share in shares {
            let user = used.entry(share.application.user.as_str()).or_default();
            *user = user.saturating_add(share.used);
        }
        Self {
            limits: &leaf.user_limits,
            used,
            assigned: BTreeMap::new(),
        }
    }

    /// `user`'s limit; a user the snapshot has no limit for is not limited.
    fn limit(&self, user: &str) -> Resource {
        self.limits
            .get(user)
            .copied()
            .unwrap_or(Resource::new(u64::MAX, u32::MAX))
    }

    fn room(&self, user: &str) -> Resource {
        let assigned = self.assigned.get(user).copied().unwrap_or_default();
        self.limit(user).saturating_sub(assigned)
    }

    fn assign(&mut self, user: &'a str, resource: Resource) {
        let assigned = self.assigned.entry(user).or_default();
        *assigned = assigned.saturating_add(resource);
    }

    fn give_back(&mut self, user: &'a str, resource: Resource) {
        let used = self.used.entry(user).or_default();
        *used = used.saturating_sub(resource);
    }

    fn above_limit(&self, user: &str, sizes: &Sizes) -> bool {
        self.above_limit_without(user, Resource::ZERO, sizes)
    }

    /// Whether `user` would still hold more than its limit without `resource`.
    fn above_limit_without(&self, user: &str, resource: Resource, sizes: &Sizes) -> bool {
        let used = self.used.get(user).copied().unwrap_or_default();
        sizes.greater(used.saturating_sub(resource), self.limit(user))
    }
}

/// Comparisons under the scheduler's resource calculator.
pub(super) struct Sizes {
    pub(super) cluster: Resource,
    pub(super) calculator: ResourceCalculator,
}

impl Sizes {
    fn greater(&self, a: Resource, b: Resource) -> bool {
        self.calculator.compare(self.cluster, a, b) == Ordering::Greater
    }

    fn less(&self, a: Resource, b: Resource) -> bool {
        self.calculator.compare(self.cluster, a, b) == Ordering::Less
    }

    pub(super) fn positive(&self, r: Resource) -> bool {
        self.greater(r, Resource::ZERO)
    }
}
