import Foundation

/// A supported container, as recognised from a file's first bytes.
enum MediaFormat: Sendable, Equatable, CaseIterable {
    case jpeg, png, heic, webp, gif
    case mp4, mov, m4v, webm

    /// Photo or video.
    var kind: MediaKind {
        switch self {
        case .jpeg, .png, .heic, .webp, .gif: return .photo
        case .mp4, .mov, .m4v, .webm: return .video
        }
    }

    /// The MIME type recorded for the stored copy.
    var mime: String {
        switch self {
        case .jpeg: return "image/jpeg"
        case .png: return "image/png"
        case .heic: return "image/heic"
        case .webp: return "image/webp"
        case .gif: return "image/gif"
        case .mp4: return "video/mp4"
        case .mov: return "video/quicktime"
        case .m4v: return "video/x-m4v"
        case .webm: return "video/webm"
        }
    }

    /// The extension of the stored copy.
    var fileExtension: String {
        switch self {
        case .jpeg: return "jpg"
        case .png: return "png"
        case .heic: return "heic"
        case .webp: return "webp"
        case .gif: return "gif"
        case .mp4: return "mp4"
        case .mov: return "mov"
        case .m4v: return "m4v"
        case .webm: return "webm"
        }
    }
}

/// Random access to a file's bytes, so headers and tails can be read without loading everything.
protocol ByteSource {
    /// The total length in bytes.
    var length: Int64 { get }
    /// Up to `count` bytes from `offset`; fewer at the end of the data or on a read error.
    func bytes(at offset: Int64, count: Int) -> [UInt8]
}

/// Bytes already in memory (tests, small buffers).
struct MemoryBytes: ByteSource {
    var data: [UInt8]

    init(_ data: [UInt8]) { self.data = data }

    var length: Int64 { Int64(data.count) }

    func bytes(at offset: Int64, count: Int) -> [UInt8] {
        guard offset >= 0, count > 0, offset < Int64(data.count) else { return [] }
        let start = Int(offset)
        let end = start + min(count, data.count - start)
        return Array(data[start..<end])
    }
}

/// What the headers of a photo say.
struct PhotoHeader: Sendable, Equatable {
    var width: Int
    var height: Int
    /// The TIFF block of a JPEG's `Exif` APP1 segment, when there is one.
    var exifTIFF: [UInt8]?
}

/// What a file's first bytes say it is, for readers of other apps' exports that name a
/// file's type themselves (a PDF listed as a photo is still a PDF).
package enum SniffedType {
    /// The kind, type and extension the bytes announce, read from the file at `path`; nil
    /// when they announce nothing this diary knows, or the file cannot be read.
    package static func of(path: String) -> (kind: MediaKind, mime: String, fileExtension: String)? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        let head = [UInt8]((try? handle.read(upToCount: ImageHeaders.sniffLength)) ?? Data())
        if head.starts(with: Array("%PDF-".utf8)) { return (.file, "application/pdf", "pdf") }
        return ImageHeaders.sniff(head).map { ($0.kind, $0.mime, $0.fileExtension) }
    }
}

/// Type sniffing and photo dimensions, from bytes only.
enum ImageHeaders {
    /// How many leading bytes `sniff` wants to see.
    static let sniffLength = 4096

    /// The format the leading bytes announce; nil when it is nothing we support.
    static func sniff(_ head: [UInt8]) -> MediaFormat? {
        let bytes = ByteView(head)
        if bytes.matches([0xFF, 0xD8, 0xFF], at: 0) { return .jpeg }
        if bytes.matches([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], at: 0) { return .png }
        if bytes.matches(Array("GIF87a".utf8), at: 0) || bytes.matches(Array("GIF89a".utf8), at: 0) { return .gif }
        if bytes.matches(Array("RIFF".utf8), at: 0) && bytes.matches(Array("WEBP".utf8), at: 8) { return .webp }
        if bytes.matches(Array("ftyp".utf8), at: 4) { return sniffISOBMFF(bytes) }
        // QuickTime files from before ISO-BMFF start straight with a movie box; ffprobe still has the last word.
        if let type = bytes.fourCC(at: 4), classicQuickTimeBoxes.contains(type),
           let size = bytes.uint32BE(at: 0), size == 1 || size >= 8 { return .mov }
        if bytes.matches([0x1A, 0x45, 0xDF, 0xA3], at: 0) { return sniffEBML(bytes) }
        return nil
    }

    private static let heicBrands: Set<String> = ["heic", "heix", "mif1", "msf1", "heim", "heis", "hevc"]
    private static let classicQuickTimeBoxes: Set<String> = ["moov", "mdat", "wide", "free", "skip", "pnot"]
    private static let m4vBrands: Set<String> = ["M4V ", "M4VH", "M4VP"]
    // AVIF shares the HEIF container but is neither a HEIC photo nor a video we can play.
    private static let avifBrands: Set<String> = ["avif", "avis"]

    private static func sniffISOBMFF(_ bytes: ByteView) -> MediaFormat? {
        guard let declared = bytes.uint32BE(at: 0), let major = bytes.fourCC(at: 8) else { return nil }
        // A box size of 0 means "to the end"; 1 means a 64-bit size follows, which no real ftyp needs.
        let boxEnd = declared == 0 ? bytes.count : min(Int(declared), bytes.count)
        var compatible: [String] = []
        var offset = 16
        while offset + 4 <= boxEnd, let brand = bytes.fourCC(at: offset) {
            compatible.append(brand)
            offset += 4
        }
        if avifBrands.contains(major) { return nil }
        if heicBrands.contains(major) {
            // The generic HEIF brands are also the major brand of AVIF files, told apart by what else they list.
            guard major == "mif1" || major == "msf1" else { return .heic }
            let isAVIF = compatible.contains { avifBrands.contains($0) }
                && !compatible.contains { heicBrands.contains($0) && $0 != "mif1" && $0 != "msf1" }
            return isAVIF ? nil : .heic
        }
        if major == "qt  " { return .mov }
        if m4vBrands.contains(major) { return .m4v }
        return .mp4
    }

    private static func sniffEBML(_ bytes: ByteView) -> MediaFormat? {
        // The EBML header element (1A 45 DF A3) holds DocType (42 82): "webm" or "matroska".
        guard let header = bytes.ebmlVarInt(at: 4, keepMarker: false) else { return nil }
        let start = 4 + header.length
        var end = bytes.count
        if let size = header.value, size < UInt64(bytes.count - min(start, bytes.count)) { end = start + Int(size) }
        var offset = start
        while offset < end {
            guard let id = bytes.ebmlVarInt(at: offset, keepMarker: true), let idValue = id.value,
                  let size = bytes.ebmlVarInt(at: offset + id.length, keepMarker: false), let sizeValue = size.value
            else { return nil }
            let dataStart = offset + id.length + size.length
            guard sizeValue <= UInt64(end - dataStart) else { return nil }
            let dataEnd = dataStart + Int(sizeValue)
            if idValue == 0x4282 {
                let docType = String(decoding: bytes.slice(dataStart, dataEnd).prefix { $0 != 0 }, as: UTF8.self)
                return docType == "webm" ? .webm : nil
            }
            offset = dataEnd
        }
        return nil
    }

    /// Dimensions (and EXIF, for JPEG) of a photo; nil when the file is damaged or incomplete.
    static func photo(_ format: MediaFormat, in source: some ByteSource) -> PhotoHeader? {
        switch format {
        case .jpeg: return jpeg(source)
        case .png: return png(source)
        case .gif: return gif(source)
        case .webp: return webp(source)
        case .heic: return heic(source)
        case .mp4, .mov, .m4v, .webm: return nil
        }
    }

    // MARK: JPEG

    private static func isStartOfFrame(_ marker: UInt8) -> Bool {
        // C4 (DHT), C8 (JPG) and CC (DAC) share the range but are not frames.
        (0xC0...0xCF).contains(marker) && marker != 0xC4 && marker != 0xC8 && marker != 0xCC
    }

    private static func jpeg(_ source: some ByteSource) -> PhotoHeader? {
        let size = source.length
        guard size >= 4 else { return nil }

        var offset: Int64 = 2
        var exif: [UInt8]?
        // Real files have a few dozen segments before the frame header; the cap only stops runaway garbage.
        for _ in 0..<1024 {
            var marker = source.bytes(at: offset, count: 2)
            guard marker.count == 2, marker[0] == 0xFF else { return nil }
            // Any number of 0xFF fill bytes may precede a marker.
            var fill = 0
            while marker[1] == 0xFF {
                fill += 1
                guard fill < 64 else { return nil }
                offset += 1
                marker = source.bytes(at: offset, count: 2)
                guard marker.count == 2 else { return nil }
            }
            let code = marker[1]
            if code == 0x01 || code == 0xD8 || (0xD0...0xD7).contains(code) {
                offset += 2
                continue
            }
            // The frame header must come before the scan data and the end of the image.
            if code == 0xD9 || code == 0xDA || code == 0x00 { return nil }
            let lengthBytes = source.bytes(at: offset + 2, count: 2)
            guard lengthBytes.count == 2 else { return nil }
            let length = Int(lengthBytes[0]) << 8 | Int(lengthBytes[1])
            guard length >= 2, offset + 2 + Int64(length) <= size else { return nil }
            let payloadStart = offset + 4
            if isStartOfFrame(code) {
                let frame = source.bytes(at: payloadStart, count: 5)
                guard length >= 7, frame.count == 5 else { return nil }
                let height = Int(frame[1]) << 8 | Int(frame[2])
                let width = Int(frame[3]) << 8 | Int(frame[4])
                guard width > 0, height > 0, isComplete(source, after: offset + 2 + Int64(length)) else { return nil }
                return PhotoHeader(width: width, height: height, exifTIFF: exif)
            }
            if code == 0xE1, exif == nil, length > 8 {
                let payload = source.bytes(at: payloadStart, count: length - 2)
                if payload.count == length - 2, payload.starts(with: [0x45, 0x78, 0x69, 0x66, 0x00, 0x00]) {
                    exif = Array(payload.dropFirst(6))
                }
            }
            offset += 2 + Int64(length)
        }
        return nil
    }

    /// A whole JPEG ends with FF D9: at the end of the file, or before what phones append
    /// after the image (a Motion Photo's video, a maker's trailer). In the scan data after
    /// the frame header FF is never followed by D9 but at the end, so a file cut short has none.
    private static func isComplete(_ source: some ByteSource, after start: Int64) -> Bool {
        let size = source.length
        let tail = source.bytes(at: max(start, size - 64), count: 64)
        if zip(tail, tail.dropFirst()).contains(where: { $0 == 0xFF && $1 == 0xD9 }) { return true }
        var offset = start
        var previous: UInt8 = 0
        while offset < size {
            let chunk = source.bytes(at: offset, count: 1 << 20)
            guard !chunk.isEmpty else { return false }
            for byte in chunk {
                if previous == 0xFF && byte == 0xD9 { return true }
                previous = byte
            }
            offset += Int64(chunk.count)
        }
        return false
    }

    // MARK: PNG, GIF, WebP

    private static let pngEnd: [UInt8] = [0, 0, 0, 0, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82]

    private static func png(_ source: some ByteSource) -> PhotoHeader? {
        let head = ByteView(source.bytes(at: 0, count: 24))
        guard source.length >= 8 + 25 + 12,
              head.uint32BE(at: 8) == 13, head.fourCC(at: 12) == "IHDR",
              let width = head.uint32BE(at: 16), let height = head.uint32BE(at: 20),
              width > 0, height > 0, width <= Int32.max, height <= Int32.max,
              source.bytes(at: source.length - 12, count: 12) == pngEnd
        else { return nil }
        return PhotoHeader(width: Int(width), height: Int(height))
    }

    private static func gif(_ source: some ByteSource) -> PhotoHeader? {
        let head = ByteView(source.bytes(at: 0, count: 10))
        guard source.length >= 14, let width = head.uint16LE(at: 6), let height = head.uint16LE(at: 8),
              width > 0, height > 0, source.bytes(at: source.length - 1, count: 1) == [0x3B]
        else { return nil }
        return PhotoHeader(width: Int(width), height: Int(height))
    }

    private static func webp(_ source: some ByteSource) -> PhotoHeader? {
        let head = ByteView(source.bytes(at: 0, count: 30))
        guard let riffSize = head.uint32LE(at: 4) else { return nil }
        // Chunks are padded to even sizes, so a writer may or may not count a final pad byte.
        let declared = Int64(riffSize) + 8
        guard declared == source.length || (riffSize % 2 == 1 && declared + 1 == source.length) else { return nil }
        guard let chunk = head.fourCC(at: 12), let chunkSize = head.uint32LE(at: 16),
              Int64(chunkSize) + 20 <= source.length else { return nil }
        let data = 20
        var width = 0, height = 0
        switch chunk {
        case "VP8 ":
            guard chunkSize >= 10, head.matches([0x9D, 0x01, 0x2A], at: data + 3),
                  let w = head.uint16LE(at: data + 6), let h = head.uint16LE(at: data + 8) else { return nil }
            width = Int(w & 0x3FFF)
            height = Int(h & 0x3FFF)
        case "VP8L":
            guard chunkSize >= 5, head.matches([0x2F], at: data), let bits = head.uint32LE(at: data + 1) else { return nil }
            width = Int(bits & 0x3FFF) + 1
            height = Int((bits >> 14) & 0x3FFF) + 1
        case "VP8X":
            guard chunkSize >= 10, let w = head.uint24LE(at: data + 4), let h = head.uint24LE(at: data + 7) else { return nil }
            width = Int(w) + 1
            height = Int(h) + 1
        default:
            return nil
        }
        guard width > 0, height > 0 else { return nil }
        return PhotoHeader(width: width, height: height)
    }

    // MARK: HEIC

    // Enough for the metadata of any real photo (an iPhone's is a few KiB); larger is not a photo we want.
    private static let maxMetaBytes = 4 << 20

    private static func heic(_ source: some ByteSource) -> PhotoHeader? {
        // Walk the top-level boxes by their headers only: `meta` may sit after a large `mdat`.
        var offset: Int64 = 0
        for _ in 0..<256 {
            guard offset + 8 <= source.length else { return nil }
            let header = ByteView(source.bytes(at: offset, count: 16))
            guard let size32 = header.uint32BE(at: 0), let type = header.fourCC(at: 4) else { return nil }
            var headerLength: Int64 = 8
            var boxSize = Int64(size32)
            if size32 == 1 {
                guard let large = header.uint64BE(at: 8), large <= UInt64(Int64.max) else { return nil }
                boxSize = Int64(large)
                headerLength = 16
            } else if size32 == 0 {
                boxSize = source.length - offset
            }
            guard boxSize >= headerLength, boxSize <= source.length - offset else { return nil }
            if type == "meta" {
                guard boxSize - headerLength <= maxMetaBytes else { return nil }
                let payload = source.bytes(at: offset + headerLength, count: Int(boxSize - headerLength))
                guard payload.count == Int(boxSize - headerLength) else { return nil }
                return heicMeta(ByteView(payload)).map { PhotoHeader(width: $0.width, height: $0.height) }
            }
            offset += boxSize
        }
        return nil
    }

    private static func heicMeta(_ meta: ByteView) -> (width: Int, height: Int)? {
        // `meta` is a full box: version and flags come before its children.
        let children = meta.boxes(from: 4, to: meta.count)
        var primary: UInt32?
        if let pitm = children.first(where: { $0.type == "pitm" }) {
            let version = meta.byte(at: pitm.start)
            primary = version == 0 ? meta.uint16BE(at: pitm.start + 4).map(UInt32.init) : meta.uint32BE(at: pitm.start + 4)
        }
        guard let iprp = children.first(where: { $0.type == "iprp" }) else { return nil }
        let properties = meta.boxes(from: iprp.start, to: iprp.end)
        guard let ipco = properties.first(where: { $0.type == "ipco" }) else { return nil }
        let items = meta.boxes(from: ipco.start, to: ipco.end)
        var sizes: [Int: (width: Int, height: Int)] = [:]
        for (index, box) in items.enumerated() where box.type == "ispe" {
            if let width = meta.uint32BE(at: box.start + 4), let height = meta.uint32BE(at: box.start + 8),
               width > 0, height > 0, width <= Int32.max, height <= Int32.max {
                sizes[index + 1] = (Int(width), Int(height))
            }
        }
        if let primary {
            for ipma in properties where ipma.type == "ipma" {
                if let indices = associations(of: primary, in: meta, box: ipma) {
                    if let found = indices.lazy.compactMap({ sizes[$0] }).first { return found }
                }
            }
        }
        // Without a usable primary item association, the largest size is the full image, not a thumbnail.
        return sizes.values.max { $0.width * $0.height < $1.width * $1.height }
    }

    private static func associations(of item: UInt32, in meta: ByteView, box: ISOBox) -> [Int]? {
        guard let version = meta.byte(at: box.start), let flags = meta.uint24BE(at: box.start + 1),
              let entryCount = meta.uint32BE(at: box.start + 4) else { return nil }
        var offset = box.start + 8
        for _ in 0..<min(Int(entryCount), 1 << 16) {
            let id: UInt32
            if version < 1 {
                guard let short = meta.uint16BE(at: offset) else { return nil }
                id = UInt32(short)
                offset += 2
            } else {
                guard let long = meta.uint32BE(at: offset) else { return nil }
                id = long
                offset += 4
            }
            guard let count = meta.byte(at: offset) else { return nil }
            offset += 1
            var indices: [Int] = []
            for _ in 0..<Int(count) {
                if flags & 1 == 1 {
                    guard let value = meta.uint16BE(at: offset) else { return nil }
                    indices.append(Int(value & 0x7FFF))
                    offset += 2
                } else {
                    guard let value = meta.byte(at: offset) else { return nil }
                    indices.append(Int(value & 0x7F))
                    offset += 1
                }
            }
            guard offset <= box.end else { return nil }
            if id == item { return indices }
        }
        return nil
    }
}

/// One ISO-BMFF box inside a buffer: its type and payload range.
struct ISOBox {
    var type: String
    var start: Int
    var end: Int
}

/// Bounds-checked reads from a byte buffer; every accessor returns nil rather than trapping.
struct ByteView {
    let bytes: [UInt8]

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var count: Int { bytes.count }

    func byte(at offset: Int) -> UInt8? {
        offset >= 0 && offset < bytes.count ? bytes[offset] : nil
    }

    func has(_ length: Int, at offset: Int) -> Bool {
        offset >= 0 && length >= 0 && offset <= bytes.count && length <= bytes.count - offset
    }

    func matches(_ pattern: [UInt8], at offset: Int) -> Bool {
        has(pattern.count, at: offset) && bytes[offset..<offset + pattern.count].elementsEqual(pattern)
    }

    func slice(_ start: Int, _ end: Int) -> ArraySlice<UInt8> {
        guard start >= 0, start <= end, end <= bytes.count else { return [] }
        return bytes[start..<end]
    }

    func fourCC(at offset: Int) -> String? {
        guard has(4, at: offset) else { return nil }
        return String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
    }

    func uint16BE(at offset: Int) -> UInt16? {
        guard has(2, at: offset) else { return nil }
        return UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
    }

    func uint16LE(at offset: Int) -> UInt16? {
        guard has(2, at: offset) else { return nil }
        return UInt16(bytes[offset + 1]) << 8 | UInt16(bytes[offset])
    }

    func uint24BE(at offset: Int) -> UInt32? {
        guard has(3, at: offset) else { return nil }
        return UInt32(bytes[offset]) << 16 | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2])
    }

    func uint24LE(at offset: Int) -> UInt32? {
        guard has(3, at: offset) else { return nil }
        return UInt32(bytes[offset + 2]) << 16 | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset])
    }

    func uint32BE(at offset: Int) -> UInt32? {
        guard has(4, at: offset) else { return nil }
        return bytes[offset..<offset + 4].reduce(0) { $0 << 8 | UInt32($1) }
    }

    func uint32LE(at offset: Int) -> UInt32? {
        guard has(4, at: offset) else { return nil }
        return bytes[offset..<offset + 4].reversed().reduce(0) { $0 << 8 | UInt32($1) }
    }

    func uint64BE(at offset: Int) -> UInt64? {
        guard has(8, at: offset) else { return nil }
        return bytes[offset..<offset + 8].reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// The child boxes between `start` and `end`; stops quietly at the first malformed header.
    func boxes(from start: Int, to end: Int) -> [ISOBox] {
        var result: [ISOBox] = []
        var offset = start
        let limit = min(end, bytes.count)
        while offset + 8 <= limit, result.count < 4096 {
            guard let size32 = uint32BE(at: offset), let type = fourCC(at: offset + 4) else { break }
            var header = 8
            var size: Int
            if size32 == 1 {
                guard let large = uint64BE(at: offset + 8), large <= UInt64(limit - offset) else { break }
                size = Int(large)
                header = 16
            } else if size32 == 0 {
                size = limit - offset
            } else {
                size = Int(size32)
            }
            guard size >= header, size <= limit - offset else { break }
            result.append(ISOBox(type: type, start: offset + header, end: offset + size))
            offset += size
        }
        return result
    }

    /// An EBML variable-length integer: its byte length and value (nil value for the "unknown size" pattern).
    func ebmlVarInt(at offset: Int, keepMarker: Bool) -> (length: Int, value: UInt64?)? {
        guard let first = byte(at: offset), first != 0 else { return nil }
        let length = first.leadingZeroBitCount + 1
        guard has(length, at: offset) else { return nil }
        let marker: UInt64 = 1 << UInt64(7 * length)
        var value = UInt64(keepMarker ? first : first & (0xFF >> UInt8(length)))
        for index in 1..<length {
            value = value << 8 | UInt64(bytes[offset + index])
        }
        if !keepMarker, value == marker - 1 { return (length, nil) }
        return (length, value)
    }
}
