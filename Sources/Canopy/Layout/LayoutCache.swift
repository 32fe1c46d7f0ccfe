import Foundation
import Synchronization

/// The last few layouts of one element, keyed by size range and parent size; safe on any thread.
///
/// Every entry is stamped with the layout generation it was computed in. The generation moves on
/// when a style that a layout has read changes (or `invalidateAll()` is called), and an entry of an
/// older generation is never returned, so a changed child cannot hide behind its parent's cache.
///
/// An entry keeps the layout's size and sublayouts but not the layout itself: a `Layout` holds its
/// element strongly, so an element caching its own `Layout` would keep itself alive forever. The
/// sublayouts only point down the tree (at children), so no cycle forms; a hit costs one small
/// allocation to rebuild the top `Layout`, never a measurement.
///
/// An element makes one and keeps it (`let layoutCache = LayoutCache()`); the rest is Canopy's,
/// and an element that changes its content calls `invalidateAll()`.
public final class LayoutCache: Sendable {
    private struct Entry {
        let range: SizeRange
        let parentSize: CGSize
        let size: CGSize
        let sublayouts: [Layout]
        let ascender: CGFloat?
        let descender: CGFloat?
        let generation: UInt64
        /// The nodes of the sublayouts, kept alive as the layout kept them (sublayouts hold their
        /// nodes weakly); nodes never hold the element that owns this cache, so no cycle.
        let sublayoutNodes: [DisplayNode]
    }

    private static let generationCounter = Atomic<UInt64>(0)

    /// The current layout generation: read it before measuring and store the result with it.
    package static var generation: UInt64 { generationCounter.load(ordering: .acquiring) }

    /// Makes every cached layout of every element stale (a style or a leaf's content changed).
    public static func invalidateAll() {
        generationCounter.add(1, ordering: .acquiringAndReleasing)
    }

    /// How many layouts one element keeps (a stack measures a child a few times per pass).
    package static let capacity = 4

    private let entries = Mutex<[Entry]>([])

    public init() {}

    /// The cached layout of `element` for this range and parent size, if any, computed in
    /// `generation` (the current one unless given).
    package func layout(
        for range: SizeRange, parentSize: CGSize, element: any LayoutElement,
        generation: UInt64 = LayoutCache.generation
    ) -> Layout? {
        let hit = entries.withLock { entries in
            entries.first { $0.range == range && Self.same($0.parentSize, parentSize) && $0.generation == generation }
        }
        return hit.map {
            Layout(
                element: element, size: $0.size, sublayouts: $0.sublayouts,
                ascender: $0.ascender, descender: $0.descender)
        }
    }

    /// Keeps `layout`, measured in `generation` (read before measuring, so a style changed meanwhile
    /// leaves the entry already stale).
    package func store(_ layout: Layout, for range: SizeRange, parentSize: CGSize, generation: UInt64) {
        let entry = Entry(
            range: range, parentSize: parentSize, size: layout.size, sublayouts: layout.sublayouts,
            ascender: layout.ascender, descender: layout.descender, generation: generation, sublayoutNodes: layout.sublayoutNodes)
        // A layout measured before the latest change is stale already: keeping it would only push a
        // fresh entry out.
        guard generation == Self.generation else { return }
        entries.withLock { entries in
            // Drop the same key and anything older than this generation; then, if full, the oldest
            // (entries are kept oldest first).
            entries.removeAll {
                ($0.range == range && Self.same($0.parentSize, parentSize)) || $0.generation < generation
            }
            if entries.count >= Self.capacity { entries.removeFirst() }
            entries.append(entry)
        }
    }

    /// Equality where NaN equals NaN (an undefined parent size is a valid key).
    private static func same(_ a: CGSize, _ b: CGSize) -> Bool {
        (a.width == b.width || (a.width.isNaN && b.width.isNaN))
            && (a.height == b.height || (a.height.isNaN && b.height.isNaN))
    }
}
