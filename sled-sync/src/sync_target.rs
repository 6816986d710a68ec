//! [`SyncTarget`]: what a [`GroupCommit`](crate::GroupCommit) makes durable.

/// Something whose completed writes one blocking call makes durable.
pub trait SyncTarget: Send + Sync + 'static {
    /// Makes every write that completed before this call durable, blocking until it is.
    ///
    /// # Errors
    ///
    /// The storage error that kept the writes from stable storage. After one, the target is
    /// not trusted again (see [`GroupCommit`](crate::GroupCommit)).
    fn sync(&self) -> sled::Result<()>;
}
