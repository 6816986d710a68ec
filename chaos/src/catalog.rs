//! `chaos list`: every fault and invariant, one line each.

use crate::fault::Fault;
use crate::invariants::Invariant;

/// The text `yarn-ha chaos list` prints: a `faults:` section and an `invariants:` section, one
/// line per item with its name and description.
pub fn catalog() -> String {
    let width = Fault::ALL
        .iter()
        .map(|fault| fault.name().len())
        .chain(
            Invariant::ALL
                .iter()
                .map(|invariant| invariant.name().len()),
        )
        .max()
        .unwrap_or(0);
    let mut text = String::from("faults:\n");
    for fault in Fault::ALL {
        text.push_str(&format!(
            "  {:<width$}  {}\n",
            fault.name(),
            fault.description()
        ));
    }
    text.push_str("invariants:\n");
    for invariant in Invariant::ALL {
        text.push_str(&format!(
            "  {:<width$}  {}\n",
            invariant.name(),
            invariant.description()
        ));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_catalog_names_every_fault_and_invariant_on_its_own_line() {
        let text = catalog();
        for fault in Fault::ALL {
            assert_eq!(
                text.lines()
                    .filter(|line| line.trim_start().starts_with(&format!("{} ", fault.name())))
                    .count(),
                1,
                "{fault}: {text}"
            );
        }
        for invariant in Invariant::ALL {
            assert!(text.contains(invariant.name()), "{invariant}");
        }
        assert_eq!(
            text.lines().count(),
            Fault::ALL.len() + Invariant::ALL.len() + 2
        );
    }
}
