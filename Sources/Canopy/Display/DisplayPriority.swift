import Foundation

/// How urgent a display is: visible work first, then by distance to the viewport, then first come
/// first served. Smaller is more urgent.
public struct DisplayPriority: Sendable, Comparable, CustomStringConvertible {
    /// Whether the node is on screen now.
    public private(set) var isVisible: Bool
    /// Points between the node and the viewport (0 when visible); never NaN or negative.
    public private(set) var distance: CGFloat

    public init(isVisible: Bool, distance: CGFloat = 0) {
        self.isVisible = isVisible
        self.distance = distance.isNaN ? .infinity : max(0, distance)
    }

    /// On screen.
    public static let visible = DisplayPriority(isVisible: true)
    /// Off screen, with no known distance: after everything that has one.
    public static let background = DisplayPriority(isVisible: false, distance: .infinity)

    public static func < (a: DisplayPriority, b: DisplayPriority) -> Bool {
        if a.isVisible != b.isVisible { return a.isVisible }
        return a.distance < b.distance
    }

    public var description: String {
        isVisible ? "visible" : "\(layoutFormat(distance)) pt away"
    }
}
