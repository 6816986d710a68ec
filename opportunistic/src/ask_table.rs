//! [`merge_asks`]: an attempt's OPPORTUNISTIC ask table after an AM's new asks.

use std::collections::BTreeSet;

use crate::{Error, OpportunisticAsk, OpportunisticContainerAllocator};

/// The ask table `current` becomes once `update`, the OPPORTUNISTIC asks of one AM request, is
/// taken in, as YARN's ask table takes them on the RM and on an AMRMProxy alike:
/// - an ask replaces the one of `current` with the same scheduler key and resource name (an AM
///   sends the full count it still wants, never a delta), and adds to the table otherwise;
/// - a count of 0 cancels its ask, and a `"*"` count of 0 its whole scheduler key;
/// - the result is checked as [`OpportunisticContainerAllocator::allocate`] checks a table.
///
/// The result lists the asks `current` kept in their order, then those of `update`.
///
/// # Errors
///
/// Those of [`OpportunisticContainerAllocator::allocate`] about asks:
/// [`Error::DuplicateAsk`] when `update` names one key and place twice, [`Error::MissingAnyAsk`]
/// for a key left without a `"*"` ask, [`Error::CapabilityMismatch`] for a host or rack ask
/// sized unlike its `"*"` ask. The caller keeps `current` then.
pub fn merge_asks(
    current: &[OpportunisticAsk],
    update: Vec<OpportunisticAsk>,
) -> Result<Vec<OpportunisticAsk>, Error> {
    let mut table: Vec<OpportunisticAsk> = current
        .iter()
        .filter(|old| !update.iter().any(|new| same_place(old, new)))
        .cloned()
        .collect();
    table.extend(update);
    let cancelled: BTreeSet<(i32, i64)> = table
        .iter()
        .filter(|ask| ask.is_any() && ask.num_containers == 0)
        .map(OpportunisticAsk::scheduler_key)
        .collect();
    table.retain(|ask| ask.num_containers > 0 && !cancelled.contains(&ask.scheduler_key()));
    // Placing on no node checks the table without touching any allocator's state.
    OpportunisticContainerAllocator::new(None).allocate(&table, &[], &BTreeSet::new())?;
    Ok(table)
}

/// Whether `a` and `b` ask at the same scheduler key and place, so that one replaces the other.
fn same_place(a: &OpportunisticAsk, b: &OpportunisticAsk) -> bool {
    a.scheduler_key() == b.scheduler_key() && a.resource_name == b.resource_name
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Resource;

    fn ask(priority: i32, name: &str, count: u32) -> OpportunisticAsk {
        OpportunisticAsk::new(priority, name, Resource::new(1024, 1), count)
    }

    fn counts(table: &[OpportunisticAsk]) -> Vec<(i32, &str, u32)> {
        table
            .iter()
            .map(|ask| (ask.priority, ask.resource_name.as_str(), ask.num_containers))
            .collect()
    }

    #[test]
    fn a_new_ask_replaces_the_one_at_its_place_and_others_stay() {
        let current = [ask(1, "*", 5), ask(1, "h1", 2), ask(2, "*", 1)];
        let table = merge_asks(&current, vec![ask(1, "*", 3), ask(3, "*", 4)]).unwrap();
        assert_eq!(
            counts(&table),
            [(1, "h1", 2), (2, "*", 1), (1, "*", 3), (3, "*", 4)],
            "replaced, not added to"
        );
    }

    #[test]
    fn a_zero_count_cancels_its_ask_and_a_zero_any_ask_its_whole_key() {
        let current = [
            ask(1, "*", 5),
            ask(1, "h1", 2),
            ask(1, "h2", 1),
            ask(2, "*", 1),
        ];
        let table = merge_asks(&current, vec![ask(1, "h2", 0)]).unwrap();
        assert_eq!(counts(&table), [(1, "*", 5), (1, "h1", 2), (2, "*", 1)]);
        let table = merge_asks(&table, vec![ask(1, "*", 0)]).unwrap();
        assert_eq!(counts(&table), [(2, "*", 1)]);
    }

    #[test]
    fn an_invalid_table_is_refused() {
        assert_eq!(
            merge_asks(&[], vec![ask(1, "h1", 1)]),
            Err(Error::MissingAnyAsk {
                priority: 1,
                allocation_request_id: -1,
            })
        );
        assert!(matches!(
            merge_asks(&[], vec![ask(1, "*", 1), ask(1, "*", 2)]),
            Err(Error::DuplicateAsk { .. })
        ));
        let mut large = ask(1, "h1", 1);
        large.capability = Resource::new(2048, 1);
        assert!(matches!(
            merge_asks(&[ask(1, "*", 1)], vec![large]),
            Err(Error::CapabilityMismatch { .. })
        ));
    }
}
