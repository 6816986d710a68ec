//! [`TopView`]: what `yarn-ha top` shows and how keys change it.

use std::collections::BTreeSet;
use std::time::Duration;

use super::application_row::ApplicationRow;
use super::top_column::TopColumn;

/// Ctrl-C as a key: in raw mode the terminal sends it as a character instead of SIGINT.
pub const INTERRUPT_KEY: char = '\u{3}';

/// The screens of `yarn-ha top`, as Hadoop's `yarn top` has them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Screen {
    /// The cluster header and the application table.
    Applications,
    /// The keys and the refresh delay.
    Help,
    /// The columns to sort by, with their keys.
    Sort,
    /// The columns to show or hide, with their keys.
    Fields,
}

/// What a key did to the view.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyOutcome {
    /// The user asked to leave `yarn-ha top`.
    Quit,
    /// The view changed: draw it again (from the figures already fetched).
    Redraw,
    /// The key means nothing here.
    Ignored,
}

/// The state of the display a user steers with keys: the screen, the sort column and order,
/// and the columns shown. Pure: the terminal feeds it keys and draws what it says.
///
/// Keys, as in Hadoop's `yarn top` (letters in either case):
/// - on the application table: `q` quits, `s` opens the sort screen, `f` the field screen,
///   `r` reverses the sort order, `h` (or `?`) opens the help screen;
/// - on the sort screen, a column's key sorts by that column and returns to the table;
/// - on the field screen, a column's key shows or hides that column; the screen stays open;
/// - on the help, sort and field screens any other key returns to the table;
/// - Ctrl-C ([`INTERRUPT_KEY`]) quits from every screen.
#[derive(Debug, Clone, PartialEq)]
pub struct TopView {
    screen: Screen,
    sort_column: TopColumn,
    ascending: bool,
    hidden: BTreeSet<TopColumn>,
    delay: Duration,
}

impl TopView {
    /// Hadoop's starting view: the application table, busiest first (most containers), every
    /// column shown. `delay` is the refresh period the help screen states.
    pub fn new(delay: Duration) -> Self {
        Self {
            screen: Screen::Applications,
            sort_column: TopColumn::Containers,
            ascending: false,
            hidden: BTreeSet::new(),
            delay,
        }
    }

    /// The screen shown.
    pub fn screen(&self) -> Screen {
        self.screen
    }

    /// The column the table is sorted by.
    pub fn sort_column(&self) -> TopColumn {
        self.sort_column
    }

    /// Whether the table is sorted smallest first.
    pub fn is_ascending(&self) -> bool {
        self.ascending
    }

    /// The refresh period, as the help screen states it.
    pub fn delay(&self) -> Duration {
        self.delay
    }

    /// Whether `column` is shown.
    pub fn is_shown(&self, column: TopColumn) -> bool {
        !self.hidden.contains(&column)
    }

    /// The columns shown, in display order.
    pub fn shown_columns(&self) -> Vec<TopColumn> {
        TopColumn::ALL
            .into_iter()
            .filter(|column| self.is_shown(*column))
            .collect()
    }

    /// Sorts `rows` by the sort column in the sort order; rows that compare equal keep the
    /// order of their application ids (ascending in either sort order), so a frame never
    /// depends on the order the RM listed them in.
    pub fn sort(&self, rows: &mut [ApplicationRow]) {
        rows.sort_by(|a, b| {
            let by_column = a.compare(b, self.sort_column);
            let by_column = if self.ascending {
                by_column
            } else {
                by_column.reverse()
            };
            by_column.then_with(|| a.id().cmp(&b.id()))
        });
    }

    /// Applies one key, as the type documentation lists.
    pub fn handle_key(&mut self, key: char) -> KeyOutcome {
        if key == INTERRUPT_KEY {
            return KeyOutcome::Quit;
        }
        let key = key.to_ascii_lowercase();
        match self.screen {
            Screen::Applications => match key {
                'q' => return KeyOutcome::Quit,
                's' => self.screen = Screen::Sort,
                'f' => self.screen = Screen::Fields,
                'r' => self.ascending = !self.ascending,
                'h' | '?' => self.screen = Screen::Help,
                _ => return KeyOutcome::Ignored,
            },
            Screen::Help => self.screen = Screen::Applications,
            Screen::Sort => {
                if let Some(column) = TopColumn::from_key(key) {
                    self.sort_column = column;
                }
                self.screen = Screen::Applications;
            }
            Screen::Fields => match TopColumn::from_key(key) {
                Some(column) => {
                    if !self.hidden.remove(&column) {
                        self.hidden.insert(column);
                    }
                }
                None => self.screen = Screen::Applications,
            },
        }
        KeyOutcome::Redraw
    }
}

#[cfg(test)]
mod tests {
    use yarn_proto::ids::ApplicationId;
    use yarn_proto::pb;

    use super::*;

    fn view() -> TopView {
        TopView::new(Duration::from_secs(3))
    }

    fn row(id: i32, containers: i32, user: &str) -> ApplicationRow {
        let report = pb::ApplicationReportProto {
            application_id: Some(ApplicationId::new(1_700_000_000_000, id).into()),
            user: user.to_owned(),
            app_resource_usage: Some(pb::ApplicationResourceUsageReportProto {
                num_used_containers: containers,
                ..Default::default()
            }),
            ..Default::default()
        };
        ApplicationRow::from_report(&report, 0)
    }

    fn ids(rows: &[ApplicationRow]) -> Vec<String> {
        rows.iter()
            .map(|r| r.cell(TopColumn::ApplicationId))
            .map(|id| {
                id.trim_start_matches("application_1700000000000_")
                    .to_owned()
            })
            .collect()
    }

    #[test]
    fn the_busiest_application_comes_first_and_ties_go_by_id() {
        let mut rows = vec![
            row(3, 1, "c"),
            row(1, 5, "a"),
            row(4, 1, "b"),
            row(2, 1, "d"),
        ];
        view().sort(&mut rows);
        assert_eq!(ids(&rows), ["0001", "0002", "0003", "0004"]);
    }

    #[test]
    fn sort_keys_pick_the_column_and_r_reverses_the_order() {
        let mut view = view();
        let mut rows = vec![row(1, 5, "carol"), row(2, 1, "alice"), row(3, 2, "bob")];
        assert_eq!(view.handle_key('s'), KeyOutcome::Redraw);
        assert_eq!(view.screen(), Screen::Sort);
        // On the sort screen `u` is the USER column, and picking it returns to the table.
        assert_eq!(view.handle_key('u'), KeyOutcome::Redraw);
        assert_eq!(view.screen(), Screen::Applications);
        assert_eq!(view.sort_column(), TopColumn::User);
        view.sort(&mut rows);
        assert_eq!(ids(&rows), ["0001", "0003", "0002"], "descending by user");
        assert_eq!(view.handle_key('R'), KeyOutcome::Redraw);
        assert!(view.is_ascending());
        view.sort(&mut rows);
        assert_eq!(ids(&rows), ["0002", "0003", "0001"], "ascending by user");
    }

    #[test]
    fn q_quits_from_the_table_but_picks_the_queue_column_on_the_sort_screen() {
        let mut view = view();
        view.handle_key('s');
        assert_eq!(view.handle_key('q'), KeyOutcome::Redraw);
        assert_eq!(view.sort_column(), TopColumn::Queue);
        assert_eq!(view.handle_key('Q'), KeyOutcome::Quit);
    }

    #[test]
    fn ctrl_c_quits_from_every_screen() {
        for open in [None, Some('h'), Some('s'), Some('f')] {
            let mut view = view();
            if let Some(key) = open {
                view.handle_key(key);
            }
            assert_eq!(view.handle_key(INTERRUPT_KEY), KeyOutcome::Quit, "{open:?}");
        }
    }

    #[test]
    fn the_field_screen_toggles_columns_until_another_key_returns() {
        let mut view = view();
        view.handle_key('f');
        view.handle_key('n');
        view.handle_key('m');
        assert_eq!(view.screen(), Screen::Fields);
        view.handle_key('m');
        assert!(!view.is_shown(TopColumn::Name));
        assert!(view.is_shown(TopColumn::Memory));
        assert_eq!(view.shown_columns().len(), TopColumn::ALL.len() - 1);
        assert_eq!(view.handle_key('\r'), KeyOutcome::Redraw);
        assert_eq!(view.screen(), Screen::Applications);
    }

    #[test]
    fn any_key_leaves_the_help_screen_and_unknown_keys_are_ignored_on_the_table() {
        let mut view = view();
        assert_eq!(view.handle_key('?'), KeyOutcome::Redraw);
        assert_eq!(view.screen(), Screen::Help);
        assert_eq!(view.handle_key('x'), KeyOutcome::Redraw);
        assert_eq!(view.screen(), Screen::Applications);
        assert_eq!(view.handle_key('x'), KeyOutcome::Ignored);
        assert_eq!(view.handle_key('\n'), KeyOutcome::Ignored);
        assert_eq!(view, TopView::new(Duration::from_secs(3)));
    }
}
