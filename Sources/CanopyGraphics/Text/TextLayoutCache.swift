import Foundation
import Synchronization

/// Remembers text layouts by everything that decides them, the least recently used going first
/// when more than `capacity` are held. Thread-safe: one Mutex guards the table; layouts are made
/// outside it, so a miss on one thread does not hold up the others.
public final class TextLayoutCache: Sendable {
    /// The cache `TextLayout.make` uses unless told otherwise.
    public static let shared = TextLayoutCache(capacity: 512)

    /// What a layout depends on.
    public struct Key: Hashable, Sendable {
        public var string: AttributedString
        public var width: CGFloat
        public var maximumNumberOfLines: Int
        public var truncationString: AttributedString
        public var scale: CGFloat
        /// The FontRegistry measured with.
        public var fonts: ObjectIdentifier

        public init(
            string: AttributedString, width: CGFloat, maximumNumberOfLines: Int,
            truncationString: AttributedString, scale: CGFloat, fonts: ObjectIdentifier
        ) {
            self.string = string
            self.width = width
            self.maximumNumberOfLines = maximumNumberOfLines
            self.truncationString = truncationString
            self.scale = scale
            self.fonts = fonts
        }

        /// Hashes the characters and the CanopyGraphics attributes run by run (AttributedString's
        /// own hash goes character by character and is many times slower).
        public func hash(into hasher: inout Hasher) {
            Key.hashText(string, into: &hasher)
            Key.hashText(truncationString, into: &hasher)
            hasher.combine(width)
            hasher.combine(maximumNumberOfLines)
            hasher.combine(scale)
            hasher.combine(fonts)
        }

        private static func hashText(_ text: AttributedString, into hasher: inout Hasher) {
            hasher.combine(String(text.characters[...]))
            for run in text.runs {
                hasher.combine(text.utf8.distance(from: text.startIndex, to: run.range.upperBound))
                hasher.combine(run.font)
                hasher.combine(run.foregroundColor)
                hasher.combine(run.kern)
                hasher.combine(run.shadow)
                hasher.combine(run.paragraphStyle)
            }
        }

        /// Compares what the hash reads: the characters, and run by run where each run ends and
        /// its CanopyGraphics attributes (what a layout depends on). AttributedString's own `==`
        /// walks the text character by character: about 75 us for a card's 400-character
        /// description (release), paid by every hit.
        public static func == (a: Key, b: Key) -> Bool {
            a.width == b.width && a.maximumNumberOfLines == b.maximumNumberOfLines && a.scale == b.scale
                && a.fonts == b.fonts && sameText(a.string, b.string) && sameText(a.truncationString, b.truncationString)
        }

        private static func sameText(_ a: AttributedString, _ b: AttributedString) -> Bool {
            guard String(a.characters[...]) == String(b.characters[...]) else { return false }
            var runsA = a.runs.makeIterator(), runsB = b.runs.makeIterator()
            while true {
                switch (runsA.next(), runsB.next()) {
                case (nil, nil):
                    return true
                case (let x?, let y?):
                    guard
                        a.utf8.distance(from: a.startIndex, to: x.range.upperBound)
                            == b.utf8.distance(from: b.startIndex, to: y.range.upperBound),
                        x.font == y.font, x.foregroundColor == y.foregroundColor, x.kern == y.kern,
                        x.shadow == y.shadow, x.paragraphStyle == y.paragraphStyle
                    else { return false }
                default:
                    return false
                }
            }
        }
    }

    /// How the cache has been used.
    public struct Statistics: Sendable, Equatable {
        public var hits: Int
        public var misses: Int
        public var count: Int
    }

    /// A doubly linked list through an array (most recently used at `head`) plus a table from
    /// keys to slots: lookups, touches and evictions are O(1).
    private struct State: Sendable {
        struct Entry: Sendable {
            var key: Key
            var layout: TextLayout
            var newer: Int
            var older: Int
        }
        var slots: [Key: Int] = [:]
        var entries: [Entry] = []
        var head = -1  // most recent
        var tail = -1  // least recent
        var hits = 0
        var misses = 0

        mutating func unlink(_ i: Int) {
            let newer = entries[i].newer, older = entries[i].older
            if newer >= 0 { entries[newer].older = older } else { head = older }
            if older >= 0 { entries[older].newer = newer } else { tail = newer }
        }

        mutating func pushFront(_ i: Int) {
            entries[i].newer = -1
            entries[i].older = head
            if head >= 0 { entries[head].newer = i }
            head = i
            if tail < 0 { tail = i }
        }
    }

    /// The most layouts kept.
    public let capacity: Int
    private let state = Mutex(State())

    public init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// The layout stored for `key`, now the most recently used; nil on a miss. Any thread.
    public func layout(for key: Key) -> TextLayout? {
        state.withLock { state -> TextLayout? in
            guard let slot = state.slots[key] else {
                state.misses += 1
                return nil
            }
            state.hits += 1
            if state.head != slot {
                state.unlink(slot)
                state.pushFront(slot)
            }
            return state.entries[slot].layout
        }
    }

    /// Stores `layout` for `key` as the most recently used, evicting the least recently used
    /// when full. Any thread.
    public func insert(_ layout: TextLayout, for key: Key) {
        state.withLock { state in
            if let slot = state.slots[key] {
                state.entries[slot].layout = layout
                state.unlink(slot)
                state.pushFront(slot)
                return
            }
            let slot: Int
            if state.entries.count < capacity {
                slot = state.entries.count
                state.entries.append(.init(key: key, layout: layout, newer: -1, older: -1))
            } else {
                slot = state.tail
                state.unlink(slot)
                state.slots[state.entries[slot].key] = nil
                state.entries[slot].key = key
                state.entries[slot].layout = layout
            }
            state.slots[key] = slot
            state.pushFront(slot)
        }
    }

    /// Forgets every layout (the statistics stay). Any thread.
    public func removeAll() {
        state.withLock { state in
            state.slots.removeAll()
            state.entries.removeAll()
            state.head = -1
            state.tail = -1
        }
    }

    /// Hits, misses and the number of layouts held. Any thread.
    public var statistics: Statistics {
        state.withLock { Statistics(hits: $0.hits, misses: $0.misses, count: $0.entries.count) }
    }
}
