import CanopyTestSupport
import Foundation
import XCTest
@testable import RainforestKit

final class CardsFileTests: XCTestCase {
    // MARK: Helpers

    private static let packageRoot = TestResources.packageRoot
    private static let resources = TestResources.resources

    private let jaguar =
        #"{"name": "Jaguar", "image": "images/jaguar.webp", "description": "A big cat.", "credit": "Frieda Bredesen, CC0 1.0"}"#

    private func parse(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> [Card] {
        do throws(CardsFileError) {
            return try CardsFile.parse(Array(text.utf8), file: "cards.json")
        } catch {
            XCTFail("unexpected error: \(error)", file: file, line: line)
            return []
        }
    }

    /// Asserts that `text` is rejected with exactly `expected` as the description.
    private func assertRejected(_ text: String, _ expected: String, file: StaticString = #filePath, line: UInt = #line) {
        assertRejected(Array(text.utf8), expected, file: file, line: line)
    }

    private func assertRejected(_ bytes: [UInt8], _ expected: String, file: StaticString = #filePath, line: UInt = #line) {
        do throws(CardsFileError) {
            let cards = try CardsFile.parse(bytes, file: "cards.json")
            XCTFail("expected \"\(expected)\", but got \(cards.count) cards", file: file, line: line)
        } catch {
            XCTAssertEqual(error.description, expected, file: file, line: line)
            XCTAssertEqual(error.file, "cards.json", file: file, line: line)
        }
    }

    private func loadError(_ url: URL, file: StaticString = #filePath, line: UInt = #line) -> CardsFileError? {
        do throws(CardsFileError) {
            let cards = try CardsFile.load(contentsOf: url)
            XCTFail("expected an error, but got \(cards.count) cards", file: file, line: line)
            return nil
        } catch {
            return error
        }
    }

    private func temporaryDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("CardsFileTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: directory) }
        return directory
    }

    // MARK: The real data file

    func testRealCardsFileLoads() throws {
        let url = Self.resources.appendingPathComponent("cards.json")
        let cards = try CardsFile.load(contentsOf: url)
        XCTAssertEqual(cards.count, 16)
        XCTAssertEqual(
            cards.map(\.name),
            [
                "Collared aracari", "Mountain gorilla", "Lar gibbon", "Grey-headed flying fox",
                "Proboscis monkey", "Bonnet macaque", "Glassy tiger", "Common chameleon",
                "Common kingfisher", "Swallowtail caterpillar", "Red panda", "Jaguar",
                "Scarlet macaw", "Ring-tailed lemur", "Oriental garden lizard", "Saltwater crocodile",
            ])
        for card in cards {
            let image = Self.resources.appendingPathComponent(card.image)
            var isDirectory: ObjCBool = false
            XCTAssertTrue(
                FileManager.default.fileExists(atPath: image.path, isDirectory: &isDirectory),
                "\(card.name): missing \(card.image)")
            XCTAssertFalse(isDirectory.boolValue, card.image)
            XCTAssertTrue(card.image.hasPrefix("images/"), card.image)
            XCTAssertFalse(card.description.isEmpty, card.name)
            XCTAssertTrue(card.description.hasSuffix("."), card.name)
        }
        // One card per photo.
        let photos = try FileManager.default.contentsOfDirectory(atPath: Self.resources.appendingPathComponent("images").path)
            .filter { !$0.hasPrefix(".") }
        XCTAssertEqual(Set(cards.map(\.image)), Set(photos.map { "images/" + $0 }))
        XCTAssertEqual(try CardsFile.loadContents(contentsOf: url).warnings, [], "nothing odd in it")
    }

    func testRealCardsFileMatchesCredits() throws {
        // Each row of the CREDITS.md table: | file | subject | author | licence | original |
        let creditsURL = Self.resources.appendingPathComponent("CREDITS.md")
        let credits = try String(contentsOf: creditsURL, encoding: .utf8)
        var expected: [(image: String, credit: String)] = []
        for row in credits.split(separator: "\n") where row.hasPrefix("| ") && !row.hasPrefix("| file") {
            let cells = row.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 4 else { continue }
            let file = cells[0].split(separator: " ").first.map(String.init) ?? ""
            expected.append(("images/" + file, "\(cells[2]), \(cells[3])"))
        }
        XCTAssertEqual(expected.count, 16)

        let cards = try CardsFile.load(contentsOf: Self.resources.appendingPathComponent("cards.json"))
        XCTAssertEqual(cards.map(\.image), expected.map(\.image))
        XCTAssertEqual(cards.map(\.credit), expected.map(\.credit))
        XCTAssertEqual(cards.first?.credit, "LG Nyqvist, CC BY-SA 4.0")
    }

    // MARK: Valid files

    func testMinimalFile() {
        let cards = parse(#"{"cards": [\#(jaguar)]}"#)
        XCTAssertEqual(
            cards,
            [
                Card(
                    name: "Jaguar", image: "images/jaguar.webp", description: "A big cat.",
                    credit: "Frieda Bredesen, CC0 1.0")
            ])
    }

    func testVersionOneIsAccepted() {
        XCTAssertEqual(parse(#"{"version": 1, "cards": [\#(jaguar)]}"#).count, 1)
        XCTAssertEqual(parse(#"{"cards": [\#(jaguar)], "version": 1.0}"#).count, 1)
    }

    func testDuplicateCardNamesAreAllowedWithAWarning() {
        let loaded = contents("{\"cards\": [\n  \(jaguar),\n  \(jaguar),\n  \(jaguar)\n]}")
        XCTAssertEqual(loaded?.cards.count, 3)
        XCTAssertEqual(loaded.map { Set($0.cards).count }, 1)
        XCTAssertEqual(
            loaded?.warnings.map(\.description),
            [
                "cards.json:3:12: warning: cards[1].name \"Jaguar\" is also cards[0]'s (both are shown)",
                "cards.json:4:12: warning: cards[2].name \"Jaguar\" is also cards[0]'s (both are shown)",
            ])
        XCTAssertEqual(contents(#"{"cards": [\#(jaguar)]}"#)?.warnings, [], "no warning for a clean file")
    }

    func testFieldsAreTrimmedButNotOtherwiseChanged() {
        let cards = parse(
            #"""
            {"cards": [{
              "name": "  Red panda\n",
              "image": " images/red-panda.jpg ",
              "description": "\n\t Line one.\n\n  Line   two.  \n",
              "credit": "\u00A0Mathias Appel, CC0 1.0 "
            }]}
            """#)
        XCTAssertEqual(
            cards,
            [
                Card(
                    name: "Red panda", image: "images/red-panda.jpg",
                    description: "Line one.\n\n  Line   two.",
                    credit: "Mathias Appel, CC0 1.0")
            ])
    }

    func testEmptyDescriptionIsAllowed() {
        let cards = parse(#"{"cards": [{"name": "Jaguar", "image": "jaguar.webp", "description": "  ", "credit": "me"}]}"#)
        XCTAssertEqual(cards.first?.description, "")
    }

    func testEmojiAndRightToLeftTextSurvive() {
        let description =
            "Der Jaguar 🐆 jagt nachts. 👩🏽‍🔬 sagt: «Ja!» — "
            + "اليغور قط كبير يعيش في الغابات. "
            + "היגואר הוא חתול גדול\u{200F}. e\u{301} ﷽ 𝔍"
        let escaped = description.replacingOccurrences(of: "\"", with: "\\\"")
        let text =
            #"{"cards": [{"name": "Jaguar 🐆", "image": "images/jaguar.webp", "description": ""#
            + escaped + #"", "credit": "Frieda Bredesen, CC0 1.0"}]}"#
        let cards = parse(text)
        XCTAssertEqual(cards.first?.name, "Jaguar 🐆")
        XCTAssertEqual(cards.first?.description, description)
        // Compare scalars too: String equality would accept a normalised form.
        XCTAssertEqual(cards.first.map { Array($0.description.unicodeScalars) }, Array(description.unicodeScalars))
    }

    func testMultiMegabyteDescription() {
        let long = String(repeating: "The jaguar swims well. ", count: 200_000) + "End."
        let cards = parse(
            #"{"cards": [{"name": "Jaguar", "image": "j.webp", "credit": "c", "description": ""#
                + long + #""}]}"#)
        XCTAssertEqual(cards.first?.description, long)
    }

    func testByteOrderMarkIsAccepted() {
        let bytes: [UInt8] = [0xEF, 0xBB, 0xBF] + Array(#"{"cards": [\#(jaguar)]}"#.utf8)
        XCTAssertEqual((try? CardsFile.parse(bytes, file: "cards.json"))?.count, 1)
    }

    func testImagePathsThatStayInsideAreAccepted() {
        for path in [
            "jaguar.webp", "images/jaguar.webp", "./images/jaguar.webp", "images/sub/jaguar.webp",
            "images/..jaguar.webp", "images/jaguar..webp", "images/.hidden.webp",
        ] {
            let cards = parse(#"{"cards": [{"name": "J", "image": "\#(path)", "description": "", "credit": "c"}]}"#)
            XCTAssertEqual(cards.first?.image, path)
        }
    }

    // MARK: Whole-file problems

    func testEmptyFile() {
        assertRejected("", "cards.json: the file is empty")
        assertRejected(" \n\t\r\n  ", "cards.json: the file is empty")
        assertRejected([0xEF, 0xBB, 0xBF, 0x0A], "cards.json: the file is empty")
        do throws(CardsFileError) {
            _ = try CardsFile.parse([], file: "x/cards.json")
            XCTFail("an empty file was accepted")
        } catch {
            XCTAssertEqual(error, CardsFileError(file: "x/cards.json", line: nil, column: nil, message: "the file is empty"))
        }
    }

    func testMissingFile() throws {
        let directory = try temporaryDirectory()
        let url = directory.appendingPathComponent("nowhere.json")
        let error = loadError(url)
        XCTAssertEqual(error, CardsFileError(file: url.path, line: nil, column: nil, message: "no such file"))
        XCTAssertEqual(error?.description, "\(url.path): no such file")

        let inMissingFolder = directory.appendingPathComponent("missing/cards.json")
        XCTAssertEqual(loadError(inMissingFolder)?.description, "\(inMissingFolder.path): no such file")
    }

    func testRelativePathIsReportedAsGiven() {
        let url = URL(fileURLWithPath: "no-such-folder-\(UUID().uuidString)/cards.json")
        XCTAssertEqual(loadError(url)?.description, "\(url.relativePath): no such file")
        XCTAssertTrue(url.relativePath.hasPrefix("no-such-folder-"), url.relativePath)
    }

    func testDirectoryInsteadOfFile() throws {
        let directory = try temporaryDirectory()
        let error = loadError(directory)
        XCTAssertEqual(
            error,
            CardsFileError(
                file: directory.path, line: nil, column: nil,
                message: "cannot read: it is a directory"))
        XCTAssertEqual(error?.description, "\(directory.path): cannot read: it is a directory")
    }

    func testLoadFromDisk() throws {
        let url = try temporaryDirectory().appendingPathComponent("cards.json")
        try Data(#"{"version": 1, "cards": [\#(jaguar)]}"#.utf8).write(to: url)
        XCTAssertEqual(try CardsFile.load(contentsOf: url).map(\.name), ["Jaguar"])

        try Data("\n\n  ".utf8).write(to: url)
        XCTAssertEqual(loadError(url)?.description, "\(url.path): the file is empty")

        try Data("{\"cards\": [\n  {\"name\": 1}\n]}".utf8).write(to: url)
        XCTAssertEqual(loadError(url)?.description, "\(url.path):2:12: cards[0].name must be a string, found number")
    }

    // MARK: Syntax

    func testSyntaxError() {
        assertRejected(#"{"cards": [}"#, "cards.json:1:12: not valid JSON: unexpected character '}'")
        assertRejected(
            "{\n  \"cards\": [\n    \(jaguar),\n  ]\n}",
            "cards.json:3:\(jaguar.count + 5): not valid JSON: trailing comma is not allowed")
        assertRejected("{\"cards\" []}", "cards.json:1:10: not valid JSON: expected ':' after object key")
        assertRejected(
            Array(#"{"cards": ["#.utf8) + [0xFF] + Array("]}".utf8),
            "cards.json:1:12: not valid JSON: invalid UTF-8")
        do throws(CardsFileError) {
            _ = try CardsFile.parse(Array("{\n\"cards\": \"abc".utf8), file: "c.json")
            XCTFail("accepted")
        } catch {
            XCTAssertEqual(
                error,
                CardsFileError(
                    file: "c.json", line: 2, column: 10,
                    message: "not valid JSON: unterminated string"))
        }
    }

    // MARK: Top level

    func testTopLevelMustBeAnObject() {
        assertRejected(
            "[\(jaguar)]",
            "cards.json:1:1: expected an object with a \"cards\" array at the top level, found array")
        assertRejected(
            "\n\n  \"cards\"",
            "cards.json:3:3: expected an object with a \"cards\" array at the top level, found string")
        assertRejected("null", "cards.json:1:1: expected an object with a \"cards\" array at the top level, found null")
        assertRejected("true", "cards.json:1:1: expected an object with a \"cards\" array at the top level, found boolean")
        assertRejected("12", "cards.json:1:1: expected an object with a \"cards\" array at the top level, found number")
    }

    func testUnsupportedVersion() {
        assertRejected(
            #"{"version": 2, "cards": [\#(jaguar)]}"#,
            "cards.json:1:13: unsupported version 2; this app reads version 1")
        assertRejected(
            "{\n  \"version\": 1.5,\n  \"cards\": []\n}",
            "cards.json:2:14: unsupported version 1.5; this app reads version 1")
        assertRejected(
            #"{"cards": [\#(jaguar)], "version": "1"}"#,
            "cards.json:1:\(jaguar.count + 26): field \"version\" must be a number, found string")
    }

    func testMissingCards() {
        assertRejected(#"{"version": 1}"#, "cards.json:1:1: missing field \"cards\"")
        assertRejected("\n  {}", "cards.json:2:3: missing field \"cards\"")
    }

    func testCardsMustBeAnArray() {
        assertRejected(#"{"cards": "Jaguar"}"#, "cards.json:1:11: field \"cards\" must be an array, found string")
        assertRejected("{\n\"cards\":\n  \(jaguar)}", "cards.json:3:3: field \"cards\" must be an array, found object")
        assertRejected(#"{"cards": null}"#, "cards.json:1:11: field \"cards\" must be an array, found null")
    }

    func testCardsMustNotBeEmpty() {
        assertRejected(#"{"version": 1, "cards": []}"#, "cards.json:1:25: \"cards\" is empty; there is nothing to show")
        assertRejected("{\"cards\": [\n]}", "cards.json:1:11: \"cards\" is empty; there is nothing to show")
    }

    /// The cards and warnings of `text`, which must load.
    private func contents(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> CardsFile.Contents? {
        do throws(CardsFileError) {
            return try CardsFile.parseContents(Array(text.utf8), file: "cards.json")
        } catch {
            XCTFail("unexpected error: \(error)", file: file, line: line)
            return nil
        }
    }

    func testUnknownTopLevelFieldIsAWarningAndIgnored() {
        let loaded = contents(#"{"cards": [\#(jaguar)], "colour": "green"}"#)
        XCTAssertEqual(loaded?.cards.count, 1)
        XCTAssertEqual(
            loaded?.warnings.map(\.description),
            ["cards.json:1:\(jaguar.count + 15): warning: unknown field \"colour\" (ignored)"])
        // A misspelt "cards" is named in the error for the missing field, where it is.
        assertRejected("{\n  \"card\": []\n}", "cards.json:2:3: missing field \"cards\"; found unknown field \"card\"")
        assertRejected(#"{"ca\"rds": 1}"#, #"cards.json:1:2: missing field "cards"; found unknown field "ca\"rds""#)
        assertRejected(#"{"version": 1}"#, "cards.json:1:1: missing field \"cards\"")
    }

    func testDuplicateTopLevelField() {
        assertRejected(
            "{\n  \"cards\": [\(jaguar)],\n  \"cards\": [\(jaguar)]\n}",
            "cards.json:3:3: duplicate field \"cards\"")
        assertRejected(
            #"{"version": 1, "version": 1, "cards": [\#(jaguar)]}"#,
            "cards.json:1:16: duplicate field \"version\"")
    }

    // MARK: Cards

    func testCardMustBeAnObject() {
        assertRejected(#"{"cards": [ "Jaguar" ]}"#, "cards.json:1:13: cards[0] must be an object, found string")
        assertRejected("{\"cards\": [\n  \(jaguar),\n  [1]\n]}", "cards.json:3:3: cards[1] must be an object, found array")
    }

    func testMissingCardField() {
        let text = """
            {
              "cards": [
                \(jaguar),
                {"name": "Jaguar", "description": "A big cat.", "credit": "Frieda Bredesen, CC0 1.0"}
              ]
            }
            """
        assertRejected(text, "cards.json:4:5: cards[1]: missing field \"image\"")
        assertRejected(#"{"cards": [{}]}"#, "cards.json:1:12: cards[0]: missing field \"name\"")
        assertRejected(
            #"{"cards": [{"name": "a", "image": "b", "description": "c"}]}"#,
            "cards.json:1:12: cards[0]: missing field \"credit\"")
        assertRejected(
            #"{"cards": [{"name": "a", "image": "b", "credit": "c"}]}"#,
            "cards.json:1:12: cards[0]: missing field \"description\"")
    }

    func testCardFieldsMustBeStrings() {
        let text = """
            {"cards": [
              \(jaguar),
              \(jaguar),
              \(jaguar),
              {"name": "Jaguar", "image": 42, "description": "", "credit": "x"}
            ]}
            """
        assertRejected(text, "cards.json:5:31: cards[3].image must be a string, found number")
        assertRejected(#"{"cards": [{"name": null}]}"#, "cards.json:1:21: cards[0].name must be a string, found null")
        assertRejected(
            #"{"cards": [{"name": "J", "description": ["a"]}]}"#,
            "cards.json:1:41: cards[0].description must be a string, found array")
        assertRejected(#"{"cards": [{"credit": true}]}"#, "cards.json:1:23: cards[0].credit must be a string, found boolean")
    }

    func testNameImageAndCreditMustNotBeBlank() {
        assertRejected(
            #"{"cards": [{"name": "", "image": "a.webp", "description": "", "credit": "c"}]}"#,
            "cards.json:1:21: cards[0].name must not be empty")
        assertRejected(
            #"{"cards": [{"name": " \t\n\u00A0", "image": "a.webp", "description": "", "credit": "c"}]}"#,
            "cards.json:1:21: cards[0].name must not be empty")
        assertRejected(
            #"{"cards": [{"name": "J", "image": "   ", "description": "", "credit": "c"}]}"#,
            "cards.json:1:35: cards[0].image must not be empty")
        assertRejected(
            #"{"cards": [{"name": "J", "image": "j.webp", "description": "", "credit": ""}]}"#,
            "cards.json:1:74: cards[0].credit must not be empty")
    }

    func testUnknownCardFieldIsAWarningAndIgnored() {
        let text = """
            {"cards": [
              \(jaguar),
              \(jaguar.replacingOccurrences(of: "Jaguar", with: "Ocelot")),
              {"name": "Margay", "colour": "gold", "image": "j.webp", "description": "", "credit": "x", "tags": ["cat"]}
            ]}
            """
        let loaded = contents(text)
        XCTAssertEqual(loaded?.cards.count, 3)
        XCTAssertEqual(loaded?.cards.last, Card(name: "Margay", image: "j.webp", description: "", credit: "x"))
        XCTAssertEqual(
            loaded?.warnings.map(\.description),
            [
                "cards.json:4:22: warning: cards[2]: unknown field \"colour\" (ignored)",
                "cards.json:4:93: warning: cards[2]: unknown field \"tags\" (ignored)",
            ])
        // A misspelt field is named in the error for the missing one.
        assertRejected(
            #"{"cards": [{"Name": "J"}]}"#, "cards.json:1:13: cards[0]: missing field \"name\"; found unknown field \"Name\"")
        assertRejected(
            #"{"cards": [{"name": "J", "image": "j.webp", "descripton": "x", "credit": "c"}]}"#,
            "cards.json:1:45: cards[0]: missing field \"description\"; found unknown field \"descripton\"")
    }

    func testDuplicateCardField() {
        assertRejected(
            #"{"cards": [{"name": "J", "image": "j.webp", "name": "K", "description": "", "credit": "c"}]}"#,
            "cards.json:1:45: cards[0]: duplicate field \"name\"")
    }

    func testImageMustStayInsideResources() {
        let rejected = [
            "/etc/passwd", "../secret.webp", "images/../../x.webp", "images/..", "..",
            "images\\..\\x.webp", "\\\\server\\x.webp", "C:\\x.webp", "https://example.com/x.webp",
        ]
        for path in rejected {
            let escaped = path.replacingOccurrences(of: "\\", with: "\\\\")
            assertRejected(
                #"{"cards": [\#(jaguar), {"name": "J", "image": "\#(escaped)", "description": "", "credit": "c"}]}"#,
                "cards.json:1:\(jaguar.count + 37): cards[1].image must be a relative path inside the resources folder")
        }
    }

    func testFirstProblemInTheFileIsReported() {
        let text = """
            {
              "cards": [
                {"name": 1, "image": 2},
                "not a card"
              ],
              "extra": true
            }
            """
        assertRejected(text, "cards.json:3:14: cards[0].name must be a string, found number")
    }

    // MARK: Error type

    func testErrorDescriptionFormats() {
        XCTAssertEqual(
            CardsFileError(file: "a/b.json", line: nil, column: nil, message: "no such file").description,
            "a/b.json: no such file")
        XCTAssertEqual(
            CardsFileError(file: "b.json", line: 3, column: 14, message: "oops").description,
            "b.json:3:14: oops")
        XCTAssertEqual(
            CardsFileError(file: "b.json", line: 3, column: nil, message: "oops").description,
            "b.json:3: oops")
    }
}
