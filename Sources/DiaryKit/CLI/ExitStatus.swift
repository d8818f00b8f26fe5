import Foundation

/// Bad input from the command line or from standard input.
enum InputError: Error, Equatable {
    /// Something about the invocation: exit 64 with this sentence.
    case usage(Phrase)
    /// A line of stdin that is not JSON Lines (1-based).
    case notJSON(line: Int)
    /// Stdin that is not UTF-8.
    case notUTF8
}

/// The one place errors become a sentence for the person and a sysexits status.
enum ExitStatus {
    static let ok: Int32 = 0
    static let nothingFound: Int32 = 1
    static let usage: Int32 = 64
    static let dataError: Int32 = 65
    static let noInput: Int32 = 66
    static let unavailable: Int32 = 69
    static let cannotCreate: Int32 = 73
    static let ioError: Int32 = 74
    static let tryAgain: Int32 = 75
    static let permission: Int32 = 77
    static let configuration: Int32 = 78
    /// Ctrl-C, as shells report a SIGINT: 128 + 2.
    static let interrupted: Int32 = 130

    /// Prints the error's sentence on stderr and returns the status to exit with.
    static func report(_ error: Error, language: Language) -> Int32 {
        let (phrase, status) = describe(error)
        Output.standardError(phrase.text(language))
        return status
    }

    /// The sentence and status for an error; never a raw SQL error, stack or key.
    static func describe(_ error: Error) -> (Phrase, Int32) {
        switch error {
        case let error as InputError:
            switch error {
            case let .usage(phrase): return (phrase, usage)
            case let .notJSON(line): return (.stdinNotJSON(line: line), dataError)
            case .notUTF8: return (.stdinNotUTF8, dataError)
            }
        case let error as MediaError:
            switch error {
            case let .missing(path): return (.fileMissing(path: path), noInput)
            case let .unreadable(kind, problem):
                switch kind {
                case .video?: return (.videoUnreadable(problem), dataError)
                case .audio?: return (.audioUnreadable(problem), dataError)
                default: return (.photoUnreadable(problem), dataError)
                }
            case let .toolMissing(name): return (.toolMissing(name: name), unavailable)
            case let .cannotStore(path): return (.homeNotCreatable(path: path), cannotCreate)
            }
        case let error as CompanionError:
            switch error {
            case .providerFailed: return (.sendFailed, tryAgain)
            case .pageNotWritten: return (.summaryFailed, tryAgain)
            case .nothingToRetry: return (.nothingToRetry, dataError)
            case let .unknownPersona(name): return (.unknownPersona(name: name), usage)
            case let .textTooLong(limit): return (.textTooLong(limit: limit), usage)
            case let .unknownProvider(name): return (.unknownProvider(name: name), usage)
            case .notHeard: return (.notHeard, tryAgain)
            case .transcriptionUnavailable: return (.transcriptionUnavailable, unavailable)
            case .analysisUnavailable: return (.analysisDeferred, tryAgain)
            case let .consentNeeded(provider): return (.consentNeeded(provider: provider), permission)
            case let .turnLimitReached(limit): return (.turnLimitReached(limit: limit), unavailable)
            case let .pageLimitReached(limit): return (.pageLimitReached(limit: limit), tryAgain)
            case .usageUnknown: return (.usageUnknown, tryAgain)
            case .cancelled: return (.cancelled, interrupted)
            }
        case let error as StoreError:
            switch error {
            case .newerVersion: return (.databaseFromNewerVersion, configuration)
            case let .cannotCreateHome(path): return (.homeNotCreatable(path: path), cannotCreate)
            case .busy: return (.databaseBusy, tryAgain)
            case let .entryNotFound(reference): return (.entryNotFound(reference: reference), noInput)
            case let .ambiguous(reference): return (.entryAmbiguous(reference: reference), usage)
            case .noOpenDraft: return (.noOpenDraft, noInput)
            case .alreadySaved: return (.cannotDiscardSaved, dataError)
            case .io: return (.saveFailed, ioError)
            case let .clockFromFuture(id): return (.recordFromFuture(id: id), dataError)
            case let .invalidRecord(id): return (.recordContradicts(id: id), dataError)
            }
        case let error as ArchiveError:
            switch error {
            case let .cannotOpen(path): return (.fileMissing(path: path), noInput)
            case let .cannotCreate(path): return (.cannotCreateFile(path: path), cannotCreate)
            case .corrupt: return (.archiveCorrupt, dataError)
            case .writeFailed, .unsupported: return (.archiveNotWritten, ioError)
            case let .cannotRead(path): return (.archiveUnreadableSource(path: path), ioError)
            case let .unsafeMember(path, reason): return (.archiveUnsafe(path: path, reason: reason.rawValue), dataError)
            case let .manifestMismatch(path): return (.archiveMismatch(path: path), dataError)
            case let .tooLarge(path): return (.archiveTooLarge(path: path), dataError)
            case let .invalidRecord(member, line, field): return (.archiveBadRecord(member: member, line: line, field: field), dataError)
            case let .newerFormat(version): return (.archiveNewerFormat(version: version), dataError)
            case .notDiaryArchive: return (.archiveNotDiary, dataError)
            case let .mediaCorrupt(path): return (.mediaFileCorrupt(path: path), ioError)
            }
        case let error as SearchError:
            switch error {
            case let .badDate(text): return (.badDate(text: text), usage)
            case let .badCursor(text): return (.badCursor(text: text), usage)
            }
        case let error as ConfigError:
            switch error {
            case let .invalid(detail): return (.badConfig(detail: detail), configuration)
            }
        case let error as SyncError:
            switch error {
            case .notLoggedIn: return (.syncNeedsLogin, permission)
            case .offline: return (.syncFailedKept, tryAgain)
            case .permissionDenied: return (.permissionDenied, permission)
            case .serverState: return (.serverDataState, tryAgain)
            case .serverNotReady: return (.serverNotReady, unavailable)
            case let .serverTooNew(version): return (.serverTooNew(version: version), configuration)
            case let .credentialsExposed(path): return (.credentialsExposed(path: path), permission)
            case let .badAddress(url): return (.badServerAddress(url: url), usage)
            case .passwordNeeded: return (.passwordNeeded, usage)
            case .consentDeclined: return (.consentRequired, permission)
            case .otherAccount: return (.otherAccount, usage)
            case let .badUserName(name): return (.badUserName(name: name), usage)
            case let .userExists(name): return (.userExists(name: name), cannotCreate)
            case .notConfirmed: return (.notConfirmed, usage)
            case .foreignAuth: return (.foreignAuth, unavailable)
            }
        case is OutputError:
            return (.ioFailure, ioError)
        default:
            return (.ioFailure, ioError)
        }
    }
}
