import CanopyTestSupport
import Foundation
import Synchronization
import XCTest
@testable import Canopy

/// A node that fills its bounds, so its display is a "draw" on a worker.
private final class FilledNode: DisplayNode, ContentDrawing, @unchecked Sendable {
    func drawParameters() -> Color { .white }
    class func draw(_ color: Color, in context: GraphicsContext, isCancelled: @Sendable () -> Bool) {
        context.fill(CGRect(x: 0, y: 0, width: 100, height: 100), with: color)
    }
}

final class TracerTests: XCTestCase {
    /// Runs `body` on a new thread and waits for it (`HangGuard.deadline` is a hang guard, not a timing check).
    private func onThread(_ body: @escaping @Sendable () -> Void) {
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            body()
            done.signal()
        }
        thread.start()
        XCTAssertEqual(done.wait(timeout: HangGuard.deadline), .success)
    }

    func testNothingIsRecordedWhenNotStarted() {
        let tracer = Tracer()
        XCTAssertFalse(tracer.isRecording)
        let evaluated = Mutex(false)
        let value = tracer.measure(
            {
                evaluated.withLock { $0 = true }; return "never"
            }(), category: "test"
        ) { 42 }
        XCTAssertEqual(value, 42)
        XCTAssertFalse(evaluated.withLock { $0 }, "the name is not built when not recording")
        XCTAssertNil(tracer.begin("never", category: "test"))
        tracer.counter("never", value: 1)
        tracer.start()
        let recording = tracer.stop()
        XCTAssertTrue(recording.events.isEmpty)
        XCTAssertFalse(tracer.isRecording)
        tracer.measure("after", category: "test") {}
        XCTAssertTrue(tracer.stop().events.isEmpty, "nothing after stop either")
    }

    func testMeasureRecordsACompleteEventOnTheCallingThread() throws {
        let tracer = Tracer()
        tracer.start()
        XCTAssertTrue(tracer.isRecording)
        let result = tracer.measure("outer", category: "test") {
            tracer.measure("inner", category: "nested") { "value" }
        }
        XCTAssertEqual(result, "value")
        let recording = tracer.stop()
        XCTAssertEqual(recording.events.map(\.name), ["inner", "outer"], "in the order they ended")
        let outer = recording.events[1], inner = recording.events[0]
        XCTAssertEqual(outer.category, "test")
        XCTAssertEqual(inner.category, "nested")
        XCTAssertEqual(outer.thread, 1, "the main thread is track 1")
        XCTAssertEqual(outer.thread, Tracer.currentThreadID)
        XCTAssertEqual(inner.thread, outer.thread)
        XCTAssertEqual(recording.threadNames[outer.thread], "main")
        let outerDuration = try XCTUnwrap(outer.duration), innerDuration = try XCTUnwrap(inner.duration)
        XCTAssertLessThanOrEqual(outer.timestamp, inner.timestamp)
        XCTAssertGreaterThanOrEqual(
            outer.timestamp + outerDuration, inner.timestamp + innerDuration,
            "the inner span lies within the outer one")
    }

    func testMeasureRethrowsAndStillRecords() {
        struct Failure: Error {}
        let tracer = Tracer()
        tracer.start()
        XCTAssertThrowsError(try tracer.measure("failing", category: "test") { () throws(Failure) in throw Failure() })
        XCTAssertEqual(tracer.stop().events.map(\.name), ["failing"])
    }

    func testBeginAndEndRecordASpan() {
        let tracer = Tracer()
        tracer.start()
        let interval = tracer.begin("span", category: "test")
        XCTAssertNotNil(interval)
        tracer.end(interval)
        tracer.end(nil)
        let events = tracer.stop().events
        XCTAssertEqual(events.map(\.name), ["span"])
        XCTAssertNotNil(events.first?.duration)
    }

    func testTwoThreadsGetTwoTracksWithTheirNames() throws {
        let tracer = Tracer()
        tracer.start()
        tracer.measure("on main", category: "test") {}
        onThread {
            tracer.nameCurrentThread("worker under test")
            tracer.measure("on worker", category: "test") {}
            tracer.measure("again on worker", category: "test") {}
        }
        onThread {
            tracer.measure("on unnamed thread", category: "test") {}
        }
        let recording = tracer.stop()
        let byName = Dictionary(uniqueKeysWithValues: recording.events.map { ($0.name, $0.thread) })
        XCTAssertEqual(byName["on main"], 1)
        let worker = try XCTUnwrap(byName["on worker"])
        XCTAssertNotEqual(worker, 1)
        XCTAssertEqual(byName["again on worker"], worker, "a thread keeps its id")
        let unnamed = try XCTUnwrap(byName["on unnamed thread"])
        XCTAssertNotEqual(unnamed, worker)
        XCTAssertNotEqual(unnamed, 1)
        XCTAssertEqual(recording.threadNames[worker], "worker under test")
        XCTAssertEqual(recording.threadNames[unnamed], "thread \(unnamed)", "a track nobody named")
        XCTAssertEqual(Set(recording.threadNames.keys), [1, worker, unnamed], "only threads with events")
    }

    func testCounters() {
        let tracer = Tracer()
        tracer.start()
        tracer.counter("fps", value: 59.5)
        tracer.counter("texture MB", value: 7.25)
        let events = tracer.stop().events
        XCTAssertEqual(events.map(\.name), ["fps", "texture MB"])
        XCTAssertEqual(events.map(\.kind), [.counter(value: 59.5), .counter(value: 7.25)])
        XCTAssertNil(events[0].duration)
    }

    func testEventsThatStartedBeforeTheRecordingAreNotKept() {
        let tracer = Tracer()
        let early = Tracer.now() - 1_000_000
        tracer.start()
        tracer.record("early", category: "test", start: early, end: Tracer.now())
        XCTAssertTrue(tracer.stop().events.isEmpty)
    }

    func testTheCapKeepsTheFirstEventsAndCountsTheRest() throws {
        let tracer = Tracer(capacity: 5)
        tracer.start()
        for i in 0..<8 { tracer.measure("event \(i)", category: "test") {} }
        tracer.counter("counter", value: 1)
        let recording = tracer.stop()
        XCTAssertEqual(recording.events.map(\.name), (0..<5).map { "event \($0)" })
        XCTAssertEqual(recording.droppedEventCount, 4)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: recording.chromeJSON()) as? [String: Any])
        XCTAssertEqual((json["otherData"] as? [String: Any])?["droppedEvents"] as? Int, 4)

        tracer.start()
        tracer.measure("fresh", category: "test") {}
        let next = tracer.stop()
        XCTAssertEqual(next.events.map(\.name), ["fresh"], "a new recording starts empty")
        XCTAssertEqual(next.droppedEventCount, 0)
    }

    func testTracksAreSortedMainFirstThenByName() throws {
        let recording = TraceRecording(
            events: [], threadNames: [7: "display worker 10", 3: "display worker 2", 5: "batch", 1: "main"])
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: recording.chromeJSON()) as? [String: Any])
        let events = try XCTUnwrap(json["traceEvents"] as? [[String: Any]])
        let order = events.filter { $0["name"] as? String == "thread_sort_index" }
            .sorted {
                (($0["args"] as! [String: Any])["sort_index"] as! Int) < (($1["args"] as! [String: Any])["sort_index"] as! Int)
            }
            .map { $0["tid"] as! Int }
        XCTAssertEqual(order, [1, 5, 3, 7])
    }

    func testChromeJSONParsesWithTheExpectedKeys() throws {
        let tracer = Tracer()
        tracer.start()
        tracer.measure("turn", category: "frame") {
            tracer.measure("layout", category: "frame") {}
        }
        tracer.counter("fps", value: 60)
        onThread {
            tracer.nameCurrentThread("display worker \"7\"\n")
            tracer.measure("draw Ünïcode \\ \"quoted\"\t", category: "display") {}
        }
        let recording = tracer.stop()
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: recording.chromeJSON(processName: "tests")) as? [String: Any])
        XCTAssertEqual(json["displayTimeUnit"] as? String, "ms")
        let events = try XCTUnwrap(json["traceEvents"] as? [[String: Any]])
        for event in events {
            XCTAssertEqual(event["pid"] as? Int, 1)
            XCTAssertNotNil(event["tid"] as? Int)
            XCTAssertNotNil(event["ph"] as? String)
            XCTAssertNotNil(event["name"] as? String)
        }
        let metadata = events.filter { $0["ph"] as? String == "M" }
        let threadNames = Dictionary(
            uniqueKeysWithValues: metadata.filter { $0["name"] as? String == "thread_name" }
                .map { ($0["tid"] as! Int, ($0["args"] as! [String: Any])["name"] as! String) })
        XCTAssertEqual(threadNames[1], "main")
        XCTAssertEqual(threadNames.count, 2)
        XCTAssertTrue(threadNames.values.contains("display worker \"7\"\n"), "names are escaped and come back whole")
        let sortIndex = Dictionary(
            uniqueKeysWithValues: metadata.filter { $0["name"] as? String == "thread_sort_index" }
                .map { ($0["tid"] as! Int, ($0["args"] as! [String: Any])["sort_index"] as! Int) })
        XCTAssertEqual(sortIndex[1], 0, "main first")
        XCTAssertEqual(Set(sortIndex.keys), Set(threadNames.keys))
        XCTAssertTrue(
            metadata.contains {
                $0["name"] as? String == "process_name"
                    && ($0["args"] as? [String: Any])?["name"] as? String == "tests"
            })

        let spans = events.filter { $0["ph"] as? String == "X" }
        XCTAssertEqual(
            spans.compactMap { $0["name"] as? String }, ["turn", "layout", "draw Ünïcode \\ \"quoted\"\t"],
            "by start, a span before the spans it contains")
        for span in spans {
            XCTAssertNotNil(span["cat"] as? String)
            XCTAssertGreaterThanOrEqual(try XCTUnwrap(span["ts"] as? Double), 0)
            XCTAssertGreaterThanOrEqual(try XCTUnwrap(span["dur"] as? Double), 0)
        }
        let turn = spans[0], layout = spans[1]
        XCTAssertEqual(turn["tid"] as? Int, 1)
        XCTAssertNotEqual(spans[2]["tid"] as? Int, 1)
        XCTAssertLessThanOrEqual(turn["ts"] as! Double, layout["ts"] as! Double)
        // Microseconds: the recording's own nanoseconds, divided.
        let recordedTurn = try XCTUnwrap(recording.events.first { $0.name == "turn" })
        XCTAssertEqual(turn["ts"] as! Double, Double(recordedTurn.timestamp) / 1000, accuracy: 0.0011)
        XCTAssertEqual(turn["dur"] as! Double, Double(recordedTurn.duration!) / 1000, accuracy: 0.0011)

        let counters = events.filter { $0["ph"] as? String == "C" }
        XCTAssertEqual(counters.count, 1)
        XCTAssertEqual(counters.first?["name"] as? String, "fps")
        XCTAssertEqual((counters.first?["args"] as? [String: Any])?["value"] as? Double, 60)
    }

    /// The real thing: a node displayed under a started shared tracer draws on a display worker,
    /// and the run loop's turns, with their layout and commit phases, are on the main track.
    @MainActor
    func testARealDisplayIsTracedOnAWorkerAndTheTurnOnMain() throws {
        let (loop, _) = TestLoop.make()
        defer { DisplayScheduler.shared.uninstall() }
        let node = FilledNode()
        node.name = "traced node"
        node.frame = CGRect(x: 0, y: 0, width: 20, height: 20)
        Tracer.shared.start()
        defer { _ = Tracer.shared.stop() }
        _ = node.layer
        node.setNeedsDisplay()
        TestLoop.turn(loop, until: { node.layer.contents != nil })
        loop.runTurn()
        let recording = Tracer.shared.stop()

        let draws = recording.events.filter { $0.name == "draw traced node" }
        XCTAssertEqual(draws.count, 1)
        let draw = try XCTUnwrap(draws.first)
        XCTAssertEqual(draw.category, "display")
        XCTAssertNotEqual(draw.thread, 1, "drawn on a worker")
        XCTAssertEqual(
            recording.threadNames[draw.thread]?.hasPrefix("display worker "), true,
            "\(recording.threadNames[draw.thread] ?? "no name")")

        let main = recording.events.filter { $0.thread == 1 }
        let turns = main.filter { $0.name == "turn" }
        XCTAssertGreaterThanOrEqual(turns.count, 2)
        for phase in ["input", "layout", "commit"] {
            XCTAssertGreaterThanOrEqual(main.filter { $0.name == phase }.count, turns.count, phase)
        }
        // Every layout lies within a turn.
        for layout in main where layout.name == "layout" {
            XCTAssertTrue(
                turns.contains {
                    $0.timestamp <= layout.timestamp
                        && layout.timestamp + layout.duration! <= $0.timestamp + $0.duration!
                })
        }
        XCTAssertTrue(main.contains { $0.name == "start displays" })
        XCTAssertTrue(main.contains { $0.name == "land displays" })
        XCTAssertEqual(recording.threadNames[1], "main")
    }

    /// A rasterized card: its display, each drawn subnode, the photo's decode and modification
    /// and the title's text are named by the card (and the path to the node), nested in its
    /// "draw" on one worker.
    @MainActor
    func testARasterizedSubtreeNamesItsWorkByTheCard() throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("TracerTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let context = GraphicsContext(pixelWidth: 16, pixelHeight: 16, scale: 1)
        context.fill(CGRect(x: 0, y: 0, width: 16, height: 16), with: Color(red: 1, green: 0, blue: 0))
        let path = scratch.appendingPathComponent("photo.png").path
        try context.makeBitmap().writePNG(to: path)

        let (loop, _) = TestLoop.make()
        defer { DisplayScheduler.shared.uninstall() }
        let card = DisplayNode()
        card.name = "Ocean Cove"
        card.rasterizesSubtree = true
        card.frame = CGRect(x: 0, y: 0, width: 40, height: 40)
        let photo = ImageNode()
        photo.name = "photo"
        photo.imagePath = path
        photo.imageModificationBlock = { bitmap, _ in bitmap }
        photo.frame = CGRect(x: 0, y: 0, width: 40, height: 20)
        let title = TextNode()
        title.name = "title"
        title.fonts = TestFonts.registry
        title.attributedText = AttributedString("Title", font: Font(family: "Lato", size: 12), color: .white)
        title.frame = CGRect(x: 0, y: 0, width: 40, height: 20)
        let caption = DisplayNode()
        caption.name = "caption"
        caption.frame = CGRect(x: 0, y: 20, width: 40, height: 20)
        caption.addSubnode(title)
        card.addSubnode(photo)
        card.addSubnode(caption)
        Tracer.shared.start()
        defer { _ = Tracer.shared.stop() }
        let layer = card.layer
        TestLoop.turn(loop, until: { layer.contents != nil })
        let recording = Tracer.shared.stop()

        let draw = try XCTUnwrap(recording.events.first { $0.name == "draw Ocean Cove" })
        XCTAssertNotEqual(draw.thread, 1)
        for name in [
            "draw Ocean Cove/photo", "decode Ocean Cove/photo", "modify Ocean Cove/photo",
            "draw Ocean Cove/caption/title", "text Ocean Cove/caption/title",
        ] {
            let event = try XCTUnwrap(recording.events.first { $0.name == name }, name)
            XCTAssertEqual(event.thread, draw.thread, name)
            XCTAssertTrue(
                draw.timestamp <= event.timestamp
                    && event.timestamp + event.duration! <= draw.timestamp + draw.duration!, "\(name) within the card's draw")
        }
        XCTAssertEqual(recording.events.first { $0.name == "decode Ocean Cove/photo" }?.category, "image")
        XCTAssertEqual(recording.events.first { $0.name == "text Ocean Cove/caption/title" }?.category, "text")
        XCTAssertFalse(
            recording.events.contains { $0.name.contains("caption") && !$0.name.hasSuffix("title") },
            "a node with nothing to draw has no event")
    }

    /// A collection's cells are made and measured on the workers, each a "make cell N" with its
    /// "measure cell N" inside, and drawn as "draw <its name>".
    @MainActor
    func testCollectionCellsAreMadeAndMeasuredOnTheWorkers() throws {
        let source = TestSource(heights: Array(repeating: 100, count: 20))
        Tracer.shared.start()
        defer { _ = Tracer.shared.stop() }
        let (collection, loop) = CollectionNodeTests.make(source)
        defer { DisplayScheduler.shared.uninstall() }
        CollectionNodeTests.settle(collection, loop)
        let recording = Tracer.shared.stop()
        for index in collection.visibleItemIndices {
            let make = try XCTUnwrap(recording.events.first { $0.name == "make cell \(index)" }, "\(index)")
            let measure = try XCTUnwrap(recording.events.first { $0.name == "measure cell \(index)" }, "\(index)")
            XCTAssertNotEqual(make.thread, 1)
            XCTAssertEqual(make.category, "cell")
            XCTAssertEqual(measure.thread, make.thread)
            XCTAssertTrue(
                make.timestamp <= measure.timestamp
                    && measure.timestamp + measure.duration! <= make.timestamp + make.duration!)
        }
        XCTAssertGreaterThanOrEqual(
            recording.events.filter { $0.name == "draw TestCell" && $0.thread != 1 }.count,
            collection.visibleItemIndices.count)
    }
}
