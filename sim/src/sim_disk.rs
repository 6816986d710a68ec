//! [`SimDisk`]: a simulated disk that keeps what was written apart from what was synced.

use std::collections::BTreeMap;
use std::io;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use yarn_rm_ha::storage::{BatchWrite, EngineTree, KeyValue, StorageEngine};

type Trees = BTreeMap<&'static str, BTreeMap<Vec<u8>, Vec<u8>>>;

/// One machine's disk, as the Raft stores see it through [`StorageEngine`].
///
/// Every write is visible to reads at once and joins a queue of unsynced writes;
/// [`flush`](StorageEngine::flush) waits a simulated sync latency and then makes every write
/// queued before the call durable. A [`power_loss`](Self::power_loss) keeps what was synced
/// plus a seeded prefix of the unsynced queue, as a disk that wrote some of its cache back
/// before the power went, and loses the rest. A [`crash`](Self::crash) of the process keeps,
/// besides, every write a flush handed to the kernel: under the planted
/// `plant.unsynced-appends` ([`plant_flushes_without_sync`](Self::plant_flushes_without_sync))
/// a flush stops there, as sled's own flush does, so what it covered survives a crash and not a
/// power loss. An atomic batch is kept or lost whole.
///
/// Clones share the disk; it outlives the processes that use it, as a real disk does.
#[derive(Clone, Debug)]
pub struct SimDisk {
    inner: Arc<Mutex<Disk>>,
}

#[derive(Debug)]
struct Disk {
    /// What survives a power loss.
    durable: Trees,
    /// What readers see: `durable` with every unsynced write applied.
    visible: Trees,
    /// Unsynced writes in order, each with its sequence number.
    unsynced: Vec<(u64, &'static str, Vec<BatchWrite>)>,
    next_seq: u64,
    /// Writes numbered below this are in the kernel: handed to it by a flush, or kept through
    /// a crash. A crash of the process keeps them.
    flushed_upto: u64,
    /// The planted `plant.unsynced-appends`: a flush hands writes to the kernel, never syncs.
    flush_without_sync: bool,
    /// Bounds of one sync's latency; a slow-disk fault raises them.
    sync_latency: (Duration, Duration),
    rng: StdRng,
    syncs: u64,
}

impl SimDisk {
    /// An empty disk whose sync latencies and power-loss survivors are drawn from `seed`.
    pub fn new(seed: u64) -> Self {
        Self {
            inner: Arc::new(Mutex::new(Disk {
                durable: Trees::new(),
                visible: Trees::new(),
                unsynced: Vec::new(),
                next_seq: 0,
                flushed_upto: 0,
                flush_without_sync: false,
                sync_latency: (Duration::from_micros(100), Duration::from_millis(2)),
                rng: StdRng::seed_from_u64(seed),
                syncs: 0,
            })),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Disk> {
        // Every update is complete before the lock is released, so a poisoned disk is whole.
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Cuts the power: what was synced survives, with a seeded prefix of the unsynced writes
    /// (possibly none, possibly all); the rest is gone. Returns how many unsynced writes were
    /// lost.
    pub fn power_loss(&self) -> usize {
        let mut disk = self.lock();
        let pending = disk.unsynced.len();
        let kept = disk.rng.random_range(0..=pending);
        let survivors: Vec<_> = disk.unsynced.drain(..).take(kept).collect();
        for (_, tree, writes) in survivors {
            apply(&mut disk.durable, tree, writes);
        }
        disk.visible = disk.durable.clone();
        pending - kept
    }

    /// The process using the disk crashed: what a flush handed to the kernel survives, with a
    /// seeded prefix of the writes after it (sled had written some of its buffers out); the
    /// rest is gone. Returns how many writes were lost. Without the planted bug a flush also
    /// syncs, and a crash is a [`power_loss`](Self::power_loss) exactly, as it always was, so
    /// that seeds keep their schedules and outcomes.
    pub fn crash(&self) -> usize {
        let mut disk = self.lock();
        if !disk.flush_without_sync {
            drop(disk);
            return self.power_loss();
        }
        let upto = disk.flushed_upto;
        let handed = disk
            .unsynced
            .iter()
            .take_while(|(seq, ..)| *seq < upto)
            .count();
        let pending = disk.unsynced.len() - handed;
        let kept = handed + disk.rng.random_range(0..=pending);
        disk.unsynced.truncate(kept);
        let mut visible = disk.durable.clone();
        for (_, tree, writes) in disk.unsynced.clone() {
            apply(&mut visible, tree, writes);
        }
        disk.visible = visible;
        disk.flushed_upto = disk.next_seq;
        pending - (kept - handed)
    }

    /// PLANTED BUG (`plant.unsynced-appends`): from now on a flush hands the writes before it
    /// to the kernel and syncs nothing, as sled's own flush without the fdatasync after it.
    pub fn plant_flushes_without_sync(&self) {
        self.lock().flush_without_sync = true;
    }

    /// Makes every sync take between `min` and `max` (a slow or a healthy disk).
    pub fn set_sync_latency(&self, min: Duration, max: Duration) {
        self.lock().sync_latency = (min, max.max(min));
    }

    /// How many syncs completed so far.
    pub fn syncs(&self) -> u64 {
        self.lock().syncs
    }

    /// How many writes are not synced yet.
    pub fn unsynced(&self) -> usize {
        self.lock().unsynced.len()
    }

    fn write(&self, tree: &'static str, writes: Vec<BatchWrite>) {
        let mut disk = self.lock();
        apply(&mut disk.visible, tree, writes.clone());
        let seq = disk.next_seq;
        disk.next_seq += 1;
        disk.unsynced.push((seq, tree, writes));
    }

    fn read<T>(
        &self,
        tree: &'static str,
        read: impl FnOnce(&BTreeMap<Vec<u8>, Vec<u8>>) -> T,
    ) -> T {
        let disk = self.lock();
        match disk.visible.get(tree) {
            Some(map) => read(map),
            None => read(&BTreeMap::new()),
        }
    }
}

fn apply(trees: &mut Trees, tree: &'static str, writes: Vec<BatchWrite>) {
    let map = trees.entry(tree).or_default();
    for (key, value) in writes {
        match value {
            Some(value) => map.insert(key, value),
            None => map.remove(&key),
        };
    }
}

impl StorageEngine for SimDisk {
    type Tree = SimTree;

    fn open_tree(&self, name: &'static str) -> io::Result<SimTree> {
        Ok(SimTree {
            disk: self.clone(),
            name,
        })
    }

    /// Covers the writes made before the call, not those made while it waits.
    fn flush(&self) -> impl Future<Output = io::Result<()>> + Send {
        let (upto, latency) = {
            let mut disk = self.lock();
            let (min, max) = disk.sync_latency;
            let latency = if min == max {
                min
            } else {
                disk.rng.random_range(min..max)
            };
            (disk.next_seq, latency)
        };
        let this = self.clone();
        async move {
            tokio::time::sleep(latency).await;
            let mut disk = this.lock();
            disk.flushed_upto = disk.flushed_upto.max(upto);
            if disk.flush_without_sync {
                return Ok(());
            }
            let synced = disk
                .unsynced
                .iter()
                .take_while(|(seq, ..)| *seq < upto)
                .count();
            let writes: Vec<_> = disk.unsynced.drain(..synced).collect();
            for (_, tree, writes) in writes {
                apply(&mut disk.durable, tree, writes);
            }
            disk.syncs += 1;
            Ok(())
        }
    }
}

/// A tree of a [`SimDisk`].
#[derive(Clone, Debug)]
pub struct SimTree {
    disk: SimDisk,
    name: &'static str,
}

impl EngineTree for SimTree {
    fn get(&self, key: &[u8]) -> io::Result<Option<Vec<u8>>> {
        Ok(self.disk.read(self.name, |map| map.get(key).cloned()))
    }

    fn insert(&self, key: &[u8], value: Vec<u8>) -> io::Result<()> {
        self.disk
            .write(self.name, vec![(key.to_vec(), Some(value))]);
        Ok(())
    }

    fn range(&self, first: &[u8], last: &[u8]) -> io::Result<Vec<KeyValue>> {
        if first > last {
            return Ok(Vec::new());
        }
        Ok(self.disk.read(self.name, |map| {
            map.range(first.to_vec()..=last.to_vec())
                .map(|(key, value)| (key.clone(), value.clone()))
                .collect()
        }))
    }

    fn range_keys(&self, first: &[u8], last: &[u8]) -> io::Result<Vec<Vec<u8>>> {
        if first > last {
            return Ok(Vec::new());
        }
        Ok(self.disk.read(self.name, |map| {
            map.range(first.to_vec()..=last.to_vec())
                .map(|(key, _)| key.clone())
                .collect()
        }))
    }

    fn last(&self) -> io::Result<Option<KeyValue>> {
        Ok(self.disk.read(self.name, |map| {
            map.last_key_value()
                .map(|(key, value)| (key.clone(), value.clone()))
        }))
    }

    fn apply_batch(&self, writes: Vec<BatchWrite>) -> io::Result<()> {
        self.disk.write(self.name, writes);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(n: u8) -> Vec<u8> {
        vec![n]
    }

    #[tokio::test(start_paused = true)]
    async fn synced_writes_survive_a_power_loss_and_unsynced_ones_may_not() {
        let disk = SimDisk::new(7);
        let tree = disk.open_tree("t").unwrap();
        tree.insert(&key(1), b"synced".to_vec()).unwrap();
        disk.flush().await.unwrap();
        for n in 2..50 {
            tree.insert(&key(n), b"unsynced".to_vec()).unwrap();
        }
        assert_eq!(tree.range(&key(0), &key(255)).unwrap().len(), 49);
        assert_eq!(
            tree.range_keys(&key(10), &key(12)).unwrap(),
            [key(10), key(11), key(12)]
        );
        let lost = disk.power_loss();
        let kept = tree.range(&key(0), &key(255)).unwrap();
        assert_eq!(kept.len() + lost, 49);
        assert_eq!(tree.get(&key(1)).unwrap(), Some(b"synced".to_vec()));
        // Survivors are a prefix: no later write without every earlier one.
        let keys: Vec<u8> = kept.iter().map(|(k, _)| k[0]).collect();
        assert_eq!(
            keys,
            (1..=u8::try_from(kept.len()).unwrap()).collect::<Vec<_>>()
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_batch_is_kept_or_lost_whole_and_a_flush_syncs_only_what_came_before_it() {
        let mut lost_whole = false;
        let mut kept_whole = false;
        for seed in 0..64 {
            let disk = SimDisk::new(seed);
            let tree = disk.open_tree("t").unwrap();
            tree.apply_batch((0..10).map(|n| (key(n), Some(vec![n]))).collect())
                .unwrap();
            match tree.range(&key(0), &key(255)).map(|kept| {
                disk.power_loss();
                (kept.len(), tree.range(&key(0), &key(255)).unwrap().len())
            }) {
                Ok((10, 0)) => lost_whole = true,
                Ok((10, 10)) => kept_whole = true,
                other => panic!("a batch was torn: {other:?}"),
            }
        }
        assert!(lost_whole && kept_whole, "seeds never varied the outcome");

        let disk = SimDisk::new(1);
        let tree = disk.open_tree("t").unwrap();
        tree.insert(&key(1), vec![1]).unwrap();
        let flush = disk.flush();
        tree.insert(&key(2), vec![2]).unwrap();
        flush.await.unwrap();
        assert_eq!((disk.syncs(), disk.unsynced()), (1, 1));
        let lost = disk.power_loss();
        assert_eq!(tree.get(&key(1)).unwrap(), Some(vec![1]));
        assert_eq!(tree.get(&key(2)).unwrap().is_none(), lost == 1);
    }

    #[tokio::test(start_paused = true)]
    async fn a_crash_keeps_what_a_flush_handed_over_and_a_power_loss_only_what_it_synced() {
        for planted in [false, true] {
            let mut lost = 0;
            for seed in 0..32 {
                let disk = SimDisk::new(seed);
                if planted {
                    disk.plant_flushes_without_sync();
                }
                let tree = disk.open_tree("t").unwrap();
                tree.insert(&key(1), vec![1]).unwrap();
                disk.flush().await.unwrap();
                assert_eq!(disk.crash(), 0);
                assert_eq!(
                    tree.get(&key(1)).unwrap(),
                    Some(vec![1]),
                    "planted {planted}"
                );
                disk.power_loss();
                lost += usize::from(tree.get(&key(1)).unwrap().is_none());
                assert_eq!(disk.syncs(), u64::from(!planted));
            }
            // Synced, the write survives every power loss; only handed to the kernel, some
            // power losses take it.
            assert_eq!(lost > 0, planted, "planted {planted}: lost in {lost} of 32");
        }
    }
}
