import Foundation

/// Why a photo or video could not be taken in.
public enum MediaError: Error, Equatable {
    /// No such file, not a regular file, or not readable.
    case missing(path: String)
    /// The file is there but cannot be used; `kind` is nil when it is not recognised at all.
    case unreadable(kind: MediaKind?, problem: MediaProblem)
    /// A program intake needs (`ffprobe`) is not installed.
    case toolMissing(String)
    /// The media folder could not be written (no space, no permission).
    case cannotStore(path: String)
}
