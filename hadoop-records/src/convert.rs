//! [`Convert`]: one yarn-ha record and the Hadoop message it stands for, and the two macros that
//! implement it for records that need no hand conversion of their own.

use prost::Message;

use crate::RecordError;

/// A yarn-ha record and its Hadoop message, converted in both directions.
///
/// Guarantee: a field both define with the same meaning keeps its value; a field only one side
/// defines is dropped; every other field is converted by hand in this record's (or a nested
/// record's) implementation.
pub(crate) trait Convert: Sized {
    /// Hadoop's message.
    type Hadoop: Message + Default;

    /// Reads Hadoop's message as yarn-ha's record.
    fn from_hadoop(hadoop: Self::Hadoop) -> Result<Self, RecordError>;

    /// Writes yarn-ha's record as Hadoop's message.
    fn to_hadoop(&self) -> Self::Hadoop;
}

/// A field holding records: an optional one or a list.
pub(crate) trait Nested: Sized {
    /// The Hadoop field's type.
    type Hadoop;

    fn from_hadoop(hadoop: Self::Hadoop) -> Result<Self, RecordError>;

    fn to_hadoop(&self) -> Self::Hadoop;
}

impl<T: Convert> Nested for Option<T> {
    type Hadoop = Option<T::Hadoop>;

    fn from_hadoop(hadoop: Self::Hadoop) -> Result<Self, RecordError> {
        hadoop.map(T::from_hadoop).transpose()
    }

    fn to_hadoop(&self) -> Self::Hadoop {
        self.as_ref().map(T::to_hadoop)
    }
}

impl<T: Convert> Nested for Vec<T> {
    type Hadoop = Vec<T::Hadoop>;

    fn from_hadoop(hadoop: Self::Hadoop) -> Result<Self, RecordError> {
        hadoop.into_iter().map(T::from_hadoop).collect()
    }

    fn to_hadoop(&self) -> Self::Hadoop {
        self.iter().map(T::to_hadoop).collect()
    }
}

/// Records converted by re-encoding alone: every field they reach agrees with Hadoop's.
macro_rules! transcoded {
    ($($record:ident),* $(,)?) => {$(
        impl $crate::convert::Convert for ::yarn_proto::pb::$record {
            type Hadoop = $crate::hadoop::yarn::$record;

            fn from_hadoop(hadoop: Self::Hadoop) -> Result<Self, $crate::RecordError> {
                $crate::transcode::transcode(&hadoop)
            }

            fn to_hadoop(&self) -> Self::Hadoop {
                $crate::transcode::to_hadoop(self)
            }
        }
    )*};
}

/// Records whose own fields agree with Hadoop's but that hold records converted by hand: those
/// fields (`hadoop_name => yarn_name`) are taken out, converted through [`Nested`], and put
/// back; the rest is re-encoded.
macro_rules! nested {
    ($($record:ident { $($hadoop_field:ident => $yarn_field:ident),+ $(,)? })*) => {$(
        impl $crate::convert::Convert for ::yarn_proto::pb::$record {
            type Hadoop = $crate::hadoop::yarn::$record;

            fn from_hadoop(mut hadoop: Self::Hadoop) -> Result<Self, $crate::RecordError> {
                $(let $hadoop_field = ::std::mem::take(&mut hadoop.$hadoop_field);)+
                let mut record: Self = $crate::transcode::transcode(&hadoop)?;
                $(record.$yarn_field = $crate::convert::Nested::from_hadoop($hadoop_field)?;)+
                Ok(record)
            }

            fn to_hadoop(&self) -> Self::Hadoop {
                let mut rest = self.clone();
                $(rest.$yarn_field = Default::default();)+
                let mut hadoop: Self::Hadoop = $crate::transcode::to_hadoop(&rest);
                $(hadoop.$hadoop_field = $crate::convert::Nested::to_hadoop(&self.$yarn_field);)+
                hadoop
            }
        }
    )*};
}

pub(crate) use {nested, transcoded};
