//! Integration tests of the yarn-proto public API, built as one binary to save link time.

mod ids_round_trip;
mod untrusted_input;
mod wire_numbers;
