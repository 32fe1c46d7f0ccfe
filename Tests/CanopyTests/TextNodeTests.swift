import Foundation
import Synchronization
import XCTest
@testable import Canopy
import CanopyTestSupport

final class TextNodeTests: XCTestCase {
    private static let fonts = TestFonts.registry

    private static let lato16 = Font(family: "Lato", size: 16)
    private static let wide = SizeRange(min: .zero, max: CGSize(width: 1000, height: 1000))
    private static let paragraph =
        "The canopy is the upper layer of a forest, formed by the crowns of the trees, "
        + "home to most of the animals that live there."

    override func setUpWithError() throws {
        try MainActor.assumeIsolated { try GraphicsLibrary.initialize() }
        XCTAssertTrue(Self.fonts.families.contains("Lato"), "no Lato in Resources/fonts")
        DisplayScheduler.shared.scale = 1
    }

    override func tearDown() {
        MainActor.assumeIsolated { DisplayScheduler.shared.uninstall() }
        DisplayScheduler.shared.scale = 1
    }

    // MARK: Helpers

    private static func text(_ string: String, size: CGFloat = 16, color: Color = .black) -> AttributedString {
        AttributedString(string, font: Font(family: "Lato", size: size), color: color)
    }

    private static func node(_ string: String, size: CGFloat = 16) -> TextNode {
        let node = TextNode()
        node.fonts = fonts
        node.attributedText = text(string, size: size)
        return node
    }

    /// The layout TextLayout itself gives (the oracle for the node's measurements).
    private static func expected(
        _ string: AttributedString, width: CGFloat, lines: Int = 0,
        truncation: AttributedString? = nil, scale: CGFloat = 1
    ) throws -> TextLayout {
        try TextLayout(
            string, width: width, maximumNumberOfLines: lines, truncationString: truncation,
            scale: scale, fonts: fonts)
    }

    /// How many pixels have any alpha.
    private static func ink(_ bitmap: Bitmap) -> Int {
        var count = 0
        for y in 0..<bitmap.height {
            for x in 0..<bitmap.width where bitmap.pixel(x: x, y: y).a > 0 { count += 1 }
        }
        return count
    }

    // MARK: Sizing

    func testANodeIsSizedByItsText() throws {
        let node = Self.node("Hello, canopy")
        let layout = node.layoutThatFits(Self.wide)
        let oracle = try Self.expected(Self.text("Hello, canopy"), width: 1000)
        XCTAssertEqual(layout.size, oracle.size)
        XCTAssertGreaterThan(layout.size.width, 50)
        XCTAssertEqual(node.lineCount, 1)
        XCTAssertFalse(node.isTruncated)

        // Narrow: the text wraps, and the node is as tall as its lines.
        let narrow = node.layoutThatFits(SizeRange(min: .zero, max: CGSize(width: 60, height: 1000)))
        let wrapped = try Self.expected(Self.text("Hello, canopy"), width: 60)
        XCTAssertEqual(narrow.size, wrapped.size)
        XCTAssertLessThanOrEqual(narrow.size.width, 60)
        XCTAssertEqual(node.lineCount, 2)
    }

    func testTheRangeClampsTheSizeAndEmptyTextIsZero() {
        let node = Self.node("Hello")
        let exact = node.layoutThatFits(SizeRange(exactly: CGSize(width: 200, height: 40)))
        XCTAssertEqual(exact.size, CGSize(width: 200, height: 40))
        let empty = TextNode()
        XCTAssertEqual(empty.layoutThatFits(Self.wide).size, .zero)
        XCTAssertEqual(empty.lineCount, 0)
        XCTAssertFalse(empty.isTruncated)
        XCTAssertNil(empty.layoutThatFits(Self.wide).ascender)
    }

    func testMaximumNumberOfLinesTruncates() throws {
        let node = Self.node(Self.paragraph)
        let range = SizeRange(min: .zero, max: CGSize(width: 150, height: 1000))
        let unlimited = node.layoutThatFits(range)
        XCTAssertGreaterThan(node.lineCount, 2)
        XCTAssertFalse(node.isTruncated)

        node.maximumNumberOfLines = 2
        let limited = node.layoutThatFits(range)
        XCTAssertEqual(node.lineCount, 2)
        XCTAssertTrue(node.isTruncated)
        XCTAssertLessThan(limited.size.height, unlimited.size.height)
        let oracle = try Self.expected(Self.text(Self.paragraph), width: 150, lines: 2)
        XCTAssertEqual(limited.size, oracle.size)
        XCTAssertTrue(node.currentLayout()?.lines.last?.text.hasSuffix("\u{2026}") ?? false, "the default is an ellipsis")

        node.truncationAttributedText = AttributedString(" (more)")
        _ = node.layoutThatFits(range)
        XCTAssertTrue(node.currentLayout()?.lines.last?.text.hasSuffix(" (more)") ?? false)
        XCTAssertEqual(node.lineCount, 2)
    }

    func testLineCountFollowsTheNodesWidthOnceItHasAFrame() {
        let node = Self.node(Self.paragraph)
        let layout = node.layoutThatFits(SizeRange(min: .zero, max: CGSize(width: 2000, height: 1000)))
        XCTAssertEqual(node.lineCount, 1, "measured on one line")
        node.frame = CGRect(x: 0, y: 0, width: layout.size.width, height: layout.size.height)
        XCTAssertEqual(node.lineCount, 1)
        node.frame = CGRect(x: 0, y: 0, width: 150, height: 200)
        XCTAssertGreaterThan(node.lineCount, 2, "the layout at the frame's width")
    }

    func testChangingTheTextAfterLayoutMeasuresAgain() {
        let node = Self.node("Short")
        let stack = StackLayoutSpec(direction: .vertical, alignItems: .start, children: [node])
        let before = stack.layoutThatFits(Self.wide)
        let generation = LayoutCache.generation
        node.attributedText = Self.text("A much longer line of text")
        XCTAssertGreaterThan(LayoutCache.generation, generation, "a measured node's new text invalidates layouts")
        let after = stack.layoutThatFits(Self.wide)
        XCTAssertGreaterThan(after.size.width, before.size.width, "the stack measured the new text")
        XCTAssertEqual(after.sublayouts.first?.size, node.layoutThatFits(Self.wide).size)

        // The same text again changes nothing.
        let unchanged = LayoutCache.generation
        node.attributedText = Self.text("A much longer line of text")
        node.maximumNumberOfLines = 0
        XCTAssertEqual(LayoutCache.generation, unchanged)
    }

    func testConfiguringANodeNeverLaidOutInvalidatesNoLayouts() {
        let generation = LayoutCache.generation
        let node = TextNode(attributedText: Self.text("New"))
        node.fonts = Self.fonts
        node.maximumNumberOfLines = 3
        node.shadow = TextShadow()
        XCTAssertEqual(LayoutCache.generation, generation)
    }

    func testMeasuringFromManyThreadsGivesTheSameLayouts() throws {
        let widths: [CGFloat] = [60, 90, 150, 240, 400, 1000]
        let expected = try widths.map { try Self.expected(Self.text(Self.paragraph), width: $0).size }
        let node = Self.node(Self.paragraph)
        let results = Mutex<[Int: CGSize]>([:])
        DispatchQueue.concurrentPerform(iterations: 48) { i in
            let width = widths[i % widths.count]
            let size = node.layoutThatFits(SizeRange(min: .zero, max: CGSize(width: width, height: 1000))).size
            results.withLock { results in
                if let seen = results[i % widths.count], seen != size { results[-1] = size }
                results[i % widths.count] = size
            }
        }
        let sizes = results.withLock { $0 }
        XCTAssertNil(sizes[-1], "every thread measured the same size")
        for (index, size) in expected.enumerated() {
            XCTAssertEqual(sizes[index], size, "width \(widths[index])")
        }
    }

    // MARK: Baselines

    func testTheLayoutCarriesTheBaselinesWithTexturesSigns() throws {
        let node = Self.node(Self.paragraph)
        let layout = node.layoutThatFits(SizeRange(min: .zero, max: CGSize(width: 150, height: 1000)))
        let oracle = try Self.expected(Self.text(Self.paragraph), width: 150)
        XCTAssertEqual(layout.ascender, oracle.firstBaseline)
        XCTAssertEqual(layout.descender, oracle.lastBaseline - oracle.size.height)
        XCTAssertLessThan(layout.descender ?? 0, 0, "negative, as a font's descender")
        XCTAssertGreaterThan(layout.ascender ?? 0, 10)

        // Taller than its text: the text sits at the top, so the last baseline is further up.
        let tall = node.layoutThatFits(
            SizeRange(
                min: CGSize(width: 0, height: oracle.size.height + 20),
                max: CGSize(width: 150, height: 1000)))
        XCTAssertEqual(tall.descender, oracle.lastBaseline - oracle.size.height - 20)
    }

    func testBaselineAlignmentInAHorizontalStack() throws {
        let small = Self.node("small", size: 12)
        let big = Self.node("Big", size: 30)
        let stack = StackLayoutSpec(direction: .horizontal, spacing: 4, alignItems: .baselineFirst, children: [small, big])
        let layout = stack.layoutThatFits(Self.wide)
        let smallLayout = try XCTUnwrap(layout.sublayouts.first { $0.element === small })
        let bigLayout = try XCTUnwrap(layout.sublayouts.first { $0.element === big })
        let smallBaseline = smallLayout.position.y + (smallLayout.ascender ?? .nan)
        let bigBaseline = bigLayout.position.y + (bigLayout.ascender ?? .nan)
        XCTAssertEqual(smallBaseline, bigBaseline, "the first baselines line up")
        XCTAssertGreaterThan(smallLayout.position.y, 0, "the small text moved down to the big one's baseline")
        XCTAssertEqual(bigLayout.position.y, 0)
        XCTAssertEqual(layout.ascender, bigBaseline, "the stack reports the shared baseline")

        // Last baselines: two lines of small text beside one line of big text.
        let twoLines = Self.node("one two", size: 12)
        let oneWord = try ["one", "two"].map { try Self.expected(Self.text($0, size: 12), width: 1000).size.width }.max()!
        twoLines.style.width = .points(oneWord + 2)
        let last = StackLayoutSpec(direction: .horizontal, alignItems: .baselineLast, children: [twoLines, big])
        let lastLayout = last.layoutThatFits(Self.wide)
        let a = try XCTUnwrap(lastLayout.sublayouts.first { $0.element === twoLines })
        let b = try XCTUnwrap(lastLayout.sublayouts.first { $0.element === big })
        XCTAssertEqual(twoLines.lineCount, 2)
        XCTAssertEqual(
            a.frame.maxY + (a.descender ?? .nan), b.frame.maxY + (b.descender ?? .nan),
            "the last baselines line up")
    }

    // MARK: Shadows

    func testANodeShadowPadsTheNodeAndIsDrawnUnderAllText() throws {
        let node = Self.node("Shade")
        let plain = node.layoutThatFits(Self.wide)
        node.shadow = TextShadow(color: Color(red: 1, green: 0, blue: 0), offset: CGSize(width: 2, height: 3), blurRadius: 0)
        XCTAssertEqual(node.shadowPadding, EdgeInsets(top: 0, left: 0, bottom: 3, right: 2))
        let shaded = node.layoutThatFits(Self.wide)
        XCTAssertEqual(shaded.size, CGSize(width: plain.size.width + 2, height: plain.size.height + 3))
        XCTAssertEqual(shaded.ascender, plain.ascender)

        let blurred = TextShadow(color: .black, offset: .zero, blurRadius: 2)
        node.shadow = blurred
        XCTAssertEqual(node.shadowPadding, EdgeInsets(all: 6), "three blur radii on every side")

        // A run's own shadow wins over the node's.
        var mixed = Self.text("own") + Self.text(" none")
        let own = TextShadow(color: .blue, offset: CGSize(width: 0, height: 1), blurRadius: 0)
        mixed[mixed.range(of: "own")!].canopy.shadow = own
        let applied = TextNode.applying(blurred, to: mixed)
        let shadows = applied.runs[AttributeScopes.CanopyAttributes.ShadowAttribute.self].map(\.0)
        XCTAssertEqual(shadows, [own, blurred])

        MainActor.assumeIsolated {
            let (loop, _) = TestLoop.make(scale: 1)
            node.shadow = TextShadow(
                color: Color(red: 1, green: 0, blue: 0), offset: CGSize(width: 2, height: 3),
                blurRadius: 0)
            node.layoutAndApply(Self.wide)
            let layer = node.layer
            TestLoop.turn(loop) { layer.contents != nil }
            guard let contents = layer.contents else { return }
            var red = 0
            for y in 0..<contents.height {
                for x in 0..<contents.width {
                    let p = contents.pixel(x: x, y: y)
                    if p.r > 200 && p.g < 60 && p.b < 60 { red += 1 }
                }
            }
            XCTAssertGreaterThan(red, 10, "the shadow is drawn")
        }
    }

    // MARK: Drawing

    func testDrawingFillsABitmapOfTheBoundsAtTheDisplayScale() {
        MainActor.assumeIsolated {
            let (loop, _) = TestLoop.make(scale: 2)
            let node = Self.node(Self.paragraph)
            let layout = node.layoutAndApply(SizeRange(min: .zero, max: CGSize(width: 151, height: 1000)))
            XCTAssertEqual(layout.size.width * 2, (layout.size.width * 2).rounded(), "measured in whole pixels at 2x")
            let layer = node.layer
            TestLoop.turn(loop) { layer.contents != nil }
            guard let contents = layer.contents else { return }
            XCTAssertEqual(contents.width, Int((node.bounds.width * 2).rounded(.up)))
            XCTAssertEqual(contents.height, Int((node.bounds.height * 2).rounded(.up)))
            XCTAssertGreaterThan(Self.ink(contents), 500, "the text is drawn")
        }
    }

    func testWhatIsDrawnIsTheLayoutThatWasMeasured() throws {
        try MainActor.assumeIsolated {
            DisplayScheduler.shared.scale = 2
            let node = Self.node(Self.paragraph)
            let measured = node.layoutThatFits(SizeRange(min: .zero, max: CGSize(width: 180, height: 1000)))
            node.frame = CGRect(origin: .zero, size: measured.size)
            let parameters = node.drawParameters()  // typed: the compiler checks what the cast did
            let snapshot = try XCTUnwrap(parameters.measured, "the snapshot carries the measured layout")
            XCTAssertEqual(snapshot.scale, 2)
            XCTAssertEqual(snapshot.size.height, measured.size.height)
            XCTAssertEqual(snapshot.lines.map(\.text), node.currentLayout()?.lines.map(\.text))

            // Drawing the snapshot gives the pixels of a layout made at the node's width.
            let drawn = try XCTUnwrap(
                TextNode.display(
                    parameters, size: measured.size, scale: 2,
                    isCancelled: { false }))
            let fresh = try Self.expected(Self.text(Self.paragraph), width: measured.size.width, scale: 2)
            XCTAssertEqual(fresh.lines.map(\.text), snapshot.lines.map(\.text))
            let context = GraphicsContext(size: measured.size, scale: 2)
            fresh.draw(in: context, at: .zero)
            XCTAssertEqual(drawn.pixels, context.makeBitmap().pixels)
        }
    }

    func testTheWorkerDrawsFromTheSnapshotNotTheNode() throws {
        try MainActor.assumeIsolated {
            let node = Self.node("Snapshot")
            let size = node.layoutThatFits(Self.wide).size
            node.frame = CGRect(origin: .zero, size: size)
            let parameters = node.drawParameters()
            node.attributedText = AttributedString()
            let drawn = try XCTUnwrap(
                TextNode.display(
                    parameters, size: size, scale: 1,
                    isCancelled: { false }))
            XCTAssertGreaterThan(Self.ink(drawn), 50, "the text taken in the snapshot")
            let emptied = TextNode.display(node.drawParameters(), size: size, scale: 1, isCancelled: { false })
            XCTAssertEqual(emptied.map { Self.ink($0) }, 0, "the node's new (empty) text draws nothing")
            XCTAssertNil(
                TextNode.display(parameters, size: size, scale: 1, isCancelled: { true }),
                "a cancelled drawing gives no bitmap")
        }
    }

    func testChangingTheTextRedisplays() {
        MainActor.assumeIsolated {
            let (loop, _) = TestLoop.make(scale: 1)
            let node = Self.node("First")
            node.layoutAndApply(Self.wide)
            let layer = node.layer
            TestLoop.turn(loop) { layer.contents != nil }
            let first = layer.contents
            node.attributedText = Self.text("Second, longer")
            node.layoutAndApply(Self.wide)
            TestLoop.turn(loop) { layer.contents !== first && layer.contents != nil }
            XCTAssertEqual(layer.contents?.width, Int(node.bounds.width.rounded(.up)))
            XCTAssertGreaterThan(layer.contents?.width ?? 0, first?.width ?? 0)
        }
    }

    func testATextNodeInsideARasterizedSubtreeDrawsAtItsOwnWidth() {
        MainActor.assumeIsolated {
            let (loop, _) = TestLoop.make(scale: 1)
            let parent = DisplayNode()
            parent.rasterizesSubtree = true
            let node = Self.node("Centred")
            var centred = Self.text("Centred")
            centred.canopy.paragraphStyle = ParagraphStyle(alignment: .center)
            node.attributedText = centred
            let size = node.layoutThatFits(Self.wide).size
            parent.frame = CGRect(x: 0, y: 0, width: size.width + 100, height: size.height)
            node.frame = CGRect(x: 100, y: 0, width: size.width, height: size.height)
            parent.addSubnode(node)
            let layer = parent.layer
            TestLoop.turn(loop) { layer.contents != nil }
            guard let contents = layer.contents else { return }
            var left = Int.max
            for y in 0..<contents.height {
                for x in 0..<contents.width where contents.pixel(x: x, y: y).a > 0 { left = min(left, x) }
            }
            XCTAssertGreaterThanOrEqual(left, 100, "nothing outside the node's frame")
            XCTAssertLessThan(left, 104, "the centred line starts at the node's left edge: its box is the node's")
        }
    }
}
