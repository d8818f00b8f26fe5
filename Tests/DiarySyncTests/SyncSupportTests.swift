@testable import DiaryKit
@testable import DiarySync
@testable import SyncSession
import Foundation
import Testing

struct SyncSupportTests {
    @Test func scramVerifierMatchesAnIndependentComputation() {
        // RFC 7677's password and salt; expected value computed with Python's hashlib
        // (pbkdf2_hmac + hmac), independently of this code.
        let salt = [UInt8](Data(base64Encoded: "W22ZaJ0SNY7soEsUEjb6gQ==")!)
        #expect(ScramVerifier.make(password: "pencil", salt: salt)
                == "SCRAM-SHA-256$4096:W22ZaJ0SNY7soEsUEjb6gQ==$WG5d8oPm3OtcPnkdi4Uo7BkeZkBFzpcXkuLmtbsT4qY=:wfPLwcE6nTWhTAmQ7tl2KeoiWGPlZqQxSrmfPwDl2dU=")
        #expect(!ScramVerifier.make(password: "pencil").contains("pencil"))
        #expect(ScramVerifier.make(password: "pencil") != ScramVerifier.make(password: "pencil"), "a fresh salt each time")
    }

    @Test func scriptSplitsOnlyOnRealSemicolons() {
        let script = """
            -- a comment; not a statement
            CREATE TABLE a (t text DEFAULT 'x;y');
            CREATE FUNCTION f() RETURNS int LANGUAGE plpgsql AS $$ BEGIN RETURN 1; END $$;
            CREATE FUNCTION g() RETURNS text LANGUAGE sql AS $body$ SELECT 'it''s; fine' $body$;
            SELECT "odd;name" FROM a;
            """
        let statements = SQLScript.statements(script)
        #expect(statements.count == 4)
        #expect(statements[0] == "CREATE TABLE a (t text DEFAULT 'x;y')")
        #expect(statements[1].hasSuffix("BEGIN RETURN 1; END $$"))
        #expect(statements[2].hasSuffix("SELECT 'it''s; fine' $body$"))
        #expect(statements[3] == "SELECT \"odd;name\" FROM a")
    }
}
