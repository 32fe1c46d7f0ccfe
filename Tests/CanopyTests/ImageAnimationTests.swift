import CanopyTestSupport
import Foundation
import XCTest
@testable import Canopy

/// Animated images in image nodes: they play while the node is visible, each frame at its time by
/// the frame loop's clock (a clock the test moves, so times are checked exactly), a frame or two
/// decoded ahead and no more; they stop and let go of their decoder outside the visible range,
/// hold still when paused, and keep their first frame where they cannot play.
final class ImageAnimationTests: XCTestCase {
    /// Red 0.1 s, green 0.2 s, blue 0.15 s.
    private static let colours: [[UInt8]] = [[255, 0, 0, 255], [0, 255, 0, 255], [0, 0, 255, 255]]
    private static let durations: [TimeInterval] = [0.1, 0.2, 0.15]

    private var scratch: URL!

    override func setUpWithError() throws {
        try MainActor.assumeIsolated { try GraphicsLibrary.initialize() }
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("ImageAnimationTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    }

    override func tearDown() {
        MainActor.assumeIsolated { DisplayScheduler.shared.uninstall() }
        if let scratch { try? FileManager.default.removeItem(at: scratch) }
    }

    private func writeAnimation(_ name: String, format: AnimationWriter.Format, loops: Int) throws -> String {
        let frames = Self.colours.map {
            Bitmap(
                width: 40, height: 30,
                fill: Color(red: CGFloat($0[0]) / 255, green: CGFloat($0[1]) / 255, blue: CGFloat($0[2]) / 255))
        }
        let path = scratch.appendingPathComponent(name).path
        try AnimationWriter.write(frames, durations: Self.durations, loops: loops, format: format, to: path)
        return path
    }

    private static func colour(_ bitmap: Bitmap?) -> [UInt8] {
        guard let bitmap else { return [] }
        let p = bitmap.pixel(x: bitmap.width / 2, y: bitmap.height / 2)
        return [p.r, p.g, p.b, p.a]
    }

    private static let visible: InterfaceState = [.preload, .display, .visible]

    /// A time the tests move by hand, which the animations read instead of the turns' own.
    private final class TestClock {
        var now: TimeInterval
        init(_ now: TimeInterval) { self.now = now }
    }

    /// A frame loop with the display scheduler installed, its animations timed by a test clock
    /// starting at `start`.
    @MainActor
    private static func makeLoop(at start: TimeInterval) throws -> (FrameLoop, ImageAnimations, TestClock) {
        let (loop, _) = TestLoop.make()
        let animations = try XCTUnwrap(DisplayScheduler.shared.imageAnimations)
        let clock = TestClock(start)
        animations.clock = { clock.now }
        return (loop, animations, clock)
    }

    /// A node of `path`, 40 x 30, loaded on `loop`'s scheduler, its first display landed.
    @MainActor
    private static func displayedNode(_ path: String, loop: FrameLoop, configure: (ImageNode) -> Void = { _ in }) -> ImageNode {
        let node = ImageNode()
        node.imagePath = path
        node.frame = CGRect(x: 0, y: 0, width: 40, height: 30)
        configure(node)
        let layer = node.layer
        TestLoop.turn(loop) { layer.contents != nil }
        return node
    }

    /// Turns `loop` until `node`'s player has made the frames it makes ahead (or stopped).
    @MainActor
    private static func turnUntilFramesAreReady(_ loop: FrameLoop, _ animations: ImageAnimations, _ node: ImageNode) {
        TestLoop.turn(
            loop,
            until: {
                guard let player = animations.player(of: node) else { return true }
                return player.readyCount == AnimationPlayer.framesAhead
            }, "the frames ahead were never made")
    }

    // MARK: Playing by time

    func testAGIFAndAWebPPlayEachFrameAtItsTimeForThePlaysTheFileAsks() throws {
        for (name, format) in [("three.gif", AnimationWriter.Format.gif), ("three.webp", .webp(quality: 100))] {
            let path = try writeAnimation(name, format: format, loops: 2)
            try MainActor.assumeIsolated {
                let (loop, animations, clock) = try Self.makeLoop(at: 1000)
                defer { DisplayScheduler.shared.uninstall() }
                let node = Self.displayedNode(path, loop: loop)
                let layer = node.layer
                XCTAssertEqual(Self.colour(layer.contents), Self.colours[0], "\(name): the display shows the first frame")
                XCTAssertNotNil(node.animationPlan, name)
                XCTAssertEqual(animations.playingCount, 0, "\(name): not visible, not playing")

                node.recursivelySetInterfaceState(Self.visible)
                XCTAssertEqual(animations.playingCount, 1, name)
                // The display shows the first frame from now; the player's second follows.
                var shown = 1
                var start = clock.now
                for play in 0..<2 {
                    for index in 0..<3 {
                        if play == 0 && index == 0 { continue }  // the display's
                        let previous = (index + 2) % 3
                        let due = start + Self.durations[previous]
                        Self.turnUntilFramesAreReady(loop, animations, node)
                        // Just before its time the frame before holds; at its time this one shows.
                        clock.now = due - 0.001
                        for _ in 0..<3 { loop.runTurn() }
                        XCTAssertEqual(
                            Self.colour(layer.contents), Self.colours[previous], "\(name) play \(play) before frame \(index)")
                        clock.now = due
                        loop.runTurn()
                        XCTAssertEqual(Self.colour(layer.contents), Self.colours[index], "\(name) play \(play) frame \(index)")
                        shown += 1
                        start = due
                        if let player = animations.player(of: node) {
                            XCTAssertLessThanOrEqual(
                                player.framesDecoded, shown + AnimationPlayer.framesAhead,
                                "\(name): frames are made just ahead of their time")
                        }
                    }
                }
                // Two plays done: it ends on the last frame and lets go of the decoder.
                XCTAssertEqual(animations.playingCount, 0, name)
                clock.now += 10
                for _ in 0..<5 { loop.runTurn() }
                XCTAssertEqual(Self.colour(layer.contents), Self.colours[2], name)
                XCTAssertEqual(animations.framesShown, 5, "\(name): the display showed the first")
            }
        }
    }

    // MARK: The visible range

    func testLeavingTheVisibleRangeStopsAndReleasesTheAnimationAndComingBackStartsIt() throws {
        let path = try writeAnimation("forever.gif", format: .gif, loops: 0)
        try MainActor.assumeIsolated {
            let (loop, animations, clock) = try Self.makeLoop(at: 0)
            let node = Self.displayedNode(path, loop: loop)
            let layer = node.layer
            node.recursivelySetInterfaceState(Self.visible)
            Self.turnUntilFramesAreReady(loop, animations, node)
            clock.now = 0.1
            loop.runTurn()
            XCTAssertEqual(Self.colour(layer.contents), Self.colours[1])
            let player = try XCTUnwrap(animations.player(of: node))

            node.recursivelySetInterfaceState([.preload, .display])
            XCTAssertEqual(animations.playingCount, 0)
            XCTAssertTrue(player.isStopped)
            XCTAssertEqual(player.readyCount, 0, "its frames are released")
            let held = layer.contents
            clock.now = 100
            for _ in 0..<10 { loop.runTurn() }
            XCTAssertTrue(layer.contents === held, "an animation out of sight does not change")

            // Back in sight: it starts over, the first frame's time, then the second.
            node.recursivelySetInterfaceState(Self.visible)
            Self.turnUntilFramesAreReady(loop, animations, node)
            clock.now = 100.099
            for _ in 0..<3 { loop.runTurn() }
            XCTAssertTrue(layer.contents === held)
            clock.now = 100.1
            loop.runTurn()
            XCTAssertFalse(layer.contents === held)
            XCTAssertEqual(Self.colour(layer.contents), Self.colours[1])
        }
    }

    // MARK: Pausing

    func testPausingHoldsEveryAnimationAndAnimatedImagePausedHoldsOne() throws {
        let path = try writeAnimation("paused.webp", format: .webp(quality: 100), loops: 0)
        try MainActor.assumeIsolated {
            let (loop, animations, clock) = try Self.makeLoop(at: 0)
            let first = Self.displayedNode(path, loop: loop)
            let second = Self.displayedNode(path, loop: loop)
            for node in [first, second] { node.recursivelySetInterfaceState(Self.visible) }
            Self.turnUntilFramesAreReady(loop, animations, first)
            Self.turnUntilFramesAreReady(loop, animations, second)

            animations.isPaused = true
            clock.now = 5
            for _ in 0..<10 { loop.runTurn() }
            XCTAssertEqual(Self.colour(first.layer.contents), Self.colours[0])
            XCTAssertEqual(Self.colour(second.layer.contents), Self.colours[0])

            // Resumed: the next frame shows at once, then each at its time again.
            animations.isPaused = false
            first.animatedImagePaused = true
            loop.runTurn()
            XCTAssertEqual(Self.colour(first.layer.contents), Self.colours[0], "held by its own pause")
            XCTAssertEqual(Self.colour(second.layer.contents), Self.colours[1])
            Self.turnUntilFramesAreReady(loop, animations, second)
            clock.now = 5.2
            loop.runTurn()
            XCTAssertEqual(Self.colour(second.layer.contents), Self.colours[2])
            XCTAssertEqual(Self.colour(first.layer.contents), Self.colours[0])
        }
    }

    func testAnAnimationThatStartsPausedMakesNoFrameUntilItPlays() throws {
        let path = try writeAnimation("waiting.gif", format: .gif, loops: 0)
        try MainActor.assumeIsolated {
            let (loop, animations, clock) = try Self.makeLoop(at: 0)
            animations.isPaused = true
            let node = Self.displayedNode(path, loop: loop)
            node.recursivelySetInterfaceState(Self.visible)
            let player = try XCTUnwrap(animations.player(of: node))
            clock.now = 5
            for _ in 0..<10 {
                loop.runTurn()
                Thread.sleep(forTimeInterval: 0.005)
            }
            XCTAssertEqual(player.framesDecoded, 0, "no decoder opened, no frame made while paused")
            animations.isPaused = false
            Self.turnUntilFramesAreReady(loop, animations, node)
            XCTAssertGreaterThan(player.framesDecoded, 0)
        }
    }

    // MARK: Where an animation cannot or should not play

    func testAnAnimationInARasterizedSubtreeOrWithAnimatesImageOffShowsItsFirstFrame() throws {
        let path = try writeAnimation("still.gif", format: .gif, loops: 0)
        try MainActor.assumeIsolated {
            let (loop, _) = TestLoop.make()
            let animations = try XCTUnwrap(DisplayScheduler.shared.imageAnimations)
            let off = Self.displayedNode(path, loop: loop) { $0.animatesImage = false }
            off.recursivelySetInterfaceState(Self.visible)
            XCTAssertNil(off.animationPlan)
            XCTAssertEqual(animations.playingCount, 0)

            let parent = DisplayNode()
            parent.rasterizesSubtree = true
            parent.frame = CGRect(x: 0, y: 0, width: 40, height: 30)
            let child = ImageNode()
            child.imagePath = path
            child.frame = parent.frame
            parent.addSubnode(child)
            let layer = parent.layer
            TestLoop.turn(loop) { layer.contents != nil }
            let drawn = layer.contents
            parent.recursivelySetInterfaceState(Self.visible)
            XCTAssertNil(child.animationPlan, "drawn into its ancestor's bitmap, it has no layer to change")
            XCTAssertEqual(animations.playingCount, 0)
            for _ in 0..<20 {
                loop.runTurn()
                Thread.sleep(forTimeInterval: 0.01)
            }
            XCTAssertTrue(layer.contents === drawn, "nothing redraws it")
            XCTAssertEqual(Self.colour(layer.contents), Self.colours[0])
            XCTAssertNil(child.layerIfLoaded?.contents)
        }
    }

    func testANodeThatDisplaysOnTheMainThreadPlaysToo() throws {
        let path = try writeAnimation("main.gif", format: .gif, loops: 1)
        try MainActor.assumeIsolated {
            let (loop, animations, clock) = try Self.makeLoop(at: 0)
            let node = Self.displayedNode(path, loop: loop) { $0.displaysAsynchronously = false }
            let layer = node.layer
            node.recursivelySetInterfaceState(Self.visible)
            var seen: [[UInt8]] = [Self.colour(layer.contents)]
            TestLoop.turn(
                loop,
                until: {
                    clock.now += 0.05
                    let colour = Self.colour(layer.contents)
                    if colour != seen.last { seen.append(colour) }
                    return animations.playingCount == 0
                }, "the animation never ended")
            XCTAssertEqual(seen, Self.colours, "every frame once, then it holds the last")
        }
    }

    func testAFileOfOneFrameAfterAllStopsAtOnce() throws {
        // A two-frame GIF cut inside its second image: the header sees a second image begin, the
        // decoder finds one complete frame.
        let whole = try writeAnimation("whole.gif", format: .gif, loops: 0)
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: whole)))
        let controls = (0..<(bytes.count - 2)).filter { bytes[$0] == 0x21 && bytes[$0 + 1] == 0xF9 && bytes[$0 + 2] == 4 }
        let path = scratch.appendingPathComponent("cut.gif").path
        // The second control block (8 bytes), its image descriptor (10), and a little of its table.
        try Data(bytes.prefix(controls[1] + 8 + 10 + 30)).write(to: URL(fileURLWithPath: path))
        XCTAssertTrue(try ImageHeader.read(contentsOf: path).isAnimated)
        try MainActor.assumeIsolated {
            let (loop, animations, clock) = try Self.makeLoop(at: 0)
            let node = Self.displayedNode(path, loop: loop)
            let shown = node.layer.contents
            node.recursivelySetInterfaceState(Self.visible)
            XCTAssertEqual(animations.playingCount, 1)
            TestLoop.turn(loop, until: { animations.playingCount == 0 }, "a still file kept playing")
            clock.now = 10
            for _ in 0..<5 { loop.runTurn() }
            XCTAssertTrue(node.layer.contents === shown)
            XCTAssertEqual(animations.framesShown, 0)
        }
    }
}
