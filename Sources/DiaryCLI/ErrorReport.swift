import DiaryKit
import Foundation

/// Bad input from the command line or from standard input.
package enum InputError: Error, Equatable, ReportableError {
    /// Something about the invocation: exit 64 with this sentence.
    case usage(Phrase)
    /// A line of stdin that is not JSON Lines (1-based).
    case notJSON(line: Int)
    /// Stdin that is not UTF-8.
    case notUTF8

    package var phrase: Phrase {
        switch self {
        case let .usage(phrase): return phrase
        case let .notJSON(line): return .stdinNotJSON(line: line)
        case .notUTF8: return .stdinNotUTF8
        }
    }

    package var exitStatus: Int32 {
        if case .usage = self { return ExitStatus.usage }
        return ExitStatus.dataError
    }
}

/// Errors become a sentence for the person and a sysexits status here; each capability's
/// error type says both itself (`ReportableError`).
package enum ErrorReport {
    /// Prints the error's sentence on stderr and returns the status to exit with.
    package static func report(_ error: Error, language: Language) -> Int32 {
        let (phrase, status) = describe(error)
        Output.standardError(phrase.text(language))
        return status
    }

    /// The sentence and status for an error; never a raw SQL error, stack or key. An error
    /// no capability explains (a failed write of our own output among them) is an I/O error.
    package static func describe(_ error: Error) -> (Phrase, Int32) {
        guard let reportable = error as? ReportableError else { return (.ioFailure, ExitStatus.ioError) }
        return (reportable.phrase, reportable.exitStatus)
    }
}
