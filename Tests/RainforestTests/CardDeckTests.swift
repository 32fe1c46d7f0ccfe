import CanopyTestSupport
import Foundation
import XCTest
@testable import RainforestKit

final class CardDeckTests: XCTestCase {
    static let resources = Resources(root: TestResources.resources)

    func testCardHeightsFollowThePhotosAspectAcross320Points() throws {
        let deck = try CardDeck.load(resources: Self.resources, itemCount: nil)
        XCTAssertEqual(deck.itemCount, 16)
        let byName = Dictionary(uniqueKeysWithValues: zip(deck.entries.map(\.card.name), deck.heights))
        XCTAssertEqual(byName["Jaguar"], 214 + 300, "1024 x 683: ceil(683 / 1024 * 320) = ceil(213.44)")
        XCTAssertEqual(byName["Mountain gorilla"], 180 + 300, "1920 x 1080: exactly 180")
        XCTAssertEqual(byName["Saltwater crocodile"], 159 + 300, "1024 x 506: ceil(158.1)")
        XCTAssertEqual(byName["Scarlet macaw"], 248 + 300, "1024 x 793: ceil(247.8)")
    }

    func testRepeatingTheCardsToN() throws {
        let deck = try CardDeck.load(resources: Self.resources, itemCount: 1000)
        XCTAssertEqual(deck.itemCount, 1000)
        XCTAssertEqual(deck.heights.count, 1000)
        XCTAssertEqual(deck.entry(at: 16).card, deck.entry(at: 0).card)
        XCTAssertEqual(deck.heights[17], deck.heights[1])
    }

    func testAnUnreadablePhotoGetsTheFallbackAspectAndKeepsItsReason() {
        let deck = CardDeck(entries: [
            .init(
                card: Card(name: "A", image: "x.jpg", description: "", credit: "c"),
                imageSize: .failure(.fileMissing(path: "x.jpg")))
        ])
        XCTAssertEqual(deck.heights, [240 + 300])
    }

    func testPanoramasAndTallImagesKeepACardOfSensibleSize() {
        XCTAssertEqual(CardDeck.cardHeight(imageSize: CGSize(width: 20_000, height: 100)), 107 + 300)
        XCTAssertEqual(CardDeck.cardHeight(imageSize: CGSize(width: 3_000, height: 1_000)), 107 + 300, "3:1 is whole")
        XCTAssertFalse(CardDeck.cropsPhoto(imageSize: CGSize(width: 3_000, height: 1_000)))
        XCTAssertTrue(CardDeck.cropsPhoto(imageSize: CGSize(width: 20_000, height: 100)))
        XCTAssertEqual(CardDeck.cardHeight(imageSize: CGSize(width: 100, height: 20_000)), 640 + 300)
        XCTAssertEqual(CardDeck.cardHeight(imageSize: CGSize(width: 1_000, height: 2_000)), 640 + 300, "1:2 is whole")
        XCTAssertFalse(CardDeck.cropsPhoto(imageSize: CGSize(width: 1_000, height: 2_000)))
        XCTAssertTrue(CardDeck.cropsPhoto(imageSize: CGSize(width: 100, height: 20_000)))
        XCTAssertEqual(CardDeck.cardHeight(imageSize: CGSize(width: 1, height: 1)), 320 + 300)
        XCTAssertFalse(CardDeck.cropsPhoto(imageSize: CGSize(width: 1920, height: 1080)), "a photo is fitted whole")
        XCTAssertFalse(CardDeck.cropsPhoto(imageSize: nil))
    }
}

final class OptionsTests: XCTestCase {
    func testWindowSizes() throws {
        XCTAssertEqual(try WindowSize.parse("1280x800"), WindowSize(width: 1280, height: 800))
        XCTAssertEqual(try WindowSize.parse("649X500"), WindowSize(width: 649, height: 500))
        for bad in ["", "1280", "x800", "1280x", "axb", "1280x800x2", "-5x10", "100x100"] {
            XCTAssertThrowsError(try WindowSize.parse(bad), bad)
        }
    }

    func testOverlayLists() throws {
        XCTAssertEqual(try OverlayName.parseList("fps, ranges"), [.fps, .ranges])
        XCTAssertEqual(try OverlayName.parseList(""), [])
        XCTAssertThrowsError(try OverlayName.parseList("fps,glitter"))
    }
}

final class ResourcesTests: XCTestCase {
    func testFoundBesideTheExecutableOrAnyParent() throws {
        let root = CardDeckTests.resources.root.deletingLastPathComponent()
        let fakeBinary = root.appendingPathComponent(".build/somewhere/release/rainforest")
        let found = try Resources.locate(
            override: nil, environment: [:], executable: fakeBinary,
            currentDirectory: URL(fileURLWithPath: "/"))
        XCTAssertEqual(found.root.path, CardDeckTests.resources.root.standardizedFileURL.path)
    }

    func testTheOptionAndTheEnvironmentWin() throws {
        let path = CardDeckTests.resources.root.path
        XCTAssertEqual(try Resources.locate(override: path, environment: [:], executable: nil).root.path, path)
        XCTAssertEqual(
            try Resources.locate(override: nil, environment: ["RAINFOREST_RESOURCES": path], executable: nil).root.path, path)
        XCTAssertThrowsError(try Resources.locate(override: "/nope", environment: [:], executable: nil))
    }

    func testNotFoundSaysWhereItLooked() {
        XCTAssertThrowsError(
            try Resources.locate(
                override: nil, environment: [:], executable: URL(fileURLWithPath: "/usr/bin/rainforest"),
                currentDirectory: URL(fileURLWithPath: "/tmp"))
        ) { error in
            XCTAssertTrue("\(error)".contains("--resources"), "\(error)")
        }
    }
}
