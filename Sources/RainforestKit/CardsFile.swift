import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A problem with a cards file, pointing at the offending spot when there is one.
struct CardsFileError: Error, Equatable, CustomStringConvertible {
    /// The path as given.
    var file: String
    /// 1-based; nil when the whole file is at fault (missing, unreadable, empty).
    var line: Int?
    /// 1-based, in characters (Unicode scalars).
    var column: Int?
    var message: String

    /// "FILE:LINE:COLUMN: MESSAGE", or "FILE: MESSAGE" when there is no line.
    var description: String {
        guard let line else { return "\(file): \(message)" }
        guard let column else { return "\(file):\(line): \(message)" }
        return "\(file):\(line):\(column): \(message)"
    }
}

/// Something in a cards file that does not stop it from being shown (an unknown field, a
/// repeated card name), pointing at the spot: "FILE:LINE:COLUMN: warning: MESSAGE".
struct CardsFileWarning: Equatable, CustomStringConvertible {
    var file: String
    var line: Int
    var column: Int
    var message: String

    var description: String { "\(file):\(line):\(column): warning: \(message)" }
}

/// Reads the cards file:
///
/// ```json
/// {
///   "version": 1,
///   "cards": [
///     { "name": "Jaguar", "image": "images/jaguar.webp", "description": "…", "credit": "Frieda Bredesen, CC0 1.0" }
///   ]
/// }
/// ```
///
/// "version" is optional and must be 1. Every card needs all four string
/// fields; name, image and credit must not be blank. A known field given twice
/// is an error (which one was meant?). An unknown field is a warning and is ignored:
/// the data can still be shown, and a misspelt required field is caught as
/// missing, with the unknown field named in that error. Two cards with the same
/// name are both shown, with a warning (a copied card, most likely). Leading and
/// trailing whitespace is trimmed from every field. Card indexes in messages
/// count from 0, as in `cards[0].name`.
enum CardsFile {
    /// The only format version this app reads.
    static let supportedVersion = 1

    /// The cards of a file and what was odd about them.
    struct Contents: Equatable {
        var cards: [Card]
        var warnings: [CardsFileWarning]
    }

    /// Reads and validates a cards file. Throws the first problem found.
    static func load(contentsOf url: URL) throws(CardsFileError) -> [Card] {
        try loadContents(contentsOf: url).cards
    }

    /// Same, with the warnings.
    static func loadContents(contentsOf url: URL) throws(CardsFileError) -> Contents {
        let file = url.isFileURL ? url.relativePath : url.absoluteString
        let bytes = try readAll(url, file: file)
        return try parseContents(bytes, file: file)
    }

    /// Same, from bytes already read (for tests and fuzzing); `file` is used in messages only.
    static func parse(_ bytes: [UInt8], file: String) throws(CardsFileError) -> [Card] {
        try parseContents(bytes, file: file).cards
    }

    /// Same, with the warnings.
    static func parseContents(_ bytes: [UInt8], file: String) throws(CardsFileError) -> Contents {
        if isBlank(bytes) {
            throw CardsFileError(file: file, line: nil, column: nil, message: "the file is empty")
        }
        let root: JSONNode
        do throws(JSONSyntaxError) {
            root = try JSONDocument.parse(bytes)
        } catch {
            throw CardsFileError(
                file: file, line: error.line, column: error.column,
                message: "not valid JSON: \(error.message)")
        }
        var validator = Validator(file: file)
        let cards = try validator.cards(in: root)
        return Contents(cards: cards, warnings: validator.warnings)
    }

    // MARK: Reading

    private static func readAll(_ url: URL, file: String) throws(CardsFileError) -> [UInt8] {
        func failure(_ message: String) -> CardsFileError {
            CardsFileError(file: file, line: nil, column: nil, message: message)
        }
        guard url.isFileURL else { throw failure("cannot read: not a file URL") }

        let descriptor = open(url.path, O_RDONLY | O_CLOEXEC)
        if descriptor < 0 {
            let code = errno
            if code == ENOENT || code == ENOTDIR { throw failure("no such file") }
            throw failure("cannot read: \(reason(code))")
        }
        defer { close(descriptor) }

        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw failure("cannot read: \(reason(errno))") }
        if (status.st_mode & S_IFMT) == S_IFDIR { throw failure("cannot read: \(reason(EISDIR))") }

        var contents: [UInt8] = []
        contents.reserveCapacity(max(0, Int(status.st_size)))
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { break }
            if count < 0 {
                let code = errno
                if code == EINTR { continue }
                throw failure("cannot read: \(reason(code))")
            }
            contents.append(contentsOf: chunk[0..<count])
        }
        return contents
    }

    private static func reason(_ code: Int32) -> String {
        switch code {
        case EACCES, EPERM: return "permission denied"
        case EISDIR: return "it is a directory"
        default: return String(cString: strerror(code))
        }
    }

    /// True for an empty file or one holding only whitespace (and perhaps a byte order mark).
    private static func isBlank(_ bytes: [UInt8]) -> Bool {
        var rest = bytes[...]
        if rest.starts(with: [0xEF, 0xBB, 0xBF]) { rest = rest.dropFirst(3) }
        return rest.allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
    }
}

// MARK: - Validation

extension CardsFile {
    fileprivate struct Validator {
        let file: String
        private(set) var warnings: [CardsFileWarning] = []

        init(file: String) {
            self.file = file
        }

        private static let cardFields = ["name", "image", "description", "credit"]

        private func failure(at line: Int, _ column: Int, _ message: String) -> CardsFileError {
            CardsFileError(file: file, line: line, column: column, message: message)
        }

        private func failure(at node: JSONNode, _ message: String) -> CardsFileError {
            failure(at: node.line, node.column, message)
        }

        private mutating func warn(at line: Int, _ column: Int, _ message: String) {
            warnings.append(CardsFileWarning(file: file, line: line, column: column, message: message))
        }

        /// The error for a missing field: at the first unknown field when there is one (a
        /// misspelling, most likely), naming it; else at `node`.
        private func missing(
            _ key: String, in node: JSONNode, prefix: String,
            unknown: [JSONNode.Member]
        ) -> CardsFileError {
            guard let first = unknown.first else { return failure(at: node, "\(prefix)missing field \(quoted(key))") }
            return failure(
                at: first.keyLine, first.keyColumn,
                "\(prefix)missing field \(quoted(key)); found unknown field \(quoted(first.key))")
        }

        mutating func cards(in root: JSONNode) throws(CardsFileError) -> [Card] {
            guard case .object(let members) = root.value else {
                throw failure(at: root, "expected an object with a \"cards\" array at the top level, found \(root.typeName)")
            }
            var seen: Set<String> = []
            var cards: [Card]?
            var unknown: [JSONNode.Member] = []
            for member in members {
                guard seen.insert(member.key).inserted else {
                    throw failure(at: member.keyLine, member.keyColumn, "duplicate field \(quoted(member.key))")
                }
                switch member.key {
                case "version":
                    try checkVersion(member.value)
                case "cards":
                    cards = try cardList(member.value)
                default:
                    unknown.append(member)
                }
            }
            guard let cards else { throw missing("cards", in: root, prefix: "", unknown: unknown) }
            for member in unknown {
                warn(at: member.keyLine, member.keyColumn, "unknown field \(quoted(member.key)) (ignored)")
            }
            return cards
        }

        private func checkVersion(_ node: JSONNode) throws(CardsFileError) {
            guard case .number(let version) = node.value else {
                throw failure(at: node, "field \"version\" must be a number, found \(node.typeName)")
            }
            guard version == Double(CardsFile.supportedVersion) else {
                throw failure(
                    at: node, "unsupported version \(format(version)); this app reads version \(CardsFile.supportedVersion)")
            }
        }

        private mutating func cardList(_ node: JSONNode) throws(CardsFileError) -> [Card] {
            guard case .array(let items) = node.value else {
                throw failure(at: node, "field \"cards\" must be an array, found \(node.typeName)")
            }
            guard !items.isEmpty else { throw failure(at: node, "\"cards\" is empty; there is nothing to show") }
            var cards: [Card] = []
            cards.reserveCapacity(items.count)
            var firstWithName: [String: Int] = [:]
            for (index, item) in items.enumerated() {
                let card = try card(item, path: "cards[\(index)]")
                if let earlier = firstWithName[card.name] {
                    if case .object(let members) = item.value, let name = members.first(where: { $0.key == "name" }) {
                        warn(
                            at: name.value.line, name.value.column,
                            "cards[\(index)].name \(quoted(card.name)) is also cards[\(earlier)]'s (both are shown)")
                    }
                } else {
                    firstWithName[card.name] = index
                }
                cards.append(card)
            }
            return cards
        }

        private mutating func card(_ node: JSONNode, path: String) throws(CardsFileError) -> Card {
            guard case .object(let members) = node.value else {
                throw failure(at: node, "\(path) must be an object, found \(node.typeName)")
            }
            var fields: [String: String] = [:]
            var unknown: [JSONNode.Member] = []
            for member in members {
                let key = member.key
                guard Self.cardFields.contains(key) else {
                    unknown.append(member)
                    continue
                }
                guard fields[key] == nil else {
                    throw failure(at: member.keyLine, member.keyColumn, "\(path): duplicate field \(quoted(key))")
                }
                let value = member.value
                guard case .string(let raw) = value.value else {
                    throw failure(at: value, "\(path).\(key) must be a string, found \(value.typeName)")
                }
                let text = trimmed(raw)
                if key != "description" && text.isEmpty {
                    throw failure(at: value, "\(path).\(key) must not be empty")
                }
                if key == "image" && !isRelativePathInside(text) {
                    throw failure(at: value, "\(path).image must be a relative path inside the resources folder")
                }
                fields[key] = text
            }
            for key in Self.cardFields where fields[key] == nil {
                throw missing(key, in: node, prefix: "\(path): ", unknown: unknown)
            }
            for member in unknown {
                warn(at: member.keyLine, member.keyColumn, "\(path): unknown field \(quoted(member.key)) (ignored)")
            }
            return Card(
                name: fields["name"]!, image: fields["image"]!,
                description: fields["description"]!, credit: fields["credit"]!)
        }

        // MARK: Helpers

        /// `text` without leading and trailing whitespace (including line breaks); the inside is untouched.
        private func trimmed(_ text: String) -> String {
            let scalars = text.unicodeScalars
            guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }) else { return "" }
            let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })!
            if first == scalars.startIndex && scalars.index(after: last) == scalars.endIndex { return text }
            return String(scalars[first...last])
        }

        /// A relative path that cannot leave the folder it is resolved in: not absolute,
        /// no ".." component, no drive letter or URL scheme, no NUL.
        private func isRelativePathInside(_ path: String) -> Bool {
            if path.hasPrefix("/") || path.hasPrefix("\\") || path.contains("\0") || path.contains("://") {
                return false
            }
            let components = path.split(omittingEmptySubsequences: false) { $0 == "/" || $0 == "\\" }
            if components.contains("..") { return false }
            if let first = components.first, first.count == 2, first.last == ":", first.first?.isLetter == true {
                return false
            }
            return true
        }

        /// A key as it would be written in JSON, so odd characters stay visible in messages.
        private func quoted(_ key: String) -> String {
            var result = "\""
            for scalar in key.unicodeScalars {
                switch scalar {
                case "\"": result += "\\\""
                case "\\": result += "\\\\"
                case "\n": result += "\\n"
                case "\r": result += "\\r"
                case "\t": result += "\\t"
                case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                    let hex = String(scalar.value, radix: 16, uppercase: true)
                    result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                default: result.unicodeScalars.append(scalar)
                }
            }
            return result + "\""
        }

        /// 2 rather than 2.0 for whole numbers.
        private func format(_ number: Double) -> String {
            if number.rounded() == number && abs(number) < 1e15 { return String(Int64(number)) }
            return String(number)
        }
    }
}
