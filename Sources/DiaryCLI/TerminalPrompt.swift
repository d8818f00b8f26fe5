import DiaryKit
import Foundation

// Questions asked of the person at a terminal: yes/no, a typed confirmation, a password.
// In a pipeline stdin carries data, so the controlling terminal is asked instead.
extension CommandContext {
    /// Asks on the terminal and returns the answer without surrounding space: on stdin when
    /// it is one, else on the controlling terminal; nil when there is no terminal at all.
    package func askOnTerminal(_ question: Phrase) -> String? {
        let text = question.text(language)
        if stdinIsTerminal {
            try? Output.standardErrorFragment(text)
            return readLine()?.trimmingCharacters(in: .whitespaces) ?? ""
        }
        guard isatty(STDERR_FILENO) == 1, let tty = FileHandle(forUpdatingAtPath: "/dev/tty") else { return nil }
        defer { try? tty.close() }
        tty.write(Data(text.utf8))
        var line = Data()
        while let byte = try? tty.read(upToCount: 1), let first = byte.first, first != 0x0A { line.append(first) }
        return String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespaces)
    }

    /// Asks a yes/no question: true for y, yes, 是 or 好, false for anything else, nil when
    /// there is no terminal to ask on.
    package func askYesNo(_ question: Phrase) -> Bool? {
        askOnTerminal(question).map { ["y", "yes", "是", "好"].contains($0.lowercased()) }
    }

    /// True when there is a terminal to ask on.
    package var hasTerminal: Bool {
        let descriptor = open("/dev/tty", O_RDWR | O_CLOEXEC)
        if descriptor >= 0 { close(descriptor) }
        return descriptor >= 0
    }

    /// Reads a line from the controlling terminal with echo off (a password); nil without a
    /// terminal or when nothing was typed.
    package func askSecret(_ prompt: Phrase) -> String? {
        let descriptor = open("/dev/tty", O_RDWR | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var saved = termios()
        guard tcgetattr(descriptor, &saved) == 0 else { return nil }
        var quiet = saved
        quiet.c_lflag &= ~tcflag_t(ECHO)
        _ = tcsetattr(descriptor, TCSAFLUSH, &quiet)
        defer {
            _ = tcsetattr(descriptor, TCSAFLUSH, &saved)
            _ = write(descriptor, "\n", 1)
        }
        _ = prompt.text(language).utf8CString.withUnsafeBufferPointer { write(descriptor, $0.baseAddress, $0.count - 1) }
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while read(descriptor, &byte, 1) == 1, byte != 0x0A { bytes.append(byte) }
        let line = String(decoding: bytes, as: UTF8.self)
        return line.isEmpty ? nil : line
    }
}
