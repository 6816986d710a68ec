//! [`TopFrame`]: one screenful of `yarn-ha top` as lines of text.

use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

use super::application_row::ApplicationRow;
use super::top_column::{Alignment, TopColumn};
use super::top_filter::TopFilter;
use super::top_header::header_lines;
use super::top_snapshot::TopSnapshot;
use super::top_view::{Screen, TopView};
use crate::terminal_text::escape_for_terminal;

/// Lines of the application screen above the rows: six of header, the message line and the
/// column headers.
pub const LINES_ABOVE_ROWS: usize = 8;

/// How much a frame may fill, in terminal cells; `None` leaves that dimension unlimited (when
/// stdout is not a terminal and neither `-cols` nor `-rows` was given).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FrameSize {
    /// Characters per line (display width: a CJK character counts two).
    pub columns: Option<usize>,
    /// Lines per frame.
    pub rows: Option<usize>,
}

/// One frame: its lines, free of control characters, none wider than the frame size allows and
/// no more of them than it allows, and which line (if any) holds the column headers the
/// terminal shows in reverse video.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopFrame {
    lines: Vec<String>,
    column_header: Option<usize>,
}

impl TopFrame {
    /// The frame of the screen `view` shows.
    ///
    /// The application screen shows the header of `snapshot` (the queues named as `filter`
    /// names them), a message line, the column headers and one line per application, sorted as
    /// `view` says and cut to the rows left below the header. The message line is empty, or
    /// says that the last refresh failed with `refresh_error` while the figures shown are from
    /// the one before. Without a snapshot yet, the screen holds only that it waits for one (and
    /// why, after a failure).
    ///
    /// Everything users, ApplicationMasters or servers chose is escaped for the terminal first,
    /// so that it can neither act on the terminal nor break a line; then each line is cut to
    /// the frame's width, and lines past its height are left out. With a width, the column
    /// header line is padded to it so that its reverse video spans the screen.
    pub fn render(
        view: &TopView,
        filter: &TopFilter,
        snapshot: Option<&TopSnapshot>,
        refresh_error: Option<&str>,
        size: FrameSize,
    ) -> Self {
        let (mut lines, column_header) = match view.screen() {
            Screen::Applications => match snapshot {
                Some(snapshot) => {
                    let lines = applications_screen(view, filter, snapshot, refresh_error, size);
                    (lines, Some(LINES_ABOVE_ROWS - 1))
                }
                None => (waiting_screen(filter, refresh_error), None),
            },
            Screen::Help => (help_screen(view), None),
            Screen::Sort => (sort_screen(view), None),
            Screen::Fields => (fields_screen(view), None),
        };
        if let Some(rows) = size.rows {
            lines.truncate(rows);
        }
        if let Some(columns) = size.columns {
            for line in &mut lines {
                cut_to_width(line, columns);
            }
            if let Some(line) = column_header.and_then(|index| lines.get_mut(index)) {
                let width = line.width();
                line.push_str(&" ".repeat(columns.saturating_sub(width)));
            }
        }
        let column_header = column_header.filter(|index| *index < lines.len());
        Self {
            lines,
            column_header,
        }
    }

    /// The lines, without line ends.
    pub fn lines(&self) -> &[String] {
        &self.lines
    }

    /// The index of the column header line, when the frame shows it.
    pub fn column_header(&self) -> Option<usize> {
        self.column_header
    }
}

fn applications_screen(
    view: &TopView,
    filter: &TopFilter,
    snapshot: &TopSnapshot,
    refresh_error: Option<&str>,
    size: FrameSize,
) -> Vec<String> {
    let mut lines: Vec<String> = header_lines(snapshot, &filter.queue_label())
        .iter()
        .map(|line| escape_for_terminal(line).into_owned())
        .collect();
    lines.push(refresh_error.map_or_else(String::new, |error| {
        format!(
            "Refresh failed, showing the last figures: {}",
            escape_for_terminal(error)
        )
    }));
    let columns = view.shown_columns();
    let headers: Vec<String> = columns.iter().map(|c| c.header().to_owned()).collect();
    lines.push(table_line(&columns, &headers));
    let mut rows: Vec<ApplicationRow> = snapshot
        .applications
        .iter()
        .map(|report| ApplicationRow::from_report(report, snapshot.taken_at_ms))
        .collect();
    view.sort(&mut rows);
    let room = size
        .rows
        .map_or(rows.len(), |rows| rows.saturating_sub(LINES_ABOVE_ROWS));
    for row in rows.iter().take(room) {
        let cells: Vec<String> = columns
            .iter()
            .map(|column| escape_for_terminal(&row.cell(*column)).into_owned())
            .collect();
        lines.push(table_line(&columns, &cells));
    }
    lines
}

fn waiting_screen(filter: &TopFilter, refresh_error: Option<&str>) -> Vec<String> {
    let mut lines = vec![format!(
        "YARN top - waiting for the first figures, queue(s): {}",
        escape_for_terminal(&filter.queue_label())
    )];
    if let Some(error) = refresh_error {
        lines.push(format!("Refresh failed: {}", escape_for_terminal(error)));
    }
    lines
}

fn help_screen(view: &TopView) -> Vec<String> {
    vec![
        format!(
            "Help for yarn-ha top. Delay: {} secs",
            view.delay().as_secs()
        ),
        String::new(),
        "  s : Select the sort field".to_owned(),
        "  f : Select the fields to display".to_owned(),
        "  r : Reverse the sort order".to_owned(),
        "  h : Display this screen".to_owned(),
        "  q : Quit (Ctrl-C too)".to_owned(),
        String::new(),
        "Press any key to continue (followed by Enter when input is not a terminal)".to_owned(),
    ]
}

fn sort_screen(view: &TopView) -> Vec<String> {
    let current = view.sort_column();
    let mut lines = vec![
        format!(
            "Current sort field: {} ({}), {}",
            current.key(),
            current.header(),
            if view.is_ascending() {
                "ascending"
            } else {
                "descending"
            }
        ),
        "Select the sort field by its key; any other key returns".to_owned(),
        String::new(),
    ];
    lines.extend(columns_by_key().map(|column| {
        let mark = if column == current { '*' } else { ' ' };
        key_line(mark, column.key(), column)
    }));
    lines
}

fn fields_screen(view: &TopView) -> Vec<String> {
    let mut lines = vec![
        "Current fields (shown ones marked *, with an upper-case key)".to_owned(),
        "Toggle a field by its key; any other key returns".to_owned(),
        String::new(),
    ];
    lines.extend(columns_by_key().map(|column| {
        if view.is_shown(column) {
            key_line('*', column.key().to_ascii_uppercase(), column)
        } else {
            key_line(' ', column.key(), column)
        }
    }));
    lines
}

/// The columns in the order of their keys, as Hadoop lists them on the sort and field screens.
fn columns_by_key() -> impl Iterator<Item = TopColumn> {
    let mut columns = TopColumn::ALL;
    columns.sort_by_key(|column| column.key());
    columns.into_iter()
}

fn key_line(mark: char, key: char, column: TopColumn) -> String {
    format!(
        "{mark} {key}: {:<15} = {}",
        column.header(),
        column.description()
    )
}

/// One line of the table: `cells` (already escaped) padded to their columns' widths and
/// alignments by display width, separated by single spaces.
fn table_line(columns: &[TopColumn], cells: &[String]) -> String {
    let mut line = String::new();
    for (index, (column, cell)) in columns.iter().zip(cells).enumerate() {
        if index > 0 {
            line.push(' ');
        }
        let padding = " ".repeat(column.width().saturating_sub(cell.width()));
        match column.alignment() {
            Alignment::Left => {
                line.push_str(cell);
                line.push_str(&padding);
            }
            Alignment::Right => {
                line.push_str(&padding);
                line.push_str(cell);
            }
        }
    }
    line
}

/// Cuts `line` after the last character that ends within `columns` display cells.
fn cut_to_width(line: &mut String, columns: usize) {
    let mut width = 0;
    let end = line
        .char_indices()
        .find(|(_, c)| {
            width += c.width().unwrap_or(0);
            width > columns
        })
        .map(|(index, _)| index);
    if let Some(end) = end {
        line.truncate(end);
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use yarn_proto::ids::ApplicationId;
    use yarn_proto::pb;

    use super::*;

    const TAKEN_AT_MS: i64 = 1_700_000_000_000;

    fn report(id: i32, containers: i32, name: &str) -> pb::ApplicationReportProto {
        pb::ApplicationReportProto {
            application_id: Some(ApplicationId::new(1_700_000_000_000, id).into()),
            user: "alice".to_owned(),
            queue: "default".to_owned(),
            name: name.to_owned(),
            application_type: "YARN".to_owned(),
            start_time: TAKEN_AT_MS - 65 * 60_000,
            progress: 0.5,
            app_resource_usage: Some(pb::ApplicationResourceUsageReportProto {
                num_used_containers: containers,
                used_resources: Some(pb::ResourceProto {
                    memory: i64::from(containers) * 1024,
                    virtual_cores: containers,
                    ..Default::default()
                }),
                memory_seconds: 2048,
                vcore_seconds: 2,
                ..Default::default()
            }),
            priority: Some(pb::PriorityProto { priority: 0 }),
            ..Default::default()
        }
    }

    fn snapshot(applications: Vec<pb::ApplicationReportProto>) -> TopSnapshot {
        TopSnapshot {
            taken_at_ms: TAKEN_AT_MS,
            cluster_metrics: pb::YarnClusterMetricsProto {
                num_node_managers: 1,
                num_active_nms: 1,
                rm_started_on_ms: TAKEN_AT_MS - 60_000,
                ..Default::default()
            },
            queues: vec![],
            applications,
        }
    }

    fn view() -> TopView {
        TopView::new(Duration::from_secs(3))
    }

    fn render(view: &TopView, snapshot: &TopSnapshot, size: FrameSize) -> TopFrame {
        TopFrame::render(view, &TopFilter::default(), Some(snapshot), None, size)
    }

    #[test]
    fn the_table_shows_hadoops_columns_and_one_row_per_application_busiest_first() {
        let snapshot = snapshot(vec![report(1, 1, "small"), report(2, 3, "big")]);
        let frame = render(&view(), &snapshot, FrameSize::default());
        let lines = frame.lines();
        assert_eq!(lines.len(), LINES_ABOVE_ROWS + 2, "{lines:#?}");
        assert!(lines[0].starts_with("YARN top - 22:13:20+00:00, up 0d, 0:01,"));
        assert_eq!(
            lines[6], "",
            "the message line is empty after a good refresh"
        );
        assert_eq!(frame.column_header(), Some(7));
        assert_eq!(
            lines[7],
            "                  APPLICATIONID USER             TYPE      QUEUE PRIOR   #CONT  \
             #RCONT  VCORES RVCORES     MEM    RMEM  VCORESECS    MEMSECS %PROGR       TIME NAME"
        );
        assert_eq!(
            lines[8],
            " application_1700000000000_0002 alice            yarn    default     0       3       \
             0       3       0    3.0G    0.0G          2          2  50.00   00:01:05 big"
        );
        assert!(lines[9].starts_with(" application_1700000000000_0001 "));
        assert!(lines[9].ends_with(" small"));
        // Every cell lines up under its header.
        for column in [" TYPE", " #CONT", " MEM", " %PROGR", " TIME"] {
            let end = lines[7].find(column).unwrap() + column.len();
            assert_eq!(lines[8].as_bytes()[end], b' ', "{column}");
        }
    }

    #[test]
    fn rows_are_cut_to_the_screen_and_lines_to_its_width() {
        let applications = (1..=20).map(|id| report(id, id, "job")).collect();
        let snapshot = snapshot(applications);
        let size = FrameSize {
            columns: Some(60),
            rows: Some(LINES_ABOVE_ROWS + 3),
        };
        let frame = render(&view(), &snapshot, size);
        let lines = frame.lines();
        assert_eq!(lines.len(), LINES_ABOVE_ROWS + 3);
        assert!(lines.iter().all(|line| line.width() <= 60), "{lines:#?}");
        // The column headers are padded to the width, for their reverse video.
        assert_eq!(lines[7].width(), 60);
        // The three busiest of twenty.
        let ids: Vec<&str> = lines[8..]
            .iter()
            .map(|l| l.split_whitespace().next().unwrap())
            .collect();
        assert_eq!(
            ids,
            [
                "application_1700000000000_0020",
                "application_1700000000000_0019",
                "application_1700000000000_0018"
            ]
        );
        // Fewer rows than the header needs: the header is cut, never the other way round.
        let tiny = FrameSize {
            columns: None,
            rows: Some(2),
        };
        assert_eq!(render(&view(), &snapshot, tiny).lines().len(), 2);
        assert_eq!(render(&view(), &snapshot, tiny).column_header(), None);
    }

    #[test]
    fn wide_characters_count_twice_and_are_never_split() {
        let snapshot = snapshot(vec![report(1, 1, "作业作业作业")]);
        let full = render(&view(), &snapshot, FrameSize::default());
        let row_width = full.lines()[8].width();
        let size = FrameSize {
            columns: Some(row_width - 3),
            rows: None,
        };
        let cut = render(&view(), &snapshot, size);
        let row = &cut.lines()[8];
        assert!(row.ends_with("作业"), "{row}");
        assert_eq!(row.width(), row_width - 4);
    }

    #[test]
    fn what_users_chose_is_escaped_and_keeps_its_column() {
        let mut hostile = report(1, 1, "\x1b]0;pwned\x07evil\nline");
        hostile.user = "bob\u{202e}".to_owned();
        let frame = TopFrame::render(
            &view(),
            &TopFilter::new(&["q\x1b[2J".to_owned()], &[], &[]),
            Some(&snapshot(vec![hostile])),
            Some("RM said \x1b[31mno"),
            FrameSize::default(),
        );
        let text = frame.lines().join("\n");
        assert!(!text.contains(['\x1b', '\x07', '\u{202e}']), "{text:?}");
        assert_eq!(frame.lines().len(), LINES_ABOVE_ROWS + 1);
        assert!(frame.lines()[0].ends_with("queue(s): q\\e[2J"));
        assert_eq!(
            frame.lines()[6],
            "Refresh failed, showing the last figures: RM said \\e[31mno"
        );
        let row = &frame.lines()[8];
        assert!(row.ends_with(" \\e]0;pwned\\aevil\\nline"), "{row}");
        // `bob\u{202e}` escaped is 12 characters: more than USER's 10, so no padding.
        assert!(row.contains(" bob\\u{202e} "), "{row}");
    }

    #[test]
    fn hidden_columns_leave_the_table_and_the_sort_order_follows_the_view() {
        let mut view = view();
        for key in [
            'f', 'a', 'u', 't', 'q', 'l', 'r', 'o', 'w', 's', 'y', 'p', 'i', '\r',
        ] {
            view.handle_key(key);
        }
        view.handle_key('r');
        let snapshot = snapshot(vec![report(1, 1, "small"), report(2, 3, "big")]);
        let lines = render(&view, &snapshot, FrameSize::default())
            .lines()
            .to_vec();
        assert_eq!(lines[7], "  #CONT  VCORES     MEM NAME");
        assert_eq!(lines[8], "      1       1    1.0G small", "ascending now");
        assert_eq!(lines[9], "      3       3    3.0G big");
    }

    #[test]
    fn without_figures_the_screen_says_it_waits_and_why() {
        let frame = TopFrame::render(
            &view(),
            &TopFilter::default(),
            None,
            Some("no ResourceManager answered"),
            FrameSize::default(),
        );
        assert_eq!(
            frame.lines(),
            [
                "YARN top - waiting for the first figures, queue(s): root",
                "Refresh failed: no ResourceManager answered",
            ]
        );
        assert_eq!(frame.column_header(), None);
    }

    #[test]
    fn the_sort_field_and_help_screens_list_the_keys() {
        let mut view = view();
        view.handle_key('s');
        let sort = render(&view, &snapshot(vec![]), FrameSize::default());
        assert_eq!(sort.lines()[0], "Current sort field: c (#CONT), descending");
        assert_eq!(sort.lines().len(), 3 + TopColumn::ALL.len());
        assert_eq!(sort.lines()[3], "  a: APPLICATIONID   = Application Id");
        assert_eq!(
            sort.lines()[4],
            "* c: #CONT           = Number of containers"
        );
        view.handle_key('m');
        view.handle_key('f');
        view.handle_key('m');
        let fields = render(&view, &snapshot(vec![]), FrameSize::default());
        assert_eq!(fields.lines()[3], "* A: APPLICATIONID   = Application Id");
        assert!(
            fields
                .lines()
                .contains(&"  m: MEM             = Allocated memory (GB)".to_owned())
        );
        view.handle_key('\r');
        view.handle_key('h');
        let help = render(&view, &snapshot(vec![]), FrameSize::default());
        assert_eq!(help.lines()[0], "Help for yarn-ha top. Delay: 3 secs");
        assert!(help.lines().contains(&"  q : Quit (Ctrl-C too)".to_owned()));
    }
}
