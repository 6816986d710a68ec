//! [`TopColumn`]: the columns of `yarn-ha top`'s application table, with Hadoop's headers,
//! widths and keys.

/// Which side of its column a cell is padded to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Alignment {
    /// Padded on the right: text starts at the column's left edge.
    Left,
    /// Padded on the left: text ends at the column's right edge.
    Right,
}

/// One column of the application table, in Hadoop's display order (`APPLICATIONID` first,
/// `NAME` last). Each has a header, a minimum width, an alignment, a description and the key
/// that picks it on the sort and field screens, all as in Hadoop's `yarn top`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TopColumn {
    /// `APPLICATIONID`.
    ApplicationId,
    /// `USER`: the submitting user.
    User,
    /// `TYPE`: the application type, lower-cased as Hadoop shows it.
    Type,
    /// `QUEUE`: the leaf queue.
    Queue,
    /// `PRIOR`: the application priority.
    Priority,
    /// `#CONT`: live containers.
    Containers,
    /// `#RCONT`: reserved containers.
    ReservedContainers,
    /// `VCORES`: vcores held by live containers.
    Vcores,
    /// `RVCORES`: reserved vcores.
    ReservedVcores,
    /// `MEM`: memory held by live containers, in GB.
    Memory,
    /// `RMEM`: reserved memory, in GB.
    ReservedMemory,
    /// `VCORESECS`: vcore-seconds so far.
    VcoreSeconds,
    /// `MEMSECS`: memory so far, in GB-seconds.
    MemorySeconds,
    /// `%PROGR`: progress as a percentage.
    Progress,
    /// `TIME`: running time since submission, `days:hours:minutes`.
    Time,
    /// `NAME`: the application name; the rest of the line.
    Name,
}

impl TopColumn {
    /// Every column, in display order.
    pub const ALL: [TopColumn; 16] = [
        TopColumn::ApplicationId,
        TopColumn::User,
        TopColumn::Type,
        TopColumn::Queue,
        TopColumn::Priority,
        TopColumn::Containers,
        TopColumn::ReservedContainers,
        TopColumn::Vcores,
        TopColumn::ReservedVcores,
        TopColumn::Memory,
        TopColumn::ReservedMemory,
        TopColumn::VcoreSeconds,
        TopColumn::MemorySeconds,
        TopColumn::Progress,
        TopColumn::Time,
        TopColumn::Name,
    ];

    /// The column's header, as Hadoop prints it.
    pub fn header(self) -> &'static str {
        self.spec().0
    }

    /// The column's minimum width in terminal columns; longer cells are kept whole (only the
    /// whole line is cut to the screen's width). `NAME` has none: it takes the rest of the line.
    pub fn width(self) -> usize {
        self.spec().1
    }

    /// The side its cells are padded to: left-aligned for `USER` and `NAME`, right-aligned for
    /// the others, as Hadoop's format strings have it.
    pub fn alignment(self) -> Alignment {
        match self {
            TopColumn::User | TopColumn::Name => Alignment::Left,
            _ => Alignment::Right,
        }
    }

    /// The key that picks this column on the sort and field screens.
    pub fn key(self) -> char {
        self.spec().2
    }

    /// What the column shows, for the sort and field screens.
    pub fn description(self) -> &'static str {
        self.spec().3
    }

    /// The column whose key is `key` (lower case), if any.
    pub fn from_key(key: char) -> Option<TopColumn> {
        TopColumn::ALL
            .into_iter()
            .find(|column| column.key() == key)
    }

    /// Header, minimum width, key and description.
    fn spec(self) -> (&'static str, usize, char, &'static str) {
        match self {
            TopColumn::ApplicationId => ("APPLICATIONID", 31, 'a', "Application Id"),
            TopColumn::User => ("USER", 10, 'u', "Username"),
            TopColumn::Type => ("TYPE", 10, 't', "Application type"),
            TopColumn::Queue => ("QUEUE", 10, 'q', "Application queue"),
            TopColumn::Priority => ("PRIOR", 5, 'l', "Application priority"),
            TopColumn::Containers => ("#CONT", 7, 'c', "Number of containers"),
            TopColumn::ReservedContainers => ("#RCONT", 7, 'r', "Number of reserved containers"),
            TopColumn::Vcores => ("VCORES", 7, 'v', "Allocated vcores"),
            TopColumn::ReservedVcores => ("RVCORES", 7, 'o', "Reserved vcores"),
            TopColumn::Memory => ("MEM", 7, 'm', "Allocated memory (GB)"),
            TopColumn::ReservedMemory => ("RMEM", 7, 'w', "Reserved memory (GB)"),
            TopColumn::VcoreSeconds => ("VCORESECS", 10, 's', "Vcore seconds"),
            TopColumn::MemorySeconds => ("MEMSECS", 10, 'y', "Memory seconds (GB-seconds)"),
            TopColumn::Progress => ("%PROGR", 6, 'p', "Progress (percentage)"),
            TopColumn::Time => ("TIME", 10, 'i', "Running time (days:hours:minutes)"),
            TopColumn::Name => ("NAME", 0, 'n', "Application name"),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;

    #[test]
    fn every_column_has_its_own_lower_case_key_and_header() {
        let keys: HashSet<char> = TopColumn::ALL.iter().map(|c| c.key()).collect();
        let headers: HashSet<&str> = TopColumn::ALL.iter().map(|c| c.header()).collect();
        assert_eq!(keys.len(), TopColumn::ALL.len());
        assert_eq!(headers.len(), TopColumn::ALL.len());
        for column in TopColumn::ALL {
            assert!(column.key().is_ascii_lowercase(), "{column:?}");
            assert_eq!(TopColumn::from_key(column.key()), Some(column));
            // A header fits its column, so the header line lines up with the rows.
            assert!(column.header().len() <= column.width() || column == TopColumn::Name);
        }
        assert_eq!(TopColumn::from_key('x'), None);
        assert_eq!(TopColumn::from_key('C'), None, "keys are lower case");
    }

    #[test]
    fn display_order_is_hadoops() {
        let headers: Vec<&str> = TopColumn::ALL.iter().map(|c| c.header()).collect();
        assert_eq!(
            headers.join(" "),
            "APPLICATIONID USER TYPE QUEUE PRIOR #CONT #RCONT VCORES RVCORES MEM RMEM \
             VCORESECS MEMSECS %PROGR TIME NAME"
        );
    }
}
