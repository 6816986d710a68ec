//! How an ApplicationMaster finds its AMRMToken: in the token file its NodeManager wrote and
//! named in `HADOOP_TOKEN_FILE_LOCATION`, as in Hadoop.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use prost::Message;
use yarn_proto::pb;
use yarn_proto::token_metadata::TOKEN_FILE_ENV;
use yarn_security::TokenKind;

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

/// Picks the AMRMToken (kind `YARN_AM_RM_TOKEN`) out of `bytes`, an encoded
/// `CredentialsProto` read from the file `origin`; the first one wins if there are several.
///
/// # Errors
///
/// [`Error::TokenFileMalformed`] when `bytes` do not decode, [`Error::AmRmTokenMissing`] (listing
/// the kinds present) when no token has the AMRMToken's kind.
pub fn amrm_token_from_credentials(bytes: &[u8], origin: &Path) -> Result<pb::TokenProto, Error> {
    let credentials =
        pb::CredentialsProto::decode(bytes).map_err(|source| Error::TokenFileMalformed {
            path: origin.to_owned(),
            source,
        })?;
    let wanted = TokenKind::AmRm.name();
    let found: Vec<String> = credentials
        .tokens
        .iter()
        .map(|token| token.kind.clone())
        .collect();
    credentials
        .tokens
        .into_iter()
        .find(|token| token.kind == wanted)
        .ok_or_else(|| Error::AmRmTokenMissing {
            path: origin.to_owned(),
            expected: wanted,
            found,
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
    use super::*;

    fn token(kind: &str, identifier: u8) -> pb::TokenProto {
        pb::TokenProto {
            identifier: vec![identifier],
            password: vec![9, 9],
            kind: kind.to_owned(),
            service: "rm:8030".to_owned(),
        }
    }

    fn credentials(tokens: Vec<pb::TokenProto>) -> Vec<u8> {
        pb::CredentialsProto { tokens }.encode_to_vec()
    }

    #[test]
    fn the_first_amrm_token_is_picked_among_other_kinds() {
        let bytes = credentials(vec![
            token("NMToken", 1),
            token("YARN_AM_RM_TOKEN", 2),
            token("YARN_AM_RM_TOKEN", 3),
        ]);
        let picked = amrm_token_from_credentials(&bytes, Path::new("/c/container_tokens")).unwrap();
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
        let empty = amrm_token_from_credentials(&[], Path::new("/c/t")).unwrap_err();
        assert!(
            empty.to_string().ends_with("(kinds found: none)"),
            "{empty}"
        );
    }

    #[test]
    fn garbage_is_refused_naming_the_file() {
        let err = amrm_token_from_credentials(&[0xff, 0xff, 0xff], Path::new("/c/t")).unwrap_err();
        assert!(matches!(err, Error::TokenFileMalformed { .. }), "{err:?}");
        assert!(
            err.to_string()
                .starts_with("token file /c/t is not an encoded CredentialsProto"),
            "{err}"
        );
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
