import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Records what the main thread and the workers do, for a Chrome trace-event JSON file that
/// Perfetto (ui.perfetto.dev) and chrome://tracing open: one track per thread with its timed
/// events (each turn and its phases on "main", each display on its worker, named by node), and
/// counter tracks (frame rate, texture memory).
///
/// Any thread. Off by default: then `measure` costs one relaxed atomic load and runs its body,
/// and event names (autoclosures) are never built. While recording, each event takes the lock
/// once, to append. A recording keeps at most `capacity` events (1,000,000 for `shared`, about
/// 100 MB); later events are not kept but counted (`TraceRecording.droppedEventCount`), so a
/// long recording shows its start and says what it lost.
///
/// Threads get small ids, stable for the thread's life (a thread-local): the main thread is 1
/// and named "main", others take the next id on their first event and the name given to
/// `nameCurrentThread` (a worker names itself when it starts), else "thread N". (Foundation's
/// `Thread.name` is no help: on Linux a thread started with a name reads back the process's.)
public final class Tracer: Sendable {
    /// Nanoseconds on the monotonic clock.
    public typealias Timestamp = UInt64

    /// The tracer the run loop, the display workers and the nodes record to.
    public static let shared = Tracer()

    /// The most events one recording keeps.
    public let capacity: Int

    /// Whether events are being recorded. `@usableFromInline` so that `measure`'s disabled path,
    /// inlined into callers in other modules, is this one load.
    @usableFromInline let recordingFlag = Atomic<Bool>(false)

    private struct State {
        var isRecording = false
        var start: Timestamp = 0
        var events: [TraceEvent] = []
        var dropped = 0
    }
    private let state = Mutex(State())

    public init(capacity: Int = 1_000_000) {
        self.capacity = max(0, capacity)
    }

    /// Whether events are being recorded (one relaxed atomic load).
    @inlinable
    public var isRecording: Bool { recordingFlag.load(ordering: .relaxed) }

    /// Starts a recording, discarding one in progress.
    public func start() {
        state.withLock { state in
            state = State(isRecording: true, start: Self.now())
            recordingFlag.store(true, ordering: .relaxed)
        }
    }

    /// Ends the recording and returns it. Events still running (their start was recorded, their
    /// end not) are lost; an event ending later is not recorded. Returns an empty recording when
    /// none was running.
    @discardableResult
    public func stop() -> TraceRecording {
        let (events, start, dropped) = state.withLock { state in
            recordingFlag.store(false, ordering: .relaxed)
            defer { state = State() }
            return (state.events, state.start, state.dropped)
        }
        let end = Self.now()
        let ids = Set(events.map(\.thread))
        let names = Self.registry.withLock { registry in registry.names.filter { ids.contains($0.key) } }
        return TraceRecording(
            events: events, threadNames: names, droppedEventCount: dropped,
            duration: end >= start ? end - start : 0)
    }

    // MARK: Events

    /// Runs `body` and records it as a complete event on the calling thread's track: its name,
    /// category, start and duration. Nested calls nest in the trace. When not recording, it only
    /// runs `body`; `name` is evaluated (after `body`) only when recording.
    @inlinable
    public func measure<T, E: Error>(
        _ name: @autoclosure () -> String, category: String,
        _ body: () throws(E) -> T
    ) throws(E) -> T {
        guard isRecording else { return try body() }
        let start = Self.now()
        defer { record(name(), category: category, start: start, end: Self.now()) }
        return try body()
    }

    /// An event begun with `begin`, for spans that do not fit one scope (they start in one
    /// function and end in another). End it on the same thread.
    public struct Interval: Sendable {
        public let name: String
        public let category: String
        public let start: Timestamp

        public init(name: String, category: String, start: Timestamp) {
            self.name = name
            self.category = category
            self.start = start
        }
    }

    /// Begins a span on the calling thread; nil (and `name` not evaluated) when not recording.
    @inlinable
    public func begin(_ name: @autoclosure () -> String, category: String) -> Interval? {
        guard isRecording else { return nil }
        return Interval(name: name(), category: category, start: Self.now())
    }

    /// Ends a span begun with `begin` on this thread (nil does nothing) and records it.
    @inlinable
    public func end(_ interval: Interval?) {
        guard let interval else { return }
        record(interval.name, category: interval.category, start: interval.start, end: Self.now())
    }

    /// Records a complete event on the calling thread's track from `start` to `end` (`now()`
    /// readings). Events that started before the recording did are not kept.
    public func record(_ name: String, category: String, start: Timestamp, end: Timestamp) {
        let thread = Self.threadID()
        append { recordingStart in
            guard start >= recordingStart else { return nil }
            return TraceEvent(
                name: name, category: category, kind: .complete(duration: end >= start ? end - start : 0),
                thread: thread, timestamp: start - recordingStart)
        }
    }

    /// Records a counter's value now: each name is a counter track.
    public func counter(_ name: String, value: Double) {
        guard isRecording else { return }
        let now = Self.now()
        let thread = Self.threadID()
        append { recordingStart in
            guard now >= recordingStart else { return nil }
            return TraceEvent(
                name: name, category: "counter", kind: .counter(value: value), thread: thread,
                timestamp: now - recordingStart)
        }
    }

    private func append(_ make: (Timestamp) -> TraceEvent?) {
        state.withLock { state in
            guard state.isRecording, let event = make(state.start) else { return }
            if state.events.count < capacity {
                state.events.append(event)
            } else {
                state.dropped += 1
            }
        }
    }

    /// Now, in nanoseconds on the monotonic clock.
    @inlinable
    public static func now() -> Timestamp {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Timestamp(ts.tv_sec) &* 1_000_000_000 &+ Timestamp(ts.tv_nsec)
    }

    // MARK: Threads

    /// Names the calling thread's track ("display worker 1"). Any thread, any time: the name is
    /// kept for the thread's life, recording or not.
    public func nameCurrentThread(_ name: String) {
        let id = Self.threadID()
        Self.registry.withLock { $0.names[id] = name }
    }

    /// The calling thread's id in traces (1 for the main thread).
    public static var currentThreadID: Int { threadID() }

    private struct ThreadRegistry {
        var nextID = 2
        var names: [Int: String] = [:]
    }
    /// Thread names by id, for every tracer (ids are per thread, not per tracer).
    private static let registry = Mutex(ThreadRegistry())
    /// The calling thread's id, stored as a pointer-sized integer in a thread-local slot.
    private static let threadKey: pthread_key_t = {
        var key = pthread_key_t()
        let result = pthread_key_create(&key, nil)
        precondition(result == 0, "Tracer: no thread-local key")
        return key
    }()

    private static func threadID() -> Int {
        if let stored = pthread_getspecific(threadKey) { return Int(bitPattern: stored) }
        let isMain = Thread.isMainThread
        let id = registry.withLock { registry -> Int in
            let id: Int
            if isMain {
                id = 1
            } else {
                id = registry.nextID
                registry.nextID += 1
            }
            if registry.names[id] == nil { registry.names[id] = isMain ? "main" : "thread \(id)" }
            return id
        }
        pthread_setspecific(threadKey, UnsafeRawPointer(bitPattern: id))
        return id
    }
}

/// One recorded event.
public struct TraceEvent: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// A span ("X"), in nanoseconds.
        case complete(duration: UInt64)
        /// A counter's value ("C").
        case counter(value: Double)
    }
    public var name: String
    public var category: String
    public var kind: Kind
    /// The thread's id (`Tracer.currentThreadID` of the thread that recorded it).
    public var thread: Int
    /// Nanoseconds since the recording started.
    public var timestamp: UInt64

    /// The span's duration in nanoseconds; nil for a counter.
    public var duration: UInt64? {
        if case .complete(let duration) = kind { return duration }
        return nil
    }
}

/// A finished recording: its events in the order they ended, and the names of their threads.
public struct TraceRecording: Sendable {
    public var events: [TraceEvent]
    /// The names of the threads the events ran on, by id.
    public var threadNames: [Int: String]
    /// Events recorded after the tracer's capacity was reached, not kept.
    public var droppedEventCount: Int
    /// From start to stop, in nanoseconds.
    public var duration: UInt64

    public init(events: [TraceEvent], threadNames: [Int: String], droppedEventCount: Int = 0, duration: UInt64 = 0) {
        self.events = events
        self.threadNames = threadNames
        self.droppedEventCount = droppedEventCount
        self.duration = duration
    }

    /// The Chrome trace-event JSON object format: `{"traceEvents": [...], "displayTimeUnit":
    /// "ms", "otherData": {...}}`, process id 1; a "thread_name" metadata event per thread (and a
    /// sort index: the main thread first, then by name), then the events by start time (a span before the
    /// spans it contains): "X" with `ts` and `dur` in microseconds, "C" with the value as
    /// `args.value` (Perfetto names the track "<name> value").
    public func chromeJSON(processName: String = ProcessInfo.processInfo.processName) -> Data {
        var out: [UInt8] = []
        out.reserveCapacity(200 + events.count * 110)
        func put(_ s: String) { out.append(contentsOf: s.utf8) }
        func putString(_ s: String) {
            out.append(UInt8(ascii: "\""))
            for byte in s.utf8 {
                switch byte {
                case UInt8(ascii: "\""): put("\\\"")
                case UInt8(ascii: "\\"): put("\\\\")
                case 0x0A: put("\\n")
                case 0x0D: put("\\r")
                case 0x09: put("\\t")
                case 0..<0x20:
                    let hex = Array("0123456789abcdef".utf8)
                    put("\\u00")
                    out.append(hex[Int(byte >> 4)])
                    out.append(hex[Int(byte & 0xF)])
                default: out.append(byte)
                }
            }
            out.append(UInt8(ascii: "\""))
        }
        /// Nanoseconds as microseconds with three decimals.
        func putMicroseconds(_ ns: UInt64) {
            put(String(ns / 1000))
            let fraction = ns % 1000
            out.append(UInt8(ascii: "."))
            out.append(UInt8(ascii: "0") + UInt8(fraction / 100))
            out.append(UInt8(ascii: "0") + UInt8(fraction / 10 % 10))
            out.append(UInt8(ascii: "0") + UInt8(fraction % 10))
        }

        put("{\"traceEvents\":[\n")
        put("{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":1,\"tid\":1,\"args\":{\"name\":")
        putString(processName)
        put("}}")
        // Tracks in order: main, then by name ("display worker 2" before "display worker 10"),
        // whatever order the threads first recorded in.
        let threads = threadNames.sorted { a, b in
            if (a.key == 1) != (b.key == 1) { return a.key == 1 }
            let order = a.value.compare(b.value, options: .numeric)
            return order == .orderedSame ? a.key < b.key : order == .orderedAscending
        }
        for (index, (id, name)) in threads.enumerated() {
            put(",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":\(id),\"args\":{\"name\":")
            putString(name)
            put("}}")
            put(",\n{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":1,\"tid\":\(id),\"args\":{\"sort_index\":\(index)}}")
        }
        let ordered = events.sorted { a, b in
            a.timestamp != b.timestamp ? a.timestamp < b.timestamp : (a.duration ?? 0) > (b.duration ?? 0)
        }
        for event in ordered {
            put(",\n{\"name\":")
            putString(event.name)
            put(",\"cat\":")
            putString(event.category)
            switch event.kind {
            case .complete(let duration):
                put(",\"ph\":\"X\",\"ts\":")
                putMicroseconds(event.timestamp)
                put(",\"dur\":")
                putMicroseconds(duration)
                put(",\"pid\":1,\"tid\":\(event.thread)}")
            case .counter(let value):
                put(",\"ph\":\"C\",\"ts\":")
                putMicroseconds(event.timestamp)
                put(",\"pid\":1,\"tid\":\(event.thread),\"args\":{\"value\":\(value.isFinite ? "\(value)" : "0")}}")
            }
        }
        put("\n],\n\"displayTimeUnit\":\"ms\",\n\"otherData\":{\"droppedEvents\":\(droppedEventCount),")
        put("\"durationMicroseconds\":\(duration / 1000)}}\n")
        return Data(out)
    }

    /// Writes `chromeJSON()` to `url`.
    public func write(to url: URL) throws {
        try chromeJSON().write(to: url, options: .atomic)
    }

    /// How many events each name has (spans and counters), for summaries and tests.
    public func eventCounts() -> [String: Int] {
        events.reduce(into: [:]) { $0[$1.name, default: 0] += 1 }
    }
}
