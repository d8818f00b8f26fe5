import Foundation

/// A value shared between a task and the callbacks or threads that feed it.
package final class Locked<Value>: @unchecked Sendable {
    // Every access goes through `lock`.
    private let lock = NSLock()
    private var value: Value

    package init(_ value: Value) { self.value = value }

    /// Reads or changes the value while holding the lock.
    package func withLock<T>(_ body: (inout Value) -> T) -> T {
        lock.withLock { body(&value) }
    }
}
