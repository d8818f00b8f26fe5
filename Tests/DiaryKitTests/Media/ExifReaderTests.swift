import Foundation
import Testing
@testable import DiaryKit
@testable import DiaryTestSupport

@Suite struct ExifReaderTests {
    let utc = TimeZone(identifier: "UTC")!
    let tokyo = TimeZone(identifier: "Asia/Tokyo")!

    /// 2024-05-01 14:30:00 at +08:00.
    let taipeiAfternoon = Date(timeIntervalSince1970: 1_714_545_000)

    @Test(arguments: [true, false])
    func readsTimeOffsetAndPosition(littleEndian: Bool) {
        let tiff = TIFFBuilder(littleEndian: littleEndian).camera()
        let info = ExifReader.read(tiff: tiff, timeZone: utc)
        #expect(info.takenAt == taipeiAfternoon)
        #expect(abs((info.latitude ?? 0) - (25 + 2.0 / 60 + 30.0 / 3600)) < 1e-9)
        #expect(abs((info.longitude ?? 0) - (121 + 33.0 / 60 + 54.0 / 3600)) < 1e-9)
    }

    @Test(arguments: [true, false])
    func southAndWestAreNegative(littleEndian: Bool) {
        let tiff = TIFFBuilder(littleEndian: littleEndian)
            .camera(latitude: [(33, 1), (52, 1), (0, 1)], latitudeRef: "S",
                    longitude: [(151, 1), (12, 1), (36, 1)], longitudeRef: "W")
        let info = ExifReader.read(tiff: tiff, timeZone: utc)
        #expect(abs((info.latitude ?? 0) - -(33 + 52.0 / 60)) < 1e-9)
        #expect(abs((info.longitude ?? 0) - -(151 + 12.0 / 60 + 36.0 / 3600)) < 1e-9)
    }

    @Test func timeWithoutOffsetIsReadInTheGivenZone() {
        let tiff = TIFFBuilder(littleEndian: true).camera(offset: nil)
        let inTokyo = ExifReader.read(tiff: tiff, timeZone: tokyo).takenAt
        let inUTC = ExifReader.read(tiff: tiff, timeZone: utc).takenAt
        // 14:30 in Tokyo is 05:30 UTC; 14:30 UTC is nine hours later.
        #expect(inTokyo == Date(timeIntervalSince1970: 1_714_541_400))
        #expect(inUTC == Date(timeIntervalSince1970: 1_714_573_800))
    }

    @Test func offsetOverridesTheGivenZone() {
        let tiff = TIFFBuilder(littleEndian: false).camera(offset: "-05:30")
        // 14:30 at -05:30 is 20:00 UTC.
        #expect(ExifReader.read(tiff: tiff, timeZone: tokyo).takenAt == Date(timeIntervalSince1970: 1_714_593_600))
    }

    @Test func fallsBackToDigitizedTime() {
        let builder = TIFFBuilder(littleEndian: true)
        let tiff = builder.build(exif: [builder.ascii(0x9004, "2024:05:01 14:30:00"), builder.ascii(0x9012, "+08:00")])
        #expect(ExifReader.read(tiff: tiff, timeZone: utc).takenAt == taipeiAfternoon)
    }

    @Test func rejectsImpossibleDates() {
        for text in ["0000:00:00 00:00:00", "2024:02:30 10:00:00", "2024:13:01 10:00:00", "2024:05:01 25:00:00",
                     "    :  :     :  :  ", "2024-05-01 10:00:00", "2024:05:01", ""] {
            #expect(ExifReader.parseDate(text, offset: nil, timeZone: utc) == nil, "\(text)")
            let tiff = TIFFBuilder(littleEndian: true).camera(date: text)
            #expect(ExifReader.read(tiff: tiff, timeZone: utc).takenAt == nil)
        }
        #expect(ExifReader.parseDate("2024:02:29 10:00:00", offset: nil, timeZone: utc) != nil)
    }

    @Test func parsesOffsets() {
        #expect(ExifReader.parseOffset("+08:00") == 8 * 3600)
        #expect(ExifReader.parseOffset("-05:30") == -(5 * 3600 + 1800))
        #expect(ExifReader.parseOffset("+0545") == 5 * 3600 + 45 * 60)
        #expect(ExifReader.parseOffset("08:00") == nil)
        #expect(ExifReader.parseOffset("+8") == nil)
        #expect(ExifReader.parseOffset("+99:00") == nil)
        // An unusable offset falls back to the given zone rather than dropping the time.
        let tiff = TIFFBuilder(littleEndian: true).camera(offset: "   :  ")
        #expect(ExifReader.read(tiff: tiff, timeZone: tokyo).takenAt == Date(timeIntervalSince1970: 1_714_541_400))
    }

    @Test func unusablePositionIsDropped() {
        let builder = TIFFBuilder(littleEndian: true)
        let zeroDenominator = builder.camera(latitude: [(25, 0), (2, 1), (30, 1)])
        #expect(ExifReader.read(tiff: zeroDenominator, timeZone: utc).latitude == nil)
        #expect(ExifReader.read(tiff: zeroDenominator, timeZone: utc).longitude == nil)
        let outOfRange = builder.camera(latitude: [(95, 1), (0, 1), (0, 1)])
        #expect(ExifReader.read(tiff: outOfRange, timeZone: utc).latitude == nil)
        let tooFewParts = builder.camera(longitude: [(121, 1)])
        #expect(ExifReader.read(tiff: tooFewParts, timeZone: utc).longitude == nil)
        // The time is still read when only the position is broken.
        #expect(ExifReader.read(tiff: tooFewParts, timeZone: utc).takenAt == taipeiAfternoon)
    }

    @Test func hostilePointersYieldNothing() {
        let builder = TIFFBuilder(littleEndian: true)
        let pointers = [
            builder.build(ifd0: [TIFFBuilder.Entry(tag: 0x8769, type: 4, count: 1, payload: builder.u32(0xFFFF_FFFF))]),
            builder.build(ifd0: [TIFFBuilder.Entry(tag: 0x8825, type: 4, count: 1, payload: builder.u32(0xFFFF_FFF0))]),
            // Exif IFD pointing back at IFD0.
            builder.build(ifd0: [TIFFBuilder.Entry(tag: 0x8769, type: 4, count: 1, payload: builder.u32(8))]),
            // A string whose count runs far past the block.
            builder.build(exif: [TIFFBuilder.Entry(tag: 0x9003, type: 2, count: 0x7FFF_FFFF, payload: builder.u32(16))]),
            builder.build(gps: [TIFFBuilder.Entry(tag: 0x0002, type: 5, count: 0xFFFF_FFFF, payload: builder.u32(8))]),
        ]
        for tiff in pointers {
            #expect(ExifReader.read(tiff: tiff, timeZone: utc) == ExifInfo())
        }
        #expect(ExifReader.read(tiff: [], timeZone: utc) == ExifInfo())
        #expect(ExifReader.read(tiff: Array("II*\u{0}".utf8), timeZone: utc) == ExifInfo())
        #expect(ExifReader.read(tiff: Array("XX*\u{0}\u{8}\u{0}\u{0}\u{0}".utf8), timeZone: utc) == ExifInfo())
    }

    @Test func truncatedAndMutatedBlocksNeverTrap() {
        for littleEndian in [true, false] {
            let tiff = TIFFBuilder(littleEndian: littleEndian).camera()
            for cut in 0...tiff.count {
                let info = ExifReader.read(tiff: Array(tiff.prefix(cut)), timeZone: utc)
                // Whatever survives a cut must still be right: with its offset, or without it (then read in UTC).
                if let takenAt = info.takenAt {
                    #expect(takenAt == taipeiAfternoon || takenAt == Date(timeIntervalSince1970: 1_714_573_800))
                }
            }
            var noise = NoiseGenerator(state: littleEndian ? 0xC0FFEE : 0xBEEF)
            for _ in 0..<1000 {
                var mutated = tiff
                for _ in 0..<(1 + noise.below(6)) {
                    mutated[noise.below(mutated.count)] = UInt8(truncatingIfNeeded: noise.next())
                }
                _ = ExifReader.read(tiff: mutated, timeZone: utc)
            }
        }
        var noise = NoiseGenerator(state: 42)
        for _ in 0..<500 {
            let garbage = (0..<noise.below(300)).map { _ in UInt8(truncatingIfNeeded: noise.next()) }
            _ = ExifReader.read(tiff: Array("MM\u{0}*".utf8) + garbage, timeZone: utc)
            _ = ExifReader.read(tiff: Array("II*\u{0}".utf8) + garbage, timeZone: utc)
        }
    }

    @Test func jpegHeaderHandsOverTheExifBlock() throws {
        let tiff = TIFFBuilder(littleEndian: false).camera()
        let jpeg = jpegWithSegment(exifSegment(tiff))
        let header = try #require(ImageHeaders.photo(.jpeg, in: MemoryBytes(jpeg)))
        #expect(header.exifTIFF == tiff)
        #expect(header.width == 64 && header.height == 48)

        // XMP also lives in APP1; it is not EXIF.
        let xmp = Array("http://ns.adobe.com/xap/1.0/".utf8) + [0] + Array("<x:xmpmeta/>".utf8)
        let xmpSegment: [UInt8] = [0xFF, 0xE1, 0, UInt8(xmp.count + 2)] + xmp
        #expect(try #require(ImageHeaders.photo(.jpeg, in: MemoryBytes(jpegWithSegment(xmpSegment)))).exifTIFF == nil)
    }
}
