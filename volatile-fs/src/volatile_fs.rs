//! [`VolatileFs`]: the FUSE shell over a [`VolatileTree`]; every request is one call on the
//! tree, and every [`TreeError`] becomes an errno in [`errno`].

use std::ffi::{OsStr, OsString};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, SystemTime};

use fuser::{
    Errno, FileAttr, FileHandle, FileType, Filesystem, FopenFlags, Generation, INodeNo, LockOwner,
    OpenFlags, RenameFlags, ReplyAttr, ReplyCreate, ReplyData, ReplyDirectory, ReplyEmpty,
    ReplyEntry, ReplyOpen, ReplyStatfs, ReplyWrite, Request, TimeOrNow, WriteFlags,
};

use crate::volatile_tree::{Attr, Kind, TreeError, VolatileTree};

/// Attributes and names are never cached by the kernel: a power loss changes sizes behind its
/// back, and a stale size would make a reader see bytes that are gone.
const NO_CACHE: Duration = Duration::ZERO;

/// Files are opened for direct I/O, so that every read and write reaches the tree and no page
/// the kernel cached outlives a power loss.
const OPEN_FLAGS: FopenFlags = FopenFlags::FOPEN_DIRECT_IO;

/// The errno a failed tree operation returns to the caller.
fn errno(error: TreeError) -> Errno {
    match error {
        TreeError::NotFound => Errno::ENOENT,
        TreeError::Exists => Errno::EEXIST,
        TreeError::NotDirectory => Errno::ENOTDIR,
        TreeError::IsDirectory => Errno::EISDIR,
        TreeError::NotEmpty => Errno::ENOTEMPTY,
        TreeError::Invalid => Errno::EINVAL,
        TreeError::TooLarge => Errno::EFBIG,
    }
}

fn file_type(kind: Kind) -> FileType {
    match kind {
        Kind::Directory => FileType::Directory,
        Kind::File => FileType::RegularFile,
    }
}

/// Serves a shared [`VolatileTree`] to the kernel. Every file and directory belongs to the
/// user who mounted it.
#[derive(Debug)]
pub(crate) struct VolatileFs {
    tree: Arc<Mutex<VolatileTree>>,
    uid: u32,
    gid: u32,
}

impl VolatileFs {
    pub(crate) fn new(tree: Arc<Mutex<VolatileTree>>) -> Self {
        // SAFETY: geteuid(2) and getegid(2) take no arguments and cannot fail.
        let (uid, gid) = unsafe { (libc::geteuid(), libc::getegid()) };
        Self { tree, uid, gid }
    }

    fn tree(&self) -> MutexGuard<'_, VolatileTree> {
        // A panic while holding the lock leaves the tree as consistent as any single call.
        self.tree.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn file_attr(&self, attr: &Attr) -> FileAttr {
        FileAttr {
            ino: INodeNo(attr.ino),
            size: attr.size,
            blocks: attr.size.div_ceil(512),
            atime: attr.mtime,
            mtime: attr.mtime,
            ctime: attr.mtime,
            crtime: attr.mtime,
            kind: file_type(attr.kind),
            perm: attr.perm,
            nlink: attr.nlink,
            uid: self.uid,
            gid: self.gid,
            rdev: 0,
            blksize: 4096,
            flags: 0,
        }
    }

    fn reply_attr(&self, result: Result<Attr, TreeError>, reply: ReplyAttr) {
        match result {
            Ok(attr) => reply.attr(&NO_CACHE, &self.file_attr(&attr)),
            Err(e) => reply.error(errno(e)),
        }
    }

    fn reply_entry(&self, result: Result<Attr, TreeError>, reply: ReplyEntry) {
        match result {
            Ok(attr) => reply.entry(&NO_CACHE, &self.file_attr(&attr), Generation(0)),
            Err(e) => reply.error(errno(e)),
        }
    }
}

fn reply_empty(result: Result<(), TreeError>, reply: ReplyEmpty) {
    match result {
        Ok(()) => reply.ok(),
        Err(e) => reply.error(errno(e)),
    }
}

/// The permission bits of a `mode` after `umask`.
fn perm(mode: u32, umask: u32) -> u16 {
    (mode & !umask & 0o7777) as u16
}

impl Filesystem for VolatileFs {
    fn lookup(&self, _req: &Request, parent: INodeNo, name: &OsStr, reply: ReplyEntry) {
        let found = self.tree().lookup(parent.0, name);
        self.reply_entry(found, reply);
    }

    fn getattr(&self, _req: &Request, ino: INodeNo, _fh: Option<FileHandle>, reply: ReplyAttr) {
        let found = self.tree().attr(ino.0);
        self.reply_attr(found, reply);
    }

    fn setattr(
        &self,
        _req: &Request,
        ino: INodeNo,
        mode: Option<u32>,
        _uid: Option<u32>,
        _gid: Option<u32>,
        size: Option<u64>,
        _atime: Option<TimeOrNow>,
        _mtime: Option<TimeOrNow>,
        _ctime: Option<SystemTime>,
        _fh: Option<FileHandle>,
        _crtime: Option<SystemTime>,
        _chgtime: Option<SystemTime>,
        _bkuptime: Option<SystemTime>,
        _flags: Option<fuser::BsdFileFlags>,
        reply: ReplyAttr,
    ) {
        let mut tree = self.tree();
        let changed = size
            .map_or(Ok(()), |len| tree.set_len(ino.0, len))
            .and_then(|()| mode.map_or(Ok(()), |mode| tree.set_perm(ino.0, perm(mode, 0))))
            .and_then(|()| tree.attr(ino.0));
        drop(tree);
        self.reply_attr(changed, reply);
    }

    fn mknod(
        &self,
        _req: &Request,
        parent: INodeNo,
        name: &OsStr,
        mode: u32,
        umask: u32,
        _rdev: u32,
        reply: ReplyEntry,
    ) {
        // Regular files only: nothing the stores write needs a device, a FIFO or a socket.
        if mode & libc::S_IFMT != libc::S_IFREG {
            reply.error(Errno::EPERM);
            return;
        }
        let created = self
            .tree()
            .create(parent.0, name, Kind::File, perm(mode, umask));
        self.reply_entry(created, reply);
    }

    fn mkdir(
        &self,
        _req: &Request,
        parent: INodeNo,
        name: &OsStr,
        mode: u32,
        umask: u32,
        reply: ReplyEntry,
    ) {
        let created = self
            .tree()
            .create(parent.0, name, Kind::Directory, perm(mode, umask));
        self.reply_entry(created, reply);
    }

    fn unlink(&self, _req: &Request, parent: INodeNo, name: &OsStr, reply: ReplyEmpty) {
        reply_empty(self.tree().unlink(parent.0, name), reply);
    }

    fn rmdir(&self, _req: &Request, parent: INodeNo, name: &OsStr, reply: ReplyEmpty) {
        reply_empty(self.tree().rmdir(parent.0, name), reply);
    }

    fn rename(
        &self,
        _req: &Request,
        parent: INodeNo,
        name: &OsStr,
        newparent: INodeNo,
        newname: &OsStr,
        flags: RenameFlags,
        reply: ReplyEmpty,
    ) {
        if flags.contains(RenameFlags::RENAME_EXCHANGE)
            || flags.contains(RenameFlags::RENAME_WHITEOUT)
        {
            reply.error(Errno::EINVAL);
            return;
        }
        let no_replace = flags.contains(RenameFlags::RENAME_NOREPLACE);
        let renamed = self
            .tree()
            .rename(parent.0, name, newparent.0, newname, no_replace);
        reply_empty(renamed, reply);
    }

    fn open(&self, _req: &Request, ino: INodeNo, _flags: OpenFlags, reply: ReplyOpen) {
        match self.tree().open(ino.0) {
            Ok(()) => reply.opened(FileHandle(0), OPEN_FLAGS),
            Err(e) => reply.error(errno(e)),
        }
    }

    fn create(
        &self,
        _req: &Request,
        parent: INodeNo,
        name: &OsStr,
        mode: u32,
        umask: u32,
        _flags: i32,
        reply: ReplyCreate,
    ) {
        let mut tree = self.tree();
        let created = tree
            .create(parent.0, name, Kind::File, perm(mode, umask))
            .and_then(|attr| tree.open(attr.ino).map(|()| attr));
        drop(tree);
        match created {
            Ok(attr) => reply.created(
                &NO_CACHE,
                &self.file_attr(&attr),
                Generation(0),
                FileHandle(0),
                OPEN_FLAGS,
            ),
            Err(e) => reply.error(errno(e)),
        }
    }

    fn read(
        &self,
        _req: &Request,
        ino: INodeNo,
        _fh: FileHandle,
        offset: u64,
        size: u32,
        _flags: OpenFlags,
        _lock_owner: Option<LockOwner>,
        reply: ReplyData,
    ) {
        match self.tree().read(ino.0, offset, size) {
            Ok(data) => reply.data(data),
            Err(e) => reply.error(errno(e)),
        }
    }

    fn write(
        &self,
        _req: &Request,
        ino: INodeNo,
        _fh: FileHandle,
        offset: u64,
        data: &[u8],
        _write_flags: WriteFlags,
        _flags: OpenFlags,
        _lock_owner: Option<LockOwner>,
        reply: ReplyWrite,
    ) {
        match self.tree().write(ino.0, offset, data) {
            // The kernel never hands over more than max_write (far below 4 GiB) at once.
            Ok(()) => reply.written(u32::try_from(data.len()).unwrap_or(u32::MAX)),
            Err(e) => reply.error(errno(e)),
        }
    }

    fn flush(
        &self,
        _req: &Request,
        _ino: INodeNo,
        _fh: FileHandle,
        _lock_owner: LockOwner,
        reply: ReplyEmpty,
    ) {
        // close(2) makes nothing durable, on a disk as here.
        reply.ok();
    }

    fn release(
        &self,
        _req: &Request,
        ino: INodeNo,
        _fh: FileHandle,
        _flags: OpenFlags,
        _lock_owner: Option<LockOwner>,
        _flush: bool,
        reply: ReplyEmpty,
    ) {
        self.tree().release(ino.0);
        reply.ok();
    }

    fn fsync(
        &self,
        _req: &Request,
        ino: INodeNo,
        _fh: FileHandle,
        _datasync: bool,
        reply: ReplyEmpty,
    ) {
        reply_empty(self.tree().sync(ino.0), reply);
    }

    fn readdir(
        &self,
        _req: &Request,
        ino: INodeNo,
        _fh: FileHandle,
        offset: u64,
        mut reply: ReplyDirectory,
    ) {
        let listing = match self.tree().list(ino.0) {
            Ok(listing) => listing,
            Err(e) => return reply.error(errno(e)),
        };
        // An entry's offset is where the next call resumes. Inode numbers are never reused and
        // grow with each creation, so offsets by inode stay valid while entries come and go
        // between calls: none is skipped and none is returned twice. `.` and `..` come first.
        let mut entries: Vec<(u64, u64, Kind, OsString)> = listing
            .into_iter()
            .enumerate()
            .map(|(index, (entry, kind, name))| {
                let position = if index < 2 {
                    index as u64 + 1
                } else {
                    entry + 2
                };
                (position, entry, kind, name)
            })
            .collect();
        entries.sort_by_key(|(position, ..)| *position);
        for (position, entry, kind, name) in entries {
            if position > offset && reply.add(INodeNo(entry), position, file_type(kind), &name) {
                break;
            }
        }
        reply.ok();
    }

    fn fsyncdir(
        &self,
        _req: &Request,
        _ino: INodeNo,
        _fh: FileHandle,
        _datasync: bool,
        reply: ReplyEmpty,
    ) {
        // Names are durable as soon as they change (see VolatileTree).
        reply.ok();
    }

    fn statfs(&self, _req: &Request, _ino: INodeNo, reply: ReplyStatfs) {
        // A roomy disk of 4 KiB blocks: 1 TiB, all free, a million inodes.
        let blocks = 1 << 28;
        reply.statfs(blocks, blocks, blocks, 1 << 20, 1 << 20, 4096, 255, 4096);
    }
}
