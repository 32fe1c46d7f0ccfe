// libFuzzer target: the cards.json loader (RainforestKit's CardsFile, JSONDocument and Card),
// linked against the RainforestKit module that Fuzz/run builds with coverage.
//
// For any bytes, CardsFile.parseContents either returns cards or throws a CardsFileError (its
// typed throws allow nothing else); it must never trap. What it returns must hold what the
// loader promises:
// - at least one card; every name, image and credit non-empty and without surrounding
//   whitespace; every image a relative path that cannot leave the resources folder;
// - positions (of errors and warnings) 1-based;
// - the cards written out again as JSON (by Foundation) read back as the same cards, without
//   warnings but for repeated names.
import Foundation
@testable import RainforestKit

@_cdecl("LLVMFuzzerTestOneInput")
public func cardsFileFuzzTest(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = [UInt8](UnsafeBufferPointer(start: data, count: size))
    do throws(CardsFileError) {
        let contents = try CardsFile.parseContents(bytes, file: "cards.json")
        check(contents)
        checkRoundTrip(contents.cards)
    } catch {
        if let line = error.line { require(line >= 1, "error line \(line): \(error)") }
        if let column = error.column {
            require(error.line != nil && column >= 1, "error column \(column): \(error)")
        }
        require(!error.message.isEmpty, "an error without a message")
    }
    return 0
}

private func check(_ contents: CardsFile.Contents) {
    require(!contents.cards.isEmpty, "no cards and no error")
    for card in contents.cards {
        for (field, value) in [("name", card.name), ("image", card.image), ("credit", card.credit)] {
            require(!value.isEmpty, "empty \(field): \(card)")
            require(value == trimmed(value), "\(field) not trimmed: \(card)")
        }
        require(card.description == trimmed(card.description), "description not trimmed: \(card)")
        require(!card.image.hasPrefix("/") && !card.image.contains("\0"), "image outside: \(card)")
        let components = card.image.split(omittingEmptySubsequences: false) { $0 == "/" || $0 == "\\" }
        require(!components.contains(".."), "image outside: \(card)")
    }
    for warning in contents.warnings {
        require(warning.line >= 1 && warning.column >= 1, "warning position: \(warning)")
    }
}

/// The cards, written as a cards file by Foundation's JSON writer, read back the same.
private func checkRoundTrip(_ cards: [Card]) {
    let object: [String: Any] = [
        "version": 1,
        "cards": cards.map { ["name": $0.name, "image": $0.image, "description": $0.description, "credit": $0.credit] },
    ]
    guard let json = try? JSONSerialization.data(withJSONObject: object) else {
        fatalError("Foundation could not write the cards: \(cards)")
    }
    do throws(CardsFileError) {
        let again = try CardsFile.parseContents([UInt8](json), file: "again.json")
        require(again.cards == cards, "read back differently: \(cards) became \(again.cards)")
        let names = Set(cards.map(\.name))
        require(
            again.warnings.count == cards.count - names.count,
            "warnings on reading back: \(again.warnings)")
    } catch {
        fatalError("the cards written out again do not load: \(error)\n\(String(decoding: json, as: UTF8.self))")
    }
}

/// As the loader trims: Unicode whitespace (line breaks included) at either end.
private func trimmed(_ text: String) -> String {
    let scalars = text.unicodeScalars
    guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }) else { return "" }
    let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })!
    return String(scalars[first...last])
}

private func require(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fatalError(message()) }
}
