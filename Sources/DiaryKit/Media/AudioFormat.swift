/// The voice memo formats taken in, told from their first bytes.
enum AudioFormat {
    case m4a, mp3, wav, ogg, flac, webm

    var mime: String {
        switch self {
        case .m4a: return "audio/mp4"
        case .mp3: return "audio/mpeg"
        case .wav: return "audio/wav"
        case .ogg: return "audio/ogg"
        case .flac: return "audio/flac"
        case .webm: return "audio/webm"
        }
    }

    var fileExtension: String {
        switch self {
        case .m4a: return "m4a"
        case .mp3: return "mp3"
        case .wav: return "wav"
        case .ogg: return "ogg"
        case .flac: return "flac"
        case .webm: return "webm"
        }
    }

    /// The format the leading bytes announce; ffprobe then checks there is sound in it.
    static func sniff(_ head: [UInt8]) -> AudioFormat? {
        func has(_ text: String, at offset: Int) -> Bool {
            let bytes = Array(text.utf8)
            return head.count >= offset + bytes.count && Array(head[offset..<offset + bytes.count]) == bytes
        }
        if has("ftyp", at: 4) { return .m4a }
        if has("ID3", at: 0) || (head.count >= 2 && head[0] == 0xFF && head[1] & 0xE0 == 0xE0) { return .mp3 }
        if has("RIFF", at: 0) && has("WAVE", at: 8) { return .wav }
        if has("OggS", at: 0) { return .ogg }
        if has("fLaC", at: 0) { return .flac }
        if head.starts(with: [0x1A, 0x45, 0xDF, 0xA3]) { return .webm }
        return nil
    }
}
