import GRDB
import GRDBSQLite

/// The full-text tokenizer of the diary (`tokenize = 'diary_bigram'`): SearchableText's
/// cutting, handed to SQLite's FTS5. Every connection registers it before touching the index.
final class SearchTokenizer: FTS5CustomTokenizer {
    static let name = "diary_bigram"

    init(db: Database, arguments: [String]) throws {}

    func tokenize(context: UnsafeMutableRawPointer?, tokenization: FTS5Tokenization, pText: UnsafePointer<CChar>?,
                  nText: CInt, tokenCallback: @escaping FTS5TokenCallback) -> CInt {
        guard let pText, nText > 0 else { return SQLITE_OK }
        let text = UnsafeBufferPointer(start: UnsafeRawPointer(pText).assumingMemoryBound(to: UInt8.self), count: Int(nText))
        let purpose: SearchableText.Purpose = tokenization.contains(.query) ? .query : .document
        var status = SQLITE_OK
        SearchableText.tokenize(text, purpose: purpose) { token, start, end in
            status = token.withMemoryRebound(to: CChar.self) { bytes in
                tokenCallback(context, 0, bytes.baseAddress, CInt(bytes.count), CInt(start), CInt(end))
            }
            return status == SQLITE_OK
        }
        return status
    }
}
