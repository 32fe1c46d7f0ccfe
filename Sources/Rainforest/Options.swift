import ArgumentParser
import Foundation

/// A window size in points, from "WIDTHxHEIGHT".
struct WindowSize: Sendable, Equatable, CustomStringConvertible {
    static let allowed = 200...16384
    var width: Int
    var height: Int

    var description: String { "\(width)x\(height)" }
    var cgSize: CGSize { CGSize(width: width, height: height) }

    static func parse(_ text: String) throws -> WindowSize {
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]) else {
            throw ValidationError("expected WIDTHxHEIGHT in points, like 1280x800")
        }
        guard allowed.contains(w), allowed.contains(h) else {
            throw ValidationError("each side must be from \(allowed.lowerBound) to \(allowed.upperBound) points")
        }
        return WindowSize(width: w, height: h)
    }
}

/// The debug overlays, by the names the command line and screenshots use.
enum OverlayName: String, CaseIterable, Sendable {
    case fps, hitslop, ranges, scaling

    /// Whether this build draws it yet.
    var isAvailable: Bool { self == .fps }

    static func parseList(_ text: String) throws -> [OverlayName] {
        try text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }.map {
            guard let name = OverlayName(rawValue: $0.lowercased()) else {
                throw ValidationError("unknown overlay '\($0)'; choose from \(allCases.map(\.rawValue).joined(separator: ", "))")
            }
            return name
        }
    }
}

/// Options every command that shows cards takes.
struct CollectionOptions: ParsableArguments {
    @Option(help: "How many cards: the embedded ones repeated to N.")
    var cards: Int?

    @Option(help: ArgumentHelp("The window's size in points.", valueName: "WxH"), transform: WindowSize.parse)
    var size: WindowSize?

    @Option(help: ArgumentHelp("The folder with cards.json, images/ and fonts/.", valueName: "DIR"))
    var resources: String?

    func validate() throws {
        if let cards, cards < 1 || cards > 10_000_000 {
            throw ValidationError("--cards must be from 1 to 10000000")
        }
    }
}
