import Foundation

/// Why the store could not do what was asked.
public enum StoreError: Error, Equatable {
    /// The database was written by a newer version of this tool.
    case newerVersion
    /// The home folder could not be created.
    case cannotCreateHome(String)
    /// Another process held the database for longer than the busy timeout.
    case busy
    /// No entry has this id or prefix.
    case entryNotFound(String)
    /// More than one entry starts with this prefix.
    case ambiguous(String)
    /// No draft is open.
    case noOpenDraft
    /// The entry is saved; only drafts can be discarded.
    case alreadySaved
    /// SQLite failed in some other way (the detail is for logs, never shown raw).
    case io(String)
}
