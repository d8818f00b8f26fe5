/// The version of the toolkit, as `--version` prints it and requests announce it.
public enum DiaryVersion {
    public static let current = "0.2.0"
}
