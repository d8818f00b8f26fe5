import Foundation

/// Why a photo or video could not be taken in.
public enum MediaError: Error, Equatable {
    /// No such file, not a regular file, or not readable.
    case missing(path: String)
    /// The file is there but cannot be used; `kind` is nil when it is not recognised at all.
    case unreadable(kind: MediaKind?, problem: MediaProblem)
    /// A program intake needs (`ffprobe`) is not installed.
    case toolMissing(String)

    /// The sentence to show a person.
    public var phrase: Phrase {
        switch self {
        case let .missing(path):
            return .fileMissing(path: path)
        case let .unreadable(kind, problem):
            // Something we could not recognise at all is reported as a photo: that is what people pick most.
            return kind == .video ? .videoUnreadable(problem) : .photoUnreadable(problem)
        case let .toolMissing(name):
            return .toolMissing(name: name)
        }
    }
}
