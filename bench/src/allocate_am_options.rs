//! What `yarn-ha bench allocate-am` (the ApplicationMaster of `bench allocate`) asks for, and
//! how its settings travel on its command line.

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

use yarn_proto::pb;

use crate::amrm_transport::AmrmTransport;

/// The subcommand words of the ApplicationMaster, after the binary and `--conf-dir`.
pub const ALLOCATE_AM_SUBCOMMAND: [&str; 2] = ["bench", "allocate-am"];

/// The most rounds one ApplicationMaster may run (each takes at least a second).
pub const MAX_ROUNDS: usize = 1000;

/// The most containers one round may ask for.
pub const MAX_CONTAINERS: u32 = 1000;

/// The execution type every ask of one ApplicationMaster run carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AskedExecutionType {
    /// `GUARANTEED`: placed by the RM's CapacityScheduler.
    Guaranteed,
    /// `OPPORTUNISTIC`: placed by the AMRMProxy's distributed scheduler or by the RM's
    /// opportunistic allocator, whichever the cluster runs.
    Opportunistic,
}

impl AskedExecutionType {
    /// The protocol's execution type.
    pub fn to_proto(self) -> pb::ExecutionTypeProto {
        match self {
            Self::Guaranteed => pb::ExecutionTypeProto::Guaranteed,
            Self::Opportunistic => pb::ExecutionTypeProto::Opportunistic,
        }
    }
}

/// Parses `guaranteed` or `opportunistic`, ignoring ASCII case.
impl FromStr for AskedExecutionType {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "guaranteed" => Ok(Self::Guaranteed),
            "opportunistic" => Ok(Self::Opportunistic),
            _ => Err(format!(
                "--mode {s:?}: expected guaranteed or opportunistic"
            )),
        }
    }
}

/// Prints the word [`FromStr`] reads: `guaranteed` or `opportunistic`.
impl fmt::Display for AskedExecutionType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Guaranteed => "guaranteed",
            Self::Opportunistic => "opportunistic",
        })
    }
}

/// The settings of one ApplicationMaster run, named after its flags: `--mode`, `--transport`,
/// `--rounds`, `--containers`, `--out`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AllocateAmOptions {
    /// `--mode`: the execution type asked for.
    pub execution_type: AskedExecutionType,
    /// `--transport`: the RPC the ApplicationMaster speaks.
    pub transport: AmrmTransport,
    /// `--rounds`: measured rounds, after one unrecorded warm-up round.
    pub rounds: usize,
    /// `--containers`: containers asked for in each round.
    pub containers: u32,
    /// `--out`: where the samples are written as JSON, on a file system the driver reads.
    pub out: PathBuf,
}

impl AllocateAmOptions {
    /// The words after the binary and `--conf-dir` that make `yarn-ha` run this
    /// ApplicationMaster: [`ALLOCATE_AM_SUBCOMMAND`] and the five flags.
    pub fn to_args(&self) -> Vec<String> {
        let mut words: Vec<String> = ALLOCATE_AM_SUBCOMMAND.map(str::to_owned).to_vec();
        words.extend([
            "--mode".to_owned(),
            self.execution_type.to_string(),
            "--transport".to_owned(),
            self.transport.to_string(),
            "--rounds".to_owned(),
            self.rounds.to_string(),
            "--containers".to_owned(),
            self.containers.to_string(),
            "--out".to_owned(),
            self.out.to_string_lossy().into_owned(),
        ]);
        words
    }

    /// Checks the settings before the ApplicationMaster registers.
    ///
    /// # Errors
    ///
    /// A message naming the flag and value when `--rounds` is not 1 to [`MAX_ROUNDS`] or
    /// `--containers` not 1 to [`MAX_CONTAINERS`].
    pub fn validate(&self) -> anyhow::Result<()> {
        anyhow::ensure!(
            (1..=MAX_ROUNDS).contains(&self.rounds),
            "--rounds {}: the ApplicationMaster measures 1 to {MAX_ROUNDS} rounds",
            self.rounds
        );
        anyhow::ensure!(
            (1..=MAX_CONTAINERS).contains(&self.containers),
            "--containers {}: each round asks for 1 to {MAX_CONTAINERS} containers",
            self.containers
        );
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_parse_in_any_case_and_print_back() {
        for mode in [
            AskedExecutionType::Guaranteed,
            AskedExecutionType::Opportunistic,
        ] {
            assert_eq!(mode.to_string().parse::<AskedExecutionType>(), Ok(mode));
        }
        assert_eq!(
            " OPPORTUNISTIC".parse::<AskedExecutionType>(),
            Ok(AskedExecutionType::Opportunistic)
        );
        let err = "fast".parse::<AskedExecutionType>().unwrap_err();
        assert!(err.contains("--mode \"fast\""), "{err}");
        assert!(err.contains("guaranteed or opportunistic"), "{err}");
        assert_eq!(
            AskedExecutionType::Opportunistic.to_proto(),
            pb::ExecutionTypeProto::Opportunistic
        );
    }

    #[test]
    fn the_arguments_name_every_setting() {
        let options = AllocateAmOptions {
            execution_type: AskedExecutionType::Opportunistic,
            transport: AmrmTransport::HadoopIpc,
            rounds: 3,
            containers: 7,
            out: PathBuf::from("/tmp/a b/out.json"),
        };
        assert_eq!(
            options.to_args(),
            [
                "bench",
                "allocate-am",
                "--mode",
                "opportunistic",
                "--transport",
                "hadoop-ipc",
                "--rounds",
                "3",
                "--containers",
                "7",
                "--out",
                "/tmp/a b/out.json"
            ]
        );
    }

    #[test]
    fn rounds_and_containers_must_be_positive_and_bounded() {
        let options = AllocateAmOptions {
            execution_type: AskedExecutionType::Guaranteed,
            transport: AmrmTransport::Grpc,
            rounds: 1,
            containers: 1,
            out: PathBuf::from("out.json"),
        };
        options.validate().unwrap();
        for (bad, flag) in [
            (
                AllocateAmOptions {
                    rounds: 0,
                    ..options.clone()
                },
                "--rounds 0",
            ),
            (
                AllocateAmOptions {
                    rounds: MAX_ROUNDS + 1,
                    ..options.clone()
                },
                "--rounds 1001",
            ),
            (
                AllocateAmOptions {
                    containers: 0,
                    ..options.clone()
                },
                "--containers 0",
            ),
        ] {
            let err = bad.validate().unwrap_err().to_string();
            assert!(err.starts_with(flag), "{err}");
        }
    }
}
