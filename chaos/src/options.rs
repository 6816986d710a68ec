//! [`ChaosOptions`]: what one `chaos run` does, and [`parse_duration`] for its `--duration`.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;
use yarn_minicluster::SplitMix64;

use crate::disk_mode::DiskMode;
use crate::fault::Fault;
use crate::network_mode::NetworkMode;
use crate::profile::Profile;

/// The fewest ResourceManagers a run accepts: faults on the leader need a majority to survive.
pub const MIN_RMS: usize = 3;

/// The most daemons of either kind a run starts, to keep a mistyped count from exhausting the
/// machine.
pub const MAX_DAEMONS: usize = 9;

/// How long jobs may take, by default, to finish their applications once faults are over.
pub const DEFAULT_DRAIN_DEADLINE: Duration = Duration::from_secs(90);

/// Everything one chaos run is asked to do.
#[derive(Debug, Clone, PartialEq)]
pub struct ChaosOptions {
    /// The preset the other values came from.
    pub profile: Profile,
    /// ResourceManager replicas (at least [`MIN_RMS`]).
    pub rms: usize,
    /// NodeManagers (at least one: the workload needs somewhere to run).
    pub nms: usize,
    /// How long faults are injected.
    pub duration: Duration,
    /// The faults the schedule draws from, each at most once in the list.
    pub faults: Vec<Fault>,
    /// The seed of the fault schedule and of the workload's choices.
    pub seed: u64,
    /// How many distributed-shell jobs run at once.
    pub concurrent_jobs: usize,
    /// Where the JSON report goes, besides `<dir>/report.json`.
    pub report: Option<PathBuf>,
    /// The run's directory (new or empty); a fresh one under the temporary directory when
    /// `None`. It is kept after the run: it holds the logs the report points at.
    pub dir: Option<PathBuf>,
    /// Variables added to every daemon's environment, besides the harness's own, which they
    /// inherit: `YARN_HA_FAILPOINTS` here arms failpoints in every replica of a test build.
    pub daemon_env: BTreeMap<String, String>,
    /// How long jobs may take to finish their applications once faults are over; applications
    /// then get at most as long again, and at most 60 s, to reach a final state. A run proving
    /// that a checker catches a planted bug, which can leave applications hanging, shortens it.
    pub drain_deadline: Duration,
    /// How network faults are made: proxies (no privileges) or, as root, the kernel in a
    /// network namespace of the run's own.
    pub network: NetworkMode,
    /// What the replicas' Raft storage lies on: real disks, or (root only) volatile file
    /// systems that the power-loss faults cut the power of.
    pub disks: DiskMode,
}

impl ChaosOptions {
    /// The options of `profile` with every fault, seed `seed`, no report file, a fresh
    /// directory and the proxies' network faults.
    pub fn from_profile(profile: Profile, seed: u64) -> Self {
        Self {
            profile,
            rms: profile.rms(),
            nms: profile.nms(),
            duration: profile.duration(),
            faults: Fault::ALL.to_vec(),
            seed,
            concurrent_jobs: profile.concurrent_jobs(),
            report: None,
            dir: None,
            daemon_env: BTreeMap::new(),
            drain_deadline: DEFAULT_DRAIN_DEADLINE,
            network: NetworkMode::Proxy,
            disks: DiskMode::Real,
        }
    }

    /// Checks the values that parse but cannot make a run.
    ///
    /// # Errors
    ///
    /// A message naming the value and what it must be.
    pub fn validate(&self) -> Result<(), String> {
        if !(MIN_RMS..=MAX_DAEMONS).contains(&self.rms) {
            return Err(format!(
                "--rms {}: a chaos run needs {MIN_RMS} to {MAX_DAEMONS} ResourceManagers, so \
                 that faults on the leader leave a majority",
                self.rms
            ));
        }
        if !(1..=MAX_DAEMONS).contains(&self.nms) {
            return Err(format!(
                "--nms {}: a chaos run needs 1 to {MAX_DAEMONS} NodeManagers",
                self.nms
            ));
        }
        if self.duration < Duration::from_secs(1) {
            return Err(format!(
                "--duration {:?}: faults need at least one second",
                self.duration
            ));
        }
        if self.faults.is_empty() {
            return Err("--faults names no fault; `yarn-ha chaos list` names them all".to_owned());
        }
        if self.concurrent_jobs == 0 {
            return Err("at least one job must run at a time".to_owned());
        }
        if self.drain_deadline.is_zero() {
            return Err("the drain deadline must be longer than zero".to_owned());
        }
        Ok(())
    }
}

/// A seed for a run that was given none: the wall clock's nanoseconds and the process id,
/// scrambled. Printed by every run, so the run can be repeated.
pub fn fresh_seed() -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_nanos());
    // The low 64 bits of the nanoseconds carry all the variation between runs.
    let mixed = (nanos as u64) ^ (u64::from(std::process::id()) << 32);
    SplitMix64::new(mixed).next_u64()
}

/// Parses a duration as `--duration` takes it: a whole number followed by `ms`, `s`, `m` or
/// `h` (`120s`, `2m`, `1h`, `500ms`); a bare number means seconds.
///
/// # Errors
///
/// A message quoting the text and the accepted forms.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let trimmed = text.trim();
    let split = trimmed
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(trimmed.len());
    let (number, unit) = trimmed.split_at(split);
    let invalid = || {
        format!(
            "{text:?} is not a duration; expected a whole number with ms, s, m or h (e.g. 120s)"
        )
    };
    let value: u64 = number.parse().map_err(|_| invalid())?;
    let millis = match unit {
        "ms" => Some(value),
        "" | "s" => value.checked_mul(1_000),
        "m" => value.checked_mul(60_000),
        "h" => value.checked_mul(3_600_000),
        _ => None,
    }
    .ok_or_else(invalid)?;
    Ok(Duration::from_millis(millis))
}

/// Parses `--faults`: fault names separated by commas, each known and given once.
///
/// # Errors
///
/// A message naming the unknown or repeated fault and pointing at `chaos list`.
pub fn parse_faults(text: &str) -> Result<Vec<Fault>, String> {
    let mut faults = Vec::new();
    for name in text
        .split(',')
        .map(str::trim)
        .filter(|name| !name.is_empty())
    {
        let fault: Fault = name.parse()?;
        if faults.contains(&fault) {
            return Err(format!("--faults names {name} twice"));
        }
        faults.push(fault);
    }
    Ok(faults)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_take_every_unit_and_refuse_the_rest() {
        assert_eq!(parse_duration("120s"), Ok(Duration::from_secs(120)));
        assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
        assert_eq!(parse_duration("1h"), Ok(Duration::from_secs(3600)));
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("30"), Ok(Duration::from_secs(30)));
        for bad in ["", "s", "1.5s", "10d", "-3s", "99999999999999999999h"] {
            let err = parse_duration(bad).unwrap_err();
            assert!(err.contains("not a duration"), "{bad}: {err}");
        }
    }

    #[test]
    fn fault_lists_name_known_faults_once() {
        assert_eq!(
            parse_faults("kill-leader, pause-nm"),
            Ok(vec![Fault::KillLeader, Fault::PauseNm])
        );
        assert!(
            parse_faults("kill-leader,kill-leader")
                .unwrap_err()
                .contains("twice")
        );
        assert!(parse_faults("melt-cpu").unwrap_err().contains("chaos list"));
    }

    #[test]
    fn every_profile_draws_every_fault_the_membership_change_included() {
        for profile in Profile::ALL {
            let options = ChaosOptions::from_profile(profile, 1);
            assert_eq!(options.faults, Fault::ALL, "{profile}");
            assert!(options.faults.contains(&Fault::AddRemoveRm), "{profile}");
        }
    }

    #[test]
    fn options_outside_what_a_run_can_do_are_refused_naming_the_flag() {
        let good = ChaosOptions::from_profile(Profile::Ci, 1);
        assert_eq!(good.validate(), Ok(()));
        let mut small = good.clone();
        small.rms = 1;
        assert!(small.validate().unwrap_err().contains("--rms 1"));
        let mut no_nodes = good.clone();
        no_nodes.nms = 0;
        assert!(no_nodes.validate().unwrap_err().contains("--nms 0"));
        let mut nothing = good;
        nothing.faults.clear();
        assert!(nothing.validate().unwrap_err().contains("--faults"));
    }
}
