import Foundation

/// How urgent a display is: visible work first, then by distance to the viewport, then first come
/// first served. Smaller is more urgent.
package struct DisplayPriority: Sendable, Comparable, CustomStringConvertible {
    /// Whether the node is on screen now.
    package private(set) var isVisible: Bool
    /// Points between the node and the viewport (0 when visible); never NaN or negative.
    package private(set) var distance: CGFloat

    package init(isVisible: Bool, distance: CGFloat = 0) {
        self.isVisible = isVisible
        self.distance = distance.isNaN ? .infinity : max(0, distance)
    }

    /// On screen.
    package static let visible = DisplayPriority(isVisible: true)
    /// Off screen, with no known distance: after everything that has one.
    package static let background = DisplayPriority(isVisible: false, distance: .infinity)

    package static func < (a: DisplayPriority, b: DisplayPriority) -> Bool {
        if a.isVisible != b.isVisible { return a.isVisible }
        return a.distance < b.distance
    }

    package var description: String {
        isVisible ? "visible" : "\(layoutFormat(distance)) pt away"
    }
}
