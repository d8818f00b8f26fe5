import GRDB

// GRDB's `Row.fetchAll`/`fetchOne` hand back copies that find a column by name by
// lowercasing every column name in turn (a whole record read by name was a sixth of a
// push); the row a cursor stands on asks the statement's own index instead. Reading
// records field by field goes through these.
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
