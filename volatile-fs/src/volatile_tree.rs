//! [`VolatileTree`]: the files and directories of a volatile disk, and which bytes of each file
//! would survive a power loss.

use std::collections::{BTreeMap, HashMap};
use std::ffi::{OsStr, OsString};
use std::time::SystemTime;

use crate::file_data::{FileData, TooLarge};

/// The inode of the tree's root directory (FUSE's root inode number).
pub const ROOT: u64 = 1;

/// Why an operation on the tree failed; the FUSE shell maps each to one errno.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum TreeError {
    /// No such file, directory or inode.
    #[error("no such file or directory")]
    NotFound,
    /// The name is taken.
    #[error("the name exists")]
    Exists,
    /// A directory was expected.
    #[error("not a directory")]
    NotDirectory,
    /// A regular file was expected.
    #[error("is a directory")]
    IsDirectory,
    /// The directory still has entries.
    #[error("the directory is not empty")]
    NotEmpty,
    /// A directory would be moved into itself, or the root removed.
    #[error("invalid argument")]
    Invalid,
    /// A file would grow past [`MAX_FILE_BYTES`](crate::MAX_FILE_BYTES).
    #[error("file too large")]
    TooLarge,
}

impl From<TooLarge> for TreeError {
    fn from(TooLarge: TooLarge) -> Self {
        TreeError::TooLarge
    }
}

/// What an inode is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A directory.
    Directory,
    /// A regular file.
    File,
}

/// An inode's attributes, as `stat` reports them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Attr {
    /// The inode number.
    pub ino: u64,
    /// File or directory.
    pub kind: Kind,
    /// The size a reader sees now (synced or not); 0 for directories.
    pub size: u64,
    /// Permission bits.
    pub perm: u16,
    /// Names that refer to it (0 for a removed file still open).
    pub nlink: u32,
    /// The last change of its contents or entries.
    pub mtime: SystemTime,
}

/// What a power loss dropped.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LostWrites {
    /// Files whose contents went back to what was last synced.
    pub files: usize,
    /// Per file, the bytes changed since its last sync (written or zero-filled) or the change
    /// in its length, whichever is more; summed over the files.
    pub bytes: u64,
}

#[derive(Debug)]
enum Body {
    Directory {
        parent: u64,
        entries: BTreeMap<OsString, u64>,
    },
    File(FileData),
}

#[derive(Debug)]
struct Inode {
    body: Body,
    perm: u16,
    nlink: u32,
    /// Open handles; a removed file lives on until the last is released.
    open: u32,
    mtime: SystemTime,
}

impl Inode {
    fn attr(&self, ino: u64) -> Attr {
        let (kind, size) = match &self.body {
            Body::Directory { .. } => (Kind::Directory, 0),
            Body::File(data) => (Kind::File, data.len()),
        };
        Attr {
            ino,
            kind,
            size,
            perm: self.perm,
            nlink: self.nlink,
            mtime: self.mtime,
        }
    }
}

/// An in-memory file system whose file contents are volatile until synced, as on a disk with
/// a write cache: writes are seen at once by every reader, a sync (`fsync`, `fdatasync`) of a
/// file makes its contents durable, and [`power_loss`](Self::power_loss) puts every file back
/// to its contents at its last sync, dropping every write since.
///
/// Guarantees: a byte written before a file's last sync is read back after any power loss; a
/// byte written after it is not (a power loss keeps none of the unsynced writes, the most a
/// disk may lose). Names (creating, renaming, removing files and directories) are durable at
/// once, as on a file system that commits its metadata synchronously: only data is volatile.
#[derive(Debug)]
pub struct VolatileTree {
    inodes: HashMap<u64, Inode>,
    next_ino: u64,
}

impl Default for VolatileTree {
    fn default() -> Self {
        Self::new()
    }
}

impl VolatileTree {
    /// An empty tree: the root directory alone.
    pub fn new() -> Self {
        let root = Inode {
            body: Body::Directory {
                parent: ROOT,
                entries: BTreeMap::new(),
            },
            perm: 0o755,
            nlink: 2,
            open: 0,
            mtime: SystemTime::now(),
        };
        Self {
            inodes: HashMap::from([(ROOT, root)]),
            next_ino: ROOT + 1,
        }
    }

    fn inode(&self, ino: u64) -> Result<&Inode, TreeError> {
        self.inodes.get(&ino).ok_or(TreeError::NotFound)
    }

    fn inode_mut(&mut self, ino: u64) -> Result<&mut Inode, TreeError> {
        self.inodes.get_mut(&ino).ok_or(TreeError::NotFound)
    }

    fn entries(&self, dir: u64) -> Result<&BTreeMap<OsString, u64>, TreeError> {
        match &self.inode(dir)?.body {
            Body::Directory { entries, .. } => Ok(entries),
            Body::File(_) => Err(TreeError::NotDirectory),
        }
    }

    fn entries_mut(&mut self, dir: u64) -> Result<&mut BTreeMap<OsString, u64>, TreeError> {
        let inode = self.inode_mut(dir)?;
        inode.mtime = SystemTime::now();
        match &mut inode.body {
            Body::Directory { entries, .. } => Ok(entries),
            Body::File(_) => Err(TreeError::NotDirectory),
        }
    }

    fn file_mut(&mut self, ino: u64) -> Result<&mut FileData, TreeError> {
        let inode = self.inode_mut(ino)?;
        inode.mtime = SystemTime::now();
        match &mut inode.body {
            Body::File(data) => Ok(data),
            Body::Directory { .. } => Err(TreeError::IsDirectory),
        }
    }

    /// The attributes of `ino`.
    ///
    /// # Errors
    ///
    /// [`TreeError::NotFound`] for an unknown inode.
    pub fn attr(&self, ino: u64) -> Result<Attr, TreeError> {
        Ok(self.inode(ino)?.attr(ino))
    }

    /// The attributes of the entry `name` of directory `parent`.
    ///
    /// # Errors
    ///
    /// [`TreeError::NotFound`] or [`TreeError::NotDirectory`].
    pub fn lookup(&self, parent: u64, name: &OsStr) -> Result<Attr, TreeError> {
        let ino = *self.entries(parent)?.get(name).ok_or(TreeError::NotFound)?;
        self.attr(ino)
    }

    /// Creates an empty file or directory `name` in `parent`.
    ///
    /// # Errors
    ///
    /// [`TreeError::Exists`] when the name is taken; [`TreeError::NotFound`] or
    /// [`TreeError::NotDirectory`] for a bad parent.
    pub fn create(
        &mut self,
        parent: u64,
        name: &OsStr,
        kind: Kind,
        perm: u16,
    ) -> Result<Attr, TreeError> {
        if self.entries(parent)?.contains_key(name) {
            return Err(TreeError::Exists);
        }
        let ino = self.next_ino;
        self.next_ino += 1;
        let (body, nlink) = match kind {
            Kind::Directory => (
                Body::Directory {
                    parent,
                    entries: BTreeMap::new(),
                },
                2,
            ),
            Kind::File => (Body::File(FileData::default()), 1),
        };
        let inode = Inode {
            body,
            perm,
            nlink,
            open: 0,
            mtime: SystemTime::now(),
        };
        let attr = inode.attr(ino);
        self.inodes.insert(ino, inode);
        self.entries_mut(parent)?.insert(name.to_owned(), ino);
        Ok(attr)
    }

    /// Removes the file `name` from `parent`; its inode lives on while it is open.
    ///
    /// # Errors
    ///
    /// [`TreeError::NotFound`], or [`TreeError::IsDirectory`] for a directory.
    pub fn unlink(&mut self, parent: u64, name: &OsStr) -> Result<(), TreeError> {
        let ino = *self.entries(parent)?.get(name).ok_or(TreeError::NotFound)?;
        if self.attr(ino)?.kind == Kind::Directory {
            return Err(TreeError::IsDirectory);
        }
        self.entries_mut(parent)?.remove(name);
        self.drop_link(ino);
        Ok(())
    }

    /// Removes the empty directory `name` from `parent`.
    ///
    /// # Errors
    ///
    /// [`TreeError::NotFound`], [`TreeError::NotDirectory`] or [`TreeError::NotEmpty`].
    pub fn rmdir(&mut self, parent: u64, name: &OsStr) -> Result<(), TreeError> {
        let ino = *self.entries(parent)?.get(name).ok_or(TreeError::NotFound)?;
        if !self.entries(ino)?.is_empty() {
            return Err(TreeError::NotEmpty);
        }
        self.entries_mut(parent)?.remove(name);
        self.inodes.remove(&ino);
        Ok(())
    }

    /// Moves `name` of `parent` to `new_name` of `new_parent`, replacing a file there or an
    /// empty directory, unless `no_replace`.
    ///
    /// # Errors
    ///
    /// [`TreeError::NotFound`] for a missing source, [`TreeError::Exists`] for a taken target
    /// under `no_replace`, [`TreeError::NotEmpty`], [`TreeError::IsDirectory`] or
    /// [`TreeError::NotDirectory`] when the target cannot be replaced by the source,
    /// [`TreeError::Invalid`] for a directory moved under itself.
    pub fn rename(
        &mut self,
        parent: u64,
        name: &OsStr,
        new_parent: u64,
        new_name: &OsStr,
        no_replace: bool,
    ) -> Result<(), TreeError> {
        let ino = *self.entries(parent)?.get(name).ok_or(TreeError::NotFound)?;
        let moved = self.attr(ino)?.kind;
        if moved == Kind::Directory && self.is_within(new_parent, ino) {
            return Err(TreeError::Invalid);
        }
        if let Some(&target) = self.entries(new_parent)?.get(new_name) {
            if target == ino {
                return Ok(());
            }
            if no_replace {
                return Err(TreeError::Exists);
            }
            match (moved, self.attr(target)?.kind) {
                (Kind::File, Kind::File) => {
                    self.entries_mut(new_parent)?.remove(new_name);
                    self.drop_link(target);
                }
                (Kind::Directory, Kind::Directory) => self.rmdir(new_parent, new_name)?,
                (Kind::File, Kind::Directory) => return Err(TreeError::IsDirectory),
                (Kind::Directory, Kind::File) => return Err(TreeError::NotDirectory),
            }
        }
        self.entries_mut(parent)?.remove(name);
        self.entries_mut(new_parent)?
            .insert(new_name.to_owned(), ino);
        if let Body::Directory { parent, .. } = &mut self.inode_mut(ino)?.body {
            *parent = new_parent;
        }
        Ok(())
    }

    /// Whether directory `dir` is `ancestor` or lies under it.
    fn is_within(&self, mut dir: u64, ancestor: u64) -> bool {
        loop {
            if dir == ancestor {
                return true;
            }
            match self.inodes.get(&dir).map(|inode| &inode.body) {
                Some(Body::Directory { parent, .. }) if *parent != dir => dir = *parent,
                _ => return false,
            }
        }
    }

    fn drop_link(&mut self, ino: u64) {
        if let Some(inode) = self.inodes.get_mut(&ino) {
            inode.nlink = inode.nlink.saturating_sub(1);
        }
        self.free_if_unused(ino);
    }

    /// Frees `ino` once no name refers to it and no handle holds it open.
    fn free_if_unused(&mut self, ino: u64) {
        if self
            .inodes
            .get(&ino)
            .is_some_and(|inode| inode.nlink == 0 && inode.open == 0)
        {
            self.inodes.remove(&ino);
        }
    }

    /// Counts an open handle of `ino`.
    ///
    /// # Errors
    ///
    /// [`TreeError::NotFound`] for an unknown inode.
    pub fn open(&mut self, ino: u64) -> Result<(), TreeError> {
        self.inode_mut(ino)?.open += 1;
        Ok(())
    }

    /// Releases an open handle of `ino`, freeing a removed file with its last handle.
    pub fn release(&mut self, ino: u64) {
        if let Some(inode) = self.inodes.get_mut(&ino) {
            inode.open = inode.open.saturating_sub(1);
        }
        self.free_if_unused(ino);
    }

    /// Up to `size` bytes of file `ino` from `offset` (fewer at its end).
    ///
    /// # Errors
    ///
    /// [`TreeError::NotFound`] or [`TreeError::IsDirectory`].
    pub fn read(&self, ino: u64, offset: u64, size: u32) -> Result<&[u8], TreeError> {
        match &self.inode(ino)?.body {
            Body::File(data) => {
                let contents = data.contents();
                let len = contents.len();
                let start = usize::try_from(offset).unwrap_or(usize::MAX).min(len);
                let end = start.saturating_add(size as usize).min(len);
                Ok(&contents[start..end])
            }
            Body::Directory { .. } => Err(TreeError::IsDirectory),
        }
    }

    /// Writes `data` into file `ino` at `offset`, extending it with zeros as needed. Volatile
    /// until the file is synced.
    ///
    /// # Errors
    ///
    /// [`TreeError::NotFound`], [`TreeError::IsDirectory`], or [`TreeError::TooLarge`] past
    /// [`MAX_FILE_BYTES`](crate::MAX_FILE_BYTES).
    pub fn write(&mut self, ino: u64, offset: u64, data: &[u8]) -> Result<(), TreeError> {
        Ok(self.file_mut(ino)?.write(offset, data)?)
    }

    /// Truncates or extends file `ino` to `len` bytes. Volatile until the file is synced.
    ///
    /// # Errors
    ///
    /// [`TreeError::NotFound`], [`TreeError::IsDirectory`], or [`TreeError::TooLarge`] past
    /// [`MAX_FILE_BYTES`](crate::MAX_FILE_BYTES).
    pub fn set_len(&mut self, ino: u64, len: u64) -> Result<(), TreeError> {
        Ok(self.file_mut(ino)?.set_len(len)?)
    }

    /// Sets the permission bits of `ino`.
    ///
    /// # Errors
    ///
    /// [`TreeError::NotFound`].
    pub fn set_perm(&mut self, ino: u64, perm: u16) -> Result<(), TreeError> {
        self.inode_mut(ino)?.perm = perm;
        Ok(())
    }

    /// Makes the contents of file `ino` durable (`fsync`, `fdatasync`); a directory has nothing
    /// to sync, as its entries are durable at once.
    ///
    /// # Errors
    ///
    /// [`TreeError::NotFound`].
    pub fn sync(&mut self, ino: u64) -> Result<(), TreeError> {
        if let Body::File(data) = &mut self.inode_mut(ino)?.body {
            data.sync();
        }
        Ok(())
    }

    /// The entries of directory `dir`, `.` and `..` first, then by name, with their inodes and
    /// kinds.
    ///
    /// # Errors
    ///
    /// [`TreeError::NotFound`] or [`TreeError::NotDirectory`].
    pub fn list(&self, dir: u64) -> Result<Vec<(u64, Kind, OsString)>, TreeError> {
        let Body::Directory { parent, entries } = &self.inode(dir)?.body else {
            return Err(TreeError::NotDirectory);
        };
        let mut listing = vec![
            (dir, Kind::Directory, OsString::from(".")),
            (*parent, Kind::Directory, OsString::from("..")),
        ];
        for (name, &ino) in entries {
            listing.push((ino, self.attr(ino)?.kind, name.clone()));
        }
        Ok(listing)
    }

    /// Bytes written since their file's last sync, summed over the files.
    pub fn unsynced_bytes(&self) -> u64 {
        self.inodes
            .values()
            .filter_map(|inode| match &inode.body {
                Body::File(data) => Some(data.unsynced_bytes()),
                Body::Directory { .. } => None,
            })
            .sum()
    }

    /// The power of the machine is cut: every file goes back to its contents at its last sync.
    /// Returns what was dropped.
    pub fn power_loss(&mut self) -> LostWrites {
        let mut lost = LostWrites::default();
        for inode in self.inodes.values_mut() {
            if let Body::File(data) = &mut inode.body {
                if !data.is_synced() {
                    lost.files += 1;
                    lost.bytes += data.lose_unsynced();
                }
            }
        }
        lost
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name(text: &str) -> &OsStr {
        OsStr::new(text)
    }

    fn file(tree: &mut VolatileTree, parent: u64, text: &str) -> u64 {
        tree.create(parent, name(text), Kind::File, 0o644)
            .unwrap()
            .ino
    }

    #[test]
    fn synced_bytes_survive_a_power_loss_and_later_writes_do_not() {
        let mut tree = VolatileTree::new();
        let db = file(&mut tree, ROOT, "db");
        tree.write(db, 0, b"hello").unwrap();
        tree.sync(db).unwrap();
        tree.write(db, 5, b" world").unwrap();
        tree.write(db, 0, b"J").unwrap();
        assert_eq!(tree.read(db, 0, 64).unwrap(), b"Jello world");
        assert_eq!(tree.unsynced_bytes(), 7);

        let lost = tree.power_loss();
        assert_eq!(lost, LostWrites { files: 1, bytes: 7 });
        assert_eq!(tree.read(db, 0, 64).unwrap(), b"hello");
        assert_eq!(tree.attr(db).unwrap().size, 5);
        assert_eq!(tree.power_loss(), LostWrites::default());
    }

    #[test]
    fn a_sync_covers_the_whole_file_and_a_truncation_is_volatile_too() {
        let mut tree = VolatileTree::new();
        let log = file(&mut tree, ROOT, "log");
        tree.write(log, 10, b"tail").unwrap();
        tree.write(log, 0, b"head").unwrap();
        tree.sync(log).unwrap();
        assert_eq!(tree.unsynced_bytes(), 0);
        tree.set_len(log, 4).unwrap();
        assert_eq!(tree.attr(log).unwrap().size, 4);
        assert_eq!(tree.power_loss().files, 1);
        assert_eq!(tree.read(log, 0, 64).unwrap(), b"head\0\0\0\0\0\0tail");
    }

    #[test]
    fn a_never_synced_file_keeps_its_name_and_loses_its_contents() {
        let mut tree = VolatileTree::new();
        let dir = tree
            .create(ROOT, name("raft"), Kind::Directory, 0o755)
            .unwrap()
            .ino;
        let conf = file(&mut tree, dir, "conf");
        tree.write(conf, 0, b"segment_size: 524288").unwrap();
        tree.power_loss();
        assert_eq!(tree.lookup(dir, name("conf")).unwrap().size, 0);
    }

    #[test]
    fn renames_replace_files_and_refuse_what_a_file_system_refuses() {
        let mut tree = VolatileTree::new();
        let a = file(&mut tree, ROOT, "a");
        file(&mut tree, ROOT, "b");
        let dir = tree
            .create(ROOT, name("d"), Kind::Directory, 0o755)
            .unwrap()
            .ino;
        assert_eq!(
            tree.rename(ROOT, name("a"), ROOT, name("b"), true),
            Err(TreeError::Exists)
        );
        tree.rename(ROOT, name("a"), ROOT, name("b"), false)
            .unwrap();
        assert_eq!(tree.lookup(ROOT, name("b")).unwrap().ino, a);
        assert_eq!(tree.lookup(ROOT, name("a")), Err(TreeError::NotFound));
        assert_eq!(
            tree.rename(ROOT, name("b"), ROOT, name("d"), false),
            Err(TreeError::IsDirectory)
        );
        assert_eq!(
            tree.rename(ROOT, name("d"), dir, name("inner"), false),
            Err(TreeError::Invalid)
        );
        tree.rename(ROOT, name("b"), dir, name("b"), false).unwrap();
        assert_eq!(tree.rmdir(ROOT, name("d")), Err(TreeError::NotEmpty));
        tree.unlink(dir, name("b")).unwrap();
        tree.rmdir(ROOT, name("d")).unwrap();
        let names: Vec<_> = tree.list(ROOT).unwrap().into_iter().map(|e| e.2).collect();
        assert_eq!(names, [".", ".."]);
    }

    #[test]
    fn a_removed_file_lives_until_its_last_handle_is_released() {
        let mut tree = VolatileTree::new();
        let blob = file(&mut tree, ROOT, "blob");
        tree.open(blob).unwrap();
        tree.write(blob, 0, b"data").unwrap();
        tree.unlink(ROOT, name("blob")).unwrap();
        assert_eq!(tree.read(blob, 0, 8).unwrap(), b"data");
        assert_eq!(tree.attr(blob).unwrap().nlink, 0);
        tree.release(blob);
        assert_eq!(tree.attr(blob), Err(TreeError::NotFound));
    }
}
