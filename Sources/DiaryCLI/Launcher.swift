import ArgumentParser
import DiaryKit
import Foundation

/// The entry point of every `diary-*` executable.
package enum Launcher {
    /// Parses the arguments, runs the command and exits with its status. ArgumentParser's
    /// own `main()` refuses async commands on Linux without an availability annotation,
    /// so the entry points come through here.
    package static func launch<Command: AsyncParsableCommand>(_ type: Command.Type) async -> Never {
        do {
            var command = try Command.parseAsRoot()
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
            exit(ExitStatus.ok)
        } catch {
            Command.exit(withError: error)
        }
    }

    /// The same for a command that needs no concurrency: its program has no `await` at the
    /// top, so the concurrency runtime never starts.
    package static func launchLocal<Command: LocalDiaryCommand>(_ type: Command.Type) -> Never {
        do {
            var command = try Command.parseAsRoot()
            try command.run()
            exit(ExitStatus.ok)
        } catch {
            Command.exit(withError: error)
        }
    }
}
