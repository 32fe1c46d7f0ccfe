import Foundation

/// The kinds of range a range controller keeps (Texture's ASLayoutRangeType).
public enum RangeType: Sendable, Hashable, CaseIterable {
    /// Nodes in it draw their contents ahead of being seen.
    case display
    /// Nodes in it fetch their data (images, text) ahead of being drawn.
    case preload
}

/// Texture's ASLayoutRangeMode: minimum until the user first scrolls, then full.
public enum RangeMode: Sendable, Hashable, CaseIterable {
    case minimum
    case full
}

/// The vertical direction content is moving under the viewport: .down when the offset grows
/// (the reader goes towards the end).
public enum ScrollDirection: Sendable, Hashable {
    case none
    case up
    case down
}

/// How far one range reaches beyond the viewport, in multiples of the viewport's height, on
/// the side the reader is heading to (leading) and the side they come from (trailing).
public struct RangeTuningParameters: Sendable, Hashable {
    public var leadingBufferScreenfuls: CGFloat
    public var trailingBufferScreenfuls: CGFloat

    public init(leadingBufferScreenfuls: CGFloat, trailingBufferScreenfuls: CGFloat) {
        self.leadingBufferScreenfuls = leadingBufferScreenfuls
        self.trailingBufferScreenfuls = trailingBufferScreenfuls
    }

    /// No buffer on either side: the range is the viewport.
    public static let zero = RangeTuningParameters(leadingBufferScreenfuls: 0, trailingBufferScreenfuls: 0)

    /// Texture's defaults: full: display 1.0/0.5, preload 2.5/1.5; minimum: display 0.25/0.25,
    /// preload 0.5/0.25.
    public static func defaults(for type: RangeType, mode: RangeMode) -> RangeTuningParameters {
        switch (mode, type) {
        case (.full, .display): RangeTuningParameters(leadingBufferScreenfuls: 1.0, trailingBufferScreenfuls: 0.5)
        case (.full, .preload): RangeTuningParameters(leadingBufferScreenfuls: 2.5, trailingBufferScreenfuls: 1.5)
        case (.minimum, .display): RangeTuningParameters(leadingBufferScreenfuls: 0.25, trailingBufferScreenfuls: 0.25)
        case (.minimum, .preload): RangeTuningParameters(leadingBufferScreenfuls: 0.5, trailingBufferScreenfuls: 0.25)
        }
    }
}

/// Every range's parameters plus the velocity extension; computes the ranges' rectangles.
///
/// Negative, NaN or infinite settings (buffers, `velocityLookahead`,
/// `maximumVelocityExtension`) count as 0, so no setting can make a rectangle NaN.
public struct RangeTuning: Sendable, Equatable {
    private var displayMinimum: RangeTuningParameters
    private var displayFull: RangeTuningParameters
    private var preloadMinimum: RangeTuningParameters
    private var preloadFull: RangeTuningParameters

    /// Seconds of travel at the current speed the leading side grows by ("beyond Texture":
    /// Chromium's compositor extrapolates its interest rect by velocity).
    public var velocityLookahead: TimeInterval
    /// The cap on that growth, in screenfuls.
    public var maximumVelocityExtension: CGFloat

    /// Texture's defaults, a velocity lookahead of 0.5 s capped at 2 screenfuls.
    public init() {
        self.init(
            displayMinimum: .defaults(for: .display, mode: .minimum),
            displayFull: .defaults(for: .display, mode: .full),
            preloadMinimum: .defaults(for: .preload, mode: .minimum),
            preloadFull: .defaults(for: .preload, mode: .full),
            velocityLookahead: 0.5,
            maximumVelocityExtension: 2
        )
    }

    private init(
        displayMinimum: RangeTuningParameters, displayFull: RangeTuningParameters,
        preloadMinimum: RangeTuningParameters, preloadFull: RangeTuningParameters,
        velocityLookahead: TimeInterval, maximumVelocityExtension: CGFloat
    ) {
        self.displayMinimum = displayMinimum
        self.displayFull = displayFull
        self.preloadMinimum = preloadMinimum
        self.preloadFull = preloadFull
        self.velocityLookahead = velocityLookahead
        self.maximumVelocityExtension = maximumVelocityExtension
    }

    /// The same with every range zero (no preloading: the main-thread baseline uses it).
    public static let zero = RangeTuning(
        displayMinimum: .zero, displayFull: .zero, preloadMinimum: .zero, preloadFull: .zero,
        velocityLookahead: 0, maximumVelocityExtension: 0
    )

    public subscript(type: RangeType, mode: RangeMode) -> RangeTuningParameters {
        get {
            switch (type, mode) {
            case (.display, .minimum): displayMinimum
            case (.display, .full): displayFull
            case (.preload, .minimum): preloadMinimum
            case (.preload, .full): preloadFull
            }
        }
        set {
            switch (type, mode) {
            case (.display, .minimum): displayMinimum = newValue
            case (.display, .full): displayFull = newValue
            case (.preload, .minimum): preloadMinimum = newValue
            case (.preload, .full): preloadFull = newValue
            }
        }
    }

    /// The rectangle of a range, in content coordinates: the viewport grown by the leading
    /// buffer (plus the velocity extension) in the direction of travel and by the trailing
    /// buffer behind it, in multiples of the viewport's height. Only vertical: x and width are
    /// the viewport's.
    ///
    /// `speed` is the scroll speed in points per second (its sign ignored; the direction says
    /// which side leads; NaN counts as 0).
    ///
    /// Direction `.none` leads downwards, with no velocity extension. Texture treats "no
    /// direction" as leading upwards (its buffers lead down only when the direction contains
    /// down), which before the first scroll spends the larger buffer above the top of the
    /// content, where there is nothing. Content here starts at the top and readers go down, so
    /// the first screens below are the ones to prepare.
    public func rect(for type: RangeType, mode: RangeMode, viewport: CGRect, direction: ScrollDirection, speed: CGFloat) -> CGRect
    {
        let parameters = self[type, mode]
        let height = Self.sanitized(viewport.height)
        let leading =
            Self.sanitized(parameters.leadingBufferScreenfuls) * height
            + velocityExtension(viewportHeight: height, speed: speed, direction: direction)
        let trailing = Self.sanitized(parameters.trailingBufferScreenfuls) * height
        let (above, below) = direction == .up ? (leading, trailing) : (trailing, leading)
        var rect = viewport
        rect.origin.y -= above
        rect.size.height += above + below
        return rect
    }

    /// The velocity extension alone, in points: min(|speed| * velocityLookahead,
    /// maximumVelocityExtension * viewport height); 0 when direction is .none.
    public func velocityExtension(viewportHeight: CGFloat, speed: CGFloat, direction: ScrollDirection) -> CGFloat {
        guard direction != .none else { return 0 }
        let lookahead = Self.sanitized(CGFloat(velocityLookahead))
        let magnitude = speed.isNaN ? 0 : abs(speed)
        guard lookahead > 0, magnitude > 0 else { return 0 }
        // Finite, so an infinite speed is simply capped.
        let cap = Self.sanitized(maximumVelocityExtension) * Self.sanitized(viewportHeight)
        return min(magnitude * lookahead, cap)
    }

    /// `value` if finite and positive, else 0.
    private static func sanitized(_ value: CGFloat) -> CGFloat {
        value.isFinite && value > 0 ? value : 0
    }
}
