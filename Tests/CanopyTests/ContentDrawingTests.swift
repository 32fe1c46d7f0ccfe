import CanopyTestSupport
import Foundation
import Synchronization
import XCTest

@testable import Canopy

/// A text node that makes its bitmap its own way: a solid red one.
private final class RedTextNode: TextNode, @unchecked Sendable {
    override class func display(
        _ p: Parameters, size: CGSize, scale: CGFloat,
        isCancelled: @Sendable () -> Bool
    ) -> Bitmap? {
        let context = GraphicsContext(size: size, scale: scale)
        context.fill(CGRect(origin: .zero, size: size), with: Color(red: 1, green: 0, blue: 0, alpha: 1))
        return context.makeBitmap()
    }
}

/// An image node that draws green over its bounds instead of its image.
private final class GreenImageNode: ImageNode, @unchecked Sendable {
    override class func draw(_ p: Parameters, in context: GraphicsContext, isCancelled: @Sendable () -> Bool) {
        context.fill(CGRect(origin: .zero, size: p.boundsSize), with: Color(red: 0, green: 1, blue: 0, alpha: 1))
    }
}

/// A plain text node's subclass, drawing as a text node does.
private final class PlainTextSubclass: TextNode, @unchecked Sendable {}

/// Counts the displays that went through it whose bitmap has a given size (other tests' nodes
/// may still be waiting to display when it is installed).
private final class CountingHook: DisplayDrawHook {
    let width: Int, height: Int
    let calls = Atomic<Int>(0)

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    func run<T>(isCancelled: @Sendable () -> Bool, _ draw: () -> T?) -> T? {
        let result = draw()
        if let bitmap = result as? Bitmap, bitmap.width == width, bitmap.height == height {
            calls.add(1, ordering: .relaxed)
        }
        return result
    }
}

/// A node's drawing is its class's: subclasses of the drawing nodes inherit it or replace it,
/// a node that adopts nothing draws nothing, and a real display goes through the draw hook.
final class ContentDrawingTests: XCTestCase {
    override func setUpWithError() throws {
        try GraphicsLibrary.initialize()  // the text nodes measure with SDL_ttf
    }

    override func tearDown() {
        MainActor.assumeIsolated {
            DisplayScheduler.shared.drawHook = nil
            DisplayScheduler.shared.uninstall()
        }
    }

    func testASubclassReplacesItsClassesDisplayOrDrawing() throws {
        try MainActor.assumeIsolated {
            let text = RedTextNode()
            text.attributedText = AttributedString("Hi", font: Font(family: TestFonts.family, size: 16), color: .black)
            text.fonts = TestFonts.registry
            text.frame = CGRect(x: 0, y: 0, width: 20, height: 10)
            XCTAssertTrue(text.drawsContents)
            let drawn = try XCTUnwrap(
                text.captureOwnDrawing()?.display(
                    size: CGSize(width: 20, height: 10), scale: 1,
                    isCancelled: { false }))
            let p = drawn.pixel(x: 10, y: 5)
            XCTAssertEqual([p.r, p.g, p.b, p.a], [255, 0, 0, 255], "the subclass's display, not TextNode's")

            let image = GreenImageNode()
            image.frame = CGRect(x: 0, y: 0, width: 8, height: 8)
            let context = GraphicsContext(size: CGSize(width: 8, height: 8), scale: 1)
            try XCTUnwrap(image.captureOwnDrawing()).draw(in: context, isCancelled: { false })
            let q = context.makeBitmap().pixel(x: 4, y: 4)
            XCTAssertEqual([q.r, q.g, q.b, q.a], [0, 255, 0, 255], "the subclass's drawing, not ImageNode's")
        }
    }

    func testASubclassThatChangesNothingDrawsAsItsClassAndAPlainNodeDrawsNothing() throws {
        try MainActor.assumeIsolated {
            let text = PlainTextSubclass()
            text.attributedText = AttributedString("Hi", font: Font(family: TestFonts.family, size: 16), color: .black)
            text.fonts = TestFonts.registry
            let size = text.layoutThatFits(SizeRange(min: .zero, max: CGSize(width: 200, height: 100))).size
            XCTAssertGreaterThan(size.width, 0, "the text measured")
            text.frame = CGRect(origin: .zero, size: size)
            let drawn = try XCTUnwrap(text.captureOwnDrawing()?.display(size: size, scale: 1, isCancelled: { false }))
            let inked = (0..<drawn.height).contains { y in (0..<drawn.width).contains { x in drawn.pixel(x: x, y: y).a > 128 } }
            XCTAssertTrue(inked, "TextNode's drawing, inherited")

            let plain = DisplayNode()
            XCTAssertFalse(plain.drawsContents)
            XCTAssertNil(plain.captureOwnDrawing())
        }
    }

    func testARealDisplayGoesThroughTheDrawHook() {
        MainActor.assumeIsolated {
            let (loop, _) = TestLoop.make()
            let hook = CountingHook(width: 6, height: 6)
            DisplayScheduler.shared.drawHook = hook
            let node = GreenImageNode()
            node.frame = CGRect(x: 0, y: 0, width: 6, height: 6)
            node.rasterizesSubtree = true  // its display draws into a context of its bounds
            let layer = node.layer
            TestLoop.turn(loop) { layer.contents != nil }
            XCTAssertEqual(hook.calls.load(ordering: .relaxed), 1, "the display ran through the hook, once")
        }
    }

    // MARK: Opaque nodes

    /// A node that draws a translucent red square in its top-left quarter and nothing else.
    private final class CornerNode: DisplayNode, ContentDrawing, @unchecked Sendable {
        func drawParameters() -> CGSize { bounds.size }
        class func draw(_ size: CGSize, in context: GraphicsContext, isCancelled: @Sendable () -> Bool) {
            context.fill(
                CGRect(x: 0, y: 0, width: size.width / 2, height: size.height / 2),
                with: Color(red: 1, green: 0, blue: 0, alpha: 0.5))
        }
    }

    /// Displays `node` in a test loop; its bitmap.
    @MainActor
    private static func displayed(_ node: DisplayNode) throws -> Bitmap {
        let (loop, _) = TestLoop.make()
        let layer = node.layer
        TestLoop.turn(loop) { layer.contents != nil }
        return try XCTUnwrap(layer.contents)
    }

    func testAnOpaqueNodesBitmapStartsFromItsBackgroundAndIsOpaque() throws {
        try MainActor.assumeIsolated {
            for rasterizes in [false, true] {
                let node = CornerNode()
                node.frame = CGRect(x: 0, y: 0, width: 8, height: 8)
                node.backgroundColor = Color(red: 0, green: 0, blue: 1)
                node.rasterizesSubtree = rasterizes
                node.isOpaque = true
                let bitmap = try Self.displayed(node)
                XCTAssertTrue(bitmap.isOpaque, "rasterizing: \(rasterizes)")
                XCTAssertTrue(bitmap.pixelsAreOpaque, "rasterizing: \(rasterizes)")
                // Half red over the blue background (blue 127.5, rounded either way), and the
                // background where nothing is drawn.
                let corner = bitmap.pixel(x: 1, y: 1), rest = bitmap.pixel(x: 6, y: 6)
                XCTAssertEqual([corner.r, corner.g, corner.a], [128, 0, 255], "rasterizing: \(rasterizes)")
                XCTAssert((127...128).contains(corner.b), "rasterizing: \(rasterizes): \(corner)")
                XCTAssertEqual([rest.r, rest.g, rest.b, rest.a], [0, 0, 255, 255], "rasterizing: \(rasterizes)")
            }
            // Not opaque: transparent where nothing is drawn, and not said to be opaque.
            let node = CornerNode()
            node.frame = CGRect(x: 0, y: 0, width: 8, height: 8)
            node.backgroundColor = Color(red: 0, green: 0, blue: 1)
            let bitmap = try Self.displayed(node)
            XCTAssertFalse(bitmap.isOpaque)
            XCTAssertEqual(bitmap.pixel(x: 6, y: 6).a, 0)
        }
    }

    func testAnOpaqueNodeWithoutAnOpaqueBackgroundStartsFromBlack() throws {
        try MainActor.assumeIsolated {
            let node = CornerNode()
            node.frame = CGRect(x: 0, y: 0, width: 8, height: 8)
            node.backgroundColor = Color(red: 0, green: 1, blue: 0, alpha: 0.5)  // over black: (0, 128, 0)
            node.rasterizesSubtree = true
            node.isOpaque = true
            let bitmap = try Self.displayed(node)
            let rest = bitmap.pixel(x: 6, y: 6)
            XCTAssertEqual([rest.r, rest.g, rest.b, rest.a], [0, 128, 0, 255])
            XCTAssertTrue(bitmap.pixelsAreOpaque)
        }
    }
}
