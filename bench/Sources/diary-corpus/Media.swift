import Crypto
import DiaryKit
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// Media for the archive benchmark: `--media-total-bytes N` spreads exactly N bytes over the
// entries as photos (1–3 MB each) and, from 100 MB on, a few videos (50–200 MB; the first
// one 150–200 MB so the archive has one big member). The content is pseudo-random, as
// incompressible as real JPEG and MP4, behind the format's magic bytes; each file gets its
// own stream from the seed, so every file is different and the same seed makes the same
// bytes. Files are stored the way MediaIntake stores them, `media/ab/<sha256>.<ext>`
// (written under a dot name while hashed, then renamed), and listed on their entry with
// DiaryMedia.add (`store.media.add`).

struct PlannedMedia {
    var kind: MediaKind
    var bytes: Int64
    var entry: Int
}

enum MediaPlan {
    static let megabyte: Int64 = 1_000_000

    /// Parses `2000000000`, `2G`, `1.5GB`, `500M`, `500MB`, `64k` (decimal units).
    static func parseBytes(_ text: String) -> Int64? {
        var digits = text.uppercased()
        if digits.hasSuffix("B") { digits.removeLast() }
        var scale: Double = 1
        switch digits.last {
        case "K": scale = 1e3
        case "M": scale = 1e6
        case "G": scale = 1e9
        case "T": scale = 1e12
        default: break
        }
        if scale != 1 { digits.removeLast() }
        guard let value = Double(digits), value >= 0 else { return nil }
        return Int64((value * scale).rounded())
    }

    /// Sizes and owners of the files, oldest entry first; their bytes add up to `total`.
    static func make(total: Int64, entries: Int, seed: UInt64) -> [PlannedMedia] {
        var random = SplitMix64(state: seed ^ 0x6D65_6469_615F_7631)
        func uniform(_ low: Int64, _ high: Int64) -> Int64 {
            high <= low ? low : low + Int64(random.next() % UInt64(high - low + 1))
        }
        let mb = megabyte
        // Videos: about 30 % of the bytes, once there are at least 100 MB.
        var videos: [Int64] = []
        var videoBudget: Int64 = total >= 100 * mb ? max(50 * mb, total * 3 / 10) : 0
        while videoBudget >= 50 * mb {
            let size = min(videos.isEmpty ? uniform(150 * mb, 200 * mb) : uniform(50 * mb, 200 * mb), videoBudget)
            videos.append(size)
            videoBudget -= size
        }
        // Photos: the rest, 1–3 MB each (the last one takes what is left).
        var photos: [Int64] = []
        var remaining = total - videos.reduce(0, +)
        while remaining > 0 {
            let size = remaining <= 3 * mb ? remaining : uniform(mb, min(3 * mb, remaining - mb))
            photos.append(size)
            remaining -= size
        }
        var plan: [PlannedMedia] = []
        for (index, size) in photos.enumerated() {
            plan.append(PlannedMedia(kind: .photo, bytes: size, entry: index * entries / photos.count))
        }
        for size in videos {
            plan.append(PlannedMedia(kind: .video, bytes: size, entry: Int(random.next() % UInt64(entries))))
        }
        return plan.enumerated().sorted { ($0.element.entry, $0.offset) < ($1.element.entry, $1.offset) }.map(\.element)
    }
}

/// Writes content-addressed media files with deterministic random content.
final class MediaWriter {
    let root: String
    let seed: UInt64
    let blockWords = 1 << 17 // 1 MiB blocks
    let block: UnsafeMutableBufferPointer<UInt64>
    private(set) var written: Int64 = 0

    init(root: URL, seed: UInt64) throws {
        self.root = root.standardizedFileURL.path
        self.seed = seed
        block = .allocate(capacity: blockWords)
        try FileManager.default.createDirectory(atPath: self.root, withIntermediateDirectories: true)
    }

    deinit { block.deallocate() }

    static let jpegHead: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 0x4A, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x48, 0x00, 0x48, 0x00, 0x00]
    static let jpegTail: [UInt8] = [0xFF, 0xD9]
    /// An `ftyp` box (isom, mp42), then the bytes of an `mdat` box running to the end.
    static let mp4Head: [UInt8] = [0x00, 0x00, 0x00, 0x18, 0x66, 0x74, 0x79, 0x70, 0x69, 0x73, 0x6F, 0x6D, 0x00, 0x00, 0x02, 0x00,
                                   0x69, 0x73, 0x6F, 0x6D, 0x6D, 0x70, 0x34, 0x32]

    /// Writes file number `index` of `bytes` bytes; returns its item (sha256 filled in).
    func create(index: Int, kind: MediaKind, bytes: Int64, takenAt: Date) throws -> MediaItem {
        // A start state hashed from (seed, index): files begin far apart on the generator's
        // cycle. (Seeding with index × its own increment would make each file the previous
        // one shifted by eight bytes, which zstd's long window finds.)
        var seeder = SplitMix64(state: seed &+ 0x5EED_0000_0000 &+ UInt64(index) &* 0xD1B5_4A32_D192_ED03)
        var random = SplitMix64(state: seeder.next())
        let isPhoto = kind == .photo
        let head = isPhoto ? Self.jpegHead : Self.mp4Head
        let tail = isPhoto ? Self.jpegTail : []
        let temp = (root as NSString).appendingPathComponent(".incoming-corpus-\(getpid())-\(index).tmp")
        let fd = open(temp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { fail("cannot write \(temp): \(String(cString: strerror(errno)))") }
        var hasher = SHA256()
        var offset: Int64 = 0
        let raw = UnsafeMutableRawBufferPointer(block)
        while offset < bytes {
            let count = Int(min(Int64(raw.count), bytes - offset))
            for word in 0..<((count + 7) / 8) { block[word] = random.next() }
            if offset == 0 {
                for (at, byte) in head.enumerated() where at < count { raw[at] = byte }
            }
            if offset + Int64(count) == bytes, bytes >= Int64(head.count + tail.count) {
                for (at, byte) in tail.enumerated() { raw[count - tail.count + at] = byte }
            }
            let chunk = UnsafeRawBufferPointer(rebasing: raw[0..<count])
            hasher.update(bufferPointer: chunk)
            var done = 0
            while done < count {
                let result = write(fd, chunk.baseAddress! + done, count - done)
                if result < 0 {
                    if errno == EINTR { continue }
                    fail("write \(temp): \(String(cString: strerror(errno)))")
                }
                done += result
            }
            offset += Int64(count)
        }
        guard close(fd) == 0 else { fail("close \(temp): \(String(cString: strerror(errno)))") }
        let sha256 = hasher.finalize().map { String(format: "%02x", $0) }.joined()
        let item = MediaItem(kind: kind, sha256: sha256, mime: isPhoto ? "image/jpeg" : "video/mp4",
                             fileExtension: isPhoto ? "jpg" : "mp4", bytes: bytes,
                             width: isPhoto ? 4032 : 1920, height: isPhoto ? 3024 : 1080,
                             durationSeconds: isPhoto ? nil : Double(bytes) / 1_250_000, // 10 Mbit/s
                             takenAt: takenAt)
        let shard = (root as NSString).appendingPathComponent(String(sha256.prefix(2)))
        guard mkdir(shard, 0o755) == 0 || errno == EEXIST else { fail("mkdir \(shard): \(String(cString: strerror(errno)))") }
        let final = (root as NSString).appendingPathComponent(item.relativePath)
        guard rename(temp, final) == 0 else { fail("rename to \(final): \(String(cString: strerror(errno)))") }
        written += bytes
        return item
    }
}
