@testable import CanopyGraphics
import CanopyTestSupport
import Foundation
import Synchronization
import XCTest

final class ImageCacheTests: XCTestCase {
    private static let imagesDirectory = TestResources.images

    override func setUpWithError() throws {
        try super.setUpWithError()
        try GraphicsLibrary.initialize()
    }

    // MARK: Keys and hits

    func testKeysRoundTargetsUpToWholePixels() {
        XCTAssertEqual(
            ImageCache.Key(path: "a.jpg", fitting: CGSize(width: 319.5, height: 179.01)),
            ImageCache.Key(path: "a.jpg", fitting: CGSize(width: 320, height: 180)))
        XCTAssertEqual(
            ImageCache.Key(path: "a.jpg", fitting: CGSize(width: CGFloat.nan, height: 1)),
            ImageCache.Key(path: "a.jpg", fitting: nil))
        XCTAssertNotEqual(
            ImageCache.Key(path: "a.jpg", fitting: nil),
            ImageCache.Key(path: "a.jpg", fitting: CGSize(width: 320, height: 180)))
        XCTAssertNotEqual(ImageCache.Key(path: "a.jpg", fitting: nil), ImageCache.Key(path: "b.jpg", fitting: nil))
        XCTAssertEqual(
            ImageCache.Key(path: "a.jpg", fitting: CGSize(width: 320, height: 180)).description,
            "a.jpg (fitting 320 x 180)")
    }

    func testHitsReturnTheSameInstanceWithoutLoading() throws {
        let cache = ImageCache(capacityBytes: 10_000)
        let loads = Counter()
        let key = ImageCache.Key(path: "a", fitting: nil)
        let first = try cache.bitmap(for: key) { () throws(ImageError) -> Bitmap in
            loads.increment()
            return Self.square(4)
        }
        let second = try cache.bitmap(for: key) { () throws(ImageError) -> Bitmap in
            loads.increment()
            return Self.square(4)
        }
        XCTAssertTrue(first === second)
        XCTAssertEqual(loads.value, 1)
        XCTAssertTrue(cache.cachedBitmap(for: key) === first)
        XCTAssertEqual(cache.totalBytes, 64)
        XCTAssertEqual(cache.count, 1)
        XCTAssertEqual(cache.statistics.hits, 1)
        XCTAssertEqual(cache.statistics.misses, 1)
    }

    func testDecodesFilesThroughTheCache() throws {
        let cache = ImageCache(capacityBytes: 16 << 20)
        let path = Self.imagesDirectory.appendingPathComponent("red-panda.jpg").path
        let small = try cache.bitmap(contentsOf: path, fitting: CGSize(width: 320, height: 180))
        XCTAssertEqual([small.width, small.height], [320, 180])
        XCTAssertTrue(try cache.bitmap(contentsOf: path, fitting: CGSize(width: 319.5, height: 180)) === small)
        let larger = try cache.bitmap(contentsOf: path, fitting: CGSize(width: 640, height: 360))
        XCTAssertEqual([larger.width, larger.height], [640, 360])
        XCTAssertEqual(cache.count, 2)
        XCTAssertEqual(cache.totalBytes, 320 * 180 * 4 + 640 * 360 * 4)
        cache.removeBitmaps(forPath: path)
        XCTAssertEqual(cache.count, 0)
        XCTAssertEqual(cache.totalBytes, 0)
        XCTAssertFalse(try cache.bitmap(contentsOf: path, fitting: CGSize(width: 320, height: 180)) === small)
        // A failed decode reaches the caller and is not kept.
        let missing = Self.imagesDirectory.appendingPathComponent("no-such-photo.jpg").path
        XCTAssertThrowsError(try cache.bitmap(contentsOf: missing, fitting: nil)) { error in
            XCTAssertEqual(error as? ImageError, .fileMissing(path: missing))
        }
        XCTAssertEqual(cache.count, 1)
    }

    func testTheCropIsPartOfTheKey() throws {
        let crop = ImageDecoder.Crop(x: 960, y: 0, width: 960, height: 540)
        XCTAssertNotEqual(ImageCache.Key(path: "a.jpg", fitting: nil), ImageCache.Key(path: "a.jpg", fitting: nil, crop: crop))
        XCTAssertEqual(
            ImageCache.Key(path: "a.jpg", fitting: CGSize(width: 320, height: 180), crop: crop).description,
            "a.jpg (fitting 320 x 180, crop 960 x 540 at (960, 0))")
        let cache = ImageCache(capacityBytes: 16 << 20)
        let path = Self.imagesDirectory.appendingPathComponent("red-panda.jpg").path
        let whole = try cache.bitmap(contentsOf: path, fitting: CGSize(width: 320, height: 180))
        let part = try cache.bitmap(contentsOf: path, fitting: CGSize(width: 320, height: 180), cropping: crop)
        XCTAssertFalse(whole === part)
        XCTAssertEqual([part.width, part.height], [320, 180])
        XCTAssertTrue(try cache.bitmap(contentsOf: path, fitting: CGSize(width: 320, height: 180), cropping: crop) === part)
        XCTAssertEqual(cache.count, 2)
        XCTAssertEqual(Set(cache.keysByRecentUse.map(\.crop)), [nil, crop])
    }

    // MARK: Eviction

    func testEvictsTheLeastRecentlyUsedByBytes() throws {
        // 10 x 10 bitmaps are 400 bytes: three fit.
        let cache = ImageCache(capacityBytes: 1_200)
        let a = try put(cache, "a", Self.square(10))
        _ = try put(cache, "b", Self.square(10))
        _ = try put(cache, "c", Self.square(10))
        XCTAssertEqual(cache.totalBytes, 1_200)
        XCTAssertEqual(keys(cache), ["c", "b", "a"])
        // Using a makes b the oldest, so d pushes b out.
        XCTAssertTrue(cache.cachedBitmap(for: key("a")) === a)
        _ = try put(cache, "d", Self.square(10))
        XCTAssertEqual(keys(cache), ["d", "a", "c"])
        XCTAssertNil(cache.cachedBitmap(for: key("b")))
        XCTAssertEqual(cache.totalBytes, 1_200)
        // 800 bytes push out the two oldest (c, then a).
        _ = try put(cache, "e", Self.square(10, 20))
        XCTAssertEqual(keys(cache), ["e", "d"])
        XCTAssertEqual(cache.totalBytes, 1_200)
        // A bitmap bigger than the whole cache is returned but not kept, and evicts nothing.
        let huge = try put(cache, "f", Self.square(20))
        XCTAssertEqual(huge.width, 20)
        XCTAssertEqual(keys(cache), ["e", "d"])
        XCTAssertNil(cache.cachedBitmap(for: key("f")))
        cache.removeBitmap(for: key("e"))
        XCTAssertEqual(keys(cache), ["d"])
        XCTAssertEqual(cache.totalBytes, 400)
        cache.removeAll()
        XCTAssertEqual(keys(cache), [])
        XCTAssertEqual(cache.totalBytes, 0)
    }

    // MARK: Single flight

    func testConcurrentCallersOfOneKeyLoadOnce() throws {
        let cache = ImageCache(capacityBytes: 1 << 20)
        let key = key("shared")
        let loads = Counter()
        let results = Mutex<[Bitmap]>([])
        let stalled = Counter()
        runTogether(threads: 8) {
            let bitmap = try? cache.bitmap(for: key) { () throws(ImageError) -> Bitmap in
                loads.increment()
                // Hold the load until the other seven are waiting for it, however long they take
                // to get there.
                if !HangGuard.wait(until: { cache.waiterCount(for: key) == 7 }) { stalled.increment() }
                return Self.square(8)
            }
            if let bitmap { results.withLock { $0.append(bitmap) } }
        }
        XCTAssertEqual(stalled.value, 0, "the other seven callers never waited for the load")
        XCTAssertEqual(loads.value, 1)
        let bitmaps = results.withLock { $0 }
        XCTAssertEqual(bitmaps.count, 8)
        XCTAssertTrue(bitmaps.allSatisfy { $0 === bitmaps[0] })
        XCTAssertEqual(cache.waiterCount(for: key), 0)
        XCTAssertEqual(cache.count, 1)
    }

    func testErrorsReachEveryWaiterAndAreNotCached() throws {
        let cache = ImageCache(capacityBytes: 1 << 20)
        let key = key("broken.jpg")
        let loads = Counter()
        let failures = Mutex<[ImageError]>([])
        let stalled = Counter()
        runTogether(threads: 8) {
            do throws(ImageError) {
                _ = try cache.bitmap(for: key) { () throws(ImageError) -> Bitmap in
                    loads.increment()
                    if !HangGuard.wait(until: { cache.waiterCount(for: key) == 7 }) { stalled.increment() }
                    throw .truncatedData(path: "broken.jpg", format: .jpeg)
                }
            } catch {
                failures.withLock { $0.append(error) }
            }
        }
        XCTAssertEqual(stalled.value, 0, "the other seven callers never waited for the load")
        XCTAssertEqual(loads.value, 1)
        XCTAssertEqual(
            failures.withLock { $0 },
            Array(repeating: .truncatedData(path: "broken.jpg", format: .jpeg), count: 8))
        XCTAssertEqual(cache.count, 0)
        // The next request tries again.
        let bitmap = try cache.bitmap(for: key) { () throws(ImageError) -> Bitmap in
            loads.increment()
            return Self.square(2)
        }
        XCTAssertEqual(loads.value, 2)
        XCTAssertTrue(cache.cachedBitmap(for: key) === bitmap)
    }

    func testDifferentKeysLoadInParallel() throws {
        let cache = ImageCache(capacityBytes: 1 << 20)
        let loading = Counter()
        let most = Counter()
        let stalled = Counter()
        let keys = (0..<4).map { key("k\($0)") }
        runTogether(threads: 4) { index in
            _ = try? cache.bitmap(for: keys[index]) { () throws(ImageError) -> Bitmap in
                loading.increment()
                // Every loader waits until all four are loading at once: one lock would deadlock here
                // (and the wait would end only at the hang guard).
                if !HangGuard.wait(until: { loading.value == 4 }) { stalled.increment() }
                most.raise(to: loading.value)
                return Self.square(2)
            }
        }
        XCTAssertEqual(stalled.value, 0, "the four loads never ran at once")
        XCTAssertEqual(most.value, 4)
        XCTAssertEqual(cache.count, 4)
    }

    func testRemoveAllDuringALoadKeepsItsResultOut() throws {
        let cache = ImageCache(capacityBytes: 1 << 20)
        let key = key("stale")
        let bitmap = try cache.bitmap(for: key) { () throws(ImageError) -> Bitmap in
            cache.removeAll()  // the file changed while it was being decoded
            return Self.square(2)
        }
        XCTAssertEqual(bitmap.width, 2)
        XCTAssertNil(cache.cachedBitmap(for: key))
        XCTAssertEqual(cache.totalBytes, 0)
    }

    // MARK: Helpers

    private func key(_ name: String) -> ImageCache.Key { ImageCache.Key(path: name, fitting: nil) }

    private func put(_ cache: ImageCache, _ name: String, _ bitmap: Bitmap) throws -> Bitmap {
        try cache.bitmap(for: key(name)) { () throws(ImageError) -> Bitmap in bitmap }
    }

    private func keys(_ cache: ImageCache) -> [String] { cache.keysByRecentUse.map(\.path) }

    /// Runs `body` on `threads` new threads released at the same moment; returns when all are done.
    private func runTogether(threads: Int, _ body: @escaping @Sendable (Int) -> Void) {
        let start = DispatchSemaphore(value: 0)
        let done = DispatchGroup()
        for index in 0..<threads {
            done.enter()
            Thread {
                _ = start.wait(timeout: HangGuard.deadline)
                body(index)
                done.leave()
            }.start()
        }
        for _ in 0..<threads { start.signal() }
        XCTAssertEqual(done.wait(timeout: HangGuard.deadline), .success, "threads did not finish (a hang guard)")
    }

    private func runTogether(threads: Int, _ body: @escaping @Sendable () -> Void) {
        runTogether(threads: threads) { (_: Int) in body() }
    }

    // MARK: Test doubles

    /// A square (or width x height) transparent bitmap.
    private static func square(_ width: Int, _ height: Int? = nil) -> Bitmap {
        Bitmap(width: width, height: height ?? width, fill: .clear)
    }

    /// A thread-safe counter for tests.
    private final class Counter: Sendable {
        private let count = Atomic<Int>(0)
        var value: Int { count.load(ordering: .sequentiallyConsistent) }
        func increment() { count.add(1, ordering: .sequentiallyConsistent) }
        /// Raises the value to at least `value`.
        func raise(to value: Int) {
            var current = count.load(ordering: .sequentiallyConsistent)
            while current < value {
                let (exchanged, original) = count.compareExchange(
                    expected: current, desired: value, ordering: .sequentiallyConsistent)
                if exchanged { return }
                current = original
            }
        }
    }
}

final class ImageCacheRemovalTests: XCTestCase {
    /// A request that comes after the file was said to change must not join the decode of the
    /// old file: it starts a load of its own.
    func testARequestAfterARemovalDoesNotJoinTheStaleLoad() throws {
        let cache = ImageCache(capacityBytes: 1 << 20)
        let key = ImageCache.Key(path: "/photos/a.png", fitting: nil)
        let firstStarted = DispatchSemaphore(value: 0), releaseFirst = DispatchSemaphore(value: 0)
        let old = Bitmap(width: 1, height: 1, fill: .red), new = Bitmap(width: 1, height: 1, fill: .blue)
        let firstResult = Box<Bitmap?>(nil), firstDone = DispatchSemaphore(value: 0)
        Thread {
            firstResult.value = try? cache.bitmap(for: key) { () throws(ImageError) -> Bitmap in
                firstStarted.signal()
                _ = releaseFirst.wait(timeout: HangGuard.deadline)
                return old
            }
            firstDone.signal()
        }.start()
        XCTAssertEqual(firstStarted.wait(timeout: HangGuard.deadline), .success)
        cache.removeBitmaps(forPath: "/photos/a.png")  // the file changed while it was decoding
        // On its own thread: had it joined the stale load it would wait for releaseFirst, which
        // only comes after it returns. (Hang guards, not timing checks: a second request that did
        // not join returns however slow the machine, and only one that joined waits them out.)
        let secondResult = Box<Bitmap?>(nil), secondDone = DispatchSemaphore(value: 0)
        Thread {
            secondResult.value = try? cache.bitmap(for: key) { () throws(ImageError) -> Bitmap in new }
            secondDone.signal()
        }.start()
        let joinedStaleLoad = secondDone.wait(timeout: HangGuard.deadline) == .timedOut
        releaseFirst.signal()
        if joinedStaleLoad { _ = secondDone.wait(timeout: HangGuard.deadline) }
        XCTAssertFalse(joinedStaleLoad, "the second request waited for the stale load")
        XCTAssertTrue(secondResult.value === new, "a fresh load, not the stale one")
        XCTAssertEqual(firstDone.wait(timeout: HangGuard.deadline), .success, "the first load never returned")
        XCTAssertTrue(firstResult.value === old, "the first caller still gets its own result")
        XCTAssertTrue(cache.cachedBitmap(for: key) === new, "and the stale one is not cached over the new")
    }
}

/// A value shared with another thread in tests.
private final class Box<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: T
    init(_ value: T) { stored = value }
    var value: T {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}
