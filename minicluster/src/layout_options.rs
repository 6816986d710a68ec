//! [`LayoutOptions`]: what a cluster layout may add to its plain form.

/// How [`crate::ClusterLayout::create_with`] lays a cluster out beyond its size.
///
/// The default is the plain layout of [`crate::ClusterLayout::create`]: no proxies, no extra
/// properties.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LayoutOptions {
    /// Give every ResourceManager endpoint but the web address a front port that the other
    /// daemons and clients are told about instead of the real one (see
    /// [`crate::ProxyRoute`]). Nothing listens on a front until the caller starts proxies
    /// there, so a proxied layout needs them running before its daemons can talk.
    pub proxied: bool,
    /// Properties added to every `yarn-site.xml` of the layout (name, value), after the
    /// layout's own shared ones, replacing those of the same name; daemons ignore the ones not
    /// meant for them.
    pub site: Vec<(String, String)>,
}
