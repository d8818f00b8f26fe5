import Foundation

/// A month as calendars draw it: how many days, and where the 1st falls in a Monday-first
/// week. Civil-date arithmetic (proleptic Gregorian), so it needs no calendar object and
/// every zone agrees. `diary-find --calendar` and the HTML export both draw with it.
package struct MonthGrid: Sendable, Equatable {
    package let year: Int
    package let month: Int
    /// 28 … 31.
    package let length: Int
    /// 0 for Monday … 6 for Sunday: the weekday of the 1st.
    package let firstWeekday: Int

    package init?(year: Int, month: Int) {
        guard (1...12).contains(month) else { return nil }
        self.year = year
        self.month = month
        let first = Self.daysFromCivil(year, month, 1)
        length = (month == 12 ? Self.daysFromCivil(year + 1, 1, 1) : Self.daysFromCivil(year, month + 1, 1)) - first
        // 1970-01-01 was a Thursday (3 in a Monday-first week).
        firstWeekday = ((first + 3) % 7 + 7) % 7
    }

    /// `YYYY-MM` (a one-digit month is fine); nil for anything else.
    package init?(_ text: String) {
        guard let match = text.trimmingCharacters(in: .whitespaces).wholeMatch(of: /(\d{4})-(\d{1,2})/),
              let year = Int(match.1), let month = Int(match.2) else { return nil }
        self.init(year: year, month: month)
    }

    /// The `YYYY-MM-DD` names of the month's days, in order.
    package var days: [String] { (1...length).map { Timestamps.day(year, month, $0) } }

    /// Days from 1970-01-01 to a civil date.
    private static func daysFromCivil(_ year: Int, _ month: Int, _ day: Int) -> Int {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
