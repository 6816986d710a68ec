//! [`StorageEngine`]: the narrow key-value storage the Raft stores are written against.
//!
//! The replica runs on sled ([`DurableDb`]); the deterministic simulation runs the same stores
//! on a simulated disk that keeps what was written apart from what was synced, so a simulated
//! power cut loses exactly what a real one may. Everything the stores promise about durability
//! rests on [`StorageEngine::flush`].

use std::fmt::Debug;
use std::future::Future;
use std::io;

use super::DurableDb;

/// A key and its value.
pub type KeyValue = (Vec<u8>, Vec<u8>);

/// One write of an atomic batch: a value to insert under a key, or `None` to remove it.
pub type BatchWrite = (Vec<u8>, Option<Vec<u8>>);

/// A database of named trees whose writes become durable on [`flush`](Self::flush).
///
/// Contract, which the stores rely on:
/// - a read sees every write completed before it, durable or not (as the page cache does);
/// - `flush` returns once every write completed before the call is on stable storage;
/// - after a failed flush, every later flush fails too (the lost pages cannot be trusted);
/// - a crash keeps every flushed write; of the writes since, it may keep any prefix in order
///   and lose the rest, never a later write without the earlier ones. Whoever opens the stores
///   flushes first, so what a crash kept is durable before it is relied on.
///
/// Clones share the database.
pub trait StorageEngine: Clone + Debug + Send + Sync + 'static {
    /// A tree of this engine.
    type Tree: EngineTree;

    /// Opens the tree `name`, creating it on first use.
    ///
    /// # Errors
    ///
    /// The engine's I/O error.
    fn open_tree(&self, name: &'static str) -> io::Result<Self::Tree>;

    /// Returns once every write completed before the call is on stable storage.
    ///
    /// # Errors
    ///
    /// The engine's I/O error, of this flush or of an earlier one.
    fn flush(&self) -> impl Future<Output = io::Result<()>> + Send;
}

/// An ordered map of byte keys to byte values inside a [`StorageEngine`].
pub trait EngineTree: Clone + Debug + Send + Sync + 'static {
    /// The value under `key`.
    ///
    /// # Errors
    ///
    /// The engine's I/O error.
    fn get(&self, key: &[u8]) -> io::Result<Option<Vec<u8>>>;

    /// Sets `key` to `value`.
    ///
    /// # Errors
    ///
    /// The engine's I/O error.
    fn insert(&self, key: &[u8], value: Vec<u8>) -> io::Result<()>;

    /// Every key from `first` to `last` inclusive with its value, in key order.
    ///
    /// # Errors
    ///
    /// The engine's I/O error.
    fn range(&self, first: &[u8], last: &[u8]) -> io::Result<Vec<KeyValue>>;

    /// Every key from `first` to `last` inclusive, in order, without reading the values.
    ///
    /// # Errors
    ///
    /// The engine's I/O error.
    fn range_keys(&self, first: &[u8], last: &[u8]) -> io::Result<Vec<Vec<u8>>>;

    /// The greatest key with its value, `None` when the tree is empty.
    ///
    /// # Errors
    ///
    /// The engine's I/O error.
    fn last(&self) -> io::Result<Option<KeyValue>>;

    /// Applies `writes` as one unit: a reader, or a crash, sees all of them or none.
    ///
    /// # Errors
    ///
    /// The engine's I/O error; then none of the writes happened.
    fn apply_batch(&self, writes: Vec<BatchWrite>) -> io::Result<()>;
}

impl StorageEngine for DurableDb {
    type Tree = sled::Tree;

    fn open_tree(&self, name: &'static str) -> io::Result<sled::Tree> {
        Ok(self.db().open_tree(name)?)
    }

    async fn flush(&self) -> io::Result<()> {
        Ok(DurableDb::flush(self).await?)
    }
}

impl EngineTree for sled::Tree {
    fn get(&self, key: &[u8]) -> io::Result<Option<Vec<u8>>> {
        Ok(sled::Tree::get(self, key)?.map(|value| value.to_vec()))
    }

    fn insert(&self, key: &[u8], value: Vec<u8>) -> io::Result<()> {
        sled::Tree::insert(self, key, value)?;
        Ok(())
    }

    fn range(&self, first: &[u8], last: &[u8]) -> io::Result<Vec<KeyValue>> {
        sled::Tree::range(self, first..=last)
            .map(|item| {
                let (key, value) = item?;
                Ok((key.to_vec(), value.to_vec()))
            })
            .collect()
    }

    fn range_keys(&self, first: &[u8], last: &[u8]) -> io::Result<Vec<Vec<u8>>> {
        sled::Tree::range(self, first..=last)
            .keys()
            .map(|key| Ok(key?.to_vec()))
            .collect()
    }

    fn last(&self) -> io::Result<Option<KeyValue>> {
        Ok(sled::Tree::last(self)?.map(|(key, value)| (key.to_vec(), value.to_vec())))
    }

    fn apply_batch(&self, writes: Vec<BatchWrite>) -> io::Result<()> {
        let mut batch = sled::Batch::default();
        for (key, value) in writes {
            match value {
                Some(value) => batch.insert(key, value),
                None => batch.remove(key),
            }
        }
        Ok(sled::Tree::apply_batch(self, batch)?)
    }
}
