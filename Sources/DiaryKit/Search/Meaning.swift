import Foundation

/// Turns texts into vectors whose closeness is closeness in meaning (an OpenAI-compatible
/// `/embeddings` service, `[memory] embeddings` in the config).
public protocol TextEmbedder: Sendable {
    /// What makes the vectors; vectors of different models are never compared.
    var model: String { get }
    /// One vector per text, in order.
    func embed(_ texts: [String]) async throws -> [[Float]]
}

/// A page's meaning as it is kept: the vector scaled so its largest component is ±127, one
/// signed byte per dimension (384 bytes for multilingual-e5-small; a cosine moves by well
/// under 1 %). Direction is all that counts, so the scale is not kept.
enum MeaningVector {
    static func packed(_ vector: [Float]) -> Data {
        let largest = vector.lazy.map(abs).max() ?? 0
        let scale = largest > 0 ? 127 / largest : 0
        return Data(vector.map { UInt8(bitPattern: Int8(($0 * scale).rounded())) })
    }

    static func unpacked(_ data: Data) -> [Float] {
        data.map { Float(Int8(bitPattern: $0)) }
    }

    /// A moment's vector made like a kept one, to compare in whole numbers.
    struct Query {
        let values: [Int32]
        let norm: Float

        init(_ vector: [Float]) {
            values = MeaningVector.packed(vector).map { Int32(Int8(bitPattern: $0)) }
            norm = Float(values.reduce(0) { $0 + $1 * $1 }).squareRoot()
        }

        /// The cosine with a kept vector; 0 when their sizes differ or either is all zeros.
        func cosine(_ kept: UnsafeRawBufferPointer) -> Float {
            guard kept.count == values.count, norm > 0 else { return 0 }
            let bytes = kept.assumingMemoryBound(to: Int8.self)
            // Whole numbers: at most 384 × 127² each way.
            var dot: Int32 = 0
            var squares: Int32 = 0
            for index in 0..<values.count {
                let value = Int32(bytes[index])
                dot &+= values[index] &* value
                squares &+= value &* value
            }
            return squares > 0 ? Float(dot) / (norm * Float(squares).squareRoot()) : 0
        }
    }
}

/// Keeps the saved pages' meaning vectors up to date on this device: made after a save or on
/// demand (`diary-save --embed`), never synced or exported.
package struct PageMeanings: Sendable {
    package let store: DiaryStore
    package let embedder: any TextEmbedder

    /// Texts sent in one request.
    static let batch = 16
    /// Characters of a page that are embedded: its title, tags and beginning. Small models
    /// read about 512 tokens at most, and a long text costs seconds on a laptop's CPU.
    static let textLimit = 400

    package init(store: DiaryStore, embedder: any TextEmbedder) {
        self.store = store
        self.embedder = embedder
    }

    /// Makes vectors for up to `limit` saved pages that have none from this model (of the days
    /// from `since`, when given), newest first, and returns how many were made. Each batch is
    /// kept as soon as it arrives, so a failure keeps what was made before it.
    @discardableResult
    package func catchUp(limit: Int = .max, since: String? = nil) async throws -> Int {
        var made = 0
        while made < limit {
            let pages = try store.pagesToEmbed(model: embedder.model, limit: min(Self.batch, limit - made), since: since)
            guard !pages.isEmpty else { break }
            let vectors = try await embedder.embed(pages.map(Self.text))
            guard vectors.count == pages.count, let size = vectors.first?.count, size > 0,
                  vectors.allSatisfy({ $0.count == size && $0.allSatisfy(\.isFinite) }) else {
                throw MeaningUnavailable(detail: "\(vectors.count) vectors for \(pages.count) texts")
            }
            try store.keepVectors(model: embedder.model, zip(pages, vectors).map { ($0.entryId, MeaningVector.packed($1)) })
            made += pages.count
        }
        return made
    }

    /// What of a page is embedded: its title, tags and the start of its text.
    static func text(_ page: PageToEmbed) -> String {
        String(([page.title, page.tags.isEmpty ? nil : page.tags.joined(separator: " "), page.page]
            .compactMap { $0 }.joined(separator: "\n")).prefix(textLimit))
    }
}

/// The embedder could not give vectors; recall goes on by words.
package struct MeaningUnavailable: Error, Sendable {
    /// For `--verbose` only: never shown raw, never holds a key.
    package var detail: String
    /// The embedder already failed earlier in this process (and the person was told then).
    package var again: Bool

    package init(detail: String, again: Bool = false) {
        self.detail = detail
        self.again = again
    }
}

extension Recall.Moment {
    /// What of the moment is embedded: tags and place, the person's words, then the
    /// companion's description, within the same length as a page.
    package var meaningText: String {
        String(texts.enumerated().sorted { ($0.element.weight, -$0.offset) > ($1.element.weight, -$1.offset) }
            .map(\.element.text).joined(separator: "\n").prefix(PageMeanings.textLimit))
    }
}

extension Recall {
    /// The moment's meaning, to recall pages that say the same in other words.
    public struct Meaning: Sendable {
        public var model: String
        public var vector: [Float]

        public init(model: String, vector: [Float]) {
            self.model = model
            self.vector = vector
        }
    }

    /// A page's own kept vector as a meaning to recall by; nil when it has none from `model`.
    public func meaning(ofPage entryId: String, model: String) throws -> Meaning? {
        try store.query { try $0.vector(of: entryId, model: model) }.map { Meaning(model: model, vector: MeaningVector.unpacked($0)) }
    }

    /// Pages whose vectors stand out as close to the moment's: at least `standsOut` standard
    /// deviations above the mean cosine of all the diary's pages, the closest few. How close
    /// "close" is differs from model to model (e5's cosines crowd between 0.8 and 0.9); how
    /// far a page stands from the rest of the diary does not.
    static func nearInMeaning(_ reader: QueryReader, _ meaning: Meaning, excluding entryId: String) throws -> [String: Near] {
        let query = MeaningVector.Query(meaning.vector)
        // The mean and spread of every cosine, and the closest few with their ids.
        var count = 0
        var sum = 0.0
        var squares = 0.0
        var closest: [(id: String, cosine: Double)] = []
        try reader.vectors(model: meaning.model, except: entryId) { kept, id in
            let cosine = Double(query.cosine(kept))
            count += 1
            sum += cosine
            squares += cosine * cosine
            guard closest.count < candidates || cosine > closest[closest.count - 1].cosine else { return }
            closest.insert((id(), cosine), at: closest.firstIndex { $0.cosine < cosine } ?? closest.count)
            if closest.count > candidates { closest.removeLast() }
        }
        // Too few pages to tell what stands out from what is usual.
        guard count >= minimumPages else { return [:] }
        let mean = sum / Double(count)
        let spread = (max(0, squares / Double(count) - mean * mean)).squareRoot()
        guard spread > 0 else { return [:] }
        return Dictionary(closest.compactMap { page in
            let deviations = (page.cosine - mean) / spread
            return deviations >= standsOut ? (page.id, Near(cosine: page.cosine, deviations: deviations)) : nil
        }, uniquingKeysWith: { first, _ in first })
    }

    /// How close one page is in meaning.
    struct Near {
        var cosine: Double
        /// Standard deviations above the diary's mean cosine.
        var deviations: Double
    }

    /// Standard deviations above the mean that make a page close in meaning.
    static let standsOut = 2.0
    /// Pages with vectors needed before any can stand out (among n cosines none can be more
    /// than (n-1)/√n deviations above their mean: 2 needs at least 6, and a few more to mean it).
    static let minimumPages = 8
    /// A close page's score for each standard deviation, beside the words' scores.
    static let meaningWeight = 4.0
}
