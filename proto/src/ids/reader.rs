//! Reading the separated components of Hadoop's id strings, with errors that name the id kind,
//! the whole input and the component at fault.

use std::str::FromStr;

use crate::error::{IdKind, IdProblem, ProtoError};

/// Integer types an id component parses into.
pub(crate) trait IdNumber: FromStr {
    /// The largest value the type holds, reported when a component overflows it.
    const MAX: u64;
}

impl IdNumber for i32 {
    const MAX: u64 = i32::MAX as u64;
}

impl IdNumber for i64 {
    const MAX: u64 = i64::MAX as u64;
}

impl IdNumber for u16 {
    const MAX: u64 = u16::MAX as u64;
}

/// A cursor over the components of one id string.
pub(crate) struct IdReader<'a> {
    kind: IdKind,
    input: &'a str,
    separator: char,
    /// The text after the components read so far; `None` once the last one was taken.
    rest: Option<&'a str>,
}

impl<'a> IdReader<'a> {
    /// Starts reading `input`, which must begin with `prefix` (separator included, if any).
    pub(crate) fn new(
        kind: IdKind,
        input: &'a str,
        prefix: &'static str,
        separator: char,
    ) -> Result<Self, ProtoError> {
        let reader = Self {
            kind,
            input,
            separator,
            rest: None,
        };
        if input.is_empty() {
            return Err(reader.fail(IdProblem::Empty));
        }
        match input.strip_prefix(prefix) {
            Some(rest) => Ok(Self {
                rest: Some(rest),
                ..reader
            }),
            None => Err(reader.fail(IdProblem::WrongPrefix { prefix })),
        }
    }

    /// Takes the next component, which must be present and non-empty.
    pub(crate) fn component(&mut self, part: &'static str) -> Result<&'a str, ProtoError> {
        let Some(rest) = self.rest else {
            return Err(self.fail(IdProblem::MissingPart { part }));
        };
        let (head, tail) = match rest.split_once(self.separator) {
            Some((head, tail)) => (head, Some(tail)),
            None => (rest, None),
        };
        self.rest = tail;
        if head.is_empty() {
            return Err(self.fail(IdProblem::MissingPart { part }));
        }
        Ok(head)
    }

    /// Takes the next component as a non-negative decimal number.
    pub(crate) fn number<T: IdNumber>(&mut self, part: &'static str) -> Result<T, ProtoError> {
        let text = self.component(part)?;
        self.parse_number(part, text)
    }

    /// Reads `text`, a component already taken, as a non-negative decimal number no larger than
    /// `max`.
    pub(crate) fn bounded(
        &self,
        part: &'static str,
        text: &str,
        max: i64,
    ) -> Result<i64, ProtoError> {
        let value: i64 = self.parse_number(part, text)?;
        if value > max {
            return Err(self.fail(IdProblem::TooLarge {
                part,
                text: text.to_owned(),
                max: max.unsigned_abs(),
            }));
        }
        Ok(value)
    }

    /// Reads `text`, a component already taken, as a non-negative decimal number. Only ASCII
    /// digits are accepted: no sign, no spaces, no underscores.
    pub(crate) fn parse_number<T: IdNumber>(
        &self,
        part: &'static str,
        text: &str,
    ) -> Result<T, ProtoError> {
        let all_digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
        if !all_digits(text) {
            let problem = match text.strip_prefix('-') {
                Some(magnitude) if all_digits(magnitude) => IdProblem::Negative {
                    part,
                    text: text.to_owned(),
                },
                _ => IdProblem::NotANumber {
                    part,
                    text: text.to_owned(),
                },
            };
            return Err(self.fail(problem));
        }
        // Only digits are left, so overflow is the one way parsing can still fail.
        text.parse::<T>().map_err(|_| {
            self.fail(IdProblem::TooLarge {
                part,
                text: text.to_owned(),
                max: T::MAX,
            })
        })
    }

    /// Checks that nothing follows the last component.
    pub(crate) fn finish(self) -> Result<(), ProtoError> {
        match self.rest {
            None => Ok(()),
            Some(rest) => Err(self.fail(IdProblem::TrailingText {
                text: format!("{}{rest}", self.separator),
            })),
        }
    }

    /// The error for `problem` in this input.
    pub(crate) fn fail(&self, problem: IdProblem) -> ProtoError {
        ProtoError::MalformedId {
            kind: self.kind,
            input: self.input.to_owned(),
            problem,
        }
    }
}
