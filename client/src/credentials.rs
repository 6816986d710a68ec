//! How an ApplicationMaster finds its AMRMToken: in the Hadoop credentials file its
//! NodeManager wrote and named in `HADOOP_TOKEN_FILE_LOCATION`, as in Hadoop.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use yarn_proto::pb;
use yarn_proto::token_metadata::TOKEN_FILE_ENV;
use yarn_security::TokenKind;
use yarn_security::hadoop_credentials::Credentials;

use crate::Error;

/// Reads the AMRMToken from the token file named by `HADOOP_TOKEN_FILE_LOCATION`.
///
/// # Errors
///
/// [`Error::TokenFileNotSet`] when the variable is unset or empty, [`Error::TokenFileRead`] when
/// the file cannot be read, and those of [`amrm_token_from_credentials`].
pub fn read_amrm_token_from_env() -> Result<pb::TokenProto, Error> {
    read_amrm_token_from(std::env::var_os(TOKEN_FILE_ENV))
}

/// Picks the AMRMToken (kind `YARN_AM_RM_TOKEN`) out of `bytes`, a Hadoop credentials file
/// (`HDTS`, version 0 or 1) read from the file `origin`; the first one wins if there are
/// several. Its alias does not matter: Hadoop's AMs pick it by kind too.
///
/// # Errors
///
/// [`Error::TokenFileMalformed`] when `bytes` are not a readable credentials file,
/// [`Error::AmRmTokenMissing`] (listing the kinds present) when no token has the AMRMToken's
/// kind.
pub fn amrm_token_from_credentials(bytes: &[u8], origin: &Path) -> Result<pb::TokenProto, Error> {
    let credentials = Credentials::decode(bytes).map_err(|source| Error::TokenFileMalformed {
        path: origin.to_owned(),
        source: Box::new(source),
    })?;
    let wanted = TokenKind::AmRm.name();
    let found = credentials.tokens_of_kind(wanted).next().cloned();
    found
        .map(pb::TokenProto::from)
        .ok_or_else(|| Error::AmRmTokenMissing {
            path: origin.to_owned(),
            expected: wanted,
            found: credentials
                .tokens()
                .iter()
                .map(|token| token.kind.clone())
                .collect(),
        })
}

/// [`read_amrm_token_from_env`] with the variable's value given, so it can be tested without
/// changing the process environment.
fn read_amrm_token_from(location: Option<OsString>) -> Result<pb::TokenProto, Error> {
    let path = match location {
        Some(value) if !value.is_empty() => PathBuf::from(value),
        _ => {
            return Err(Error::TokenFileNotSet {
                variable: TOKEN_FILE_ENV,
            });
        }
    };
    let bytes = std::fs::read(&path).map_err(|source| Error::TokenFileRead {
        variable: TOKEN_FILE_ENV,
        path: path.clone(),
        source,
    })?;
    amrm_token_from_credentials(&bytes, &path)
}

#[cfg(test)]
mod tests {
    use yarn_security::hadoop_credentials::{CredentialsToken, SerializedFormat};

    use super::*;

    fn token(kind: &str, identifier: u8) -> pb::TokenProto {
        pb::TokenProto {
            identifier: vec![identifier],
            password: vec![9, 9],
            kind: kind.to_owned(),
            service: "rm:8030".to_owned(),
        }
    }

    /// The tokens as a version 0 credentials file (what the RM writes), each filed under an
    /// alias of its own.
    fn credentials(tokens: Vec<pb::TokenProto>) -> Vec<u8> {
        in_format(tokens, SerializedFormat::Writable)
    }

    fn in_format(tokens: Vec<pb::TokenProto>, format: SerializedFormat) -> Vec<u8> {
        let mut credentials = Credentials::new();
        for (index, token) in tokens.into_iter().enumerate() {
            credentials.add_token(CredentialsToken::from_proto(format!("t{index}"), token));
        }
        credentials.encode_as(format)
    }

    #[test]
    fn the_first_amrm_token_is_picked_among_other_kinds() {
        let bytes = credentials(vec![
            token("NMToken", 1),
            token("YARN_AM_RM_TOKEN", 2),
            token("YARN_AM_RM_TOKEN", 3),
        ]);
        assert_eq!(&bytes[..5], b"HDTS\0");
        let picked = amrm_token_from_credentials(&bytes, Path::new("/c/container_tokens")).unwrap();
        assert_eq!(picked, token("YARN_AM_RM_TOKEN", 2));
    }

    #[test]
    fn a_version_1_file_is_read_too() {
        let bytes = in_format(
            vec![token("NMToken", 1), token("YARN_AM_RM_TOKEN", 2)],
            SerializedFormat::Protobuf,
        );
        assert_eq!(&bytes[..5], b"HDTS\x01");
        let picked = amrm_token_from_credentials(&bytes, Path::new("/c/t")).unwrap();
        assert_eq!(picked, token("YARN_AM_RM_TOKEN", 2));
    }

    #[test]
    fn a_file_without_amrm_token_names_the_file_and_the_kinds_it_holds() {
        let bytes = credentials(vec![token("NMToken", 1), token("ContainerToken", 2)]);
        let err =
            amrm_token_from_credentials(&bytes, Path::new("/c/container_tokens")).unwrap_err();
        assert!(matches!(err, Error::AmRmTokenMissing { .. }), "{err:?}");
        assert_eq!(
            err.to_string(),
            "token file /c/container_tokens holds no token of kind YARN_AM_RM_TOKEN \
             (kinds found: NMToken, ContainerToken)"
        );
        // What Spark submits, and an AM would find were no AMRMToken added.
        let empty = amrm_token_from_credentials(b"HDTS\0\0\0", Path::new("/c/t")).unwrap_err();
        assert!(
            empty.to_string().ends_with("(kinds found: none)"),
            "{empty}"
        );
    }

    #[test]
    fn garbage_and_empty_files_are_refused_naming_the_file() {
        // A bare protobuf message: yarn-ha's token files before they were Hadoop's.
        for bytes in [&[0x0A, 0x02, 0x01, 0x02][..], &[]] {
            let err = amrm_token_from_credentials(bytes, Path::new("/c/t")).unwrap_err();
            assert!(matches!(err, Error::TokenFileMalformed { .. }), "{err:?}");
            assert!(
                err.to_string()
                    .starts_with("token file /c/t is not a readable Hadoop credentials file"),
                "{err}"
            );
        }
    }

    #[test]
    fn the_variable_names_the_file_that_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("container_tokens");
        std::fs::write(&path, credentials(vec![token("YARN_AM_RM_TOKEN", 7)])).unwrap();
        let picked = read_amrm_token_from(Some(path.clone().into_os_string())).unwrap();
        assert_eq!(picked, token("YARN_AM_RM_TOKEN", 7));

        let missing = dir.path().join("absent");
        let err = read_amrm_token_from(Some(missing.into_os_string())).unwrap_err();
        assert!(matches!(err, Error::TokenFileRead { .. }), "{err:?}");
        let message = err.to_string();
        assert!(message.contains("HADOOP_TOKEN_FILE_LOCATION"), "{message}");
        assert!(message.contains("absent"), "{message}");
    }

    #[test]
    fn an_unset_or_empty_variable_is_named() {
        for value in [None, Some(OsString::new())] {
            let err = read_amrm_token_from(value).unwrap_err();
            assert!(matches!(err, Error::TokenFileNotSet { .. }), "{err:?}");
            assert!(
                err.to_string()
                    .starts_with("HADOOP_TOKEN_FILE_LOCATION is not set"),
                "{err}"
            );
        }
    }
}
