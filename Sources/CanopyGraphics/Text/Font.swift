import Foundation

/// The weight of a face, with CSS's numbers.
public enum FontWeight: Int, Sendable, Hashable, CaseIterable, Comparable {
    case thin = 100, light = 300, regular = 400, medium = 500, semibold = 600, bold = 700, heavy = 800, black = 900

    public static func < (a: FontWeight, b: FontWeight) -> Bool { a.rawValue < b.rawValue }

    /// The weight a style name in a font file name stands for ("Heavy", "Bold", ...).
    public init?(styleName: String) {
        switch styleName.lowercased() {
        case "thin", "hairline": self = .thin
        case "light": self = .light
        case "regular", "normal", "book", "italic": self = .regular
        case "medium": self = .medium
        case "semibold", "demibold": self = .semibold
        case "bold": self = .bold
        case "heavy", "extrabold": self = .heavy
        case "black": self = .black
        default: return nil
        }
    }
}

/// A font: a family, a weight, a slant and a size in points.
public struct Font: Sendable, Hashable {
    /// The family name that stands for the registry's default family (`FontRegistry.defaultFamily`),
    /// which the app chooses: CanopyGraphics names no family of its own.
    public static let defaultFamily = "default"

    /// A font of the registry's default family, as UIKit's `systemFont(ofSize:)`.
    public static func `default`(size: CGFloat, weight: FontWeight = .regular, italic: Bool = false) -> Font {
        Font(family: defaultFamily, size: size, weight: weight, italic: italic)
    }

    public var family: String
    public var weight: FontWeight
    public var italic: Bool
    public var size: CGFloat

    public init(family: String, size: CGFloat, weight: FontWeight = .regular, italic: Bool = false) {
        self.family = family
        self.size = size
        self.weight = weight
        self.italic = italic
    }

    public func withSize(_ size: CGFloat) -> Font {
        var f = self
        f.size = size
        return f
    }
}
