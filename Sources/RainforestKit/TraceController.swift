import Canopy
import Foundation

/// Starts and stops a trace of the viewer (key T): the first toggle starts `Tracer.shared`, the
/// next stops it and writes `rainforest-trace-YYYYMMDD-HHMMSS.json` (Chrome trace-event JSON,
/// for ui.perfetto.dev or chrome://tracing) into the directory given, else
/// `$RAINFOREST_TRACE_DIR`, else the current directory. Each toggle returns a one-line message
/// for the status line or standard output. Main thread.
@MainActor
final class TraceController {
    let tracer: Tracer
    let directory: URL
    /// When the recording in progress started (its file is named after it), if one is.
    private(set) var startedAt: Date?

    init(
        tracer: Tracer = .shared, directory: URL? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) {
        self.tracer = tracer
        if let directory {
            self.directory = directory
        } else if let path = environment["RAINFOREST_TRACE_DIR"], !path.isEmpty {
            self.directory = URL(fileURLWithPath: path, isDirectory: true)
        } else {
            self.directory = URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true)
        }
    }

    var isRecording: Bool { startedAt != nil }

    /// Starts a trace, or stops the one running and writes it (synchronously: a long trace
    /// takes a moment to write, after it has stopped). Returns what happened, in one line.
    @discardableResult
    func toggle(now: Date = Date()) -> String {
        guard let startedAt else {
            tracer.start()
            self.startedAt = now
            return "tracing: press T again to stop and write the trace"
        }
        self.startedAt = nil
        let recording = tracer.stop()
        let url = directory.appendingPathComponent(Self.fileName(for: startedAt))
        let dropped =
            recording.droppedEventCount > 0
            ? " (\(recording.droppedEventCount.formatted()) more dropped: the trace is full)" : ""
        do {
            try recording.write(to: url)
        } catch {
            return "trace not written to \(url.path): \(error.localizedDescription)"
        }
        return "trace written to \(url.path): \(recording.events.count.formatted()) events"
            + " over \(String(format: "%.1f", Double(recording.duration) / 1e9)) s\(dropped)"
    }

    /// `rainforest-trace-YYYYMMDD-HHMMSS.json`, local time.
    nonisolated static func fileName(for date: Date, timeZone: TimeZone = .current) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        return String(
            format: "rainforest-trace-%04d%02d%02d-%02d%02d%02d.json",
            c.year ?? 0, c.month ?? 0, c.day ?? 0, c.hour ?? 0, c.minute ?? 0, c.second ?? 0)
    }
}
