import CSDL2
import Canopy
import CanopyGraphics
import CanopySDL
import CanopyTestSupport
import Foundation
import XCTest
@testable import RainforestKit

/// `--images DIR`: a folder made here (generated and copied images, a text file named .jpg, an
/// empty file, JPEGs cut short in the header and in the data, a broken link, a hidden file, a
/// subfolder), its listing and cards, paging by batch fetching in a headless session, and the
/// real binary's screenshot, bench and bad folders.
final class ImagesFolderTests: XCTestCase {
    static let packageRoot = TestResources.packageRoot
    static let images = packageRoot.appendingPathComponent("Resources/images")

    /// The files the folder shows, in the order it shows them.
    static let shown = [
        "cut-short.jpg", "dangling.jpg", "empty.png", "half.jpg", "img2.png", "img10.jpg",
        "Lizard_On_A__Wall.webp", "notes.jpg",
    ]

    private var scratch: URL!
    private var folder: URL!

    override func setUpWithError() throws {
        let files = FileManager.default
        scratch = files.temporaryDirectory.appendingPathComponent("rainforest-images-\(UUID().uuidString)")
        folder = scratch.appendingPathComponent("My photos")
        try files.createDirectory(at: folder.appendingPathComponent("Holiday"), withIntermediateDirectories: true)
        let jpeg = try Data(contentsOf: Self.images.appendingPathComponent("red-panda.jpg"))  // 1920 x 1080
        try jpeg.write(to: folder.appendingPathComponent("img10.jpg"))
        try jpeg.prefix(100).write(to: folder.appendingPathComponent("cut-short.jpg"))  // before the frame header
        try jpeg.prefix(20_000).write(to: folder.appendingPathComponent("half.jpg"))  // after it
        try files.copyItem(
            at: Self.images.appendingPathComponent("jaguar.webp"),  // 1024 x 683
            to: folder.appendingPathComponent("Lizard_On_A__Wall.webp"))
        try Self.gradient(width: 40, height: 30).writePNG(to: folder.appendingPathComponent("img2.png").path)
        try "a shopping list, not a photo\n".write(
            to: folder.appendingPathComponent("notes.jpg"), atomically: true, encoding: .utf8)
        try Data().write(to: folder.appendingPathComponent("empty.png"))
        try files.createSymbolicLink(
            atPath: folder.appendingPathComponent("dangling.jpg").path,
            withDestinationPath: scratch.appendingPathComponent("gone.jpg").path)
        try jpeg.write(to: folder.appendingPathComponent(".hidden.jpg"))
        try jpeg.write(to: folder.appendingPathComponent("Holiday/beach.jpg"))
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: scratch)
        MainActor.assumeIsolated { DisplayScheduler.shared.uninstall() }
    }

    private static func gradient(width: Int, height: Int) -> Bitmap {
        var pixels: [UInt8] = []
        for y in 0..<height {
            for x in 0..<width { pixels += [UInt8(x * 6), UInt8(y * 8), 128, 255] }
        }
        return Bitmap(width: width, height: height, pixels: pixels)
    }

    // MARK: Listing and cards

    func testTheListingIsInFileNameOrderWithoutHiddenFilesOrSubfolders() throws {
        XCTAssertEqual(try ImageFolder.list(folder), Self.shown, "img2 before img10, case aside")
    }

    func testAnImageBecomesACardNamedAfterItsFileWithItsSizeAndFormat() throws {
        let jpeg = ImageFolder.item(forFile: "img10.jpg", in: folder)
        XCTAssertEqual(
            jpeg.entry.card,
            Card(
                name: "img10", image: "img10.jpg", description: "1920 x 1080 px · JPEG",
                credit: "img10.jpg"))
        XCTAssertEqual(try jpeg.entry.imageSize.get(), CGSize(width: 1920, height: 1080))
        XCTAssertEqual(jpeg.imagePath, folder.appendingPathComponent("img10.jpg").path)

        let webp = ImageFolder.item(forFile: "Lizard_On_A__Wall.webp", in: folder).entry.card
        XCTAssertEqual(webp.name, "Lizard On A Wall", "underscores read as spaces")
        XCTAssertEqual(webp.description, "1024 x 683 px · WebP")
        XCTAssertEqual(ImageFolder.item(forFile: "img2.png", in: folder).entry.card.description, "40 x 30 px · PNG")
        // Only the header counts: a JPEG cut after its frame header is a card with its size;
        // its photo says what is wrong when it is drawn (below).
        XCTAssertEqual(ImageFolder.item(forFile: "half.jpg", in: folder).entry.card.description, "1920 x 1080 px · JPEG")
    }

    func testCardNames() {
        XCTAssertEqual(ImageFolder.cardName(fileName: "IMG_2041.JPG"), "IMG 2041")
        XCTAssertEqual(ImageFolder.cardName(fileName: "2023-05-01 beach.jpeg"), "2023-05-01 beach", "hyphens stay")
        XCTAssertEqual(ImageFolder.cardName(fileName: "archive.tar.gz"), "archive.tar")
        XCTAssertEqual(ImageFolder.cardName(fileName: " a__b .png"), "a b")
        XCTAssertEqual(ImageFolder.cardName(fileName: "README"), "README")
        XCTAssertEqual(ImageFolder.cardName(fileName: "_.png"), "_.png", "nothing left: the whole name")
    }

    func testFilesThatAreNotImagesOrAreBrokenBecomeErrorCardsSayingWhy() throws {
        func card(_ name: String) -> (description: String, error: ImageError?) {
            let entry = ImageFolder.item(forFile: name, in: folder).entry
            XCTAssertEqual(entry.card.name, ImageFolder.cardName(fileName: name))
            XCTAssertEqual(entry.card.credit, name)
            if case .failure(let error) = entry.imageSize { return (entry.card.description, error) }
            return (entry.card.description, nil)
        }
        let notes = card("notes.jpg")
        XCTAssertEqual(notes.description, "Not an image (unknown file signature)")
        XCTAssertEqual(notes.error, .notAnImage(path: folder.appendingPathComponent("notes.jpg").path))
        XCTAssertEqual(card("empty.png").description, "Not an image (the file is empty)")
        XCTAssertEqual(card("cut-short.jpg").description, "The file is truncated (JPEG header cut short)")
        XCTAssertEqual(card("dangling.jpg").description, "Cannot read (a link to a missing file)")
        XCTAssertEqual(card("gone.png").description, "No such file", "a file deleted since the listing")
        // A Latin-1 name: listed with a replacement character, so its path names no file.
        let latin1 = folder.appendingPathComponent("Latin").path
        try FileManager.default.createDirectory(atPath: latin1, withIntermediateDirectories: false)
        let raw = (Array((latin1 + "/caf").utf8) + [0xE9] + Array(".jpg".utf8) + [0]).map { CChar(bitPattern: $0) }
        let descriptor = open(raw, O_CREAT | O_WRONLY, 0o644)
        XCTAssertGreaterThanOrEqual(descriptor, 0)
        close(descriptor)
        let listed = try ImageFolder.list(URL(fileURLWithPath: latin1))
        XCTAssertEqual(listed, ["caf\u{FFFD}.jpg"])
        XCTAssertEqual(
            ImageFolder.item(forFile: listed[0], in: URL(fileURLWithPath: latin1)).entry.card.description,
            "Cannot read (the file's name is not UTF-8)")
        // Error cards take the fallback aspect, like any card whose photo cannot be read.
        XCTAssertEqual(
            CardDeck.cardHeight(imageSize: try? ImageFolder.item(forFile: "notes.jpg", in: folder).entry.imageSize.get()),
            240 + 300)
    }

    func testOverlappingLoadsShowEveryFileOnceInOrder() throws {
        // A fetch cancelled by a reload may still be reading when the next one starts.
        let provider = ImageFolder(url: folder)
        DispatchQueue.concurrentPerform(iterations: 4) { _ in _ = provider.load(upTo: 5) }
        XCTAssertEqual(provider.load(upTo: 100), Self.shown.count)
        XCTAssertEqual((0..<Self.shown.count).map { provider.item(at: $0).entry.card.credit }, Self.shown)
    }

    func testTheFolderIsReadOnlyAsFarAsThePagesAskedFor() throws {
        let provider = ImageFolder(url: folder)
        XCTAssertEqual(provider.initialCount(pageSize: 500), 0, "nothing is read before the first batch fetch")
        XCTAssertNil(provider.totalCount)
        XCTAssertEqual(provider.load(upTo: 3), 3)
        XCTAssertEqual(provider.totalCount, Self.shown.count, "listed by the first page")
        XCTAssertEqual((0..<3).map { provider.item(at: $0).entry.card.credit }, Array(Self.shown.prefix(3)))
        XCTAssertEqual(provider.load(upTo: 3), 3, "a page read stays read")
        XCTAssertEqual(provider.load(upTo: 100), Self.shown.count)
        XCTAssertEqual(provider.item(at: 7).entry.card.name, "notes")
        XCTAssertNil(provider.problem)

        let gone = ImageFolder(url: scratch.appendingPathComponent("gone"))
        XCTAssertEqual(gone.load(upTo: 10), 0)
        XCTAssertEqual(gone.totalCount, 0, "a folder that cannot be listed has nothing to load")
        XCTAssertEqual(gone.problem, "cannot read (No such file or directory)")
    }

    func testTheFolderIsCheckedForTheCommandLine() throws {
        XCTAssertEqual(try ImageFolder.check(folder.path).path, folder.standardizedFileURL.path)
        XCTAssertThrowsError(try ImageFolder.check(scratch.appendingPathComponent("nope").path)) { error in
            XCTAssertEqual("\(error)", "--images \(scratch.appendingPathComponent("nope").path): no such folder")
        }
        XCTAssertThrowsError(try ImageFolder.check(folder.appendingPathComponent("img2.png").path)) { error in
            XCTAssertTrue("\(error)".hasSuffix("img2.png: not a folder"), "\(error)")
        }
        let empty = scratch.appendingPathComponent("empty")
        try FileManager.default.createDirectory(at: empty.appendingPathComponent("sub"), withIntermediateDirectories: true)
        try Data([1]).write(to: empty.appendingPathComponent(".dot"))
        XCTAssertThrowsError(try ImageFolder.check(empty.path)) { error in
            XCTAssertTrue("\(error)".contains("no files in it"), "\(error)")
        }
    }

    // MARK: In the viewer

    func testTheFolderFillsInPageByPageByBatchFetching() throws {
        let folder: URL = folder
        try MainActor.assumeIsolated {
            let resources = Self.packageRoot.appendingPathComponent("Resources").path
            let options = try CollectionOptions.parse([
                "--resources", resources, "--images", folder.path,
                "--page-size", "2", "--size", "340x300",
            ])
            let session = try Session(collection: options, headless: true)
            defer { session.app.close() }
            let app = session.app, viewer = session.viewer, source = viewer.source
            app.showsFPS = false
            // Nothing read on the main thread at start: the first screen's decoding thread lists
            // the folder and reads its first page (here two files), which the first batch fetch
            // then shows; until the listing, the title and the status line say so.
            XCTAssertEqual(source.loadedCount, 0)
            if source.totalCount == nil {
                XCTAssertEqual(source.statusLine, "My photos: listing…")
                XCTAssertEqual(source.titleSummary, "My photos - listing")
            }

            // One column, 300 pt high: the first page (two cards) reaches past the viewport
            // and its end is more than two screens down, so no more is fetched until we scroll.
            TestApplication.turn(app) { viewer.isSettled }
            XCTAssertEqual(viewer.itemCount, 2)
            XCTAssertEqual(source.statusLine, "My photos: 2 of 8 files loaded")
            XCTAssertEqual(source.titleSummary, "My photos - 8 files")
            let first = try XCTUnwrap(viewer.card(at: 0))
            XCTAssertEqual(first.name, "cut-short")
            // An error card's photo is the file, drawn as the image node's error state.
            XCTAssertEqual(
                first.photo.lastError,
                .truncated(
                    path: folder.appendingPathComponent("cut-short.jpg").path,
                    format: .jpeg))

            // Scrolling to the end loads a page at a time, up to every file.
            var seen: [Int] = [viewer.itemCount]
            while viewer.itemCount < Self.shown.count {
                viewer.scroll(to: 1_000_000)
                let before = viewer.itemCount
                TestApplication.turn(app) { viewer.itemCount > before }
                seen.append(viewer.itemCount)
                if seen.count > 10 { break }
            }
            XCTAssertEqual(seen, [2, 4, 6, 8], "pages of two")
            viewer.scroll(to: 1_000_000)
            TestApplication.turn(app) { viewer.isSettled }
            for _ in 0..<5 { app.runTurn() }
            XCTAssertEqual(viewer.itemCount, 8, "no more than the files")
            XCTAssertFalse(viewer.collection.batchContext.isFetching)
            XCTAssertEqual(source.statusLine, "My photos: 8 files")
            XCTAssertEqual(viewer.card(at: 7)?.name, "notes")
            XCTAssertEqual(
                viewer.card(at: 7)?.photo.lastError,
                .notAnImage(path: folder.appendingPathComponent("notes.jpg").path))
        }
    }

    func testDroppingAFolderOrFilesOnTheWindowShowsThem() throws {
        let folder: URL = folder
        try MainActor.assumeIsolated {
            let resources = Self.packageRoot.appendingPathComponent("Resources").path
            let options = try CollectionOptions.parse([
                "--resources", resources, "--cards", "5", "--size", "700x600", "--no-thumbnails",
            ])
            let session = try Session(collection: options, headless: true)
            defer { session.app.close() }
            let app = session.app, viewer = session.viewer
            app.showsFPS = false
            app.eventHandler = { event, time in viewer.handle(event, at: time) }
            // A real drop reaches the window only if SDL posts the event (pushed ones skip that check).
            XCTAssertEqual(SDL_EventState(UInt32(SDL_DROPFILE.rawValue), SDL_QUERY), UInt8(SDL_ENABLE))
            TestApplication.turn(app) { viewer.isSettled }
            XCTAssertEqual(viewer.itemCount, 5)
            viewer.scroll(to: 400)

            /// A drop as SDL delivers it: BEGIN, a FILE per path (SDL owns the copies), COMPLETE.
            func drop(_ paths: [String]) {
                var begin = SDL_Event()
                begin.type = SDL_DROPBEGIN.rawValue
                XCTAssertEqual(SDL_PushEvent(&begin), 1)
                for path in paths {
                    var file = SDL_Event()
                    file.type = SDL_DROPFILE.rawValue
                    file.drop.file = SDL_strdup(path)
                    XCTAssertEqual(SDL_PushEvent(&file), 1)
                }
                var complete = SDL_Event()
                complete.type = SDL_DROPCOMPLETE.rawValue
                XCTAssertEqual(SDL_PushEvent(&complete), 1)
            }

            // A folder: its files, as --images shows them, from the top.
            drop([folder.path])
            TestApplication.turn(app) { viewer.source.totalCount == Self.shown.count && viewer.isSettled }
            XCTAssertEqual(viewer.source.titleSummary, "My photos - 8 files")
            XCTAssertEqual(viewer.card(at: 0)?.name, "cut-short")
            XCTAssertEqual(viewer.collection.contentOffset, 0)

            // Files from two folders (and a folder among them, left out): those files, in order.
            drop([
                folder.appendingPathComponent("img10.jpg").path, folder.appendingPathComponent("Holiday").path,
                folder.appendingPathComponent("Holiday/beach.jpg").path,
            ])
            TestApplication.turn(app) { viewer.source.totalCount == 2 && viewer.isSettled }
            XCTAssertEqual([viewer.card(at: 0)?.name, viewer.card(at: 1)?.name], ["img10", "beach"])
            XCTAssertNil(viewer.card(at: 0)?.photo.lastError)

            // Nothing that exists: nothing changes.
            XCTAssertFalse(viewer.open([folder.appendingPathComponent("gone").path]))
            XCTAssertEqual(viewer.source.totalCount, 2)
        }
    }

    func testAnAnimatedGIFPlaysInItsCardOverAStillBlurredBackground() throws {
        let animated = scratch.appendingPathComponent("Animated")
        try FileManager.default.createDirectory(at: animated, withIntermediateDirectories: true)
        let frames = [Color(red: 1, green: 0, blue: 0), Color(red: 0, green: 0, blue: 1)].map {
            Bitmap(width: 64, height: 48, fill: $0)
        }
        try AnimationWriter.write(
            frames, durations: [0.05, 0.05], loops: 0, format: .gif,
            to: animated.appendingPathComponent("blink.gif").path)
        try FileManager.default.copyItem(
            at: folder.appendingPathComponent("img10.jpg"), to: animated.appendingPathComponent("still.jpg"))
        XCTAssertEqual(
            ImageFolder.item(forFile: "blink.gif", in: animated).entry.card.description, "64 x 48 px · GIF · animated")
        try MainActor.assumeIsolated {
            let options = try CollectionOptions.parse([
                "--images", animated.path, "--size", "700x600", "--no-thumbnails",
            ])
            let session = try Session(collection: options, headless: true)
            defer { session.app.close() }
            let app = session.app, viewer = session.viewer
            app.showsFPS = false
            TestApplication.turn(app) { viewer.isSettled }
            let card = try XCTUnwrap(viewer.card(at: 0))
            XCTAssertEqual(card.name, "blink")
            XCTAssertFalse(card.rasterizesSubtree, "its photo changes frames on a layer of its own")
            XCTAssertTrue(try XCTUnwrap(viewer.card(at: 1)).rasterizesSubtree, "a still photo's card is one bitmap")
            XCTAssertFalse(card.background.animatesImage)
            let animations = try XCTUnwrap(DisplayScheduler.shared.imageAnimations)
            XCTAssertEqual(animations.playingCount, 1, "the photo plays; its blurred background does not")
            let photo = card.photo.layer
            var colours: Set<[UInt8]> = []
            TestApplication.turn(app) {
                if let bitmap = photo.contents {
                    let p = bitmap.pixel(x: bitmap.width / 2, y: bitmap.height / 2)
                    colours.insert([p.r, p.g, p.b])
                }
                return colours.count == 2
            }
            XCTAssertEqual(colours, [[255, 0, 0], [0, 0, 255]])
        }
    }

    func testTheEmbeddedCardsSayHowManyAreLoaded() throws {
        try MainActor.assumeIsolated {
            let resources = Self.packageRoot.appendingPathComponent("Resources").path
            let options = try CollectionOptions.parse(["--resources", resources, "--cards", "45", "--page-size", "20"])
            let session = try Session(collection: options, headless: true)
            defer { session.app.close() }
            XCTAssertEqual(session.viewer.source.statusLine, "20 of 45 cards loaded")
            XCTAssertEqual(session.viewer.source.titleSummary, "45 cards")
        }
    }

    // MARK: The command line

    /// Runs the binary built beside the tests, headless (`CommandLineTests.runBinary`).
    private func run(_ arguments: [String]) throws -> CommandLineTests.Outcome {
        try CommandLineTests.runBinary(arguments)
    }

    func testScreenshotOfAFolderWritesAPNGWithItsCards() throws {
        let file = scratch.appendingPathComponent("folder.png").path
        let outcome = try run(
            ["screenshot", "--images", folder.path, "--output", file, "--size", "700x600"]
                + CommandLineTests.patience)
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        XCTAssertTrue(outcome.stdout.contains("wrote"), outcome.stdout)
        try GraphicsLibrary.initialize()
        let shot = try ImageDecoder.decode(contentsOf: file)
        XCTAssertEqual(shot.width, 700)
        XCTAssertEqual(shot.height, 600)
        // Two columns at x 25 and 355; the first card (cut-short.jpg, an error card, 4:3) has
        // its photo area (y 10 to 250) in the image node's error grey with the reason on it.
        RainforestTestSupport.assertFirstCardShowsAnError(shot)
    }

    func testBenchScrollsAFolder() throws {
        let json = scratch.appendingPathComponent("bench.json").path
        let outcome = try run(
            [
                "bench", "--images", folder.path, "--duration", "0.3", "--speed", "2000",
                "--size", "800x600", "--json", json,
            ] + CommandLineTests.patience)
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        XCTAssertTrue(outcome.stdout.contains("the files in \(folder.path)"), outcome.stdout)
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: json))) as? [String: Any]
        let runs = try XCTUnwrap(object?["runs"] as? [[String: Any]])
        XCTAssertEqual(runs.first?["cards"] as? Int, Self.shown.count)
    }

    func testBadFoldersEndInOneLineAndStatus2() throws {
        let output = scratch.appendingPathComponent("x.png").path
        let empty = scratch.appendingPathComponent("nothing")
        try FileManager.default.createDirectory(at: empty.appendingPathComponent("sub"), withIntermediateDirectories: true)
        let cases: [([String], [String])] = [
            (
                ["screenshot", "--output", output, "--images", "/nonexistent/photos"],
                ["--images /nonexistent/photos", "no such folder"]
            ),
            (
                ["screenshot", "--output", output, "--images", folder.appendingPathComponent("img2.png").path],
                ["img2.png", "not a folder"]
            ),
            (["run", "--images", empty.path], ["--images \(empty.path)", "no files in it"]),
            (["bench", "--images", "/nonexistent/photos"], ["--images /nonexistent/photos", "no such folder"]),
            (["screenshot", "--output", output, "--images", folder.path, "--cards", "10"], ["--cards", "--images"]),
        ]
        for (arguments, needles) in cases {
            let outcome = try run(arguments)
            XCTAssertEqual(outcome.status, 2, "\(arguments): \(outcome.stderr)")
            let lines = outcome.stderr.split(separator: "\n")
            XCTAssertEqual(lines.count, 1, outcome.stderr)
            XCTAssertTrue(lines.first?.hasPrefix("rainforest: ") ?? false, outcome.stderr)
            for needle in needles {
                XCTAssertTrue(outcome.stderr.contains(needle), "'\(needle)' in: \(outcome.stderr)")
            }
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: output))
    }
}
