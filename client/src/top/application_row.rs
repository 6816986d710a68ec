//! [`ApplicationRow`]: one application's figures as `yarn-ha top` shows and sorts them.

use std::cmp::Ordering;

use yarn_proto::ids::ApplicationId;
use yarn_proto::pb;

use super::top_column::TopColumn;
use crate::application_cli::text::application_id_text;

const MB_PER_GB: f64 = 1024.0;

/// One application's row of the table: the figures of its report at one instant, each kept as
/// a number for sorting and printed by [`cell`](Self::cell).
#[derive(Debug, Clone, PartialEq)]
pub struct ApplicationRow {
    /// `None` for a report without a valid id; it prints as `N/A` and sorts before every id.
    id: Option<ApplicationId>,
    user: String,
    /// Lower-cased, as Hadoop shows it.
    application_type: String,
    queue: String,
    priority: i32,
    containers: i32,
    reserved_containers: i32,
    vcores: i32,
    reserved_vcores: i32,
    memory_mb: i64,
    reserved_memory_mb: i64,
    vcore_seconds: i64,
    memory_mb_seconds: i64,
    /// Between 0 and 1.
    progress: f32,
    /// Milliseconds since submission; never negative, even when the clocks disagree.
    running_ms: i64,
    name: String,
}

impl ApplicationRow {
    /// The row of `report` seen at `now_ms` (ms since the Unix epoch). Absent usage figures
    /// count as zero and an absent priority as 0, as in Hadoop.
    pub fn from_report(report: &pb::ApplicationReportProto, now_ms: i64) -> Self {
        let usage = report.app_resource_usage.clone().unwrap_or_default();
        let used = usage.used_resources.unwrap_or_default();
        let reserved = usage.reserved_resources.unwrap_or_default();
        Self {
            id: report
                .application_id
                .and_then(|id| ApplicationId::try_from(id).ok()),
            user: report.user.clone(),
            application_type: report.application_type.to_lowercase(),
            queue: report.queue.clone(),
            priority: report.priority.map_or(0, |p| p.priority),
            containers: usage.num_used_containers,
            reserved_containers: usage.num_reserved_containers,
            vcores: used.virtual_cores,
            reserved_vcores: reserved.virtual_cores,
            memory_mb: used.memory,
            reserved_memory_mb: reserved.memory,
            vcore_seconds: usage.vcore_seconds,
            memory_mb_seconds: usage.memory_seconds,
            progress: report.progress,
            running_ms: now_ms.saturating_sub(report.start_time).max(0),
            name: report.name.clone(),
        }
    }

    /// The text of this row's cell in `column`, as received (the frame escapes it for the
    /// terminal): memory in GB with one decimal (`1.5G`), memory-seconds in whole GB-seconds,
    /// progress as a percentage with two decimals (`42.50`), the running time as
    /// `days:hours:minutes` (`00:01:05`).
    pub fn cell(&self, column: TopColumn) -> String {
        match column {
            TopColumn::ApplicationId => application_id_text(self.id.map(Into::into).as_ref()),
            TopColumn::User => self.user.clone(),
            TopColumn::Type => self.application_type.clone(),
            TopColumn::Queue => self.queue.clone(),
            TopColumn::Priority => self.priority.to_string(),
            TopColumn::Containers => self.containers.to_string(),
            TopColumn::ReservedContainers => self.reserved_containers.to_string(),
            TopColumn::Vcores => self.vcores.to_string(),
            TopColumn::ReservedVcores => self.reserved_vcores.to_string(),
            TopColumn::Memory => format_gigabytes(self.memory_mb),
            TopColumn::ReservedMemory => format_gigabytes(self.reserved_memory_mb),
            TopColumn::VcoreSeconds => self.vcore_seconds.to_string(),
            // Whole GB-seconds, as Hadoop prints them.
            TopColumn::MemorySeconds => (self.memory_mb_seconds / 1024).to_string(),
            TopColumn::Progress => format!("{:.2}", f64::from(self.progress) * 100.0),
            TopColumn::Time => format_running_time(self.running_ms),
            TopColumn::Name => self.name.clone(),
        }
    }

    /// How this row compares with `other` by `column`, ascending: numbers by value, the
    /// application id by cluster timestamp then sequence number (so `_10000` follows `_9999`),
    /// text by its characters.
    pub fn compare(&self, other: &Self, column: TopColumn) -> Ordering {
        match column {
            TopColumn::ApplicationId => self.id.cmp(&other.id),
            TopColumn::User => self.user.cmp(&other.user),
            TopColumn::Type => self.application_type.cmp(&other.application_type),
            TopColumn::Queue => self.queue.cmp(&other.queue),
            TopColumn::Priority => self.priority.cmp(&other.priority),
            TopColumn::Containers => self.containers.cmp(&other.containers),
            TopColumn::ReservedContainers => {
                self.reserved_containers.cmp(&other.reserved_containers)
            }
            TopColumn::Vcores => self.vcores.cmp(&other.vcores),
            TopColumn::ReservedVcores => self.reserved_vcores.cmp(&other.reserved_vcores),
            TopColumn::Memory => self.memory_mb.cmp(&other.memory_mb),
            TopColumn::ReservedMemory => self.reserved_memory_mb.cmp(&other.reserved_memory_mb),
            TopColumn::VcoreSeconds => self.vcore_seconds.cmp(&other.vcore_seconds),
            TopColumn::MemorySeconds => self.memory_mb_seconds.cmp(&other.memory_mb_seconds),
            TopColumn::Progress => self.progress.total_cmp(&other.progress),
            TopColumn::Time => self.running_ms.cmp(&other.running_ms),
            TopColumn::Name => self.name.cmp(&other.name),
        }
    }

    /// The application id, for the tie-break that makes every sort order total.
    pub(super) fn id(&self) -> Option<ApplicationId> {
        self.id
    }
}

/// Megabytes as gigabytes with one decimal: `0.5`, `12.0`. One decimal rather than Hadoop's
/// whole gigabytes, which show a 512 MB container as `0`.
pub(super) fn gigabytes(mb: i64) -> String {
    format!("{:.1}", mb as f64 / MB_PER_GB)
}

/// Megabytes as [`gigabytes`] with a `G`, as the memory columns show them: `0.5G`.
fn format_gigabytes(mb: i64) -> String {
    format!("{}G", gigabytes(mb))
}

/// A duration as Hadoop's `dd:HH:mm`: whole days (two digits at least), hours and minutes.
fn format_running_time(ms: i64) -> String {
    let minutes = ms / 60_000;
    format!(
        "{:02}:{:02}:{:02}",
        minutes / (24 * 60),
        minutes / 60 % 24,
        minutes % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(id: i32) -> pb::ApplicationReportProto {
        pb::ApplicationReportProto {
            application_id: Some(ApplicationId::new(1_700_000_000_000, id).into()),
            user: "alice".to_owned(),
            queue: "root.default".to_owned(),
            name: "word count".to_owned(),
            application_type: "MAPREDUCE".to_owned(),
            start_time: 1_700_000_000_000,
            progress: 0.425,
            priority: Some(pb::PriorityProto { priority: 3 }),
            app_resource_usage: Some(pb::ApplicationResourceUsageReportProto {
                num_used_containers: 4,
                num_reserved_containers: 1,
                used_resources: Some(pb::ResourceProto {
                    memory: 1536,
                    virtual_cores: 4,
                    ..Default::default()
                }),
                reserved_resources: Some(pb::ResourceProto {
                    memory: 512,
                    virtual_cores: 1,
                    ..Default::default()
                }),
                memory_seconds: 10_240_000,
                vcore_seconds: 3_600,
                ..Default::default()
            }),
            ..Default::default()
        }
    }

    #[test]
    fn cells_show_hadoops_figures_with_memory_in_gigabytes() {
        // One day, two hours and five minutes after submission.
        let now = 1_700_000_000_000 + ((24 + 2) * 60 + 5) * 60_000 + 59_000;
        let row = ApplicationRow::from_report(&report(7), now);
        let cells: Vec<String> = TopColumn::ALL.iter().map(|c| row.cell(*c)).collect();
        assert_eq!(
            cells,
            [
                "application_1700000000000_0007",
                "alice",
                "mapreduce",
                "root.default",
                "3",
                "4",
                "1",
                "4",
                "1",
                "1.5G",
                "0.5G",
                "3600",
                "10000",
                "42.50",
                "01:02:05",
                "word count",
            ]
        );
    }

    #[test]
    fn a_sparse_report_shows_zeros_and_not_available() {
        let row = ApplicationRow::from_report(&pb::ApplicationReportProto::default(), 5_000);
        assert_eq!(row.cell(TopColumn::ApplicationId), "N/A");
        assert_eq!(row.cell(TopColumn::Containers), "0");
        assert_eq!(row.cell(TopColumn::Memory), "0.0G");
        assert_eq!(row.cell(TopColumn::Priority), "0");
        assert_eq!(row.cell(TopColumn::Progress), "0.00");
        assert_eq!(row.cell(TopColumn::Time), "00:00:00");
    }

    #[test]
    fn a_start_after_now_shows_no_negative_time() {
        let row = ApplicationRow::from_report(&report(1), 1_600_000_000_000);
        assert_eq!(row.cell(TopColumn::Time), "00:00:00");
    }

    #[test]
    fn ids_compare_by_number_and_figures_by_value() {
        let a = ApplicationRow::from_report(&report(9_999), 0);
        let b = ApplicationRow::from_report(&report(10_000), 0);
        assert_eq!(a.compare(&b, TopColumn::ApplicationId), Ordering::Less);
        let mut bigger = report(1);
        bigger
            .app_resource_usage
            .as_mut()
            .unwrap()
            .num_used_containers = 10;
        let bigger = ApplicationRow::from_report(&bigger, 0);
        // 10 > 4 by value, though "10" < "4" as text.
        assert_eq!(bigger.compare(&a, TopColumn::Containers), Ordering::Greater);
        let sparse = ApplicationRow::from_report(&pb::ApplicationReportProto::default(), 0);
        assert_eq!(
            sparse.compare(&a, TopColumn::ApplicationId),
            Ordering::Less,
            "a report without an id sorts first"
        );
    }
}
