//! [`AmrmProxies`]: which runs put their ApplicationMasters behind AMRMProxies.

use std::fmt;
use std::str::FromStr;

use rand::Rng;

/// Which runs put their ApplicationMasters behind their nodes' AMRMProxies.
///
/// Behind one, a node starts each AM container with the proxy's local AMRMToken and address,
/// and the AM's every call goes through the proxy's interceptor chain, which fails over between
/// the replicas on the AM's behalf; otherwise the AM calls the replicas itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum AmrmProxies {
    /// Every node runs its AMRMProxy.
    Always,
    /// No node runs one.
    Never,
    /// Each seed draws one of the two, evenly, so one batch covers both.
    #[default]
    Drawn,
}

impl AmrmProxies {
    /// Every choice.
    pub const ALL: [AmrmProxies; 3] = [Self::Drawn, Self::Always, Self::Never];

    /// The choice's name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Self::Always => "always",
            Self::Never => "never",
            Self::Drawn => "drawn",
        }
    }

    /// Whether the nodes of a run with `rng` run their AMRMProxies. Draws from `rng` whatever
    /// the choice, so that forcing it keeps the rest of a seed's run as drawn.
    pub(crate) fn decide(self, rng: &mut impl Rng) -> bool {
        let drawn = rng.random_bool(0.5);
        match self {
            Self::Always => true,
            Self::Never => false,
            Self::Drawn => drawn,
        }
    }
}

impl fmt::Display for AmrmProxies {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for AmrmProxies {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|choice| choice.name() == text)
            .ok_or_else(|| format!("unknown choice {text:?}; expected drawn, always or never"))
    }
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;
    use rand::rngs::StdRng;

    use super::*;

    #[test]
    fn choices_parse_by_name_and_a_drawn_one_varies_by_seed() {
        for choice in AmrmProxies::ALL {
            assert_eq!(choice.name().parse::<AmrmProxies>(), Ok(choice));
        }
        assert!(
            "sometimes"
                .parse::<AmrmProxies>()
                .unwrap_err()
                .contains("drawn")
        );
        let drawn: Vec<bool> = (0..32)
            .map(|seed| AmrmProxies::Drawn.decide(&mut StdRng::seed_from_u64(seed)))
            .collect();
        assert!(drawn.contains(&true) && drawn.contains(&false), "{drawn:?}");
        let mut rng = StdRng::seed_from_u64(7);
        assert!(AmrmProxies::Always.decide(&mut rng) && !AmrmProxies::Never.decide(&mut rng));
    }
}
