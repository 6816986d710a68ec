//! [`select_fairly`]: intra-queue preemption in a leaf that serves its applications under the
//! `fair` ordering policy, as Hadoop's `FifoIntraQueuePreemptionPlugin` does for a
//! `FairOrderingPolicy` leaf: every application's ideal is an equal share, not a place in
//! priority order.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet};

use yarn_proto::ids::ContainerId;

use super::intra_queue_selection::{Share, Sizes};
use crate::Resource;
use crate::preemption::LeafContainers;

/// Chooses the containers a fair leaf takes from the applications holding more than their fair
/// share for those holding less that ask for more, of no lower priority (yarn-ha's `fair`
/// serves priorities first, so room freed for a less important application would go back to a
/// more important giver that still asks).
///
/// An application's fair share is an equal part of what the leaf holds (`shares`, AMs
/// included, as Hadoop counts them under fair ordering), and no more than an equal part of its
/// user's limit among that user's applications; its ideal is that share, or what it holds and
/// asks for if less. The applications holding the most give first (the reverse of the order
/// fair serves them, the latest submitted first among equals), each its least important and
/// most recently allocated containers, never an ApplicationMaster, down to its ideal: a
/// container bigger than what it still holds above its ideal, or than what is left of `budget`,
/// is passed over for a smaller one, as in Hadoop. Together they give no more than the starved
/// applications lack (but for the last container's overshoot). A leaf with one application
/// takes nothing.
pub(super) fn select_fairly(
    leaf: &LeafContainers,
    shares: &mut [Share<'_>],
    taken: &BTreeSet<ContainerId>,
    mut budget: Resource,
    sizes: &Sizes,
) -> Vec<ContainerId> {
    if shares.len() < 2 {
        return Vec::new();
    }
    let held = shares
        .iter()
        .fold(Resource::ZERO, |sum, share| sum.saturating_add(share.used));
    let count = u64::try_from(shares.len()).unwrap_or(u64::MAX);
    let across = divide_and_ceil(held, count);
    let mut per_user: BTreeMap<&str, u64> = BTreeMap::new();
    for share in shares.iter() {
        *per_user.entry(share.application.user.as_str()).or_default() += 1;
    }
    for share in shares.iter_mut() {
        let user = share.application.user.as_str();
        let within_limit = leaf
            .user_limits
            .get(user)
            .map(|limit| divide_and_ceil(*limit, per_user.get(user).copied().unwrap_or(1)));
        let fair = within_limit.map_or(across, |within| across.component_min(within));
        share.ideal = fair.component_min(share.used.saturating_add(share.application.pending));
    }
    // What each starved application lacks, with its priority.
    let mut needs: Vec<(i32, Resource)> = shares
        .iter()
        .map(|share| {
            let need = share.ideal.saturating_sub(share.used);
            (share.application.priority, need)
        })
        .filter(|(_, need)| sizes.positive(*need))
        .collect();
    let mut givers: Vec<usize> = (0..shares.len()).collect();
    givers.sort_by_key(|&i| {
        let share = &shares[i];
        (
            Reverse(share.used.memory_mb),
            Reverse(share.used.vcores),
            Reverse(share.application.id),
        )
    });
    let mut chosen = Vec::new();
    for giver in givers {
        let share = &shares[giver];
        let priority = share.application.priority;
        let mut excess = share.used.saturating_sub(share.ideal);
        for container in share.candidates(taken) {
            let fits = |room: Resource| sizes.calculator.fits_in(container.resource, room);
            // yarn-ha's fair serves higher priorities first: room freed for a less important
            // application would go straight back to a more important giver that still asks.
            let Some(need) = needs
                .iter_mut()
                .find(|(starved, need)| *starved >= priority && sizes.positive(*need))
            else {
                break;
            };
            if !fits(excess) || !fits(budget) {
                continue;
            }
            need.1 = need.1.saturating_sub(container.resource);
            excess = excess.saturating_sub(container.resource);
            budget = budget.saturating_sub(container.resource);
            chosen.push(container.id);
        }
    }
    chosen
}

/// `resource` divided into `parts`, each part rounded up.
fn divide_and_ceil(resource: Resource, parts: u64) -> Resource {
    let parts = parts.max(1);
    Resource::new(
        resource.memory_mb.div_ceil(parts),
        u32::try_from(u64::from(resource.vcores).div_ceil(parts)).unwrap_or(u32::MAX),
    )
}
