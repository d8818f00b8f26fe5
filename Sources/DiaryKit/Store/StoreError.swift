import Foundation

/// Why the store could not do what was asked.
package enum StoreError: Error, Equatable {
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
    /// A record to merge carries a clock more than a day ahead of this device's (the id says whose).
    case clockFromFuture(String)
    /// A record to merge contradicts what is stored (a message or photo moved to another entry).
    case invalidRecord(String)
    /// A value that must be one line (a page's title or place) holds a line break: the field.
    case lineBreak(String)
    /// A tag typed by hand is longer than a tag's name keeps (its start).
    case tagTooLong(String)
    /// A text holds a NUL byte, which no text keeps (the field).
    case notText(String)
    /// Only a saved page can go to the trash (a draft is discarded).
    case notSaved(String)
    /// The page is in the trash: take it out before changing it.
    case inTrash(String)
    /// No page in the trash has this id or prefix.
    case notInTrash(String)
    /// SQLite failed in some other way (the detail is for logs, never shown raw).
    case io(String)
}
