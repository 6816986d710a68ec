//! [`FileData`]: the contents of one regular file of a volatile disk, as readers see them and
//! as a power loss would leave them.

/// The largest a file may grow: the harness holds two copies of every file in memory, and a
/// write at an absurd offset must fail (EFBIG) rather than exhaust it.
pub const MAX_FILE_BYTES: u64 = 1 << 30;

/// A write or truncation past [`MAX_FILE_BYTES`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TooLarge;

/// The contents of a regular file: what readers see, and what survives a power loss.
///
/// Guarantees: after [`sync`](Self::sync), [`lose_unsynced`](Self::lose_unsynced) leaves the
/// contents exactly as they were at the sync; every byte that changed since (written,
/// zero-filled by an extension, or cut by a truncation) goes back to its synced value.
#[derive(Debug, Default)]
pub(crate) struct FileData {
    current: Vec<u8>,
    durable: Vec<u8>,
    /// Byte ranges changed since the last sync, in order; adjacent ranges are merged.
    dirty: Vec<(u64, u64)>,
}

impl FileData {
    /// What readers see.
    pub(crate) fn contents(&self) -> &[u8] {
        &self.current
    }

    /// The length readers see.
    pub(crate) fn len(&self) -> u64 {
        self.current.len() as u64
    }

    fn mark(&mut self, start: u64, end: u64) {
        match self.dirty.last_mut() {
            Some(last) if last.1 == start => last.1 = end,
            _ => self.dirty.push((start, end)),
        }
    }

    /// Writes `data` at `offset`, zero-filling any gap past the end.
    pub(crate) fn write(&mut self, offset: u64, data: &[u8]) -> Result<(), TooLarge> {
        let end = offset.checked_add(data.len() as u64).ok_or(TooLarge)?;
        if end > MAX_FILE_BYTES {
            return Err(TooLarge);
        }
        let old = self.len();
        if offset > old {
            // The zeros between the old end and the write are new contents too: a sync must
            // make them durable over whatever a truncation left behind there.
            self.mark(old, offset);
        }
        if end > old {
            self.current.resize(end as usize, 0);
        }
        self.current[offset as usize..end as usize].copy_from_slice(data);
        self.mark(offset, end);
        Ok(())
    }

    /// Truncates or zero-extends the file to `len` bytes.
    pub(crate) fn set_len(&mut self, len: u64) -> Result<(), TooLarge> {
        if len > MAX_FILE_BYTES {
            return Err(TooLarge);
        }
        let old = self.len();
        if len > old {
            self.mark(old, len);
        }
        self.current.resize(len as usize, 0);
        Ok(())
    }

    /// Whether every byte readers see is durable.
    pub(crate) fn is_synced(&self) -> bool {
        self.dirty.is_empty() && self.current.len() == self.durable.len()
    }

    /// Bytes written since the last sync (overlapping writes counted each time).
    pub(crate) fn unsynced_bytes(&self) -> u64 {
        self.dirty.iter().map(|(start, end)| end - start).sum()
    }

    /// Makes what readers see durable, copying only the ranges changed since the last sync.
    pub(crate) fn sync(&mut self) {
        self.durable.resize(self.current.len(), 0);
        let len = self.len();
        for &(start, end) in &self.dirty {
            let (start, end) = (start.min(len) as usize, end.min(len) as usize);
            self.durable[start..end].copy_from_slice(&self.current[start..end]);
        }
        self.dirty.clear();
    }

    /// Drops what was not synced; returns how many bytes that was: those written since the
    /// sync, or the change in length if that is more.
    pub(crate) fn lose_unsynced(&mut self) -> u64 {
        let written = self.unsynced_bytes();
        let resized = self.current.len().abs_diff(self.durable.len()) as u64;
        self.current.clone_from(&self.durable);
        self.dirty.clear();
        written.max(resized)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn synced(data: &[u8]) -> FileData {
        let mut file = FileData::default();
        file.write(0, data).unwrap();
        file.sync();
        file
    }

    #[test]
    fn a_write_past_a_truncation_syncs_the_zeros_between() {
        let mut file = synced(b"ABCDEFGH");
        file.set_len(4).unwrap();
        file.write(6, b"X").unwrap();
        assert_eq!(file.contents(), b"ABCD\0\0X");
        file.sync();
        assert!(file.is_synced());
        file.write(0, b"Z").unwrap();
        file.lose_unsynced();
        assert_eq!(file.contents(), b"ABCD\0\0X");
    }

    #[test]
    fn an_extension_after_a_truncation_syncs_zeros() {
        let mut file = synced(b"ABCDEFGH");
        file.set_len(2).unwrap();
        file.set_len(6).unwrap();
        file.sync();
        file.write(0, b"Z").unwrap();
        file.lose_unsynced();
        assert_eq!(file.contents(), b"AB\0\0\0\0");
    }

    #[test]
    fn an_unsynced_truncation_and_extension_are_undone_alike() {
        let mut file = synced(b"ABCDEFGH");
        file.set_len(3).unwrap();
        file.write(10, b"tail").unwrap();
        // The zeros from 3 to 10 and the four bytes written count; the length grew by 6.
        assert_eq!(file.lose_unsynced(), 11);
        assert_eq!(file.contents(), b"ABCDEFGH");
        assert!(file.is_synced());
    }

    #[test]
    fn files_past_the_limit_are_refused() {
        let mut file = FileData::default();
        assert_eq!(file.write(MAX_FILE_BYTES, b"x"), Err(TooLarge));
        assert_eq!(file.write(u64::MAX, b"x"), Err(TooLarge));
        assert_eq!(file.set_len(MAX_FILE_BYTES + 1), Err(TooLarge));
        assert_eq!(file.len(), 0);
    }
}
