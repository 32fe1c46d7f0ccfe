import ArgumentParser
import CanopyGraphics
import Foundation

/// A window size in points, from "WIDTHxHEIGHT".
struct WindowSize: Sendable, Equatable, CustomStringConvertible {
    /// The smallest window (one card column with its margins): the sizes allowed start there, and
    /// the window cannot be made smaller (`Application.Options.minimumSize`).
    static let minimum = WindowSize(width: 340, height: 200)
    /// From the window's minimum to 16384.
    static let allowedWidths = minimum.width...16384
    static let allowedHeights = minimum.height...16384
    var width: Int
    var height: Int

    var description: String { "\(width)x\(height)" }
    var cgSize: CGSize { CGSize(width: width, height: height) }

    static func parse(_ text: String) throws -> WindowSize {
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]) else {
            throw ValidationError("expected WIDTHxHEIGHT in points, like 1280x800")
        }
        guard allowedWidths.contains(w), allowedHeights.contains(h) else {
            throw ValidationError(
                "the width must be from \(allowedWidths.lowerBound) and the height from \(allowedHeights.lowerBound) to \(allowedWidths.upperBound) points"
            )
        }
        return WindowSize(width: w, height: h)
    }
}

/// The debug overlays, by the names the command line and screenshots use.
enum OverlayName: String, CaseIterable, Sendable {
    case fps, hitslop, ranges, scaling

    static func parseList(_ text: String) throws -> [OverlayName] {
        try text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }.map {
            guard let name = OverlayName(rawValue: $0.lowercased()) else {
                throw ValidationError("unknown overlay '\($0)'; choose from \(allCases.map(\.rawValue).joined(separator: ", "))")
            }
            return name
        }
    }
}

/// Checks, before any work, that a file can be written where an option says (its folder exists
/// and is writable), so a long run does not end in a failed write.
func checkWritable(_ path: String, option: String) throws {
    let folder = (URL(fileURLWithPath: path).deletingLastPathComponent().path as NSString).standardizingPath
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue else {
        throw ValidationError("\(option) \(path): the folder \(folder) does not exist")
    }
    guard FileManager.default.isWritableFile(atPath: folder) else {
        throw ValidationError("\(option) \(path): the folder \(folder) is not writable")
    }
}

/// Options every command that shows cards takes.
struct CollectionOptions: ParsableArguments {
    @Option(help: "How many cards: the embedded ones repeated to N.")
    var cards: Int?

    @Option(
        help: ArgumentHelp(
            "A card for every file in DIR instead of the embedded cards (not with --cards).",
            valueName: "DIR"))
    var images: String?

    @Option(help: "Cards loaded at start and per batch fetch, until --cards (or every file of --images) are loaded.")
    var pageSize: Int = CardSource.defaultPageSize

    @Option(help: ArgumentHelp("The window's size in points.", valueName: "WxH"), transform: WindowSize.parse)
    var size: WindowSize?

    @Option(help: ArgumentHelp("The folder with cards.json, images/ and fonts/.", valueName: "DIR"))
    var resources: String?

    @Option(
        help: ArgumentHelp(
            "Images with more megapixels than MP become error cards, their pixels never read.", valueName: "MP"))
    var maxMegapixels: Double = Double(ImageDecoder.defaultPixelLimit) / 1_000_000

    @Flag(
        inversion: .prefixedNo,
        help: "With --images: read the thumbnails the desktop shares ($XDG_CACHE_HOME/thumbnails) and write the ones made.")
    var thumbnails = true

    /// `--max-megapixels` in pixels.
    var pixelLimit: Int { Int((maxMegapixels * 1_000_000).rounded()) }

    func validate() throws {
        if let cards, cards < 1 || cards > 10_000_000 {
            throw ValidationError("--cards must be from 1 to 10000000")
        }
        if pageSize < 1 || pageSize > 10_000_000 {
            throw ValidationError("--page-size must be from 1 to 10000000")
        }
        // Up to the largest image a header may describe (65535 x 65535 pixels).
        guard maxMegapixels.isFinite, maxMegapixels >= 0.01, maxMegapixels <= 4295 else {
            throw ValidationError("--max-megapixels must be from 0.01 to 4295")
        }
        if let images {
            if cards != nil {
                throw ValidationError("--cards repeats the embedded cards; it cannot be used with --images \(images)")
            }
            do {
                _ = try ImageFolder.check(images)
            } catch {
                throw ValidationError(error.description)
            }
        }
    }
}

/// What the headless commands (screenshot, bench, soak) render at: a pixel density and a frame
/// rate, so that a HiDPI display and a high refresh rate are measured here, not assumed.
struct HeadlessOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Pixels per point to render at: 2 for a HiDPI display.", valueName: "S"))
    var scale: Double = 1

    @Option(help: ArgumentHelp("Frames per second to pace at: 60, 120, 144...", valueName: "HZ"))
    var refresh: Double = 60

    func validate() throws {
        guard scale.isFinite, (1...4).contains(scale) else { throw ValidationError("--scale must be from 1 to 4") }
        guard refresh.isFinite, (1...500).contains(refresh) else {
            throw ValidationError("--refresh must be from 1 to 500 frames per second")
        }
    }
}
