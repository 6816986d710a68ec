//! The one error type of the sample applications.

use std::path::PathBuf;
use std::time::Duration;

/// Everything that can go wrong while running a sample application (`dshell`, `pi`), its
/// ApplicationMaster or a pi map: what the client library reports ([`Error::Client`]), a
/// command line the application cannot take, a path a container cannot be given, an
/// ApplicationMaster that gives up, and the pi example's result files.
///
/// Every message is one line naming what failed and where; the client library's errors keep
/// their own messages.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A failure of the client library: configuration, a call to the ResourceManagers or a
    /// NodeManager, the ApplicationMaster's token, writing the output, starting the runtime.
    #[error(transparent)]
    Client(#[from] yarn_client::Error),

    /// An option of a sample application (`dshell`, `pi`) with a value it cannot take.
    #[error("invalid value {value:?} for option {option}: expected {expected}")]
    InvalidOptionValue {
        /// The option, e.g. `--num_containers`.
        option: String,
        /// The value given.
        value: String,
        /// What the option takes.
        expected: String,
    },

    /// An option a sample application does not know.
    #[error("unknown option {option:?} for {command}: expected one of {}", known.join(", "))]
    UnknownOption {
        /// The command, e.g. `dshell`.
        command: &'static str,
        /// The option given.
        option: String,
        /// The options the command knows.
        known: &'static [&'static str],
    },

    /// A word a sample application's command line has no place for.
    #[error("{command}: unexpected argument {argument:?}")]
    UnexpectedArgument {
        /// The command, e.g. `pi`.
        command: &'static str,
        /// The word.
        argument: String,
    },

    /// An option given as the last word, without the value it needs.
    #[error("option {option} of {command} needs a value")]
    OptionValueMissing {
        /// The command, e.g. `dshell`.
        command: &'static str,
        /// The option.
        option: String,
    },

    /// A required option or argument of a sample application is absent.
    #[error("{command} needs {option}")]
    OptionMissing {
        /// The command, e.g. `dshell`.
        command: &'static str,
        /// What is missing, e.g. `--shell_command`.
        option: &'static str,
    },

    /// A path that must be written into a container's command line is not UTF-8.
    #[error("the {what} {} is not valid UTF-8, so it cannot be passed to a container", path.display())]
    NonUtf8Path {
        /// What the path is, e.g. `configuration directory`.
        what: &'static str,
        /// The path.
        path: PathBuf,
    },

    /// A path a container needs in absolute form does not resolve.
    #[error("resolving the {what} {}: {source}", path.display())]
    PathUnresolvable {
        /// What the path is, e.g. `yarn-ha executable`.
        what: &'static str,
        /// The path as given.
        path: PathBuf,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },

    /// An ApplicationMaster holds no NM token for the node of a container it wants to start.
    #[error(
        "cannot start container {container_id} on {node}: the RM sent no NM token for that node"
    )]
    NmTokenMissing {
        /// The container, in Hadoop's form.
        container_id: String,
        /// The node, `host:port`.
        node: String,
    },

    /// A sample ApplicationMaster's containers did not all end within its run limit.
    #[error(
        "the ApplicationMaster gave up: {ended} of {wanted} containers ended within its run \
         limit of {} s",
        limit.as_secs()
    )]
    AmRunLimitExceeded {
        /// Containers that ended.
        ended: usize,
        /// Containers the run needed.
        wanted: usize,
        /// The limit.
        limit: Duration,
    },

    /// The RM answered an allocate with `AM_SHUTDOWN`.
    #[error(
        "the ResourceManager told the ApplicationMaster to shut down (AM_SHUTDOWN): the \
         application was killed or this attempt is no longer current"
    )]
    AmShutdownRequested,

    /// A file or directory of the pi example's map results could not be used.
    #[error("{operation} the pi map result file {}: {source}", path.display())]
    PiResultFile {
        /// What was done, e.g. `reading`.
        operation: &'static str,
        /// The file or directory.
        path: PathBuf,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },

    /// A pi map result file that holds no count.
    #[error(
        "pi map result file {} holds {content:?}: expected \"inside=<n> total=<n>\" with inside \
         at most total",
        path.display()
    )]
    PiResultMalformed {
        /// The file.
        path: PathBuf,
        /// What it holds.
        content: String,
    },
}
