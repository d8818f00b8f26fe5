import GRDB
import GRDBSQLite

// GRDB's `Row.fetchAll`/`fetchOne` hand back copies that find a column by name by
// lowercasing every column name in turn (a whole record read by name was a sixth of a
// push); the row a cursor stands on finds it in a dictionary of lowercased names made once
// per query. `readAll` below makes none, for the queries every synced entry goes through.
extension Statement {
    /// Every row, each decoded while the statement stands on it.
    func decodeAll<T>(_ arguments: StatementArguments = StatementArguments(), _ decode: (Row) throws -> T) throws -> [T] {
        let rows = try Row.fetchCursor(self, arguments: arguments)
        var values: [T] = []
        // The row reads through the cursor, which resets the statement when it goes away.
        try withExtendedLifetime(rows) {
            while let row = try rows.next() { values.append(try decode(row)) }
        }
        return values
    }

    /// The first row, decoded while the statement stands on it; nil when there is none.
    func decodeFirst<T>(_ arguments: StatementArguments = StatementArguments(), _ decode: (Row) throws -> T) throws -> T? {
        let rows = try Row.fetchCursor(self, arguments: arguments)
        return try withExtendedLifetime(rows) { try rows.next().map(decode) }
    }
}

/// The columns of a SELECT, named once: the rows of its statement are read by name through
/// positions worked out here, not through the dictionary of lowercased column names GRDB
/// builds for every cursor (a fifth of reading a record back, which a push does for every
/// entry it sends).
struct ColumnList: Sendable {
    /// The columns as SQL, to put after SELECT.
    let sql: String
    fileprivate let positions: [String: Int32]

    /// `names` as written in SQL; a row is read by the part after the last dot.
    init(_ names: [String]) {
        sql = names.joined(separator: ", ")
        positions = Dictionary(uniqueKeysWithValues: names.enumerated().map { index, name in
            (String(name.split(separator: ".").last ?? Substring(name)), Int32(index))
        })
    }
}

/// What a column is read as (Optional is not one: a nullable column reads as `Value?`).
protocol ColumnValue: StatementColumnConvertible {}
extension String: ColumnValue {}
extension Int64: ColumnValue {}
extension Int: ColumnValue {}
extension Bool: ColumnValue {}
extension Double: ColumnValue {}

/// The row a statement stands on, read by column name through its `ColumnList`.
struct ColumnReader {
    fileprivate let statement: SQLiteStatement
    fileprivate let columns: ColumnList

    private func position(_ name: String) -> Int32 {
        guard let position = columns.positions[name] else { preconditionFailure("no column \(name) in \(columns.sql)") }
        return position
    }

    subscript<Value: ColumnValue>(_ name: String) -> Value? {
        let position = position(name)
        return sqlite3_column_type(statement, position) == SQLITE_NULL ? nil : Value(sqliteStatement: statement, index: position)
    }

    /// A column the schema holds NOT NULL.
    subscript<Value: ColumnValue>(_ name: String) -> Value {
        let position = position(name)
        guard sqlite3_column_type(statement, position) != SQLITE_NULL, let value = Value(sqliteStatement: statement, index: position) else {
            preconditionFailure("NULL in \(name)")
        }
        return value
    }
}

extension Statement {
    /// Every row, read straight from SQLite while the statement stands on it.
    func readAll<T>(_ columns: ColumnList, _ arguments: StatementArguments, _ read: (ColumnReader) throws -> T) throws -> [T] {
        try setArguments(arguments)
        defer { sqlite3_reset(sqliteStatement) }
        var values: [T] = []
        while true {
            switch sqlite3_step(sqliteStatement) {
            case SQLITE_ROW:
                values.append(try read(ColumnReader(statement: sqliteStatement, columns: columns)))
            case SQLITE_DONE:
                return values
            case let code:
                throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(sqlite3_db_handle(sqliteStatement))),
                                    sql: sql, arguments: arguments)
            }
        }
    }
}
