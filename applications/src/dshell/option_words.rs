//! The words of a sample application's command line: Hadoop-style options read one at a time
//! (`-name value`, `--name value`, `--name=value`), numbers checked against their bounds, and
//! the quoting that carries words through a container's command line unchanged.

use std::fmt::Display;
use std::path::Path;
use std::str::FromStr;

use crate::Error;

/// One item of a command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Item<'a> {
    /// An option, by its name without dashes, with the value attached by `=` if any.
    Option {
        name: &'a str,
        attached: Option<&'a str>,
    },
    /// A word that is no option.
    Positional(&'a str),
}

/// Reads a command line's words as options and positional words.
///
/// A word is an option when it starts with `-` followed by a letter (`-num_containers`,
/// `--num_containers`, `--num_containers=2`); so `-1` is a positional word. An option's value
/// is the part after `=` or, failing that, the next word whatever it looks like, so that values
/// such as `-la` can follow their option.
#[derive(Debug)]
pub(crate) struct OptionWords<'a> {
    command: &'static str,
    words: &'a [String],
    position: usize,
}

impl<'a> OptionWords<'a> {
    /// Reads `words`, the arguments of `command` (named in errors).
    pub(crate) fn new(command: &'static str, words: &'a [String]) -> Self {
        Self {
            command,
            words,
            position: 0,
        }
    }

    /// The next item, or `None` after the last word.
    pub(crate) fn next_item(&mut self) -> Option<Item<'a>> {
        let word = self.words.get(self.position)?;
        self.position += 1;
        let name = word
            .strip_prefix("--")
            .or_else(|| word.strip_prefix('-'))
            .filter(|name| name.starts_with(|c: char| c.is_ascii_alphabetic()));
        Some(match name {
            Some(name) => match name.split_once('=') {
                Some((name, value)) => Item::Option {
                    name,
                    attached: Some(value),
                },
                None => Item::Option {
                    name,
                    attached: None,
                },
            },
            None => Item::Positional(word),
        })
    }

    /// The value of the option `name`: the attached one, else the next word.
    ///
    /// # Errors
    ///
    /// [`Error::OptionValueMissing`] when `name` was the last word.
    pub(crate) fn value(
        &mut self,
        name: &str,
        attached: Option<&'a str>,
    ) -> Result<&'a str, Error> {
        if let Some(value) = attached {
            return Ok(value);
        }
        let word = self
            .words
            .get(self.position)
            .ok_or_else(|| Error::OptionValueMissing {
                command: self.command,
                option: format!("--{name}"),
            })?;
        self.position += 1;
        Ok(word)
    }

    /// The value of a switch: `true` when given bare, else its attached `true` or `false`.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidOptionValue`] for another attached value.
    pub(crate) fn switch(&self, name: &str, attached: Option<&str>) -> Result<bool, Error> {
        match attached {
            None | Some("true") => Ok(true),
            Some("false") => Ok(false),
            Some(other) => Err(invalid(name, other, "true or false (or no value)")),
        }
    }

    /// The error for an option this command does not know, listing those it does.
    pub(crate) fn unknown(&self, name: &str, known: &'static [&'static str]) -> Error {
        Error::UnknownOption {
            command: self.command,
            option: format!("--{name}"),
            known,
        }
    }

    /// The error for a positional word this command does not take.
    pub(crate) fn unexpected(&self, word: &str) -> Error {
        Error::UnexpectedArgument {
            command: self.command,
            argument: word.to_owned(),
        }
    }
}

/// The error for `value` given to the option `name` when `expected` was wanted.
pub(crate) fn invalid(name: &str, value: &str, expected: impl Into<String>) -> Error {
    Error::InvalidOptionValue {
        option: format!("--{name}"),
        value: value.to_owned(),
        expected: expected.into(),
    }
}

/// `value` of the option `name` as a number of at least `minimum`.
///
/// # Errors
///
/// [`Error::InvalidOptionValue`] naming the option, the value and the bound.
pub(crate) fn parse_at_least<T>(name: &str, value: &str, minimum: T) -> Result<T, Error>
where
    T: FromStr + PartialOrd + Display,
{
    match value.trim().parse::<T>() {
        Ok(number) if number >= minimum => Ok(number),
        _ => Err(invalid(
            name,
            value,
            format!("a whole number of at least {minimum}"),
        )),
    }
}

/// `word` as one single-quoted shell word that reaches the process unchanged, both through the
/// NodeManager's expansion of `<LOG_DIR>`, `<CPS>`, `<ADD_OPENS>`, `{{VAR}}` (which rewrites the
/// command line before the shell sees it, quotes or not) and through the shell.
///
/// An embedded `'` becomes `'\''`. After every `<`, `{` and `}` the quotes are closed and
/// reopened (`''`): the shell joins the pieces again, while the NodeManager no longer finds its
/// markers, which never contain a quote. A command line of such words still needs
/// [`escape_for_launch_script`].
pub(crate) fn shell_word(word: &str) -> String {
    let mut quoted = String::with_capacity(word.len() + 2);
    quoted.push('\'');
    for c in word.chars() {
        match c {
            '\'' => quoted.push_str("'\\''"),
            '<' | '{' | '}' => {
                quoted.push(c);
                quoted.push_str("''");
            }
            _ => quoted.push(c),
        }
    }
    quoted.push('\'');
    quoted
}

/// `words` as one command line of [`shell_word`]s, escaped for the launch script (see
/// [`escape_for_launch_script`]), so that each word reaches the process unchanged.
pub(crate) fn shell_command_line<S: AsRef<str>>(words: &[S]) -> String {
    let line = words
        .iter()
        .map(|word| shell_word(word.as_ref()))
        .collect::<Vec<_>>()
        .join(" ");
    escape_for_launch_script(&line)
}

/// `command` as it must stand in a launch context so that bash runs it as written: the
/// NodeManager's launch script, as Hadoop's, runs the commands as
/// `exec /bin/bash -c "<commands>"`, and inside those double quotes `\`, `"`, `$` and `` ` ``
/// would be taken by the script's own shell. Each gets a `\`, which that shell removes (Spark
/// escapes its commands the same way).
pub(crate) fn escape_for_launch_script(command: &str) -> String {
    let mut escaped = String::with_capacity(command.len() + 8);
    for c in command.chars() {
        if matches!(c, '\\' | '"' | '$' | '`') {
            escaped.push('\\');
        }
        escaped.push(c);
    }
    escaped
}

/// `word` as it must be written in a launch context's command line to reach the process
/// unchanged: one quoted shell word ([`shell_word`]) escaped for the launch script
/// ([`escape_for_launch_script`]). For every client that builds such command lines (dshell, the
/// chaos harness's job, `bench allocate`).
pub fn launch_word(word: &str) -> String {
    escape_for_launch_script(&shell_word(word))
}

/// `path` as text for a command line.
///
/// # Errors
///
/// [`Error::NonUtf8Path`] naming `what` the path is, since a lossy conversion would name
/// another file.
pub(crate) fn path_text<'a>(what: &'static str, path: &'a Path) -> Result<&'a str, Error> {
    path.to_str().ok_or_else(|| Error::NonUtf8Path {
        what,
        path: path.to_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_launch_word_is_quoted_for_the_shell_and_escaped_for_the_launch_script() {
        assert_eq!(launch_word("it's"), r"'it'\\''s'");
        assert_eq!(launch_word("a\"$b`\\"), r#"'a\"\$b\`\\'"#);
    }

    fn words(text: &[&str]) -> Vec<String> {
        text.iter().map(|word| (*word).to_owned()).collect()
    }

    /// What YARN's NodeManager does to a command line before its shell runs it.
    fn nodemanager_expansion(command: &str) -> String {
        command
            .replace("<LOG_DIR>", "/nm/logs/c1")
            .replace("<CPS>", ":")
            .replace("<ADD_OPENS>", "")
            .replace("{{", "$")
            .replace("}}", "")
    }

    /// The words the launch script's last line, `exec /bin/bash -c "<command line>"`, passes
    /// to the program the command line runs.
    fn words_seen_by_the_shell(command_line: &str) -> Vec<String> {
        let printf = escape_for_launch_script("printf '%s\\0' ");
        let output = std::process::Command::new("/bin/bash")
            .arg("-c")
            .arg(format!("exec /bin/bash -c \"{printf}{command_line}\""))
            .output()
            .unwrap();
        assert!(output.status.success(), "{output:?}");
        String::from_utf8(output.stdout)
            .unwrap()
            .split_terminator('\0')
            .map(str::to_owned)
            .collect()
    }

    #[test]
    fn every_spelling_of_an_option_is_read_with_its_value() {
        let args = words(&["-a", "1", "--b", "2", "--c=3", "-d=x=y", "pos", "-7"]);
        let mut reader = OptionWords::new("test", &args);
        let mut seen = Vec::new();
        while let Some(item) = reader.next_item() {
            match item {
                Item::Option { name, attached } => {
                    let value = reader.value(name, attached).unwrap();
                    seen.push(format!("{name}={value}"));
                }
                Item::Positional(word) => seen.push(format!("({word})")),
            }
        }
        assert_eq!(seen, ["a=1", "b=2", "c=3", "d=x=y", "(pos)", "(-7)"]);
    }

    #[test]
    fn a_value_may_look_like_an_option_and_a_missing_one_is_named() {
        let args = words(&["--shell_args", "-la", "--queue"]);
        let mut reader = OptionWords::new("dshell", &args);
        let Some(Item::Option { name, attached }) = reader.next_item() else {
            panic!("an option comes first");
        };
        assert_eq!(reader.value(name, attached).unwrap(), "-la");
        let Some(Item::Option { name, attached }) = reader.next_item() else {
            panic!("an option comes second");
        };
        let err = reader.value(name, attached).unwrap_err();
        assert_eq!(err.to_string(), "option --queue of dshell needs a value");
    }

    #[test]
    fn numbers_below_their_bound_or_not_numbers_are_refused_with_the_bound() {
        assert_eq!(parse_at_least("num_containers", "3", 1u32).unwrap(), 3);
        for bad in ["0", "-1", "two", ""] {
            let err = parse_at_least("num_containers", bad, 1u32).unwrap_err();
            assert_eq!(
                err.to_string(),
                format!(
                    "invalid value {bad:?} for option --num_containers: expected a whole number \
                     of at least 1"
                )
            );
        }
    }

    #[test]
    fn quoted_words_survive_the_nodemanagers_expansion_and_the_shell_unchanged() {
        let originals = [
            "plain",
            "with spaces",
            "it's quoted \"twice\"",
            "echo $HOME `date` \\n; exit 3",
            "cat <LOG_DIR>/stdout <CPS> <ADD_OPENS> {{PWD}} awk '{if(x){print}}'",
            "back\\slash \\\" \\$x \\`",
            "",
            "-la",
        ];
        let line = nodemanager_expansion(&shell_command_line(&originals));
        assert_eq!(words_seen_by_the_shell(&line), originals);
    }
}
