//! [`Page`]: the frame every web UI page of a daemon is drawn in.

use maud::{DOCTYPE, Markup, PreEscaped, html};

/// The style sheet, inline so a page is one request and works without anything else served.
/// Kept plain: tables, a navigation column, and the used/capacity bars of the scheduler page.
const STYLE: &str = "\
body{font-family:sans-serif;font-size:13px;margin:0;color:#222}\
header{background:#2d3e50;color:#fff;padding:8px 16px}\
header h1{font-size:18px;margin:0;display:inline}\
header .who{float:right;font-size:12px;opacity:.8}\
nav{float:left;width:160px;padding:12px 16px}\
nav h2{font-size:13px;margin:12px 0 4px}\
nav a{display:block;padding:2px 0}\
main{margin-left:200px;padding:12px 16px}\
table{border-collapse:collapse;margin:8px 0 16px}\
th,td{border:1px solid #ccc;padding:3px 6px;text-align:left;vertical-align:top}\
th{background:#eef1f5}\
td.num{text-align:right}\
.bar{position:relative;width:240px;height:14px;background:#f2f2f2;border:1px solid #aaa}\
.bar .used{position:absolute;left:0;top:0;bottom:0;background:#6c9bd2}\
.bar .capacity{position:absolute;top:0;bottom:0;border-right:2px solid #333}\
.refusal{color:#a00}";

/// A link in the navigation column: its text and target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NavLink {
    /// The text.
    pub text: &'static str,
    /// The target path.
    pub href: &'static str,
}

/// A titled group of navigation links.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NavSection {
    /// The group's heading.
    pub heading: &'static str,
    /// Its links.
    pub links: &'static [NavLink],
}

/// The frame of a daemon's web UI: a header naming the daemon and the caller, a navigation
/// column, and the page's content, as Hadoop's web UIs lay them out.
///
/// Guarantees: pages are complete HTML documents that need no script and no second request
/// (the style is inline), and every text drawn through [`maud::html!`] is escaped, so a name
/// an application chose cannot inject markup.
#[derive(Debug, Clone, Copy)]
pub struct Page<'a> {
    /// The daemon, shown first in the header, e.g. `ResourceManager rm1`.
    pub daemon: &'a str,
    /// Who the daemon took the caller for.
    pub caller: &'a str,
    /// The navigation column.
    pub nav: &'a [NavSection],
}

impl Page<'_> {
    /// The document titled `title` with `content` as its body.
    pub fn render(&self, title: &str, content: &Markup) -> Markup {
        html! {
            (DOCTYPE)
            html lang="en" {
                head {
                    meta charset="utf-8";
                    title { (title) " - " (self.daemon) }
                    style { (PreEscaped(STYLE)) }
                }
                body {
                    header {
                        h1 { (self.daemon) ": " (title) }
                        span.who { "Logged in as: " (self.caller) }
                    }
                    nav {
                        @for section in self.nav {
                            h2 { (section.heading) }
                            @for link in section.links {
                                a href=(link.href) { (link.text) }
                            }
                        }
                    }
                    main { (content) }
                }
            }
        }
    }
}

/// A bar drawing `used` against `capacity` and a maximum of 100, all percentages of the same
/// whole (a queue's share of its parent, say). Values outside 0..=100 are drawn at the edge.
pub fn usage_bar(used: f64, capacity: f64) -> Markup {
    let clamp = |value: f64| {
        if value.is_finite() {
            value.clamp(0.0, 100.0)
        } else {
            0.0
        }
    };
    html! {
        div.bar title=(format!("{used:.1}% used of {capacity:.1}%")) {
            div.used style=(format!("width:{:.1}%", clamp(used))) {}
            div.capacity style=(format!("width:{:.1}%", clamp(capacity))) {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NAV: &[NavSection] = &[NavSection {
        heading: "Cluster",
        links: &[NavLink {
            text: "Nodes",
            href: "/cluster/nodes",
        }],
    }];

    #[test]
    fn text_is_escaped_and_the_frame_is_complete() {
        let page = Page {
            daemon: "ResourceManager rm1",
            caller: "<alice>",
            nav: NAV,
        };
        let content = html! { p { ("<script>alert(1)</script>") } };
        let text = page.render("Applications", &content).into_string();
        assert!(text.starts_with("<!DOCTYPE html>"), "{text}");
        assert!(
            text.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
            "{text}"
        );
        assert!(!text.contains("<script>"), "{text}");
        assert!(text.contains("Logged in as: &lt;alice&gt;"), "{text}");
        assert!(
            text.contains(r#"<a href="/cluster/nodes">Nodes</a>"#),
            "{text}"
        );
        assert!(
            text.contains("<title>Applications - ResourceManager rm1</title>"),
            "{text}"
        );
    }

    #[test]
    fn bars_stay_inside_their_box() {
        let bar = usage_bar(250.0, f64::NAN).into_string();
        assert!(bar.contains("width:100.0%"), "{bar}");
        assert!(bar.contains("width:0.0%"), "{bar}");
        assert!(bar.contains("250.0% used"), "{bar}");
    }
}
