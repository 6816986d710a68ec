//! Tests of yarn-hadoop-records: the wire comparison of Hadoop's and yarn-ha's messages, the
//! hand conversions, and properties of every conversion.

mod comparison;
mod descriptors;
mod hand_converted;
mod properties;
mod wire_compat;
