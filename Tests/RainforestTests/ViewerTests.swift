import Canopy
import CanopySDL
import CanopyTestSupport
import Foundation
import XCTest
@testable import RainforestKit

/// The viewer headless, over the package's cards: what it keeps when the grid is laid out again
/// and when cards leave the screen.
final class ViewerTests: XCTestCase {
    private static let resources = TestResources.resources.path

    override func tearDown() {
        MainActor.assumeIsolated { DisplayScheduler.shared.uninstall() }
    }

    func testALaidOutAgainGridKeepsItsCardsAndAFavouriteOutlivesItsCard() throws {
        try MainActor.assumeIsolated {
            let options = try CollectionOptions.parse(["--resources", Self.resources, "--size", "700x500"])
            let session = try Session(collection: options, headless: true)
            defer { session.app.close() }
            let app = session.app, viewer = session.viewer
            app.showsFPS = false
            TestApplication.turn(app) { viewer.isSettled }
            let first = try XCTUnwrap(viewer.card(at: 0))

            // A resize lays the grid out again; the cards on screen move, they are not made again
            // (the collection lays out again when its width changes).
            viewer.handle(.resized(app.size, scale: app.scale), at: MonotonicClock.now())
            app.runTurn()
            XCTAssertTrue(viewer.card(at: 0) === first, "the same card")
            XCTAssertFalse(first.isShowingPlaceholder)

            // A click on the heart (the content is not scrolled: its coordinates are the window's).
            let heart = first.favourite.convert(CGPoint(x: 12, y: 12), to: nil)
            XCTAssertTrue(viewer.handle(.pointerDown(.left, heart, clickCount: 1), at: MonotonicClock.now()))
            XCTAssertTrue(viewer.handle(.pointerUp(.left, heart), at: MonotonicClock.now()))
            XCTAssertTrue(first.favourite.isSelected)
            XCTAssertEqual(viewer.favourites, [0])

            // Scrolled away, the card is dropped; scrolled back, a new one shows the heart on.
            viewer.scroll(to: 3000)
            app.runTurn()
            XCTAssertNil(viewer.card(at: 0))
            viewer.scroll(to: 0)
            TestApplication.turn(app) { viewer.card(at: 0) != nil }
            let again = try XCTUnwrap(viewer.card(at: 0))
            XCTAssertFalse(again === first)
            XCTAssertTrue(again.favourite.isSelected, "the favourite is kept")
        }
    }

    func testTheCollectionGrowsByPagesUpToTheCardsAsked() throws {
        try MainActor.assumeIsolated {
            let options = try CollectionOptions.parse([
                "--resources", Self.resources, "--size", "700x500",
                "--cards", "45", "--page-size", "20",
            ])
            let session = try Session(collection: options, headless: true)
            defer { session.app.close() }
            let app = session.app, viewer = session.viewer
            app.showsFPS = false
            TestApplication.turn(app) { viewer.isDisplayComplete }
            XCTAssertEqual(viewer.itemCount, 20, "one page at first: its end is far below")
            // Near the end, batch fetching loads the next page, then the last (5 cards).
            viewer.scroll(to: 1_000_000)
            TestApplication.turn(app) { viewer.itemCount == 40 }
            viewer.scroll(to: 1_000_000)
            TestApplication.turn(app) { viewer.itemCount == 45 }
            for _ in 0..<10 { app.runTurn() }
            XCTAssertEqual(viewer.itemCount, 45, "no more than asked")
            XCTAssertFalse(viewer.collection.batchContext.isFetching)
        }
    }

    func testTheRangeOverlayShowsTheCollectionsStates() throws {
        try MainActor.assumeIsolated {
            let options = try CollectionOptions.parse(["--resources", Self.resources, "--size", "700x500", "--cards", "40"])
            let session = try Session(collection: options, headless: true)
            defer { session.app.close() }
            let app = session.app, viewer = session.viewer
            TestApplication.turn(app) { viewer.isDisplayComplete }
            let snapshot = try XCTUnwrap(app.rangeOverlaySource?())
            XCTAssertEqual(snapshot.viewport, CGRect(x: 0, y: 0, width: 700, height: 500))
            XCTAssertEqual(snapshot.preloadRange, viewer.collection.ranges.preload)
            // Every visible card is drawn as visible, the rest by their cell's state.
            let visible = Set(viewer.visibleIndices)
            XCTAssertEqual(snapshot.items.filter { $0.state == .visible }.count, visible.count)
            for item in snapshot.items where item.state == .display {
                XCTAssertTrue(item.frame.overlaps(snapshot.displayRange) && !item.frame.overlaps(snapshot.viewport))
            }
            XCTAssertTrue(snapshot.caption.hasPrefix("minimum"), snapshot.caption)
        }
    }

    func testFavouritesAreRememberedAcrossRunsAndAClickSelectsACard() throws {
        try MainActor.assumeIsolated {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
                "rainforest-favourites-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: folder) }
            let store = FavouritesStore.standard(environment: ["XDG_CONFIG_HOME": folder.path])
            XCTAssertEqual(store.url.path, folder.path + "/rainforest/favourites.json")
            let options = try CollectionOptions.parse(["--resources", Self.resources, "--size", "700x500"])
            do {
                let session = try Session(collection: options, headless: true, favourites: store)
                defer { session.app.close() }
                let app = session.app, viewer = session.viewer
                TestApplication.turn(app) { viewer.isSettled }
                let card = try XCTUnwrap(viewer.card(at: 0))
                let heart = card.favourite.convert(CGPoint(x: 12, y: 12), to: nil)
                viewer.handle(.pointerDown(.left, heart, clickCount: 1), at: MonotonicClock.now())
                viewer.handle(.pointerUp(.left, heart), at: MonotonicClock.now())
                XCTAssertEqual(store.load(), [FavouritesStore.Entry(item: 0, name: card.name ?? "")])
                // A click elsewhere on the card selects it (a white border), not the heart.
                let body = card.convert(CGPoint(x: 160, y: card.frame.height - 60), to: nil)
                viewer.handle(.pointerDown(.left, body, clickCount: 1), at: MonotonicClock.now())
                viewer.handle(.pointerUp(.left, body), at: MonotonicClock.now())
                app.runTurn()
                XCTAssertTrue(card.isSelected)
                XCTAssertEqual(viewer.source.selectedItem, 0)
                XCTAssertEqual(card.borderWidth, 2)
                XCTAssertTrue(card.favourite.isSelected, "still a favourite")
            }
            DisplayScheduler.shared.uninstall()
            // The next run starts with the heart on.
            let session = try Session(collection: options, headless: true, favourites: store)
            defer { session.app.close() }
            TestApplication.turn(session.app) { session.viewer.card(at: 0) != nil }
            XCTAssertTrue(try XCTUnwrap(session.viewer.card(at: 0)).favourite.isSelected)
            XCTAssertEqual(session.viewer.favourites, [0])
        }
    }

    func testAnUnreadableFavouritesFileStartsEmpty() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("rainforest-favourites-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = FavouritesStore(url: folder.appendingPathComponent("favourites.json"))
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data("not json".utf8).write(to: store.url)
        XCTAssertEqual(store.load(), [])
        store.save([.init(item: 3, name: "Jaguar")])
        XCTAssertEqual(store.load(), [.init(item: 3, name: "Jaguar")])
    }

    func testTheModesShareTheCardCodeAndSwitchLive() throws {
        try MainActor.assumeIsolated {
            XCTAssertEqual(
                try ViewerMode.parse("sync,popcorn,no-fade"), ViewerMode(mainThread: true, popcorn: true, fadesIn: false))
            XCTAssertThrowsError(try ViewerMode.parse("turbo"))
            let options = try CollectionOptions.parse(["--resources", Self.resources, "--size", "700x500"])
            let session = try Session(collection: options, headless: true)
            defer { session.app.close() }
            let app = session.app, viewer = session.viewer
            TestApplication.turn(app) { viewer.isSettled }
            let asyncCard = try XCTUnwrap(viewer.card(at: 0))
            XCTAssertTrue(asyncCard.displaysAsynchronously && asyncCard.rasterizesSubtree)
            // Main-thread mode: no preloading, cards made and drawn on the main thread; the old
            // card stays until its replacement is on screen.
            viewer.mode.mainThread = true
            XCTAssertEqual(viewer.collection.rangeTuning, .zero)
            XCTAssertFalse(viewer.collection.allocatesCellsAsynchronously)
            TestApplication.turn(app) { viewer.card(at: 0) !== asyncCard && viewer.isSettled }
            let mainCard = try XCTUnwrap(viewer.card(at: 0))
            XCTAssertFalse(mainCard.displaysAsynchronously)
            XCTAssertFalse(mainCard.background.displaysAsynchronously)
            XCTAssertFalse(mainCard.isShowingPlaceholder, "drawn before the frame: no placeholder, not even fading")
            XCTAssertNil(asyncCard.supernode)
            // Popcorn: each part on its own layer.
            viewer.mode = ViewerMode(popcorn: true)
            TestApplication.turn(app) { viewer.card(at: 0) !== mainCard && viewer.isDisplayComplete }
            let popcorn = try XCTUnwrap(viewer.card(at: 0))
            XCTAssertFalse(popcorn.rasterizesSubtree)
            XCTAssertNotNil(popcorn.background.layerIfLoaded?.contents)
            XCTAssertTrue(popcorn.photo.layerIfLoaded?.superlayer === popcorn.layerIfLoaded)
            // Main-thread popcorn: every part, the heart's image included, draws on the main thread.
            viewer.mode = ViewerMode(mainThread: true, popcorn: true)
            TestApplication.turn(app) { viewer.card(at: 0) !== popcorn && viewer.isDisplayComplete }
            let mainPopcorn = try XCTUnwrap(viewer.card(at: 0))
            XCTAssertFalse(mainPopcorn.favourite.imageNode.displaysAsynchronously)
            let rasters = DisplayScheduler.shared.rasterStatistics.completed
            for _ in 0..<10 { app.runTurn() }
            XCTAssertEqual(DisplayScheduler.shared.rasterStatistics.completed, rasters, "nothing drawn on the workers")
            // Slow draw slows the scheduler down, and back.
            viewer.mode.slowDraw = true
            XCTAssertEqual((DisplayScheduler.shared.drawHook as? SlowDraw)?.delay, 0.1)
            viewer.mode.slowDraw = false
            XCTAssertNil(DisplayScheduler.shared.drawHook)
        }
    }
}
