/// The version of the toolkit, as `--version` prints it and requests announce it.
package enum DiaryVersion {
    package static let current = "0.2.0"
}
