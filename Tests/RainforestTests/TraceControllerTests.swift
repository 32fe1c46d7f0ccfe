import Canopy
import Foundation
import XCTest
@testable import RainforestKit

final class TraceControllerTests: XCTestCase {
    func testTheFileIsNamedAfterTheStartInLocalTime() {
        let date = Date(timeIntervalSince1970: 1_700_000_000)  // 2023-11-14 22:13:20 UTC
        XCTAssertEqual(
            TraceController.fileName(for: date, timeZone: TimeZone(identifier: "UTC")!),
            "rainforest-trace-20231114-221320.json")
    }

    func testTheDirectoryComesFromTheEnvironmentElseTheCurrentOne() {
        MainActor.assumeIsolated {
            XCTAssertEqual(TraceController(environment: ["RAINFOREST_TRACE_DIR": "/tmp/traces"]).directory.path, "/tmp/traces")
            XCTAssertEqual(TraceController(environment: [:]).directory.path, FileManager.default.currentDirectoryPath)
        }
    }

    func testToggleStartsThenStopsAndWritesATrace() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("TraceControllerTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try MainActor.assumeIsolated {
            let tracer = Tracer()
            let controller = TraceController(tracer: tracer, directory: directory)
            let start = Date(timeIntervalSince1970: 1_700_000_000)
            XCTAssertTrue(controller.toggle(now: start).hasPrefix("tracing"))
            XCTAssertTrue(controller.isRecording)
            XCTAssertTrue(tracer.isRecording)
            tracer.measure("turn", category: "frame") {}
            tracer.counter("fps", value: 60)
            let message = controller.toggle(now: start.addingTimeInterval(5))
            XCTAssertFalse(controller.isRecording)
            XCTAssertFalse(tracer.isRecording)
            let url = directory.appendingPathComponent(TraceController.fileName(for: start))
            XCTAssertTrue(message.contains(url.path), message)
            XCTAssertTrue(message.contains("2 events"), message)
            let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
            let names = (json["traceEvents"] as? [[String: Any]])?.compactMap { $0["name"] as? String } ?? []
            XCTAssertTrue(names.contains("turn") && names.contains("fps"), "\(names)")
        }
    }

    func testAnUnwritableDirectorySaysSo() {
        MainActor.assumeIsolated {
            let controller = TraceController(tracer: Tracer(), directory: URL(fileURLWithPath: "/nonexistent/traces"))
            controller.toggle()
            XCTAssertTrue(controller.toggle().hasPrefix("trace not written"))
        }
    }
}
