import Foundation

/// A colour at a location (0...1) along a gradient.
public struct GradientStop: Sendable, Hashable {
    public var location: CGFloat
    public var color: Color

    public init(location: CGFloat, color: Color) {
        self.location = location
        self.color = color
    }
}

/// A linear gradient's colours; interpolated in premultiplied space.
///
/// Stops are used sorted by location with locations clamped to 0...1 (that happens when drawing,
/// so `stops` keeps what you gave). Before the first stop the first colour holds, after the
/// last the last one.
public struct Gradient: Sendable, Hashable {
    public var stops: [GradientStop]

    public init(stops: [GradientStop]) {
        self.stops = stops
    }

    /// Colours spread evenly from location 0 to 1 (a single colour sits at 0).
    public init(colors: [Color]) {
        let last = max(1, colors.count - 1)
        stops = colors.enumerated().map { GradientStop(location: CGFloat($0.offset) / CGFloat(last), color: $0.element) }
    }
}

/// Whether a linear gradient extends its end colours past its start and end points, as Core
/// Graphics' CGGradientDrawingOptions.
public struct GradientDrawingOptions: OptionSet, Sendable, Hashable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Fill before the start point with the first colour.
    public static let drawsBeforeStart = GradientDrawingOptions(rawValue: 1 << 0)
    /// Fill beyond the end point with the last colour.
    public static let drawsAfterEnd = GradientDrawingOptions(rawValue: 1 << 1)
}

/// A gradient prepared for sampling: sorted, clamped stops with premultiplied 0...255 colours.
struct GradientSampler {
    private var locations: [Float] = []
    private var colors: [SIMD4<Float>] = []

    init(_ gradient: Gradient) {
        let sorted = gradient.stops
            .map { (loc: Float(min(1, max(0, $0.location.isNaN ? 0 : $0.location))), color: $0.color) }
            .enumerated()
            .sorted { $0.element.loc != $1.element.loc ? $0.element.loc < $1.element.loc : $0.offset < $1.offset }
        for (_, stop) in sorted {
            locations.append(stop.loc)
            colors.append(stop.color.premultipliedFloats)
        }
    }

    var isEmpty: Bool { colors.isEmpty }

    /// The premultiplied colour (0...255 per component) at `t`.
    @inline(__always)
    func color(at t: Float) -> SIMD4<Float> {
        let n = colors.count
        if t <= locations[0] { return colors[0] }
        if t >= locations[n - 1] { return colors[n - 1] }
        var i = 1
        while i < n - 1 && locations[i] <= t { i += 1 }
        let l0 = locations[i - 1], l1 = locations[i]
        let span = l1 - l0
        if span <= 0 { return colors[i] }
        let f = (t - l0) / span
        return colors[i - 1] + (colors[i] - colors[i - 1]) * f
    }
}
