import Foundation
import Synchronization

/// The last few layouts of one element, keyed by size range and parent size; safe on any thread.
///
/// An entry keeps the layout's size and sublayouts but not the layout itself: a `Layout` holds its
/// element strongly, so an element caching its own `Layout` would keep itself alive forever. The
/// sublayouts only point down the tree (at children), so no cycle forms; a hit costs one small
/// allocation to rebuild the top `Layout`, never a measurement.
public final class LayoutCache: Sendable {
    private struct Entry {
        let range: SizeRange
        let parentSize: CGSize
        let size: CGSize
        let sublayouts: [Layout]
    }

    /// How many layouts one element keeps (a stack measures a child a few times per pass).
    public static let capacity = 4

    private let entries = Mutex<[Entry]>([])

    public init() {}

    /// The cached layout of `element` for this range and parent size, if any.
    public func layout(for range: SizeRange, parentSize: CGSize, element: any LayoutElement) -> Layout? {
        let hit = entries.withLock { entries in
            entries.first { $0.range == range && Self.same($0.parentSize, parentSize) }
        }
        return hit.map { Layout(element: element, size: $0.size, sublayouts: $0.sublayouts) }
    }

    public func store(_ layout: Layout, for range: SizeRange, parentSize: CGSize) {
        let entry = Entry(range: range, parentSize: parentSize, size: layout.size, sublayouts: layout.sublayouts)
        entries.withLock { entries in
            entries.removeAll { $0.range == range && Self.same($0.parentSize, parentSize) }
            entries.insert(entry, at: 0)
            if entries.count > Self.capacity { entries.removeLast(entries.count - Self.capacity) }
        }
    }

    public func removeAll() {
        entries.withLock { $0.removeAll() }
    }

    /// Equality where NaN equals NaN (an undefined parent size is a valid key).
    private static func same(_ a: CGSize, _ b: CGSize) -> Bool {
        (a.width == b.width || (a.width.isNaN && b.width.isNaN))
            && (a.height == b.height || (a.height.isNaN && b.height.isNaN))
    }
}
