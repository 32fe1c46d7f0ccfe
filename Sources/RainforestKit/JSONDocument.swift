// One file (about 670 lines) on purpose: a parser, whose scanner and grammar share a cursor.

/// A small, strict JSON parser (RFC 8259) that remembers where every value starts.
///
/// Foundation's `JSONDecoder` cannot tell which line a bad field is on, and the
/// cards loader wants to point people at the exact spot in the file, so this
/// parser keeps the 1-based line and column of each value and object key.
///
/// Positions: lines start at 1 and are ended by LF, CR LF or a lone CR.
/// Columns start at 1 and count Unicode scalars, not bytes, so a column after
/// "é" or an emoji matches what a text editor shows. A leading UTF-8 byte
/// order mark is skipped and takes up no column.

/// A parsed JSON value with its source position (1-based line and column of its first character).
struct JSONNode: Sendable, Equatable {
    /// One `"key": value` pair of an object, with the position of the key's opening quote.
    struct Member: Sendable, Equatable {
        var key: String
        var keyLine: Int
        var keyColumn: Int
        var value: JSONNode
    }

    enum Value: Sendable, Equatable {
        /// Members in source order. Duplicate keys are kept; callers decide what they mean.
        case object([Member])
        case array([JSONNode])
        case string(String)
        case number(Double)
        case bool(Bool)
        case null
    }

    var value: Value
    var line: Int
    var column: Int

    init(value: Value, line: Int, column: Int) {
        self.value = value
        self.line = line
        self.column = column
    }

    /// The kind of value in words, for error messages: "object", "array",
    /// "string", "number", "boolean" or "null".
    var typeName: String {
        switch value {
        case .object: "object"
        case .array: "array"
        case .string: "string"
        case .number: "number"
        case .bool: "boolean"
        case .null: "null"
        }
    }
}

/// A syntax error with the position of the offending character.
struct JSONSyntaxError: Error, Equatable, CustomStringConvertible {
    var line: Int
    var column: Int
    var message: String

    /// "LINE:COLUMN: MESSAGE"
    var description: String { "\(line):\(column): \(message)" }
}

enum JSONDocument {
    /// Containers may nest this deep; one more is an error.
    static let maximumDepth = 512

    /// Parses one JSON document from UTF-8 bytes.
    static func parse(_ bytes: [UInt8]) throws(JSONSyntaxError) -> JSONNode {
        let result: Result<JSONNode, JSONSyntaxError> = bytes.withUnsafeBufferPointer { buffer in
            var parser = Parser(buffer)
            do throws(JSONSyntaxError) {
                return .success(try parser.parseDocument())
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }
}

// MARK: - Implementation

extension JSONDocument {
    fileprivate enum ASCII {
        static let tab: UInt8 = 0x09
        static let lineFeed: UInt8 = 0x0A
        static let carriageReturn: UInt8 = 0x0D
        static let space: UInt8 = 0x20
        static let quote: UInt8 = 0x22  // "
        static let plus: UInt8 = 0x2B
        static let comma: UInt8 = 0x2C
        static let minus: UInt8 = 0x2D
        static let period: UInt8 = 0x2E
        static let slash: UInt8 = 0x2F
        static let zero: UInt8 = 0x30
        static let nine: UInt8 = 0x39
        static let colon: UInt8 = 0x3A
        static let upperE: UInt8 = 0x45
        static let openBracket: UInt8 = 0x5B
        static let backslash: UInt8 = 0x5C
        static let closeBracket: UInt8 = 0x5D
        static let lowerB: UInt8 = 0x62
        static let lowerE: UInt8 = 0x65
        static let lowerF: UInt8 = 0x66
        static let lowerN: UInt8 = 0x6E
        static let lowerR: UInt8 = 0x72
        static let lowerT: UInt8 = 0x74
        static let lowerU: UInt8 = 0x75
        static let openBrace: UInt8 = 0x7B
        static let closeBrace: UInt8 = 0x7D

        static func isDigit(_ byte: UInt8) -> Bool { byte >= zero && byte <= nine }
    }

    /// An array or object that has been opened but not yet closed.
    fileprivate struct OpenContainer {
        var isObject: Bool
        var line: Int
        var column: Int
        var elements: [JSONNode] = []
        var members: [JSONNode.Member] = []
        // The key waiting for its value (objects only).
        var key = ""
        var keyLine = 0
        var keyColumn = 0
    }

    /// The parser proper. It works directly on the bytes and keeps its own stack
    /// of open containers, so deep nesting cannot overflow the thread's stack.
    fileprivate struct Parser {
        private let bytes: UnsafeBufferPointer<UInt8>
        private let end: Int
        /// Where the document starts (3 when there is a byte order mark).
        private let start: Int
        /// Read position.
        private var index: Int

        // Positions are worked out lazily and incrementally: the line and column
        // of `trackedOffset` are known, and asking for a later offset only scans
        // the bytes in between, so the total cost stays linear.
        private var trackedOffset: Int
        private var trackedLine = 1
        private var trackedColumn = 1

        /// Reused buffer for strings that contain escapes.
        private var scratch: [UInt8] = []

        init(_ bytes: UnsafeBufferPointer<UInt8>) {
            self.bytes = bytes
            self.end = bytes.count
            let hasByteOrderMark = bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF
            self.start = hasByteOrderMark ? 3 : 0
            self.index = start
            self.trackedOffset = start
        }

        // MARK: Document and containers

        mutating func parseDocument() throws(JSONSyntaxError) -> JSONNode {
            var stack: [OpenContainer] = []
            skipWhitespace()

            parseValue: while true {
                // Invariant: whitespace before the value has been skipped.
                guard index < end else { throw error(at: index, "unexpected end of file") }
                let (line, column) = location(of: index)
                var node: JSONNode

                switch bytes[index] {
                case ASCII.openBrace, ASCII.openBracket:
                    let isObject = bytes[index] == ASCII.openBrace
                    if stack.count >= JSONDocument.maximumDepth {
                        throw error(at: index, "nesting deeper than \(JSONDocument.maximumDepth) levels")
                    }
                    index += 1
                    skipWhitespace()
                    let closer = isObject ? ASCII.closeBrace : ASCII.closeBracket
                    if index < end && bytes[index] == closer {
                        index += 1
                        node = JSONNode(value: isObject ? .object([]) : .array([]), line: line, column: column)
                    } else {
                        stack.append(OpenContainer(isObject: isObject, line: line, column: column))
                        if isObject {
                            try parseKeyAndColon(into: &stack[stack.count - 1])
                        }
                        continue parseValue
                    }
                case ASCII.quote:
                    node = JSONNode(value: .string(try parseString()), line: line, column: column)
                case ASCII.minus, ASCII.zero...ASCII.nine:
                    node = JSONNode(value: .number(try parseNumber()), line: line, column: column)
                case ASCII.lowerT:
                    try expectLiteral("true")
                    node = JSONNode(value: .bool(true), line: line, column: column)
                case ASCII.lowerF:
                    try expectLiteral("false")
                    node = JSONNode(value: .bool(false), line: line, column: column)
                case ASCII.lowerN:
                    try expectLiteral("null")
                    node = JSONNode(value: .null, line: line, column: column)
                default:
                    throw unexpectedCharacter(at: index)
                }

                // A value is complete: hand it to its container, and close
                // containers for as long as closing brackets follow.
                while true {
                    guard !stack.isEmpty else {
                        skipWhitespace()
                        if index < end { throw unexpectedCharacter(at: index) }
                        return node
                    }
                    let top = stack.count - 1
                    let isObject = stack[top].isObject
                    if isObject {
                        stack[top].members.append(
                            JSONNode.Member(
                                key: stack[top].key, keyLine: stack[top].keyLine,
                                keyColumn: stack[top].keyColumn, value: node))
                    } else {
                        stack[top].elements.append(node)
                    }

                    skipWhitespace()
                    guard index < end else { throw error(at: index, "unexpected end of file") }
                    let closer = isObject ? ASCII.closeBrace : ASCII.closeBracket
                    let byte = bytes[index]
                    if byte == ASCII.comma {
                        let comma = index
                        index += 1
                        skipWhitespace()
                        if index < end && bytes[index] == closer {
                            throw error(at: comma, "trailing comma is not allowed")
                        }
                        if isObject {
                            try parseKeyAndColon(into: &stack[top])
                        }
                        continue parseValue
                    } else if byte == closer {
                        index += 1
                        let container = stack.removeLast()
                        let value: JSONNode.Value = container.isObject ? .object(container.members) : .array(container.elements)
                        node = JSONNode(value: value, line: container.line, column: container.column)
                    } else {
                        let expected = isObject ? "expected ',' or '}'" : "expected ',' or ']'"
                        throw foundError(at: index, expected)
                    }
                }
            }
        }

        /// Reads `"key"`, the colon and the whitespace after it.
        private mutating func parseKeyAndColon(into container: inout OpenContainer) throws(JSONSyntaxError) {
            guard index < end else { throw error(at: index, "unexpected end of file") }
            guard bytes[index] == ASCII.quote else { throw foundError(at: index, "expected a string key") }
            let (line, column) = location(of: index)
            let key = try parseString()
            skipWhitespace()
            guard index < end else { throw error(at: index, "unexpected end of file") }
            guard bytes[index] == ASCII.colon else { throw error(at: index, "expected ':' after object key") }
            index += 1
            skipWhitespace()
            container.key = key
            container.keyLine = line
            container.keyColumn = column
        }

        private mutating func skipWhitespace() {
            while index < end {
                switch bytes[index] {
                case ASCII.space, ASCII.lineFeed, ASCII.carriageReturn, ASCII.tab: index += 1
                default: return
                }
            }
        }

        // MARK: Scalars

        private mutating func expectLiteral(_ word: StaticString) throws(JSONSyntaxError) {
            let count = word.utf8CodeUnitCount
            let letters = word.utf8Start
            for offset in 0..<count {
                let position = index + offset
                guard position < end else { throw error(at: position, "unexpected end of file") }
                guard bytes[position] == letters[offset] else { throw unexpectedCharacter(at: position) }
            }
            index += count
        }

        private mutating func parseNumber() throws(JSONSyntaxError) -> Double {
            let numberStart = index
            if bytes[index] == ASCII.minus { index += 1 }
            guard index < end else { throw error(at: index, "unexpected end of file") }
            if bytes[index] == ASCII.zero {
                index += 1
                if index < end && ASCII.isDigit(bytes[index]) {
                    throw error(at: index - 1, "leading zeros are not allowed")
                }
            } else {
                try expectDigits()
            }
            if index < end && bytes[index] == ASCII.period {
                index += 1
                try expectDigits()
            }
            if index < end && (bytes[index] == ASCII.lowerE || bytes[index] == ASCII.upperE) {
                index += 1
                if index < end && (bytes[index] == ASCII.plus || bytes[index] == ASCII.minus) { index += 1 }
                try expectDigits()
            }
            if let number = exactSmallNumber(from: numberStart, to: index) {
                return number
            }
            // The grammar has been checked, so the text is a plain decimal number.
            let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[numberStart..<index]), as: UTF8.self)
            guard let number = Double(text), number.isFinite else {
                throw error(at: numberStart, "number out of range")
            }
            return number
        }

        private static let powersOfTen: [Double] = [
            1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
            1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
        ]

        /// The value of an already validated number when it has at most 15 significant
        /// digits and a small decimal exponent. Then the digits and the power of ten are
        /// both exact doubles and a single multiplication or division rounds correctly,
        /// so this matches `Double(String)` without building a string. Nil otherwise.
        private func exactSmallNumber(from first: Int, to last: Int) -> Double? {
            var position = first
            let negative = bytes[position] == ASCII.minus
            if negative { position += 1 }
            var mantissa: UInt64 = 0
            var significantDigits = 0
            var exponent = 0
            var inFraction = false
            while position < last {
                let byte = bytes[position]
                if ASCII.isDigit(byte) {
                    let digit = byte - ASCII.zero
                    if significantDigits > 0 || digit != 0 {
                        significantDigits += 1
                        if significantDigits > 15 { return nil }
                        mantissa = mantissa * 10 + UInt64(digit)
                    }
                    if inFraction { exponent -= 1 }
                } else if byte == ASCII.period {
                    inFraction = true
                } else {
                    break  // 'e' or 'E'
                }
                position += 1
            }
            if position < last {
                position += 1
                var exponentSign = 1
                if bytes[position] == ASCII.minus || bytes[position] == ASCII.plus {
                    if bytes[position] == ASCII.minus { exponentSign = -1 }
                    position += 1
                }
                var written = 0
                while position < last {
                    written = written * 10 + Int(bytes[position] - ASCII.zero)
                    if written > 1000 { return nil }
                    position += 1
                }
                exponent += exponentSign * written
            }
            guard exponent >= -22 && exponent <= 22 else { return nil }
            var value = Double(mantissa)
            if exponent < 0 {
                value /= Self.powersOfTen[-exponent]
            } else {
                value *= Self.powersOfTen[exponent]
            }
            return negative ? -value : value
        }

        /// One or more decimal digits.
        private mutating func expectDigits() throws(JSONSyntaxError) {
            guard index < end else { throw error(at: index, "unexpected end of file") }
            guard ASCII.isDigit(bytes[index]) else { throw foundError(at: index, "expected a digit") }
            index += 1
            while index < end && ASCII.isDigit(bytes[index]) { index += 1 }
        }

        // MARK: Strings

        /// Parses a string starting at its opening quote and moves past the closing one.
        private mutating func parseString() throws(JSONSyntaxError) -> String {
            let openingQuote = index
            index += 1
            let contentStart = index

            // Fast path: no escapes, so the bytes are the string.
            while index < end {
                let byte = bytes[index]
                if byte == ASCII.quote {
                    let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[contentStart..<index]), as: UTF8.self)
                    index += 1
                    return text
                } else if byte == ASCII.backslash {
                    break
                } else if byte < 0x20 {
                    throw controlCharacterError(at: index, openingQuote: openingQuote)
                } else if byte < 0x80 {
                    index += 1
                } else {
                    index = try endOfUTF8Sequence(at: index)
                }
            }
            guard index < end else { throw error(at: openingQuote, "unterminated string") }

            // Slow path: copy runs of plain bytes and decode escapes into `scratch`.
            scratch.removeAll(keepingCapacity: true)
            var runStart = contentStart
            while index < end {
                let byte = bytes[index]
                if byte == ASCII.quote {
                    scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                    index += 1
                    return String(decoding: scratch, as: UTF8.self)
                } else if byte == ASCII.backslash {
                    scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                    try parseEscape(openingQuote: openingQuote)
                    runStart = index
                } else if byte < 0x20 {
                    throw controlCharacterError(at: index, openingQuote: openingQuote)
                } else if byte < 0x80 {
                    index += 1
                } else {
                    index = try endOfUTF8Sequence(at: index)
                }
            }
            throw error(at: openingQuote, "unterminated string")
        }

        /// A raw control character inside a string. A line break there almost
        /// always means the closing quote is missing, so that is what we say.
        private mutating func controlCharacterError(at offset: Int, openingQuote: Int) -> JSONSyntaxError {
            let byte = bytes[offset]
            if byte == ASCII.lineFeed || byte == ASCII.carriageReturn {
                return error(at: openingQuote, "unterminated string")
            }
            return error(at: offset, "control character \(codePoint(UInt32(byte))) must be escaped in a string")
        }

        /// Decodes the escape sequence at `index` (a backslash) into `scratch`.
        private mutating func parseEscape(openingQuote: Int) throws(JSONSyntaxError) {
            let backslash = index
            guard backslash + 1 < end else { throw error(at: openingQuote, "unterminated string") }
            let replacement: UInt8
            switch bytes[backslash + 1] {
            case ASCII.quote: replacement = ASCII.quote
            case ASCII.backslash: replacement = ASCII.backslash
            case ASCII.slash: replacement = ASCII.slash
            case ASCII.lowerB: replacement = 0x08
            case ASCII.lowerF: replacement = 0x0C
            case ASCII.lowerN: replacement = ASCII.lineFeed
            case ASCII.lowerR: replacement = ASCII.carriageReturn
            case ASCII.lowerT: replacement = ASCII.tab
            case ASCII.lowerU:
                try parseUnicodeEscape(openingQuote: openingQuote)
                return
            default:
                let (scalar, _) = decodeScalar(at: backslash + 1)
                guard let scalar else { throw error(at: backslash + 1, "invalid UTF-8") }
                if scalar.value >= 0x20 && scalar.value != 0x7F {
                    throw error(at: backslash, "invalid escape '\\\(Character(scalar))'")
                }
                throw error(at: backslash, "invalid escape: '\\' followed by \(codePoint(scalar.value))")
            }
            scratch.append(replacement)
            index = backslash + 2
        }

        /// `\uXXXX`, or two of them forming a surrogate pair.
        private mutating func parseUnicodeEscape(openingQuote: Int) throws(JSONSyntaxError) {
            let first = index
            let high = try hexQuad(escapeAt: first, openingQuote: openingQuote)
            index = first + 6
            var scalarValue = high
            if (0xDC00...0xDFFF).contains(high) {
                throw error(at: first, "lone surrogate '\(escapeText(at: first))'")
            }
            if (0xD800...0xDBFF).contains(high) {
                let second = index
                guard second + 1 < end, bytes[second] == ASCII.backslash, bytes[second + 1] == ASCII.lowerU else {
                    throw error(at: first, "lone surrogate '\(escapeText(at: first))'")
                }
                let low = try hexQuad(escapeAt: second, openingQuote: openingQuote)
                guard (0xDC00...0xDFFF).contains(low) else {
                    throw error(at: first, "lone surrogate '\(escapeText(at: first))'")
                }
                scalarValue = 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)
                index = second + 6
            }
            appendUTF8(scalarValue)
        }

        /// The value of the four hex digits after `\u` at `escape`.
        private mutating func hexQuad(escapeAt escape: Int, openingQuote: Int) throws(JSONSyntaxError) -> UInt32 {
            var value: UInt32 = 0
            for position in (escape + 2)..<(escape + 6) {
                guard position < end else { throw error(at: openingQuote, "unterminated string") }
                let byte = bytes[position]
                let digit: UInt8
                switch byte {
                case 0x30...0x39: digit = byte - 0x30
                case 0x41...0x46: digit = byte - 0x41 + 10
                case 0x61...0x66: digit = byte - 0x61 + 10
                default: throw error(at: escape, "invalid escape: '\\u' must be followed by four hex digits")
                }
                value = value << 4 | UInt32(digit)
            }
            return value
        }

        /// The six characters of a `\uXXXX` escape as written.
        private func escapeText(at offset: Int) -> String {
            String(decoding: UnsafeBufferPointer(rebasing: bytes[offset..<(offset + 6)]), as: UTF8.self)
        }

        private mutating func appendUTF8(_ value: UInt32) {
            switch value {
            case 0..<0x80:
                scratch.append(UInt8(value))
            case 0x80..<0x800:
                scratch.append(UInt8(0xC0 | (value >> 6)))
                scratch.append(UInt8(0x80 | (value & 0x3F)))
            case 0x800..<0x10000:
                scratch.append(UInt8(0xE0 | (value >> 12)))
                scratch.append(UInt8(0x80 | ((value >> 6) & 0x3F)))
                scratch.append(UInt8(0x80 | (value & 0x3F)))
            default:
                scratch.append(UInt8(0xF0 | (value >> 18)))
                scratch.append(UInt8(0x80 | ((value >> 12) & 0x3F)))
                scratch.append(UInt8(0x80 | ((value >> 6) & 0x3F)))
                scratch.append(UInt8(0x80 | (value & 0x3F)))
            }
        }

        // MARK: UTF-8

        /// The offset just past the well-formed UTF-8 sequence starting at `offset`.
        private mutating func endOfUTF8Sequence(at offset: Int) throws(JSONSyntaxError) -> Int {
            let length = sequenceLength(at: offset)
            guard length > 0 else { throw error(at: offset, "invalid UTF-8") }
            return offset + length
        }

        /// The length of the well-formed UTF-8 sequence at `offset`, or 0 when it is not well formed
        /// (overlong forms, surrogates, values above U+10FFFF and truncated sequences are all rejected).
        private func sequenceLength(at offset: Int) -> Int {
            let lead = bytes[offset]
            var low: UInt8 = 0x80
            var high: UInt8 = 0xBF
            let continuationCount: Int
            switch lead {
            case 0x00...0x7F: return 1
            case 0xC2...0xDF: continuationCount = 1
            case 0xE0: continuationCount = 2; low = 0xA0
            case 0xE1...0xEC, 0xEE, 0xEF: continuationCount = 2
            case 0xED: continuationCount = 2; high = 0x9F
            case 0xF0: continuationCount = 3; low = 0x90
            case 0xF1...0xF3: continuationCount = 3
            case 0xF4: continuationCount = 3; high = 0x8F
            default: return 0
            }
            guard offset + continuationCount < end else { return 0 }
            let second = bytes[offset + 1]
            guard second >= low && second <= high else { return 0 }
            if continuationCount >= 2 {
                for position in (offset + 2)...(offset + continuationCount) where bytes[position] & 0xC0 != 0x80 {
                    return 0
                }
            }
            return continuationCount + 1
        }

        /// The scalar at `offset` and its length in bytes; nil when the bytes are not valid UTF-8.
        private func decodeScalar(at offset: Int) -> (Unicode.Scalar?, Int) {
            let length = sequenceLength(at: offset)
            guard length > 0 else { return (nil, 0) }
            var value: UInt32
            switch length {
            case 1: value = UInt32(bytes[offset])
            case 2: value = UInt32(bytes[offset] & 0x1F)
            case 3: value = UInt32(bytes[offset] & 0x0F)
            default: value = UInt32(bytes[offset] & 0x07)
            }
            for position in (offset + 1)..<(offset + length) {
                value = value << 6 | UInt32(bytes[position] & 0x3F)
            }
            return (Unicode.Scalar(value), length)
        }

        // MARK: Errors and positions

        private mutating func error(at offset: Int, _ message: String) -> JSONSyntaxError {
            let (line, column) = location(of: offset)
            return JSONSyntaxError(line: line, column: column, message: message)
        }

        /// "unexpected character 'x'", or the end-of-file / invalid UTF-8 message when that is the real problem.
        private mutating func unexpectedCharacter(at offset: Int) -> JSONSyntaxError {
            guard offset < end else { return error(at: offset, "unexpected end of file") }
            guard let character = describeCharacter(at: offset) else { return error(at: offset, "invalid UTF-8") }
            return error(at: offset, "unexpected character \(character)")
        }

        /// "EXPECTATION, found 'x'".
        private mutating func foundError(at offset: Int, _ expectation: String) -> JSONSyntaxError {
            guard offset < end else { return error(at: offset, "unexpected end of file") }
            guard let character = describeCharacter(at: offset) else { return error(at: offset, "invalid UTF-8") }
            return error(at: offset, "\(expectation), found \(character)")
        }

        /// `'x'` for visible ASCII, `U+0007` for control characters, `'“' (U+201C)` for the rest;
        /// nil when the bytes at `offset` are not valid UTF-8.
        private func describeCharacter(at offset: Int) -> String? {
            let (scalar, _) = decodeScalar(at: offset)
            guard let scalar else { return nil }
            switch scalar.value {
            case 0x20...0x7E: return "'\(Character(scalar))'"
            case 0..<0x20, 0x7F...0x9F: return codePoint(scalar.value)
            default: return "'\(Character(scalar))' (\(codePoint(scalar.value)))"
            }
        }

        private func codePoint(_ value: UInt32) -> String {
            let hex = String(value, radix: 16, uppercase: true)
            return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        }

        /// The 1-based line and column of the character starting at byte `offset`.
        private mutating func location(of offset: Int) -> (line: Int, column: Int) {
            if offset < trackedOffset {
                trackedOffset = start
                trackedLine = 1
                trackedColumn = 1
            }
            var position = trackedOffset
            var line = trackedLine
            var column = trackedColumn
            let limit = min(offset, end)
            while position < limit {
                let byte = bytes[position]
                if byte == ASCII.lineFeed {
                    // The LF of a CR LF pair was already counted with the CR.
                    if position == start || bytes[position - 1] != ASCII.carriageReturn { line += 1 }
                    column = 1
                } else if byte == ASCII.carriageReturn {
                    line += 1
                    column = 1
                } else if byte & 0xC0 != 0x80 {
                    column += 1
                }
                position += 1
            }
            trackedOffset = position
            trackedLine = line
            trackedColumn = column
            return (line, column)
        }
    }
}
