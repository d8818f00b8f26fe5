import ArgumentParser
import Foundation

/// The entry point of every `diary-*` executable.
public enum Launcher {
    /// Parses the arguments, runs the command and exits with its status. ArgumentParser's
    /// own `main()` refuses async commands on Linux without an availability annotation,
    /// so the entry points come through here.
    public static func launch<Command: AsyncParsableCommand>(_ type: Command.Type) async -> Never {
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
}
