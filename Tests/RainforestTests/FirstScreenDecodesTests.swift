import Canopy
import CanopyGraphics
import CanopyTestSupport
import Foundation
import XCTest
@testable import RainforestKit

/// The first screen's photos decoded while the window is made: which cards, at what scale, and
/// that the cards' displays then find their decodes in the cache.
final class FirstScreenDecodesTests: XCTestCase {
    private static let resources = RainforestTestSupport.resources

    override func setUpWithError() throws {
        try RainforestTestSupport.prepareGraphics()
    }

    override func tearDown() {
        MainActor.assumeIsolated { DisplayScheduler.shared.uninstall() }
    }

    private static func provider(cards: Int) throws -> DeckCards {
        let resources = Resources(root: resources)
        return DeckCards(deck: try CardDeck.load(resources: resources, itemCount: cards), resources: resources)
    }

    /// The cards whose frames start above the window's bottom, as the collection places them,
    /// top first; none without cards or without a size; never more than the limit.
    func testTheItemsAreTheCardsTheWindowShowsFirstTopFirst() throws {
        let provider = try Self.provider(cards: 1000)
        let size = CGSize(width: 1280, height: 800)
        let heights = (0..<40).map { CardDeck.cardHeight(imageSize: try? provider.item(at: $0).entry.imageSize.get()) }
        let frames = ColumnLayout().layout(heights: heights, width: size.width).frames
        let items = FirstScreenDecodes.items(provider: provider, pageSize: 500, size: size)
        XCTAssertEqual(Set(items), Set(frames.indices.filter { frames[$0].minY < size.height }))
        XCTAssertGreaterThanOrEqual(items.count, 4, "two columns, at least two rows")
        XCTAssertEqual(items.map { frames[$0].minY }, items.map { frames[$0].minY }.sorted(), "top first")
        XCTAssertEqual(Array(items.prefix(2)).sorted(), [0, 1], "the first row first")
        let narrow = FirstScreenDecodes.items(provider: provider, pageSize: 500, size: CGSize(width: 400, height: 300))
        XCTAssertEqual(narrow, [0], "one column, one card started above 300 pt")
        XCTAssertEqual(FirstScreenDecodes.items(provider: provider, pageSize: 500, size: .zero), [])
        XCTAssertEqual(FirstScreenDecodes.items(provider: try Self.provider(cards: 0), pageSize: 500, size: size), [])
        let tall = FirstScreenDecodes.items(provider: provider, pageSize: 500, size: CGSize(width: 1280, height: 100_000))
        XCTAssertEqual(tall.count, FirstScreenDecodes.limit)
        XCTAssertEqual(
            FirstScreenDecodes.items(provider: provider, pageSize: 1, size: size), [0],
            "only the cards shown before any batch fetch")
    }

    func testTheScaleIsKnownHeadlessAndOnX11Only() {
        var rendering = HeadlessOptions()
        rendering.scale = 2
        XCTAssertEqual(FirstScreenDecodes.knownScale(headless: true, rendering: rendering, environment: [:]), 2)
        XCTAssertEqual(FirstScreenDecodes.knownScale(headless: true, rendering: nil, environment: [:]), 1)
        XCTAssertEqual(
            FirstScreenDecodes.knownScale(headless: false, rendering: rendering, environment: [:]), 1,
            "a window on X11 has a pixel per point, whatever --scale says")
        XCTAssertNil(
            FirstScreenDecodes.knownScale(headless: false, rendering: nil, environment: ["WAYLAND_DISPLAY": "wayland-0"]))
        XCTAssertNil(FirstScreenDecodes.knownScale(headless: false, rendering: nil, environment: ["SDL_VIDEODRIVER": "wayland"]))
        XCTAssertEqual(
            FirstScreenDecodes.knownScale(
                headless: false, rendering: nil, environment: ["WAYLAND_DISPLAY": "wayland-0", "SDL_VIDEODRIVER": "x11"]),
            1)
    }

    /// Each first-screen card's photo is decoded once, ahead; the card's display (photo and
    /// blurred background) then decodes nothing, at 1x and 2x.
    func testTheCardsDisplaysFindTheirPhotosDecoded() throws {
        let provider = try Self.provider(cards: 1000)
        for scale: CGFloat in [1, 2] {
            let cache = ImageCache()
            let handle = FirstScreenDecodes.start(
                provider: provider, pageSize: 500, size: CGSize(width: 1280, height: 800), scale: scale, cache: cache)
            handle.wait()
            let indices = handle.indices
            XCTAssertFalse(indices.isEmpty)
            let misses = cache.statistics.misses
            XCTAssertLessThanOrEqual(misses, indices.count, "one decode a card at most (cards share photos)")
            XCTAssertGreaterThan(misses, 0)
            try MainActor.assumeIsolated {
                for index in indices {
                    let item = provider.item(at: index)
                    let card = RainforestTestSupport.displayedCard(item.entry, imagePath: item.imagePath, scale: scale) {
                        $0.background.imageCache = cache
                        $0.photo.imageCache = cache
                    }
                    _ = try XCTUnwrap(card.layer.contents, "card \(index)")
                    XCTAssertEqual(card.photo.imageScaleFactor ?? -1, 1, accuracy: 0.01, "card \(index) at \(scale)x")
                    DisplayScheduler.shared.uninstall()
                }
            }
            XCTAssertEqual(cache.statistics.misses, misses, "at \(scale)x the displays decoded nothing more")
        }
    }

    /// Cancelled before it starts, no photo is decoded; `wait` returns once it has stopped.
    func testCancelledDecodesStopBetweenPhotos() throws {
        let provider = try Self.provider(cards: 1000)
        let cache = ImageCache()
        let handle = FirstScreenDecodes.start(
            provider: provider, pageSize: 500, size: CGSize(width: 1280, height: 800), scale: 1, cache: cache)
        handle.cancel()
        handle.wait()
        XCTAssertTrue(handle.isCancelled)
        XCTAssertLessThanOrEqual(cache.statistics.misses, 1, "at most the photo in progress when cancelled")
        XCTAssertLessThan(cache.statistics.misses, handle.indices.count)
        let none = FirstScreenDecodes.start(provider: provider, pageSize: 500, size: .zero, scale: 1, cache: cache)
        none.wait()
        XCTAssertEqual(none.indices, [])
    }

    /// A folder shows nothing before its first batch fetch: its first files are listed and read
    /// on the decoding thread, then the first screen's photos decoded there, as the cards will
    /// ask for them.
    func testAFoldersFirstFilesAreReadAndDecodedAhead() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("rainforest-ahead-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let photos = TestResources.images
        for (index, name) in ["red-panda.jpg", "jaguar.webp", "garden-lizard.png", "red-panda.jpg", "jaguar.webp"].enumerated() {
            try FileManager.default.copyItem(
                at: photos.appendingPathComponent(name), to: folder.appendingPathComponent("\(index)-\(name)"))
        }
        let cache = ImageCache()
        let handle = FirstScreenDecodes.start(
            provider: ImageFolder(url: folder), pageSize: 500, size: CGSize(width: 700, height: 600), scale: 1,
            cache: cache)
        handle.wait()
        // 700 x 600 pt: two columns, two rows of cards at least partly in view.
        let viewer = ImageFolder(url: folder)
        let ready = viewer.load(upTo: 500)
        XCTAssertEqual(ready, 5)
        XCTAssertEqual(
            handle.indices, FirstScreenDecodes.items(provider: viewer, ready: ready, size: CGSize(width: 700, height: 600)))
        XCTAssertGreaterThanOrEqual(handle.indices.count, 2)
        XCTAssertEqual(cache.statistics.misses, handle.indices.count, "one decode a card")
        for index in handle.indices {  // again, as the cards ask: all hits
            let item = viewer.item(at: index)
            CardNode.preloadPhoto(entry: item.entry, imagePath: item.imagePath, scale: 1, cache: cache)
        }
        XCTAssertEqual(cache.statistics.misses, handle.indices.count, "and found in the cache by the cards")
    }

    func testTheFirstBatchFetchShowsTheFilesReadAheadWithoutReadingAPage() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("rainforest-first-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let photo = TestResources.images.appendingPathComponent("jaguar.webp")
        let files = FirstScreenDecodes.limit * 2 + 8
        for index in 0..<files {
            try FileManager.default.copyItem(at: photo, to: folder.appendingPathComponent(String(format: "%03d.webp", index)))
        }
        try MainActor.assumeIsolated {
            let options = try CollectionOptions.parse(["--images", folder.path, "--size", "700x600", "--no-thumbnails"])
            let session = try Session(collection: options, headless: true)
            defer { session.app.close() }
            let app = session.app, viewer = session.viewer
            app.showsFPS = false
            // The decoding thread reads the folder's first files (as many as the first screen
            // could need) before the first batch fetch, which then takes them as they are.
            try XCTUnwrap(session.firstScreenDecodes).wait()
            TestApplication.turn(app) { viewer.isSettled }
            XCTAssertEqual(viewer.itemCount, FirstScreenDecodes.limit * 2, "the files read ahead, not a page of 500")
            XCTAssertEqual(viewer.source.totalCount, files)
            // Scrolling to their end reads the rest as a page.
            viewer.scroll(to: 1_000_000)
            TestApplication.turn(app) { viewer.itemCount == files }
        }
    }
}
