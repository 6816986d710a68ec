//! The machine a benchmark ran on, recorded beside its figures.

use serde::{Deserialize, Serialize};

/// What a reader needs to compare figures across machines: CPUs, CPU model, kernel and the
/// build profile of the binary that ran (the daemons run the same executable).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Machine {
    /// CPUs this process may use (`nproc`).
    pub cpus: usize,
    /// The first `model name` of `/proc/cpuinfo`, `unknown` where there is none.
    pub cpu_model: String,
    /// The kernel release (`uname -r`), `unknown` where it cannot be read.
    pub kernel: String,
    /// `debug` or `release`: whether debug assertions were compiled in.
    pub build_profile: String,
}

impl Machine {
    /// Describes the machine this process runs on. Never fails: what cannot be read is
    /// reported as `unknown` (or 1 CPU).
    pub fn detect() -> Self {
        let read = |path: &str| std::fs::read_to_string(path).unwrap_or_default();
        let kernel = read("/proc/sys/kernel/osrelease").trim().to_owned();
        Machine {
            cpus: std::thread::available_parallelism().map_or(1, usize::from),
            cpu_model: cpu_model(&read("/proc/cpuinfo"))
                .unwrap_or("unknown")
                .to_owned(),
            kernel: if kernel.is_empty() {
                "unknown".to_owned()
            } else {
                kernel
            },
            build_profile: if cfg!(debug_assertions) {
                "debug"
            } else {
                "release"
            }
            .to_owned(),
        }
    }
}

/// The value of the first `model name` line of `/proc/cpuinfo` text.
fn cpu_model(cpuinfo: &str) -> Option<&str> {
    cpuinfo.lines().find_map(|line| {
        let (key, value) = line.split_once(':')?;
        (key.trim() == "model name").then(|| value.trim())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cpu_model_is_the_first_model_name() {
        let cpuinfo = "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R) \
                       Processor\nflags\t\t: fpu\n\nprocessor\t: 1\nmodel name\t: Other\n";
        assert_eq!(cpu_model(cpuinfo), Some("Intel(R) Xeon(R) Processor"));
        assert_eq!(cpu_model("processor\t: 0\n"), None);
    }

    #[test]
    fn detection_reports_at_least_one_cpu_and_this_build() {
        let machine = Machine::detect();
        assert!(machine.cpus >= 1);
        assert_eq!(machine.build_profile == "debug", cfg!(debug_assertions));
    }
}
