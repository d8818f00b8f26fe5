// The tests' stand-in for a Supabase project (Auth, PostgREST RPC, Storage over a real
// Postgres), as a process of its own so bench/sync.sh can time diary-sync through that
// transport. No live Supabase project is reachable from here; what the figures include of
// this stand-in's own cost is said beside them in bench/RESULTS.md.
//
// Usage: supabase-standin DATABASE_URL
// Prints one JSON line {"url": …, "anon_key": …} and serves until its standard input closes.
import FakeServers
import Foundation

let arguments = CommandLine.arguments
guard arguments.count == 2 else {
    FileHandle.standardError.write(Data("usage: supabase-standin DATABASE_URL\n".utf8))
    exit(64)
}
let project = try await FakeSupabase.start(databaseURL: arguments[1])
let line = try JSONSerialization.data(withJSONObject: ["url": project.baseURL, "anon_key": project.anonKey])
FileHandle.standardOutput.write(line + Data("\n".utf8))
// Blocks a thread of its own, not the concurrency pool the server answers on.
await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
    Thread.detachNewThread {
        _ = FileHandle.standardInput.readDataToEndOfFile()
        done.resume()
    }
}
try await project.shutdown()
