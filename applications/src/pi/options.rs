//! The pi example's options: [`PiOptions`] (what the user asks for), [`PiAmOptions`] (what the
//! ApplicationMaster gets) and [`PiMapTask`] (what one map container runs).

use std::io::Write;
use std::path::PathBuf;

use super::halton::run_pi_map;
use super::map_result::{format_map_result, write_map_result};
use crate::Error;
use crate::dshell::{Item, OptionWords, emit, invalid, parse_at_least, path_text};

/// Hadoop's property for the share of maps to run OPPORTUNISTIC, accepted as
/// `-Dmapreduce.job.num-opportunistic-maps-percent=<p>`.
const OPPORTUNISTIC_PROPERTY: &str = "Dmapreduce.job.num-opportunistic-maps-percent";

/// How many maps estimate π with how many samples each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PiOptions {
    /// The number of map tasks, each in its own container; at least 1.
    pub maps: u32,
    /// Points each map samples; at least 1.
    pub samples: u64,
    /// The percentage of maps (rounded down) that ask for OPPORTUNISTIC containers, without
    /// enforcing it, like Hadoop's `mapreduce.job.num-opportunistic-maps-percent`; 0 to 100.
    pub opportunistic_percent: u8,
}

impl PiOptions {
    /// Reads Hadoop's `pi <maps> <samples>` with an optional `--opportunistic_percent <p>`
    /// (also spelled `-Dmapreduce.job.num-opportunistic-maps-percent=<p>`) and validates it.
    ///
    /// # Errors
    ///
    /// [`Error::OptionMissing`] without both numbers, [`Error::UnexpectedArgument`] for a
    /// third, [`Error::UnknownOption`], [`Error::OptionValueMissing`],
    /// [`Error::InvalidOptionValue`], and those of [`validate`](Self::validate).
    pub fn parse_args(args: &[String]) -> Result<Self, Error> {
        const KNOWN: &[&str] = &[
            "--opportunistic_percent",
            "-Dmapreduce.job.num-opportunistic-maps-percent",
        ];
        let mut words = OptionWords::new("pi", args);
        let mut positional = Vec::new();
        let mut opportunistic_percent = 0;
        while let Some(item) = words.next_item() {
            match item {
                Item::Option { name, attached }
                    if name == "opportunistic_percent" || name == OPPORTUNISTIC_PROPERTY =>
                {
                    let value = words.value(name, attached)?;
                    opportunistic_percent = parse_percent(value)?;
                }
                Item::Option { name, .. } => return Err(words.unknown(name, KNOWN)),
                Item::Positional(word) if positional.len() < 2 => positional.push(word),
                Item::Positional(word) => return Err(words.unexpected(word)),
            }
        }
        let [maps, samples] = positional[..] else {
            return Err(Error::OptionMissing {
                command: "pi",
                option: "the number of maps and the samples per map (pi <maps> <samples>)",
            });
        };
        let options = Self {
            maps: parse_at_least("maps", maps, 1)?,
            samples: parse_at_least("samples", samples, 1)?,
            opportunistic_percent,
        };
        options.validate()?;
        Ok(options)
    }

    /// Checks the bounds the types leave open.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidOptionValue`] for no maps, no samples, a percentage above 100, or more
    /// samples in all than a sequence index can count (`maps × samples` beyond `u64`).
    pub fn validate(&self) -> Result<(), Error> {
        if self.maps == 0 {
            return Err(invalid("maps", "0", "a whole number of at least 1"));
        }
        if self.samples == 0 {
            return Err(invalid("samples", "0", "a whole number of at least 1"));
        }
        if self.opportunistic_percent > 100 {
            return Err(invalid(
                "opportunistic_percent",
                &self.opportunistic_percent.to_string(),
                "a percentage from 0 to 100",
            ));
        }
        if u64::from(self.maps).checked_mul(self.samples).is_none() {
            return Err(invalid(
                "samples",
                &self.samples.to_string(),
                format!(
                    "at most {} samples per map with {} maps",
                    u64::MAX / u64::from(self.maps),
                    self.maps
                ),
            ));
        }
        Ok(())
    }

    /// How many maps ask for OPPORTUNISTIC containers: `maps × percent / 100`, rounded down.
    pub fn opportunistic_maps(&self) -> u32 {
        let maps = u64::from(self.maps) * u64::from(self.opportunistic_percent.min(100)) / 100;
        // At most `maps`, so it fits.
        u32::try_from(maps).unwrap_or(self.maps)
    }
}

/// A percentage from 0 to 100.
fn parse_percent(value: &str) -> Result<u8, Error> {
    match value.trim().parse::<u8>() {
        Ok(percent) if percent <= 100 => Ok(percent),
        _ => Err(invalid(
            "opportunistic_percent",
            value,
            "a percentage from 0 to 100",
        )),
    }
}

/// What the pi ApplicationMaster runs: the user's options and the result directory the maps
/// write into (see [`write_map_result`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PiAmOptions {
    /// The maps, samples and opportunistic share.
    pub pi: PiOptions,
    /// The directory, shared by every NodeManager, where map `i` writes `map-<i>`.
    pub result_dir: PathBuf,
}

impl PiAmOptions {
    /// The options as `--name=value` words for the ApplicationMaster's command line, which
    /// [`parse_am_args`](Self::parse_am_args) reads back.
    ///
    /// # Errors
    ///
    /// [`Error::NonUtf8Path`] for a result directory that is not UTF-8.
    pub fn to_am_args(&self) -> Result<Vec<String>, Error> {
        Ok(vec![
            format!("--maps={}", self.pi.maps),
            format!("--samples={}", self.pi.samples),
            format!("--opportunistic_percent={}", self.pi.opportunistic_percent),
            format!(
                "--result_dir={}",
                path_text("pi result directory", &self.result_dir)?
            ),
        ])
    }

    /// Reads the words of [`to_am_args`](Self::to_am_args).
    ///
    /// # Errors
    ///
    /// [`Error::OptionMissing`] for an absent option, [`Error::UnknownOption`],
    /// [`Error::UnexpectedArgument`], [`Error::OptionValueMissing`],
    /// [`Error::InvalidOptionValue`], and those of [`PiOptions::validate`].
    pub fn parse_am_args(args: &[String]) -> Result<Self, Error> {
        const KNOWN: &[&str] = &[
            "--maps",
            "--samples",
            "--opportunistic_percent",
            "--result_dir",
        ];
        let mut words = OptionWords::new("pi-am", args);
        let (mut maps, mut samples, mut percent, mut result_dir) = (None, None, 0, None);
        while let Some(item) = words.next_item() {
            let (name, attached) = match item {
                Item::Option { name, attached } => (name, attached),
                Item::Positional(word) => return Err(words.unexpected(word)),
            };
            if !KNOWN.contains(&format!("--{name}").as_str()) {
                return Err(words.unknown(name, KNOWN));
            }
            let value = words.value(name, attached)?;
            match name {
                "maps" => maps = Some(parse_at_least(name, value, 1)?),
                "samples" => samples = Some(parse_at_least(name, value, 1)?),
                "opportunistic_percent" => percent = parse_percent(value)?,
                _ => result_dir = Some(PathBuf::from(value)),
            }
        }
        let missing = |option| Error::OptionMissing {
            command: "pi-am",
            option,
        };
        let options = Self {
            pi: PiOptions {
                maps: maps.ok_or_else(|| missing("--maps"))?,
                samples: samples.ok_or_else(|| missing("--samples"))?,
                opportunistic_percent: percent,
            },
            result_dir: result_dir.ok_or_else(|| missing("--result_dir"))?,
        };
        options.pi.validate()?;
        Ok(options)
    }
}

/// One map container's work: sample its share of points and write the count.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PiMapTask {
    /// The map's number, from 0.
    pub index: u32,
    /// Points to sample.
    pub samples: u64,
    /// Where to write `map-<index>`.
    pub result_dir: PathBuf,
}

impl PiMapTask {
    /// The task as the words `<index> <samples> <result_dir>` of the `pi-map` subcommand.
    ///
    /// # Errors
    ///
    /// [`Error::NonUtf8Path`] for a result directory that is not UTF-8.
    pub fn to_args(&self) -> Result<Vec<String>, Error> {
        Ok(vec![
            self.index.to_string(),
            self.samples.to_string(),
            path_text("pi result directory", &self.result_dir)?.to_owned(),
        ])
    }

    /// Reads `<index> <samples> <result_dir>`.
    ///
    /// # Errors
    ///
    /// [`Error::OptionMissing`] for fewer words, [`Error::UnexpectedArgument`] for more or for
    /// an option, and [`Error::InvalidOptionValue`] for numbers out of range, including a
    /// window of the sequence that ends beyond `u64`.
    pub fn parse_args(args: &[String]) -> Result<Self, Error> {
        let [index, samples, result_dir] = args else {
            if let Some(extra) = args.get(3) {
                return Err(Error::UnexpectedArgument {
                    command: "pi-map",
                    argument: extra.clone(),
                });
            }
            return Err(Error::OptionMissing {
                command: "pi-map",
                option: "<index> <samples> <result_dir>",
            });
        };
        let task = Self {
            index: parse_at_least("index", index, 0)?,
            samples: parse_at_least("samples", samples, 1)?,
            result_dir: PathBuf::from(result_dir),
        };
        let end = u64::from(task.index)
            .checked_add(1)
            .and_then(|maps| maps.checked_mul(task.samples));
        if end.is_none() {
            return Err(invalid(
                "samples",
                samples,
                format!(
                    "at most {} samples for map {}",
                    u64::MAX / (u64::from(task.index) + 1),
                    task.index
                ),
            ));
        }
        Ok(task)
    }

    /// Counts this map's points ([`run_pi_map`]), prints `inside=<n> total=<n>` to `out` and
    /// writes it to `map-<index>` in the result directory. Returns `(inside, total)`.
    ///
    /// # Errors
    ///
    /// Those of [`write_map_result`]; [`WriteOutput`](yarn_client::Error::WriteOutput).
    pub fn run(&self, out: &mut impl Write) -> Result<(u64, u64), Error> {
        let (inside, total) = run_pi_map(self.index, self.samples);
        emit(out, &format!("{}\n", format_map_result(inside, total)))?;
        write_map_result(&self.result_dir, self.index, inside, total)?;
        Ok((inside, total))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pi::read_map_results;

    fn args(words: &[&str]) -> Vec<String> {
        words.iter().map(|word| (*word).to_owned()).collect()
    }

    #[test]
    fn hadoops_pi_arguments_are_read_with_the_opportunistic_share() {
        assert_eq!(
            PiOptions::parse_args(&args(&["10", "1000"])).unwrap(),
            PiOptions {
                maps: 10,
                samples: 1000,
                opportunistic_percent: 0
            }
        );
        for spelling in [
            &["--opportunistic_percent", "40", "10", "1000"][..],
            &[
                "10",
                "1000",
                "-Dmapreduce.job.num-opportunistic-maps-percent=40",
            ],
        ] {
            let options = PiOptions::parse_args(&args(spelling)).unwrap();
            assert_eq!(options.opportunistic_percent, 40, "{spelling:?}");
            assert_eq!(options.opportunistic_maps(), 4);
        }
    }

    #[test]
    fn the_opportunistic_share_rounds_down() {
        let options = |maps, opportunistic_percent| PiOptions {
            maps,
            samples: 1,
            opportunistic_percent,
        };
        assert_eq!(options(3, 50).opportunistic_maps(), 1);
        assert_eq!(options(3, 33).opportunistic_maps(), 0);
        assert_eq!(options(7, 100).opportunistic_maps(), 7);
        assert_eq!(options(7, 0).opportunistic_maps(), 0);
    }

    #[test]
    fn bad_pi_arguments_are_refused_naming_what_was_wrong() {
        let err = |words: &[&str]| PiOptions::parse_args(&args(words)).unwrap_err().to_string();
        assert_eq!(
            err(&["0", "10"]),
            "invalid value \"0\" for option --maps: expected a whole number of at least 1"
        );
        assert_eq!(
            err(&["2", "10", "--opportunistic_percent=101"]),
            "invalid value \"101\" for option --opportunistic_percent: expected a percentage \
             from 0 to 100"
        );
        assert_eq!(
            err(&["2"]),
            "pi needs the number of maps and the samples per map (pi <maps> <samples>)"
        );
        assert_eq!(err(&["2", "3", "4"]), "pi: unexpected argument \"4\"");
        assert!(
            err(&["4", &u64::MAX.to_string()])
                .contains("at most 4611686018427387903 samples per map with 4 maps"),
        );
    }

    #[test]
    fn the_am_and_map_args_parse_back_to_the_same_values() {
        let am = PiAmOptions {
            pi: PiOptions {
                maps: 3,
                samples: 77,
                opportunistic_percent: 34,
            },
            result_dir: PathBuf::from("/tmp/pi results/app_1"),
        };
        assert_eq!(
            PiAmOptions::parse_am_args(&am.to_am_args().unwrap()).unwrap(),
            am
        );
        let err = PiAmOptions::parse_am_args(&args(&["--maps=3", "--samples=2"])).unwrap_err();
        assert_eq!(err.to_string(), "pi-am needs --result_dir");
        let map = PiMapTask {
            index: 2,
            samples: 77,
            result_dir: PathBuf::from("/tmp/pi results/app_1"),
        };
        assert_eq!(PiMapTask::parse_args(&map.to_args().unwrap()).unwrap(), map);
        let err = PiMapTask::parse_args(&args(&["1", &u64::MAX.to_string(), "/d"])).unwrap_err();
        assert!(err.to_string().contains("samples for map 1"), "{err}");
    }

    #[test]
    fn a_map_prints_and_writes_its_count() {
        let dir = tempfile::tempdir().unwrap();
        let task = PiMapTask {
            index: 1,
            samples: 100,
            result_dir: dir.path().to_owned(),
        };
        let mut out = Vec::new();
        let (inside, total) = task.run(&mut out).unwrap();
        assert_eq!((inside, total), run_pi_map(1, 100));
        assert_eq!(
            String::from_utf8(out).unwrap(),
            format!("inside={inside} total=100\n")
        );
        PiMapTask { index: 0, ..task }.run(&mut Vec::new()).unwrap();
        assert_eq!(
            read_map_results(dir.path(), 2).unwrap(),
            (inside + run_pi_map(0, 100).0, 200)
        );
    }
}
