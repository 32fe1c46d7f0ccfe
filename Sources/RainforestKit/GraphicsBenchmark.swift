import CanopyGraphics
import Foundation

/// `bench --scenario graphics`: what each step of drawing a card costs on one core (every step
/// runs on the calling thread alone), as the median of repeated runs, beside the naive full-resolution blur. The step names are fixed:
/// other tools read them from the JSON.
struct GraphicsBenchmark {
    static let steps = [
        "decode_jpeg_1080p", "decode_webp_1080p", "header_read", "downscale_to_card",
        "blur_card_1x", "blur_card_2x", "text_description", "card_1x", "naive_blur_full_res",
        "decode_jpeg_fit_card", "decode_jpeg_fit_card_adobe_rgb",
    ]

    /// An Adobe RGB (1998) profile from Debian's libgs-common (installed by `make setup`), which
    /// `decode_jpeg_fit_card_adobe_rgb` embeds in a copy of the photo.
    static let adobeRGBProfile = "/usr/share/color/icc/ghostscript/a98.icc"

    let resources: Resources
    let deck: CardDeck
    /// Timed runs per step (after one untimed warm-up run).
    var repetitions = 31

    struct Result: Codable, Sendable, Equatable {
        var medianMs: Double
        var runs: Int
        enum CodingKeys: String, CodingKey {
            case medianMs = "median_ms"
            case runs
        }
    }

    /// Runs every step; throws a user-facing error if a resource is missing.
    func run() throws(UserFacingError) -> [String: Result] {
        let jpeg = resources.imageURL("images/red-panda.jpg").path  // 1920 x 1080 baseline JPEG
        let webp = resources.imageURL("images/kingfisher.webp").path  // 1920 x 1080 lossy WebP
        let photo: Bitmap
        do {
            photo = try ImageDecoder.decode(contentsOf: jpeg)
            _ = try ImageDecoder.decode(contentsOf: webp)
        } catch {
            throw UserFacingError(message: "bench: \(error.description)")
        }
        let artist = try Self.sampleArtist(photoPath: jpeg, photo: photo, deck: deck)
        let cardSize = artist.size
        let background1x = Resampler.resize(photo, toPixelWidth: Int(cardSize.width), pixelHeight: Int(cardSize.height))
        let background2x = Resampler.resize(
            photo, toPixelWidth: Int(cardSize.width * 2),
            pixelHeight: Int(cardSize.height * 2)
        ).withScale(2)

        var results: [String: Result] = [:]
        func measure(_ name: String, _ body: () throws -> Void) throws(UserFacingError) {
            do {
                try body()  // warm-up: caches, page faults, lazily opened fonts
                var times: [Double] = []
                for _ in 0..<repetitions {
                    let start = DispatchTime.now().uptimeNanoseconds
                    try body()
                    times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
                }
                results[name] = Result(medianMs: times.median, runs: times.count)
            } catch {
                throw UserFacingError(message: "bench: \(name): \(error)")
            }
        }
        try measure("decode_jpeg_1080p") { _ = try ImageDecoder.decode(contentsOf: jpeg) }
        try measure("decode_webp_1080p") { _ = try ImageDecoder.decode(contentsOf: webp) }
        try measure("header_read") { _ = try ImageHeader.read(contentsOf: jpeg) }
        try measure("downscale_to_card") { _ = Resampler.resize(photo, toPixelWidth: 320, pixelHeight: 180) }
        try measure("blur_card_1x") {
            _ = ImageEffects.blur(
                background1x, radius: CardArtist.blurRadius, tintColor: CardArtist.blurTint,
                saturationDeltaFactor: CardArtist.blurSaturation)
        }
        try measure("blur_card_2x") {
            _ = ImageEffects.blur(
                background2x, radius: CardArtist.blurRadius, tintColor: CardArtist.blurTint,
                saturationDeltaFactor: CardArtist.blurSaturation)
        }
        try measure("text_description") {
            let layout = try artist.descriptionLayout(scale: 1)
            let context = GraphicsContext(
                size: CGSize(width: layout.width, height: CardDeck.textAreaHeight - 40),
                scale: 1, fill: .black)
            layout.draw(in: context, at: .zero)
        }
        try measure("card_1x") { _ = try artist.draw(scale: 1) }
        try measure("naive_blur_full_res") {
            _ = ImageEffects.blur(
                photo, radius: CardArtist.blurRadius, tintColor: CardArtist.blurTint,
                saturationDeltaFactor: CardArtist.blurSaturation, allowsDownscaling: false)
        }
        try measureColorConversion(jpeg: jpeg, into: &results)
        return results
    }

    /// The cost of an embedded profile: the photo decoded to cover a 1x card, plain and with an
    /// Adobe RGB profile (converted to sRGB by Little CMS), the two runs taking turns so that the
    /// machine's swings fall on both. Left out when the profile is not installed.
    private func measureColorConversion(jpeg: String, into results: inout [String: Result]) throws(UserFacingError) {
        guard let profile = FileManager.default.contents(atPath: Self.adobeRGBProfile),
            var file = FileManager.default.contents(atPath: jpeg), file.count > 2
        else { return }
        // The profile in an APP2 segment ("ICC_PROFILE", NUL, chunk 1 of 1) right after SOI.
        let payload = Data("ICC_PROFILE".utf8) + Data([0, 1, 1]) + profile
        file.insert(
            contentsOf: Data([0xFF, 0xE2, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)]) + payload, at: 2)
        let tagged = FileManager.default.temporaryDirectory.appendingPathComponent("rainforest-bench-\(getpid())-adobe-rgb.jpg")
        defer { try? FileManager.default.removeItem(at: tagged) }
        do {
            try file.write(to: tagged)
            let target = CGSize(width: 320, height: 180)
            var plainTimes: [Double] = [], taggedTimes: [Double] = []
            for run in 0...repetitions {
                for (path, index) in [(jpeg, 0), (tagged.path, 1)] {
                    let start = DispatchTime.now().uptimeNanoseconds
                    _ = try ImageDecoder.decode(contentsOf: path, fitting: target)
                    let ms = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
                    if run > 0 { index == 0 ? plainTimes.append(ms) : taggedTimes.append(ms) }  // run 0 warms up
                }
            }
            results["decode_jpeg_fit_card"] = Result(medianMs: plainTimes.median, runs: plainTimes.count)
            results["decode_jpeg_fit_card_adobe_rgb"] = Result(medianMs: taggedTimes.median, runs: taggedTimes.count)
        } catch {
            throw UserFacingError(message: "bench: colour conversion: \(error)")
        }
    }

    /// The red panda's card, its photo read from `resources` (the benchmarks that draw one card).
    static func sampleArtist(resources: Resources, deck: CardDeck) throws(UserFacingError) -> CardArtist {
        let jpeg = resources.imageURL("images/red-panda.jpg").path
        let photo: Bitmap
        do {
            photo = try ImageDecoder.decode(contentsOf: jpeg)
        } catch {
            throw UserFacingError(message: "bench: \(error.description)")
        }
        return try sampleArtist(photoPath: jpeg, photo: photo, deck: deck)
    }

    /// The red panda's card (or the deck's first), drawn from its photo as the image cache holds
    /// it: decoded to cover the card at 1x.
    static func sampleArtist(photoPath: String, photo: Bitmap, deck: CardDeck) throws(UserFacingError) -> CardArtist {
        let card = deck.entries.first { $0.card.image == "images/red-panda.jpg" }?.card ?? deck.entries[0].card
        let photoSize = CGSize(width: photo.width, height: photo.height)
        let cached: Bitmap
        do {
            cached = try ImageDecoder.decode(
                contentsOf: photoPath, fitting: CardArtist.photoPixelSize(photoSize: photoSize, scale: 1))
        } catch {
            throw UserFacingError(message: "bench: \(error.description)")
        }
        return CardArtist(name: card.name, description: card.description, photo: cached, photoSize: photoSize)
    }

    /// The naive full-resolution blur's cost over the card blur's, at 1x and 2x.
    static func naiveBlurRatios(_ results: [String: Result]) -> [String: Double]? {
        guard let naive = results["naive_blur_full_res"], let card = results["blur_card_1x"],
            let card2 = results["blur_card_2x"]
        else { return nil }
        return [
            "naive_over_blur_card_1x": naive.medianMs / card.medianMs,
            "naive_over_blur_card_2x": naive.medianMs / card2.medianMs,
        ]
    }

    /// The table: one row per step, and the naive blur's cost as a ratio of the card's blur.
    static func table(_ results: [String: Result]) -> String {
        var rows = [["step", "median ms"]]
        for step in steps { if let r = results[step] { rows.append([step, String(format: "%.3f", r.medianMs)]) } }
        var text = BenchReport.format(rows)
        if let ratios = naiveBlurRatios(results) {
            text += String(
                format: "\nnaive full-resolution blur / card blur: %.1fx at 1x, %.1fx at 2x",
                ratios["naive_over_blur_card_1x"]!, ratios["naive_over_blur_card_2x"]!)
        }
        return text
    }
}
