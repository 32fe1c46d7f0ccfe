import Canopy
import CanopyGraphics
import CanopyTestSupport
import Foundation
import Synchronization
import XCTest
@testable import RainforestKit

/// Issue 8's hostile images, each as a card, through the embedded collection (a cards.json naming
/// them) and through `--images`: an empty file, truncated JPEG, PNG and WebP, a text file named
/// .jpg, a CMYK JPEG, a grey JPEG, a 16-bit PNG, a palette PNG with transparency, an animated
/// GIF, a 1 x 1 image, a 20000 x 100 panorama (and a 100 x 20000 strip), a 12000 x 12000 photo,
/// files that vanish or change between listing and drawing, and a folder of 5,000 files. Each
/// card either shows its picture, decoded no bigger than its image nodes need at the scale, or
/// writes what is wrong in its photo area.
final class HostileImagesTests: XCTestCase {
    private var scratch: URL!
    /// `scratch`/images: the hostile files.
    private var images: URL!

    /// The pixel limit these tests run under, as `--max-megapixels 150` sets it: the 144 MP photo
    /// shows, the 900 MP bomb does not (at the default 100 MP the photo is refused too, below).
    static let pixelLimit = 150_000_000

    override func setUpWithError() throws {
        try RainforestTestSupport.prepareGraphics()
        ImageDecoder.pixelLimit = Self.pixelLimit
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("rainforest-hostile-\(UUID().uuidString)")
        images = scratch.appendingPathComponent("images")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        // Made once for the class, copied for each test (the tests change some files).
        try FileManager.default.copyItem(
            at: Self.fixtures.withLock { folder in
                if let folder { return folder }
                let made = FileManager.default.temporaryDirectory.appendingPathComponent(
                    "rainforest-hostile-\(UUID().uuidString)")
                try FileManager.default.createDirectory(at: made, withIntermediateDirectories: true)
                do { try HostileImages.make(in: made) } catch {
                    try? FileManager.default.removeItem(at: made)
                    throw error
                }
                folder = made
                return made
            }, to: images)
    }

    override func tearDownWithError() throws {
        ImageDecoder.pixelLimit = ImageDecoder.defaultPixelLimit
        if let scratch { try? FileManager.default.removeItem(at: scratch) }
        MainActor.assumeIsolated { DisplayScheduler.shared.uninstall() }
    }

    /// The hostile files, made by the first test that runs.
    private static let fixtures = Mutex<URL?>(nil)

    override class func tearDown() {
        fixtures.withLock { folder in
            if let folder { try? FileManager.default.removeItem(at: folder) }
            folder = nil
        }
        super.tearDown()
    }

    // MARK: Drawing one card

    /// A card drawn now, at `scale`, with what its two image nodes decoded.
    private struct Drawn {
        var card: CardNode
        /// The card's bitmap; for a card that keeps its nodes' layers (an animated photo), its
        /// photo's.
        var contents: Bitmap?
        var photoDecoded: [Bitmap]
        var backgroundDecoded: [Bitmap]

        /// The middle of the photo area in `contents`.
        func photoMiddle(scale: CGFloat) -> (r: UInt8, g: UInt8, b: UInt8, a: UInt8)? {
            guard let contents else { return nil }
            guard card.rasterizesSubtree else { return contents.pixel(x: contents.width / 2, y: contents.height / 2) }
            return contents.pixel(x: Int(card.photo.frame.midX * scale), y: Int(card.photo.frame.midY * scale))
        }
    }

    /// Makes the card of `entry` (photo at `path`) as the collection does, lays it out and
    /// displays it synchronously, each image node through a cache of its own.
    @MainActor
    private static func draw(_ entry: CardDeck.Entry, path: String, scale: CGFloat) -> Drawn {
        defer { DisplayScheduler.shared.uninstall() }
        let photoCache = ImageCache(), backgroundCache = ImageCache()
        let card = RainforestTestSupport.displayedCard(entry, imagePath: path, scale: scale) { card in
            card.photo.imageCache = photoCache
            card.background.imageCache = backgroundCache
        }
        func decoded(_ cache: ImageCache) -> [Bitmap] { cache.keysByRecentUse.compactMap { cache.cachedBitmap(for: $0) } }
        let contents = card.rasterizesSubtree ? card.layerIfLoaded?.contents : card.photo.layerIfLoaded?.contents
        return Drawn(
            card: card, contents: contents, photoDecoded: decoded(photoCache),
            backgroundDecoded: decoded(backgroundCache))
    }

    /// Checks a drawn card against what its file should give.
    private static func assertCard(
        _ drawn: Drawn, _ expected: HostileImages.Expected, name: String, scale: CGFloat,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        let card = drawn.card
        let context = "\(name) at \(scale)x"
        XCTAssertNotNil(drawn.contents, "\(context): the card is drawn", file: file, line: line)
        XCTAssertEqual(card.frame.width, 320, context, file: file, line: line)
        XCTAssertLessThanOrEqual(card.frame.height, 320 * CardDeck.maximumPhotoAspect + 300, context, file: file, line: line)
        XCTAssertGreaterThanOrEqual(
            card.photo.frame.height, (320 * CardDeck.minimumPhotoAspect).rounded(.down), context,
            file: file, line: line)
        switch expected {
        case .shows(let width, let height):
            // The photo area's middle shows the picture (the card's own background is black;
            // the gradient over the photo is clear there).
            if let middle = drawn.photoMiddle(scale: scale) {
                XCTAssertGreaterThan(
                    Int(middle.r) + Int(middle.g) + Int(middle.b), 150, "\(context): \(middle)",
                    file: file, line: line)
            }
            XCTAssertNil(card.photo.lastError, context, file: file, line: line)
            XCTAssertNil(card.background.lastError, context, file: file, line: line)
            XCTAssertFalse(drawn.photoDecoded.isEmpty, "\(context): the photo was decoded", file: file, line: line)
            XCTAssertFalse(drawn.backgroundDecoded.isEmpty, "\(context): the background was decoded", file: file, line: line)
            // No decode bigger than the node needs: at most the pixels that cover its bounds at
            // the scale with the image's aspect (never above the file's own size).
            for (node, bitmaps) in [(card.photo, drawn.photoDecoded), (card.background, drawn.backgroundDecoded)] {
                let bounds = CGSize(width: node.frame.width * scale, height: node.frame.height * scale)
                let needed = ImageDecoder.fittedPixelSize(width: width, height: height, fitting: bounds)
                // A file the bounds show little of (the panorama, the strip) is decoded as the
                // visible crop: no more than the node's own pixels.
                let nodePixels = (
                    width: Int((bounds.width - 1e-6).rounded(.up)), height: Int((bounds.height - 1e-6).rounded(.up))
                )
                let limit = Self.cropped.contains(name) ? nodePixels : needed
                for bitmap in bitmaps {
                    XCTAssertLessThanOrEqual(bitmap.width, limit.width, "\(context): \(node.name ?? "")", file: file, line: line)
                    XCTAssertLessThanOrEqual(
                        bitmap.height, limit.height, "\(context): \(node.name ?? "")", file: file, line: line)
                }
            }
        case .error(let text):
            // The reason is in the photo area; behind the texts the card stays black (no grey
            // box with the same words under the white description).
            if let contents = drawn.contents {
                let textArea = contents.pixel(x: Int(160 * scale), y: Int((card.photo.frame.maxY + 200) * scale))
                XCTAssertLessThan(
                    Int(textArea.r) + Int(textArea.g) + Int(textArea.b), 150, "\(context): \(textArea)",
                    file: file, line: line)
                let photoArea = contents.pixel(x: Int(4 * scale), y: Int(4 * scale))
                XCTAssertEqual(
                    [photoArea.r, photoArea.g, photoArea.b], [217, 217, 217], "\(context): the error state's grey",
                    file: file, line: line)
            }
            XCTAssertEqual(card.photo.lastError?.description, text, context, file: file, line: line)
            XCTAssertEqual(card.background.lastError?.description, text, context, file: file, line: line)
        }
    }

    // MARK: Through cards.json

    /// The files whose nodes show under half of them, decoded as crops.
    private static let cropped: Set<String> = ["panorama.png", "tall.png"]

    /// The files also drawn at 2x.
    private static let twiceScaled: Set<String> = ["huge.jpg", "panorama.png", "tall.png", "pixel.png", "truncated.jpg"]

    func testEveryHostileImageNamedByTheCardsFileBecomesACard() throws {
        let all = HostileImages.fixtures.map(\.name) + HostileImages.changing.map(\.name)
        let cards = all.map {
            #"{"name": "\#($0)", "image": "images/\#($0)", "description": "A hostile file.", "credit": "test"}"#
        }
        try #"{"cards": [\#(cards.joined(separator: ",\n"))]}"#.write(
            to: scratch.appendingPathComponent("cards.json"),
            atomically: true, encoding: .utf8)
        let resources = Resources(root: scratch)
        let deck = try CardDeck.load(resources: resources, itemCount: nil)
        XCTAssertEqual(deck.entries.count, all.count)
        XCTAssertEqual(deck.warnings, [])
        try HostileImages.vanish(in: images)  // after the headers were read
        let expected = HostileImages.fixtures.map(\.expected) + HostileImages.changing.map { .error($0.expected) }
        MainActor.assumeIsolated {
            for (entry, expectation) in zip(deck.entries, expected) {
                // The card's text is the file's, whatever its photo.
                XCTAssertEqual(entry.card.description, "A hostile file.")
                // Every card at 1x; those whose decode depends on the size at 2x too (a debug
                // build draws a card in about a second at 2x).
                for scale: CGFloat in Self.twiceScaled.contains(entry.card.name) ? [1, 2] : [1] {
                    let drawn = Self.draw(entry, path: resources.imageURL(entry.card.image).path, scale: scale)
                    Self.assertCard(drawn, expectation, name: entry.card.name, scale: scale)
                }
            }
            // The card's height follows its header (or the fallback aspect without one).
            let heights = Dictionary(uniqueKeysWithValues: zip(deck.entries.map(\.card.name), deck.heights))
            XCTAssertEqual(heights["pixel.png"], 320 + 300, "1 x 1: square")
            XCTAssertEqual(heights["huge.jpg"], 320 + 300)
            XCTAssertEqual(heights["panorama.png"], 107 + 300, "20000 x 100: a strip of 1:3, not 2 pt")
            XCTAssertEqual(heights["tall.png"], 640 + 300, "100 x 20000: 1:2, not 64,000 pt")
            XCTAssertEqual(heights["notes.jpg"], 240 + 300, "no size: the fallback 3:4")
            XCTAssertEqual(heights["truncated.jpg"], 180 + 300, "its header is whole")
        }
    }

    // MARK: Through --images

    func testEveryHostileImageInAFolderBecomesACard() throws {
        let folder = ImageFolder(url: images)
        let count = folder.load(upTo: 100)
        XCTAssertEqual(count, HostileImages.fixtures.count + HostileImages.changing.count)
        try HostileImages.vanish(in: images)  // listed and read, not yet drawn
        let expected = Dictionary(uniqueKeysWithValues: HostileImages.fixtures.map { ($0.name, $0) })
        let changing = Dictionary(uniqueKeysWithValues: HostileImages.changing.map { ($0.name, $0.expected) })
        MainActor.assumeIsolated {
            for index in 0..<count {
                let item = folder.item(at: index)
                let name = item.entry.card.credit
                if let fixture = expected[name] {
                    XCTAssertEqual(item.entry.card.description, fixture.folderDescription, name)
                    // At 1x: the decode at 2x is the same whichever way the card came (the test above).
                    Self.assertCard(Self.draw(item.entry, path: item.imagePath, scale: 1), fixture.expected, name: name, scale: 1)
                } else if let text = changing[name] {
                    XCTAssertEqual(item.entry.card.description, "1920 x 1080 px · JPEG", "read before it changed")
                    Self.assertCard(Self.draw(item.entry, path: item.imagePath, scale: 1), .error(text), name: name, scale: 1)
                } else {
                    XCTFail("unexpected file \(name)")
                }
            }
        }
    }

    func testAHostileFolderScrollsToItsEndInTheViewer() throws {
        let images: URL = images
        try MainActor.assumeIsolated {
            let options = try CollectionOptions.parse([
                "--resources", HostileImages.packageRoot.appendingPathComponent("Resources").path,
                "--images", images.path, "--size", "700x600", "--max-megapixels", "150",
            ])
            XCTAssertEqual(options.pixelLimit, Self.pixelLimit)
            let session = try Session(collection: options, headless: true)
            defer { session.app.close() }
            let app = session.app, viewer = session.viewer
            app.showsFPS = false
            TestApplication.turn(app) { viewer.isSettled && viewer.itemCount > 0 }
            XCTAssertEqual(viewer.itemCount, HostileImages.fixtures.count + HostileImages.changing.count)
            XCTAssertFalse(viewer.visibleIndices.contains(viewer.itemCount - 1))
            try HostileImages.vanish(in: images)  // listed and read; drawn when scrolled to
            // A screen at a time to the end: every card on screen displays, error or picture.
            var offset: CGFloat = 0
            var seen: Set<String> = []
            while true {
                for index in viewer.visibleIndices {
                    let card = try XCTUnwrap(viewer.card(at: index))
                    let file = viewer.source.provider.item(at: index).entry.card.credit
                    if let fixture = HostileImages.fixtures.first(where: { $0.name == file }) {
                        if case .error(let text) = fixture.expected {
                            XCTAssertEqual(card.photo.lastError?.description, text, file)
                        } else {
                            XCTAssertNil(card.photo.lastError, file)
                        }
                    } else if let changing = HostileImages.changing.first(where: { $0.name == file }) {
                        XCTAssertEqual(card.photo.lastError?.description, changing.expected, file)
                    }
                    seen.insert(file)
                }
                guard offset < viewer.collection.maximumContentOffset else { break }
                offset = min(offset + 500, viewer.collection.maximumContentOffset)
                viewer.scroll(to: offset)
                TestApplication.turn(app) { viewer.isSettled }
            }
            XCTAssertTrue(viewer.visibleIndices.contains(viewer.itemCount - 1), "the last card is on screen")
            XCTAssertEqual(seen.count, viewer.itemCount, "every card was seen drawn")
        }
    }

    // MARK: The 12000 x 12000 photo

    func testTheTwelveThousandPixelPhotoDecodesToTheCardsSize() throws {
        // The decode, at the photo node's size at 2x: 640 x 640 from 12000 x 12000, through
        // libjpeg's 1/8 DCT scaling and the streaming average (never the 576 MB image).
        let path = images.appendingPathComponent("huge.jpg").path
        let photo = try ImageDecoder.decode(contentsOf: path, fitting: CGSize(width: 640, height: 640))
        XCTAssertEqual([photo.width, photo.height], [640, 640])
        XCTAssertEqual(photo.pixel(x: 320, y: 320).r, 128, "mid-grey")
        let background = try ImageDecoder.decode(contentsOf: path, fitting: CGSize(width: 640, height: 1240))
        XCTAssertEqual([background.width, background.height], [1240, 1240])

        // At the default limit of 100 MP its card says why it is not shown, from the header alone.
        ImageDecoder.pixelLimit = ImageDecoder.defaultPixelLimit
        let item = ImageFolder.item(forFile: "huge.jpg", in: images)
        XCTAssertEqual(item.entry.card.description, "Too large to show: 144 MP, the limit is 100 MP")
        XCTAssertThrowsError(try ImageDecoder.decode(contentsOf: path, fitting: CGSize(width: 640, height: 640))) {
            XCTAssertEqual(($0 as? ImageError)?.description, "huge.jpg: too large to show: 144 MP, the limit is 100 MP")
        }
    }

    // MARK: A folder of 5,000 files

    func testAFolderOfFiveThousandFilesOpensAtOnceAndPagesToTheEnd() throws {
        let folder = scratch.appendingPathComponent("Many")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let png = try Data(contentsOf: images.appendingPathComponent("pixel.png"))
        for number in 1...5_000 {
            // Every tenth file, from the second, is text.
            let name = "photo-\(number)" + (number % 10 == 2 ? ".txt" : ".png")
            try (number % 10 == 2 ? Data("not an image".utf8) : png).write(to: folder.appendingPathComponent(name))
        }
        let listed = try ImageFolder.list(folder)
        XCTAssertEqual(listed.count, 5_000)
        XCTAssertEqual(Array(listed.prefix(3)), ["photo-1.png", "photo-2.txt", "photo-3.png"], "by number, not by code point")
        XCTAssertEqual(listed.last, "photo-5000.png")

        try MainActor.assumeIsolated {
            let options = try CollectionOptions.parse([
                "--resources", HostileImages.packageRoot.appendingPathComponent("Resources").path,
                "--images", folder.path, "--size", "700x600",
            ])
            let session = try Session(collection: options, headless: true)
            defer { session.app.close() }
            let app = session.app, viewer = session.viewer, source = viewer.source
            app.showsFPS = false
            XCTAssertEqual(source.loadedCount, 0, "nothing read at start")
            TestApplication.turn(app) { viewer.isSettled && viewer.itemCount > 0 }
            // The first page is the first screen's worth; pages of 500 follow.
            XCTAssertEqual(viewer.itemCount, FirstScreenDecodes.limit * 2, "the first page")
            XCTAssertEqual(source.statusLine, "Many: \(FirstScreenDecodes.limit * 2) of 5,000 files loaded")
            XCTAssertNil(viewer.card(at: 0)?.photo.lastError)
            XCTAssertEqual(viewer.card(at: 1)?.photo.lastError?.description, "photo-2.txt: not an image (unknown file signature)")
            XCTAssertEqual(source.provider.item(at: 11).entry.card.description, "Not an image (unknown file signature)")
            // To the end, a page per batch fetch.
            var pages = 1
            while viewer.itemCount < 5_000 && pages < 20 {
                let before = viewer.itemCount
                viewer.scroll(to: .greatestFiniteMagnitude)
                TestApplication.turn(app) { viewer.itemCount > before }
                pages += 1
            }
            XCTAssertEqual(pages, 11, "32, then ten pages of 500 (the last one short)")
            viewer.scroll(to: .greatestFiniteMagnitude)
            TestApplication.turn(app) { viewer.isSettled }
            XCTAssertEqual(source.statusLine, "Many: 5,000 files")
            XCTAssertTrue(viewer.visibleIndices.contains(4_999))
            for index in viewer.visibleIndices {
                let file = source.provider.item(at: index).entry.card.credit
                XCTAssertEqual(viewer.card(at: index)?.photo.lastError != nil, file.hasSuffix(".txt"), file)
            }
        }
    }
}
