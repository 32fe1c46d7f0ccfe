@testable import CanopyGraphics
import Foundation
import XCTest

final class TextLayoutCacheTests: XCTestCase {
    typealias F = TextFixtures

    override func setUpWithError() throws { try F.setUp() }

    private func make(
        _ text: AttributedString, width: CGFloat, lines: Int = 0, truncation: AttributedString? = nil,
        scale: CGFloat = 1, cache: TextLayoutCache
    ) throws -> TextLayout {
        try TextLayout.make(
            text, width: width, maximumNumberOfLines: lines, truncationString: truncation,
            scale: scale, fonts: F.fonts, cache: cache)
    }

    func testTheSameKeyReturnsTheSameLayout() throws {
        let cache = TextLayoutCache(capacity: 8)
        let text = F.plain("cached text that wraps somewhere")
        let first = try make(text, width: 120, cache: cache)
        let second = try make(F.plain("cached text that wraps somewhere"), width: 120, cache: cache)
        XCTAssertEqual(first.identifier, second.identifier, "a hit returns the stored layout")
        XCTAssertEqual(cache.statistics, TextLayoutCache.Statistics(hits: 1, misses: 1, count: 1))
        let uncached = try F.layout(text, width: 120)
        XCTAssertNotEqual(uncached.identifier, first.identifier)
    }

    func testEveryPartOfTheKeyCounts() throws {
        let cache = TextLayoutCache(capacity: 16)
        let text = F.plain("cached text that wraps somewhere")
        let base = try make(text, width: 120, cache: cache)
        var ids: Set<UInt64> = [base.identifier]
        ids.insert(try make(text, width: 121, cache: cache).identifier)
        ids.insert(try make(text, width: 120, lines: 1, cache: cache).identifier)
        ids.insert(try make(text, width: 120, lines: 1, truncation: AttributedString("..."), cache: cache).identifier)
        ids.insert(try make(text, width: 120, scale: 2, cache: cache).identifier)
        ids.insert(try make(F.plain("cached text that wraps somewhere", color: .red), width: 120, cache: cache).identifier)
        XCTAssertEqual(ids.count, 6)
        XCTAssertEqual(cache.statistics.misses, 6)
        XCTAssertEqual(cache.statistics.hits, 0)
        let red = try make(F.plain("cached text that wraps somewhere", color: .red), width: 120, cache: cache)
        XCTAssertEqual(red.lines[0].segments[0].color, .red)
    }

    func testKeysCompareTheCharactersAndTheAttributesRunByRun() {
        func key(_ text: AttributedString, truncation: AttributedString = AttributedString("…")) -> TextLayoutCache.Key {
            TextLayoutCache.Key(
                string: text, width: 100, maximumNumberOfLines: 0, truncationString: truncation,
                scale: 1, fonts: ObjectIdentifier(F.fonts))
        }
        XCTAssertEqual(key(F.plain("same text")), key(F.plain("same text")), "built apart, equal")
        XCTAssertNotEqual(key(F.plain("same text")), key(F.plain("same test")), "one character")
        XCTAssertNotEqual(key(F.plain("same text")), key(F.plain("same text", color: .red)), "an attribute")
        var split = F.plain("same text")
        split[split.range(of: "text")!].canopy.foregroundColor = .red
        XCTAssertNotEqual(key(F.plain("same text")), key(split), "an attribute on part of the text")
        var moved = F.plain("same text")
        moved[moved.range(of: "ext")!].canopy.foregroundColor = .red
        XCTAssertNotEqual(key(split), key(moved), "the same runs ending elsewhere")
        XCTAssertNotEqual(key(F.plain("a")), key(F.plain("a"), truncation: AttributedString("...")), "the truncation")
        // Equal keys hash alike.
        XCTAssertEqual(
            key(split).hashValue,
            key(
                { () -> AttributedString in
                    var copy = F.plain("same text")
                    copy[copy.range(of: "text")!].canopy.foregroundColor = .red
                    return copy
                }()
            ).hashValue)
    }

    func testTheLeastRecentlyUsedLayoutGoesFirst() throws {
        let cache = TextLayoutCache(capacity: 2)
        let a = try make(F.plain("a"), width: 50, cache: cache)
        let b = try make(F.plain("b"), width: 50, cache: cache)
        XCTAssertEqual(try make(F.plain("a"), width: 50, cache: cache).identifier, a.identifier)  // a is now newest
        _ = try make(F.plain("c"), width: 50, cache: cache)  // evicts b
        XCTAssertEqual(cache.statistics.count, 2)
        XCTAssertEqual(try make(F.plain("a"), width: 50, cache: cache).identifier, a.identifier)
        XCTAssertNotEqual(try make(F.plain("b"), width: 50, cache: cache).identifier, b.identifier)
        cache.removeAll()
        XCTAssertEqual(cache.statistics.count, 0)
        XCTAssertNotEqual(try make(F.plain("a"), width: 50, cache: cache).identifier, a.identifier)
    }

    func testConcurrentUseKeepsTheBound() throws {
        let cache = TextLayoutCache(capacity: 5)
        let fonts = F.fonts
        DispatchQueue.concurrentPerform(iterations: 64) { i in
            _ = try? TextLayout.make(TextFixtures.plain("text \(i % 9)"), width: 80, fonts: fonts, cache: cache)
        }
        let statistics = cache.statistics
        XCTAssertEqual(statistics.count, 5)
        XCTAssertEqual(statistics.hits + statistics.misses, 64)
    }
}
