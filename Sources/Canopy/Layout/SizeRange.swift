import Foundation

/// A range of sizes a layout must fit in, as Texture's `ASSizeRange`.
public struct SizeRange: Sendable, Equatable, CustomStringConvertible {
    public var min: CGSize
    public var max: CGSize

    public init(min: CGSize, max: CGSize) {
        self.min = min
        self.max = max
    }

    /// The range holding only `size`.
    public init(exactly size: CGSize) {
        self.init(min: size, max: size)
    }

    /// From zero to infinity on both axes.
    public static let unconstrained = SizeRange(
        min: .zero, max: CGSize(width: CGFloat.infinity, height: CGFloat.infinity))

    /// `size` brought inside the range on each axis; where min > max, min wins.
    public func clamp(_ size: CGSize) -> CGSize {
        CGSize(
            width: Swift.max(min.width, Swift.min(max.width, size.width)),
            height: Swift.max(min.height, Swift.min(max.height, size.height)))
    }

    /// The sizes in both ranges (Texture's `ASSizeRangeIntersect`). Where the ranges do not overlap
    /// on an axis, `self` wins: the result is the point of `self` nearest to `other`.
    public func intersect(_ other: SizeRange) -> SizeRange {
        let w = Self.intersect(min.width, max.width, other.min.width, other.max.width)
        let h = Self.intersect(min.height, max.height, other.min.height, other.max.height)
        return SizeRange(min: CGSize(width: w.0, height: h.0), max: CGSize(width: w.1, height: h.1))
    }

    private static func intersect(
        _ minA: CGFloat, _ maxA: CGFloat, _ minB: CGFloat,
        _ maxB: CGFloat
    ) -> (CGFloat, CGFloat) {
        let lower = Swift.max(minA, minB)
        let upper = Swift.min(maxA, maxB)
        if lower <= upper { return (lower, upper) }
        return maxA < minB ? (maxA, maxA) : (minA, minA)
    }

    public var description: String {
        "[\(layoutFormat(min.width))×\(layoutFormat(min.height)) … \(layoutFormat(max.width))×\(layoutFormat(max.height))]"
    }
}

/// Formats a length for descriptions: integers without a fraction, "inf" for infinity.
func layoutFormat(_ value: CGFloat) -> String {
    if value.isInfinite { return value > 0 ? "inf" : "-inf" }
    if value == value.rounded() && abs(value) < 1e15 { return String(Int(value)) }
    return String(format: "%.2f", Double(value))
}

/// The parent size a spec passes down: its max size where finite, else NaN ("undefined", so
/// fractional child sizes fall back to auto).
func definedParentSize(_ range: SizeRange) -> CGSize {
    CGSize(
        width: range.max.width.isFinite ? range.max.width : .nan,
        height: range.max.height.isFinite ? range.max.height : .nan)
}
