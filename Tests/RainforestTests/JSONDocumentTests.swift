import XCTest
@testable import RainforestKit

final class JSONDocumentTests: XCTestCase {
    // MARK: Helpers

    private func parse(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> JSONNode? {
        parse(Array(text.utf8), file: file, line: line)
    }

    private func parse(_ bytes: [UInt8], file: StaticString = #filePath, line: UInt = #line) -> JSONNode? {
        do throws(JSONSyntaxError) {
            return try JSONDocument.parse(bytes)
        } catch {
            XCTFail("unexpected syntax error \(error)", file: file, line: line)
            return nil
        }
    }

    private func assertError(
        _ text: String, line: Int, column: Int, _ message: String,
        file: StaticString = #filePath, testLine: UInt = #line
    ) {
        assertError(Array(text.utf8), line: line, column: column, message, file: file, testLine: testLine)
    }

    private func assertError(
        _ bytes: [UInt8], line: Int, column: Int, _ message: String,
        file: StaticString = #filePath, testLine: UInt = #line
    ) {
        do throws(JSONSyntaxError) {
            let node = try JSONDocument.parse(bytes)
            XCTFail("expected \"\(message)\", but parsed \(node)", file: file, line: testLine)
        } catch {
            XCTAssertEqual(
                error, JSONSyntaxError(line: line, column: column, message: message),
                file: file, line: testLine)
        }
    }

    private func members(_ node: JSONNode?, file: StaticString = #filePath, line: UInt = #line) -> [JSONNode.Member] {
        guard case .object(let members)? = node?.value else {
            XCTFail("not an object: \(String(describing: node))", file: file, line: line)
            return []
        }
        return members
    }

    private func elements(_ node: JSONNode?, file: StaticString = #filePath, line: UInt = #line) -> [JSONNode] {
        guard case .array(let elements)? = node?.value else {
            XCTFail("not an array: \(String(describing: node))", file: file, line: line)
            return []
        }
        return elements
    }

    private func string(_ node: JSONNode?, file: StaticString = #filePath, line: UInt = #line) -> String? {
        guard case .string(let text)? = node?.value else {
            XCTFail("not a string: \(String(describing: node))", file: file, line: line)
            return nil
        }
        return text
    }

    // MARK: Values

    func testScalarValuesAndTypeNames() {
        let cases: [(String, JSONNode.Value, String)] = [
            ("true", .bool(true), "boolean"),
            ("false", .bool(false), "boolean"),
            ("null", .null, "null"),
            ("\"hi\"", .string("hi"), "string"),
            ("\"\"", .string(""), "string"),
            ("42", .number(42), "number"),
            ("{}", .object([]), "object"),
            ("[]", .array([]), "array"),
        ]
        for (text, value, typeName) in cases {
            let node = parse(text)
            XCTAssertEqual(node, JSONNode(value: value, line: 1, column: 1), text)
            XCTAssertEqual(node?.typeName, typeName, text)
        }
    }

    func testNumbers() {
        let cases: [(String, Double)] = [
            ("0", 0), ("-0", 0), ("7", 7), ("-12", -12), ("0.125", 0.125), ("-0.5", -0.5),
            ("1e3", 1000), ("1E+2", 100), ("25e-2", 0.25), ("1.5E3", 1500),
            ("123456789012", 123_456_789_012), ("1.7976931348623157e308", 1.7976931348623157e308),
        ]
        for (text, expected) in cases {
            XCTAssertEqual(parse(text)?.value, .number(expected), text)
        }
        XCTAssertEqual(parse("-0")?.value, .number(-0.0))

        // Short numbers take a fast path; the result must match Double's own parsing exactly.
        var texts = [
            "123456789012345", "1234567890123456", "9007199254740993", "0.1", "0.30000000000000004",
            "1e22", "1e23", "-1e-22", "1e-23", "5e-324", "2.2250738585072014e-308", "0.000001",
            "123.456e-5", "100000000000000000000000", "0.0000000000000000000001234", "1E0", "3.14159265358979",
        ]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let integer = String(UInt64.random(in: 0...999_999_999, using: &generator))
            let fraction = String(UInt64.random(in: 0...9_999_999_999, using: &generator))
            let exponent = Int.random(in: -30...30, using: &generator)
            texts.append("\(integer).\(fraction)e\(exponent)")
            texts.append("-0.\(fraction)")
        }
        for text in texts {
            XCTAssertEqual(parse(text)?.value, .number(Double(text)!), text)
        }
        if case .number(let negativeZero)? = parse("-0")?.value {
            XCTAssertEqual(negativeZero.sign, .minus)
        } else {
            XCTFail("-0 is not a number")
        }
    }

    func testPositionsAcrossLines() {
        let text = [
            "{",
            "  \"a\": [1, true,",
            "    null],",
            "  \"b\" : {\"c\": \"d\"}",
            "}",
        ].joined(separator: "\n")
        let root = parse(text)
        XCTAssertEqual(root?.line, 1)
        XCTAssertEqual(root?.column, 1)

        let top = members(root)
        XCTAssertEqual(top.map(\.key), ["a", "b"])
        guard top.count == 2 else { return }
        XCTAssertEqual([top[0].keyLine, top[0].keyColumn], [2, 3])
        XCTAssertEqual([top[0].value.line, top[0].value.column], [2, 8])
        let array = elements(top[0].value)
        XCTAssertEqual(
            array,
            [
                JSONNode(value: .number(1), line: 2, column: 9),
                JSONNode(value: .bool(true), line: 2, column: 12),
                JSONNode(value: .null, line: 3, column: 5),
            ])

        XCTAssertEqual([top[1].keyLine, top[1].keyColumn], [4, 3])
        XCTAssertEqual([top[1].value.line, top[1].value.column], [4, 9])
        XCTAssertEqual(
            members(top[1].value),
            [
                JSONNode.Member(
                    key: "c", keyLine: 4, keyColumn: 10,
                    value: JSONNode(value: .string("d"), line: 4, column: 15))
            ])
    }

    func testLeadingAndTrailingWhitespace() {
        XCTAssertEqual(parse(" \n\t 1 \r\n "), JSONNode(value: .number(1), line: 2, column: 3))
    }

    func testColumnsCountCharactersNotBytes() {
        // é and ü are two bytes, 😀 is four, but each is one column.
        let root = parse("{\"é\": \"ü😀\", \"k\": 1}")
        let top = members(root)
        XCTAssertEqual(
            top,
            [
                JSONNode.Member(
                    key: "é", keyLine: 1, keyColumn: 2,
                    value: JSONNode(value: .string("ü😀"), line: 1, column: 7)),
                JSONNode.Member(
                    key: "k", keyLine: 1, keyColumn: 13,
                    value: JSONNode(value: .number(1), line: 1, column: 18)),
            ])

        // A decomposed "é" is two scalars, so two columns.
        let decomposed = elements(parse("[\"e\u{301}\", 1]"))
        XCTAssertEqual(decomposed.last, JSONNode(value: .number(1), line: 1, column: 8))

        // Positions on a later line after multi-byte text, and errors there too.
        let later = elements(parse("[\"日本語\",\n \"🐆\", 3]"))
        XCTAssertEqual(later.map { [$0.line, $0.column] }, [[1, 2], [2, 2], [2, 7]])
        assertError("[\"日本語\",\n \"🐆\" x]", line: 2, column: 6, "expected ',' or ']', found 'x'")
    }

    func testLineEndings() {
        // LF, CR LF and a lone CR each end a line.
        let nodes = elements(parse("[\r\n1,\r2,\n3,\r\n\r\n4]"))
        XCTAssertEqual(nodes.map { [$0.line, $0.column] }, [[2, 1], [3, 1], [4, 1], [6, 1]])
    }

    func testEmptyContainersAndNesting() {
        let root = parse("[[], {}, [[\"x\"]], {\"a\": {}}]")
        let items = elements(root)
        XCTAssertEqual(items.map { [$0.line, $0.column] }, [[1, 2], [1, 6], [1, 10], [1, 19]])
        XCTAssertEqual(items.map(\.typeName), ["array", "object", "array", "object"])
        XCTAssertEqual(elements(elements(items[2]).first), [JSONNode(value: .string("x"), line: 1, column: 12)])
        XCTAssertEqual(members(items[3]).first?.value, JSONNode(value: .object([]), line: 1, column: 25))
    }

    func testDuplicateKeysAreKeptInOrder() {
        let top = members(parse("{\"a\": 1, \"b\": 2, \"a\": 3}"))
        XCTAssertEqual(top.map(\.key), ["a", "b", "a"])
        XCTAssertEqual(top.map(\.value.value), [.number(1), .number(2), .number(3)])
        XCTAssertEqual(top.map(\.keyColumn), [2, 10, 18])
    }

    // MARK: Strings and escapes

    func testSimpleEscapes() {
        XCTAssertEqual(string(parse(#""\"\\\/\b\f\n\r\t""#)), "\"\\/\u{8}\u{C}\n\r\t")
        XCTAssertEqual(string(parse(#""plain \"quoted\" and 日本 \n end""#)), "plain \"quoted\" and 日本 \n end")
    }

    func testUnicodeEscapes() {
        XCTAssertEqual(string(parse(#""\u00e9\u00C9\u0041""#)), "éÉA")
        XCTAssertEqual(string(parse(#""a\u0000b""#)), "a\u{0}b")
        XCTAssertEqual(string(parse(#""\u20AC\uFFFF""#)), "€\u{FFFF}")
        XCTAssertEqual(string(parse(#""\uD83D\uDE00""#)), "😀")
        XCTAssertEqual(string(parse(#""x\ud83d\ude00y\uDBFF\uDFFF""#)), "x😀y\u{10FFFF}")
    }

    func testLoneSurrogatesAreErrors() {
        assertError(#""\uD83D""#, line: 1, column: 2, #"lone surrogate '\uD83D'"#)
        assertError(#""ab\uDE00""#, line: 1, column: 4, #"lone surrogate '\uDE00'"#)
        assertError(#""\uD83Dx""#, line: 1, column: 2, #"lone surrogate '\uD83D'"#)
        assertError(#""\uD83D\u0041""#, line: 1, column: 2, #"lone surrogate '\uD83D'"#)
        assertError(#""\uD83D\uD83D""#, line: 1, column: 2, #"lone surrogate '\uD83D'"#)
    }

    func testRawControlCharactersInStringsAreRejected() {
        assertError("[\"a\tb\"]", line: 1, column: 4, "control character U+0009 must be escaped in a string")
        assertError("\"\u{1}\"", line: 1, column: 2, "control character U+0001 must be escaped in a string")
        // A raw line break means the closing quote is missing.
        assertError("[\"abc\n]", line: 1, column: 2, "unterminated string")
        assertError("\n  \"abc\r\n\"", line: 2, column: 3, "unterminated string")
    }

    // MARK: Errors

    func testUnexpectedCharacter() {
        assertError("{\"a\": }", line: 1, column: 7, "unexpected character '}'")
        assertError("[1,\n  }]", line: 2, column: 3, "unexpected character '}'")
        assertError("[.5]", line: 1, column: 2, "unexpected character '.'")
        assertError("[+1]", line: 1, column: 2, "unexpected character '+'")
        assertError("1 2", line: 1, column: 3, "unexpected character '2'")
        assertError("[True]", line: 1, column: 2, "unexpected character 'T'")
        assertError("[tru]", line: 1, column: 5, "unexpected character ']'")
        assertError("[nul l]", line: 1, column: 5, "unexpected character ' '")
        assertError("[\u{201C}x\u{201D}]", line: 1, column: 2, "unexpected character '\u{201C}' (U+201C)")
        assertError("[\u{7}]", line: 1, column: 2, "unexpected character U+0007")
    }

    func testNaNInfinityAndCommentsAreRejected() {
        assertError("NaN", line: 1, column: 1, "unexpected character 'N'")
        assertError("[-Infinity]", line: 1, column: 3, "expected a digit, found 'I'")
        assertError("// comment\n1", line: 1, column: 1, "unexpected character '/'")
        assertError("[1 /* comment */]", line: 1, column: 4, "expected ',' or ']', found '/'")
        assertError("{\"a\": 1 # comment\n}", line: 1, column: 9, "expected ',' or '}', found '#'")
    }

    func testUnterminatedString() {
        assertError("[\"abc", line: 1, column: 2, "unterminated string")
        assertError("{\n  \"key", line: 2, column: 3, "unterminated string")
        assertError("\"abc\\", line: 1, column: 1, "unterminated string")
        assertError("\"\\u12", line: 1, column: 1, "unterminated string")
        assertError("\"a\\\"", line: 1, column: 1, "unterminated string")
    }

    func testObjectSyntax() {
        assertError("{\"a\" 1}", line: 1, column: 6, "expected ':' after object key")
        assertError("{\n  \"a\"\n}", line: 3, column: 1, "expected ':' after object key")
        assertError("{\"a\": 1 \"b\": 2}", line: 1, column: 9, "expected ',' or '}', found '\"'")
        assertError("{1: 2}", line: 1, column: 2, "expected a string key, found '1'")
        assertError("{'a': 2}", line: 1, column: 2, "expected a string key, found '''")
        assertError("{\"a\": 1, b: 2}", line: 1, column: 10, "expected a string key, found 'b'")
        assertError("{\"a\": 1]", line: 1, column: 8, "expected ',' or '}', found ']'")
    }

    func testArraySyntax() {
        assertError("[1 2]", line: 1, column: 4, "expected ',' or ']', found '2'")
        assertError("[1}", line: 1, column: 3, "expected ',' or ']', found '}'")
        assertError("[,1]", line: 1, column: 2, "unexpected character ','")
        assertError("[1,,2]", line: 1, column: 4, "unexpected character ','")
    }

    func testTrailingCommas() {
        assertError("[1, 2,]", line: 1, column: 6, "trailing comma is not allowed")
        assertError("{\"a\": 1,\n}", line: 1, column: 8, "trailing comma is not allowed")
        assertError("[[1,\n  ]\n]", line: 1, column: 4, "trailing comma is not allowed")
    }

    func testInvalidEscapes() {
        assertError(#""\q""#, line: 1, column: 2, #"invalid escape '\q'"#)
        assertError(#"["ok", "a\x"]"#, line: 1, column: 10, #"invalid escape '\x'"#)
        assertError(#""\'""#, line: 1, column: 2, #"invalid escape '\''"#)
        assertError("\"\\é\"", line: 1, column: 2, #"invalid escape '\é'"#)
        assertError("\"\\\t\"", line: 1, column: 2, #"invalid escape: '\' followed by U+0009"#)
        assertError(#""\u12G4""#, line: 1, column: 2, #"invalid escape: '\u' must be followed by four hex digits"#)
        assertError(#""\U0041""#, line: 1, column: 2, #"invalid escape '\U'"#)
    }

    func testUnexpectedEndOfFile() {
        assertError("", line: 1, column: 1, "unexpected end of file")
        assertError("  \n ", line: 2, column: 2, "unexpected end of file")
        assertError("[1, 2", line: 1, column: 6, "unexpected end of file")
        assertError("{\"a\":", line: 1, column: 6, "unexpected end of file")
        assertError("{\"a\"", line: 1, column: 5, "unexpected end of file")
        assertError("{", line: 1, column: 2, "unexpected end of file")
        assertError("[\n", line: 2, column: 1, "unexpected end of file")
        assertError("tr", line: 1, column: 3, "unexpected end of file")
        assertError("-", line: 1, column: 2, "unexpected end of file")
        assertError("1.", line: 1, column: 3, "unexpected end of file")
    }

    func testNumberSyntax() {
        assertError("[01]", line: 1, column: 2, "leading zeros are not allowed")
        assertError("-007", line: 1, column: 2, "leading zeros are not allowed")
        assertError("[1.]", line: 1, column: 4, "expected a digit, found ']'")
        assertError("[1e]", line: 1, column: 4, "expected a digit, found ']'")
        assertError("[1e+]", line: 1, column: 5, "expected a digit, found ']'")
        assertError("[-]", line: 1, column: 3, "expected a digit, found ']'")
        assertError("[1.e5]", line: 1, column: 4, "expected a digit, found 'e'")
        assertError("0x10", line: 1, column: 2, "unexpected character 'x'")
        assertError("[1e400]", line: 1, column: 2, "number out of range")
    }

    func testInvalidUTF8() {
        // Inside a string, after a plain prefix.
        assertError(
            [UInt8]("[\"ok\", \"a".utf8) + [0xFF] + [UInt8]("b\"]".utf8),
            line: 1, column: 10, "invalid UTF-8")
        // A stray continuation byte after a two-byte character.
        assertError([0x22] + [UInt8]("é".utf8) + [0x80, 0x22], line: 1, column: 3, "invalid UTF-8")
        // Overlong encoding of "/".
        assertError([0x22, 0xC0, 0xAF, 0x22], line: 1, column: 2, "invalid UTF-8")
        // An encoded UTF-16 surrogate.
        assertError([0x22, 0xED, 0xA0, 0x80, 0x22], line: 1, column: 2, "invalid UTF-8")
        // Above U+10FFFF.
        assertError([0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], line: 1, column: 2, "invalid UTF-8")
        // Truncated at the end of the input.
        assertError([0x22, 0x61, 0xE6, 0x97], line: 1, column: 3, "invalid UTF-8")
        // Truncated before the closing quote, inside a string with escapes.
        assertError([UInt8](#""\n"#.utf8) + [0xE6, 0x22], line: 1, column: 4, "invalid UTF-8")
        // Outside a string, on a later line.
        assertError([UInt8]("[\n  1,\n  ".utf8) + [0xC3, 0x28] + [UInt8]("]".utf8), line: 3, column: 3, "invalid UTF-8")
        // In a key.
        assertError([UInt8]("{\"".utf8) + [0xFE] + [UInt8]("\": 1}".utf8), line: 1, column: 3, "invalid UTF-8")
    }

    func testSyntaxErrorDescription() {
        XCTAssertEqual(
            JSONSyntaxError(line: 3, column: 7, message: "unterminated string").description,
            "3:7: unterminated string")
    }

    // MARK: Byte order mark

    func testByteOrderMarkIsSkipped() {
        let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
        let root = parse(bom + Array("{\"a\": 1}".utf8))
        XCTAssertEqual(root?.line, 1)
        XCTAssertEqual(root?.column, 1)
        XCTAssertEqual(
            members(root),
            [
                JSONNode.Member(key: "a", keyLine: 1, keyColumn: 2, value: JSONNode(value: .number(1), line: 1, column: 7))
            ])
        assertError(bom + Array("[1,]".utf8), line: 1, column: 3, "trailing comma is not allowed")
        assertError(bom, line: 1, column: 1, "unexpected end of file")
        // Only a leading one: elsewhere it is an ordinary (unexpected) character.
        assertError(
            Array("[1, ".utf8) + bom + Array("2]".utf8), line: 1, column: 5,
            "unexpected character '\u{FEFF}' (U+FEFF)")
        assertError(bom + bom + Array("1".utf8), line: 1, column: 1, "unexpected character '\u{FEFF}' (U+FEFF)")
    }

    // MARK: Depth

    func testNestingUpTo512LevelsIsAllowed() {
        let text = String(repeating: "[", count: 512) + "7" + String(repeating: "]", count: 512)
        var node = parse(text)
        var depth = 0
        while case .array(let items)? = node?.value {
            depth += 1
            XCTAssertEqual(items.count, 1)
            node = items.first
        }
        XCTAssertEqual(depth, 512)
        XCTAssertEqual(node, JSONNode(value: .number(7), line: 1, column: 513))
    }

    func testNestingDeeperThan512LevelsIsAnError() {
        assertError(
            String(repeating: "[", count: 513) + String(repeating: "]", count: 513),
            line: 1, column: 513, "nesting deeper than 512 levels")
        assertError(
            String(repeating: "{\"a\":", count: 600), line: 1, column: 512 * 5 + 1,
            "nesting deeper than 512 levels")
        // Far deeper input fails the same way instead of exhausting the stack.
        assertError(String(repeating: "[", count: 1_000_000), line: 1, column: 513, "nesting deeper than 512 levels")
    }

    // MARK: Size

    func testTenMegabyteString() {
        let chunk = Array("rainforest canopy é 🐆 ".utf8)
        let chunkColumns = String(decoding: chunk, as: UTF8.self).unicodeScalars.count
        XCTAssertEqual([chunk.count, chunkColumns], [26, 22])
        var content: [UInt8] = []
        content.reserveCapacity(10_000_000 + chunk.count)
        while content.count < 10_000_000 { content += chunk }
        let repeats = content.count / chunk.count
        let bytes = Array("[\"".utf8) + content + Array("\", 1]".utf8)

        let items = elements(parse(bytes))
        XCTAssertEqual(items.count, 2)
        guard items.count == 2, let text = string(items[0]) else { return }
        XCTAssertEqual(text.utf8.count, content.count)
        XCTAssertTrue(text.utf8.elementsEqual(content))
        // The value after it comes after `["`, the text, and `", `.
        XCTAssertEqual(items[1], JSONNode(value: .number(1), line: 1, column: 2 + repeats * chunkColumns + 4))
    }

    func testTenMegabyteStringWithEscapes() {
        var bytes = Array("\"\\u00e9\\n".utf8)
        bytes += [UInt8](repeating: UInt8(ascii: "x"), count: 10_000_000)
        bytes += Array("\\t\"".utf8)
        let text = string(parse(bytes))
        XCTAssertEqual(text?.utf8.count, 2 + 1 + 10_000_000 + 1)
        XCTAssertEqual(text?.hasPrefix("é\nxxx"), true)
        XCTAssertEqual(text?.hasSuffix("xxx\t"), true)
    }
}
