//! What one application submission may carry, checked before anything is proposed: no caller
//! can make every replica store megabytes per application, or an AM that can never be placed.

use yarn_proto::pb;

/// The longest application name or queue name accepted, in bytes. Hadoop bounds neither except
/// through its state store's node size; names longer than this are not names.
pub const MAX_NAME_BYTES: usize = 1024;

/// Hadoop's `YarnConfiguration.APPLICATION_TYPE_LENGTH`: longer application types are cut to
/// this many characters, as Hadoop's RM does.
pub const APPLICATION_TYPE_LENGTH: usize = 20;

/// The largest `yarn.resourcemanager.zk-max-znode-size.bytes` accepted: tonic's default limit
/// on a decoded message, which the client port keeps, so no larger submission could arrive.
pub const MAX_CONTEXT_BYTES_LIMIT: usize = 4 * 1024 * 1024;

/// How much of a refused value a refusal quotes, so that an error never echoes a megabyte of
/// the caller's input back (a 1 MB queue name once broke the client's metadata limit).
const QUOTED_CHARS: usize = 64;

/// The limits of `yarn-site.xml` a submission is checked against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SubmissionLimits {
    /// `yarn.resourcemanager.zk-max-znode-size.bytes`: the most bytes of submission context
    /// (launch context, tokens, environment, commands) replicated for one application. Hadoop
    /// caps what its state store keeps per application with this key; yarn-ha's state store
    /// is the Raft log, and every replica keeps the context.
    pub max_context_bytes: usize,
    /// `yarn.application.max-tags`.
    pub max_tags: usize,
    /// `yarn.application.max-tag.length`, in characters.
    pub max_tag_length: usize,
}

impl Default for SubmissionLimits {
    /// Hadoop's defaults: 1 MiB, 10 tags of 100 characters.
    fn default() -> Self {
        Self {
            max_context_bytes: 1024 * 1024,
            max_tags: 10,
            max_tag_length: 100,
        }
    }
}

/// Why a submission was refused before it was proposed. Quoted values are cut to a short prefix.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SubmissionRefusal {
    /// The encoded submission context is larger than the limit.
    #[error(
        "the application submission context is {bytes} bytes, more than the {limit} bytes \
         yarn.resourcemanager.zk-max-znode-size.bytes allows"
    )]
    ContextTooLarge { bytes: usize, limit: usize },
    /// The application or queue name is longer than [`MAX_NAME_BYTES`].
    #[error("the {field} {quoted} is {bytes} bytes long, more than the {limit} allowed")]
    NameTooLong {
        field: &'static str,
        quoted: String,
        bytes: usize,
        limit: usize,
    },
    /// More tags than `yarn.application.max-tags`.
    #[error("{count} applicationTags, more than the {limit} yarn.application.max-tags allows")]
    TooManyTags { count: usize, limit: usize },
    /// A tag longer than `yarn.application.max-tag.length`.
    #[error(
        "tag {quoted} is {chars} characters long, more than the {limit} \
         yarn.application.max-tag.length allows"
    )]
    TagTooLong {
        quoted: String,
        chars: usize,
        limit: usize,
    },
    /// A tag with other than ASCII characters, which Hadoop refuses too.
    #[error("tag {quoted} has characters other than ASCII")]
    TagNotAscii { quoted: String },
    /// An AM resource that is not positive, which no node could ever hold.
    #[error("the AM container asks for {memory_mb} MB and {vcores} vcores; both must be positive")]
    AmResourceNotPositive { memory_mb: i64, vcores: i32 },
    /// A negative application priority.
    #[error("application priority {priority} is negative; priorities run from 0 upwards")]
    NegativePriority { priority: i32 },
}

impl SubmissionLimits {
    /// Checks `context` against these limits and the rules above.
    ///
    /// # Errors
    ///
    /// The first [`SubmissionRefusal`] that applies, in the order of its variants.
    pub fn check(
        &self,
        context: &pb::ApplicationSubmissionContextProto,
    ) -> Result<(), SubmissionRefusal> {
        use prost::Message;
        let bytes = context.encoded_len();
        if bytes > self.max_context_bytes {
            return Err(SubmissionRefusal::ContextTooLarge {
                bytes,
                limit: self.max_context_bytes,
            });
        }
        for (field, value) in [
            ("application name", &context.application_name),
            ("queue", &context.queue),
        ] {
            if let Some(value) = value
                && value.len() > MAX_NAME_BYTES
            {
                return Err(SubmissionRefusal::NameTooLong {
                    field,
                    quoted: quote(value),
                    bytes: value.len(),
                    limit: MAX_NAME_BYTES,
                });
            }
        }
        self.check_tags(&context.application_tags)?;
        // An unmanaged AM runs outside the cluster: its resource is never allocated.
        let am_resources = context
            .am_container_resource_request
            .iter()
            .filter_map(|request| request.capability.as_ref())
            .chain(context.resource.as_ref())
            .filter(|_| !context.unmanaged_am);
        for resource in am_resources {
            let (memory_mb, vcores) = (resource.memory, resource.virtual_cores);
            if memory_mb <= 0 || vcores <= 0 {
                return Err(SubmissionRefusal::AmResourceNotPositive { memory_mb, vcores });
            }
        }
        if let Some(priority) = context.priority.map(|p| p.priority)
            && priority < 0
        {
            return Err(SubmissionRefusal::NegativePriority { priority });
        }
        Ok(())
    }

    fn check_tags(&self, tags: &[String]) -> Result<(), SubmissionRefusal> {
        if tags.len() > self.max_tags {
            return Err(SubmissionRefusal::TooManyTags {
                count: tags.len(),
                limit: self.max_tags,
            });
        }
        for tag in tags {
            if !tag.is_ascii() {
                return Err(SubmissionRefusal::TagNotAscii { quoted: quote(tag) });
            }
            if tag.len() > self.max_tag_length {
                return Err(SubmissionRefusal::TagTooLong {
                    quoted: quote(tag),
                    chars: tag.len(),
                    limit: self.max_tag_length,
                });
            }
        }
        Ok(())
    }
}

/// `value` quoted with Rust's escapes, cut to [`QUOTED_CHARS`] characters with an ellipsis.
fn quote(value: &str) -> String {
    let mut chars = value.chars();
    let prefix: String = chars.by_ref().take(QUOTED_CHARS).collect();
    if chars.next().is_some() {
        format!("{prefix:?}...")
    } else {
        format!("{prefix:?}")
    }
}

/// `application_type` cut to [`APPLICATION_TYPE_LENGTH`] characters, as Hadoop's RM records it.
pub fn recorded_application_type(application_type: &str) -> String {
    application_type
        .chars()
        .take(APPLICATION_TYPE_LENGTH)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn context() -> pb::ApplicationSubmissionContextProto {
        pb::ApplicationSubmissionContextProto {
            application_name: Some("sleep".to_owned()),
            queue: Some("default".to_owned()),
            application_tags: vec!["etl".to_owned()],
            resource: Some(pb::ResourceProto {
                memory: 1024,
                virtual_cores: 1,
                ..pb::ResourceProto::default()
            }),
            priority: Some(pb::PriorityProto { priority: 0 }),
            ..pb::ApplicationSubmissionContextProto::default()
        }
    }

    fn refusal(context: &pb::ApplicationSubmissionContextProto) -> SubmissionRefusal {
        SubmissionLimits::default()
            .check(context)
            .expect_err("the submission is refused")
    }

    #[test]
    fn an_ordinary_submission_and_an_unsized_one_pass() {
        assert_eq!(SubmissionLimits::default().check(&context()), Ok(()));
        let unsized_am = pb::ApplicationSubmissionContextProto {
            resource: None,
            ..context()
        };
        assert_eq!(SubmissionLimits::default().check(&unsized_am), Ok(()));
    }

    #[test]
    fn a_context_above_the_limit_is_refused_naming_the_key() {
        let mut large = context();
        large.am_container_spec = Some(pb::ContainerLaunchContextProto {
            commands: vec!["x".repeat(2 * 1024 * 1024)],
            ..pb::ContainerLaunchContextProto::default()
        });
        let message = refusal(&large).to_string();
        assert!(
            message.contains("yarn.resourcemanager.zk-max-znode-size.bytes")
                && message.contains("1048576"),
            "{message}"
        );
        assert!(message.len() < 200, "the refusal does not echo the input");
    }

    #[test]
    fn long_names_are_refused_and_quoted_short() {
        let long_queue = pb::ApplicationSubmissionContextProto {
            queue: Some("q".repeat(1024 * 1024 - 100)),
            ..context()
        };
        let message = refusal(&long_queue).to_string();
        assert!(message.starts_with("the queue \"qqq"), "{message}");
        assert!(message.len() < 200, "{message}");
        let long_name = pb::ApplicationSubmissionContextProto {
            application_name: Some("\u{1b}]0;pwned\u{7}".repeat(200)),
            ..context()
        };
        let message = refusal(&long_name).to_string();
        assert!(
            !message.contains('\u{1b}'),
            "control characters are escaped: {message}"
        );
    }

    #[test]
    fn tags_are_bounded_as_hadoop_bounds_them() {
        let many = pb::ApplicationSubmissionContextProto {
            application_tags: (0..11).map(|i| format!("t{i}")).collect(),
            ..context()
        };
        assert_eq!(
            refusal(&many),
            SubmissionRefusal::TooManyTags {
                count: 11,
                limit: 10
            }
        );
        let long = pb::ApplicationSubmissionContextProto {
            application_tags: vec!["t".repeat(101)],
            ..context()
        };
        assert!(matches!(
            refusal(&long),
            SubmissionRefusal::TagTooLong {
                chars: 101,
                limit: 100,
                ..
            }
        ));
        let accented = pb::ApplicationSubmissionContextProto {
            application_tags: vec!["café".to_owned()],
            ..context()
        };
        assert!(matches!(
            refusal(&accented),
            SubmissionRefusal::TagNotAscii { .. }
        ));
    }

    #[test]
    fn an_am_that_no_node_could_hold_and_a_negative_priority_are_refused() {
        let negative = pb::ApplicationSubmissionContextProto {
            resource: Some(pb::ResourceProto {
                memory: -1024,
                virtual_cores: 1,
                ..pb::ResourceProto::default()
            }),
            ..context()
        };
        assert_eq!(
            refusal(&negative),
            SubmissionRefusal::AmResourceNotPositive {
                memory_mb: -1024,
                vcores: 1
            }
        );
        let mut zero_vcores = context();
        zero_vcores.am_container_resource_request = vec![pb::ResourceRequestProto {
            capability: Some(pb::ResourceProto {
                memory: 1024,
                virtual_cores: 0,
                ..pb::ResourceProto::default()
            }),
            ..pb::ResourceRequestProto::default()
        }];
        assert!(matches!(
            refusal(&zero_vcores),
            SubmissionRefusal::AmResourceNotPositive { vcores: 0, .. }
        ));
        let negative_priority = pb::ApplicationSubmissionContextProto {
            priority: Some(pb::PriorityProto { priority: -1 }),
            ..context()
        };
        assert_eq!(
            refusal(&negative_priority),
            SubmissionRefusal::NegativePriority { priority: -1 }
        );
    }

    #[test]
    fn application_types_are_cut_as_hadoop_cuts_them() {
        assert_eq!(recorded_application_type("MAPREDUCE"), "MAPREDUCE");
        assert_eq!(
            recorded_application_type("A-VERY-LONG-APPLICATION-TYPE"),
            "A-VERY-LONG-APPLICAT"
        );
    }
}
