//! Localization against the real filesystem: FILE, directory, zip, tar.gz and PATTERN
//! resources land in the caches their visibility chooses and are linked into the working
//! directory; changed, missing, non-public and non-`file:` sources and archives reaching out
//! of their directory are refused naming the resource; a copy is reused by later and
//! concurrent containers, and an application's cache goes when it finishes.

use std::collections::BTreeMap;
use std::fs;
use std::io::Write;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::UNIX_EPOCH;

use tempfile::TempDir;
use yarn_nodemanager::localizer::{
    LocalResource, LocalizationError, Localized, Localizer, ResourceType, ResourceVisibility,
};
use yarn_proto::ids::ApplicationId;

const USER: &str = "alice";

fn application(id: i32) -> ApplicationId {
    ApplicationId::new(1_700_000_000_000, id)
}

/// A node's local directory, a staging directory for sources and a working directory per
/// container, under one temporary directory.
struct Fixture {
    dir: TempDir,
    localizer: Localizer,
}

impl Fixture {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir_all(dir.path().join("staging")).unwrap();
        let localizer = Localizer::new(vec![dir.path().join("local")]);
        Self { dir, localizer }
    }

    fn local_dir(&self) -> PathBuf {
        self.dir.path().join("local")
    }

    /// A new working directory named `container`.
    fn work_dir(&self, container: &str) -> PathBuf {
        let work_dir = self.dir.path().join("work").join(container);
        fs::create_dir_all(&work_dir).unwrap();
        work_dir
    }

    /// A source file `name` holding `content`.
    fn source(&self, name: &str, content: &[u8]) -> PathBuf {
        let path = self.dir.path().join("staging").join(name);
        fs::write(&path, content).unwrap();
        path
    }

    async fn localize(
        &self,
        application_id: ApplicationId,
        work_dir: &Path,
        resources: &[(&str, LocalResource)],
    ) -> Result<Vec<Localized>, LocalizationError> {
        let resources: BTreeMap<String, LocalResource> = resources
            .iter()
            .map(|(link, resource)| ((*link).to_owned(), resource.clone()))
            .collect();
        self.localizer
            .localize(USER, application_id, work_dir, &resources)
            .await
    }

    /// The only entry of the cache at `root`.
    fn only_entry(&self, root: &Path) -> PathBuf {
        let entries: Vec<PathBuf> = fs::read_dir(root)
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .collect();
        assert_eq!(entries.len(), 1, "{entries:?}");
        entries[0].clone()
    }

    fn application_cache(&self, application_id: ApplicationId) -> PathBuf {
        self.local_dir()
            .join("usercache")
            .join(USER)
            .join("appcache")
            .join(application_id.to_string())
            .join("filecache")
    }
}

/// A resource for the file at `path` as a client describes it: its URL, length and time.
fn resource_of(path: &Path, resource_type: ResourceType) -> LocalResource {
    let metadata = fs::metadata(path).unwrap();
    LocalResource {
        url: format!("file://{}", path.display()),
        size: i64::try_from(metadata.len()).unwrap(),
        timestamp_ms: i64::try_from(
            metadata
                .modified()
                .unwrap()
                .duration_since(UNIX_EPOCH)
                .unwrap()
                .as_millis(),
        )
        .unwrap(),
        resource_type,
        visibility: ResourceVisibility::Application,
        pattern: String::new(),
    }
}

fn zip_bytes(entries: &[(&str, &[u8])]) -> Vec<u8> {
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default();
    for (name, content) in entries {
        if name.ends_with('/') {
            zip.add_directory(*name, options).unwrap();
        } else {
            zip.start_file(*name, options).unwrap();
            zip.write_all(content).unwrap();
        }
    }
    zip.finish().unwrap().into_inner()
}

/// A gzipped tar of regular files, and of symbolic links where the content starts with `->`.
fn tar_gz_bytes(entries: &[(&str, &str)]) -> Vec<u8> {
    let encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    let mut tar = tar::Builder::new(encoder);
    for (name, content) in entries {
        let mut header = tar::Header::new_gnu();
        header.set_mode(0o644);
        match content.strip_prefix("->") {
            Some(target) => {
                header.set_entry_type(tar::EntryType::Symlink);
                header.set_size(0);
                tar.append_link(&mut header, name, target).unwrap();
            }
            None => {
                header.set_size(content.len() as u64);
                tar.append_data(&mut header, name, content.as_bytes())
                    .unwrap();
            }
        }
    }
    tar.into_inner().unwrap().finish().unwrap()
}

#[tokio::test]
async fn a_file_is_copied_into_the_application_cache_sealed_and_linked() {
    let fixture = Fixture::new();
    let source = fixture.source("__app__.jar", b"the application");
    let work_dir = fixture.work_dir("c1");
    let localized = fixture
        .localize(
            application(1),
            &work_dir,
            &[("__app__.jar", resource_of(&source, ResourceType::File))],
        )
        .await
        .unwrap();

    assert_eq!(localized.len(), 1);
    assert!(localized[0].fresh);
    let entry = fixture.only_entry(&fixture.application_cache(application(1)));
    assert_eq!(localized[0].path, entry.join("__app__.jar"));
    let link = work_dir.join("__app__.jar");
    assert_eq!(fs::read_link(&link).unwrap(), localized[0].path);
    assert_eq!(fs::read(&link).unwrap(), b"the application");
    let mode = fs::metadata(&localized[0].path)
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(
        mode & 0o777,
        0o500,
        "a private copy is read-only for its owner"
    );
}

#[tokio::test]
async fn a_directory_is_copied_whole_under_a_nested_link_name() {
    let fixture = Fixture::new();
    let source = fixture.dir.path().join("staging").join("conf");
    fs::create_dir_all(source.join("sub")).unwrap();
    fs::write(source.join("core-site.xml"), "<configuration/>").unwrap();
    fs::write(source.join("sub").join("deep.txt"), "deep").unwrap();
    let work_dir = fixture.work_dir("c1");
    fixture
        .localize(
            application(1),
            &work_dir,
            &[("etc/conf", resource_of(&source, ResourceType::File))],
        )
        .await
        .unwrap();

    let link = work_dir.join("etc").join("conf");
    assert_eq!(
        fs::read_to_string(link.join("core-site.xml")).unwrap(),
        "<configuration/>"
    );
    assert_eq!(
        fs::read_to_string(link.join("sub").join("deep.txt")).unwrap(),
        "deep"
    );
}

#[tokio::test]
async fn a_zip_archive_is_unpacked_into_a_directory_of_its_name() {
    let fixture = Fixture::new();
    let source = fixture.source(
        "__spark_conf__.zip",
        &zip_bytes(&[
            ("__spark_hadoop_conf__/", b""),
            ("__spark_hadoop_conf__/core-site.xml", b"<core/>"),
            ("__spark_conf__.properties", b"spark.master=yarn"),
        ]),
    );
    let mut resource = resource_of(&source, ResourceType::Archive);
    resource.visibility = ResourceVisibility::Private;
    let work_dir = fixture.work_dir("c1");
    let localized = fixture
        .localize(application(1), &work_dir, &[("__spark_conf__", resource)])
        .await
        .unwrap();

    let private_cache = fixture
        .local_dir()
        .join("usercache")
        .join(USER)
        .join("filecache");
    assert!(localized[0].path.starts_with(&private_cache));
    assert!(localized[0].path.ends_with("__spark_conf__.zip"));
    assert!(localized[0].path.is_dir());
    let link = work_dir.join("__spark_conf__");
    assert_eq!(
        fs::read_to_string(link.join("__spark_conf__.properties")).unwrap(),
        "spark.master=yarn"
    );
    assert_eq!(
        fs::read_to_string(link.join("__spark_hadoop_conf__/core-site.xml")).unwrap(),
        "<core/>"
    );
}

#[tokio::test]
async fn a_tar_gz_archive_is_unpacked_with_its_links_inside() {
    let fixture = Fixture::new();
    let source = fixture.source(
        "python-env.tar.gz",
        &tar_gz_bytes(&[
            ("./bin/python", "#!/bin/sh\n"),
            ("./lib/v1/site.py", "print()"),
            ("./lib/current", "->v1"),
        ]),
    );
    let work_dir = fixture.work_dir("c1");
    fixture
        .localize(
            application(1),
            &work_dir,
            &[("env", resource_of(&source, ResourceType::Archive))],
        )
        .await
        .unwrap();

    let env = work_dir.join("env");
    assert_eq!(
        fs::read_to_string(env.join("bin/python")).unwrap(),
        "#!/bin/sh\n"
    );
    assert_eq!(
        fs::read_to_string(env.join("lib/current/site.py")).unwrap(),
        "print()"
    );
}

#[tokio::test]
async fn a_pattern_jar_unpacks_only_matching_entries_and_keeps_the_jar() {
    let fixture = Fixture::new();
    let jar = zip_bytes(&[
        ("META-INF/MANIFEST.MF", b"Manifest-Version: 1.0"),
        ("lib/dep.jar", b"dependency"),
        ("classes/Main.class", b"bytecode"),
    ]);
    let source = fixture.source("job.jar", &jar);
    let mut resource = resource_of(&source, ResourceType::Pattern);
    resource.pattern = "lib/.*".to_owned();
    let work_dir = fixture.work_dir("c1");
    fixture
        .localize(application(1), &work_dir, &[("job.jar", resource)])
        .await
        .unwrap();

    let unpacked = work_dir.join("job.jar");
    assert_eq!(
        fs::read_to_string(unpacked.join("lib/dep.jar")).unwrap(),
        "dependency"
    );
    assert!(!unpacked.join("classes").exists());
    assert!(!unpacked.join("META-INF").exists());
    assert_eq!(fs::read(unpacked.join("job.jar")).unwrap(), jar);
}

#[tokio::test]
async fn a_changed_source_is_refused_naming_the_resource_and_both_values() {
    let fixture = Fixture::new();
    let source = fixture.source("__app__.jar", b"0123456789");
    let work_dir = fixture.work_dir("c1");
    let resource = resource_of(&source, ResourceType::File);

    let older = LocalResource {
        timestamp_ms: resource.timestamp_ms - 1000,
        ..resource.clone()
    };
    let err = fixture
        .localize(application(1), &work_dir, &[("__app__.jar", older)])
        .await
        .unwrap_err();
    assert_eq!(
        err,
        LocalizationError::ChangedOnSource {
            link: "__app__.jar".to_owned(),
            path: source.clone(),
            expected_ms: resource.timestamp_ms - 1000,
            found_ms: resource.timestamp_ms,
        }
    );
    assert!(
        err.to_string().contains("changed on src filesystem"),
        "{err}"
    );

    let bigger = LocalResource {
        size: 11,
        ..resource.clone()
    };
    let err = fixture
        .localize(application(1), &work_dir, &[("__app__.jar", bigger)])
        .await
        .unwrap_err();
    assert!(
        matches!(
            err,
            LocalizationError::SizeMismatch {
                expected: 11,
                found: 10,
                ..
            }
        ),
        "{err}"
    );
    assert!(!work_dir.join("__app__.jar").exists());
    assert!(!fixture.application_cache(application(1)).exists());
}

#[tokio::test]
async fn other_schemes_missing_files_and_non_public_sources_are_refused() {
    let fixture = Fixture::new();
    let work_dir = fixture.work_dir("c1");
    let mut http = resource_of(&fixture.source("a.jar", b"a"), ResourceType::File);
    http.url = "http://repo.example.com/a.jar".to_owned();
    let err = fixture
        .localize(application(1), &work_dir, &[("a.jar", http)])
        .await
        .unwrap_err();
    assert!(
        matches!(&err, LocalizationError::UnsupportedScheme { scheme, .. } if scheme == "http"),
        "{err}"
    );
    assert!(err.to_string().contains("\"a.jar\""), "{err}");

    let missing = LocalResource {
        url: "file:/nonexistent/b.jar".to_owned(),
        ..resource_of(&fixture.source("b.jar", b"b"), ResourceType::File)
    };
    let err = fixture
        .localize(application(1), &work_dir, &[("b.jar", missing)])
        .await
        .unwrap_err();
    assert_eq!(
        err,
        LocalizationError::SourceMissing {
            link: "b.jar".to_owned(),
            path: PathBuf::from("/nonexistent/b.jar"),
        }
    );

    let secret = fixture.source("secret.jar", b"s");
    fs::set_permissions(&secret, fs::Permissions::from_mode(0o600)).unwrap();
    let mut public = resource_of(&secret, ResourceType::File);
    public.visibility = ResourceVisibility::Public;
    let err = fixture
        .localize(application(1), &work_dir, &[("secret.jar", public)])
        .await
        .unwrap_err();
    assert!(matches!(err, LocalizationError::NotPublic { .. }), "{err}");
}

#[tokio::test]
async fn a_readable_public_resource_goes_to_the_node_wide_cache() {
    let fixture = Fixture::new();
    // Every directory above the source must be searchable by others: the temporary
    // directory's own ancestors (/tmp, /) are.
    for dir in [fixture.dir.path(), &fixture.dir.path().join("staging")] {
        fs::set_permissions(dir, fs::Permissions::from_mode(0o755)).unwrap();
    }
    let source = fixture.source("shared.jar", b"shared");
    fs::set_permissions(&source, fs::Permissions::from_mode(0o644)).unwrap();
    let mut resource = resource_of(&source, ResourceType::File);
    resource.visibility = ResourceVisibility::Public;
    let work_dir = fixture.work_dir("c1");
    let localized = fixture
        .localize(application(1), &work_dir, &[("shared.jar", resource)])
        .await
        .unwrap();
    assert!(
        localized[0]
            .path
            .starts_with(fixture.local_dir().join("filecache"))
    );
    let mode = fs::metadata(&localized[0].path)
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o555);
}

#[tokio::test]
async fn archives_reaching_outside_their_directory_are_refused_and_leave_nothing() {
    let fixture = Fixture::new();
    let work_dir = fixture.work_dir("c1");
    let slip = fixture.source("slip.zip", &zip_bytes(&[("../../evil.sh", b"boom")]));
    let err = fixture
        .localize(
            application(1),
            &work_dir,
            &[("slip", resource_of(&slip, ResourceType::Archive))],
        )
        .await
        .unwrap_err();
    assert_eq!(
        err,
        LocalizationError::EntryOutside {
            link: "slip".to_owned(),
            entry: "../../evil.sh".to_owned(),
            target: None,
        }
    );

    for (name, target) in [("abs.tgz", "->/etc/passwd"), ("up.tgz", "->../../x")] {
        let archive = fixture.source(name, &tar_gz_bytes(&[("lib/link", target)]));
        let err = fixture
            .localize(
                application(1),
                &work_dir,
                &[("env", resource_of(&archive, ResourceType::Archive))],
            )
            .await
            .unwrap_err();
        assert!(
            matches!(&err, LocalizationError::EntryOutside { entry, target: Some(_), .. } if entry == "lib/link"),
            "{name}: {err}"
        );
    }
    // A link through a link to the top: each looks inside on its own, together they leave.
    let chained = fixture.source(
        "chained.tgz",
        &tar_gz_bytes(&[
            ("top", "->."),
            ("sub/dummy", "x"),
            ("sub/up", "->../top/.."),
        ]),
    );
    let err = fixture
        .localize(
            application(1),
            &work_dir,
            &[("env", resource_of(&chained, ResourceType::Archive))],
        )
        .await
        .unwrap_err();
    assert!(
        matches!(err, LocalizationError::EntryOutside { .. }),
        "{err}"
    );

    assert!(!fixture.dir.path().join("evil.sh").exists());
    let cache = fixture.application_cache(application(1));
    let left: Vec<_> = fs::read_dir(&cache)
        .map(|entries| entries.collect())
        .unwrap_or_default();
    assert!(left.is_empty(), "{left:?}");
    assert!(!work_dir.join("slip").exists() && !work_dir.join("env").exists());
}

#[tokio::test]
async fn a_second_container_reuses_the_copy() {
    let fixture = Fixture::new();
    let source = fixture.source("__app__.jar", b"app");
    let resource = resource_of(&source, ResourceType::File);
    let first = fixture.work_dir("c1");
    let second = fixture.work_dir("c2");
    let one = fixture
        .localize(application(1), &first, &[("app.jar", resource.clone())])
        .await
        .unwrap();
    let two = fixture
        .localize(application(1), &second, &[("app.jar", resource)])
        .await
        .unwrap();

    assert!(one[0].fresh);
    assert!(!two[0].fresh, "the second container reuses the copy");
    assert_eq!(one[0].path, two[0].path);
    let inode = |work_dir: &Path| fs::metadata(work_dir.join("app.jar")).unwrap().ino();
    assert_eq!(inode(&first), inode(&second));
}

#[tokio::test]
async fn concurrent_containers_localize_a_resource_once() {
    let fixture = Arc::new(Fixture::new());
    let big = vec![7_u8; 4 << 20];
    let source = fixture.source("big.jar", &big);
    let resource = resource_of(&source, ResourceType::File);
    let tasks: Vec<_> = (0..6)
        .map(|index| {
            let fixture = Arc::clone(&fixture);
            let resource = resource.clone();
            tokio::spawn(async move {
                let work_dir = fixture.work_dir(&format!("c{index}"));
                fixture
                    .localize(application(1), &work_dir, &[("big.jar", resource)])
                    .await
                    .unwrap()
                    .remove(0)
            })
        })
        .collect();
    let mut localized = Vec::new();
    for task in tasks {
        localized.push(task.await.unwrap());
    }

    assert_eq!(localized.iter().filter(|one| one.fresh).count(), 1);
    assert!(localized.iter().all(|one| one.path == localized[0].path));
    assert_eq!(fs::read(&localized[0].path).unwrap(), big);
}

#[tokio::test]
async fn an_applications_cache_is_removed_and_the_others_stay() {
    let fixture = Fixture::new();
    let source = fixture.source("a.jar", b"a");
    let application_copy = resource_of(&source, ResourceType::File);
    let private_copy = LocalResource {
        visibility: ResourceVisibility::Private,
        ..application_copy.clone()
    };
    for app in [application(1), application(2)] {
        let work_dir = fixture.work_dir(&app.to_string());
        fixture
            .localize(
                app,
                &work_dir,
                &[
                    ("a.jar", application_copy.clone()),
                    ("p.jar", private_copy.clone()),
                ],
            )
            .await
            .unwrap();
    }

    let removed = fixture
        .localizer
        .remove_application_cache(application(1))
        .await;
    assert_eq!(removed, [fixture.application_cache(application(1))]);
    assert!(!fixture.application_cache(application(1)).exists());
    assert!(fixture.application_cache(application(2)).exists());
    let private_cache = fixture
        .local_dir()
        .join("usercache")
        .join(USER)
        .join("filecache");
    fixture.only_entry(&private_cache);
    // Removing it again finds nothing.
    assert!(
        fixture
            .localizer
            .remove_application_cache(application(1))
            .await
            .is_empty()
    );
}
