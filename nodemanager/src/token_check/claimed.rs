//! Display of an id read from a token whose signature has not verified.

use std::fmt;

/// Shows the id an unverified identifier claims, or `<none>` when it carries no readable one.
///
/// Refusals of forged tokens still name what the token claims to be for (as YARN's "Given
/// Container ... seems to have an illegally generated token" does), so an operator can find the
/// request, while making no promise that the claim is true.
pub(crate) struct Claimed<'a, T>(pub(crate) &'a Option<T>);

impl<T: fmt::Display> fmt::Display for Claimed<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(id) => id.fmt(f),
            None => f.write_str("<none>"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shows_the_id_or_none() {
        assert_eq!(Claimed(&Some(42)).to_string(), "42");
        assert_eq!(Claimed::<i32>(&None).to_string(), "<none>");
    }
}
