import Foundation
import Testing
@testable import DiaryKit
@testable import DiaryTestSupport

@Suite struct ImageHeadersTests {
    @Test(arguments: [
        ("x.jpg", MediaFormat.jpeg), ("x.png", .png), ("x.gif", .gif), ("x.webp", .webp),
        ("lossless.webp", .webp), ("anim.webp", .webp), ("x.mp4", .mp4), ("x.mov", .mov),
        ("x.m4v", .m4v), ("x.webm", .webm),
    ])
    func sniffsGeneratedFiles(name: String, format: MediaFormat) {
        let head = Array(MediaFixtures.shared.bytes(name).prefix(ImageHeaders.sniffLength))
        #expect(ImageHeaders.sniff(head) == format)
    }

    @Test func sniffsFtypBrands() {
        let expected: [(String, [String], MediaFormat?)] = [
            ("heic", [], .heic), ("heix", [], .heic), ("mif1", ["heic"], .heic), ("msf1", ["hevc"], .heic),
            ("heim", [], .heic), ("heis", [], .heic), ("hevc", [], .heic), ("mif1", [], .heic),
            ("qt  ", [], .mov), ("M4V ", [], .m4v), ("M4VH", [], .m4v), ("M4VP", [], .m4v),
            ("isom", ["iso2", "mp41"], .mp4), ("iso2", [], .mp4), ("mp41", [], .mp4), ("mp42", [], .mp4),
            ("avc1", [], .mp4), ("dash", [], .mp4), ("3gp5", [], .mp4),
            // AVIF uses the HEIF container but is not a supported format.
            ("avif", ["mif1"], nil), ("mif1", ["avif", "miaf"], nil),
        ]
        for (major, compatible, format) in expected {
            let bytes = ftypBox(major: major, compatible: compatible) + box("mdat", [1, 2, 3])
            #expect(ImageHeaders.sniff(bytes) == format, "major brand \(major) \(compatible)")
        }
    }

    @Test func classicQuickTimeWithoutFtypIsMOV() {
        let mov = MediaFixtures.shared.bytes("x.mov")
        // Drop the leading ftyp box, as QuickTime files from before 2004 have none.
        let ftypSize = Int(mov[3])
        #expect(ImageHeaders.sniff(Array(mov[ftypSize...].prefix(ImageHeaders.sniffLength))) == .mov)
        #expect(ImageHeaders.sniff(box("moov", [])) == .mov)
        #expect(ImageHeaders.sniff(Array("\u{0}\u{0}\u{0}\u{2}moov".utf8)) == nil)
    }

    @Test func matroskaIsWebMOnlyWithWebMDocType() {
        func ebml(_ docType: String) -> [UInt8] {
            let doc: [UInt8] = [0x42, 0x82, 0x80 | UInt8(docType.utf8.count)] + Array(docType.utf8)
            let children: [UInt8] = [0x42, 0x86, 0x81, 0x01] + doc
            return [0x1A, 0x45, 0xDF, 0xA3, 0x80 | UInt8(children.count)] + children + [0x18, 0x53, 0x80, 0x67]
        }
        #expect(ImageHeaders.sniff(ebml("webm")) == .webm)
        #expect(ImageHeaders.sniff(ebml("matroska")) == nil)
        let mkv = Array(MediaFixtures.shared.bytes("x.mkv").prefix(ImageHeaders.sniffLength))
        #expect(ImageHeaders.sniff(mkv) == nil)
        // An EBML header whose size runs past the buffer must not trap.
        #expect(ImageHeaders.sniff([0x1A, 0x45, 0xDF, 0xA3, 0x01, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]) == nil)
    }

    @Test func rejectsUnknownBytes() {
        #expect(ImageHeaders.sniff(Array("hello, this is a diary note\n".utf8)) == nil)
        #expect(ImageHeaders.sniff([0xFF, 0xD8]) == nil)
        #expect(ImageHeaders.sniff([]) == nil)
        #expect(ImageHeaders.sniff(Array("RIFF\u{0}\u{0}\u{0}\u{0}WAVE".utf8)) == nil)
    }

    @Test(arguments: ["x.jpg", "x.png", "x.gif", "x.webp", "lossless.webp", "anim.webp"])
    func readsDimensions(name: String) throws {
        let bytes = MediaFixtures.shared.bytes(name)
        let format = try #require(ImageHeaders.sniff(bytes))
        let header = try #require(ImageHeaders.photo(format, in: MemoryBytes(bytes)))
        #expect(header.width == 64)
        #expect(header.height == 48)
    }

    @Test func readsPrimaryHEICSize() throws {
        let heic = syntheticHEIC()
        #expect(ImageHeaders.sniff(heic) == .heic)
        let header = try #require(ImageHeaders.photo(.heic, in: MemoryBytes(heic)))
        #expect(header.width == 4032 && header.height == 3024)

        // The primary item's own size wins even when another item is larger.
        let odd = syntheticHEIC(primary: (1000, 800), thumbnail: (2000, 1500))
        let oddHeader = try #require(ImageHeaders.photo(.heic, in: MemoryBytes(odd)))
        #expect(oddHeader.width == 1000 && oddHeader.height == 800)

        // Without associations, the largest size is taken as the image.
        let loose = syntheticHEIC(primary: (1000, 800), thumbnail: (2000, 1500), associate: false)
        let looseHeader = try #require(ImageHeaders.photo(.heic, in: MemoryBytes(loose)))
        #expect(looseHeader.width == 2000 && looseHeader.height == 1500)
    }

    @Test func heicWithoutSizeIsDamaged() {
        #expect(ImageHeaders.photo(.heic, in: MemoryBytes(syntheticHEIC(primary: nil, thumbnail: nil))) == nil)
        #expect(ImageHeaders.photo(.heic, in: MemoryBytes(ftypBox(major: "heic", compatible: []))) == nil)
        let heic = syntheticHEIC()
        // Cut inside the meta box.
        #expect(ImageHeaders.photo(.heic, in: MemoryBytes(Array(heic.prefix(60)))) == nil)
    }

    @Test func jpegNeedsFrameAndEnd() throws {
        let good = syntheticJPEG(width: 300, height: 200)
        let header = try #require(ImageHeaders.photo(.jpeg, in: MemoryBytes(good)))
        #expect(header.width == 300 && header.height == 200)
        #expect(header.exifTIFF == nil)

        #expect(ImageHeaders.photo(.jpeg, in: MemoryBytes(syntheticJPEG(width: 300, height: 200, frame: false))) == nil)
        #expect(ImageHeaders.photo(.jpeg, in: MemoryBytes(syntheticJPEG(width: 0, height: 200))) == nil)
        #expect(ImageHeaders.photo(.jpeg, in: MemoryBytes(Array(good.dropLast(2)))) == nil)

        let real = MediaFixtures.shared.bytes("x.jpg")
        #expect(ImageHeaders.photo(.jpeg, in: MemoryBytes(Array(real.prefix(real.count / 2)))) == nil)
        // Data after the end marker (what phones append) leaves the image whole.
        #expect(ImageHeaders.photo(.jpeg, in: MemoryBytes(real + [UInt8](repeating: 0, count: 100)))?.width == 64)
        // Fill bytes before a marker are allowed.
        let filled = Array(real[0..<2]) + [0xFF, 0xFF] + Array(real[2...])
        #expect(ImageHeaders.photo(.jpeg, in: MemoryBytes(filled))?.width == 64)
    }

    @Test func pngNeedsHeaderAndEnd() {
        let png = MediaFixtures.shared.bytes("x.png")
        #expect(ImageHeaders.photo(.png, in: MemoryBytes(Array(png.dropLast(12)))) == nil)
        #expect(ImageHeaders.photo(.png, in: MemoryBytes(Array(png.dropLast(1)))) == nil)
        var noHeader = png
        noHeader[12] = UInt8(ascii: "X")
        #expect(ImageHeaders.photo(.png, in: MemoryBytes(noHeader)) == nil)
    }

    @Test func gifNeedsTrailer() {
        let gif = MediaFixtures.shared.bytes("x.gif")
        #expect(gif.last == 0x3B)
        #expect(ImageHeaders.photo(.gif, in: MemoryBytes(Array(gif.dropLast()))) == nil)
        #expect(ImageHeaders.photo(.gif, in: MemoryBytes(Array(gif.prefix(9)))) == nil)
    }

    @Test func webpNeedsConsistentSizeAndImageChunk() {
        let webp = MediaFixtures.shared.bytes("x.webp")
        #expect(ImageHeaders.photo(.webp, in: MemoryBytes(Array(webp.dropLast(10)))) == nil)
        #expect(ImageHeaders.photo(.webp, in: MemoryBytes(webp + [0, 0, 0, 0])) == nil)
        var wrongChunk = webp
        wrongChunk[15] = UInt8(ascii: "Q")
        #expect(ImageHeaders.photo(.webp, in: MemoryBytes(wrongChunk)) == nil)
        var badStartCode = webp
        badStartCode[23] = 0
        #expect(ImageHeaders.photo(.webp, in: MemoryBytes(badStartCode)) == nil)
    }

    @Test func aJPEGWithAVideoAfterItsEndIsWhole() {
        // Motion Photos: the camera appends the clip (an MP4) after the image's end marker.
        let jpeg = MediaFixtures.shared.bytes("x.jpg")
        let motion = jpeg + MediaFixtures.shared.bytes("x.mp4")
        let header = ImageHeaders.photo(.jpeg, in: MemoryBytes(motion))
        #expect(header != nil && header?.width == ImageHeaders.photo(.jpeg, in: MemoryBytes(jpeg))?.width)
        let cut = Array(jpeg.prefix(jpeg.count - 40))
        #expect(ImageHeaders.photo(.jpeg, in: MemoryBytes(cut)) == nil, "still refused when cut short")
    }

    @Test func garbageAfterMagicNeverTraps() {
        var noise = NoiseGenerator(state: 0x5EED)
        let magics: [(MediaFormat, [UInt8])] = [
            (.jpeg, [0xFF, 0xD8, 0xFF]), (.png, [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]),
            (.gif, Array("GIF89a".utf8)), (.webp, Array("RIFF\u{0}\u{0}\u{0}\u{0}WEBP".utf8)),
            (.heic, ftypBox(major: "heic", compatible: [])),
        ]
        for _ in 0..<300 {
            for (format, magic) in magics {
                let tail = (0..<noise.below(200)).map { _ in UInt8(truncatingIfNeeded: noise.next()) }
                _ = ImageHeaders.photo(format, in: MemoryBytes(magic + tail))
                _ = ImageHeaders.sniff(magic + tail)
            }
        }
        // Every prefix of real files is incomplete, so must be refused (GIF aside: its data may end in 0x3B by chance).
        for name in ["x.jpg", "x.png", "x.gif", "x.webp", "anim.webp"] {
            let bytes = MediaFixtures.shared.bytes(name)
            for cut in stride(from: 0, to: bytes.count, by: 7) {
                let prefix = Array(bytes.prefix(cut))
                guard let format = ImageHeaders.sniff(prefix) else { continue }
                let header = ImageHeaders.photo(format, in: MemoryBytes(prefix))
                if format != .gif { #expect(header == nil, "\(name) cut at \(cut)") }
            }
        }
        let heic = syntheticHEIC()
        for cut in 0..<heic.count {
            _ = ImageHeaders.photo(.heic, in: MemoryBytes(Array(heic.prefix(cut))))
        }
    }
}
