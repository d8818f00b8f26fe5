import Foundation
import Testing
@testable import DiaryKit
@testable import DiaryTestSupport

@Suite struct VideoProbeTests {
    /// 2024-05-01T10:20:30Z.
    let creation = Date(timeIntervalSince1970: 1_714_558_830)

    private func json(_ text: String) -> Data { Data(text.utf8) }

    @Test func findsFFprobe() throws {
        let found = try #require(VideoProbe.locate("ffprobe", path: "/nonexistent:/usr/bin"))
        #expect(found == "/usr/bin/ffprobe")
        #expect(VideoProbe.locate("ffprobe", path: nil) == "/usr/bin/ffprobe")
        #expect(VideoProbe.locate("ffprobe", path: "/nonexistent:relative/dir", fallbacks: []) == nil)
        #expect(VideoProbe.locate("definitely-not-a-real-tool-\(UUID().uuidString)", path: "/usr/bin") == nil)
        #expect(VideoProbe.system().executable != nil)
    }

    @Test func missingToolIsReported() throws {
        let video = MediaFixtures.shared.url("x.mp4")
        #expect(throws: MediaError.toolMissing("ffprobe")) { try VideoProbe(executable: nil).probe(video) }
        #expect(throws: MediaError.toolMissing("ffprobe")) {
            try VideoProbe(executable: "/nonexistent/ffprobe").probe(video)
        }
        let limits = MediaLimits(photoBytes: 1 << 20, videoBytes: 1 << 30)
        #expect(throws: MediaError.toolMissing("ffprobe")) {
            try MediaIntake.inspect(video, limits: limits, timeZone: .current, probe: VideoProbe(executable: nil))
        }
    }

    @Test func hangingProbeIsKilled() throws {
        let directory = try makeTempDirectory("probe")
        defer { try? FileManager.default.removeItem(at: directory) }
        let script = try writeFile(Array("#!/bin/sh\nexec sleep 30\n".utf8), named: "slow-ffprobe", in: directory)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script.path)
        let video = MediaFixtures.shared.url("x.mp4")
        let started = Date()
        #expect(throws: MediaError.unreadable(kind: .video, problem: .damaged)) {
            try VideoProbe(executable: script.path, timeout: 0.3).probe(video)
        }
        #expect(Date().timeIntervalSince(started) < 3)
    }

    @Test func failingOrNoisyProbeIsDamaged() throws {
        let directory = try makeTempDirectory("probe")
        defer { try? FileManager.default.removeItem(at: directory) }
        let scripts = [
            "#!/bin/sh\necho 'something went wrong' >&2\nexit 1\n",
            "#!/bin/sh\necho 'not json'\n",
            "#!/bin/sh\necho '{\"streams\":[],\"format\":{\"duration\":\"3.0\"}}'\n",
        ]
        for (index, text) in scripts.enumerated() {
            let script = try writeFile(Array(text.utf8), named: "probe-\(index)", in: directory)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script.path)
            #expect(throws: MediaError.unreadable(kind: .video, problem: .damaged)) {
                try VideoProbe(executable: script.path).probe(MediaFixtures.shared.url("x.mp4"))
            }
        }
    }

    @Test func largeReportIsReadWhole() throws {
        // More than a pipe buffer of output must neither stall nor be cut short.
        let directory = try makeTempDirectory("probe")
        defer { try? FileManager.default.removeItem(at: directory) }
        let padding = String(repeating: "x", count: 300_000)
        let report = "{\"streams\":[{\"codec_type\":\"video\",\"width\":10,\"height\":20,\"note\":\"\(padding)\"}],\"format\":{\"duration\":\"2.5\"}}"
        let data = try writeFile(Array(report.utf8), named: "report.json", in: directory)
        let script = try writeFile(Array("#!/bin/sh\ncat '\(data.path)'\n".utf8), named: "big-ffprobe", in: directory)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script.path)
        let info = try VideoProbe(executable: script.path).probe(MediaFixtures.shared.url("x.mp4"))
        #expect(info == VideoInfo(width: 10, height: 20, durationSeconds: 2.5, takenAt: nil))
    }

    @Test func probesRealVideos() throws {
        let probe = VideoProbe.system()
        for name in ["x.mp4", "x.mov", "x.webm"] {
            let info = try probe.probe(MediaFixtures.shared.url(name))
            #expect(info.width == 64 && info.height == 48, "\(name)")
            #expect(abs(info.durationSeconds - 1) < 0.25, "\(name)")
            #expect(info.takenAt == creation, "\(name)")
        }
        let unstamped = try probe.probe(MediaFixtures.shared.url("x.m4v"))
        #expect(unstamped.takenAt == nil)
    }

    @Test func audioOnlyIsNotAVideo() {
        #expect(throws: MediaError.unreadable(kind: .video, problem: .damaged)) {
            try VideoProbe.system().probe(MediaFixtures.shared.url("audio.m4a"))
        }
    }

    @Test func parsesReports() throws {
        let full = try #require(VideoProbe.parse(json("""
        {"streams":[{"codec_type":"audio","duration":"9.0"},
                    {"codec_type":"video","width":1920,"height":1080,"duration":"4.2"}],
         "format":{"duration":"4.25","tags":{"creation_time":"2024-05-01T10:20:30.000000Z"}}}
        """)))
        #expect(full == VideoInfo(width: 1920, height: 1080, durationSeconds: 4.25, takenAt: creation))

        // The stream's duration stands in when the container has none.
        let streamOnly = try #require(VideoProbe.parse(json("""
        {"streams":[{"codec_type":"video","width":640,"height":360,"duration":"7.5"}],"format":{}}
        """)))
        #expect(streamOnly.durationSeconds == 7.5)

        // Cover art is skipped in favour of the real video stream.
        let coverFirst = try #require(VideoProbe.parse(json("""
        {"streams":[{"codec_type":"video","width":500,"height":500,"disposition":{"attached_pic":1}},
                    {"codec_type":"video","width":320,"height":240}],"format":{"duration":"1.0"}}
        """)))
        #expect(coverFirst.width == 320)
    }

    @Test func rejectsUnusableReports() {
        let bad = [
            "",
            "[]",
            #"{"streams":[{"codec_type":"video","width":64,"height":48}],"format":{"duration":"0.000000"}}"#,
            #"{"streams":[{"codec_type":"video","width":64,"height":48}],"format":{"duration":"N/A"}}"#,
            #"{"streams":[{"codec_type":"video","width":64,"height":48}],"format":{}}"#,
            #"{"streams":[{"codec_type":"video","width":0,"height":48}],"format":{"duration":"1.0"}}"#,
            #"{"streams":[{"codec_type":"video"}],"format":{"duration":"1.0"}}"#,
            #"{"streams":[{"codec_type":"audio","width":64,"height":48}],"format":{"duration":"1.0"}}"#,
            #"{"streams":[{"codec_type":"video","width":64,"height":48,"disposition":{"attached_pic":1}}],"format":{"duration":"1.0"}}"#,
        ]
        for text in bad {
            #expect(VideoProbe.parse(json(text)) == nil, "\(text)")
        }
    }

    @Test func parsesCreationTimes() {
        #expect(VideoProbe.parseCreationTime("2024-05-01T10:20:30.000000Z") == creation)
        #expect(VideoProbe.parseCreationTime("2024-05-01T10:20:30Z") == creation)
        #expect(VideoProbe.parseCreationTime("2024-05-01T18:20:30+08:00") == creation)
        #expect(VideoProbe.parseCreationTime("2024-05-01T10:20:30") == creation)
        #expect(VideoProbe.parseCreationTime("1970-01-01T00:00:00.000000Z") == nil)
        #expect(VideoProbe.parseCreationTime("1904-01-01T00:00:00Z") == nil)
        #expect(VideoProbe.parseCreationTime("yesterday") == nil)
    }
}
