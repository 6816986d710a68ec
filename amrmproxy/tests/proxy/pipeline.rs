//! Building pipelines from names: ordering, distributed scheduling first, and the errors that
//! stop a NodeManager from starting with a broken pipeline.

use yarn_amrmproxy::{
    ApplicationContext, DefaultRequestInterceptor, Error, InterceptorPipeline, InterceptorRegistry,
    InterceptorRole, RequestInterceptor,
};

use crate::support::{proxy_config, rm_client};

const KEY: &str = "yarn.nodemanager.amrmproxy.interceptor-class.pipeline";

/// An interceptor that only passes requests on.
struct PassThrough;

impl RequestInterceptor for PassThrough {
    fn init(&mut self, _context: ApplicationContext) -> Result<(), Error> {
        Ok(())
    }
}

fn registry() -> InterceptorRegistry {
    let config = proxy_config("default", false, &[]);
    InterceptorRegistry::with_builtins(&config, rm_client("127.0.0.1:1"))
}

fn build(names: &str, distributed: bool) -> Result<Vec<String>, Error> {
    let names: Vec<String> = names
        .split(',')
        .filter(|name| !name.is_empty())
        .map(str::to_owned)
        .collect();
    InterceptorPipeline::new(&names, distributed, registry())
        .map(|pipeline| pipeline.names().to_vec())
}

#[test]
fn names_keep_their_order_and_hadoop_class_names_are_accepted() {
    assert_eq!(build("default", false).unwrap(), ["default"]);
    assert_eq!(
        build("throttle,default", false).unwrap(),
        ["throttle", "default"]
    );
    assert_eq!(
        build(
            "org.apache.hadoop.yarn.server.nodemanager.amrmproxy.DefaultRequestInterceptor",
            false
        )
        .unwrap(),
        ["default"]
    );
}

#[test]
fn distributed_scheduling_puts_its_scheduler_first_exactly_once() {
    assert_eq!(
        build("throttle,default", true).unwrap(),
        ["distributed-scheduler", "throttle", "default"]
    );
    assert_eq!(
        build("throttle,distributed-scheduler,default", true).unwrap(),
        ["distributed-scheduler", "throttle", "default"]
    );
    assert_eq!(
        build(
            "org.apache.hadoop.yarn.server.nodemanager.scheduler.DistributedScheduler,default",
            true
        )
        .unwrap(),
        ["distributed-scheduler", "default"]
    );
    // Without distributed scheduling, a listed scheduler stays where it is.
    assert_eq!(
        build("throttle,distributed-scheduler,default", false).unwrap(),
        ["throttle", "distributed-scheduler", "default"]
    );
}

#[test]
fn an_unknown_name_is_refused_with_the_key_value_and_known_names() {
    let err = build("throttle,fedration,default", false).unwrap_err();
    assert!(
        matches!(&err, Error::UnknownInterceptor { name, .. } if name == "fedration"),
        "{err:?}"
    );
    let message = err.to_string();
    assert!(message.contains(KEY), "{message}");
    assert!(message.contains("throttle,fedration,default"), "{message}");
    assert!(message.contains("distributed-scheduler"), "{message}");
}

#[test]
fn an_empty_pipeline_is_refused() {
    assert!(matches!(
        build("", false),
        Err(Error::EmptyPipeline { key: KEY })
    ));
}

#[test]
fn the_last_interceptor_must_talk_to_a_resource_manager_and_only_the_last() {
    let err = build("throttle", false).unwrap_err();
    assert!(
        matches!(&err, Error::LastInterceptorNotRmFacing { last, .. } if last == "throttle"),
        "{err:?}"
    );
    assert!(err.to_string().contains("default"), "{err}");
    // Distributed scheduling alone has nothing to forward GUARANTEED asks to.
    assert!(matches!(
        build("distributed-scheduler", false),
        Err(Error::LastInterceptorNotRmFacing { .. })
    ));
    let err = build("default,throttle", false).unwrap_err();
    assert!(
        matches!(&err, Error::RmFacingInterceptorNotLast { name, .. } if name == "default"),
        "{err:?}"
    );
    assert!(matches!(
        build("throttle,throttle,default", false),
        Err(Error::DuplicateInterceptor { name, .. }) if name == "throttle"
    ));
}

#[test]
fn extra_interceptors_register_by_name_with_their_role() {
    let mut registry = registry();
    registry
        .register("audit", InterceptorRole::Intermediate, || {
            Box::new(PassThrough)
        })
        .unwrap();
    registry
        .register("federation", InterceptorRole::RmFacing, || {
            Box::new(DefaultRequestInterceptor::new(rm_client("127.0.0.1:1")))
        })
        .unwrap();
    let names = ["audit".to_owned(), "federation".to_owned()];
    let pipeline = InterceptorPipeline::new(&names, true, registry.clone()).unwrap();
    assert_eq!(
        pipeline.names(),
        ["distributed-scheduler", "audit", "federation"]
    );

    assert!(matches!(
        registry.register("default", InterceptorRole::RmFacing, || Box::new(
            PassThrough
        )),
        Err(Error::InterceptorAlreadyRegistered { .. })
    ));
    for bad in ["", "a,b", "a/b", "a b"] {
        assert!(
            matches!(
                registry.register(bad, InterceptorRole::Intermediate, || Box::new(PassThrough)),
                Err(Error::InvalidInterceptorName { .. })
            ),
            "{bad:?}"
        );
    }
}
