//! [`Mutation`]: one small corruption of an encoded message, as a proptest strategy. Applied to
//! a valid encoding it reaches deeper into a decoder than random bytes do.

use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::Index;

/// A change to a byte string: one byte's bits flipped, the bytes cut short, or one byte
/// inserted.
#[derive(Debug, Clone)]
pub enum Mutation {
    /// XOR the byte at `at` with `mask` (never zero).
    Flip { at: Index, mask: u8 },
    /// Keep the bytes before `at`.
    Truncate { at: Index },
    /// Insert `byte` at `at`.
    Insert { at: Index, byte: u8 },
}

impl Mutation {
    /// Applies the change to `bytes`; a flip of an empty string changes nothing.
    pub fn apply(&self, bytes: &mut Vec<u8>) {
        match self {
            Mutation::Flip { at, mask } if !bytes.is_empty() => {
                let at = at.index(bytes.len());
                bytes[at] ^= mask;
            }
            Mutation::Flip { .. } => {}
            Mutation::Truncate { at } => bytes.truncate(at.index(bytes.len() + 1)),
            Mutation::Insert { at, byte } => bytes.insert(at.index(bytes.len() + 1), *byte),
        }
    }
}

/// One to three mutations, applied in order.
pub fn mutations() -> impl Strategy<Value = Vec<Mutation>> {
    let mutation = prop_oneof![
        (any::<Index>(), 1..=u8::MAX).prop_map(|(at, mask)| Mutation::Flip { at, mask }),
        any::<Index>().prop_map(|at| Mutation::Truncate { at }),
        (any::<Index>(), any::<u8>()).prop_map(|(at, byte)| Mutation::Insert { at, byte }),
    ];
    vec(mutation, 1..4)
}

#[cfg(test)]
mod tests {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;

    use super::*;

    #[test]
    fn every_mutation_changes_or_keeps_bytes_as_it_says() {
        let mut runner = TestRunner::deterministic();
        for _ in 0..200 {
            let changes = mutations().new_tree(&mut runner).unwrap().current();
            let mut bytes = vec![1_u8, 2, 3, 4];
            for change in &changes {
                let before = bytes.clone();
                change.apply(&mut bytes);
                match change {
                    Mutation::Flip { .. } if before.is_empty() => assert!(bytes.is_empty()),
                    Mutation::Flip { .. } => assert_ne!(bytes, before),
                    Mutation::Truncate { .. } => assert!(before.starts_with(&bytes)),
                    Mutation::Insert { .. } => assert_eq!(bytes.len(), before.len() + 1),
                }
            }
        }
    }
}
